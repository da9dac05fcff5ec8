/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-environment.h"

#include "ns3/candidate-trees.h"
#include "ns3/schedule.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

DrlEnvironment::DrlEnvironment(std::vector<std::vector<FlowTree>> trees,
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

DrlEnvironment::DrlEnvironment(WorkloadSet workloads)
{
    m_sets.push_back(std::move(workloads));
    Index();
}

void
DrlEnvironment::Index()
{
    IndexTrees();
    MeasureScales();
    // One engine runs every candidate set, so that it alone tracks the links in use.
    if (m_sets.size() > 1)
    {
        m_union = WorkloadSet::Concatenate(m_sets, &m_offset);
    }
    else
    {
        m_offset.assign(1, 0);
    }
    m_engine = std::make_unique<RoundEngine>(m_sets.size() > 1 ? m_union : m_sets.front());
    m_engineTree.assign(m_engine->GetWorkloads().GetN(), NO_INDEX);
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        for (uint32_t id : m_tree[t].workloads)
        {
            m_engineTree[m_offset[m_tree[t].set] + id] = t;
        }
    }
    m_rescanOnPick = m_sets.front().GetTopology().CountAggregators() > 0;
    m_linkCandidates.assign(m_sets.front().GetNDirectedLinks(), {});
    ComputeTreeFeatures();
    Reset();
}

void
DrlEnvironment::IndexTrees()
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
    // Aggregating switches merge streams on some trees and not on others: there a root's
    // candidates' sizes differ.
    const bool sameSizes = topology.CountAggregators() == 0;
    m_rootTrees.assign(m_roots, {});
    m_treeOf.assign(m_sets.size(), {});
    m_setTree.assign(m_sets.size(), std::vector<uint32_t>(m_roots, NO_INDEX));
    std::vector<std::vector<std::vector<uint32_t>>> byChunk(
        m_sets.size(),
        std::vector<std::vector<uint32_t>>(m_roots));
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        m_treeOf[j].assign(m_sets[j].GetN(), NO_INDEX);
        for (const Workload& w : m_sets[j].GetAll())
        {
            byChunk[j][w.chunk].push_back(w.id);
        }
    }
    m_total = 0;
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        for (uint32_t j = 0; j < m_sets.size(); ++j)
        {
            const auto& mine = byChunk[j][r];
            if (mine.empty())
            {
                continue;
            }
            if (!m_rootTrees[r].empty() && sameSizes &&
                m_tree[m_rootTrees[r].front()].workloads.size() != mine.size())
            {
                throw std::invalid_argument("DrlEnvironment: root " + std::to_string(r) +
                                            " has candidate trees with different numbers of "
                                            "workloads; candidates must be merge workloads on "
                                            "spanning trees");
            }
            const auto t = static_cast<uint32_t>(m_tree.size());
            m_tree.push_back(Tree{j, r, mine});
            m_rootTrees[r].push_back(t);
            m_setTree[j][r] = t;
            for (uint32_t id : mine)
            {
                m_treeOf[j][id] = t;
            }
        }
        size_t fewest = m_rootTrees[r].empty() ? 0 : std::numeric_limits<size_t>::max();
        for (uint32_t t : m_rootTrees[r])
        {
            fewest = std::min(fewest, m_tree[t].workloads.size());
        }
        m_total += static_cast<uint32_t>(fewest);
    }
}

void
DrlEnvironment::MeasureScales()
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

void
DrlEnvironment::ComputeTreeFeatures()
{
    // Static features of a tree: how loaded its links are when every root uses its set's
    // trees, and how good that set is as a whole (its busiest link against the best set's).
    std::vector<std::vector<uint32_t>> setLoad;
    std::vector<uint32_t> setMax;
    uint32_t globalMax = 1;
    uint32_t bestSetMax = std::numeric_limits<uint32_t>::max();
    for (const auto& set : m_sets)
    {
        setLoad.push_back(set.GetLinkLoads());
        setMax.push_back(std::max<uint32_t>(
            1, *std::max_element(setLoad.back().begin(), setLoad.back().end())));
        globalMax = std::max(globalMax, setMax.back());
        bestSetMax = std::min(bestSetMax, setMax.back());
    }
    // And where its streams meet: the share of its workloads that end at an aggregating
    // switch, and its size against its root's largest candidate (merging saves workloads).
    const Topology& topology = m_sets.front().GetTopology();
    m_treeStatic.assign(m_tree.size() * STATIC_TREE_FEATURES, 0.0f);
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        const uint32_t j = m_tree[t].set;
        uint32_t worst = 0;
        uint32_t toSwitch = 0;
        for (uint32_t id : m_tree[t].workloads)
        {
            const Workload& w = m_sets[j].Get(id);
            for (uint32_t l : w.links)
            {
                worst = std::max(worst, setLoad[j][l]);
            }
            toSwitch += !topology.IsServer(w.dst);
        }
        size_t largest = 1;
        for (uint32_t other : m_rootTrees[m_tree[t].root])
        {
            largest = std::max(largest, m_tree[other].workloads.size());
        }
        const float size = static_cast<float>(std::max<size_t>(1, m_tree[t].workloads.size()));
        float* f = &m_treeStatic[STATIC_TREE_FEATURES * t];
        f[0] = static_cast<float>(worst) / globalMax;
        f[1] = static_cast<float>(bestSetMax) / setMax[j];
        f[2] = m_sets.size() > 1 ? static_cast<float>(j) / (m_sets.size() - 1) : 0.0f;
        f[3] = toSwitch / size;
        f[4] = m_tree[t].workloads.size() / static_cast<float>(largest);
    }
}

void
DrlEnvironment::Reset()
{
    m_engine->Reset();
    m_state = m_engine.get();
    m_committed.assign(m_roots, NO_INDEX);
    m_rootsDone = 0;
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        if (m_rootTrees[r].size() == 1)
        {
            m_committed[r] = m_rootTrees[r].front();
        }
        m_rootsDone += m_rootTrees[r].empty();
    }
    m_treeLeft.assign(m_tree.size(), 0);
    m_remaining.assign(m_tree.size(), {});
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        m_treeLeft[t] = static_cast<uint32_t>(m_tree[t].workloads.size());
        m_remaining[t] = m_tree[t].workloads;
    }
    m_treeSentLast.assign(m_tree.size(), 0);
    m_selectedLast.assign(m_tree.size(), 0);
    m_selected.assign(m_tree.size(), 0);
    m_roundOf.assign(m_sets.size(), {});
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        m_roundOf[j].assign(m_sets[j].GetN(), NO_INDEX);
    }
    m_candidates.clear();
    m_mask.clear();
    m_pickable = 0;
    m_picked = 0;
    m_selectedCount = 0;
    m_sent = 0;
    m_round = 0;
    m_open = false;
    ComputeLoads();
}

DrlEnvironment::Snapshot
DrlEnvironment::Save() const
{
    if (m_open || m_state != m_engine.get())
    {
        throw std::logic_error(m_open ? "DrlEnvironment::Save: a round is open; close it first"
                                      : "DrlEnvironment::Save: the environment acts on an "
                                        "observed state, which it cannot copy");
    }
    Snapshot s;
    s.engine = std::make_unique<RoundEngine>(*m_engine);
    s.committed = m_committed;
    s.treeLeft = m_treeLeft;
    s.remaining = m_remaining;
    s.treeSentLast = m_treeSentLast;
    s.selectedLast = m_selectedLast;
    s.roundOf = m_roundOf;
    s.load = m_load;
    s.committedLoad = m_committedLoad;
    s.maxLoad = m_maxLoad;
    s.ownReduce = m_ownReduce;
    s.ownGather = m_ownGather;
    s.ownLink = m_ownLink;
    s.selectedCount = m_selectedCount;
    s.sent = m_sent;
    s.rootsDone = m_rootsDone;
    s.round = m_round;
    return s;
}

void
DrlEnvironment::Restore(const Snapshot& s)
{
    if (!s.engine || s.committed.size() != m_roots || s.treeLeft.size() != m_tree.size())
    {
        throw std::invalid_argument("DrlEnvironment::Restore: not a snapshot of this "
                                    "environment");
    }
    *m_engine = *s.engine;
    m_state = m_engine.get();
    m_committed = s.committed;
    m_treeLeft = s.treeLeft;
    m_remaining = s.remaining;
    m_treeSentLast = s.treeSentLast;
    m_selectedLast = s.selectedLast;
    m_selected = s.selectedLast;
    m_roundOf = s.roundOf;
    m_load = s.load;
    m_committedLoad = s.committedLoad;
    m_maxLoad = s.maxLoad;
    m_ownReduce = s.ownReduce;
    m_ownGather = s.ownGather;
    m_ownLink = s.ownLink;
    m_selectedCount = s.selectedCount;
    m_sent = s.sent;
    m_rootsDone = s.rootsDone;
    m_round = s.round;
    m_candidates.clear();
    m_mask.clear();
    m_pickable = 0;
    m_picked = 0;
    m_open = false;
}

void
DrlEnvironment::UseTranslations(const ServerTranslations& translations)
{
    const Topology& topology = m_sets.front().GetTopology();
    if (translations.IsEmpty() || translations.GetNServers() != topology.GetNServers() ||
        topology.CountAggregators() > 0)
    {
        throw std::invalid_argument("DrlEnvironment::UseTranslations: " +
                                    std::string(translations.IsEmpty()
                                                    ? "no translations"
                                                    : "not this topology's translations, or "
                                                      "it has aggregating switches"));
    }
    const uint32_t n = translations.GetNServers();
    std::vector<uint32_t> index(m_engine->GetWorkloads().GetN(), NO_INDEX);
    std::vector<uint32_t> members;
    std::vector<uint32_t> stamp(m_sets.front().GetNDirectedLinks(), NO_INDEX);
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        const WorkloadSet& ws = m_sets[j];
        // A workload is known by its chunk, phase, piece and ends.
        std::map<std::tuple<uint32_t, int, uint32_t, uint32_t, uint32_t>, uint32_t> byKey;
        for (const Workload& w : ws.GetAll())
        {
            byKey[{w.chunk, static_cast<int>(w.phase), w.piece, w.src, w.dst}] = w.id;
        }
        std::vector<uint8_t> covered(ws.GetN(), 0);
        for (const Workload& w : ws.GetAll())
        {
            if (w.chunk != 0)
            {
                continue;
            }
            const auto orbit = static_cast<uint32_t>(members.size() / n);
            for (uint32_t r = 0; r < n; ++r)
            {
                const auto it = byKey.find({r,
                                            static_cast<int>(w.phase),
                                            w.piece,
                                            translations.Map(r, w.src),
                                            translations.Map(r, w.dst)});
                bool same = it != byKey.end();
                const Workload* image = same ? &ws.Get(it->second) : nullptr;
                same = same && image->path.size() == w.path.size() && !covered[image->id];
                for (size_t i = 0; same && i < w.path.size(); ++i)
                {
                    same = image->path[i] == translations.Map(r, w.path[i]);
                }
                for (size_t i = 0; same && i < image->links.size(); ++i)
                {
                    same = stamp[image->links[i]] != orbit; // no link twice in an orbit
                    stamp[image->links[i]] = orbit;
                }
                if (!same)
                {
                    throw std::invalid_argument(
                        "DrlEnvironment::UseTranslations: candidate set " + std::to_string(j) +
                        "'s workloads are not copies of root 0's by the translations (workload " +
                        std::to_string(w.id) + " and root " + std::to_string(r) +
                        "), or an orbit uses a link twice; build the trees with "
                        "BuildSymmetricCandidateTrees");
                }
                covered[image->id] = 1;
                members.push_back(m_offset[j] + image->id);
            }
            index[m_offset[j] + w.id] = orbit;
        }
        if (std::count(covered.begin(), covered.end(), 1) != static_cast<long>(ws.GetN()))
        {
            throw std::invalid_argument("DrlEnvironment::UseTranslations: candidate set " +
                                        std::to_string(j) +
                                        " has workloads in no orbit of root 0's");
        }
    }
    m_orbitSize = n;
    m_orbitIndex = std::move(index);
    m_orbitMembers = std::move(members);
    m_rescanOnPick = true; // an orbit's links are not all indexed by its representative
    Reset();
}

bool
DrlEnvironment::IsSymmetric() const
{
    return m_orbitSize > 0;
}

std::pair<const uint32_t*, const uint32_t*>
DrlEnvironment::OrbitOf(uint32_t set, uint32_t id) const
{
    const uint32_t orbit = m_orbitIndex[m_offset[set] + id];
    const uint32_t* first = m_orbitMembers.data() + uint64_t{orbit} * m_orbitSize;
    return {first, first + m_orbitSize};
}

void
DrlEnvironment::TakeOwnLinkCounts(uint32_t t)
{
    const uint32_t set = m_tree[t].set;
    for (uint32_t id : m_remaining[t])
    {
        const Workload& w = StateWorkload(set, id);
        const auto& on = w.phase == Phase::GATHER ? m_gatherOn : m_reduceOn;
        uint32_t most = 0;
        for (uint32_t l : w.links)
        {
            most = std::max(most, on[l]);
        }
        m_ownLink[m_offset[set] + id] = most;
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
DrlEnvironment::ComputeLoads()
{
    m_load.assign(m_sets.front().GetNDirectedLinks(), 0.0);
    m_committedLoad.assign(m_load.size(), 0);
    m_ownReduce.assign(m_tree.size(), 0);
    m_ownGather.assign(m_tree.size(), 0);
    m_ownLink.resize(m_state->GetWorkloads().GetN());
    m_reduceOn.resize(m_load.size()); // zero between trees (TakeOwnLinkCounts)
    m_gatherOn.resize(m_load.size());
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        const uint32_t root = m_tree[t].root;
        double weight = 0;
        if (m_committed[root] == t)
        {
            weight = 1;
        }
        else if (m_committed[root] == NO_INDEX)
        {
            weight = 1.0 / m_rootTrees[root].size();
        }
        if (weight == 0)
        {
            continue;
        }
        const bool committed = m_committed[root] == t;
        for (uint32_t id : m_remaining[t])
        {
            const Workload& w = StateWorkload(m_tree[t].set, id);
            auto& on = w.phase == Phase::GATHER ? m_gatherOn : m_reduceOn;
            for (uint32_t l : w.links)
            {
                m_load[l] += weight;
                m_committedLoad[l] += committed;
                if (m_reduceOn[l] == 0 && m_gatherOn[l] == 0)
                {
                    m_touched.push_back(l);
                }
                ++on[l]; // this tree's own, per phase
            }
        }
        TakeOwnLinkCounts(t);
    }
    // Link pressure is time: a link that other traffic shares, or a slower one, carries what
    // is left on it more slowly (packet level; at flow level both factors are 1).
    for (uint32_t l = 0; l < m_load.size(); ++l)
    {
        if (m_load[l] > 0)
        {
            const double share = m_state->GetLinkRate(l) * (1.0 - m_state->GetLinkLoad(l));
            m_load[l] /= std::max(MIN_LINK_SHARE, share);
        }
    }
    m_maxLoad = 1;
    for (double v : m_load)
    {
        m_maxLoad = std::max(m_maxLoad, v);
    }
}

WorkloadStatus
DrlEnvironment::StatusOf(uint32_t set, uint32_t id) const
{
    return m_state->GetStatus(m_offset[set] + id);
}

const Workload&
DrlEnvironment::StateWorkload(uint32_t set, uint32_t id) const
{
    return m_state->GetWorkloads().GetAll()[m_offset[set] + id];
}

const std::vector<uint32_t>&
DrlEnvironment::LinksOf(uint32_t set, uint32_t id) const
{
    return StateWorkload(set, id).links;
}

void
DrlEnvironment::DropDone()
{
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        DropDone(t);
    }
}

void
DrlEnvironment::DropDone(uint32_t t)
{
    auto& left = m_remaining[t];
    const uint32_t set = m_tree[t].set;
    left.erase(std::remove_if(left.begin(),
                              left.end(),
                              [&](uint32_t id) {
                                  return StatusOf(set, id) == WorkloadStatus::DONE;
                              }),
               left.end());
    m_treeLeft[t] = static_cast<uint32_t>(left.size());
}

void
DrlEnvironment::RecountLeft()
{
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        m_remaining[t] = m_tree[t].workloads;
    }
    DropDone();
}

void
DrlEnvironment::Observe(SchedulerState& state)
{
    if (IsSymmetric())
    {
        throw std::invalid_argument("DrlEnvironment::Observe: symmetric decoding plans "
                                    "offline; observe with an environment of one set");
    }
    if (m_sets.size() != 1 || state.GetWorkloads().GetN() != m_sets.front().GetN())
    {
        throw std::invalid_argument(
            "DrlEnvironment::Observe: the state runs " +
            std::to_string(state.GetWorkloads().GetN()) + " workloads; the environment has " +
            std::to_string(m_sets.size()) + " candidate set(s) of " +
            std::to_string(m_sets.front().GetN()) +
            " (observe a state with the one set of workloads it was made for)");
    }
    // What the last round did is known only when this decision follows the one before it on
    // the same state (m_round is still the round of that decision).
    const bool next = m_state == &state && state.GetRound() == m_round + 1;
    if (next)
    {
        m_selectedLast = m_selected;
    }
    else
    {
        m_treeSentLast.assign(m_tree.size(), 0);
        m_selectedLast.assign(m_tree.size(), 0);
    }
    // A state that moved on from the one observed last only finished more workloads: drop
    // those from the lists of what is left. The lists then hold every workload not done
    // exactly when their sizes add up to what the state has not finished; anything else (a
    // new state, or one started again) is counted afresh.
    const bool same = m_state == &state;
    m_state = &state;
    m_round = state.GetRound();
    m_sent = state.GetNDone();
    if (same)
    {
        DropDone();
    }
    uint64_t left = 0;
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        left += m_treeLeft[t];
    }
    if (!same || left != state.GetWorkloads().GetN() - m_sent)
    {
        RecountLeft();
    }
    m_rootsDone = 0;
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        m_rootsDone += m_rootTrees[r].empty();
    }
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        m_rootsDone += m_treeLeft[t] == 0;
    }
    m_selected.assign(m_tree.size(), 0);
    m_candidates.clear();
    m_mask.clear();
    m_pickable = 0;
    m_picked = 0;
    m_open = false;
    ComputeLoads();
}

uint32_t
DrlEnvironment::GetTreeRoot(uint32_t t) const
{
    return m_tree.at(t).root;
}

uint32_t
DrlEnvironment::GetTreeOf(uint32_t set, uint32_t id) const
{
    return m_treeOf.at(set).at(id);
}

uint32_t
DrlEnvironment::GetNTrees() const
{
    return static_cast<uint32_t>(m_tree.size());
}

uint32_t
DrlEnvironment::GetNTotal() const
{
    return m_total;
}

uint32_t
DrlEnvironment::GetNSent() const
{
    return m_sent;
}

uint32_t
DrlEnvironment::GetRound() const
{
    return m_round;
}

bool
DrlEnvironment::IsDone() const
{
    return m_rootsDone == m_roots;
}

uint32_t
DrlEnvironment::GetBound() const
{
    return m_bound;
}

uint32_t
DrlEnvironment::GetRoundsLeftBound() const
{
    std::vector<uint32_t> least(m_roots, std::numeric_limits<uint32_t>::max());
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        const uint32_t root = m_tree[t].root;
        const uint32_t c = m_committed[root];
        if (c != NO_INDEX && c != t)
        {
            continue;
        }
        uint32_t height = 0;
        for (uint32_t id : m_remaining[t])
        {
            height = std::max(height, m_sets[m_tree[t].set].GetHeight(id));
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

uint32_t
DrlEnvironment::GetNSets() const
{
    return static_cast<uint32_t>(m_sets.size());
}

std::vector<uint8_t>
DrlEnvironment::GetTreesOfSet(uint32_t set) const
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

std::vector<float>
DrlEnvironment::GetGlobalFeatures() const
{
    const uint32_t servers = std::max<uint32_t>(1, m_sets.front().GetTopology().GetNServers());
    return {static_cast<float>(m_sent) / std::max<uint32_t>(1, m_total),
            static_cast<float>(m_rootsDone) / std::max<uint32_t>(1, m_roots),
            static_cast<float>(m_round) / m_bound,
            static_cast<float>(m_picked) / servers,
            m_aggregatorShare};
}

std::vector<float>
DrlEnvironment::GetTreeFeatures() const
{
    std::vector<float> out(m_tree.size() * TREE_FEATURES, 0.0f);
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        const Tree& tree = m_tree[t];
        const WorkloadSet& set = m_sets[tree.set];
        const float size = static_cast<float>(std::max<size_t>(1, tree.workloads.size()));
        uint32_t ready = 0;
        uint32_t height = 0;
        uint32_t readyHeight = 0;
        double maxPressure = 0;
        double sumPressure = 0;
        uint32_t nLinks = 0;
        for (uint32_t id : m_remaining[t])
        {
            const auto status = StatusOf(tree.set, id);
            height = std::max(height, set.GetHeight(id));
            if (status == WorkloadStatus::READY)
            {
                ++ready;
                readyHeight = std::max(readyHeight, set.GetHeight(id));
            }
            for (uint32_t l : LinksOf(tree.set, id))
            {
                maxPressure = std::max(maxPressure, m_load[l]);
                sumPressure += m_load[l];
                ++nLinks;
            }
        }
        float* f = &out[t * TREE_FEATURES];
        f[0] = m_treeLeft[t] / size;
        f[1] = ready / size;
        f[2] = m_treeSentLast[t] / size;
        f[3] = static_cast<float>(maxPressure / m_maxLoad);
        f[4] = nLinks ? static_cast<float>(sumPressure / nLinks / m_maxLoad) : 0.0f;
        f[5] = static_cast<float>(height) / m_maxHeight;
        f[6] = static_cast<float>(readyHeight) / m_maxHeight;
        f[7] = m_committed[tree.root] == t ? 1.0f : 0.0f;
        f[8] = m_committed[tree.root] == NO_INDEX ? 1.0f : 0.0f;
        f[9] = m_selectedLast[t];
        static_assert(10 + STATIC_TREE_FEATURES == AGGREGATION_TREE_FEATURES,
                      "the static block ends the features with aggregation");
        std::copy_n(&m_treeStatic[STATIC_TREE_FEATURES * t], STATIC_TREE_FEATURES, &f[10]);
        f[15] = static_cast<float>(m_ownReduce[t]) / m_bound;
        f[16] = static_cast<float>(m_ownGather[t]) / m_bound;
        static_assert(17 == TREE_FEATURES, "every tree feature written");
    }
    return out;
}

std::vector<uint8_t>
DrlEnvironment::GetTreeMask() const
{
    std::vector<uint8_t> mask(m_tree.size(), 0);
    if (m_open || IsDone())
    {
        return mask;
    }
    for (uint32_t id : m_state->GetReady())
    {
        const uint32_t t = m_engineTree[id];
        const uint32_t c = m_committed[m_tree[t].root];
        mask[t] = c == NO_INDEX || c == t;
    }
    return mask;
}

uint32_t
DrlEnvironment::SelectTrees(const std::vector<uint8_t>& selected,
                            const std::vector<float>& preference)
{
    if (selected.size() != m_tree.size() ||
        (!preference.empty() && preference.size() != m_tree.size()))
    {
        throw std::invalid_argument(
            "SelectTrees: " + std::to_string(selected.size()) + " entries and " +
            std::to_string(preference.size()) + " preferences for " +
            std::to_string(m_tree.size()) + " trees (preferences: one per tree, or none)");
    }
    if (m_open || IsDone())
    {
        throw std::invalid_argument(m_open ? "SelectTrees: a round is open; close it first"
                                           : "SelectTrees: the AllReduce is done");
    }
    const std::vector<uint8_t> mask = GetTreeMask();
    m_selectedCount = 0;
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        m_selected[t] = (selected[t] != 0 && mask[t] != 0) ? 1 : 0;
        m_selectedCount += m_selected[t];
    }
    if (m_selectedCount == 0)
    {
        m_selected = mask;
        m_selectedCount = static_cast<uint32_t>(std::count(mask.begin(), mask.end(), 1));
    }
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        uint32_t best = NO_INDEX;
        bool served = false;
        for (uint32_t t : m_rootTrees[r])
        {
            served |= m_selected[t] != 0;
            if (mask[t] &&
                (best == NO_INDEX || (!preference.empty() && preference[t] > preference[best])))
            {
                best = t;
            }
        }
        if (!served && best != NO_INDEX)
        {
            m_selected[best] = 1;
            ++m_selectedCount;
        }
    }
    if (IsSymmetric())
    {
        // Every root as root 0; the candidates are root 0's (their orbits go with them).
        m_selectedCount = 0;
        for (uint32_t j = 0; j < m_sets.size(); ++j)
        {
            const uint32_t t0 = m_setTree[j][0];
            for (uint32_t r = 0; r < m_roots && t0 != NO_INDEX; ++r)
            {
                const uint32_t t = m_setTree[j][r];
                m_selected[t] = m_selected[t0] && mask[t];
                m_selectedCount += m_selected[t];
            }
        }
    }
    // The candidates: the ready workloads of the selected trees, tree by tree, each tree's in
    // id order (a pass over what is ready, not over every workload).
    m_treeReady.assign(m_tree.size(), 0);
    for (uint32_t id : m_state->GetReady())
    {
        const uint32_t t = m_engineTree[id];
        m_treeReady[t] += m_selected[t] && (!IsSymmetric() || m_tree[t].root == 0);
    }
    m_treeCandidates.assign(m_tree.size(), {0, 0});
    uint32_t first = 0;
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        m_treeCandidates[t] = {first, first};
        first += m_treeReady[t];
    }
    m_candidates.assign(first, {0, 0});
    for (uint32_t id : m_state->GetReady())
    {
        const uint32_t t = m_engineTree[id];
        if (m_selected[t] && (!IsSymmetric() || m_tree[t].root == 0))
        {
            m_candidates[m_treeCandidates[t].second++] = {m_tree[t].set, id - m_offset[m_tree[t].set]};
        }
    }
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        std::sort(m_candidates.begin() + m_treeCandidates[t].first,
                  m_candidates.begin() + m_treeCandidates[t].second);
    }
    for (auto& users : m_linkCandidates)
    {
        users.clear();
    }
    m_mask.assign(m_candidates.size(), 0);
    m_pickable = 0;
    for (uint32_t c = 0; c < m_candidates.size(); ++c)
    {
        const auto [set, id] = m_candidates[c];
        m_mask[c] = !Conflicts(set, id);
        m_pickable += m_mask[c];
        for (uint32_t l : LinksOf(set, id))
        {
            m_linkCandidates[l].push_back(c);
        }
    }
    m_picked = 0;
    m_treeSentLast.assign(m_tree.size(), 0);
    m_open = true;
    return m_selectedCount;
}

const std::vector<std::pair<uint32_t, uint32_t>>&
DrlEnvironment::GetCandidates() const
{
    return m_candidates;
}

const std::vector<uint8_t>&
DrlEnvironment::GetCandidateMask() const
{
    return m_mask;
}

bool
DrlEnvironment::Conflicts(uint32_t set, uint32_t id) const
{
    if (IsSymmetric())
    {
        // Its whole orbit starts with it (the orbit's links are disjoint: UseTranslations).
        const auto [first, last] = OrbitOf(set, id);
        for (const uint32_t* e = first; e != last; ++e)
        {
            if (!m_state->CanStart(*e))
            {
                return true;
            }
        }
    }
    else if (!m_state->CanStart(m_offset[set] + id))
    {
        return true;
    }
    const uint32_t t = m_treeOf[set][id];
    const uint32_t c = m_committed[m_tree[t].root];
    return c != NO_INDEX && c != t;
}

std::vector<uint32_t>
DrlEnvironment::CountLinkUsers() const
{
    // How many pickable candidates use each link: a candidate that blocks many others is
    // costly to pick.
    std::vector<uint32_t> users(m_sets.front().GetNDirectedLinks(), 0);
    for (size_t c = 0; c < m_candidates.size(); ++c)
    {
        if (m_mask[c])
        {
            for (uint32_t l : LinksOf(m_candidates[c].first, m_candidates[c].second))
            {
                ++users[l];
            }
        }
    }
    return users;
}

void
DrlEnvironment::WriteCandidateFeatures(uint32_t c,
                                       const std::vector<uint32_t>& users,
                                       float* f) const
{
    const auto [set, id] = m_candidates[c];
    const WorkloadSet& ws = m_sets[set];
    const Workload& w = StateWorkload(set, id);
    const uint32_t t = m_treeOf[set][id];
    double maxLoad = 0;
    double sumLoad = 0;
    uint32_t blocked = 0;
    for (uint32_t l : w.links)
    {
        maxLoad = std::max(maxLoad, m_load[l]);
        sumLoad += m_load[l];
        blocked += users[l] > 0 ? users[l] - 1 : 0;
    }
    const uint32_t ready = m_treeReady[t];
    const float size = static_cast<float>(std::max<size_t>(1, m_tree[t].workloads.size()));
    f[0] = static_cast<float>(ws.GetHeight(id)) / m_maxHeight;
    f[1] = static_cast<float>(maxLoad / m_maxLoad);
    f[2] = static_cast<float>(sumLoad / (m_maxLoad * m_maxPath));
    f[3] = w.phase == Phase::GATHER ? 1.0f : 0.0f;
    f[4] = static_cast<float>(w.links.size()) / m_maxPath;
    f[5] = m_treeLeft[t] / size;
    f[6] = m_committed[m_tree[t].root] == t ? 1.0f : 0.0f;
    f[7] = static_cast<float>(ws.GetDependents(id).size()) / m_maxDependents;
    f[8] = static_cast<float>(blocked) / std::max<uint32_t>(1, m_pickable);
    f[9] = ready / size;
    f[10] = ws.GetTopology().IsServer(w.dst) ? 0.0f : 1.0f;
    f[11] = ws.GetTopology().IsServer(w.src) ? 0.0f : 1.0f;
    f[12] = static_cast<float>(w.piece * m_roots + w.chunk) /
            std::max<uint32_t>(1, ws.GetPieces() * m_roots - 1);
    f[13] = static_cast<float>(m_ownLink[m_offset[set] + id]) / m_bound;
    f[14] = static_cast<float>(m_ownReduce[t] + m_ownGather[t]) / m_bound;
    static_assert(15 == CANDIDATE_FEATURES, "every candidate feature written");
}

std::vector<float>
DrlEnvironment::GetCandidateFeatures() const
{
    std::vector<uint32_t> all(m_candidates.size());
    std::iota(all.begin(), all.end(), 0);
    return GetCandidateFeatures(all);
}

std::vector<float>
DrlEnvironment::GetCandidateFeatures(const std::vector<uint32_t>& which) const
{
    std::vector<float> out(which.size() * CANDIDATE_FEATURES, 0.0f);
    const std::vector<uint32_t> users = CountLinkUsers();
    for (size_t i = 0; i < which.size(); ++i)
    {
        if (which[i] >= m_candidates.size())
        {
            throw std::out_of_range("GetCandidateFeatures: candidate " +
                                    std::to_string(which[i]) + " of " +
                                    std::to_string(m_candidates.size()));
        }
        WriteCandidateFeatures(which[i], users, &out[i * CANDIDATE_FEATURES]);
    }
    return out;
}

bool
DrlEnvironment::CanPick() const
{
    return m_open && m_pickable > 0;
}

uint32_t
DrlEnvironment::GetNPickable() const
{
    return m_pickable;
}

double
DrlEnvironment::Pick(uint32_t index)
{
    if (!m_open || index >= m_candidates.size() || !m_mask[index])
    {
        throw std::invalid_argument(
            "Pick: candidate " + std::to_string(index) + " of " +
            std::to_string(m_candidates.size()) +
            (m_open ? " is masked (picked, conflicting or of another tree of its root)"
                    : " cannot be picked: no round is open"));
    }
    const auto [set, id] = m_candidates[index];
    const uint32_t t = m_treeOf[set][id];
    const uint32_t root = m_tree[t].root;
    const auto start = [this, set = set](uint32_t e) {
        const uint32_t local = e - m_offset[set];
        const uint32_t tree = m_treeOf[set][local];
        m_state->Start(e);
        if (m_committed[m_tree[tree].root] == NO_INDEX)
        {
            m_committed[m_tree[tree].root] = tree;
        }
        m_roundOf[set][local] = m_round;
        ++m_treeSentLast[tree];
        ++m_picked;
    };
    if (IsSymmetric())
    {
        const auto [first, last] = OrbitOf(set, id);
        std::for_each(first, last, start);
    }
    else
    {
        start(m_offset[set] + id);
    }
    m_mask[index] = 0;
    --m_pickable;
    const auto recheck = [this](uint32_t c) {
        if (m_mask[c] && Conflicts(m_candidates[c].first, m_candidates[c].second))
        {
            m_mask[c] = 0;
            --m_pickable;
        }
    };
    if (m_rescanOnPick)
    {
        for (uint32_t c = 0; c < m_candidates.size(); ++c)
        {
            recheck(c);
        }
    }
    else
    {
        // A pick blocks the candidates that share a link with it, and, when it commits its
        // root, those of the root's other trees.
        for (uint32_t l : LinksOf(set, id))
        {
            for (uint32_t c : m_linkCandidates[l])
            {
                recheck(c);
            }
        }
        for (uint32_t other : m_rootTrees[root])
        {
            for (uint32_t c = m_treeCandidates[other].first; c < m_treeCandidates[other].second;
                 ++c)
            {
                recheck(c);
            }
        }
    }
    return LowerReward(m_total) * std::max<uint32_t>(1, m_orbitSize);
}

double
DrlEnvironment::CloseRound()
{
    if (!m_open || m_picked == 0 || m_state != m_engine.get())
    {
        throw std::invalid_argument(
            "CloseRound: " + std::string(!m_open        ? "no round is open"
                                         : m_picked == 0 ? "nothing was picked"
                                                         : "the observed state closes its own "
                                                           "rounds"));
    }
    m_engine->CloseRound();
    for (uint32_t t = 0; t < m_tree.size(); ++t)
    {
        if (m_treeSentLast[t] == 0)
        {
            continue;
        }
        DropDone(t); // this round's picks are done now
        if (m_treeLeft[t] == 0)
        {
            ++m_rootsDone;
        }
    }
    m_sent += m_picked;
    ++m_round;
    m_selectedLast = m_selected;
    m_open = false;
    m_candidates.clear();
    m_mask.clear();
    m_pickable = 0;
    const double reward =
        UpperReward(m_picked, m_total, m_selectedCount, GetNTrees(), IsDone());
    m_picked = 0;
    ComputeLoads();
    return reward;
}

const std::vector<uint32_t>&
DrlEnvironment::GetLastRound() const
{
    static const std::vector<uint32_t> none;
    const auto& rounds = m_engine->GetRounds();
    return rounds.empty() ? none : rounds.back();
}

Plan
DrlEnvironment::GetPlan() const
{
    if (!IsDone())
    {
        throw std::logic_error("DrlEnvironment::GetPlan: the AllReduce is not done (" +
                               std::to_string(m_sent) + " of " + std::to_string(m_total) +
                               " workloads sent)");
    }
    if (m_trees.empty() || m_sets.size() == 1)
    {
        Plan plan;
        plan.workloads = m_sets.front();
        plan.schedule = CompactRounds(m_roundOf.front());
        return plan;
    }
    std::vector<uint32_t> chosen(m_roots, 0);
    for (uint32_t r = 0; r < m_roots; ++r)
    {
        if (m_committed[r] != NO_INDEX)
        {
            chosen[r] = m_tree[m_committed[r]].set;
        }
    }
    return MakeTreeChoicePlan(m_trees, m_sets, chosen, m_roundOf);
}

double
DrlEnvironment::UpperReward(uint32_t sent, uint32_t total, uint32_t selected, uint32_t trees,
                            bool done)
{
    const double t = std::max<uint32_t>(1, total);
    double r = sent / t + 0.1 * selected / std::max<uint32_t>(1, trees);
    r += done ? 10.0 : -static_cast<double>(trees) / t;
    return r;
}

double
DrlEnvironment::LowerReward(uint32_t total)
{
    return 1.0 / std::max<uint32_t>(1, total);
}

std::vector<uint8_t>
DrlEnvironment::TeacherTies(BalancedScheduler::Rule rule) const
{
    std::vector<std::tuple<double, double>> key(m_candidates.size());
    const double lowest = -std::numeric_limits<double>::infinity();
    std::tuple<double, double> best{lowest, lowest};
    for (uint32_t c = 0; c < m_candidates.size(); ++c)
    {
        if (!m_mask[c])
        {
            continue;
        }
        const auto [set, id] = m_candidates[c];
        const Workload& w = StateWorkload(set, id);
        double maxLoad = 0;
        double sumLoad = 0;
        for (uint32_t l : w.links)
        {
            maxLoad = std::max(maxLoad, m_load[l]);
            sumLoad += m_load[l];
        }
        const double h = m_sets[set].GetHeight(id);
        switch (rule)
        {
        case BalancedScheduler::Rule::LOAD_THEN_HEIGHT:
            key[c] = {maxLoad, h};
            break;
        case BalancedScheduler::Rule::SUM_THEN_HEIGHT:
            key[c] = {sumLoad, h};
            break;
        case BalancedScheduler::Rule::HEIGHT_ONLY:
            key[c] = {h, 0};
            break;
        case BalancedScheduler::Rule::HEIGHT_THEN_LOAD:
            key[c] = {h, maxLoad};
            break;
        case BalancedScheduler::Rule::CHUNK_THEN_HEIGHT: {
            const uint64_t servers = m_sets[set].GetTopology().GetNServers();
            key[c] = {-static_cast<double>(w.piece * servers + w.chunk), h};
            break;
        }
        }
        best = std::max(best, key[c]);
    }
    std::vector<uint8_t> ties(m_candidates.size(), 0);
    for (uint32_t c = 0; c < m_candidates.size(); ++c)
    {
        ties[c] = m_mask[c] && key[c] == best;
    }
    return ties;
}

std::unique_ptr<DrlEnvironment>
MakeDrlEnvironment(const Topology& topology,
                   uint32_t treesPerRoot,
                   uint32_t treeSeed,
                   uint32_t pieces)
{
    auto trees = BuildCandidateTrees(topology, treesPerRoot, treeSeed);
    AddAggregatorTrees(topology, trees);
    const auto choices = ChooseMergeChoices(topology);
    std::vector<std::vector<FlowTree>> setTrees;
    std::vector<WorkloadSet> sets;
    for (const auto& t : trees)
    {
        for (const auto& merging : choices)
        {
            setTrees.push_back(t);
            sets.push_back(
                WorkloadSet::Build(topology, t, WorkloadSemantics::MERGE, pieces, merging));
        }
    }
    return std::make_unique<DrlEnvironment>(std::move(setTrees), std::move(sets));
}

std::unique_ptr<DrlEnvironment>
MakeSymmetricDrlEnvironment(const Topology& topology,
                            const ServerTranslations& translations,
                            uint32_t treesPerRoot,
                            uint32_t treeSeed,
                            uint32_t pieces)
{
    if (translations.IsEmpty())
    {
        throw std::invalid_argument("MakeSymmetricDrlEnvironment: " + topology.GetName() +
                                    " has no translations");
    }
    auto trees = BuildSymmetricCandidateTrees(topology, translations, treesPerRoot, treeSeed);
    std::vector<WorkloadSet> sets;
    for (const auto& t : trees)
    {
        sets.push_back(WorkloadSet::Build(topology, t, WorkloadSemantics::MERGE, pieces));
    }
    auto env = std::make_unique<DrlEnvironment>(std::move(trees), std::move(sets));
    env->UseTranslations(translations);
    return env;
}

} // namespace ns3
