/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-scheduler-state.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

namespace ns3
{

namespace
{

/// \return true when workload id carries server's contribution
bool
Carries(const WorkloadSet& workloads, uint32_t id, uint32_t server)
{
    const Workload& w = workloads.GetAll()[id];
    if (w.phase == Phase::GATHER)
    {
        return true; // the whole sum
    }
    return w.carries.Contains(server);
}

} // namespace

PacketSchedulerState::PacketSchedulerState(WorkloadSet workloads)
    : m_workloads(std::move(workloads)),
      m_slots(m_workloads)
{
    const Topology& topo = m_workloads.GetTopology();
    const uint32_t n = m_workloads.GetN();
    const uint32_t links = m_workloads.GetNDirectedLinks();
    m_status.assign(n, WorkloadStatus::WAITING);
    m_pending.assign(n, 0);
    m_lateCarried.assign(n, 0);
    m_ready.Reset(n);
    m_busy.assign(links, 0);
    m_down.assign(links, 0);
    m_others.assign(links, 0);
    m_load.assign(links, 0.0);
    m_rate.assign(links, 1.0);
    m_fromServer = MarkSenderPorts(topo);
    m_serverPorts =
        static_cast<uint32_t>(std::count(m_fromServer.begin(), m_fromServer.end(), 1));
    m_held.assign(topo.GetNServers(), 0);
    for (const Workload& w : m_workloads.GetAll())
    {
        m_pending[w.id] = static_cast<uint32_t>(m_workloads.GetDeps(w.id).size());
        if (m_pending[w.id] == 0)
        {
            PushReady(w.id);
        }
    }
}

const WorkloadSet&
PacketSchedulerState::GetWorkloads() const
{
    return m_workloads;
}

WorkloadStatus
PacketSchedulerState::GetStatus(uint32_t id) const
{
    return m_status.at(id);
}

const std::vector<uint32_t>&
PacketSchedulerState::GetReady() const
{
    return m_ready.Get();
}

const std::vector<uint32_t>&
PacketSchedulerState::GetReadyLog() const
{
    return m_ready.GetLog();
}

const std::vector<uint32_t>&
PacketSchedulerState::GetStarted() const
{
    return m_inFlight;
}

const std::vector<uint32_t>&
PacketSchedulerState::GetFinished() const
{
    return m_finished;
}

uint32_t
PacketSchedulerState::GetRound() const
{
    return m_round;
}

double
PacketSchedulerState::GetTime() const
{
    return m_time;
}

bool
PacketSchedulerState::IsLinkBusy(uint32_t directedLink) const
{
    return m_busy.at(directedLink) != 0 || m_others[directedLink] != 0;
}

bool
PacketSchedulerState::IsLinkDown(uint32_t directedLink) const
{
    return m_down.at(directedLink) != 0;
}

bool
PacketSchedulerState::IsSaturated() const
{
    return m_serverPortsBlocked >= m_serverPorts;
}

double
PacketSchedulerState::GetLinkLoad(uint32_t directedLink) const
{
    return m_load.at(directedLink);
}

double
PacketSchedulerState::GetLinkRate(uint32_t directedLink) const
{
    return m_rate.at(directedLink);
}

bool
PacketSchedulerState::HasBarriers() const
{
    return m_barriers;
}

void
PacketSchedulerState::SetBarriers(bool barriers)
{
    m_barriers = barriers;
}

bool
PacketSchedulerState::CanStart(uint32_t id) const
{
    if (id >= m_status.size() || m_status[id] != WorkloadStatus::READY)
    {
        return false;
    }
    for (uint32_t l : m_workloads.GetAll()[id].links)
    {
        if (IsBlocked(l))
        {
            return false;
        }
    }
    return m_slots.CanStart(id);
}

void
PacketSchedulerState::Start(uint32_t id)
{
    if (!CanStart(id))
    {
        std::string why = "workload " + std::to_string(id);
        if (id >= m_status.size())
        {
            throw std::invalid_argument(why + " does not exist; there are " +
                                        std::to_string(m_status.size()));
        }
        switch (m_status[id])
        {
        case WorkloadStatus::WAITING:
            why += " is not ready (a dependency has not finished or a server's gradient is "
                   "not ready)";
            break;
        case WorkloadStatus::STARTED:
            why += " is already in flight";
            break;
        case WorkloadStatus::DONE:
            why += " has finished already";
            break;
        case WorkloadStatus::READY:
            why = m_slots.CanStart(id) ? why + " needs a directed link that is busy or down"
                                       : m_slots.WhyNot(id);
            break;
        }
        throw std::invalid_argument(why);
    }
    m_ready.Remove(id);
    m_status[id] = WorkloadStatus::STARTED;
    Occupy(id, +1);
    m_slots.Start(id);
    m_inFlight.push_back(id);
    m_newlyStarted.push_back(id);
}

void
PacketSchedulerState::SetTime(double seconds)
{
    m_time = seconds;
}

void
PacketSchedulerState::CountRound()
{
    ++m_round;
}

std::vector<uint32_t>
PacketSchedulerState::TakeStarted()
{
    std::vector<uint32_t> out;
    out.swap(m_newlyStarted);
    return out;
}

void
PacketSchedulerState::Finish(uint32_t id)
{
    if (id >= m_status.size() || m_status[id] != WorkloadStatus::STARTED)
    {
        throw std::invalid_argument("workload " + std::to_string(id) +
                                    " cannot finish: it is not in flight");
    }
    m_status[id] = WorkloadStatus::DONE;
    Occupy(id, -1);
    m_slots.Finish(id);
    m_inFlight.erase(std::find(m_inFlight.begin(), m_inFlight.end(), id));
    m_finished.push_back(id);
    for (uint32_t d : m_workloads.GetDependents(id))
    {
        Release(d);
    }
}

void
PacketSchedulerState::SetLinkDown(uint32_t link, bool down)
{
    if (2 * uint64_t{link} + 1 >= m_down.size())
    {
        throw std::out_of_range("link " + std::to_string(link) + " does not exist; there are " +
                                std::to_string(m_down.size() / 2));
    }
    for (uint32_t l : {2 * link, 2 * link + 1})
    {
        if (m_down[l] != static_cast<uint8_t>(down))
        {
            Block(l, down ? +1 : -1);
            m_down[l] = down;
        }
    }
}

void
PacketSchedulerState::SetSharedLinkUse(const std::vector<uint32_t>& inFlight)
{
    if (inFlight.size() != m_others.size())
    {
        throw std::invalid_argument("SetSharedLinkUse: " + std::to_string(inFlight.size()) +
                                    " counts for " + std::to_string(m_others.size()) +
                                    " directed links");
    }
    for (uint32_t l = 0; l < inFlight.size(); ++l)
    {
        const uint8_t others = inFlight[l] > m_busy[l];
        if (m_others[l] != others)
        {
            Block(l, others ? +1 : -1);
            m_others[l] = others;
        }
    }
}

void
PacketSchedulerState::SetLinkLoads(std::vector<double> load)
{
    if (load.size() != m_load.size())
    {
        throw std::invalid_argument("SetLinkLoads: " + std::to_string(load.size()) +
                                    " values for " + std::to_string(m_load.size()) +
                                    " directed links");
    }
    m_load = std::move(load);
}

void
PacketSchedulerState::SetLinkRates(std::vector<double> rate)
{
    if (rate.size() != m_rate.size())
    {
        throw std::invalid_argument("SetLinkRates: " + std::to_string(rate.size()) +
                                    " values for " + std::to_string(m_rate.size()) +
                                    " directed links");
    }
    for (double r : rate)
    {
        if (!(r > 0 && r <= 1))
        {
            throw std::invalid_argument("SetLinkRates: a relative rate must be in (0, 1], got " +
                                        std::to_string(r));
        }
    }
    m_rate = std::move(rate);
}

void
PacketSchedulerState::HoldServer(uint32_t server)
{
    if (server >= m_held.size())
    {
        throw std::out_of_range("server " + std::to_string(server) + " does not exist; there are " +
                                std::to_string(m_held.size()));
    }
    if (!m_inFlight.empty() || !m_finished.empty())
    {
        throw std::logic_error("HoldServer: a workload has started already; hold servers "
                               "before the first decision");
    }
    if (m_held[server])
    {
        return;
    }
    m_held[server] = 1;
    ++m_nHeld;
    for (uint32_t id = 0; id < m_workloads.GetN(); ++id)
    {
        if (Carries(m_workloads, id, server))
        {
            if (m_status[id] == WorkloadStatus::READY)
            {
                m_ready.Remove(id);
                m_status[id] = WorkloadStatus::WAITING;
            }
            ++m_pending[id];
            ++m_lateCarried[id];
        }
    }
}

void
PacketSchedulerState::ReleaseServer(uint32_t server)
{
    if (server >= m_held.size() || !m_held[server])
    {
        return;
    }
    m_held[server] = 0;
    --m_nHeld;
    for (uint32_t id = 0; id < m_workloads.GetN(); ++id)
    {
        if (Carries(m_workloads, id, server))
        {
            --m_lateCarried[id];
            Release(id);
        }
    }
}

std::vector<uint32_t>
PacketSchedulerState::GetAwaitingGradient() const
{
    std::vector<uint32_t> awaiting;
    if (m_nHeld == 0)
    {
        return awaiting;
    }
    for (uint32_t id = 0; id < m_status.size(); ++id)
    {
        // What it waits for is held servers only.
        if (m_status[id] == WorkloadStatus::WAITING && m_lateCarried[id] > 0 &&
            m_pending[id] == m_lateCarried[id])
        {
            awaiting.push_back(id);
        }
    }
    return awaiting;
}

bool
PacketSchedulerState::IsServerReady(uint32_t server) const
{
    return m_held.at(server) == 0;
}

void
PacketSchedulerState::SetPath(uint32_t id, std::vector<uint32_t> path)
{
    if (id >= m_status.size() || m_status[id] == WorkloadStatus::DONE)
    {
        throw std::invalid_argument("workload " + std::to_string(id) +
                                    " cannot be routed again: it does not exist or is done");
    }
    const bool inFlight = m_status[id] == WorkloadStatus::STARTED;
    if (inFlight)
    {
        Occupy(id, -1);
    }
    try
    {
        m_workloads.SetPath(id, std::move(path));
    }
    catch (...)
    {
        if (inFlight)
        {
            Occupy(id, +1);
        }
        throw;
    }
    if (inFlight)
    {
        Occupy(id, +1);
    }
}

std::vector<uint32_t>
PacketSchedulerState::FindUpPath(uint32_t from, uint32_t to) const
{
    const Topology& topo = m_workloads.GetTopology();
    std::vector<uint32_t> parent(topo.GetNNodes(), NO_INDEX);
    std::deque<uint32_t> queue{from};
    parent.at(from) = from;
    while (!queue.empty() && parent.at(to) == NO_INDEX)
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        const auto& links = topo.GetPortLinks(u);
        const auto& neighbors = topo.GetNeighbors(u);
        for (size_t p = 0; p < links.size(); ++p)
        {
            const uint32_t v = neighbors[p];
            const uint32_t directed = topo.GetLink(links[p]).a == u ? 2 * links[p]
                                                                    : 2 * links[p] + 1;
            if (parent[v] == NO_INDEX && !m_down[directed])
            {
                parent[v] = u;
                queue.push_back(v);
            }
        }
    }
    if (parent[to] == NO_INDEX)
    {
        return {};
    }
    std::vector<uint32_t> path{to};
    while (path.back() != from)
    {
        path.push_back(parent[path.back()]);
    }
    std::reverse(path.begin(), path.end());
    return path;
}

uint32_t
PacketSchedulerState::FindDownLink(uint32_t id) const
{
    for (uint32_t l : m_workloads.Get(id).links)
    {
        if (m_down[l])
        {
            return l;
        }
    }
    return NO_INDEX;
}

void
PacketSchedulerState::PushReady(uint32_t id)
{
    m_status[id] = WorkloadStatus::READY;
    m_ready.Push(id);
}

void
PacketSchedulerState::Release(uint32_t id)
{
    if (--m_pending[id] == 0 && m_status[id] == WorkloadStatus::WAITING)
    {
        PushReady(id);
    }
}

bool
PacketSchedulerState::IsBlocked(uint32_t l) const
{
    return m_busy[l] != 0 || m_down[l] != 0 || m_others[l] != 0;
}

void
PacketSchedulerState::Block(uint32_t l, int delta)
{
    // Called before the busy count, the down mark or the others mark changes by delta:
    // compares blocked before and after.
    const bool before = IsBlocked(l);
    const bool after = static_cast<int64_t>(m_busy[l]) + m_down[l] + m_others[l] + delta != 0;
    if (m_fromServer[l] && before != after)
    {
        m_serverPortsBlocked += after ? 1 : -1;
    }
}

void
PacketSchedulerState::Occupy(uint32_t id, int delta)
{
    for (uint32_t l : m_workloads.GetAll()[id].links)
    {
        Block(l, delta);
        m_busy[l] += delta;
    }
}

} // namespace ns3
