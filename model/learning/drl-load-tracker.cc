/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-load-tracker.h"

#include "ns3/aggregator-slots.h"

#include <algorithm>
#include <limits>

namespace ns3
{

DrlLoadTracker::DrlLoadTracker(const DrlTreeCatalogue& catalogue)
    : m_catalogue(&catalogue)
{
    ListAll();
}

void
DrlLoadTracker::Restore(const DrlLoadTracker& saved)
{
    const DrlTreeCatalogue* mine = m_catalogue;
    *this = saved;
    m_catalogue = mine;
}

void
DrlLoadTracker::ListAll()
{
    const uint32_t trees = m_catalogue->GetNTrees();
    m_treeLeft.assign(trees, 0);
    m_remaining.assign(trees, {});
    for (uint32_t t = 0; t < trees; ++t)
    {
        m_treeLeft[t] = static_cast<uint32_t>(m_catalogue->GetTree(t).workloads.size());
        m_remaining[t] = m_catalogue->GetTree(t).workloads;
    }
}

void
DrlLoadTracker::DropDone(const SchedulerState& state)
{
    for (uint32_t t = 0; t < m_remaining.size(); ++t)
    {
        DropDone(t, state);
    }
}

void
DrlLoadTracker::DropDone(uint32_t t, const SchedulerState& state)
{
    auto& left = m_remaining[t];
    const uint32_t set = m_catalogue->GetTree(t).set;
    left.erase(std::remove_if(left.begin(),
                              left.end(),
                              [&](uint32_t id) {
                                  return state.GetStatus(m_catalogue->GetEngineId(set, id)) ==
                                         WorkloadStatus::DONE;
                              }),
               left.end());
    m_treeLeft[t] = static_cast<uint32_t>(left.size());
}

void
DrlLoadTracker::RecountLeft(const SchedulerState& state)
{
    for (uint32_t t = 0; t < m_remaining.size(); ++t)
    {
        m_remaining[t] = m_catalogue->GetTree(t).workloads;
    }
    DropDone(state);
}

void
DrlLoadTracker::TakeOwnLinkCounts(uint32_t t, const SchedulerState& state)
{
    const uint32_t set = m_catalogue->GetTree(t).set;
    for (uint32_t id : m_remaining[t])
    {
        const Workload& w = m_catalogue->GetWorkloadIn(state, set, id);
        const auto& on = w.phase == Phase::GATHER ? m_gatherOn : m_reduceOn;
        uint32_t most = 0;
        for (uint32_t l : w.links)
        {
            most = std::max(most, on[l]);
        }
        m_ownLink[m_catalogue->GetEngineId(set, id)] = most;
        auto& tree = w.phase == Phase::GATHER ? m_ownGather[t] : m_ownReduce[t];
        tree = std::max(tree, most);
    }
    for (uint32_t l : m_touched)
    {
        m_reduceOn[l] = 0;
        m_gatherOn[l] = 0;
    }
    m_touched.clear();
}

void
DrlLoadTracker::ComputeLoads(const SchedulerState& state, const std::vector<uint32_t>& committed)
{
    const uint32_t trees = m_catalogue->GetNTrees();
    m_load.assign(m_catalogue->GetNDirectedLinks(), 0.0);
    m_committedLoad.assign(m_load.size(), 0);
    m_ownReduce.assign(trees, 0);
    m_ownGather.assign(trees, 0);
    m_ownLink.resize(state.GetWorkloads().GetN());
    m_reduceOn.resize(m_load.size()); // zero between trees (TakeOwnLinkCounts)
    m_gatherOn.resize(m_load.size());
    for (uint32_t t = 0; t < trees; ++t)
    {
        const uint32_t root = m_catalogue->GetTree(t).root;
        double weight = 0;
        if (committed[root] == t)
        {
            weight = 1;
        }
        else if (committed[root] == NO_INDEX)
        {
            weight = 1.0 / m_catalogue->GetRootTrees(root).size();
        }
        if (weight == 0)
        {
            continue;
        }
        const bool isCommitted = committed[root] == t;
        for (uint32_t id : m_remaining[t])
        {
            const Workload& w = m_catalogue->GetWorkloadIn(state, m_catalogue->GetTree(t).set, id);
            auto& on = w.phase == Phase::GATHER ? m_gatherOn : m_reduceOn;
            for (uint32_t l : w.links)
            {
                m_load[l] += weight;
                m_committedLoad[l] += isCommitted;
                if (m_reduceOn[l] == 0 && m_gatherOn[l] == 0)
                {
                    m_touched.push_back(l);
                }
                ++on[l]; // this tree's own, per phase
            }
        }
        TakeOwnLinkCounts(t, state);
    }
    WeighByLinkShare(state);
}

void
DrlLoadTracker::WeighByLinkShare(const SchedulerState& state)
{
    // Link pressure is time: a link that other traffic shares, or a slower one, carries what
    // is left on it more slowly (packet level; at flow level both factors are 1).
    for (uint32_t l = 0; l < m_load.size(); ++l)
    {
        if (m_load[l] > 0)
        {
            const double share = state.GetLinkRate(l) * (1.0 - state.GetLinkLoad(l));
            m_load[l] /= std::max(MIN_LINK_SHARE, share);
        }
    }
    m_maxLoad = 1;
    for (double v : m_load)
    {
        m_maxLoad = std::max(m_maxLoad, v);
    }
}

uint32_t
DrlLoadTracker::GetRoundsLeftBound(const std::vector<uint32_t>& committed) const
{
    std::vector<uint32_t> least(m_catalogue->GetNRoots(), std::numeric_limits<uint32_t>::max());
    for (uint32_t t = 0; t < m_remaining.size(); ++t)
    {
        const uint32_t root = m_catalogue->GetTree(t).root;
        const uint32_t c = committed[root];
        if (c != NO_INDEX && c != t)
        {
            continue;
        }
        const WorkloadSet& set = m_catalogue->GetSet(m_catalogue->GetTree(t).set);
        uint32_t height = 0;
        for (uint32_t id : m_remaining[t])
        {
            height = std::max(height, set.GetHeight(id));
        }
        least[root] = std::min(least[root], height);
    }
    uint32_t bound = m_committedLoad.empty()
                         ? 0
                         : *std::max_element(m_committedLoad.begin(), m_committedLoad.end());
    for (uint32_t h : least)
    {
        if (h != std::numeric_limits<uint32_t>::max())
        {
            bound = std::max(bound, h);
        }
    }
    return bound;
}

DrlSlotTracker::DrlSlotTracker(const DrlTreeCatalogue& catalogue)
{
    const Topology& topology = catalogue.GetTopology();
    const uint32_t nSets = catalogue.GetNSets();
    m_limited = nSets > 1 && AggregatorSlots::HasLimitedSlots(topology);
    if (!m_limited)
    {
        return;
    }
    m_slots.assign(topology.GetNNodes(), 0);
    for (uint32_t v = topology.GetNServers(); v < topology.GetNNodes(); ++v)
    {
        const uint32_t slots = topology.GetAggregatorSlots(v);
        m_slots[v] = slots == Topology::UNLIMITED_SLOTS ? 0 : slots;
    }
    const uint32_t pieces = catalogue.GetSet(0).GetPieces();
    const uint64_t perSet = 2ULL * catalogue.GetNRoots() * pieces;
    std::vector<std::vector<Hold>> byGroup(perSet * nSets);
    m_group.assign(catalogue.GetEngineWorkloads().GetN(), 0);
    m_source.assign(m_group.size(), 0);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (const Workload& w : catalogue.GetSet(j).GetAll())
        {
            const uint64_t group =
                j * perSet + (uint64_t{w.chunk} * pieces + w.piece) * 2 + (w.phase == Phase::GATHER);
            m_group[catalogue.GetOffset(j) + w.id] = static_cast<uint32_t>(group);
            m_source[catalogue.GetOffset(j) + w.id] = w.src;
            if (m_slots[w.src] == 0)
            {
                continue;
            }
            auto& holds = byGroup[group];
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
    }
    for (const auto& holds : byGroup)
    {
        m_first.push_back(static_cast<uint32_t>(m_holds.size()));
        m_holds.insert(m_holds.end(), holds.begin(), holds.end());
    }
    m_first.push_back(static_cast<uint32_t>(m_holds.size()));
    Reset();
}

bool
DrlSlotTracker::IsLimited() const
{
    return m_limited;
}

void
DrlSlotTracker::Reset()
{
    if (!m_limited)
    {
        return;
    }
    m_usage.sends.resize(m_holds.size());
    for (size_t i = 0; i < m_holds.size(); ++i)
    {
        m_usage.sends[i] = m_holds[i].sends;
    }
    m_usage.started.assign(m_first.size() - 1, 0);
    m_usage.used.assign(m_slots.size(), 0);
}

bool
DrlSlotTracker::CanStart(uint32_t e) const
{
    if (!m_limited || m_usage.started[m_group[e]] > 0)
    {
        return true;
    }
    const uint32_t group = m_group[e];
    for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
    {
        if (m_usage.used[m_holds[i].node] >= m_slots[m_holds[i].node])
        {
            return false;
        }
    }
    return true;
}

void
DrlSlotTracker::Start(uint32_t e)
{
    if (!m_limited)
    {
        return;
    }
    const uint32_t group = m_group[e];
    if (m_usage.started[group]++ == 0)
    {
        for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
        {
            ++m_usage.used[m_holds[i].node];
        }
    }
}

void
DrlSlotTracker::Finish(uint32_t e)
{
    if (!m_limited)
    {
        return;
    }
    const uint32_t group = m_group[e];
    for (uint32_t i = m_first[group]; i < m_first[group + 1]; ++i)
    {
        if (m_holds[i].node == m_source[e] && --m_usage.sends[i] == 0)
        {
            --m_usage.used[m_holds[i].node];
        }
    }
}

const DrlSlotTracker::Usage&
DrlSlotTracker::GetUsage() const
{
    return m_usage;
}

void
DrlSlotTracker::SetUsage(const Usage& usage)
{
    if (m_limited)
    {
        m_usage = usage;
    }
}

} // namespace ns3
