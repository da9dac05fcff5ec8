/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H
#define NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H

#include "allreduce-scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * List scheduling: at every decision point, takes the ready workloads in priority order
 * (highest first, then lowest id) and starts each one the state lets start (no directed link
 * busy or down). Derived classes set the priorities in ComputePriorities, and may change them
 * as the schedule unfolds in UpdatePriorities.
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
     * \return one priority per workload (higher goes first)
     */
    virtual std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) = 0;

    /**
     * Called at the start of every SelectRound, for schedulers whose priorities change as
     * the schedule unfolds; the default keeps them fixed.
     * \param state the state
     * \param priority per workload; only the ready workloads' entries are read this round
     */
    virtual void UpdatePriorities(const SchedulerState& state, std::vector<uint64_t>& priority);

  private:
    /**
     * Plans the workloads with this rule at flow level (as MakePlan would), for the round of
     * each and the longest transfer of each round, and then prepares for the run in progress
     * again.
     * \param state the state of the run in progress
     */
    void PlanRounds(const SchedulerState& state);
    /**
     * \param state a state \param id a workload
     * \return how long its transfer is: the links of its path over the slowest one's rate
     */
    static double GetLength(const SchedulerState& state, uint32_t id);

    std::vector<uint64_t> m_priority;            //!< per workload
    bool m_followPlanWhenLate{true};             //!< FollowPlanWhenLate attribute
    bool m_planning{false};                      //!< true inside PlanRounds
    std::vector<std::vector<uint32_t>> m_rounds; //!< the plan, once a gradient was late
    std::vector<uint32_t> m_plannedRound;        //!< per workload, its round in m_rounds
    std::vector<double> m_roundLength;           //!< per planned round, its longest transfer
    uint32_t m_frontier{0};                      //!< first planned round not wholly started

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

    std::vector<uint32_t> m_firstLink;   //!< SelectRound: per ready workload, its first link
    std::vector<uint32_t> m_bucketStart; //!< SelectRound: per first link, start in m_entries
    std::vector<uint32_t> m_bucketEnd;   //!< SelectRound: per first link, end of its heap
    std::vector<Entry> m_entries;        //!< SelectRound: ready workloads, heap per first link
    std::vector<uint32_t> m_heads;       //!< SelectRound: heap of first links by their best
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H */
