/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DISTRIBUTED_DRIVER_H
#define NS3_ALLREDUCE_DISTRIBUTED_DRIVER_H

#include "ns3/schedule.h"
#include "ns3/workload.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * A control message between the nodes of a distributed run: 16 bytes in one UDP datagram.
 */
struct DistributedNotice
{
    /// What the message says.
    enum Kind
    {
        DEPENDENCY_DONE = 1, //!< workload `value` has arrived at the sender (dependency met)
        ROUND_DONE = 2,      //!< the sender received all its transfers of round `value`
        ROUND_GO = 3,        //!< the coordinator: start your transfers of round `value`
        NODE_DONE = 4,       //!< the sender received all its transfers (async)
        END = 5,             //!< the coordinator: every transfer has arrived; every rank stops
                             //!< its simulator at `value` (ns)
    };

    Kind kind{END};     //!< the message
    uint32_t from{0};   //!< the sending node (model id)
    uint64_t value{0};  //!< a workload, a round, or a time in nanoseconds

    /// Bytes of a serialized notice.
    static constexpr uint32_t BYTES = 16;
    /// \return the notice as bytes (little-endian kind, from, then value in 8 bytes)
    std::vector<uint8_t> Serialize() const;
    /**
     * \param bytes BYTES of them
     * \param notice set to what they say
     * \return false when they are not a notice (size or kind)
     */
    static bool Deserialize(const std::vector<uint8_t>& bytes, DistributedNotice& notice);
};

/**
 * \ingroup allreduce-packet
 * Decides, for the nodes one rank of a distributed run holds, when each of their transfers
 * starts, from what those nodes know (doc/allreduce.rst, "Distributed runs"): their own
 * transfers and the notices other nodes send them through the network. Nothing reads another
 * node's state. It replays a schedule:
 *  - async: a node starts a workload it sends once every workload that workload depends on
 *    has arrived (in the plan's order when several become ready at once), as collective
 *    libraries do on a real cluster. A dependency that arrives at another node than the
 *    sender is announced to the sender with a DEPENDENCY_DONE notice; every node, once all
 *    its transfers have arrived, tells the coordinator (NODE_DONE).
 *  - barrier: every node starts its round-0 transfers at the start; a node that has received
 *    all its transfers of a round tells the coordinator (ROUND_DONE), which, once every
 *    receiver of the round has, tells each sender of the next round to start it (ROUND_GO).
 * A node whose gradient is late (stragglers) starts none of its workloads before it is ready;
 * only that node needs to know. Once everything has arrived, the coordinator tells every node (END; the caller adds the
 * time at which every rank stops). The coordinator is a node that sends or receives (server 0
 * by default); a notice between two nodes of the same rank is sent as any other, through
 * the network, so the timing does not depend on the number of ranks. The caller (the
 * AllReduceController) sends the notices and starts the transfers the driver returns.
 */
class DistributedDriver
{
  public:
    /// What the caller does next.
    struct Actions
    {
        std::vector<uint32_t> start; //!< workloads to start now (senders on this rank)
        std::vector<std::pair<uint32_t, DistributedNotice>> send; //!< (to node, notice)
        std::vector<uint32_t> ended; //!< nodes of this rank told that everything arrived
    };

    /**
     * \param workloads the workloads \param schedule their rounds (a valid schedule)
     * \param barrier round by round, else as dependencies allow
     * \param local per node, whether this rank holds it (only endpoints matter)
     * \param coordinator the node that runs the barriers and announces the end
     * \throws std::invalid_argument when the coordinator sends and receives nothing
     */
    void Setup(const WorkloadSet& workloads,
               const Schedule& schedule,
               bool barrier,
               const std::vector<bool>& local,
               uint32_t coordinator);

    /**
     * The workloads this rank needs (after Setup, with every workload): those its nodes send,
     * receive or forward, the dependencies of those it sends and the dependents of those it
     * receives (to know whom to tell).
     * \param simulated per node (every node, switches too), whether this rank simulates it
     * \return their ids, ascending
     */
    std::vector<uint32_t> FindNeeded(const std::vector<bool>& simulated) const;
    /**
     * The set the driver works on from now (after Setup, before Begin): the one given to
     * Setup, moved, or the part of it this rank needs. Notices keep naming workloads by
     * their ids in Setup's set.
     * \param workloads the set \param kept kept[i] is its workload i's id in Setup's set,
     *        ascending (empty: it is Setup's whole set)
     */
    void Adopt(const WorkloadSet& workloads, std::vector<uint32_t> kept = {});
    /// \return per workload of the adopted set, its id in Setup's set (empty: the same)
    const std::vector<uint32_t>& GetKept() const;
    /// \param workload of the adopted set \return its id in Setup's set
    uint32_t GetSetupId(uint32_t workload) const;
    /// \param id a workload of Setup's set \return its id in the adopted set, NO_INDEX when
    ///        the adopted part does not hold it (the same id when the driver holds the whole
    ///        set, or none: the caller checks it against its set)
    uint32_t FindWorkload(uint64_t id) const;

    /**
     * \param late per node, whether its gradient is ready only later (GradientReady; empty:
     *        every gradient is ready): its workloads wait for it
     * \return what to do at the start
     */
    Actions Begin(const std::vector<bool>& late = {});
    /**
     * A late node's gradient is ready: its workloads no longer wait for it (those whose
     * dependencies, or round, allow start).
     * \param node the node, of this rank \return what to do
     */
    Actions GradientReady(uint32_t node);
    /**
     * A transfer arrived whole at its receiver, a node of this rank.
     * \param workload the workload \return what to do
     */
    Actions Finished(uint32_t workload);
    /**
     * A notice arrived at a node of this rank.
     * \param node the receiving node \param notice what it says \return what to do
     */
    Actions Receive(uint32_t node, const DistributedNotice& notice);

    /// \return every (from, to) pair of nodes a notice may be sent between, each once
    std::vector<std::pair<uint32_t, uint32_t>> GetNoticeChannels() const;
    /// \return the nodes of this rank that send or receive transfers, or take notices
    const std::vector<uint32_t>& GetLocalEndpoints() const;
    /// \return the workloads this rank's nodes receive
    uint32_t CountLocalReceptions() const;
    /// \return whether every transfer to this rank's nodes has arrived
    bool AreLocalReceptionsDone() const;

  private:
    /**
     * Sends a notice, or handles it here when it is to the sender itself.
     * \param from the sending node \param to the receiving node
     * \param kind what it says \param value a workload or round \param actions the caller's
     */
    void Send(uint32_t from, uint32_t to, DistributedNotice::Kind kind, uint32_t value,
              Actions& actions);
    /// A dependency of workloads sent by node arrived. \param node \param workload it
    void DependencyDone(uint32_t node, uint32_t workload, Actions& actions);
    /// The coordinator heard from a receiver. \param round the round (async: unused)
    void CoordinatorHeard(DistributedNotice::Kind kind, uint32_t round, Actions& actions);
    /// The coordinator starts round \p round at its senders.
    void Go(uint32_t round, Actions& actions);
    /// \param node of this rank, starts its workloads of round \p round
    void StartRound(uint32_t node, uint32_t round, Actions& actions);
    /**
     * Counts, per round, the nodes that receive in it (m_receivers), and per (node, round) of
     * this rank's nodes the transfers to arrive (m_roundLeft).
     * \param workloads the workloads
     */
    void CountReceptions(const WorkloadSet& workloads);
    /// \param node a node of this rank \param round a round \return its transfers still to
    /// arrive in that round
    uint32_t& RoundLeft(uint32_t node, uint32_t round);
    /// Puts the workloads to start in plan order. \param actions the caller's
    void SortByPlan(Actions& actions) const;
    /// \param from a node \param to a node \return their key in the maps
    static uint64_t Key(uint32_t from, uint32_t to);
    /// Computes the notice channels and, on the coordinator's rank, each round's senders.
    void IndexGlobal(const WorkloadSet& workloads);
    /// \param id a workload of Setup's set, named by a notice \return its id in the adopted
    ///        set (it must hold it)
    uint32_t FromSetup(uint64_t id) const;

    const WorkloadSet* m_workloads{nullptr}; //!< the workloads
    bool m_barrier{false};                   //!< round by round
    std::vector<bool> m_local;               //!< per node, on this rank
    uint32_t m_coordinator{0};               //!< the coordinating node
    std::vector<uint32_t> m_roundOf;         //!< per workload, its round
    std::vector<uint32_t> m_position;        //!< per workload, its place in the plan
    std::vector<std::vector<uint32_t>> m_rounds; //!< per round, its workloads (of the
                                             //!< adopted set)
    std::vector<std::vector<uint32_t>> m_senders; //!< coordinator: per round, its senders
    std::vector<std::pair<uint32_t, uint32_t>> m_channels; //!< see GetNoticeChannels
    std::vector<uint32_t> m_kept;            //!< see GetKept
    std::vector<uint32_t> m_depsLeft;        //!< per local-sender workload, deps not arrived
                                             //!< (async; a late sender's gradient counts)
    std::vector<bool> m_late;                //!< per node, its gradient not ready yet
    std::vector<std::vector<uint32_t>> m_heldRounds; //!< per late node, rounds it was told
                                             //!< to start (barrier)
    /// (node, round) of this rank's receiving nodes, sorted: transfers still to arrive (a
    /// sorted list, not a map: Ring on 1,024 servers has two million such pairs in all)
    std::vector<std::pair<uint64_t, uint32_t>> m_roundLeft;
    std::vector<uint32_t> m_nodeLeft;        //!< per node, transfers still to arrive
    std::vector<uint32_t> m_receivers;       //!< per round, how many nodes receive in it
    std::vector<uint32_t> m_heard;           //!< coordinator: per round, receivers done
    uint32_t m_receiverNodes{0};             //!< nodes that receive anything
    uint32_t m_nodesDone{0};                 //!< coordinator (async): receivers done
    std::vector<uint32_t> m_endpoints;       //!< nodes that send or receive
    std::vector<uint32_t> m_localEndpoints;  //!< the same, on this rank
    uint32_t m_localReceptions{0};           //!< transfers to this rank's nodes
    uint32_t m_localArrived{0};              //!< of which arrived
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DISTRIBUTED_DRIVER_H */
