/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-controller.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/plan.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/replay-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/size-limits.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <chrono>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceController");

NS_OBJECT_ENSURE_REGISTERED(AllReduceController);

TypeId
AllReduceController::GetTypeId()
{
    static TypeId tid = AddTraceSources(AddDistributedAttributes(AddSharingAttributes(
        AddRunAttributes(TypeId("ns3::AllReduceController")
                             .SetParent<Object>()
                             .SetGroupName("AllReduce")
                             .AddConstructor<AllReduceController>()))));
    return tid;
}

TypeId
AllReduceController::AddDistributedAttributes(TypeId tid)
{
    return tid
        .AddAttribute("Distributed",
                      "Run as one rank of a distributed simulation (doc/allreduce.rst, "
                      "\"Distributed runs\"): the controller drives only the applications of "
                      "this rank's nodes (null entries for the others), and learns of "
                      "transfers elsewhere only from notices the nodes send each other "
                      "through the network (DistributedDriver). The same on one process: the "
                      "timing does not depend on the number of ranks.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&AllReduceController::m_distributed),
                      MakeBooleanChecker())
        .AddAttribute("Coordinator",
                      "Distributed: the node (model id, a server) that runs the barriers "
                      "and announces the end.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&AllReduceController::m_coordinator),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("NoticePort",
                      "Distributed: the UDP port every node sends and receives notices on.",
                      UintegerValue(9),
                      MakeUintegerAccessor(&AllReduceController::m_noticePort),
                      MakeUintegerChecker<uint16_t>(1))
        .AddAttribute("EndMargin",
                      "Distributed: every rank stops its simulator this long after the "
                      "coordinator heard the last arrival (the END notice carries the time, "
                      "so it must reach every node before). A run not finished StallTimeout "
                      "after its start is ended there, on every rank at once.",
                      TimeValue(MilliSeconds(1)),
                      MakeTimeAccessor(&AllReduceController::m_endMargin),
                      MakeTimeChecker(NanoSeconds(1)));
}

TypeId
AllReduceController::AddRunAttributes(TypeId tid)
{
    return tid
        .AddAttribute("Mode",
                      "barrier: round t+1 starts when round t has finished; async: a "
                      "workload starts once its dependencies are done and its links free.",
                      EnumValue(AllReduceController::BARRIER),
                      compat::MakeEnumAccessor<AllReduceController::Mode>(
                          &AllReduceController::m_mode),
                      MakeEnumChecker(AllReduceController::BARRIER,
                                      "barrier",
                                      AllReduceController::ASYNC,
                                      "async"))
        .AddAttribute("Connections",
                      "persistent: one TCP connection per sender, receiver and path, opened "
                      "by the first transfer between them and reused by every later one "
                      "(workloads framed on the stream), as collective libraries keep "
                      "theirs; per-transfer: a connection of its own for every transfer, "
                      "which pays the handshake and slow start each time.",
                      EnumValue(AllReduceController::PERSISTENT),
                      compat::MakeEnumAccessor<AllReduceController::Connections>(
                          &AllReduceController::m_connections),
                      MakeEnumChecker(AllReduceController::PERSISTENT,
                                      "persistent",
                                      AllReduceController::PER_TRANSFER,
                                      "per-transfer"))
        .AddAttribute("WarmUps",
                      "AllReduces run before the measured one, untimed, on the same "
                      "persistent connections (as nccl-tests' warm-up iterations): the "
                      "measured one then starts where a training job's next iteration does, "
                      "its connections up and their congestion windows grown. Each starts "
                      "from the initial gradients, with every gradient ready (stragglers "
                      "are the measured one's); GetResult, GetSchedule and Verify are the "
                      "measured one's. 0: the AllReduce runs on connections it opens.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&AllReduceController::m_warmUps),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("GradientBytes",
                      "Size of every server's gradient in bytes (a multiple of 4: float32).",
                      UintegerValue(1 << 20),
                      MakeUintegerAccessor(&AllReduceController::m_gradientBytes),
                      MakeUintegerChecker<uint64_t>())
        .AddAttribute("StallTimeout",
                      "The run ends with a stall report when no data arrives for this long "
                      "and no transfer whose path is up has a TCP retransmission to come.",
                      TimeValue(Seconds(1)),
                      MakeTimeAccessor(&AllReduceController::m_stallTimeout),
                      MakeTimeChecker(NanoSeconds(1)))
        .AddAttribute("StartTime",
                      "When the first transfers start, after Setup (a controller set up "
                      "while the simulation runs starts that long after).",
                      TimeValue(Seconds(0)),
                      MakeTimeAccessor(&AllReduceController::m_startTime),
                      MakeTimeChecker(Seconds(0)));
}

TypeId
AllReduceController::AddSharingAttributes(TypeId tid)
{
    return tid
        .AddAttribute("SharedLinks",
                      "The cluster's links shared with other jobs' controllers, for joint "
                      "decisions (doc/allreduce.rst, \"Several jobs\"): links other jobs' "
                      "transfers use are busy for this scheduler, and it decides again when "
                      "they free up. Null: the AllReduce has the network to itself, or "
                      "shares it without looking (independent jobs).",
                      PointerValue(),
                      MakePointerAccessor(&AllReduceController::m_sharedLinks),
                      MakePointerChecker<SharedLinks>())
        .AddAttribute("FirstSourcePort",
                      "The port each server's first connection sends from (the next ones "
                      "count up; a server never needs more ports than it sends workloads): "
                      "AllReduces that follow one another on a node start above "
                      "the ports the earlier ones used, which TCP may still hold.",
                      UintegerValue(FIRST_SOURCE_PORT),
                      MakeUintegerAccessor(&AllReduceController::m_firstSourcePort),
                      MakeUintegerChecker<uint16_t>(1))
        .AddAttribute("StopWhenFinished",
                      "Whether the end of the AllReduce (or its stall) stops the simulator; "
                      "false when other jobs run on.",
                      BooleanValue(true),
                      MakeBooleanAccessor(&AllReduceController::m_stopWhenFinished),
                      MakeBooleanChecker())
        .AddAttribute("Stragglers",
                      "How many servers, chosen at random, have their gradients ready late "
                      "(by StragglerDelay); 0: none. Every workload that carries a late "
                      "server's contribution waits for it.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&AllReduceController::m_stragglers),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("StragglerDelay",
                      "How late a straggler's gradient is, in seconds (drawn per straggler), "
                      "e.g. ns3::ConstantRandomVariable[Constant=0.0005] or "
                      "ns3::ExponentialRandomVariable[Mean=0.0001].",
                      StringValue("ns3::ConstantRandomVariable[Constant=0.001]"),
                      MakePointerAccessor(&AllReduceController::m_stragglerDelay),
                      MakePointerChecker<RandomVariableStream>());
}

TypeId
AllReduceController::AddTraceSources(TypeId tid)
{
    return tid
        .AddTraceSource("TransferStarted",
                        "A workload's transfer started.",
                        MakeTraceSourceAccessor(&AllReduceController::m_transferStarted),
                        "ns3::AllReduceApplication::WorkloadTracedCallback")
        .AddTraceSource("TransferFinished",
                        "A workload's transfer arrived whole and was applied.",
                        MakeTraceSourceAccessor(&AllReduceController::m_transferFinished),
                        "ns3::AllReduceApplication::WorkloadTracedCallback")
        .AddTraceSource("RoundFinished",
                        "Every transfer of a round finished (with the round's duration).",
                        MakeTraceSourceAccessor(&AllReduceController::m_roundFinished),
                        "ns3::AllReduceController::RoundTracedCallback")
        .AddTraceSource("CollectiveFinished",
                        "Every transfer of the AllReduce finished.",
                        MakeTraceSourceAccessor(&AllReduceController::m_collectiveFinished),
                        "ns3::AllReduceApplication::TimeTracedCallback")
        .AddTraceSource("Started",
                        "An AllReduce started: its index, from 0; with WarmUps, the "
                        "measured one is the last (index WarmUps).",
                        MakeTraceSourceAccessor(&AllReduceController::m_started),
                        "ns3::AllReduceController::StartedTracedCallback")
        .AddTraceSource("RunEnded",
                        "The run ended: finished (an empty reason) or not (why: a stall, a "
                        "failed connection or scheduler).",
                        MakeTraceSourceAccessor(&AllReduceController::m_runEnded),
                        "ns3::AllReduceController::StallTracedCallback")
        .AddTraceSource("Stall",
                        "The run was ended for lack of progress (the report).",
                        MakeTraceSourceAccessor(&AllReduceController::m_stall),
                        "ns3::AllReduceController::StallTracedCallback")
        .AddTraceSource("Decision",
                        "The scheduler was asked at a decision point (how many workloads "
                        "were ready and in flight, and which it started).",
                        MakeTraceSourceAccessor(&AllReduceController::m_decision),
                        "ns3::AllReduceController::DecisionTracedCallback");
}

AllReduceController::AllReduceController()
{
    NS_LOG_FUNCTION(this);
}

AllReduceController::~AllReduceController()
{
    NS_LOG_FUNCTION(this);
}

void
AllReduceController::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_watch.Stop();
    m_begin.Cancel();
    m_deadline.Cancel();
    m_stop.Cancel();
    m_release.Cancel();
    if (m_sharedLinks && !m_ended && m_state)
    {
        m_sharedLinks->RemoveWaiter(m_waiterKey);
    }
    m_apps.clear();
    m_scheduler = nullptr;
    m_state.reset();
    m_linkUp = MakeNullCallback<bool, uint32_t>();
    m_route = MakeNullCallback<void, uint32_t>();
    m_monitor = nullptr;
    m_sharedLinks = nullptr;
    m_watch.Forget();
    Object::DoDispose();
}

void
AllReduceController::Setup(WorkloadSet workloads,
                           Schedule schedule,
                           const std::vector<Ptr<AllReduceApplication>>& apps,
                           const std::vector<Ipv4Address>& addresses)
{
    NS_LOG_FUNCTION(this);
    const ScheduleCheck check = ValidateSchedule(workloads, schedule);
    if (!check.valid)
    {
        throw std::invalid_argument("the schedule is not valid for its workloads, so it is not "
                                    "run: " + check.error);
    }
    std::vector<uint32_t> kept;
    if (m_distributed) // from here on, the part of the run this rank needs
    {
        kept = SetupDistributed(workloads, schedule, apps);
    }
    Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
    replay->SetAttribute("Order", StringValue(m_mode == BARRIER ? "rounds" : "list"));
    replay->SetSchedule(schedule); // over the copy Prepare gets: the workloads once per run
    Adopt(std::move(workloads), apps, addresses); // given by value: a caller may move its own
    replay->Prepare(m_workloads); // this copy lives as long as the run, as Prepare asks
    m_schedule = std::move(schedule);
    m_scheduler = replay;
    m_online = false;
    if (m_distributed)
    {
        m_driver.Adopt(m_workloads, std::move(kept));
    }
    ScheduleBegin();
}

void
AllReduceController::Setup(WorkloadSet workloads,
                           Ptr<AllReduceScheduler> scheduler,
                           const std::vector<Ptr<AllReduceApplication>>& apps,
                           const std::vector<Ipv4Address>& addresses)
{
    NS_LOG_FUNCTION(this);
    if (!scheduler)
    {
        throw std::invalid_argument("AllReduceController::Setup needs a scheduler to decide "
                                    "online (or a schedule to replay)");
    }
    if (m_distributed)
    {
        throw std::invalid_argument(
            "a distributed run replays a schedule (async or barrier); a scheduler deciding "
            "online inside it is not supported yet: replay the scheduler's plan instead "
            "(allreduce-packet --decisions=replay)");
    }
    Adopt(std::move(workloads), apps, addresses);
    // The scheduler may keep a reference to the workloads (balanced does): give it this copy,
    // which lives as long as the run. The run is scheduled only once it accepted them.
    scheduler->Prepare(m_workloads);
    m_schedule = Schedule{};
    m_schedule.scheduler = scheduler->GetName();
    m_scheduler = scheduler;
    m_online = true;
    ScheduleBegin();
}

void
AllReduceController::Adopt(WorkloadSet workloads,
                           const std::vector<Ptr<AllReduceApplication>>& apps,
                           const std::vector<Ipv4Address>& addresses)
{
    if (m_warmUps > 0 && m_connections == PER_TRANSFER)
    {
        throw std::invalid_argument(
            "WarmUps is " + std::to_string(m_warmUps) +
            ", but connections are per transfer: every transfer opens its own, so a warm-up "
            "leaves nothing for the measured AllReduce; set WarmUps to 0 or use persistent "
            "connections");
    }
    const Topology& topo = workloads.GetTopology();
    const uint32_t n = topo.GetNServers();
    const uint32_t aggregators = topo.CountAggregators();
    const uint32_t nodes = CheckEndpoints(topo, apps, addresses, m_distributed);
    if (m_gradientBytes == 0 || m_gradientBytes % sizeof(float) != 0)
    {
        throw std::invalid_argument("GradientBytes must be a multiple of 4 (float32 values), "
                                    "got " + std::to_string(m_gradientBytes));
    }
    m_release.Check(n, m_stragglers);
    // Every server holds its vector, and verification the exact sum.
    CheckMemory("a gradient of " + std::to_string(m_gradientBytes) + " bytes on each of " +
                    std::to_string(n) + " servers" +
                    (aggregators > 0 ? " and " + std::to_string(aggregators) +
                                           " aggregating switches"
                                     : std::string()),
                SaturatingMultiply(m_gradientBytes, uint64_t{n} + aggregators + 2),
                "use a smaller gradient");
    CheckConnectionMemory(workloads);
    GradientLayout layout(m_gradientBytes / sizeof(float), n, workloads.GetPieces());

    // A connection's source port names its flow, so that a flow route can pin its path.
    m_pool.Reset(workloads, nodes, m_firstSourcePort, m_connections == PER_TRANSFER);
    m_layout = layout;
    m_workloads = std::move(workloads);
    m_watch.SetWorkloads(m_workloads, m_linkUp);
    m_apps = apps;
    m_addresses = addresses;
    for (uint32_t node = 0; node < nodes; ++node)
    {
        if (m_apps[node])
        {
            m_apps[node]->SetController(this, node);
        }
    }
    m_begin.Cancel();
}

uint32_t
AllReduceController::CheckEndpoints(const Topology& topo,
                                    const std::vector<Ptr<AllReduceApplication>>& apps,
                                    const std::vector<Ipv4Address>& addresses,
                                    bool distributed)
{
    const uint32_t n = topo.GetNServers();
    const uint32_t aggregators = topo.CountAggregators();
    // Servers, then (with aggregating switches) every node up to the last, by node id.
    const uint32_t nodes = aggregators > 0 ? topo.GetNNodes() : n;
    if (apps.size() != nodes || addresses.size() != nodes)
    {
        throw std::invalid_argument(
            "AllReduceController::Setup needs one application and one address per server (" +
            std::to_string(n) + ")" +
            (aggregators > 0 ? " and per aggregating switch (" + std::to_string(aggregators) +
                                   "), by node id, null for the " +
                                   std::to_string(topo.GetNSwitches() - aggregators) +
                                   " other switches: " + std::to_string(nodes) + " entries"
                             : std::string()) +
            ", got " + std::to_string(apps.size()) + " and " + std::to_string(addresses.size()));
    }
    for (uint32_t node = 0; node < nodes; ++node)
    {
        const bool endpoint = topo.IsServer(node) || topo.IsAggregator(node);
        // Distributed: the endpoints of other ranks have no application here.
        if (endpoint != static_cast<bool>(apps[node]) && !(distributed && endpoint))
        {
            throw std::invalid_argument(
                "AllReduceController::Setup: " + topo.GetNodeName(node) +
                (endpoint ? " needs an application" : " does not aggregate, so it takes no "
                                                      "application (give a null one)"));
        }
    }
    return nodes;
}

void
AllReduceController::ScheduleBegin()
{
    m_release.NewRun();
    m_begin = Simulator::Schedule(m_startTime, &AllReduceController::Begin, this);
    m_origin = Simulator::Now() + m_startTime;
}

void
AllReduceController::SetLinkStateCallback(Callback<bool, uint32_t> linkUp)
{
    m_linkUp = linkUp;
    m_watch.SetWorkloads(m_workloads, m_linkUp);
}

void
AllReduceController::SetRouteCallback(Callback<void, uint32_t> route)
{
    m_route = route;
}

void
AllReduceController::SetLinkLoadMonitor(Ptr<LinkLoadMonitor> monitor)
{
    const uint32_t links = m_workloads.GetNDirectedLinks();
    if (monitor && m_distributed)
    {
        throw std::invalid_argument("SetLinkLoadMonitor: a distributed run has no global "
                                    "view of the links, and no scheduler that would read it");
    }
    if (monitor && monitor->GetNDirectedLinks() != links)
    {
        throw std::invalid_argument("SetLinkLoadMonitor: the monitor watches " +
                                    std::to_string(monitor->GetNDirectedLinks()) +
                                    " directed links; the workloads' topology has " +
                                    std::to_string(links) + " (call it after Setup)");
    }
    m_monitor = monitor;
}

void
AllReduceController::SetGradientReadyTimes(const std::vector<Time>& times)
{
    m_release.SetGivenTimes(times,
                            m_apps.empty() ? 0 : m_workloads.GetTopology().GetNServers());
}

int64_t
AllReduceController::AssignStreams(int64_t stream)
{
    m_release.AssignStream(stream);
    m_stragglerDelay->SetStream(stream + 1);
    return 2;
}

const WorkloadSet&
AllReduceController::GetWorkloads() const
{
    return m_state ? m_state->GetWorkloads() : m_workloads;
}

const Schedule&
AllReduceController::GetSchedule() const
{
    return m_schedule;
}

Plan
AllReduceController::TakeRun()
{
    Plan run;
    if (m_state)
    {
        run.workloads = m_state->GetWorkloads(); // online: the paths taken (a link went down)
    }
    else
    {
        run.workloads = std::move(m_workloads);
    }
    run.schedule = std::move(m_schedule);
    m_workloads = WorkloadSet();
    m_schedule = Schedule{};
    return run;
}

const GradientLayout&
AllReduceController::GetLayout() const
{
    return m_layout;
}

AllReduceController::Mode
AllReduceController::GetMode() const
{
    return m_mode;
}

AllReduceController::Connections
AllReduceController::GetConnections() const
{
    return m_connections;
}

bool
AllReduceController::IsOnline() const
{
    return m_online;
}

const std::vector<double>&
AllReduceController::GetGradientReadyTimes() const
{
    return m_release.GetReadyTimes();
}

double
AllReduceController::Elapsed() const
{
    return (Simulator::Now() - m_origin).GetSeconds();
}

Ptr<AllReduceApplication>
AllReduceController::GetApplication(uint32_t node) const
{
    return m_apps.at(node);
}

Ipv4Address
AllReduceController::GetAddress(uint32_t node) const
{
    return m_addresses.at(node);
}

uint16_t
AllReduceController::GetSourcePort(uint32_t workload) const
{
    if (m_distributed)
    {
        return workload < m_ports.size() ? m_ports[workload] : 0;
    }
    return m_pool.GetSourcePort(workload);
}

const AllReduceRunResult&
AllReduceController::GetResult() const
{
    return m_result;
}

void
AllReduceController::Begin()
{
    NS_LOG_FUNCTION(this);
    if (m_distributed)
    {
        BeginDistributed();
        return;
    }
    m_origin = Simulator::Now();
    m_state = std::make_unique<PacketSchedulerState>(m_workloads);
    m_state->SetBarriers(m_mode == BARRIER);
    ResetRun();
    m_ended = false;
    if (m_sharedLinks)
    {
        m_waiterKey = m_sharedLinks->AddWaiter(
            MakeCallback(&AllReduceController::GetBytesLeft, this),
            MakeCallback(&AllReduceController::DecideOnFreedLinks, this));
    }
    m_watch.Start(*m_state,
                  m_stallTimeout,
                  MakeCallback(&AllReduceController::WaitBeforeStall, this),
                  MakeCallback(&AllReduceController::Stall, this));
    if (m_workloads.GetN() == 0)
    {
        End("");
        return;
    }
    m_release.Hold(m_workloads.GetTopology().GetNServers(),
                   IsWarmUp(),
                   m_stragglers,
                   m_stragglerDelay,
                   m_state.get(),
                   MakeCallback(&AllReduceController::ReleaseGradient, this));
    m_started(m_release.GetWarmUpsFinished());
    // Links already down at the start (a user's script may take them down before).
    if (!m_linkUp.IsNull())
    {
        for (uint32_t link = 0; link < m_workloads.GetTopology().GetNLinks(); ++link)
        {
            m_state->SetLinkDown(link, !m_linkUp(link));
        }
        if (m_online)
        {
            Reroute();
        }
    }
    Decide();
}

void
AllReduceController::ResetRun()
{
    const uint32_t nw = m_workloads.GetN();
    m_result = AllReduceRunResult{};
    m_result.warmUpTimes = m_release.GetWarmUpTimes();
    m_result.transferStart.assign(nw, -1);
    m_result.transferEnd.assign(nw, -1);
    m_roundOf.assign(nw, NO_INDEX);
    m_roundLeft.clear();
    m_rerouted.assign(nw, 0);
    if (m_monitor && m_state)
    {
        m_state->SetLinkRates(m_monitor->GetRelativeRates());
        m_monitor->Sample(); // the first interval starts now
    }
    if (m_online)
    {
        m_schedule.rounds.clear(); // rounds come as they are decided
    }
    else
    {
        // Replayed rounds keep the plan's numbering, whenever their workloads start.
        const uint32_t nr = m_schedule.GetNRounds();
        m_roundOf = RoundOfEachWorkload(m_schedule, nw);
        m_roundLeft.assign(nr, 0);
        m_result.roundStart.assign(nr, -1);
        m_result.roundEnd.assign(nr, -1);
        for (uint32_t t = 0; t < nr; ++t)
        {
            m_roundLeft[t] = static_cast<uint32_t>(m_schedule.rounds[t].size());
        }
    }
    m_heldLinks.assign(m_sharedLinks ? nw : 0, {}); // only a job of a shared cluster holds
    m_bytesLeft = 0;
    for (uint32_t w = 0; w < nw; ++w)
    {
        m_bytesLeft += GetBytes(w);
    }
}

void
AllReduceController::ReleaseGradient(uint32_t server)
{
    NS_LOG_FUNCTION(this << server);
    if (m_ended)
    {
        return;
    }
    m_state->ReleaseServer(server);
    m_watch.NotifyProgress();
    // Online, what the late gradient lets start may join a barrier round in flight: its
    // sender's links have waited idle for it.
    Decide(m_online);
}

void
AllReduceController::Decide(bool joinRound)
{
    if (m_ended)
    {
        return;
    }
    // Barrier: the round in flight finishes first, unless what starts now joins it.
    const bool join = m_mode == BARRIER && !m_state->GetStarted().empty();
    if ((join && !joinRound) || m_state->GetReady().empty())
    {
        return;
    }
    m_state->SetTime(Elapsed());
    if (m_monitor)
    {
        m_state->SetLinkLoads(m_monitor->Sample());
    }
    if (m_sharedLinks)
    {
        m_state->SetSharedLinkUse(m_sharedLinks->GetInFlight());
    }
    const auto ready = static_cast<uint32_t>(m_state->GetReady().size());
    const auto inFlight = static_cast<uint32_t>(m_state->GetStarted().size());
    const auto wallStart = std::chrono::steady_clock::now();
    try
    {
        m_scheduler->SelectRound(*m_state);
    }
    catch (const std::exception& e)
    {
        End("at t=" + std::to_string(Elapsed()) + " s the scheduler '" + m_scheduler->GetName() +
            "' failed: " + DescribeError(e));
        return;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    m_result.decisionWallS += wall;
    m_result.decisionWallMaxS = std::max(m_result.decisionWallMaxS, wall);
    ++m_result.decisions;
    const std::vector<uint32_t> started = m_state->TakeStarted();
    NS_LOG_DEBUG("decision " << m_result.decisions << ": " << ready << " ready, " << inFlight
                             << " in flight, " << started.size() << " started");
    m_decision(ready, inFlight, started);
    if (started.empty())
    {
        return;
    }
    // A join stays in the round in flight: still one round between barriers.
    if (!join)
    {
        m_state->CountRound();
    }
    if (m_online)
    {
        RecordRound(started, join);
    }
    for (uint32_t w : started)
    {
        double& roundStart = m_result.roundStart[m_roundOf[w]];
        roundStart = roundStart < 0 ? Elapsed() : roundStart;
        StartTransfer(w);
    }
}

void
AllReduceController::RecordRound(const std::vector<uint32_t>& started, bool join)
{
    if (!join)
    {
        m_roundLeft.push_back(0);
        m_result.roundStart.push_back(-1);
        m_result.roundEnd.push_back(-1);
        m_schedule.rounds.emplace_back();
    }
    const auto round = static_cast<uint32_t>(m_roundLeft.size() - 1);
    m_roundLeft[round] += static_cast<uint32_t>(started.size());
    m_schedule.rounds[round].insert(m_schedule.rounds[round].end(), started.begin(), started.end());
    for (uint32_t w : started)
    {
        m_roundOf[w] = round;
    }
}

void
AllReduceController::StartTransfer(uint32_t workload)
{
    const Workload& w = m_state->GetWorkloads().Get(workload);
    if (m_connections == PERSISTENT)
    {
        if (!PickConnection(workload))
        {
            return;
        }
    }
    else if (!m_route.IsNull())
    {
        m_route(workload); // a new connection: its route, along the path it takes now
    }
    m_result.transferStart[workload] = Elapsed();
    m_result.payloadBytes += m_layout.GetSize(w.chunk, w.piece) * sizeof(float);
    m_transferStarted(workload);
    if (m_sharedLinks)
    {
        m_sharedLinks->Hold(w.links);
        m_heldLinks[workload] = w.links.ToVector();
    }
    m_apps[w.src]->StartTransfer(workload, m_addresses[w.dst], m_pool.GetSourcePort(workload));
}

bool
AllReduceController::PickConnection(uint32_t workload)
{
    const Workload& w = m_state->GetWorkloads().Get(workload);
    const ConnectionPool::Pick pick =
        m_pool.Take(w, MakeCallback(&AllReduceApplication::HasTimedOut, m_apps[w.src]));
    if (!pick.picked)
    {
        End("at t=" + std::to_string(Elapsed()) + " s " +
            m_workloads.GetTopology().GetNodeName(w.src) +
            " has no source port left for a new connection (from FirstSourcePort " +
            std::to_string(m_firstSourcePort) + "): " + m_watch.Describe(workload));
        return false;
    }
    if (pick.opened)
    {
        NS_LOG_INFO("connection " << pick.connection << " opens from port "
                                  << m_pool.GetPort(pick.connection) << " for "
                                  << m_watch.Describe(workload));
    }
    if (pick.pathChanged && !m_route.IsNull())
    {
        m_route(workload);
    }
    return true;
}

void
AllReduceController::NotifyProgress(uint64_t /* bytes */)
{
    m_watch.NotifyProgress();
}

void
AllReduceController::CheckConnectionMemory(const WorkloadSet& workloads) const
{
    // One connection per transfer, or at least one per pair of servers that exchange data;
    // each holds a socket at both ends with their buffers: about 70 KiB measured over TCP
    // (allreduce-your-network on 100 and 200 routers, balanced: 0.98 and 3.07 GB at peak).
    constexpr uint64_t BYTES_PER_CONNECTION = uint64_t{64} << 10;
    uint64_t connections = workloads.GetN();
    if (m_connections == PERSISTENT)
    {
        std::unordered_set<uint64_t> pairs;
        for (uint32_t w = 0; w < workloads.GetN(); ++w)
        {
            pairs.insert(uint64_t{workloads.Get(w).src} << 32 | workloads.Get(w).dst);
        }
        connections = pairs.size();
    }
    CheckMemory("the " + std::to_string(connections) + " connections of " +
                    std::to_string(workloads.GetN()) + " workloads on '" +
                    workloads.GetTopology().GetName() + "' (a socket at both ends, about " +
                    std::to_string(BYTES_PER_CONNECTION >> 10) + " KiB each)",
                SaturatingMultiply(connections, BYTES_PER_CONNECTION),
                "use a smaller network, or a scheduler whose servers exchange data with fewer "
                "others (ring)");
}

void
AllReduceController::NotifyTransferFinished(uint32_t workload)
{
    NS_LOG_FUNCTION(this << workload);
    if (m_distributed)
    {
        FinishDistributedTransfer(workload);
        return;
    }
    if (m_ended || m_state->GetStatus(workload) != WorkloadStatus::STARTED)
    {
        return;
    }
    m_state->Finish(workload);
    m_bytesLeft -= GetBytes(workload);
    m_pool.Finish(workload);
    if (m_sharedLinks)
    {
        m_sharedLinks->Release(m_heldLinks[workload]);
        m_heldLinks[workload].clear();
    }
    const double now = Elapsed();
    m_result.transferEnd[workload] = now;
    ++m_result.transfersFinished;
    m_transferFinished(workload);
    const uint32_t t = m_roundOf[workload];
    if (--m_roundLeft[t] == 0)
    {
        FinishRound(t, now);
    }
    if (m_state->IsDone())
    {
        m_result.completionTime = now;
        FinishAllReduce();
        return;
    }
    Decide();
}

void
AllReduceController::FinishRound(uint32_t round, double now)
{
    m_result.roundEnd[round] = now;
    m_roundFinished(round, Seconds(now - m_result.roundStart[round]));
    for (const auto& app : m_apps)
    {
        if (app) // null for switches that do not aggregate
        {
            app->NotifyRoundFinished(round);
        }
    }
}

void
AllReduceController::FinishAllReduce()
{
    if (!IsWarmUp())
    {
        End("");
        return;
    }
    // Not from inside the receiver's callback: the next AllReduce resets its vector.
    m_release.FinishWarmUp(m_result.completionTime);
    m_watch.Stop();
    if (m_sharedLinks)
    {
        m_sharedLinks->RemoveWaiter(m_waiterKey);
    }
    m_begin = Simulator::ScheduleNow(&AllReduceController::BeginAfterWarmUp, this);
}

bool
AllReduceController::IsWarmUp() const
{
    return m_release.GetWarmUpsFinished() < m_warmUps;
}

void
AllReduceController::BeginAfterWarmUp()
{
    NS_LOG_FUNCTION(this);
    for (const auto& app : m_apps)
    {
        if (app)
        {
            app->Restart();
        }
    }
    try
    {
        m_scheduler->Prepare(m_workloads); // it took them before: a fresh start of the same
    }
    catch (const std::exception& e)
    {
        End(std::string("the scheduler '") + m_scheduler->GetName() +
            "' failed to prepare again after a warm-up: " + DescribeError(e));
        return;
    }
    Begin();
}

void
AllReduceController::NotifyTransferFailed(uint32_t workload)
{
    NS_LOG_FUNCTION(this << workload);
    if (!m_ended)
    {
        End("at t=" + std::to_string(Elapsed()) +
            " s the connection failed: " + m_watch.DescribeWithLinks(workload));
    }
}

void
AllReduceController::NotifyConnectionBroken(uint32_t node,
                                           uint16_t sourcePort,
                                           const std::string& why)
{
    NS_LOG_FUNCTION(this << node << sourcePort << why);
    if (m_ended)
    {
        return;
    }
    if (m_distributed)
    {
        End("at t=" + std::to_string(Elapsed()) + " s " + why + " from " +
            m_workloads.GetTopology().GetNodeName(node) + " port " +
            std::to_string(sourcePort));
        return;
    }
    m_pool.Retire(node, sourcePort);
    for (uint32_t w : m_state->GetStarted())
    {
        if (m_workloads.Get(w).src == node && m_pool.GetSourcePort(w) == sourcePort)
        {
            End("at t=" + std::to_string(Elapsed()) + " s " + why + " from " +
                m_workloads.GetTopology().GetNodeName(node) + " port " +
                std::to_string(sourcePort) + ": " + m_watch.DescribeWithLinks(w));
            return;
        }
    }
}

void
AllReduceController::NotifyLinkState(uint32_t link, bool up)
{
    NS_LOG_FUNCTION(this << link << up);
    if (!m_state || m_ended)
    {
        return; // before the start, Begin reads every link's state
    }
    m_state->SetLinkDown(link, !up);
    if (!up)
    {
        m_pool.RetireOver(m_workloads.GetTopology(), link);
    }
    if (m_online)
    {
        Reroute();
    }
    Decide();
}

void
AllReduceController::Reroute()
{
    const WorkloadSet& current = m_state->GetWorkloads();
    for (uint32_t id = 0; id < current.GetN(); ++id)
    {
        const WorkloadStatus status = m_state->GetStatus(id);
        if (status == WorkloadStatus::DONE)
        {
            continue;
        }
        const Workload& planned = m_workloads.Get(id);
        std::vector<uint32_t> path;
        if (m_rerouted[id] && status != WorkloadStatus::STARTED &&
            std::none_of(planned.links.begin(), planned.links.end(), [this](uint32_t l) {
                return m_state->IsLinkDown(l);
            }))
        {
            path = planned.path.ToVector(); // its own path is up again
        }
        else if (m_state->FindDownLink(id) != NO_INDEX)
        {
            path = m_state->FindUpPath(planned.src, planned.dst);
        }
        if (path.empty() || path == current.Get(id).path)
        {
            continue; // no path around: it waits, and a stall names it
        }
        NS_LOG_INFO("workload " << id << " routed along " << path.size() - 1 << " links");
        m_state->SetPath(id, path);
        m_rerouted[id] = path != planned.path;
        m_result.rerouted += m_rerouted[id];
        // A workload in flight takes its connection along; the others are routed as they start.
        if (status == WorkloadStatus::STARTED)
        {
            m_pool.Move(id, path);
            if (!m_route.IsNull())
            {
                m_route(id);
            }
        }
    }
}

Time
AllReduceController::WaitBeforeStall() const
{
    const std::vector<uint32_t>& inFlight = m_state->GetStarted();
    // A server's gradient still to come is not a stall: wait for it.
    const double lastRelease = m_release.GetLastRelease();
    if (inFlight.empty() && lastRelease > Elapsed())
    {
        return Seconds(lastRelease - Elapsed()) + m_stallTimeout;
    }
    // TCP backing off after losses is not stuck: wait while a transfer whose path is up has a
    // retransmission still to come. A path with a down link cannot recover, and a TCP that gave
    // up sends nothing more, so those end the wait.
    Time retry = Seconds(0);
    for (uint32_t w : inFlight)
    {
        if (m_watch.FindDownLink(w) < 0)
        {
            const uint32_t src = GetWorkloads().Get(w).src;
            retry = Max(retry, GetApplication(src)->GetRetransmissionDeadline(w));
        }
    }
    if (retry >= Simulator::Now())
    {
        return retry - Simulator::Now() + m_stallTimeout / 10;
    }
    return Seconds(-1);
}

void
AllReduceController::Stall()
{
    if (m_ended)
    {
        return;
    }
    m_result.stalled = true;
    const std::string report = m_watch.Report(m_result.transfersFinished, m_online);
    m_stall(report);
    End(report);
}

void
AllReduceController::End(const std::string& error)
{
    NS_LOG_FUNCTION(this << error);
    m_ended = true;
    m_watch.Stop();
    if (!(m_distributed && error.empty()))
    {
        m_deadline.Cancel(); // finished, a distributed rank still stops there if END says later
    }
    m_release.Cancel();
    m_result.finished = error.empty();
    m_result.error = error.empty() || !IsWarmUp()
                         ? error
                         : "in warm-up AllReduce " +
                               std::to_string(m_release.GetWarmUpsFinished() + 1) +
                               " of " + std::to_string(m_warmUps) + ": " + error;
    if (m_sharedLinks)
    {
        m_sharedLinks->RemoveWaiter(m_waiterKey);
        for (auto& links : m_heldLinks)
        {
            m_sharedLinks->Release(links); // transfers a stall left in flight
            links.clear();
        }
    }
    if (error.empty())
    {
        // Distributed, the end is heard after the last arrival: report that.
        m_collectiveFinished(m_distributed ? Seconds(m_result.completionTime)
                                           : Simulator::Now() - m_origin);
        // Distributed, the simulation drains instead of stopping: this rank's switches may
        // still carry notices to other ranks' nodes.
        const bool drain = m_distributed;
        for (const auto& app : m_apps)
        {
            if (app)
            {
                app->NotifyCollectiveFinished(!m_stopWhenFinished || drain);
            }
        }
    }
    else
    {
        NS_LOG_WARN(error);
    }
    m_runEnded(error);
    // Connections still closing (FIN, TIME_WAIT) are of no interest: end the simulation here
    // (distributed and finished: once every rank's events have drained).
    if (m_stopWhenFinished && m_distributed && error.empty())
    {
        // Every rank stops at the time END carried (or at the deadline, if that comes first),
        // so that no rank waits for another.
        if (m_stopAt < m_origin + m_stallTimeout)
        {
            m_stop = Simulator::Schedule(Max(Seconds(0), m_stopAt - Simulator::Now()),
                                         &Simulator::Stop);
        }
    }
    else if (m_stopWhenFinished)
    {
        Simulator::Stop();
    }
}

double
AllReduceController::GetBytesLeft() const
{
    return m_bytesLeft;
}

double
AllReduceController::GetBytes(uint32_t workload) const
{
    const Workload& w = m_workloads.Get(workload);
    return static_cast<double>(m_layout.GetSize(w.chunk, w.piece)) * sizeof(float);
}

void
AllReduceController::DecideOnFreedLinks()
{
    Decide(); // which waits for a barrier round in flight, and does nothing once ended
}

bool
AllReduceController::IsDistributed() const
{
    return m_distributed;
}

uint16_t
AllReduceController::GetNoticePort() const
{
    return m_noticePort;
}

void
AllReduceController::SetSimulatedNodes(std::vector<bool> simulated)
{
    m_simulated = std::move(simulated);
}

const std::vector<uint32_t>&
AllReduceController::GetPlanIds() const
{
    return m_driver.GetKept();
}

uint32_t
AllReduceController::GetPlanId(uint32_t workload) const
{
    return m_driver.GetSetupId(workload);
}

uint32_t
AllReduceController::FindWorkload(uint32_t id) const
{
    return m_driver.FindWorkload(id);
}

std::vector<std::pair<uint32_t, uint32_t>>
AllReduceController::GetNoticeChannels() const
{
    return m_distributed ? m_driver.GetNoticeChannels()
                         : std::vector<std::pair<uint32_t, uint32_t>>{};
}

uint16_t
AllReduceController::GetPort(uint32_t node) const
{
    if (m_distributed)
    {
        return m_listenPort; // the same on every node (SetupDistributed checks it)
    }
    return m_apps.at(node)->GetPort();
}

std::vector<uint32_t>
AllReduceController::SetupDistributed(WorkloadSet& workloads,
                                      Schedule& schedule,
                                      const std::vector<Ptr<AllReduceApplication>>& apps)
{
    const Topology& topo = workloads.GetTopology();
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument("a distributed run cannot honour " + what);
    };
    if (m_connections != PERSISTENT)
    {
        refuse("per-transfer connections: its ports and routes are fixed before the run; use "
               "persistent connections");
    }
    if (m_warmUps > 0)
    {
        refuse("WarmUps (" + std::to_string(m_warmUps) + "): set it to 0");
    }
    if (m_sharedLinks)
    {
        refuse("SharedLinks: jobs that decide jointly read each other's state");
    }
    if (m_coordinator >= topo.GetNServers())
    {
        throw std::invalid_argument("Coordinator " + std::to_string(m_coordinator) +
                                    " is not a server (0 to " +
                                    std::to_string(topo.GetNServers() - 1) + ")");
    }
    std::vector<bool> local(topo.GetNNodes(), false);
    m_listenPort = 0;
    for (uint32_t node = 0; node < apps.size(); ++node)
    {
        if (!apps[node])
        {
            continue;
        }
        local[node] = true;
        if (m_listenPort != 0 && apps[node]->GetPort() != m_listenPort)
        {
            throw std::invalid_argument("a distributed run needs every application on the "
                                        "same Port (a node cannot ask another rank's)");
        }
        m_listenPort = apps[node]->GetPort();
    }
    if (m_listenPort == 0 && workloads.GetN() > 0)
    {
        throw std::invalid_argument(
            "this rank (" + std::to_string(Simulator::GetSystemId()) + ") holds no server and "
            "no aggregating switch: every rank of a distributed run needs one (it hears the "
            "end there); partition otherwise or use fewer ranks");
    }
    // One connection per sender, receiver and path, its port fixed here in workload order:
    // every rank computes the same ports, and installs their routes before the run.
    std::map<std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>, uint16_t> ports;
    std::vector<uint32_t> next(topo.GetNNodes(), m_firstSourcePort);
    m_ports.assign(workloads.GetN(), 0);
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const Workload& wl = workloads.Get(w);
        auto [it, added] = ports.try_emplace({wl.src, wl.dst, wl.path.ToVector()}, 0);
        if (added)
        {
            // The notice and listening ports are taken: a flow route's key has no protocol.
            while (next[wl.src] == m_noticePort || next[wl.src] == m_listenPort)
            {
                ++next[wl.src];
            }
            if (next[wl.src] > UINT16_MAX)
            {
                throw std::invalid_argument(topo.GetNodeName(wl.src) + " needs more source "
                                            "ports than there are from FirstSourcePort " +
                                            std::to_string(m_firstSourcePort));
            }
            it->second = static_cast<uint16_t>(next[wl.src]++);
        }
        m_ports[w] = it->second;
    }
    m_driver.Setup(workloads, schedule, m_mode == BARRIER, local, m_coordinator);
    return KeepRankPart(workloads, schedule);
}

std::vector<uint32_t>
AllReduceController::KeepRankPart(WorkloadSet& workloads, Schedule& schedule)
{
    if (std::find(m_simulated.begin(), m_simulated.end(), false) == m_simulated.end())
    {
        return {}; // every node is here (or which are is not known): it keeps every workload
    }
    if (m_simulated.size() != workloads.GetTopology().GetNNodes())
    {
        throw std::invalid_argument("SetSimulatedNodes: " + std::to_string(m_simulated.size()) +
                                    " entries for a topology of " +
                                    std::to_string(workloads.GetTopology().GetNNodes()) +
                                    " nodes");
    }
    std::vector<uint32_t> kept = m_driver.FindNeeded(m_simulated);
    NS_LOG_INFO("this rank keeps " << kept.size() << " of " << workloads.GetN() << " workloads");
    std::vector<uint16_t> ports(kept.size());
    for (uint32_t i = 0; i < kept.size(); ++i)
    {
        ports[i] = m_ports[kept[i]];
    }
    m_ports = std::move(ports);
    KeepInRounds(schedule.rounds, kept);
    workloads.Keep(kept); // in place: the rest is freed here, the part never held twice
#ifdef __GLIBC__
    // The part's paths and lists lie scattered among the freed ones', whose pages no large
    // allocation (a gradient) could reuse: give them back to the system.
    malloc_trim(0);
#endif
    return kept;
}

void
AllReduceController::BeginDistributed()
{
    m_origin = Simulator::Now();
    ResetRun();
    m_ended = false;
    m_endedNodes = 0;
    m_started(0);
    m_stopAt = Seconds(0);
    // Late gradients: every rank draws the same times; each releases its own servers.
    const uint32_t servers = m_workloads.GetTopology().GetNServers();
    m_release.Hold(servers,
                   false,
                   m_stragglers,
                   m_stragglerDelay,
                   nullptr,
                   MakeCallback(&AllReduceController::ReleaseDistributedGradient, this));
    std::vector<bool> late(servers, false);
    for (uint32_t s = 0; s < servers; ++s)
    {
        late[s] = m_release.GetReadyTimes()[s] > 0;
    }
    m_deadline = Simulator::Schedule(m_stallTimeout + Seconds(m_release.GetLastRelease()),
                                     &AllReduceController::MissDeadline,
                                     this);
    Apply(m_driver.Begin(late));
}

void
AllReduceController::ReleaseDistributedGradient(uint32_t server)
{
    if (!m_ended && m_apps[server]) // this rank's server
    {
        Apply(m_driver.GradientReady(server));
    }
}

void
AllReduceController::Apply(const DistributedDriver::Actions& actions)
{
    for (uint32_t w : actions.start)
    {
        StartDistributedTransfer(w);
    }
    for (auto [to, notice] : actions.send)
    {
        if (notice.kind == DistributedNotice::END)
        {
            m_stopAt = m_stopAt.IsZero() ? Simulator::Now() + m_endMargin : m_stopAt;
            notice.value = static_cast<uint64_t>(m_stopAt.GetNanoSeconds());
        }
        m_apps[notice.from]->SendNotice(m_addresses[to], m_noticePort, notice.Serialize());
    }
    if (!actions.ended.empty() && m_stopAt.IsZero()) // the coordinator told itself
    {
        m_stopAt = Simulator::Now() + m_endMargin;
    }
    m_endedNodes += static_cast<uint32_t>(actions.ended.size());
    if (!m_ended && !actions.ended.empty() &&
        m_endedNodes >= m_driver.GetLocalEndpoints().size())
    {
        End(m_driver.AreLocalReceptionsDone()
                ? ""
                : "the end was announced before every transfer to this rank's nodes arrived");
    }
}

void
AllReduceController::StartDistributedTransfer(uint32_t workload)
{
    const Workload& w = m_workloads.Get(workload);
    const double now = Elapsed();
    m_result.transferStart[workload] = now;
    m_result.payloadBytes += m_layout.GetSize(w.chunk, w.piece) * sizeof(float);
    double& roundStart = m_result.roundStart[m_roundOf[workload]];
    roundStart = roundStart < 0 ? now : std::min(roundStart, now);
    m_transferStarted(workload);
    m_apps[w.src]->StartTransfer(workload, m_addresses[w.dst], m_ports[workload]);
}

void
AllReduceController::FinishDistributedTransfer(uint32_t workload)
{
    if (m_ended || m_result.transferEnd[workload] >= 0)
    {
        return;
    }
    const double now = Elapsed();
    m_result.transferEnd[workload] = now;
    ++m_result.transfersFinished;
    m_result.completionTime = std::max(m_result.completionTime, now);
    double& roundEnd = m_result.roundEnd[m_roundOf[workload]];
    roundEnd = std::max(roundEnd, now);
    m_transferFinished(workload);
    Apply(m_driver.Finished(workload));
}

void
AllReduceController::NotifyNotice(uint32_t node, const std::vector<uint8_t>& bytes)
{
    DistributedNotice notice;
    if (!m_distributed || m_ended || !DistributedNotice::Deserialize(bytes, notice))
    {
        return;
    }
    if (notice.kind == DistributedNotice::END)
    {
        const Time stopAt = NanoSeconds(static_cast<int64_t>(notice.value));
        if (stopAt < Simulator::Now())
        {
            End("END reached " + m_workloads.GetTopology().GetNodeName(node) + " after the "
                "time every rank stops at; raise EndMargin (" +
                std::to_string(m_endMargin.GetSeconds()) + " s)");
            return;
        }
        m_stopAt = stopAt;
    }
    Apply(m_driver.Receive(node, notice));
}

void
AllReduceController::MissDeadline()
{
    if (m_ended)
    {
        Simulator::Stop(); // finished here, and END said to stop later: stop with every rank
        return;
    }
    // Every rank reaches this at the same simulated time: none waits for another.
    m_result.stalled = true;
    const std::string report =
        "not finished " + std::to_string(m_stallTimeout.GetSeconds()) + " s after the start "
        "(in a distributed run the deadline every rank stops at, StallTimeout): " +
        std::to_string(m_result.transfersFinished) + " of the " +
        std::to_string(m_driver.CountLocalReceptions()) + " transfers to this rank's nodes "
        "arrived";
    m_stall(report);
    End(report);
}

AllReduceVerification
AllReduceController::Verify() const
{
    // Distributed: only this rank's servers have an application here, and are checked.
    return VerifyAllReduce(m_apps,
                           m_apps.empty() ? 0 : m_workloads.GetTopology().GetNServers(),
                           m_layout);
}

} // namespace ns3
