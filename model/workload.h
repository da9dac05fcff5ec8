/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_WORKLOAD_H
#define NS3_ALLREDUCE_WORKLOAD_H

#include "flow-tree.h"
#include "topology.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * How an AllReduce is cut into workloads (doc/allreduce.rst, "Workloads").
 */
enum class WorkloadSemantics
{
    MERGE,           //!< the seed paper's workload tree: servers aggregate on the way to the root
    PARAMETER_SERVER,//!< every server sends straight to the chunk's owner and back, no merge
    RING,            //!< Ring AllReduce over servers 0, 1, ..., N-1, 0
    MSCCL,           //!< an MSCCL algorithm's transfers: any sender and receiver, servers on
                     //!< a path relay (doc/allreduce.rst, "MSCCL algorithm files")
};

/// \return "merge", "ps", "ring" or "msccl"
std::string ToString(WorkloadSemantics semantics);
/**
 * \param name "merge", "ps", "ring" or "msccl"
 * \return the semantics
 * \throws std::invalid_argument for any other name
 */
WorkloadSemantics ParseWorkloadSemantics(const std::string& name);

/// \ingroup allreduce The two phases of an AllReduce.
enum class Phase
{
    REDUCE, //!< reduce-scatter: partial sums travel toward the chunk's owner
    GATHER, //!< all-gather: the complete sum travels back to every server
};

/// \return "reduce" or "gather"
std::string ToString(Phase phase);

/**
 * \ingroup allreduce
 * One workload: one piece of one chunk moved from one server to another along a path of
 * directed links, taking one round.
 */
struct Workload
{
    uint32_t id{0};                //!< index in its WorkloadSet
    uint32_t chunk{0};             //!< chunk (= its owner server)
    uint32_t piece{0};             //!< piece of the chunk, 0..k-1
    Phase phase{Phase::REDUCE};    //!< reduce-scatter or all-gather
    uint32_t src{0};               //!< sending node: a server or an aggregating switch
    uint32_t dst{0};               //!< receiving node: a server or an aggregating switch
    std::vector<uint32_t> path;    //!< nodes from src to dst, both included
    std::vector<uint32_t> deps;    //!< workloads that must finish in an earlier round
    /**
     * Servers whose contributions it carries, ascending. For a Gather workload this is every
     * server and is kept empty here to save memory (see WorkloadSet::GetCarries).
     */
    std::vector<uint32_t> carries;
    std::vector<uint32_t> links;   //!< directed links of the path (link i: 2i a->b, 2i+1 b->a)

    /// What names a workload across sets built from the same trees: chunk, piece, phase,
    /// sender and receiver (its id differs from set to set).
    using Key = std::tuple<uint32_t, uint32_t, int, uint32_t, uint32_t>;

    /// \return this workload's key
    Key GetKey() const
    {
        return {chunk, piece, static_cast<int>(phase), src, dst};
    }
};

/**
 * \ingroup allreduce
 * The workloads of one AllReduce on one topology: 2·N·(N−1)·k of them when built by Build,
 * any checked set when read from a schedule file. Also keeps, per workload, the workloads
 * that depend on it, and per workload the longest chain of workloads that depends on it.
 */
class WorkloadSet
{
  public:
    WorkloadSet() = default;

    /**
     * Builds the workloads of the manual (doc/allreduce.rst, "Workloads"). When the topology
     * has aggregating switches, merge and parameter-server streams also merge where they meet
     * at one ("Aggregation in the network"), so there are fewer workloads per link.
     * \param topology the topology
     * \param trees one flow tree per root server, indexed by root (Merge and
     *        ParameterServer route along them; Ring routes s -> s+1 along the tree of s+1)
     * \param semantics merge, parameter server or ring
     * \param pieces pieces per chunk (k >= 1)
     * \throws std::invalid_argument for a bad argument (named)
     */
    static WorkloadSet Build(const Topology& topology,
                             const std::vector<FlowTree>& trees,
                             WorkloadSemantics semantics,
                             uint32_t pieces);

    /**
     * Builds the workloads as Build does, with only some aggregating switches merging: the
     * others forward, as switches that do not aggregate (doc/allreduce.rst, "Aggregation in the
     * network": where aggregation pays).
     * \param topology the topology
     * \param trees one flow tree per root server
     * \param semantics merge, parameter server or ring
     * \param pieces pieces per chunk (k >= 1)
     * \param merging per node, 1 where an aggregating switch merges (see ChooseMergePoints)
     * \throws std::invalid_argument for a bad argument, or a node marked that does not aggregate
     */
    static WorkloadSet Build(const Topology& topology,
                             const std::vector<FlowTree>& trees,
                             WorkloadSemantics semantics,
                             uint32_t pieces,
                             const std::vector<uint8_t>& merging);

    /**
     * Takes a list of workloads (for example read from a schedule file) and checks it against
     * the topology: ids 0..n-1 in order, servers at both ends, a path that walks existing
     * links from src to dst, chunk and piece in range, dependencies that exist and form no
     * cycle, carries that are servers in ascending order. Fills each workload's links.
     * \throws std::invalid_argument naming the workload and the field that is wrong
     */
    WorkloadSet(const Topology& topology,
                std::vector<Workload> workloads,
                WorkloadSemantics semantics,
                uint32_t pieces);

    /**
     * Several workload sets on one topology side by side, as one set: set j's workload i gets
     * id offset_j + i, its dependencies move with it, and workloads of different sets are
     * independent. For running candidate sets on one RoundEngine (the DRL environment), not an
     * AllReduce of its own.
     * \param sets the sets (same topology, semantics and pieces)
     * \param[out] offsets when given, offset_j per set: the sum of the sizes of the sets before j
     * \return the set
     * \throws std::invalid_argument when the sets are empty or differ in topology
     */
    static WorkloadSet Concatenate(const std::vector<WorkloadSet>& sets,
                                   std::vector<uint32_t>* offsets = nullptr);

    /// \return the number of workloads
    uint32_t GetN() const;
    /// \param id a workload id \return the workload
    const Workload& Get(uint32_t id) const;
    /// \return all workloads, indexed by id
    const std::vector<Workload>& GetAll() const;
    /// \param id a workload id \return the workloads that depend on it
    const std::vector<uint32_t>& GetDependents(uint32_t id) const;
    /**
     * \param id a workload id
     * \return the number of workloads in the longest dependency chain that starts with it
     *         (1 for a workload nothing depends on)
     */
    uint32_t GetHeight(uint32_t id) const;
    /**
     * \param id a workload id
     * \return the number of workloads in the longest dependency chain before it: the earliest
     *         round (from 0) it can run in (0 for a workload without dependencies)
     */
    uint32_t GetDepth(uint32_t id) const;
    /**
     * \param id a workload id
     * \return the servers whose contributions it carries (all servers for a Gather workload)
     */
    std::vector<uint32_t> GetCarries(uint32_t id) const;
    /// \return the topology the workloads run on
    const Topology& GetTopology() const;
    /// \return the semantics they were built with
    WorkloadSemantics GetSemantics() const;
    /// \return pieces per chunk
    uint32_t GetPieces() const;
    /// \return the number of directed links (twice the topology's links)
    uint32_t GetNDirectedLinks() const;
    /// \return per directed link, how many workloads use it
    std::vector<uint32_t> GetLinkLoads() const;

    /**
     * Routes a workload along another path between the same two servers (re-routing around a
     * link that is down): its links follow; what it carries and its dependencies stay.
     * \param id a workload id
     * \param path nodes from its src to its dst, consecutive ones linked
     * \throws std::invalid_argument when the path does not walk existing links from the
     *         workload's src to its dst (the workload is left as it was)
     */
    void SetPath(uint32_t id, std::vector<uint32_t> path);

  private:
    /// Fills links, dependents, heights and depths; checks the dependency graph has no cycle.
    void Index();

    Topology m_topology;                         //!< the topology
    WorkloadSemantics m_semantics{WorkloadSemantics::MERGE}; //!< how they were cut
    uint32_t m_pieces{1};                        //!< pieces per chunk
    std::vector<Workload> m_workloads;           //!< by id
    std::vector<std::vector<uint32_t>> m_dependents; //!< reverse of deps
    std::vector<uint32_t> m_height;              //!< longest chain starting at each workload
    std::vector<uint32_t> m_depth;               //!< longest chain before each workload
};

/**
 * \ingroup allreduce
 * Which aggregating switches merge (doc/allreduce.rst, "Aggregation in the network"). Merging
 * at a switch cuts the load of the links above it but adds a round to every chain through it;
 * on a fat-tree, merging at the racks only takes far fewer rounds than merging everywhere.
 */
enum class MergePoints
{
    ALL,    //!< every aggregating switch
    ACCESS, //!< the aggregating switches with a server among their neighbours (racks)
    NONE,   //!< none: servers merge alone
};

/**
 * \ingroup allreduce
 * \param topology the topology
 * \param points which aggregating switches
 * \return per node, 1 for the aggregating switches that merge (for WorkloadSet::Build)
 */
std::vector<uint8_t> ChooseMergePoints(const Topology& topology, MergePoints points);

/**
 * \ingroup allreduce
 * The distinct merge choices worth trying on a topology (doc/allreduce.rst, "Aggregation in
 * the network": where aggregation pays): every aggregating switch, the racks' only, none; each
 * choice once (one, all zeros, on a topology without aggregating switches).
 * \param topology the topology
 * \return per choice, ChooseMergePoints's marks, in that order
 */
std::vector<std::vector<uint8_t>> ChooseMergeChoices(const Topology& topology);

/**
 * \ingroup allreduce
 * \param topology the topology
 * \param a one end of a link
 * \param b the other end
 * \return the directed link a->b (2i when a is link i's first end, else 2i+1)
 * \throws std::invalid_argument when there is no link between a and b
 */
uint32_t GetDirectedLink(const Topology& topology, uint32_t a, uint32_t b);

/**
 * \ingroup allreduce
 * \param topology the topology
 * \return per directed link, 1 when it leaves a server or an aggregating switch (a port of a
 *         node that sends workloads), else 0: every workload starts on one, so a state whose
 *         sender ports are all busy or down can start nothing (SchedulerState::IsSaturated)
 */
std::vector<uint8_t> MarkSenderPorts(const Topology& topology);

} // namespace ns3

#endif /* NS3_ALLREDUCE_WORKLOAD_H */
