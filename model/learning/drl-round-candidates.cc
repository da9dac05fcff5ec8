/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-round-candidates.h"

#include <algorithm>

namespace ns3
{

DrlRoundCandidates::DrlRoundCandidates(const DrlTreeCatalogue& catalogue)
    : m_catalogue(&catalogue),
      m_linkCandidates(catalogue.GetNDirectedLinks()),
      m_linkUsers(catalogue.GetNDirectedLinks(), 0)
{
}

void
DrlRoundCandidates::Clear()
{
    m_candidates.clear();
    m_mask.clear();
    m_pickable = 0;
    m_linkFirst.clear();
    m_links.clear();
    std::fill(m_linkUsers.begin(), m_linkUsers.end(), 0);
}

void
DrlRoundCandidates::List(const SchedulerState& state,
                         const std::vector<uint8_t>& selected,
                         const std::vector<uint8_t>& listedRoots,
                         const ConflictTest& conflicts)
{
    // The candidates: the ready workloads of the selected trees, tree by tree, each tree's in
    // id order (a pass over what is ready, not over every workload).
    const uint32_t trees = m_catalogue->GetNTrees();
    const auto listed = [&](uint32_t t) {
        return selected[t] && (listedRoots.empty() || listedRoots[m_catalogue->GetTree(t).root]);
    };
    m_treeReady.assign(trees, 0);
    for (uint32_t id : state.GetReady())
    {
        const uint32_t t = m_catalogue->GetTreeOfEngineId(id);
        m_treeReady[t] += listed(t);
    }
    m_treeCandidates.assign(trees, {0, 0});
    uint32_t first = 0;
    for (uint32_t t = 0; t < trees; ++t)
    {
        m_treeCandidates[t] = {first, first};
        first += m_treeReady[t];
    }
    m_candidates.assign(first, {0, 0});
    for (uint32_t id : state.GetReady())
    {
        const uint32_t t = m_catalogue->GetTreeOfEngineId(id);
        if (listed(t))
        {
            const uint32_t set = m_catalogue->GetTree(t).set;
            m_candidates[m_treeCandidates[t].second++] = {set, id - m_catalogue->GetOffset(set)};
        }
    }
    for (uint32_t t = 0; t < trees; ++t)
    {
        std::sort(m_candidates.begin() + m_treeCandidates[t].first,
                  m_candidates.begin() + m_treeCandidates[t].second);
    }
    MaskAndIndex(state, conflicts);
}

void
DrlRoundCandidates::MaskAndIndex(const SchedulerState& state, const ConflictTest& conflicts)
{
    for (auto& users : m_linkCandidates)
    {
        users.clear();
    }
    m_mask.assign(m_candidates.size(), 0);
    m_pickable = 0;
    m_linkFirst.assign(1, 0);
    m_links.clear();
    std::fill(m_linkUsers.begin(), m_linkUsers.end(), 0);
    for (uint32_t c = 0; c < m_candidates.size(); ++c)
    {
        const auto [set, id] = m_candidates[c];
        m_mask[c] = !conflicts(set, id);
        m_pickable += m_mask[c];
        for (uint32_t l : m_catalogue->GetWorkloadIn(state, set, id).links)
        {
            m_linkCandidates[l].push_back(c);
            m_links.push_back(l);
            m_linkUsers[l] += m_mask[c];
        }
        m_linkFirst.push_back(static_cast<uint32_t>(m_links.size()));
    }
}

void
DrlRoundCandidates::Unmask(uint32_t c)
{
    m_mask[c] = 0;
    --m_pickable;
    for (uint32_t i = m_linkFirst[c]; i < m_linkFirst[c + 1]; ++i)
    {
        --m_linkUsers[m_links[i]];
    }
}

void
DrlRoundCandidates::Recheck(uint32_t c, const ConflictTest& conflicts)
{
    if (m_mask[c] && conflicts(m_candidates[c].first, m_candidates[c].second))
    {
        Unmask(c);
    }
}

void
DrlRoundCandidates::Take(uint32_t index,
                         const SchedulerState& state,
                         bool rescanAll,
                         const ConflictTest& conflicts)
{
    const auto [set, id] = m_candidates[index];
    Unmask(index);
    if (rescanAll)
    {
        for (uint32_t c = 0; c < m_candidates.size(); ++c)
        {
            Recheck(c, conflicts);
        }
        return;
    }
    // A pick blocks the candidates that share a link with it, and, when it commits its
    // root, those of the root's other trees.
    for (uint32_t l : m_catalogue->GetWorkloadIn(state, set, id).links)
    {
        for (uint32_t c : m_linkCandidates[l])
        {
            Recheck(c, conflicts);
        }
    }
    const uint32_t root = m_catalogue->GetTree(m_catalogue->GetTreeOf(set, id)).root;
    for (uint32_t other : m_catalogue->GetRootTrees(root))
    {
        for (uint32_t c = m_treeCandidates[other].first; c < m_treeCandidates[other].second; ++c)
        {
            Recheck(c, conflicts);
        }
    }
}

} // namespace ns3
