/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-slots.h"

#include <algorithm>

namespace ns3
{

namespace
{
/// \return the slots that are counted: finite ones (0 for the rest)
uint32_t
CountedSlots(const Topology& topology, uint32_t node)
{
    const uint32_t slots = topology.GetAggregatorSlots(node);
    return slots == Topology::UNLIMITED_SLOTS ? 0 : slots;
}
} // namespace

bool
AggregatorSlots::HasLimitedSlots(const Topology& topology)
{
    for (uint32_t v = topology.GetNServers(); v < topology.GetNNodes(); ++v)
    {
        if (CountedSlots(topology, v) > 0)
        {
            return true;
        }
    }
    return false;
}

AggregatorSlots::AggregatorSlots(const WorkloadSet& workloads)
    : m_workloads(&workloads),
      m_limited(HasLimitedSlots(workloads.GetTopology()))
{
    if (!m_limited)
    {
        return;
    }
    const Topology& topology = workloads.GetTopology();
    m_slots.assign(topology.GetNNodes(), 0);
    for (uint32_t v = topology.GetNServers(); v < topology.GetNNodes(); ++v)
    {
        m_slots[v] = CountedSlots(topology, v);
    }
    // Per group, the counted switches that send in it and how often.
    const uint64_t groups = 2ULL * topology.GetNServers() * workloads.GetPieces();
    std::vector<std::vector<Hold>> byGroup(groups);
    for (const Workload& w : workloads.GetAll())
    {
        if (m_slots[w.src] == 0)
        {
            continue;
        }
        auto& holds = byGroup[GroupOf(w.id)];
        auto it = std::find_if(holds.begin(), holds.end(), [&w](const Hold& h) {
            return h.node == w.src;
        });
        if (it == holds.end())
        {
            holds.push_back({w.src, 0});
            it = holds.end() - 1;
        }
        ++it->sends;
    }
    m_first.reserve(groups + 1);
    for (const auto& holds : byGroup)
    {
        m_first.push_back(static_cast<uint32_t>(m_holds.size()));
        m_holds.insert(m_holds.end(), holds.begin(), holds.end());
    }
    m_first.push_back(static_cast<uint32_t>(m_holds.size()));
    m_sends.resize(m_holds.size());
    for (size_t i = 0; i < m_holds.size(); ++i)
    {
        m_sends[i] = m_holds[i].sends;
    }
    Reset();
}

bool
AggregatorSlots::IsLimited() const
{
    return m_limited;
}

void
AggregatorSlots::Rebind(const WorkloadSet& workloads)
{
    m_workloads = &workloads;
}

void
AggregatorSlots::Reset()
{
    if (!m_limited)
    {
        return;
    }
    m_started.assign(m_first.size() - 1, 0);
    m_used.assign(m_slots.size(), 0);
    for (size_t i = 0; i < m_holds.size(); ++i)
    {
        m_holds[i].sends = m_sends[i];
    }
}

uint32_t
AggregatorSlots::GroupOf(uint32_t workload) const
{
    const Workload& w = m_workloads->GetAll()[workload];
    return (w.chunk * m_workloads->GetPieces() + w.piece) * 2 + (w.phase == Phase::GATHER);
}

uint32_t
AggregatorSlots::FindFullSwitch(uint32_t workload) const
{
    if (!m_limited)
    {
        return NO_INDEX;
    }
    const uint32_t group = GroupOf(workload);
    if (m_started[group] > 0)
    {
        return NO_INDEX;
    }
    for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
    {
        const uint32_t node = m_holds[i].node;
        if (m_used[node] >= m_slots[node])
        {
            return node;
        }
    }
    return NO_INDEX;
}

std::string
AggregatorSlots::WhyNot(uint32_t workload) const
{
    const uint32_t node = FindFullSwitch(workload);
    if (node == NO_INDEX)
    {
        return "";
    }
    const Workload& w = m_workloads->GetAll()[workload];
    return "workload " + std::to_string(workload) + " would start " + ToString(w.phase) +
           " of chunk " + std::to_string(w.chunk) + " piece " + std::to_string(w.piece) +
           ", which needs a slot on aggregating switch " + std::to_string(node) +
           ", and all its " + std::to_string(m_slots[node]) + " slots are in use";
}

bool
AggregatorSlots::CanStart(uint32_t workload) const
{
    return FindFullSwitch(workload) == NO_INDEX;
}

void
AggregatorSlots::Start(uint32_t workload)
{
    if (!m_limited)
    {
        return;
    }
    const uint32_t group = GroupOf(workload);
    if (m_started[group]++ == 0)
    {
        for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
        {
            ++m_used[m_holds[i].node];
        }
    }
}

void
AggregatorSlots::Unstart(uint32_t workload)
{
    if (!m_limited)
    {
        return;
    }
    const uint32_t group = GroupOf(workload);
    if (--m_started[group] == 0)
    {
        for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
        {
            --m_used[m_holds[i].node];
        }
    }
}

void
AggregatorSlots::Finish(uint32_t workload)
{
    if (!m_limited)
    {
        return;
    }
    const Workload& w = m_workloads->GetAll()[workload];
    if (m_slots[w.src] == 0)
    {
        return;
    }
    const uint32_t group = GroupOf(workload);
    for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
    {
        if (m_holds[i].node == w.src && --m_holds[i].sends == 0)
        {
            --m_used[w.src];
        }
    }
}

uint32_t
AggregatorSlots::GetUsed(uint32_t node) const
{
    return m_limited ? m_used.at(node) : 0;
}

} // namespace ns3
