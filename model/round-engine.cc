/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-engine.h"

#include <stdexcept>

namespace ns3
{

RoundEngine::RoundEngine(const WorkloadSet& workloads)
    : m_workloads(&workloads)
{
    Reset();
}

void
RoundEngine::Reset()
{
    const uint32_t n = m_workloads->GetN();
    m_status.assign(n, Status::WAITING);
    m_pending.assign(n, 0);
    m_roundOf.assign(n, NO_INDEX);
    m_readyPos.assign(n, NO_INDEX);
    m_ready.clear();
    m_picked.clear();
    m_rounds.clear();
    m_linkStamp.assign(m_workloads->GetNDirectedLinks(), 0);
    m_nDone = 0;
    for (const Workload& w : m_workloads->GetAll())
    {
        m_pending[w.id] = static_cast<uint32_t>(w.deps.size());
        if (w.deps.empty())
        {
            PushReady(w.id);
        }
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

bool
RoundEngine::IsDone() const
{
    return m_nDone == m_workloads->GetN();
}

uint32_t
RoundEngine::GetNDone() const
{
    return m_nDone;
}

RoundEngine::Status
RoundEngine::GetStatus(uint32_t id) const
{
    return m_status.at(id);
}

const std::vector<uint32_t>&
RoundEngine::GetReady() const
{
    return m_ready;
}

const std::vector<uint32_t>&
RoundEngine::GetPicked() const
{
    return m_picked;
}

bool
RoundEngine::IsLinkBusy(uint32_t directedLink) const
{
    return m_linkStamp.at(directedLink) == GetRound() + 1;
}

bool
RoundEngine::CanAdd(uint32_t id) const
{
    if (id >= m_status.size() || m_status[id] != Status::READY)
    {
        return false;
    }
    const uint32_t stamp = GetRound() + 1;
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        if (m_linkStamp[l] == stamp)
        {
            return false;
        }
    }
    return true;
}

std::vector<uint32_t>
RoundEngine::GetAddable() const
{
    std::vector<uint32_t> out;
    for (uint32_t id : m_ready)
    {
        if (CanAdd(id))
        {
            out.push_back(id);
        }
    }
    return out;
}

std::vector<uint32_t>
RoundEngine::GetConflicting() const
{
    std::vector<uint32_t> out;
    for (uint32_t id : m_ready)
    {
        if (!CanAdd(id))
        {
            out.push_back(id);
        }
    }
    return out;
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
    case Status::WAITING:
        for (uint32_t d : m_workloads->GetAll()[id].deps)
        {
            if (m_status[d] != Status::DONE)
            {
                return name + " is not ready: it depends on workload " + std::to_string(d) +
                       ", which has not finished in an earlier round";
            }
        }
        return name + " is not ready";
    case Status::PICKED:
        return name + " is already in round " + std::to_string(GetRound());
    case Status::DONE:
        return name + " already finished in round " + std::to_string(m_roundOf[id]);
    case Status::READY:
        break;
    }
    const uint32_t stamp = GetRound() + 1;
    for (uint32_t l : m_workloads->GetAll()[id].links)
    {
        if (m_linkStamp[l] == stamp)
        {
            const TopologyLink& link = m_workloads->GetTopology().GetLink(l / 2);
            const uint32_t from = l % 2 == 0 ? link.a : link.b;
            const uint32_t to = l % 2 == 0 ? link.b : link.a;
            return name + " needs link " + std::to_string(from) + "->" + std::to_string(to) +
                   ", which another workload of round " + std::to_string(GetRound()) +
                   " already uses";
        }
    }
    return "";
}

void
RoundEngine::Add(uint32_t id)
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
    }
    RemoveReady(id);
    m_status[id] = Status::PICKED;
    m_picked.push_back(id);
}

void
RoundEngine::CloseRound()
{
    if (m_picked.empty())
    {
        throw std::invalid_argument("round " + std::to_string(GetRound()) +
                                    " is empty: add at least one workload before closing it (" +
                                    std::to_string(m_ready.size()) + " are ready)");
    }
    const uint32_t round = GetRound();
    for (uint32_t id : m_picked)
    {
        m_status[id] = Status::DONE;
        m_roundOf[id] = round;
        ++m_nDone;
    }
    for (uint32_t id : m_picked)
    {
        for (uint32_t d : m_workloads->GetDependents(id))
        {
            if (--m_pending[d] == 0)
            {
                PushReady(d);
            }
        }
    }
    m_rounds.push_back(std::move(m_picked));
    m_picked.clear();
}

void
RoundEngine::StepRound(const std::vector<uint32_t>& ids)
{
    const size_t before = m_picked.size();
    try
    {
        for (uint32_t id : ids)
        {
            Add(id);
        }
    }
    catch (const std::invalid_argument&)
    {
        // Undo this call's additions; the round's earlier picks stay.
        const uint32_t stamp = GetRound() + 1;
        while (m_picked.size() > before)
        {
            const uint32_t id = m_picked.back();
            m_picked.pop_back();
            for (uint32_t l : m_workloads->GetAll()[id].links)
            {
                if (m_linkStamp[l] == stamp)
                {
                    m_linkStamp[l] = 0;
                }
            }
            PushReady(id);
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
RoundEngine::RemoveReady(uint32_t id)
{
    const uint32_t pos = m_readyPos[id];
    const uint32_t last = m_ready.back();
    m_ready[pos] = last;
    m_readyPos[last] = pos;
    m_ready.pop_back();
    m_readyPos[id] = NO_INDEX;
}

void
RoundEngine::PushReady(uint32_t id)
{
    m_status[id] = Status::READY;
    m_readyPos[id] = static_cast<uint32_t>(m_ready.size());
    m_ready.push_back(id);
}

} // namespace ns3
