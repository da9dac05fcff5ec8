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

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_LOAD_TRACKER_H */
