/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H
#define NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H

#include "distributed-run.h"

#include "ns3/allreduce-controller.h"
#include "ns3/allreduce-scheduler.h"
#include "ns3/dcn-topology-helper.h"
#include "ns3/data-rate.h"
#include "ns3/drl-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/plan.h"
#include "ns3/queue-size.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-experiment Experiment layer
 * What the example programs share and the ns-3 module does not hold (library
 * ns3-allreduce-experiment): the checked command line, reports, charts and progress lines
 * (experiment/io), one run and its report (experiment/runs), the table experiments
 * (experiment/tables).
 */

class CheckedCommandLine;

/**
 * \ingroup allreduce-experiment
 * A link that goes down during a run.
 */
struct LinkDownEvent
{
    uint32_t link{0}; //!< the topology link
    double at{0};     //!< when, in simulated seconds
};

/**
 * \ingroup allreduce-experiment
 * Servers whose gradients are ready late, as --stragglers spells them (ParseStragglerSpec).
 */
struct StragglerSpec
{
    uint32_t count{0};          //!< late servers chosen at random (AllReduceController::Stragglers)
    bool all{false};            //!< every server draws a delay
    std::string delay;          //!< their delay as a random variable (StragglerDelay)
    std::vector<Time> times;    //!< or, per server, when its gradient is ready
};

/**
 * \ingroup allreduce-experiment
 * \param spec "" or "none"; "K:DELAY" (K servers chosen at random are late by DELAY, e.g.
 *        "2:500us"); "K:exp:MEAN" (each late by an exponential delay of that mean); "all:exp:MEAN"
 *        (every server); "list:T0,T1,..." (server i's gradient is ready at Ti)
 * \return the stragglers it names
 * \throws std::invalid_argument saying what is wrong and how it is written
 */
StragglerSpec ParseStragglerSpec(const std::string& spec);

/// The latest time a packet-level run takes from the user (straggler delays, link events): 1e6 s.
constexpr int64_t MAX_PACKET_TIME_NS = int64_t{1000000} * 1000000000;

/**
 * \ingroup allreduce-experiment
 * \param subject the option, e.g. "--stragglers" \param text e.g. "500us"
 * \return the time, from 0 to MAX_PACKET_TIME_NS
 * \throws std::invalid_argument naming the subject: not a time, negative, finer than 1 ns or
 *         later than a packet-level run can reach
 */
Time ParsePacketTime(const std::string& subject, const std::string& text);

/// \param t a time \return its seconds written exactly, e.g. "0.0000014" for 1400 ns
std::string FormatExactSeconds(Time t);

/**
 * \ingroup allreduce-experiment
 * \param spec --slow-links as given: "FRACTION" or "FRACTION:FACTOR" (FACTOR 0.5 when left out)
 * \param seed which links
 * \return the topology spec options that say the same, e.g. ",slow=0.25,slowrate=0.5,slowseed=1",
 *         to append to a spec (BuildTopology checks the ranges)
 * \throws std::invalid_argument when FRACTION or FACTOR is not a number
 */
std::string SlowLinksSpecOptions(const std::string& spec, uint32_t seed);

/**
 * \ingroup allreduce-experiment
 * \param links each --link-down given, a link index
 * \param times each --link-down-at given: none (all at 0), or one per link, in the same order
 * \return the events
 * \throws std::invalid_argument for a link that is not a number or a time that is not one, or
 *         when the counts differ
 */
std::vector<LinkDownEvent> ParseLinkDowns(const std::vector<std::string>& links,
                                          const std::vector<std::string>& times);

/**
 * \ingroup allreduce-experiment
 * \param given --decisions as given ("" when not)
 * \param scheduler the scheduler's name, or "" when a schedule file is replayed
 * \return "online" or "replay": online by default for a scheduler, replay for a schedule file
 *         and for optimal (which plans offline)
 * \throws std::invalid_argument when online is asked for a schedule file or optimal
 */
std::string ChooseDecisions(const std::string& given, const std::string& scheduler);

/**
 * \ingroup allreduce-experiment
 * The slowest link a packet-level run accepts, in bit/s (--data-rate, and every link once its
 * own rate and slow-down factor apply): below it a 1500-byte packet takes over 12 ms a hop, and
 * TCP's timers give up on connections that are only slow.
 */
constexpr uint64_t MIN_PACKET_RATE_BPS = 1000000;

/**
 * \ingroup allreduce-experiment
 * Everything one packet-level run needs besides its plan. Quantities are typed: the programs'
 * command lines parse them once (CheckedCommandLine), and nothing further in reads text.
 */
struct PacketRunConfig
{
    std::string mode{"barrier"};        //!< "barrier" or "async"
    std::string connections{"persistent"}; //!< "persistent" TCP connections, reused by every
                                        //!< transfer between two nodes on one path, or a new
                                        //!< one "per-transfer"
    uint32_t warmUps{0};                //!< AllReduces before the measured one, on the same
                                        //!< persistent connections (AllReduceController's
                                        //!< WarmUps)
    std::string transport{"tcp"};       //!< "tcp" over point-to-point links, or "rdma":
                                        //!< RoCEv2 with DCQCN over lossless Ethernet (PFC)
    std::string switching;              //!< rdma: "cut-through" (default) or
                                        //!< "store-and-forward" switch ports
    std::string tcp;                    //!< TCP congestion control: "cubic" (ns-3's default;
                                        //!< also when empty, i.e. not given), "newreno" or
                                        //!< "dctcp" (needs queueDisc "red"); an RDMA run
                                        //!< refuses any given
    std::string queueDisc;              //!< queue discs on every device: "fq-codel" (with
                                        //!< byte queue limits), "red" (ECN marking at a
                                        //!< threshold, as ns-3's DCTCP example), "none" (the
                                        //!< devices' FIFO queues), "auto" or empty (red for
                                        //!< dctcp, else fq-codel); an RDMA run refuses any
                                        //!< given
    std::optional<QueueSize> queueSize; //!< the queue's limit, e.g. 1000p or 4MB (the queue
                                        //!< disc's, or with "none" the device queue's); none:
                                        //!< ns-3's default for it
    std::string decisions{"replay"};    //!< "replay" the plan, or decide "online"
    std::string stragglers;             //!< late gradients (ParseStragglerSpec)
    uint32_t stragglerSeed{1};          //!< which servers are late, and how late
    uint64_t gradientBytes{1 << 20};    //!< bytes of every server's gradient (multiple of 4)
    DataRate dataRate{"10Gbps"};        //!< every link's rate
    Time delay{MicroSeconds(1)};        //!< every link's propagation delay
    std::string values{"integer"};      //!< "integer" (exact) or "float" gradients
    uint32_t seed{1};                   //!< gradient seed (server s uses seed, with s mixed in)
    double loss{0};                     //!< per-packet loss probability on every device
    int64_t lossStream{0};              //!< first random stream of the loss models
    std::vector<LinkDownEvent> linkDowns; //!< links to take down mid-run
    double backgroundLoad{0};           //!< other traffic's offered load (0: none; see
                                        //!< BackgroundTrafficHelper)
    std::string backgroundApplication{"onoff"}; //!< "onoff" or "bulk"
    uint32_t backgroundSeed{1};         //!< who sends background traffic to whom
    Time stallTimeout{Seconds(1)};      //!< time without progress that ends the run
    std::string pcapPrefix;             //!< write pcap traces with this prefix (empty: none)
    std::string netanimFile;            //!< write a NetAnim animation trace to this file (empty:
                                        //!< none; DcnAnimationHelper, small topologies only)
    bool flowMonitor{true};             //!< collect per-flow statistics with FlowMonitor
                                        //!< (not in a distributed run)
    bool distributed{false};            //!< run as a distributed simulation (doc/allreduce.rst,
                                        //!< "Distributed runs"): on every rank of MPI's world,
                                        //!< or on one process
    std::string partition{"auto"};      //!< distributed: TopologyPartition's method
    std::string synchronizer{"granted-time-window"}; //!< distributed, on several ranks: ns-3's
                                        //!< DistributedSimulatorImpl, or "null-message"
    std::string progress;               //!< a program's name: lines on stderr, headed by it,
                                        //!< while a long run goes on (empty: none; a
                                        //!< distributed run's rank 0 only)
};

/**
 * \ingroup allreduce-experiment
 * Adds the transport's options to a command line: --transport, --connections, --warm-ups,
 * --tcp, --queue-disc and --queue-size, read into config.
 * \param cmd the command line \param config where the values go (its values are the defaults)
 */
void AddTransportOptions(CheckedCommandLine& cmd, PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * Adds the links' options to a command line: --data-rate and --delay, read into config.
 * \param cmd the command line \param config where the values go (its values are the defaults)
 */
void AddLinkOptions(CheckedCommandLine& cmd, PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * \return the ns-3 attributes a packet run sets on every object it makes (links, TCP sockets,
 *         queues, the controller), each with the option or attribute to give instead, for
 *         CheckedCommandLine::RefuseAttributes
 */
std::vector<std::pair<std::string, std::string>> GetPacketRunAttributes();

/**
 * \ingroup allreduce-experiment
 * \param size a queue's limit \return it as ns-3 writes it, e.g. "1000p" or "4000000B"
 */
std::string FormatQueueSize(const QueueSize& size);

/**
 * \ingroup allreduce-experiment
 * \param config a run's configuration
 * \return its transport in words, e.g. "TCP cubic, persistent connections, fq-codel queues"
 */
std::string DescribeTransport(const PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * \param config a run's configuration
 * \return the queue disc it runs with: its queueDisc, with "auto" resolved (red for dctcp,
 *         else fq-codel)
 */
std::string GetQueueDisc(const PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * \param config a run's configuration
 * \return its TCP congestion control: "cubic" when none was given
 */
std::string GetTcp(const PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * FlowMonitor's view of one data flow: a connection's data direction.
 */
struct FlowReport
{
    std::vector<uint32_t> workloads; //!< the workloads it carried, in order of their ids (one
                                     //!< per transfer; with persistent connections every one
                                     //!< sent on the connection)
    uint32_t src{0};         //!< sending node (a server, or an aggregating switch)
    uint32_t dst{0};         //!< receiving node
    uint64_t txBytes{0};     //!< IP bytes sent (headers included)
    uint64_t rxBytes{0};     //!< IP bytes received
    uint32_t txPackets{0};   //!< packets sent
    uint32_t rxPackets{0};   //!< packets received
    uint32_t lostPackets{0}; //!< packets sent but never received (dropped on the way)
    double meanDelay{0};     //!< mean one-way delay in seconds
    double duration{0};      //!< first packet sent to last received, in seconds
};

/**
 * \ingroup allreduce-experiment
 * What a packet-level run produced.
 */
struct PacketRunReport
{
    Plan run;                              //!< the workloads on the paths they took, and the
                                           //!< rounds as replayed or decided online
    uint32_t plannedRounds{0};             //!< the rounds of the plan given to the run
    uint32_t plannedWorkloads{0};          //!< its workloads (a rank of a distributed run
                                           //!< holds its part of them in run)
    AllReduceRunResult result;             //!< completion, per-round and per-transfer times
    AllReduceVerification verification;   //!< every server's vector against the exact sum
    std::vector<FlowReport> flows;         //!< data flows, by their first workload (with
                                           //!< flowMonitor)
    uint32_t ackFlows{0};                  //!< reverse (ACK) flows seen by FlowMonitor
    std::vector<uint64_t> linkBytes;       //!< per directed link, the AllReduce's bytes put
                                           //!< on the wire (headers and ACKs included)
    uint64_t foreignBytes{0};              //!< bytes of other traffic, over all links
    double dataRateBps{0};                 //!< the network's link rate
    std::vector<double> linkRateBps;       //!< per directed link, the rate it ran at (uneven
                                           //!< links: its own)
    double pieceTime{0};                   //!< T_S: one piece's payload over one link, seconds
    double predictedTime{0};               //!< flow-level prediction: the plan's rounds × T_S
    uint64_t events{0};                    //!< simulator events executed
    double wallSeconds{0};                 //!< wall-clock time of Simulator::Run
    uint64_t peakBytes{0};                 //!< the process's peak resident memory when
                                           //!< Simulator::Run returned (GetPeakResidentBytes)
    std::vector<std::string> notes;        //!< for the user, e.g. a fault that never fired
    std::string animation;                 //!< what the NetAnim trace holds (DcnAnimationHelper::
                                           //!< Close), empty without one
    std::optional<DrlDecoding> drl;        //!< how drl decided, when it decided online
    std::optional<DistributedReport> distributed; //!< the ranks, in a distributed run
    std::string transport{"tcp"};          //!< "tcp" or "rdma"
    DcnTopologyHelper::TransportCounters counters; //!< pause frames, ECN marks, CNPs and drops
                                           //!< over the whole simulation (warm-ups included)
    /// \return per directed link, the busy fraction bytes·8 / (its rate · completion time)
    std::vector<double> GetLinkUtilization() const;
};

/**
 * \ingroup allreduce-experiment
 * Runs one packet-level AllReduce of a plan on its own topology: builds the network
 * (DcnTopologyHelper), installs the applications and controller (AllReduceHelper), runs the
 * simulation, verifies the result and collects the statistics, then destroys the simulation.
 * With config.decisions "replay" the plan's schedule is replayed; with "online" the scheduler
 * decides inside the simulation on the plan's workloads.
 * \param plan workloads and schedule; the run keeps them and hands them back in the report's
 *        run (move a plan in that you do not need afterwards: a large plan is then held once)
 * \param config the run's settings
 * \param scheduler the scheduler that decides online (with decisions "online" only)
 * \return the report
 * \throws std::invalid_argument for bad settings (mode, decisions, rate, delay, values, loss,
 *         link, stragglers), an invalid schedule or a gradient too small for the pieces, before
 *         the simulation starts
 */
PacketRunReport RunPacketAllReduce(Plan plan,
                                   const PacketRunConfig& config,
                                   Ptr<AllReduceScheduler> scheduler = nullptr);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H */
