/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H
#define NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H

#include "allreduce-application.h"
#include "allreduce-verification.h"
#include "connection-pool.h"
#include "distributed-driver.h"
#include "gradient-release.h"
#include "link-load-monitor.h"
#include "packet-scheduler-state.h"
#include "shared-links.h"
#include "stall-watch.h"

#include "ns3/allreduce-scheduler.h"
#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/random-variable-stream.h"
#include "ns3/schedule.h"
#include "ns3/traced-callback.h"
#include "ns3/workload.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The outcome of a packet-level run, times in simulated seconds from the controller's start.
 */
struct AllReduceRunResult
{
    bool finished{false};          //!< every workload's transfer finished
    bool stalled{false};           //!< the run was ended for lack of progress
    std::string error;             //!< why it did not finish (stall or failed connection)
    double completionTime{0};      //!< when the last transfer finished
    std::vector<double> warmUpTimes; //!< how long each warm-up AllReduce took (WarmUps)
    std::vector<double> roundStart;   //!< per round, when its first transfer started
    std::vector<double> roundEnd;     //!< per round, when its last transfer finished
    std::vector<double> transferStart; //!< per workload, when it started (-1: never)
    std::vector<double> transferEnd;   //!< per workload, when it finished (-1: never)
    uint64_t payloadBytes{0};      //!< gradient bytes sent, summed over transfers
    uint32_t transfersFinished{0}; //!< transfers finished
    uint32_t decisions{0};         //!< decision points at which the scheduler was asked
    double decisionWallS{0};       //!< wall-clock seconds the scheduler took to decide, in all
                                   //!< (reported only: the simulation does not depend on it)
    double decisionWallMaxS{0};    //!< the longest of those decisions, wall-clock seconds
    uint32_t rerouted{0};          //!< workloads routed around a link that was down
};

/**
 * \ingroup allreduce-packet
 * Drives a packet-level AllReduce (doc/allreduce.rst, "Decisions inside ns-3"): at each
 * decision point it shows a scheduler the live PacketSchedulerState (workloads done and in
 * flight, directed links busy and down, servers whose gradients are ready, simulated time,
 * other traffic per link) and injects the workloads the scheduler starts, each into the
 * AllReduceApplication of its sender. The scheduler is
 *  - online (Setup with a scheduler): any AllReduceScheduler decides live with SelectRound;
 *    a workload not yet finished whose path crosses a link that goes down is routed along a
 *    shortest path over the links that are up, to the same next server (the merge tree and
 *    the data stay as they were), and back on its own path once that is up again;
 *  - replay (Setup with a schedule): a ReplayScheduler replays the schedule as planned, paths
 *    included (rounds in barrier mode, plan order in async mode).
 * Decision points depend on the Mode:
 *  - barrier: when every transfer in flight has finished (the end of a round), or, with none
 *    in flight, when a server's gradient becomes ready or a link changes state; online, a
 *    gradient that becomes ready while a round is in flight lets what it made ready join
 *    that round (on links it leaves free);
 *  - async: whenever a transfer finishes, a gradient becomes ready or a link changes state.
 * A workload that carries the contribution of a server whose gradient is not ready yet
 * (stragglers: Stragglers, StragglerDelay, SetGradientReadyTimes) is not ready either.
 *
 * With WarmUps, that many AllReduces run first on the same persistent connections, untimed
 * and with every gradient ready (as nccl-tests warm up before it measures); the measured one
 * starts once the last has finished, from the initial gradients, on connections that are open
 * with their congestion windows grown, as in a training job's later iterations.
 *
 * When no data arrives anywhere for StallTimeout, it ends the run (Simulator::Stop) and
 * reports the stall, naming a stuck workload and a link of its path that is down, if any.
 * AllReduceHelper builds and wires it.
 *
 * The controller runs the decision loop (begin, decide, notify, reroute, end) and hands the
 * rest to parts of its own: the ConnectionPool (which connection a transfer takes), the
 * GradientRelease (warm-ups, and when each server's gradient is ready), the StallWatch (lack
 * of progress, and what is stuck) and VerifyAllReduce (every server's vector against the
 * exact sum).
 */
class AllReduceController : public Object
{
  public:
    /// When decisions are taken.
    enum Mode
    {
        BARRIER, //!< round by round
        ASYNC,   //!< as soon as dependencies and links allow
    };

    /// How transfers use TCP connections.
    enum Connections
    {
        PERSISTENT,   //!< one connection per sender, receiver and path, reused by every
                      //!< transfer between them (as collective libraries keep theirs open)
        PER_TRANSFER, //!< a connection of its own for every transfer (handshake and slow
                      //!< start each time)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AllReduceController();
    ~AllReduceController() override;

    /**
     * Replays a schedule: sets what to run, before the simulation starts, and schedules the
     * start (StartTime; set the attributes first). The schedule is validated first.
     * \param workloads the workloads \param schedule their rounds
     * \param apps the application of each server, server i at index i; on a topology with
     *        aggregating switches, of every node by node id, null for the switches that do not
     *        aggregate (doc/allreduce.rst, "Aggregation in the network")
     * \param addresses each such node's address, at the same index
     * \throws std::invalid_argument when the schedule is not valid for the workloads, the
     *         gradient (GradientBytes) is not a whole number of float32 values or too small for
     *         the pieces, the applications or addresses do not match the servers, a server
     *         would need more source ports than there are, or WarmUps is set with
     *         per-transfer connections
     */
    void Setup(WorkloadSet workloads,
               Schedule schedule,
               const std::vector<Ptr<AllReduceApplication>>& apps,
               const std::vector<Ipv4Address>& addresses);
    /**
     * Decides online: as Setup with a schedule, but the scheduler chooses at each decision
     * point inside the simulation (it is prepared for the workloads here).
     * \param workloads the workloads \param scheduler decides which to start
     * \param apps the application of each server \param addresses each server's address
     * \throws std::invalid_argument as the other Setup, or what the scheduler's Prepare throws
     */
    void Setup(WorkloadSet workloads,
               Ptr<AllReduceScheduler> scheduler,
               const std::vector<Ptr<AllReduceApplication>>& apps,
               const std::vector<Ipv4Address>& addresses);
    /**
     * \param linkUp tells whether a topology link is up, used to name the link of a stall and
     *        to know the links already down at the start
     */
    void SetLinkStateCallback(Callback<bool, uint32_t> linkUp);
    /**
     * \param route installs the route of a workload's connection (its source port,
     *        GetSourcePort) along the workload's current path (GetWorkloads): called when a
     *        transfer starts on a new connection or on one that took another path before, and
     *        when an online run routes a transfer in flight around a link that is down
     */
    void SetRouteCallback(Callback<void, uint32_t> route);
    /**
     * \param monitor the device counters of the network's links: at each decision point the
     *        state shows the scheduler the share of each link that other traffic used since the
     *        last one (GetLinkLoad), and each link's relative data rate (GetLinkRate)
     */
    void SetLinkLoadMonitor(Ptr<LinkLoadMonitor> monitor);
    /**
     * Per server, when its gradient is ready, from the start; overrides Stragglers.
     * \param times one per server (or empty: back to the attributes)
     * \throws std::invalid_argument for a negative time, or when called after Setup with a
     *         count that is not the number of servers
     */
    void SetGradientReadyTimes(const std::vector<Time>& times);
    /**
     * Fixes the random streams of the straggler choice and delays.
     * \param stream the first stream \return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the workloads, with the paths they take now
    const WorkloadSet& GetWorkloads() const;
    /// \return the schedule replayed, or online the rounds as decided so far
    const Schedule& GetSchedule() const;
    /**
     * Hands over the workloads and the schedule (GetWorkloads, GetSchedule), for a report once
     * nothing runs any more: the controller keeps neither. Replayed, the workloads move
     * without a copy.
     * \return the workloads on the paths they took and the rounds run
     */
    Plan TakeRun();
    /// \return the gradient's layout
    const GradientLayout& GetLayout() const;
    /// \return the mode
    Mode GetMode() const;
    /// \return how transfers use connections (the Connections attribute)
    Connections GetConnections() const;
    /// \return true when a scheduler decides online, false when a schedule is replayed
    bool IsOnline() const;
    /// \return true when it runs as one rank of a distributed run (the Distributed attribute)
    bool IsDistributed() const;
    /// \return the UDP port of the notices of a distributed run (NoticePort)
    uint16_t GetNoticePort() const;
    /**
     * Distributed, before Setup: the nodes this rank simulates (by model id; AllReduceHelper
     * gives them). Setup then keeps only the workloads this rank's nodes send, receive or
     * forward (and those it must hear of or tell about), so that a rank holds its part of the
     * plan (doc/allreduce.rst, "Distributed runs"); without them every rank keeps every
     * workload.
     * \param simulated per node, whether this rank simulates it
     */
    void SetSimulatedNodes(std::vector<bool> simulated);
    /**
     * Distributed: per workload of GetWorkloads (this rank's part), its id in the plan given
     * to Setup; notices, transfer headers and the merged report name workloads by those ids,
     * while GetWorkloads, GetResult and the trace sources name them by their place in the part.
     * \return the ids, ascending; empty when the rank keeps the whole plan
     */
    const std::vector<uint32_t>& GetPlanIds() const;
    /// \param workload of GetWorkloads \return its id in the plan given to Setup
    uint32_t GetPlanId(uint32_t workload) const;
    /// \param id a workload's id in the plan given to Setup \return its id in GetWorkloads,
    ///        NO_INDEX when this rank does not hold it
    uint32_t FindWorkload(uint32_t id) const;
    /**
     * Distributed: every (from, to) pair of nodes a notice may travel between, so that their
     * routes can be installed before the run (after Setup).
     * \return the pairs, each once
     */
    std::vector<std::pair<uint32_t, uint32_t>> GetNoticeChannels() const;
    /**
     * \param node a server or an aggregating switch, on any rank
     * \return the port its application listens on
     */
    uint16_t GetPort(uint32_t node) const;
    /// \param node a server or an aggregating switch \return its application
    Ptr<AllReduceApplication> GetApplication(uint32_t node) const;
    /// \param node a server or an aggregating switch \return its address
    Ipv4Address GetAddress(uint32_t node) const;
    /**
     * \param workload a workload
     * \return the port its sender sends it from: per transfer, its own port (fixed by Setup);
     *         with persistent connections, the port of the connection it was sent on, 0 until
     *         it starts
     */
    uint16_t GetSourcePort(uint32_t workload) const;
    /// \return per server, when its gradient is ready (seconds from the start; after Begin)
    const std::vector<double>& GetGradientReadyTimes() const;
    /// \return the result so far (complete after the simulation)
    const AllReduceRunResult& GetResult() const;
    /// \return every server's vector compared with the exact sum of the initial gradients
    AllReduceVerification Verify() const;

    /// Called by an application when payload bytes arrive. \param bytes how many
    void NotifyProgress(uint64_t bytes);
    /// Called by the receiver when a transfer is applied. \param workload the workload
    void NotifyTransferFinished(uint32_t workload);
    /**
     * Distributed: called by the application of a node of this rank when a notice arrives.
     * \param node the node \param bytes the datagram's payload (a DistributedNotice)
     */
    void NotifyNotice(uint32_t node, const std::vector<uint8_t>& bytes);
    /// Called by the sender when a connection fails. \param workload the workload
    void NotifyTransferFailed(uint32_t workload);
    /**
     * Called by a sender whose transport gave up on a connection (TCP: its DataRetries
     * retransmissions of a segment went unanswered; RDMA: its queue pair's RetryCount timeouts
     * in a row): the transfers in flight on it are lost, so the run ends saying so; a
     * connection with none in flight only takes no more transfers.
     * \param node the sender \param sourcePort the connection's source port
     * \param why what gave up, in the transport's words, e.g. "TCP gave up on the connection"
     */
    void NotifyConnectionBroken(uint32_t node, uint16_t sourcePort, const std::string& why);
    /**
     * Called when a topology link goes down or comes back up (DcnTopologyHelper::SetLinkUp).
     * \param link the link \param up its new state
     */
    void NotifyLinkState(uint32_t link, bool up);

    /// TracedCallback signature of a round's end. \param round its index \param duration
    /// from its first start to its last finish
    typedef void (*RoundTracedCallback)(uint32_t round, Time duration);

    /// TracedCallback signature of an AllReduce's start. \param index 0 for the first; the
    /// measured one is WarmUps
    typedef void (*StartedTracedCallback)(uint32_t index);

    /// TracedCallback signature of a stall, and of the run's end. \param report what stalled,
    /// and where (the end: empty when the run finished)
    typedef void (*StallTracedCallback)(std::string report);

    /**
     * TracedCallback signature of a decision.
     * \param ready workloads ready when the scheduler was asked
     * \param inFlight workloads in flight then
     * \param started the workloads it started
     */
    typedef void (*DecisionTracedCallback)(uint32_t ready,
                                           uint32_t inFlight,
                                           const std::vector<uint32_t>& started);

    /// First source port given to a server's workloads (then counting up), by default.
    static constexpr uint16_t FIRST_SOURCE_PORT = 10000;

  protected:
    void DoDispose() override;

  private:
    /// Adds the attributes of the run. \param tid the TypeId \return it
    static TypeId AddRunAttributes(TypeId tid);
    /// Adds the attributes of sharing the network (shared links, ports, stopping) and of late
    /// gradients. \param tid the TypeId \return it
    static TypeId AddSharingAttributes(TypeId tid);
    /// Adds the attributes of distributed runs. \param tid the TypeId \return it
    static TypeId AddDistributedAttributes(TypeId tid);
    /// Adds the trace sources. \param tid the TypeId \return it
    static TypeId AddTraceSources(TypeId tid);
    /**
     * Refuses workloads whose connections would not fit in memory, before any is opened.
     * \param workloads the workloads \throws std::invalid_argument with the estimate
     */
    void CheckConnectionMemory(const WorkloadSet& workloads) const;
    /**
     * Distributed: refuses what it cannot honour, fixes the ports, sets the driver up and
     * keeps this rank's part (KeepRankPart).
     * \param workloads the plan's, made this rank's part \param schedule the same
     * \param apps per endpoint, its application on this rank (null: another rank's)
     * \return per workload kept, its id in the plan (empty: all kept)
     */
    std::vector<uint32_t> SetupDistributed(WorkloadSet& workloads,
                                           Schedule& schedule,
                                           const std::vector<Ptr<AllReduceApplication>>& apps);
    /**
     * Distributed, with SetSimulatedNodes: keeps of the workloads, the schedule and the ports
     * the part this rank needs (DistributedDriver::FindNeeded), renumbered in plan order.
     * \param workloads made the part \param schedule the same, every round kept
     * \return per workload kept, its id in the plan (empty: all kept)
     */
    std::vector<uint32_t> KeepRankPart(WorkloadSet& workloads, Schedule& schedule);
    /// Distributed: starts the run at this rank's nodes.
    void BeginDistributed();
    /// Distributed: starts transfers, sends notices, ends. \param actions the driver's
    void Apply(const DistributedDriver::Actions& actions);
    /// Distributed: \param workload starts at its sender, a node of this rank
    void StartDistributedTransfer(uint32_t workload);
    /// Distributed: a transfer arrived at a node of this rank. \param workload it
    void FinishDistributedTransfer(uint32_t workload);
    /// Distributed: ends an unfinished run StallTimeout after its start, on every rank.
    void MissDeadline();
    /// Checks and keeps what both Setups share. \param workloads \param apps \param addresses
    void Adopt(WorkloadSet workloads,
               const std::vector<Ptr<AllReduceApplication>>& apps,
               const std::vector<Ipv4Address>& addresses);
    /// \param topo the topology \param apps \param addresses checked against its endpoints
    /// \return how many entries they must have: the servers, or with aggregating switches
    ///         every node (null for the switches that do not aggregate)
    /// \param distributed endpoints of other ranks may have no application
    static uint32_t CheckEndpoints(const Topology& topo,
                                   const std::vector<Ptr<AllReduceApplication>>& apps,
                                   const std::vector<Ipv4Address>& addresses,
                                   bool distributed);
    /// Schedules Begin at StartTime from now (once Setup has everything).
    void ScheduleBegin();
    /// Starts the run (scheduled at StartTime, and after each warm-up).
    void Begin();
    /// Begin: sets up the rounds and results of the AllReduce starting now.
    void ResetRun();
    /// \return whether the AllReduce running now is a warm-up (fewer than WarmUps finished)
    bool IsWarmUp() const;
    /// A warm-up finished: puts the initial gradients back and starts the next AllReduce.
    void BeginAfterWarmUp();
    /**
     * A decision point: asks the scheduler, injects what it started.
     * \param joinRound in barrier mode with a round in flight, let what starts join it
     *        (online, when a late gradient becomes ready) instead of waiting for its end
     */
    void Decide(bool joinRound = false);
    /// Online: records the round the workloads just started belong to. \param started them
    /// \param join they join the round in flight
    void RecordRound(const std::vector<uint32_t>& started, bool join);
    /// \param workload starts its transfer now
    void StartTransfer(uint32_t workload);
    /**
     * Persistent connections: takes the connection a workload starts on from the pool and
     * installs the route when the connection's path changes.
     * \param workload a workload about to start
     * \return false when its sender has no free port left (the run ends)
     */
    bool PickConnection(uint32_t workload);
    /// \param round its last transfer finished now \param now seconds since the start
    void FinishRound(uint32_t round, double now);
    /// Every transfer finished: the next AllReduce after a warm-up, else the end.
    void FinishAllReduce();
    /// \param server its gradient is ready now
    void ReleaseGradient(uint32_t server);
    /// Distributed: \param server its gradient is ready now (it starts what waited, if here)
    void ReleaseDistributedGradient(uint32_t server);
    /// Online: routes every unfinished workload around the links that are down, or back.
    void Reroute();
    /// \return how long the stall watch waits more (a gradient or a TCP retransmission to
    ///         come), negative when the quiet network is stalled
    Time WaitBeforeStall() const;
    /// The stall watch found a stall: reports it and ends the run.
    void Stall();
    /// Ends the run: stops the simulator (StopWhenFinished). \param error empty when it finished
    void End(const std::string& error);
    /// \return seconds since the start
    double Elapsed() const;
    /// \return the bytes of the workloads not finished (SharedLinks orders waiters by it)
    double GetBytesLeft() const;
    /// \param workload a workload \return the bytes of its piece
    double GetBytes(uint32_t workload) const;
    /// SharedLinks: links freed up; decides (Decide waits for a barrier round in flight).
    void DecideOnFreedLinks();

    // Attributes
    Mode m_mode{BARRIER};      //!< barrier or async
    uint64_t m_gradientBytes{0}; //!< gradient size in bytes
    Time m_stallTimeout;       //!< no-progress time that ends the run
    Time m_startTime;          //!< when the run starts, after Setup
    Time m_origin;             //!< when the run starts (simulation time): Elapsed counts from it
    uint32_t m_stragglers{0};  //!< servers whose gradients are late
    Ptr<RandomVariableStream> m_stragglerDelay; //!< how late, in seconds
    Ptr<SharedLinks> m_sharedLinks; //!< the cluster's links, when jobs decide jointly
    bool m_stopWhenFinished{true};  //!< End stops the simulator
    uint16_t m_firstSourcePort{FIRST_SOURCE_PORT}; //!< each server's first source port
    Connections m_connections{PERSISTENT};          //!< how transfers use connections
    uint32_t m_warmUps{0};          //!< AllReduces before the measured one
    uint64_t m_waiterKey{0};        //!< this controller among m_sharedLinks' waiters
    double m_bytesLeft{0};          //!< bytes of the workloads not finished (from Begin)
    std::vector<std::vector<uint32_t>> m_heldLinks; //!< per workload, links held in m_sharedLinks

    WorkloadSet m_workloads;   //!< what to send, on the paths planned
    Schedule m_schedule;       //!< replay: the plan; online: as decided
    bool m_online{false};      //!< a scheduler decides live
    Ptr<AllReduceScheduler> m_scheduler; //!< online: the user's; replay: a ReplayScheduler
    std::unique_ptr<PacketSchedulerState> m_state; //!< what the scheduler sees
    GradientLayout m_layout;   //!< where each piece lies
    std::vector<Ptr<AllReduceApplication>> m_apps; //!< per server
    std::vector<Ipv4Address> m_addresses;          //!< per server
    ConnectionPool m_pool;                         //!< the connections transfers use
    GradientRelease m_release;                     //!< warm-ups and gradient-ready times
    StallWatch m_watch;                            //!< lack of progress, and what is stuck
    Callback<bool, uint32_t> m_linkUp;             //!< link state, for stall reports
    Callback<void, uint32_t> m_route;              //!< installs a workload's route
    Ptr<LinkLoadMonitor> m_monitor;                //!< other traffic per link, or none
    std::vector<uint8_t> m_rerouted;               //!< per workload, off its planned path

    bool m_distributed{false};            //!< one rank of a distributed run
    uint32_t m_coordinator{0};            //!< distributed: the coordinating node
    uint16_t m_noticePort{9};             //!< distributed: the notices' UDP port
    DistributedDriver m_driver;           //!< distributed: when this rank's transfers start
    std::vector<bool> m_simulated;        //!< distributed: per node, simulated on this rank
    std::vector<uint16_t> m_ports;        //!< distributed: per workload, its source port
    uint16_t m_listenPort{0};             //!< distributed: every application's port
    uint32_t m_endedNodes{0};             //!< distributed: this rank's nodes told of the end
    Time m_endMargin;                     //!< distributed: from the last arrival to the stop
    Time m_stopAt;                        //!< distributed: when every rank stops (0: unknown)
    EventId m_deadline;                   //!< distributed: the end of an unfinished run
    EventId m_stop;                       //!< distributed: this rank's stop

    std::vector<uint32_t> m_roundOf;      //!< per workload, the round it started in
    std::vector<uint32_t> m_roundLeft;    //!< per round, transfers not yet finished
    EventId m_begin;                      //!< the scheduled start
    bool m_ended{false};                  //!< End ran
    AllReduceRunResult m_result;          //!< what happened

    TracedCallback<uint32_t> m_transferStarted;   //!< a workload's transfer started
    TracedCallback<uint32_t> m_transferFinished;  //!< a workload's transfer finished
    TracedCallback<uint32_t, Time> m_roundFinished; //!< a round's transfers all finished
    TracedCallback<Time> m_collectiveFinished;    //!< every transfer finished
    TracedCallback<std::string> m_stall;          //!< the run stalled (the report)
    TracedCallback<std::string> m_runEnded;       //!< the run ended (empty, or why not)
    TracedCallback<uint32_t> m_started;           //!< an AllReduce started (its index)
    TracedCallback<uint32_t, uint32_t, const std::vector<uint32_t>&> m_decision; //!< a decision
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H */
