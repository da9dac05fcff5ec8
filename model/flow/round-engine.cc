/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-engine.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

RoundEngine::RoundEngine(const WorkloadSet& workloads)
    : m_workloads(&workloads),
      m_slots(workloads)
{
    m_down.assign(workloads.GetNDirectedLinks(), 0);
    m_held.assign(workloads.GetNDirectedLinks(), 0);
    m_fromServer = MarkSenderPorts(workloads.GetTopology());
    m_serverPorts =
        static_cast<uint32_t>(std::count(m_fromServer.begin(), m_fromServer.end(), 1));
    Reset();
}

void
RoundEngine::Reset()
{
    const uint32_t n = m_workloads->GetN();
    m_status.assign(n, WorkloadStatus::WAITING);
    m_pending.resize(m_workloads->GetNDepGroups());
    for (uint32_t g = 0; g < m_pending.size(); ++g)
    {
        m_pending[g] = static_cast<uint32_t>(m_workloads->GetGroupDeps(g).size());
    }
    m_roundOf.assign(n, NO_INDEX);
    m_ready.Reset(n);
    m_started.clear();
    m_finished.clear();
    m_rounds.clear();
    m_slots.Reset();
    m_linkStamp.assign(m_workloads->GetNDirectedLinks(), 0);
    m_serverPortsBlocked = m_serverPortsUnavailable;
    for (uint32_t id : m_workloads->GetGroupUsers(0))
    {
        PushReady(id);
    }
}

const WorkloadSet&
RoundEngine::GetWorkloads() const
{
    return *m_workloads;
}

uint32_t
RoundEngine::GetRound() const
{
    return static_cast<uint32_t>(m_rounds.size());
}

double
RoundEngine::GetTime() const
{
    return 0.0;
}

void
RoundEngine::CopyStateFrom(const RoundEngine& other)
{
    if (other.m_workloads->GetN() != m_workloads->GetN())
    {
        throw std::invalid_argument("RoundEngine::CopyStateFrom: an engine of " +
                                    std::to_string(other.m_workloads->GetN()) +
                                    " workloads, this one runs " +
                                    std::to_string(m_workloads->GetN()));
    }
    const WorkloadSet* mine = m_workloads;
    *this = other;
    m_workloads = mine;
    m_slots.Rebind(*mine);
}

WorkloadStatus
RoundEngine::GetStatus(uint32_t id) const
{
    return m_status.at(id);
}

const std::vector<uint32_t>&
RoundEngine::GetReady() const
{
    return m_ready.Get();
}

const std::vector<uint32_t>&
RoundEngine::GetReadyLog() const
{
    return m_ready.GetLog();
}

const std::vector<uint32_t>&
RoundEngine::GetStarted() const
{
    return m_started;
}

const std::vector<uint32_t>&
RoundEngine::GetFinished() const
{
    return m_finished;
}

bool
RoundEngine::IsLinkBusy(uint32_t directedLink) const
{
    return m_linkStamp.at(directedLink) == GetRound() + 1 || m_held[directedLink];
}

bool
RoundEngine::IsLinkDown(uint32_t directedLink) const
{
    return m_down.at(directedLink) != 0;
}

bool
RoundEngine::IsSaturated() const
{
    return m_serverPortsBlocked >= m_serverPorts;
}

bool
RoundEngine::CanStart(uint32_t id) const
{
    if (id >= m_status.size() || m_status[id] != WorkloadStatus::READY)
    {
        return false;
    }
    const uint32_t stamp = GetRound() + 1;
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        if (m_linkStamp[l] == stamp || m_down[l] || m_held[l])
        {
            return false;
        }
    }
    return m_slots.CanStart(id);
}

void
RoundEngine::SetLinkDown(uint32_t link, bool down)
{
    if (2 * uint64_t{link} + 1 >= m_down.size())
    {
        throw std::out_of_range("link " + std::to_string(link) + " does not exist; there are " +
                                std::to_string(m_down.size() / 2));
    }
    Mark(2 * link, m_down, down);
    Mark(2 * link + 1, m_down, down);
}

void
RoundEngine::SetLinkHeld(uint32_t directedLink, bool held)
{
    if (directedLink >= m_held.size())
    {
        throw std::out_of_range("directed link " + std::to_string(directedLink) +
                                " does not exist; there are " + std::to_string(m_held.size()));
    }
    Mark(directedLink, m_held, held);
}

bool
RoundEngine::IsUnavailable(uint32_t directedLink) const
{
    return m_down[directedLink] || m_held[directedLink];
}

void
RoundEngine::Mark(uint32_t directedLink, std::vector<uint8_t>& marks, bool value)
{
    const uint32_t stamp = GetRound() + 1;
    const bool wasUnavailable = IsUnavailable(directedLink);
    const bool wasBlocked = wasUnavailable || m_linkStamp[directedLink] == stamp;
    marks[directedLink] = value;
    if (m_fromServer[directedLink])
    {
        const bool unavailable = IsUnavailable(directedLink);
        m_serverPortsUnavailable = m_serverPortsUnavailable - wasUnavailable + unavailable;
        m_serverPortsBlocked = m_serverPortsBlocked - wasBlocked +
                               (unavailable || m_linkStamp[directedLink] == stamp);
    }
}

std::string
RoundEngine::Describe(uint32_t directedLink) const
{
    const TopologyLink& link = m_workloads->GetTopology().GetLink(directedLink / 2);
    const uint32_t from = directedLink % 2 == 0 ? link.a : link.b;
    const uint32_t to = directedLink % 2 == 0 ? link.b : link.a;
    return std::to_string(from) + "->" + std::to_string(to);
}

std::string
RoundEngine::WhyNot(uint32_t id) const
{
    const std::string name = "workload " + std::to_string(id);
    if (id >= m_status.size())
    {
        return name + " does not exist; there are " + std::to_string(m_status.size());
    }
    switch (m_status[id])
    {
    case WorkloadStatus::WAITING:
        for (uint32_t d : m_workloads->GetDeps(id))
        {
            if (m_status[d] != WorkloadStatus::DONE)
            {
                return name + " depends on workload " + std::to_string(d) +
                       ", which has not finished in an earlier round";
            }
        }
        return name + " is not ready";
    case WorkloadStatus::STARTED:
        return name + " is already in round " + std::to_string(GetRound());
    case WorkloadStatus::DONE:
        return name + " is scheduled again (it finished in round " +
               std::to_string(m_roundOf[id]) + ")";
    case WorkloadStatus::READY:
        break;
    }
    const uint32_t stamp = GetRound() + 1;
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        if (m_down[l])
        {
            return name + " needs link " + Describe(l) + ", which is down";
        }
        if (m_held[l])
        {
            return name + " needs link " + Describe(l) + ", which other traffic holds";
        }
        if (m_linkStamp[l] == stamp)
        {
            return name + " needs link " + Describe(l) + ", which another workload of round " +
                   std::to_string(GetRound()) + " already uses";
        }
    }
    return m_slots.WhyNot(id);
}

void
RoundEngine::Start(uint32_t id)
{
    const std::string why = WhyNot(id);
    if (!why.empty())
    {
        throw std::invalid_argument(why);
    }
    const uint32_t stamp = GetRound() + 1;
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        m_linkStamp[l] = stamp;
        m_serverPortsBlocked += m_fromServer[l];
    }
    m_ready.Remove(id);
    m_status[id] = WorkloadStatus::STARTED;
    m_started.push_back(id);
    m_slots.Start(id);
}

void
RoundEngine::Unstart(uint32_t id)
{
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        m_linkStamp[l] = 0;
        m_serverPortsBlocked -= m_fromServer[l] && !IsUnavailable(l);
    }
    m_slots.Unstart(id);
    PushReady(id);
}

void
RoundEngine::Withdraw(uint32_t id)
{
    const auto it = std::find(m_started.begin(), m_started.end(), id);
    if (it == m_started.end())
    {
        throw std::invalid_argument("workload " + std::to_string(id) +
                                    " is not in the round being built");
    }
    m_started.erase(it);
    Unstart(id);
}

void
RoundEngine::CloseRound()
{
    if (m_started.empty())
    {
        throw std::invalid_argument("round " + std::to_string(GetRound()) +
                                    " is empty: start at least one workload before closing it (" +
                                    std::to_string(m_ready.Get().size()) + " are ready)");
    }
    const uint32_t round = GetRound();
    for (uint32_t id : m_started)
    {
        m_status[id] = WorkloadStatus::DONE;
        m_roundOf[id] = round;
        m_finished.push_back(id);
        m_slots.Finish(id);
    }
    for (uint32_t id : m_started)
    {
        for (uint32_t g : m_workloads->GetGroupsOf(id))
        {
            if (--m_pending[g] == 0)
            {
                for (uint32_t d : m_workloads->GetGroupUsers(g))
                {
                    PushReady(d);
                }
            }
        }
    }
    m_rounds.push_back(std::move(m_started));
    m_started.clear();
    // The new round's stamp frees every link; down links stay blocked.
    m_serverPortsBlocked = m_serverPortsUnavailable;
}

void
RoundEngine::StepRound(const std::vector<uint32_t>& ids)
{
    const size_t before = m_started.size();
    try
    {
        for (uint32_t id : ids)
        {
            Start(id);
        }
    }
    catch (const std::invalid_argument&)
    {
        // Undo this call's additions; the round's earlier starts stay.
        while (m_started.size() > before)
        {
            Unstart(m_started.back());
            m_started.pop_back();
        }
        throw;
    }
    CloseRound();
}

uint32_t
RoundEngine::GetRoundOf(uint32_t id) const
{
    return m_roundOf.at(id);
}

const std::vector<std::vector<uint32_t>>&
RoundEngine::GetRounds() const
{
    return m_rounds;
}

void
RoundEngine::PushReady(uint32_t id)
{
    m_status[id] = WorkloadStatus::READY;
    m_ready.Push(id);
}

} // namespace ns3
