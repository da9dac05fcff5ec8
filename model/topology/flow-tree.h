/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_FLOW_TREE_H
#define NS3_ALLREDUCE_FLOW_TREE_H

#include "topology.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * A flow tree (doc/allreduce.rst, "Flow trees"): a tree over the topology rooted at one server that
 * reaches every server and gives each node in it one next hop (its parent) toward the root. Packets
 * of a workload follow the tree's path; servers on the way relay.
 */
class FlowTree
{
  public:
    /// How a shortest-path tree chooses among a node's equally short next hops.
    enum class Ties
    {
        /// the neighbour through which the breadth-first search reached the node first
        /// (nodes expanded in order of discovery, neighbours in port order)
        FIRST_FOUND,
        /// spread over destinations, as ECMP and the fat-tree's two-level routing tables do:
        /// of the c equally short next hops in port order, the one at (root + node) mod c
        SPREAD
    };

    /**
     * \param topology a topology
     * \return the ties of its default trees: SPREAD on a fat-tree (TopologyFamily "fattree",
     *         whose routing spreads the way up over the aggregation and core switches),
     *         FIRST_FOUND on every other topology
     */
    static Ties GetDefaultTies(const Topology& topology);

    /**
     * The default tree: a breadth-first shortest-path tree, ties broken deterministically as
     * GetDefaultTies(topology) says.
     * \param topology the topology (must be connected)
     * \param root a server
     * \return the tree
     * \throws std::invalid_argument when root is not a server or a server cannot be reached
     */
    static FlowTree ShortestPath(const Topology& topology, uint32_t root);

    /**
     * A breadth-first shortest-path tree with the given ties.
     * \param topology the topology (must be connected)
     * \param root a server
     * \param ties how equally short next hops are chosen
     * \return the tree
     * \throws std::invalid_argument when root is not a server or a server cannot be reached
     */
    static FlowTree ShortestPath(const Topology& topology, uint32_t root, Ties ties);

    /**
     * A tree given by its parent vector, checked: every parent is a neighbour, every server
     * reaches the root, and there is no cycle.
     * \param topology the topology
     * \param root a server
     * \param parent per node, its next hop toward root (NO_INDEX for the root and for nodes
     * outside)
     * \throws std::invalid_argument naming the node that breaks a rule
     */
    FlowTree(const Topology& topology, uint32_t root, std::vector<uint32_t> parent);

    /// \return the root server
    uint32_t GetRoot() const;
    /// \param node a node \return its next hop toward the root (NO_INDEX for the root or outside)
    uint32_t GetParent(uint32_t node) const;
    /// \param node a node \return its hop distance to the root along the tree (NO_INDEX outside)
    uint32_t GetDepth(uint32_t node) const;
    /// \param node a node \return true when the tree contains it
    bool Contains(uint32_t node) const;
    /**
     * \param node a node in the tree
     * \return the nodes from node to the root along the tree, both included
     * \throws std::invalid_argument when the node is not in the tree
     */
    std::vector<uint32_t> GetPathToRoot(uint32_t node) const;
    /**
     * \param server a server other than the root
     * \return the first server after it on its path to the root (switches passed through)
     */
    uint32_t GetNextServer(uint32_t server) const;
    /// \return the parent vector (NO_INDEX for the root and for nodes outside)
    const std::vector<uint32_t>& GetParents() const;

  private:
    FlowTree() = default;
    /// Fills m_depth and checks the tree; throws std::invalid_argument on a broken rule.
    void Check(const Topology& topology);
    /// Re-chooses every node's parent among its equally short next hops as Ties::SPREAD says.
    void SpreadTies(const Topology& topology);

    uint32_t m_root{0};                //!< root server
    uint32_t m_nServers{0};            //!< servers in the topology
    std::vector<uint32_t> m_parent;    //!< per node, next hop toward the root
    std::vector<uint32_t> m_depth;     //!< per node, hops to the root
};

/**
 * \ingroup allreduce-topology
 * \param topology a connected topology
 * \return the default shortest-path flow tree of every server, indexed by root
 */
std::vector<FlowTree> BuildShortestPathTrees(const Topology& topology);

} // namespace ns3

#endif /* NS3_ALLREDUCE_FLOW_TREE_H */
