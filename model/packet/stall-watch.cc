/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "stall-watch.h"

#include "ns3/simulator.h"

#include <sstream>

namespace ns3
{

void
StallWatch::SetWorkloads(const WorkloadSet& planned, Callback<bool, uint32_t> linkUp)
{
    m_planned = &planned;
    m_linkUp = linkUp;
}

void
StallWatch::Start(const PacketSchedulerState& state,
                  const Time& timeout,
                  Callback<Time> waitMore,
                  Callback<void> stalled)
{
    m_check.Cancel();
    m_state = &state;
    m_timeout = &timeout;
    m_waitMore = waitMore;
    m_stalled = stalled;
    m_origin = Simulator::Now();
    m_lastProgress = Simulator::Now();
    m_check = Simulator::Schedule(*m_timeout, &StallWatch::Check, this);
}

void
StallWatch::NotifyProgress()
{
    m_lastProgress = Simulator::Now();
}

void
StallWatch::Stop()
{
    m_check.Cancel();
}

void
StallWatch::Forget()
{
    Stop();
    m_state = nullptr;
    m_planned = nullptr;
    m_timeout = nullptr;
    m_linkUp = MakeNullCallback<bool, uint32_t>();
    m_waitMore = MakeNullCallback<Time>();
    m_stalled = MakeNullCallback<void>();
}

void
StallWatch::Check()
{
    const Time idle = Simulator::Now() - m_lastProgress;
    if (idle < *m_timeout)
    {
        m_check = Simulator::Schedule(*m_timeout - idle, &StallWatch::Check, this);
        return;
    }
    const Time wait = m_waitMore();
    if (!wait.IsStrictlyNegative())
    {
        m_check = Simulator::Schedule(wait, &StallWatch::Check, this);
        return;
    }
    m_stalled();
}

const WorkloadSet&
StallWatch::GetWorkloads() const
{
    return m_state ? m_state->GetWorkloads() : *m_planned;
}

std::string
StallWatch::Describe(uint32_t workload) const
{
    return GetWorkloads().Describe(workload);
}

int64_t
StallWatch::FindDownLink(uint32_t workload) const
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
StallWatch::DescribeWithLinks(uint32_t workload) const
{
    std::string out = Describe(workload);
    const int64_t down = FindDownLink(workload);
    if (down >= 0)
    {
        const TopologyLink& l = m_planned->GetTopology().GetLink(static_cast<uint32_t>(down));
        out += "; link " + std::to_string(down) + " (" + std::to_string(l.a) + "-" +
               std::to_string(l.b) + ") on its path is down";
    }
    else if (!m_linkUp.IsNull())
    {
        out += "; every link on its path is up";
    }
    return out;
}

std::string
StallWatch::Report(uint32_t finished, bool online) const
{
    const std::vector<uint32_t>& inFlight = m_state->GetStarted();
    std::ostringstream os;
    os << "stall: no data arrived for " << m_timeout->GetSeconds() << " s (since t="
       << (m_lastProgress - m_origin).GetSeconds() << " s); " << finished << " of "
       << m_planned->GetN() << " transfers finished, " << inFlight.size() << " in flight";
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
        if (online && stuckOnDownLink && m_state->FindUpPath(wl.src, wl.dst).empty())
        {
            const Topology& topo = m_planned->GetTopology();
            os << "; no path from " << topo.GetNodeName(wl.src) << " to "
               << topo.GetNodeName(wl.dst) << " over the links that are up";
        }
    }
    return os.str();
}

} // namespace ns3
