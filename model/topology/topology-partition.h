/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_PARTITION_H
#define NS3_ALLREDUCE_TOPOLOGY_PARTITION_H

#include "topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * Which rank of a distributed simulation (ns-3's MPI simulator) each node of a topology
 * belongs to (doc/allreduce.rst, "Distributed runs"). A link whose ends lie on two ranks is
 * cut: its packets cross between the ranks, and its delay bounds how far one rank may run
 * ahead of another (the lookahead).
 *
 * Two ways to partition:
 *  - GROUPS: the topology's natural groups, whole: fat-tree's pods, BCube(n,k)'s n cells
 *    BCube(n,k-1), DCell(n,k)'s cells DCell(n,k-1). The groups are consecutive blocks of
 *    servers (the generators number them so), spread over the ranks in order, as evenly as
 *    whole groups allow; every switch then goes to the rank that holds most of its neighbours
 *    placed before it (switches nearest the servers first: edge, then aggregation, then
 *    core), a tie to the rank with the fewest nodes so far. So a pod stays on one rank with its
 *    edge and aggregation switches, and the core switches are shared out.
 *  - METIS: the graph partitioner METIS (k-way, minimizing the cut links, each node weighted
 *    by its ports so that ranks forward about as many packets), for any topology.
 * AUTO takes GROUPS where the topology has enough groups for the ranks, METIS elsewhere.
 * Deterministic: the same topology, ranks and seed give the same partition.
 */
class TopologyPartition
{
  public:
    /// How the nodes are shared out.
    enum Method
    {
        AUTO,   //!< GROUPS when the topology has at least as many groups as ranks, else METIS
        GROUPS, //!< the topology's natural groups (pods, cells)
        METIS,  //!< METIS k-way partitioning
    };

    /// One rank, everything on it (nothing cut).
    TopologyPartition() = default;

    /**
     * Partitions a topology.
     * \param topology the topology
     * \param ranks how many ranks (>= 1)
     * \param method how
     * \param seed METIS's random seed
     * \return the partition
     * \throws std::invalid_argument when ranks is 0 or more than the nodes, the method is
     *         GROUPS and the topology has no natural groups or fewer than ranks, or a rank
     *         would be left without a node
     */
    static TopologyPartition Make(const Topology& topology,
                                  uint32_t ranks,
                                  Method method = AUTO,
                                  uint32_t seed = 1);

    /**
     * \param text "auto", "groups" or "metis"
     * \return the method
     * \throws std::invalid_argument for any other text, saying which are accepted
     */
    static Method ParseMethod(const std::string& text);
    /// \param method a method \return its name, as ParseMethod reads it
    static std::string GetMethodName(Method method);

    /**
     * \param topology a topology
     * \return its natural groups (GROUPS): per server, its group; empty when it has none
     *         (any family but fat-tree, BCube and DCell, or a single group)
     */
    static std::vector<uint32_t> GetServerGroups(const Topology& topology);

    /// \return the ranks
    uint32_t GetNRanks() const;
    /// \return the method that made it (GROUPS or METIS; AUTO only for the one-rank default)
    Method GetMethod() const;
    /// \param node a node \return its rank
    uint32_t GetRank(uint32_t node) const;
    /// \return per node, its rank
    const std::vector<uint32_t>& GetRanks() const;
    /// \return the links whose ends lie on two ranks, in link order
    const std::vector<uint32_t>& GetCutLinks() const;
    /// \param rank a rank \return its nodes
    uint32_t CountNodes(uint32_t rank) const;
    /// \param rank a rank \return its servers
    uint32_t CountServers(uint32_t rank) const;

  private:
    /// Fills the cut links and the counts from m_rank. \param topology the topology
    void Complete(const Topology& topology);

    Method m_method{AUTO};            //!< how it was made
    uint32_t m_ranks{1};              //!< how many ranks
    std::vector<uint32_t> m_rank;     //!< per node, its rank
    std::vector<uint32_t> m_cut;      //!< the cut links
    std::vector<uint32_t> m_nodes;    //!< per rank, its nodes
    std::vector<uint32_t> m_servers;  //!< per rank, its servers
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_PARTITION_H */
