/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-tree-catalogue.h"

#include "ns3/schedule.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

DrlTreeCatalogue::DrlTreeCatalogue(std::vector<std::vector<FlowTree>> trees,
                                   std::vector<WorkloadSet> workloads)
    : m_trees(std::move(trees)),
      m_sets(std::move(workloads))
{
    if (m_sets.empty() || m_trees.size() != m_sets.size())
    {
        throw std::invalid_argument("DrlEnvironment: give one workload set per candidate tree "
                                    "set, and at least one (got " +
                                    std::to_string(m_trees.size()) + " tree sets and " +
                                    std::to_string(m_sets.size()) + " workload sets)");
    }
    Index();
}

DrlTreeCatalogue::DrlTreeCatalogue(WorkloadSet workloads)
{
    m_sets.push_back(std::move(workloads));
    Index();
}

void
DrlTreeCatalogue::Index()
{
    IndexTrees();
    MeasureScales();
    // One engine runs every candidate set, so that it alone tracks the links in use.
    if (m_sets.size() > 1)
    {
        m_union = WorkloadSet::Concatenate(UnionParts(), &m_offset);
    }
    else
    {
        m_offset.assign(1, 0);
    }
    m_engineTree.assign(GetEngineWorkloads().GetN(), NO_INDEX);
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        for (uint32_t id : m_tree[t].workloads)
        {
            m_engineTree[m_offset[m_tree[t].set] + id] = t;
        }
    }
}

std::vector<WorkloadSet>
DrlTreeCatalogue::UnionParts() const
{
    // An engine of the union would count a chunk piece's workloads of every set as one slot
    // group, whose candidates never chosen never give their slots back: on a copy without
    // limits, DrlSlotTracker counts them per set instead.
    Topology unlimited = m_sets.front().GetTopology();
    bool limited = false;
    for (uint32_t v = unlimited.GetNServers(); v < unlimited.GetNNodes(); ++v)
    {
        const uint32_t slots = unlimited.GetAggregatorSlots(v);
        if (slots > 0 && slots != Topology::UNLIMITED_SLOTS)
        {
            unlimited.SetAggregatorSlots(v, Topology::UNLIMITED_SLOTS);
            limited = true;
        }
    }
    if (!limited)
    {
        return m_sets;
    }
    std::vector<WorkloadSet> parts;
    for (const WorkloadSet& set : m_sets)
    {
        parts.emplace_back(unlimited, set.GetList(), set.GetSemantics(), set.GetPieces());
    }
    return parts;
}

void
DrlTreeCatalogue::IndexTrees()
{
    const Topology& topology = m_sets.front().GetTopology();
    uint32_t roots = 0;
    for (const auto& set : m_sets)
    {
        if (set.GetTopology().GetNNodes() != topology.GetNNodes() ||
            set.GetNDirectedLinks() != m_sets.front().GetNDirectedLinks())
        {
            throw std::invalid_argument("DrlEnvironment: the candidate workload sets are on "
                                        "different topologies");
        }
        for (const Workload& w : set.GetAll())
        {
            roots = std::max(roots, w.chunk + 1);
        }
    }
    m_roots = std::max(roots, topology.GetNServers());
    m_rootTrees.assign(m_roots, {});
    m_treeOf.assign(m_sets.size(), {});
    m_setTree.assign(m_sets.size(), std::vector<uint32_t>(m_roots, NO_INDEX));
    // Per root, per set, its workloads there (in id order).
    std::vector<std::vector<std::vector<uint32_t>>> byRoot(
        m_roots,
        std::vector<std::vector<uint32_t>>(m_sets.size()));
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        m_treeOf[j].assign(m_sets[j].GetN(), NO_INDEX);
        for (const Workload& w : m_sets[j].GetAll())
        {
            byRoot[w.chunk][j].push_back(w.id);
        }
    }
    // Aggregating switches merge streams on some trees and not on others: there a root's
    // candidates' sizes differ.
    const bool sameSizes = topology.CountAggregators() == 0;
    m_total = 0;
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        AddRootTrees(r, byRoot[r], sameSizes);
    }
}

void
DrlTreeCatalogue::AddRootTrees(uint32_t r,
                               const std::vector<std::vector<uint32_t>>& mine,
                               bool sameSizes)
{
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        if (mine[j].empty())
        {
            continue;
        }
        if (!m_rootTrees[r].empty() && sameSizes &&
            m_tree[m_rootTrees[r].front()].workloads.size() != mine[j].size())
        {
            throw std::invalid_argument("DrlEnvironment: root " + std::to_string(r) +
                                        " has candidate trees with different numbers of "
                                        "workloads; candidates must be merge workloads on "
                                        "spanning trees");
        }
        const auto t = static_cast<uint32_t>(m_tree.size());
        m_tree.push_back(Tree{j, r, mine[j]});
        m_rootTrees[r].push_back(t);
        m_setTree[j][r] = t;
        for (uint32_t id : mine[j])
        {
            m_treeOf[j][id] = t;
        }
    }
    // A complete run sends the fewest workloads of the root's candidates.
    size_t fewest = m_rootTrees[r].empty() ? 0 : std::numeric_limits<size_t>::max();
    for (uint32_t t : m_rootTrees[r])
    {
        fewest = std::min(fewest, m_tree[t].workloads.size());
    }
    m_total += static_cast<uint32_t>(fewest);
}

void
DrlTreeCatalogue::MeasureScales()
{
    m_maxHeight = 1;
    m_maxPath = 1;
    m_maxDependents = 1;
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (const Workload& w : m_sets[j].GetAll())
        {
            m_maxHeight = std::max(m_maxHeight, m_sets[j].GetHeight(w.id));
            m_maxPath = std::max<uint32_t>(m_maxPath, w.links.size());
            m_maxDependents =
                std::max<uint32_t>(m_maxDependents, m_sets[j].GetDependents(w.id).size());
        }
    }
    const Topology& topology = m_sets.front().GetTopology();
    m_bound = std::max<uint32_t>(1, ComputeBandwidthBound(topology, m_sets.front().GetPieces()));
    m_aggregatorShare = static_cast<float>(topology.CountAggregators()) /
                        std::max<uint32_t>(1, topology.GetNSwitches());
}

std::vector<uint8_t>
DrlTreeCatalogue::GetTreesOfSet(uint32_t set) const
{
    std::vector<uint8_t> out(m_tree.size(), 0);
    for (uint32_t t : m_setTree.at(set))
    {
        if (t != NO_INDEX)
        {
            out[t] = 1;
        }
    }
    return out;
}

Plan
DrlTreeCatalogue::MakePlan(const std::vector<uint32_t>& committed,
                           const std::vector<std::vector<uint32_t>>& roundOf) const
{
    if (m_trees.empty() || m_sets.size() == 1)
    {
        Plan plan;
        plan.workloads = m_sets.front();
        plan.schedule = CompactRounds(roundOf.front());
        return plan;
    }
    std::vector<uint32_t> chosen(m_roots, 0);
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        if (committed[r] != NO_INDEX)
        {
            chosen[r] = m_tree[committed[r]].set;
        }
    }
    return MakeTreeChoicePlan(m_trees, m_sets, chosen, roundOf);
}

} // namespace ns3
