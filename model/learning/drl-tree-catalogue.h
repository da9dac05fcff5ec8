/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_TREE_CATALOGUE_H
#define NS3_ALLREDUCE_DRL_TREE_CATALOGUE_H

#include "ns3/flow-tree.h"
#include "ns3/plan.h"
#include "ns3/scheduler-state.h"
#include "ns3/workload.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * The flow trees the hierarchical DRL scheduler chooses among (doc/allreduce.rst, "The
 * hierarchical DRL scheduler"), fixed for the life of a DrlEnvironment: the candidate sets,
 * each of one flow tree per root, and their workloads; the distinct trees, numbered across the
 * sets and listed per root and per set; one id space for every set's workloads side by side
 * (the engine's: set j's workload id is GetEngineId(j, id)); and the scales the observations
 * are divided by. Nothing in it changes during an episode.
 *
 * The RoundEngine of the environment keeps a pointer to GetEngineWorkloads(): a catalogue is
 * neither copied nor moved.
 */
class DrlTreeCatalogue
{
  public:
    /// A flow tree of one candidate set: its root's workloads in that set.
    struct Tree
    {
        uint32_t set;                    //!< candidate set
        uint32_t root;                   //!< its root (chunk)
        std::vector<uint32_t> workloads; //!< its workloads in that set
    };

    /**
     * \param trees per candidate set, one flow tree per root (for example
     *        BuildCandidateTrees); a root's trees that come out equal in two
     *        sets stay two candidates, so that every tree belongs to one set
     * \param workloads per candidate set, its workloads (merge semantics on those trees; with
     *        aggregating switches, a root's candidates may differ in their numbers of
     *        workloads, as they merge at different switches)
     * \throws std::invalid_argument when there are no sets, not one workload set per tree set,
     *         sets on different topologies, or (without aggregating switches) a root whose
     *         candidate trees have different numbers of workloads
     */
    DrlTreeCatalogue(std::vector<std::vector<FlowTree>> trees, std::vector<WorkloadSet> workloads);

    /**
     * One candidate set of any workloads (any semantics): one "tree" per chunk.
     * \param workloads the workloads
     */
    explicit DrlTreeCatalogue(WorkloadSet workloads);

    DrlTreeCatalogue(const DrlTreeCatalogue&) = delete;
    DrlTreeCatalogue& operator=(const DrlTreeCatalogue&) = delete;

    /// \return the number of flow trees (roots x candidate sets)
    uint32_t GetNTrees() const
    {
        return static_cast<uint32_t>(m_tree.size());
    }

    /// \return every flow tree, by number
    const std::vector<Tree>& GetTrees() const
    {
        return m_tree;
    }

    /// \param t a tree \return that tree
    const Tree& GetTree(uint32_t t) const
    {
        return m_tree[t];
    }

    /**
     * \param set a candidate set \param id a workload of it \return its tree
     * \throws std::out_of_range for a set or workload that does not exist
     */
    uint32_t GetTreeOf(uint32_t set, uint32_t id) const
    {
        return m_treeOf.at(set).at(id);
    }

    /// \param e a workload of the engine \return its tree (NO_INDEX: of no tree)
    uint32_t GetTreeOfEngineId(uint32_t e) const
    {
        return m_engineTree[e];
    }

    /// \param root a root \return its candidate trees
    const std::vector<uint32_t>& GetRootTrees(uint32_t root) const
    {
        return m_rootTrees[root];
    }

    /// \param set a candidate set \param root a root \return the set's tree of that root
    ///        (NO_INDEX: none)
    uint32_t GetSetTree(uint32_t set, uint32_t root) const
    {
        return m_setTree[set][root];
    }

    /**
     * \param set a candidate set
     * \return per tree, 1 for the trees of that set (one per root)
     * \throws std::out_of_range for a set that does not exist
     */
    std::vector<uint8_t> GetTreesOfSet(uint32_t set) const;

    /// \return the number of roots (chunks)
    uint32_t GetNRoots() const
    {
        return m_roots;
    }

    /// \return the number of candidate sets
    uint32_t GetNSets() const
    {
        return static_cast<uint32_t>(m_sets.size());
    }

    /// \param set a candidate set \return its workloads
    const WorkloadSet& GetSet(uint32_t set) const
    {
        return m_sets[set];
    }

    /// \return the topology every set is on
    const Topology& GetTopology() const
    {
        return m_sets.front().GetTopology();
    }

    /// \return the number of directed links of the topology
    uint32_t GetNDirectedLinks() const
    {
        return m_sets.front().GetNDirectedLinks();
    }

    /// \return the workloads the environment's engine runs: every set's side by side (when
    ///         several, on a copy of the topology whose aggregating switches have unlimited
    ///         slots: the slots are counted per set by DrlSlotTracker)
    const WorkloadSet& GetEngineWorkloads() const
    {
        return m_sets.size() > 1 ? m_union : m_sets.front();
    }

    /// \param set a candidate set \return the engine id of its first workload
    uint32_t GetOffset(uint32_t set) const
    {
        return m_offset[set];
    }

    /// \param set a candidate set \param id a workload of it \return its id in the engine
    uint32_t GetEngineId(uint32_t set, uint32_t id) const
    {
        return m_offset[set] + id;
    }

    /**
     * \param state a state that runs the engine's workloads
     * \param set a candidate set
     * \param id a workload of it
     * \return that workload as the state runs it (its path may have changed there: the
     *         packet level routes around links that fail)
     */
    const Workload& GetWorkloadIn(const SchedulerState& state, uint32_t set, uint32_t id) const
    {
        return state.GetWorkloads().GetAll()[m_offset[set] + id];
    }

    /// \return the number of workloads one complete run sends (the paper's TotalFlows; with
    ///         aggregating switches, the fewest over the roots' candidate trees)
    uint32_t GetNTotal() const
    {
        return m_total;
    }

    /// \return the bandwidth lower bound on the rounds (of the first set; at least 1)
    uint32_t GetBound() const
    {
        return m_bound;
    }

    /// \return the largest height of a workload in any set (at least 1)
    uint32_t GetMaxHeight() const
    {
        return m_maxHeight;
    }

    /// \return the most links on a workload's path (at least 1)
    uint32_t GetMaxPath() const
    {
        return m_maxPath;
    }

    /// \return the most dependents of a workload (at least 1)
    uint32_t GetMaxDependents() const
    {
        return m_maxDependents;
    }

    /// \return the share of the switches that aggregate
    float GetAggregatorShare() const
    {
        return m_aggregatorShare;
    }

    /**
     * \param committed per root, the tree it committed to (NO_INDEX: none, which takes the
     *        first set's)
     * \param roundOf per set, per workload, its round (NO_INDEX when not sent)
     * \return the workloads on the chosen trees and their rounds
     */
    Plan MakePlan(const std::vector<uint32_t>& committed,
                  const std::vector<std::vector<uint32_t>>& roundOf) const;

  private:
    /// Indexes the trees, measures the scales, and lays the sets side by side for the engine.
    void Index();
    /// \return the sets as the engine's union holds them: on a copy of the topology without
    ///         slot limits when it has some (DrlSlotTracker counts them), else as they are
    std::vector<WorkloadSet> UnionParts() const;
    /// Per root, its candidate trees (m_tree, m_rootTrees, m_treeOf, m_setTree, m_total).
    void IndexTrees();
    /**
     * Adds root r's trees, one per set that has workloads of it.
     * \param r a root
     * \param mine per set, its workloads of root r
     * \param sameSizes whether the candidates of a root must have equally many workloads
     */
    void AddRootTrees(uint32_t r, const std::vector<std::vector<uint32_t>>& mine, bool sameSizes);
    /// The scales observations are divided by (m_maxHeight, m_maxPath, m_maxDependents,
    /// m_bound), and the share of switches that aggregate.
    void MeasureScales();

    std::vector<std::vector<FlowTree>> m_trees;     //!< per set, per root (empty: no trees)
    std::vector<WorkloadSet> m_sets;                //!< per candidate set
    std::vector<uint32_t> m_offset;                 //!< per set, its first id in the engine
    std::vector<uint32_t> m_engineTree;             //!< per workload of the engine, its tree
    WorkloadSet m_union;                            //!< every set side by side (when > 1)
    std::vector<Tree> m_tree;                       //!< the distinct trees
    std::vector<std::vector<uint32_t>> m_treeOf;    //!< per set, per workload, its tree
    std::vector<std::vector<uint32_t>> m_rootTrees; //!< per root, its trees
    std::vector<std::vector<uint32_t>> m_setTree;   //!< per set, per root, its tree
    uint32_t m_roots{0};                            //!< roots (chunks)
    uint32_t m_total{0};                            //!< workloads of one complete run
    uint32_t m_maxHeight{1};                        //!< largest height in any set
    uint32_t m_maxPath{1};                          //!< most links on a workload's path
    uint32_t m_maxDependents{1};                    //!< most dependents of a workload
    uint32_t m_bound{0};                            //!< bandwidth bound
    float m_aggregatorShare{0};                     //!< switches that aggregate, as a share
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_TREE_CATALOGUE_H */
