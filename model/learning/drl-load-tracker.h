/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_LOAD_TRACKER_H
#define NS3_ALLREDUCE_DRL_LOAD_TRACKER_H

#include "drl-tree-catalogue.h"

#include "ns3/scheduler-state.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * What is left of an AllReduce in the DRL environment, and how it weighs on the links: per
 * flow tree of a DrlTreeCatalogue, its workloads not done; per directed link, the remaining
 * load of the trees the roots may still use (a committed tree counts whole, each candidate of
 * an uncommitted root a share), over the share of the link left to it; and the rounds a tree
 * needs by itself, since a directed link carries one workload a round. Both levels'
 * observations read it; the environment updates it between rounds.
 *
 * A copy is a snapshot of the counts (DrlEnvironment::Save), to Restore into a tracker of the
 * same trees.
 */
class DrlLoadTracker
{
  public:
    /// The smallest share of a link counted for its pressure: a link that other traffic
    /// fills, or a very slow one, weighs at most ten times its workloads.
    static constexpr double MIN_LINK_SHARE = 0.1;

    /// Tracks nothing (a place to copy a tracker into).
    DrlLoadTracker() = default;

    /// \param catalogue the trees (it must outlive the tracker); every workload left
    explicit DrlLoadTracker(const DrlTreeCatalogue& catalogue);

    /**
     * Takes the counts of a copy, as they were when it was made.
     * \param saved a copy of a tracker of the same trees (the catalogue stays this one's)
     */
    void Restore(const DrlLoadTracker& saved);

    /// Lists every tree's workloads as left (the start of an episode).
    void ListAll();
    /// Drops the finished workloads from every tree's list of those left and counts what is
    /// left per tree. \param state the state acted on
    void DropDone(const SchedulerState& state);
    /// DropDone for tree t alone. \param t a tree \param state the state acted on
    void DropDone(uint32_t t, const SchedulerState& state);
    /// Lists every tree's workloads again as left, then drops those the state has finished.
    /// \param state the state acted on
    void RecountLeft(const SchedulerState& state);

    /**
     * Recomputes the remaining load per directed link, and what each tree needs by itself.
     * \param state the state acted on (the workloads' paths, the links' rates and other load)
     * \param committed per root, its tree or NO_INDEX
     */
    void ComputeLoads(const SchedulerState& state, const std::vector<uint32_t>& committed);

    /**
     * \param committed per root, its tree or NO_INDEX
     * \return a lower bound on the rounds still to come (0 when done): a chain of dependent
     *         workloads takes a round per workload, so every root needs at least the longest
     *         chain left on its committed tree (the shortest such over its candidates while it
     *         has none); and a directed link carries one workload a round, so at least as many
     *         rounds as the committed trees have workloads left on one link
     */
    uint32_t GetRoundsLeftBound(const std::vector<uint32_t>& committed) const;

    /// \return the number of trees tracked
    uint32_t GetNTrees() const
    {
        return static_cast<uint32_t>(m_treeLeft.size());
    }

    /// \param t a tree \return its workloads not done
    uint32_t GetLeft(uint32_t t) const
    {
        return m_treeLeft[t];
    }

    /// \param t a tree \return its workloads not done, in id order
    const std::vector<uint32_t>& GetRemaining(uint32_t t) const
    {
        return m_remaining[t];
    }

    /// \param l a directed link \return the remaining load on it (ComputeLoads)
    double GetLoad(uint32_t l) const
    {
        return m_load[l];
    }

    /// \return the largest load on a link, at least 1
    double GetMaxLoad() const
    {
        return m_maxLoad;
    }

    /// \param t a tree \return the most of its reduce-scatter workloads left on one directed link
    uint32_t GetOwnReduce(uint32_t t) const
    {
        return m_ownReduce[t];
    }

    /// \param t a tree \return the most of its all-gather workloads left on one directed link
    uint32_t GetOwnGather(uint32_t t) const
    {
        return m_ownGather[t];
    }

    /// \param e an engine workload left \return the most of its tree's workloads of its phase
    ///        left on one of its links
    uint32_t GetOwnLink(uint32_t e) const
    {
        return m_ownLink[e];
    }

  private:
    /**
     * From tree t's workloads left per directed link and phase (m_reduceOn, m_gatherOn,
     * counted by ComputeLoads on the links in m_touched): m_ownReduce[t], m_ownGather[t] and
     * m_ownLink of its workloads left; then sets those counts back to zero.
     * \param t a tree
     * \param state the state acted on
     */
    void TakeOwnLinkCounts(uint32_t t, const SchedulerState& state);
    /// Divides every link's load by the share of the link left to it, and finds the largest.
    /// \param state the state acted on
    void WeighByLinkShare(const SchedulerState& state);

    const DrlTreeCatalogue* m_catalogue{nullptr};   //!< the trees
    std::vector<uint32_t> m_treeLeft;               //!< per tree, workloads not done
    std::vector<std::vector<uint32_t>> m_remaining; //!< per tree, its workloads not done
                                                    //!< (in id order)
    std::vector<double> m_load;                     //!< per directed link, remaining load
    std::vector<uint32_t> m_committedLoad;          //!< per directed link, workloads left
                                                    //!< on it of committed trees
    double m_maxLoad{1};                            //!< largest m_load
    std::vector<uint32_t> m_ownReduce;              //!< per tree, most of its reduce-scatter
                                                    //!< workloads left on one directed link
    std::vector<uint32_t> m_ownGather;              //!< per tree, the same for all-gather
    std::vector<uint32_t> m_ownLink;                //!< per engine workload left, the most
                                                    //!< of its tree's workloads of its phase
                                                    //!< left on one of its links
    std::vector<uint32_t> m_reduceOn;               //!< scratch: per directed link, a tree's
                                                    //!< reduce-scatter workloads on it
    std::vector<uint32_t> m_gatherOn;               //!< scratch: the same for all-gather
    std::vector<uint32_t> m_touched;                //!< scratch: the links counted there
};


/**
 * \ingroup allreduce-learning
 * The slot rule of aggregating switches (AggregatorSlots, doc/allreduce.rst, "Aggregation in
 * the network") over the candidate sets of a DrlTreeCatalogue run side by side on one engine.
 * The engine of their union would take a chunk piece's workloads of every set as one group:
 * the first start would hold a slot on every switch any of the root's candidate trees sends
 * from, and give it back only once the candidates never chosen had sent too, so that one-slot
 * switches stayed full and nothing could start. Here a group is one set's chunk piece in one
 * phase (a root runs the workloads of one set only), and the slots in use are counted over
 * all sets, as the plan's own engine counts them. Limited only when the catalogue has several
 * sets on a topology with a finite number of slots somewhere (then the engine's union is on a
 * copy without limits, DrlTreeCatalogue::GetEngineWorkloads).
 */
class DrlSlotTracker
{
  public:
    /// What changes as workloads start and finish (a snapshot of it: GetUsage, SetUsage).
    struct Usage
    {
        std::vector<uint32_t> sends;   //!< per hold, the group's sends from it not finished
        std::vector<uint32_t> started; //!< per group, workloads started
        std::vector<uint32_t> used;    //!< per node, slots in use
    };

    /// Counts nothing: every workload may start as far as slots go.
    DrlSlotTracker() = default;
    /// \param catalogue the sets (engine ids: GetOffset(set) + id)
    explicit DrlSlotTracker(const DrlTreeCatalogue& catalogue);

    /// \return true when slots are counted
    bool IsLimited() const;
    /// Back to the start: every slot free.
    void Reset();
    /// \param e an engine workload \return true when its group holds its slots already or
    ///        every switch of its group has one free
    bool CanStart(uint32_t e) const;
    /// Records a start (the first of its group takes the group's slots). \param e it
    void Start(uint32_t e);
    /// Records a finish (a switch's last send of the group frees its slot). \param e it
    void Finish(uint32_t e);
    /// \return the counts, for SetUsage
    const Usage& GetUsage() const;
    /// \param usage counts GetUsage gave (of this tracker)
    void SetUsage(const Usage& usage);

  private:
    /// One switch a group takes a slot on.
    struct Hold
    {
        uint32_t node;  //!< the switch
        uint32_t sends; //!< the group's sends from it
    };

    std::vector<uint32_t> m_group;  //!< per engine workload, its group
    std::vector<uint32_t> m_source; //!< per engine workload, the node it sends from
    std::vector<uint32_t> m_first; //!< per group, its first entry in m_holds (and one more)
    std::vector<Hold> m_holds;     //!< per group, the switches it holds
    std::vector<uint32_t> m_slots; //!< per node, its slots (0: not counted)
    Usage m_usage;                 //!< the counts
    bool m_limited{false};         //!< slots are counted
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_LOAD_TRACKER_H */
