/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-controller.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/replay-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/size-limits.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceController");

NS_OBJECT_ENSURE_REGISTERED(AllReduceController);

TypeId
AllReduceController::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AllReduceController")
            .SetParent<Object>()
            .SetGroupName("AllReduce")
            .AddConstructor<AllReduceController>()
            .AddAttribute("Mode",
                          "barrier: round t+1 starts when round t has finished; async: a "
                          "workload starts once its dependencies are done and its links free.",
                          EnumValue(AllReduceController::BARRIER),
                          MakeEnumAccessor(&AllReduceController::m_mode),
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
                          MakeEnumAccessor(&AllReduceController::m_connections),
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
                          MakeTimeChecker(Seconds(0)))
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
                          MakePointerChecker<RandomVariableStream>())
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
    return tid;
}

AllReduceController::AllReduceController()
    : m_stragglerChoice(CreateObject<UniformRandomVariable>())
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
    m_stallCheck.Cancel();
    m_begin.Cancel();
    for (EventId& e : m_releases)
    {
        e.Cancel();
    }
    m_apps.clear();
    m_scheduler = nullptr;
    m_state.reset();
    m_linkUp = MakeNullCallback<bool, uint32_t>();
    m_route = MakeNullCallback<void, uint32_t>();
    m_monitor = nullptr;
    if (m_sharedLinks && !m_ended && m_state)
    {
        m_sharedLinks->RemoveWaiter(m_waiterKey);
    }
    m_sharedLinks = nullptr;
    Object::DoDispose();
}

void
AllReduceController::Setup(const WorkloadSet& workloads,
                           const Schedule& schedule,
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
    Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
    replay->SetAttribute("Order", StringValue(m_mode == BARRIER ? "rounds" : "list"));
    replay->SetPlan(Plan{workloads, schedule});
    Adopt(workloads, apps, addresses);
    replay->Prepare(m_workloads); // this copy lives as long as the run, as Prepare asks
    m_schedule = schedule;
    m_scheduler = replay;
    m_online = false;
    ScheduleBegin();
}

void
AllReduceController::Setup(const WorkloadSet& workloads,
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
    Adopt(workloads, apps, addresses);
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
AllReduceController::Adopt(const WorkloadSet& workloads,
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
        if (endpoint != static_cast<bool>(apps[node]))
        {
            throw std::invalid_argument(
                "AllReduceController::Setup: " + topo.GetNodeName(node) +
                (endpoint ? " needs an application" : " does not aggregate, so it takes no "
                                                      "application (give a null one)"));
        }
    }
    if (m_gradientBytes == 0 || m_gradientBytes % sizeof(float) != 0)
    {
        throw std::invalid_argument("GradientBytes must be a multiple of 4 (float32 values), "
                                    "got " + std::to_string(m_gradientBytes));
    }
    if (!m_readyTimesGiven.empty() && m_readyTimesGiven.size() != n)
    {
        throw std::invalid_argument("SetGradientReadyTimes gave " +
                                    std::to_string(m_readyTimesGiven.size()) +
                                    " times; give one per server (" + std::to_string(n) + ")");
    }
    if (m_stragglers > n)
    {
        throw std::invalid_argument("Stragglers is " + std::to_string(m_stragglers) +
                                    ", but there are " + std::to_string(n) + " servers");
    }
    // Every server holds its vector, and verification the exact sum.
    CheckMemory("a gradient of " + std::to_string(m_gradientBytes) + " bytes on each of " +
                    std::to_string(n) + " servers" +
                    (aggregators > 0 ? " and " + std::to_string(aggregators) +
                                           " aggregating switches"
                                     : std::string()),
                SaturatingMultiply(m_gradientBytes, uint64_t{n} + aggregators + 2),
                "use a smaller gradient");
    GradientLayout layout(m_gradientBytes / sizeof(float), n, workloads.GetPieces());

    // A connection's source port names its flow, so that a flow route can pin its path. Per
    // transfer, every workload has a port of its own; persistent connections take theirs as
    // they open, never more than the workloads their server sends.
    std::vector<uint16_t> sourcePort(workloads.GetN(), 0);
    if (m_connections == PER_TRANSFER)
    {
        std::vector<uint32_t> nextPort(nodes, m_firstSourcePort);
        for (uint32_t id = 0; id < workloads.GetN(); ++id)
        {
            const uint32_t src = workloads.Get(id).src;
            if (nextPort[src] > std::numeric_limits<uint16_t>::max())
            {
                throw std::invalid_argument(
                    topo.GetNodeName(src) + " sends more than " +
                    std::to_string(65536 - m_firstSourcePort) +
                    " workloads, one port each; use fewer pieces, a smaller topology or "
                    "persistent connections");
            }
            sourcePort[id] = static_cast<uint16_t>(nextPort[src]++);
        }
    }
    m_nextPort.assign(nodes, m_firstSourcePort);
    m_open.clear();
    m_openBetween.clear();
    m_connectionOf.assign(workloads.GetN(), NO_INDEX);
    m_layout = layout;
    m_workloads = workloads;
    m_sourcePort = std::move(sourcePort);
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

void
AllReduceController::ScheduleBegin()
{
    m_warmUpTimes.clear();
    m_begin = Simulator::Schedule(m_startTime, &AllReduceController::Begin, this);
    m_origin = Simulator::Now() + m_startTime;
}

void
AllReduceController::SetLinkStateCallback(Callback<bool, uint32_t> linkUp)
{
    m_linkUp = linkUp;
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
    for (size_t s = 0; s < times.size(); ++s)
    {
        if (times[s].IsStrictlyNegative())
        {
            throw std::invalid_argument("the gradient of server " + std::to_string(s) +
                                        " cannot be ready before the start (" +
                                        std::to_string(times[s].GetSeconds()) + " s)");
        }
    }
    const uint32_t servers = m_apps.empty() ? 0 : m_workloads.GetTopology().GetNServers();
    if (servers > 0 && !times.empty() && times.size() != servers)
    {
        throw std::invalid_argument("SetGradientReadyTimes gave " + std::to_string(times.size()) +
                                    " times; give one per server (" + std::to_string(servers) +
                                    ")");
    }
    m_readyTimesGiven = times;
}

int64_t
AllReduceController::AssignStreams(int64_t stream)
{
    m_stragglerChoice->SetStream(stream);
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
    return m_readyAt;
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
    return m_sourcePort.at(workload);
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
    const uint32_t nw = m_workloads.GetN();
    m_origin = Simulator::Now();
    m_state = std::make_unique<PacketSchedulerState>(m_workloads);
    m_result = AllReduceRunResult{};
    m_result.warmUpTimes = m_warmUpTimes;
    m_result.transferStart.assign(nw, -1);
    m_result.transferEnd.assign(nw, -1);
    m_roundOf.assign(nw, NO_INDEX);
    m_roundLeft.clear();
    m_rerouted.assign(nw, 0);
    if (m_monitor)
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
        m_roundLeft.assign(nr, 0);
        m_result.roundStart.assign(nr, -1);
        m_result.roundEnd.assign(nr, -1);
        for (uint32_t t = 0; t < nr; ++t)
        {
            for (uint32_t w : m_schedule.rounds[t])
            {
                m_roundOf[w] = t;
                ++m_roundLeft[t];
            }
        }
    }
    m_ended = false;
    m_heldLinks.assign(nw, {});
    m_bytesLeft = 0;
    for (uint32_t w = 0; w < nw; ++w)
    {
        m_bytesLeft += GetBytes(w);
    }
    if (m_sharedLinks)
    {
        m_waiterKey = m_sharedLinks->AddWaiter(
            MakeCallback(&AllReduceController::GetBytesLeft, this),
            MakeCallback(&AllReduceController::DecideOnFreedLinks, this));
    }
    m_lastProgress = Simulator::Now();
    m_stallCheck = Simulator::Schedule(m_stallTimeout, &AllReduceController::CheckStall, this);
    if (nw == 0)
    {
        End("");
        return;
    }
    HoldStragglers();
    m_started(static_cast<uint32_t>(m_warmUpTimes.size()));
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
AllReduceController::HoldStragglers()
{
    const uint32_t n = m_workloads.GetTopology().GetNServers();
    m_readyAt.assign(n, 0.0);
    m_lastRelease = 0;
    m_releases.clear();
    if (IsWarmUp())
    {
        // A warm-up runs with every gradient ready; the random streams keep their draws for
        // the measured AllReduce.
        return;
    }
    if (!m_readyTimesGiven.empty())
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            m_readyAt[s] = m_readyTimesGiven[s].GetSeconds();
        }
    }
    else if (m_stragglers > 0)
    {
        // A partial Fisher-Yates shuffle picks the late servers.
        std::vector<uint32_t> servers(n);
        std::iota(servers.begin(), servers.end(), 0);
        for (uint32_t i = 0; i < m_stragglers; ++i)
        {
            const uint32_t j = m_stragglerChoice->GetInteger(i, n - 1);
            std::swap(servers[i], servers[j]);
            m_readyAt[servers[i]] = std::max(0.0, m_stragglerDelay->GetValue());
        }
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        if (m_readyAt[s] > 0)
        {
            m_state->HoldServer(s);
            m_lastRelease = std::max(m_lastRelease, m_readyAt[s]);
            m_releases.push_back(Simulator::Schedule(Seconds(m_readyAt[s]),
                                                     &AllReduceController::ReleaseGradient,
                                                     this,
                                                     s));
        }
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
    m_lastProgress = Simulator::Now();
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
    try
    {
        m_scheduler->SelectRound(*m_state);
    }
    catch (const std::exception& e)
    {
        End("at t=" + std::to_string(Elapsed()) + " s the scheduler '" + m_scheduler->GetName() +
            "' failed: " + e.what());
        return;
    }
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
        if (!join)
        {
            m_roundLeft.push_back(0);
            m_result.roundStart.push_back(-1);
            m_result.roundEnd.push_back(-1);
            m_schedule.rounds.emplace_back();
        }
        const auto round = static_cast<uint32_t>(m_roundLeft.size() - 1);
        m_roundLeft[round] += static_cast<uint32_t>(started.size());
        m_schedule.rounds[round].insert(m_schedule.rounds[round].end(),
                                        started.begin(),
                                        started.end());
        for (uint32_t w : started)
        {
            m_roundOf[w] = round;
        }
    }
    for (uint32_t w : started)
    {
        double& roundStart = m_result.roundStart[m_roundOf[w]];
        roundStart = roundStart < 0 ? Elapsed() : roundStart;
        StartTransfer(w);
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
        m_heldLinks[workload] = w.links;
    }
    m_apps[w.src]->StartTransfer(workload, m_addresses[w.dst], m_sourcePort[workload]);
}

bool
AllReduceController::PickConnection(uint32_t workload)
{
    const Workload& w = m_state->GetWorkloads().Get(workload);
    std::vector<uint32_t>& between = m_openBetween[{w.src, w.dst}];
    uint32_t pick = NO_INDEX;
    for (uint32_t c : between)
    {
        // A connection that went through a retransmission timeout carries a one-segment
        // window and a backed-off timer: it finishes what it carries, later transfers go on
        // another.
        if (!m_open[c].retired && m_apps[w.src]->HasTimedOut(m_open[c].port))
        {
            m_open[c].retired = true;
        }
        if (m_open[c].retired)
        {
            continue;
        }
        if (m_open[c].path == w.path)
        {
            pick = c; // on the workload's path already: the usual case
            break;
        }
        if (m_open[c].inFlight == 0 && pick == NO_INDEX)
        {
            pick = c; // idle: it can take another path
        }
    }
    if (pick == NO_INDEX)
    {
        if (m_nextPort[w.src] > std::numeric_limits<uint16_t>::max())
        {
            End("at t=" + std::to_string(Elapsed()) + " s " +
                m_workloads.GetTopology().GetNodeName(w.src) +
                " has no source port left for a new connection (from FirstSourcePort " +
                std::to_string(m_firstSourcePort) + "): " + Describe(workload));
            return false;
        }
        pick = static_cast<uint32_t>(m_open.size());
        m_open.push_back(Connection{static_cast<uint16_t>(m_nextPort[w.src]++), {}, 0});
        between.push_back(pick);
        NS_LOG_INFO("connection " << pick << " opens from port " << m_open[pick].port << " for "
                                  << Describe(workload));
    }
    Connection& c = m_open[pick];
    ++c.inFlight;
    m_connectionOf[workload] = pick;
    m_sourcePort[workload] = c.port;
    if (c.path != w.path)
    {
        c.path = w.path;
        if (!m_route.IsNull())
        {
            m_route(workload);
        }
    }
    return true;
}

void
AllReduceController::NotifyProgress(uint64_t /* bytes */)
{
    m_lastProgress = Simulator::Now();
}

void
AllReduceController::NotifyTransferFinished(uint32_t workload)
{
    NS_LOG_FUNCTION(this << workload);
    if (m_ended || m_state->GetStatus(workload) != WorkloadStatus::STARTED)
    {
        return;
    }
    m_state->Finish(workload);
    m_bytesLeft -= GetBytes(workload);
    if (m_connectionOf[workload] != NO_INDEX)
    {
        --m_open[m_connectionOf[workload]].inFlight;
    }
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
        m_result.roundEnd[t] = now;
        m_roundFinished(t, Seconds(now - m_result.roundStart[t]));
        for (const auto& app : m_apps)
        {
            if (app) // null for switches that do not aggregate
            {
                app->NotifyRoundFinished(t);
            }
        }
    }
    if (m_state->IsDone())
    {
        m_result.completionTime = now;
        if (IsWarmUp())
        {
            // Not from inside the receiver's callback: the next AllReduce resets its vector.
            m_warmUpTimes.push_back(now);
            m_stallCheck.Cancel();
            if (m_sharedLinks)
            {
                m_sharedLinks->RemoveWaiter(m_waiterKey);
            }
            m_begin = Simulator::ScheduleNow(&AllReduceController::BeginAfterWarmUp, this);
            return;
        }
        End("");
        return;
    }
    Decide();
}

bool
AllReduceController::IsWarmUp() const
{
    return m_warmUpTimes.size() < m_warmUps;
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
            "' failed to prepare again after a warm-up: " + e.what());
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
            " s the connection failed: " + DescribeWithLinks(workload));
    }
}

void
AllReduceController::NotifyConnectionBroken(uint32_t node, uint16_t sourcePort)
{
    NS_LOG_FUNCTION(this << node << sourcePort);
    if (m_ended)
    {
        return;
    }
    for (const auto& [ends, connections] : m_openBetween)
    {
        for (uint32_t c : connections)
        {
            if (ends.first == node && m_open[c].port == sourcePort)
            {
                m_open[c].retired = true;
            }
        }
    }
    for (uint32_t w : m_state->GetStarted())
    {
        if (m_workloads.Get(w).src == node && m_sourcePort[w] == sourcePort)
        {
            End("at t=" + std::to_string(Elapsed()) + " s TCP gave up on the connection from " +
                m_workloads.GetTopology().GetNodeName(node) + " port " +
                std::to_string(sourcePort) + " after its retransmissions (the application's "
                "DataRetries) went unanswered: " + DescribeWithLinks(w));
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
        // A connection over the link may be left with segments TCP retransmits with backed-off
        // timeouts: it finishes the transfers it carries (routed around online), then rests.
        const Topology& topo = m_workloads.GetTopology();
        for (Connection& c : m_open)
        {
            for (size_t i = 0; !c.retired && i + 1 < c.path.size(); ++i)
            {
                c.retired = topo.FindLink(c.path[i], c.path[i + 1]) == int64_t{link};
            }
        }
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
            path = planned.path; // its own path is up again
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
        // A workload in flight takes its connection along (all in flight on one connection
        // share its path, so they all move the same way); the others are routed as they start.
        if (status == WorkloadStatus::STARTED)
        {
            if (m_connectionOf[id] != NO_INDEX)
            {
                m_open[m_connectionOf[id]].path = path;
            }
            if (!m_route.IsNull())
            {
                m_route(id);
            }
        }
    }
}

std::string
AllReduceController::Describe(uint32_t workload) const
{
    const Workload& w = GetWorkloads().Get(workload);
    std::ostringstream os;
    os << "workload " << w.id << " (" << ToString(w.phase) << ", chunk " << w.chunk << ", piece "
       << w.piece << ", " << m_workloads.GetTopology().GetNodeName(w.src) << " -> "
       << m_workloads.GetTopology().GetNodeName(w.dst) << ", path";
    for (size_t i = 0; i < w.path.size(); ++i)
    {
        os << (i ? "-" : " ") << w.path[i];
    }
    os << ")";
    return os.str();
}

int64_t
AllReduceController::FindDownLink(uint32_t workload) const
{
    if (!m_linkUp.IsNull())
    {
        for (uint32_t directed : GetWorkloads().Get(workload).links)
        {
            if (!m_linkUp(directed / 2))
            {
                return directed / 2;
            }
        }
    }
    return -1;
}

std::string
AllReduceController::DescribeWithLinks(uint32_t workload) const
{
    std::string out = Describe(workload);
    const int64_t down = FindDownLink(workload);
    if (down >= 0)
    {
        const TopologyLink& l = m_workloads.GetTopology().GetLink(static_cast<uint32_t>(down));
        out += "; link " + std::to_string(down) + " (" + std::to_string(l.a) + "-" +
               std::to_string(l.b) + ") on its path is down";
    }
    else if (!m_linkUp.IsNull())
    {
        out += "; every link on its path is up";
    }
    return out;
}

void
AllReduceController::CheckStall()
{
    if (m_ended)
    {
        return;
    }
    const Time idle = Simulator::Now() - m_lastProgress;
    if (idle < m_stallTimeout)
    {
        m_stallCheck = Simulator::Schedule(m_stallTimeout - idle,
                                           &AllReduceController::CheckStall,
                                           this);
        return;
    }
    const std::vector<uint32_t>& inFlight = m_state->GetStarted();
    // A server's gradient still to come is not a stall: wait for it.
    if (inFlight.empty() && m_lastRelease > Elapsed())
    {
        m_stallCheck = Simulator::Schedule(Seconds(m_lastRelease - Elapsed()) + m_stallTimeout,
                                           &AllReduceController::CheckStall,
                                           this);
        return;
    }
    // TCP backing off after losses is not stuck: wait while a transfer whose path is up has a
    // retransmission still to come. A path with a down link cannot recover, and a TCP that gave
    // up sends nothing more, so those end the wait.
    Time retry = Seconds(0);
    for (uint32_t w : inFlight)
    {
        if (FindDownLink(w) < 0)
        {
            const uint32_t src = GetWorkloads().Get(w).src;
            retry = Max(retry, GetApplication(src)->GetRetransmissionDeadline(w));
        }
    }
    if (retry >= Simulator::Now())
    {
        m_stallCheck = Simulator::Schedule(retry - Simulator::Now() + m_stallTimeout / 10,
                                           &AllReduceController::CheckStall,
                                           this);
        return;
    }
    std::ostringstream os;
    os << "stall: no data arrived for " << m_stallTimeout.GetSeconds() << " s (since t="
       << (m_lastProgress - m_origin).GetSeconds() << " s); " << m_result.transfersFinished
       << " of " << m_workloads.GetN() << " transfers finished, " << inFlight.size()
       << " in flight";
    // Name a stuck workload, preferring one whose path crosses a link that is down: one in
    // flight, else one ready that cannot start.
    int64_t stuck = -1;
    bool stuckOnDownLink = false;
    for (const auto* list : {&inFlight, &m_state->GetReady()})
    {
        for (uint32_t w : *list)
        {
            const bool down = FindDownLink(w) >= 0;
            if (stuck < 0 || (down && !stuckOnDownLink))
            {
                stuck = w;
                stuckOnDownLink = down;
            }
        }
        if (stuck >= 0)
        {
            break;
        }
    }
    if (stuck >= 0)
    {
        const auto w = static_cast<uint32_t>(stuck);
        os << "; stuck: " << DescribeWithLinks(w);
        const Workload& wl = GetWorkloads().Get(w);
        if (m_online && stuckOnDownLink && m_state->FindUpPath(wl.src, wl.dst).empty())
        {
            os << "; no path from " << m_workloads.GetTopology().GetNodeName(wl.src) << " to "
               << m_workloads.GetTopology().GetNodeName(wl.dst)
               << " over the links that are up";
        }
    }
    m_result.stalled = true;
    const std::string report = os.str();
    m_stall(report);
    End(report);
}

void
AllReduceController::End(const std::string& error)
{
    NS_LOG_FUNCTION(this << error);
    m_ended = true;
    m_stallCheck.Cancel();
    for (EventId& e : m_releases)
    {
        e.Cancel();
    }
    m_result.finished = error.empty();
    m_result.error = error.empty() || !IsWarmUp()
                         ? error
                         : "in warm-up AllReduce " + std::to_string(m_warmUpTimes.size() + 1) +
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
        m_collectiveFinished(Simulator::Now() - m_origin);
        for (const auto& app : m_apps)
        {
            if (app)
            {
                app->NotifyCollectiveFinished(!m_stopWhenFinished);
            }
        }
    }
    else
    {
        NS_LOG_WARN(error);
    }
    m_runEnded(error);
    // Connections still closing (FIN, TIME_WAIT) are of no interest: end the simulation here.
    if (m_stopWhenFinished)
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

AllReduceVerification
AllReduceController::Verify() const
{
    AllReduceVerification v;
    const uint64_t p = m_layout.GetNValues();
    const uint32_t n = m_apps.empty() ? 0 : m_workloads.GetTopology().GetNServers();
    std::vector<double> sum(p, 0.0);
    std::vector<double> absSum(p, 0.0);
    v.exact = true;
    for (uint32_t s = 0; s < n; ++s)
    {
        const std::vector<float> g = m_apps[s]->MakeInitialGradient();
        v.exact = v.exact && m_apps[s]->GetValues() == GRADIENT_INTEGER;
        for (uint64_t i = 0; i < p; ++i)
        {
            sum[i] += g[i];
            absSum[i] += std::fabs(g[i]);
        }
    }
    // Integer inputs up to 64 in magnitude sum exactly in float32 below 2^24 / 64 servers.
    v.exact = v.exact && n * 64.0 < double(1 << 24);
    // Float inputs: any order of N−1 float32 additions errs by at most (N−1)·2^-24·Σ|v|; allow 2×.
    const double unit = n > 1 ? (n - 1) * std::ldexp(1.0, -23) : 0.0;
    v.verified = true;
    for (uint32_t s = 0; s < n; ++s)
    {
        const std::vector<float>& x = m_apps[s]->GetVector();
        for (uint64_t i = 0; i < p; ++i)
        {
            const double err = std::fabs(double(x[i]) - sum[i]);
            v.maxError = std::max(v.maxError, err);
            const bool ok = v.exact ? err == 0.0 : err <= unit * absSum[i];
            if (!ok && v.verified)
            {
                v.verified = false;
                v.server = s;
                v.index = i;
                v.expected = sum[i];
                v.got = x[i];
            }
        }
    }
    std::ostringstream os;
    if (v.verified)
    {
        os << "verified: true (" << n << " servers x " << p << " values, "
           << (v.exact ? "exact" : "within (N-1)*2^-23*sum|v|") << ")";
    }
    else
    {
        os << "verified: false: server " << v.server << " index " << v.index << " holds "
           << v.got << ", the sum is " << v.expected;
    }
    v.message = os.str();
    return v;
}

} // namespace ns3
