/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_WORKLOAD_H
#define NS3_ALLREDUCE_WORKLOAD_H

#include "ns3/flow-tree.h"
#include "ns3/id-span.h"
#include "ns3/inline-vector.h"
#include "ns3/server-set.h"
#include "ns3/topology.h"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-workload Workloads
 * \ingroup allreduce
 * The AllReduce cut into workloads (the merge model, Parameter Server, Ring), with aggregation in
 * the network, and the gradient layout (doc/allreduce.rst, "Workloads").
 */

/**
 * \ingroup allreduce-workload
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

/// \ingroup allreduce-workload The two phases of an AllReduce.
enum class Phase
{
    REDUCE, //!< reduce-scatter: partial sums travel toward the chunk's owner
    GATHER, //!< all-gather: the complete sum travels back to every server
};

/// \return "reduce" or "gather"
std::string ToString(Phase phase);

/**
 * \ingroup allreduce-workload
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
    InlineVector<uint32_t, 8> path; //!< nodes from src to dst, both included
    /**
     * Workloads that must finish in an earlier round, as given to a WorkloadSet built from a
     * list. A set keeps them in dependency groups, shared by the workloads that wait for the
     * same ones, and leaves this empty: read them with WorkloadSet::GetDeps.
     */
    InlineVector<uint32_t, 2> deps;
    /**
     * Servers whose contributions it carries, kept as runs of consecutive servers. For a
     * Gather workload this is every server and is kept empty here to save memory (see
     * WorkloadSet::GetCarries).
     */
    ServerSet carries;
    InlineVector<uint32_t, 6> links; //!< directed links of the path (link i: 2i a->b, 2i+1 b->a)

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
 * \ingroup allreduce-workload
 * The workloads of one AllReduce on one topology: 2·N·(N−1)·k of them when built by Build,
 * any checked set when read from a schedule file. Also keeps, per workload, the workloads
 * that depend on it, and per workload the longest chain of workloads that depends on it.
 *
 * Dependencies are kept in groups: the workloads that wait for exactly the same workloads
 * share one group, stored once (every gather of a parameter-server chunk waits for all N−1 of
 * its reduces: N² ids per chunk held one by one, N per chunk as a group). A workload waits for
 * one group (group 0, empty, when it waits for nothing) and may be a member of several.
 */
class WorkloadSet
{
  public:
    WorkloadSet() = default;

    /**
     * Refuses, before anything is built, workloads that would be too many (more than 2^31)
     * or not fit in memory (doc/allreduce.rst, "Limits"); Build checks the same. Schedulers
     * call it before they build flow trees, which on a topology too large take minutes.
     * \param topology the topology \param semantics the semantics
     * \param pieces pieces per chunk \param aggregators the aggregating switches that merge
     * \return how many workloads there are at most
     * \throws std::invalid_argument with the count or the memory they would need
     */
    static uint64_t CheckSize(const Topology& topology,
                              WorkloadSemantics semantics,
                              uint32_t pieces,
                              uint64_t aggregators = 0);

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
     * cycle, carries that are servers. Fills each workload's links.
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
    /// \return all workloads, indexed by id (their deps empty: see GetDeps)
    const std::vector<Workload>& GetAll() const;
    /**
     * \return a copy of all workloads with their deps filled in, as the list constructor
     *         takes them (to edit a set, or to write it out)
     */
    std::vector<Workload> GetList() const;
    /// \param id a workload id \return the workloads that must finish before it
    IdSpan GetDeps(uint32_t id) const;

    /**
     * The workloads that depend on one workload: the users of every dependency group it is a
     * member of, group by group (a workload listed once per group that names it).
     */
    class Dependents
    {
      public:
        /// Walks the users of each group in turn.
        class Iterator
        {
          public:
            /// \param set the set \param group first group of the member's list
            /// \param groupEnd end of that list
            Iterator(const WorkloadSet* set, const uint32_t* group, const uint32_t* groupEnd);
            /// \return the current dependent
            uint32_t operator*() const;
            /// \return this, moved to the next dependent
            Iterator& operator++();
            /// \param other another iterator \return true when they differ
            bool operator!=(const Iterator& other) const;

          private:
            /// Moves on to the next group with users, if the current one has none left.
            void Settle();
            const WorkloadSet* m_set;     //!< the set
            const uint32_t* m_group;      //!< current group in the member's list
            const uint32_t* m_groupEnd;   //!< end of that list
            const uint32_t* m_user{nullptr}; //!< current user in the group
            const uint32_t* m_userEnd{nullptr}; //!< end of the group's users
        };

        /// \param set the set \param groups the groups the workload is a member of
        Dependents(const WorkloadSet* set, IdSpan groups);
        /// \return the first dependent
        Iterator begin() const;
        /// \return past the last
        Iterator end() const;
        /// \return how many (a sum over the groups)
        size_t size() const;
        /// \return true when nothing depends on the workload
        bool empty() const;

      private:
        const WorkloadSet* m_set; //!< the set
        IdSpan m_groups;          //!< groups the workload is a member of
    };

    /// \param id a workload id \return the workloads that depend on it
    Dependents GetDependents(uint32_t id) const;

    /// \return the number of dependency groups (group 0, empty, always among them)
    uint32_t GetNDepGroups() const;
    /// \param id a workload id \return the dependency group it waits for (0: none)
    uint32_t GetDepGroup(uint32_t id) const;
    /// \param group a group \return the workloads it waits for, ascending as given
    IdSpan GetGroupDeps(uint32_t group) const;
    /// \param group a group \return the workloads that wait for it, ascending
    IdSpan GetGroupUsers(uint32_t group) const;
    /// \param id a workload id \return the groups that list it, ascending
    IdSpan GetGroupsOf(uint32_t id) const;
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
    /**
     * \param id a workload
     * \return "workload 3 (reduce, chunk 1, piece 0, 0 -> 4, path 0-9-4)", with the
     *         topology's node names, for messages and reports
     */
    std::string Describe(uint32_t id) const;
    /**
     * \param topology the same graph (Topology::DescribeDifference finds no difference), e.g.
     *        with other link rates or delays (LinkProperties)
     * \return these workloads, paths and dependencies as they are, on it
     * \throws std::invalid_argument saying how it differs when it is another graph
     */
    WorkloadSet OnTopology(const Topology& topology) const;
    /**
     * Keeps some of these workloads and drops the others, in place (a rank of a distributed
     * run keeps those its nodes take part in: doc/allreduce.rst, "Distributed runs"); the
     * kept ones move, so that the set is never held twice.
     * \param ids the workloads to keep, ascending; the i-th becomes workload i, with its path
     *        and carries, and of its dependencies those kept
     * \throws std::invalid_argument, before anything changes, when ids are not ascending or
     *         name no workload
     */
    void Keep(const std::vector<uint32_t>& ids);
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
    /// \return how many times SetPath changed a path: those who index workloads by path
    ///         know when to index them again
    uint64_t GetPathChanges() const;

  private:
    /**
     * Fills links, dependency groups, dependents, heights and depths; checks the dependency
     * graph has no cycle. Moves every workload's deps into the groups.
     * \param sameDepsAs empty, or per workload NO_INDEX or an earlier workload whose
     *        dependencies it shares (its own deps are then empty): how builders share a list
     *        without copying it
     */
    void Index(const std::vector<uint32_t>& sameDepsAs = {});
    /**
     * Index's first step: fills every workload's links and the group it waits for (one group
     * per workload with deps of its own, or the group of the workload it shares them with), and
     * moves its deps into that group.
     * \param sameDepsAs as for Index
     */
    void IndexLinksAndGroups(const std::vector<uint32_t>& sameDepsAs);
    /// Index's second step: per group its users, and per workload the groups that list it.
    void IndexGroupMembers();
    /**
     * Index's third step.
     * \return every workload, each after all it depends on (Kahn's order over the groups)
     * \throws std::invalid_argument when the dependencies form a cycle
     */
    std::vector<uint32_t> OrderByDependencies() const;
    /**
     * Index's last step: the longest chain starting at and the one before each workload.
     * \param order every workload, each after all it depends on
     */
    void IndexHeightsAndDepths(const std::vector<uint32_t>& order);

    Topology m_topology;                         //!< the topology
    WorkloadSemantics m_semantics{WorkloadSemantics::MERGE}; //!< how they were cut
    uint32_t m_pieces{1};                        //!< pieces per chunk
    std::vector<Workload> m_workloads;           //!< by id
    uint64_t m_pathChanges{0};                   //!< paths SetPath changed
    std::vector<uint32_t> m_groupOf;        //!< per workload, the group it waits for
    std::vector<uint64_t> m_groupDepsStart; //!< per group and one more, start in m_groupDeps
    std::vector<uint32_t> m_groupDeps;      //!< every group's dependencies, group by group
    std::vector<uint32_t> m_usersStart;     //!< per group and one more, start in m_users
    std::vector<uint32_t> m_users;          //!< every group's users, group by group
    std::vector<uint64_t> m_groupsOfStart;  //!< per workload and one more, start in m_groupsOf
    std::vector<uint32_t> m_groupsOf;       //!< per workload, the groups that list it
    std::vector<uint32_t> m_height;              //!< longest chain starting at each workload
    std::vector<uint32_t> m_depth;               //!< longest chain before each workload
};

/**
 * \ingroup allreduce-workload
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
 * \ingroup allreduce-workload
 * \param topology the topology
 * \param points which aggregating switches
 * \return per node, 1 for the aggregating switches that merge (for WorkloadSet::Build)
 */
std::vector<uint8_t> ChooseMergePoints(const Topology& topology, MergePoints points);

/**
 * \ingroup allreduce-workload
 * The distinct merge choices worth trying on a topology (doc/allreduce.rst, "Aggregation in
 * the network": where aggregation pays): every aggregating switch, the racks' only, none; each
 * choice once (one, all zeros, on a topology without aggregating switches).
 * \param topology the topology
 * \return per choice, ChooseMergePoints's marks, in that order
 */
std::vector<std::vector<uint8_t>> ChooseMergeChoices(const Topology& topology);

/**
 * \ingroup allreduce-workload
 * \param topology the topology
 * \param a one end of a link
 * \param b the other end
 * \return the directed link a->b (2i when a is link i's first end, else 2i+1)
 * \throws std::invalid_argument when there is no link between a and b
 */
uint32_t GetDirectedLink(const Topology& topology, uint32_t a, uint32_t b);

/**
 * \ingroup allreduce-workload
 * \param topology the topology
 * \return per directed link, 1 when it leaves a server or an aggregating switch (a port of a
 *         node that sends workloads), else 0: every workload starts on one, so a state whose
 *         sender ports are all busy or down can start nothing (SchedulerState::IsSaturated)
 */
std::vector<uint8_t> MarkSenderPorts(const Topology& topology);

} // namespace ns3

#endif /* NS3_ALLREDUCE_WORKLOAD_H */
