/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H
#define NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H

#include "allreduce-scheduler.h"

#include "ns3/id-span.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * List scheduling: at every decision point, takes the ready workloads in priority order
 * (highest first, then lowest id) and starts each one the state lets start (no directed link
 * busy or down). Derived classes set the priorities in ComputePriorities, and may change them
 * as the schedule unfolds (UpdatePriorities, GetPriority, ArePrioritiesFixed). The ready
 * workloads stay filed between decisions, following the state's ready log, so that a decision
 * costs what it starts and passes over rather than a sort of all that is ready
 * (doc/allreduce.rst, "Schedulers").
 *
 * Late gradients (stragglers, at packet level) hold some workloads back while others are
 * ready, which the priorities were not made for: taken greedily, the ready workloads pack into
 * rounds that mix short and long transfers and take more of them than the plan. So once a
 * workload waits for a late gradient, the scheduler (attribute FollowPlanWhenLate) takes the
 * ready workloads in the order of its own flow-level plan (the round this rule gives each
 * workload when every gradient is ready, then the priority), and starts a workload planned
 * after the first round not wholly started only when its transfer is no longer (links over
 * the slowest link's relative rate) than that round's longest, which a barrier waits for
 * anyway. With rounds of equal length this never takes more rounds than replaying the plan,
 * which waits for the late gradient instead (doc/allreduce.rst, "Decisions inside ns-3").
 */
class PriorityListScheduler : public AllReduceScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    void Prepare(const WorkloadSet& workloads) override;
    void SelectRound(SchedulerState& state) override;

  protected:
    /**
     * \param workloads the workloads to schedule
     * \return one priority per workload (higher goes first). Where priorities change as the
     *         schedule unfolds (GetPriority), these must order the workloads of one path
     *         among themselves as GetPriority does at any time.
     */
    virtual std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) = 0;

    /**
     * Called at the start of every SelectRound, for schedulers whose priorities change as
     * the schedule unfolds; the default keeps them fixed.
     * \param state the state
     */
    virtual void UpdatePriorities(const SchedulerState& state);

    /**
     * \param id a ready workload
     * \param pathOrder its value from ComputePriorities
     * \param links the directed links of its path
     * \return its priority now (after the last UpdatePriorities); the default, pathOrder.
     *         Two workloads on the same path must compare as their pathOrder values do: the
     *         rule keeps the ready workloads of a path in that order, and asks for the
     *         priority of each path's first only (doc/allreduce.rst, "Schedulers").
     */
    virtual uint64_t GetPriority(uint32_t id, uint64_t pathOrder, IdSpan links) const;

    /**
     * \return true when GetPriority returns the ComputePriorities value as it is (the
     *         default): the rule then keeps the ready workloads in one sorted list
     */
    virtual bool ArePrioritiesFixed() const;

  private:
    /**
     * Plans the workloads with this rule at flow level (as MakePlan would), for the round of
     * each and the longest transfer of each round, and then prepares for the run in progress
     * again.
     * \param state the state of the run in progress
     */
    void PlanRounds(const SchedulerState& state);
    /// A ready workload and its place in the order: greater goes first (plan round, then
    /// priority, then the lower id).
    struct Entry
    {
        uint64_t first;  //!< ~planned round when following the plan, else the priority
        uint64_t second; //!< the priority when following the plan, else 0
        uint32_t id;     //!< the workload

        /// \param o another entry \return true when this one goes after o
        bool operator<(const Entry& o) const
        {
            if (first != o.first)
            {
                return first < o.first;
            }
            return second != o.second ? second < o.second : id > o.id;
        }
    };

    /**
     * \param id a workload \param priority its priority
     * \return its entry, in the plan's order when following it
     */
    Entry MakeEntry(uint32_t id, uint64_t priority) const;
    /**
     * Brings the ready workloads by path up to date with the state: follows its ready log
     * since the last call, or, for another state or run, changed paths or a different order,
     * files its ready workloads anew.
     * \param state the state
     */
    void Follow(const SchedulerState& state);
    /// Groups the workloads by path (equal directed links) into m_pathOf.
    /// \param workloads the workloads as routed now
    void IndexPaths(const WorkloadSet& workloads);
    /// Files a ready workload (into m_arrivals, or under its path). \param id the workload
    void File(uint32_t id);
    /// Takes a workload that started or left the ready set out of the count. \param id it
    void Unfile(uint32_t id);
    /// \param path a path \return its directed links
    IdSpan PathLinks(uint32_t path) const;
    /// \param links directed links \return true when every one is free (m_open)
    bool IsOpen(IdSpan links) const;
    /**
     * Starts a filed workload if its links are free (m_open) and the state and the plan let it.
     * \param state the state \param id the workload \param links its directed links
     * \return true when it started
     */
    bool TryStart(SchedulerState& state, uint32_t id, IdSpan links);
    /// The decision with fixed priorities, reading the sorted list. \param state the state
    void SelectInOrder(SchedulerState& state);
    /// The decision with changing priorities, by path. \param state the state
    void SelectByPath(SchedulerState& state);

    /// The first and the last directed link of a filed workload, read for every entry.
    struct Ends
    {
        uint32_t first; //!< its first link (past the links: gone from the list, or none)
        uint32_t last;  //!< its last link
    };

    std::vector<uint64_t> m_priority;            //!< per workload, from ComputePriorities
    bool m_followPlanWhenLate{true};             //!< FollowPlanWhenLate attribute
    bool m_planning{false};                      //!< true inside PlanRounds
    std::vector<std::vector<uint32_t>> m_rounds; //!< the plan, once a gradient was late
    std::vector<uint32_t> m_plannedRound;        //!< per workload, its round in m_rounds
    std::vector<double> m_roundLength;           //!< per planned round, its longest transfer
    uint32_t m_frontier{0};                      //!< first planned round not wholly started

    // The ready workloads, filed by path between decisions (Follow).
    const SchedulerState* m_followed{nullptr};  //!< the state they follow (null: none)
    const WorkloadSet* m_indexed{nullptr};      //!< the workloads m_pathOf indexes
    uint64_t m_indexedChanges{0};               //!< their path changes when indexed
    bool m_filedByPlan{false};                  //!< entries in the plan's order
    bool m_filedFixed{false};                   //!< filed in one sorted list (fixed priorities)
    double m_longest{0};                        //!< SelectRound: the frontier round's longest
    size_t m_logRead{0};                        //!< ready log entries read
    std::vector<uint32_t> m_pathOf;             //!< per workload, its path
    std::vector<uint64_t> m_pathStart;          //!< per path and one more, start in m_paths
    std::vector<uint32_t> m_paths;              //!< every path's directed links, path by path
    std::vector<std::vector<Entry>> m_filed;    //!< per path, its ready workloads (a heap)
    std::vector<uint8_t> m_isFiled;             //!< per workload, 1 when filed
    size_t m_nFiled{0};                         //!< workloads filed
    std::vector<uint32_t> m_occupied;           //!< paths with filed workloads (and emptied)
    std::vector<uint8_t> m_isOccupied;          //!< per path, 1 when in m_occupied
    std::vector<Entry> m_order;                 //!< fixed: ready workloads, sorted
    std::vector<Ends> m_ends;                   //!< fixed: per entry of m_order, its links
    size_t m_nGone{0};                          //!< fixed: entries gone from m_order
    std::vector<Entry> m_arrivals;              //!< fixed: filed since the last merge
    std::vector<Entry> m_mergedOrder;           //!< fixed: the merge's output
    std::vector<Ends> m_mergedEnds;             //!< fixed: the merge's output
    std::vector<uint8_t> m_open;                //!< SelectRound: per directed link, 1 if free
    /// A group of paths with one first link, with its first path's first.
    struct Group
    {
        Entry top;     //!< the first of the group's paths' firsts
        uint32_t link; //!< the first link

        /// \param o another group \return true when this one goes after o
        bool operator<(const Group& o) const
        {
            return top < o.top;
        }
    };

    std::vector<Entry> m_heads;                 //!< SelectRound: each open path's first
    std::vector<Entry> m_groupHeads;            //!< SelectRound: m_heads by first link
    std::vector<uint64_t> m_groupStart;         //!< SelectRound: per link, its group's start
    std::vector<uint64_t> m_groupEnd;           //!< SelectRound: per link, its group's end
    std::vector<Group> m_groups;                //!< SelectRound: heap of the open groups
    std::vector<Entry> m_deferred;              //!< SelectRound: set aside this decision
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H */
