/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-controller.h"

#include "size-limits.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <limits>
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
                          "When the first transfers start.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&AllReduceController::m_startTime),
                          MakeTimeChecker(Seconds(0)))
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
            .AddTraceSource("Stall",
                            "The run was ended for lack of progress (the report).",
                            MakeTraceSourceAccessor(&AllReduceController::m_stall),
                            "ns3::AllReduceController::StallTracedCallback");
    return tid;
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
    m_stallCheck.Cancel();
    m_begin.Cancel();
    m_apps.clear();
    m_linkUp = MakeNullCallback<bool, uint32_t>();
    Object::DoDispose();
}

void
AllReduceController::Setup(const WorkloadSet& workloads,
                           const Schedule& schedule,
                           const std::vector<Ptr<AllReduceApplication>>& apps,
                           const std::vector<Ipv4Address>& addresses)
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = workloads.GetTopology().GetNServers();
    if (apps.size() != n || addresses.size() != n)
    {
        throw std::invalid_argument("AllReduceController::Setup needs one application and one "
                                    "address per server (" + std::to_string(n) + "), got " +
                                    std::to_string(apps.size()) + " and " +
                                    std::to_string(addresses.size()));
    }
    const ScheduleCheck check = ValidateSchedule(workloads, schedule);
    if (!check.valid)
    {
        throw std::invalid_argument("the schedule is not valid for its workloads, so it is not "
                                    "run: " + check.error);
    }
    if (m_gradientBytes == 0 || m_gradientBytes % sizeof(float) != 0)
    {
        throw std::invalid_argument("GradientBytes must be a multiple of 4 (float32 values), "
                                    "got " + std::to_string(m_gradientBytes));
    }
    // Every server holds its vector, and verification the exact sum.
    CheckMemory("a gradient of " + std::to_string(m_gradientBytes) + " bytes on each of " +
                    std::to_string(n) + " servers",
                SaturatingMultiply(m_gradientBytes, uint64_t{n} + 2),
                "use a smaller gradient");
    m_layout = GradientLayout(m_gradientBytes / sizeof(float), n, workloads.GetPieces());
    m_workloads = workloads;
    m_schedule = schedule;
    m_apps = apps;
    m_addresses = addresses;

    // Every workload sends from a port of its own, so that a flow route can pin its path.
    std::vector<uint32_t> nextPort(n, FIRST_SOURCE_PORT);
    m_sourcePort.assign(m_workloads.GetN(), 0);
    for (uint32_t id = 0; id < m_workloads.GetN(); ++id)
    {
        const uint32_t src = m_workloads.Get(id).src;
        if (nextPort[src] > std::numeric_limits<uint16_t>::max())
        {
            throw std::invalid_argument(
                "server " + std::to_string(src) + " sends more than " +
                std::to_string(65536 - FIRST_SOURCE_PORT) +
                " workloads, one port each; use fewer pieces or a smaller topology");
        }
        m_sourcePort[id] = static_cast<uint16_t>(nextPort[src]++);
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        m_apps[s]->SetController(this, s);
    }
    m_begin.Cancel();
    m_begin = Simulator::Schedule(m_startTime, &AllReduceController::Begin, this);
}

void
AllReduceController::SetLinkStateCallback(Callback<bool, uint32_t> linkUp)
{
    m_linkUp = linkUp;
}

const WorkloadSet&
AllReduceController::GetWorkloads() const
{
    return m_workloads;
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

Ptr<AllReduceApplication>
AllReduceController::GetApplication(uint32_t server) const
{
    return m_apps.at(server);
}

Ipv4Address
AllReduceController::GetServerAddress(uint32_t server) const
{
    return m_addresses.at(server);
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
    const uint32_t nr = m_schedule.GetNRounds();
    m_result = AllReduceRunResult{};
    m_result.roundStart.assign(nr, -1);
    m_result.roundEnd.assign(nr, -1);
    m_result.transferStart.assign(nw, -1);
    m_result.transferEnd.assign(nw, -1);
    m_roundOf.assign(nw, 0);
    m_position.assign(nw, 0);
    m_order.clear();
    m_roundLeft.assign(nr, 0);
    for (uint32_t t = 0; t < nr; ++t)
    {
        for (uint32_t w : m_schedule.rounds[t])
        {
            m_roundOf[w] = t;
            m_position[w] = static_cast<uint32_t>(m_order.size());
            m_order.push_back(w);
            ++m_roundLeft[t];
        }
    }
    m_depsLeft.assign(nw, 0);
    for (uint32_t w = 0; w < nw; ++w)
    {
        m_depsLeft[w] = static_cast<uint32_t>(m_workloads.Get(w).deps.size());
    }
    m_linkBusy.assign(m_workloads.GetNDirectedLinks(), false);
    m_ready.clear();
    m_inFlight.clear();
    m_round = 0;
    m_ended = false;
    m_lastProgress = Simulator::Now();
    m_stallCheck = Simulator::Schedule(m_stallTimeout, &AllReduceController::CheckStall, this);
    if (nw == 0)
    {
        End("");
        return;
    }
    if (m_mode == BARRIER)
    {
        StartRound();
    }
    else
    {
        for (uint32_t w = 0; w < nw; ++w)
        {
            if (m_depsLeft[w] == 0)
            {
                m_ready.insert(m_position[w]);
            }
        }
        StartReady();
    }
}

void
AllReduceController::StartTransfer(uint32_t workload)
{
    const Workload& w = m_workloads.Get(workload);
    for (uint32_t link : w.links)
    {
        m_linkBusy[link] = true;
    }
    m_inFlight.insert(workload);
    const double now = Simulator::Now().GetSeconds() - m_startTime.GetSeconds();
    m_result.transferStart[workload] = now;
    const uint32_t t = m_roundOf[workload];
    if (m_result.roundStart[t] < 0)
    {
        m_result.roundStart[t] = now;
    }
    m_result.payloadBytes += m_layout.GetSize(w.chunk, w.piece) * sizeof(float);
    m_transferStarted(workload);
    m_apps[w.src]->StartTransfer(workload, m_addresses[w.dst], m_sourcePort[workload]);
}

void
AllReduceController::StartRound()
{
    NS_LOG_FUNCTION(this << m_round);
    for (uint32_t w : m_schedule.rounds[m_round])
    {
        StartTransfer(w);
    }
}

void
AllReduceController::StartReady()
{
    for (auto it = m_ready.begin(); it != m_ready.end();)
    {
        const uint32_t w = m_order[*it];
        bool free = true;
        for (uint32_t link : m_workloads.Get(w).links)
        {
            free = free && !m_linkBusy[link];
        }
        if (free)
        {
            it = m_ready.erase(it);
            StartTransfer(w);
        }
        else
        {
            ++it;
        }
    }
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
    if (m_ended || m_inFlight.erase(workload) == 0)
    {
        return;
    }
    const double now = Simulator::Now().GetSeconds() - m_startTime.GetSeconds();
    m_result.transferEnd[workload] = now;
    ++m_result.transfersFinished;
    m_transferFinished(workload);
    for (uint32_t link : m_workloads.Get(workload).links)
    {
        m_linkBusy[link] = false;
    }
    const uint32_t t = m_roundOf[workload];
    if (--m_roundLeft[t] == 0)
    {
        m_result.roundEnd[t] = now;
        m_roundFinished(t, Seconds(now - m_result.roundStart[t]));
        for (const auto& app : m_apps)
        {
            app->NotifyRoundFinished(t);
        }
    }
    if (m_result.transfersFinished == m_workloads.GetN())
    {
        m_result.completionTime = now;
        End("");
        return;
    }
    if (m_mode == BARRIER)
    {
        if (m_roundLeft[t] == 0 && t == m_round)
        {
            ++m_round;
            StartRound();
        }
        return;
    }
    for (uint32_t next : m_workloads.GetDependents(workload))
    {
        if (--m_depsLeft[next] == 0)
        {
            m_ready.insert(m_position[next]);
        }
    }
    StartReady();
}

void
AllReduceController::NotifyTransferFailed(uint32_t workload)
{
    NS_LOG_FUNCTION(this << workload);
    if (!m_ended)
    {
        End("at t=" + std::to_string((Simulator::Now() - m_startTime).GetSeconds()) +
            " s the connection failed: " + DescribeWithLinks(workload));
    }
}

std::string
AllReduceController::Describe(uint32_t workload) const
{
    const Workload& w = m_workloads.Get(workload);
    std::ostringstream os;
    os << "workload " << w.id << " (" << ToString(w.phase) << ", chunk " << w.chunk << ", piece "
       << w.piece << ", server " << w.src << " -> " << w.dst << ", path";
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
        for (uint32_t directed : m_workloads.Get(workload).links)
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
    // TCP backing off after losses is not stuck: wait while a transfer whose path is up has a
    // retransmission still to come. A path with a down link cannot recover, and a TCP that gave
    // up sends nothing more, so those end the wait.
    Time retry = Seconds(0);
    for (uint32_t w : m_inFlight)
    {
        if (FindDownLink(w) < 0)
        {
            const uint32_t src = m_workloads.Get(w).src;
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
       << (m_lastProgress - m_startTime).GetSeconds() << " s); " << m_result.transfersFinished
       << " of " << m_workloads.GetN() << " transfers finished, " << m_inFlight.size()
       << " in flight";
    // Name a stuck workload, preferring one whose path crosses a link that is down.
    int64_t stuck = m_inFlight.empty() ? -1 : *m_inFlight.begin();
    for (uint32_t w : m_inFlight)
    {
        if (FindDownLink(w) >= 0)
        {
            stuck = w;
            break;
        }
    }
    if (stuck >= 0)
    {
        os << "; stuck: " << DescribeWithLinks(static_cast<uint32_t>(stuck));
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
    m_result.finished = error.empty();
    m_result.error = error;
    if (error.empty())
    {
        m_collectiveFinished(Simulator::Now() - m_startTime);
        for (const auto& app : m_apps)
        {
            app->NotifyCollectiveFinished();
        }
    }
    else
    {
        NS_LOG_WARN(error);
    }
    // Connections still closing (FIN, TIME_WAIT) are of no interest: end the simulation here.
    Simulator::Stop();
}

AllReduceVerification
AllReduceController::Verify() const
{
    AllReduceVerification v;
    const uint64_t p = m_layout.GetNValues();
    const uint32_t n = static_cast<uint32_t>(m_apps.size());
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
