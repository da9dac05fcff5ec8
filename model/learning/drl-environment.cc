/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-environment.h"

#include "ns3/candidate-trees.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ns3
{

DrlEnvironment::DrlEnvironment(std::vector<std::vector<FlowTree>> trees,
                               std::vector<WorkloadSet> workloads)
    : m_catalogue(std::move(trees), std::move(workloads)),
      m_loads(m_catalogue),
      m_candidates(m_catalogue),
      m_treeObservation(m_catalogue, m_loads),
      m_candidateObservation(m_catalogue, m_loads, m_candidates)
{
    Init();
}

DrlEnvironment::DrlEnvironment(WorkloadSet workloads)
    : m_catalogue(std::move(workloads)),
      m_loads(m_catalogue),
      m_candidates(m_catalogue),
      m_treeObservation(m_catalogue, m_loads),
      m_candidateObservation(m_catalogue, m_loads, m_candidates)
{
    Init();
}

void
DrlEnvironment::Init()
{
    // One engine runs every candidate set, so that it alone tracks the links in use.
    m_engine = std::make_unique<RoundEngine>(m_catalogue.GetEngineWorkloads());
    m_slots = DrlSlotTracker(m_catalogue);
    m_rescanOnPick = m_catalogue.GetTopology().CountAggregators() > 0;
    Reset();
}

void
DrlEnvironment::Reset()
{
    if (m_start)
    {
        Restore(*m_start);
        return;
    }
    m_engine->Reset();
    m_slots.Reset();
    m_state = m_engine.get();
    const uint32_t roots = m_catalogue.GetNRoots();
    const uint32_t trees = m_catalogue.GetNTrees();
    m_committed.assign(roots, NO_INDEX);
    m_rootsDone = 0;
    for (uint32_t r = 0; r < roots; ++r)
    {
        const auto& mine = m_catalogue.GetRootTrees(r);
        if (mine.size() == 1)
        {
            m_committed[r] = mine.front();
        }
        m_rootsDone += mine.empty();
    }
    m_loads.ListAll();
    m_treeSentLast.assign(trees, 0);
    m_selectedLast.assign(trees, 0);
    m_selected.assign(trees, 0);
    m_roundOf.assign(m_catalogue.GetNSets(), {});
    for (uint32_t j = 0; j < m_catalogue.GetNSets(); ++j)
    {
        m_roundOf[j].assign(m_catalogue.GetSet(j).GetN(), NO_INDEX);
    }
    m_candidates.Clear();
    m_picked = 0;
    m_selectedCount = 0;
    m_sent = 0;
    m_round = 0;
    m_open = false;
    m_loads.ComputeLoads(*m_state, m_committed);
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
    s.slots = m_slots.GetUsage();
    s.committed = m_committed;
    s.loads = m_loads;
    s.treeSentLast = m_treeSentLast;
    s.selectedLast = m_selectedLast;
    s.roundOf = m_roundOf;
    s.selectedCount = m_selectedCount;
    s.sent = m_sent;
    s.rootsDone = m_rootsDone;
    s.round = m_round;
    return s;
}

void
DrlEnvironment::Restore(const Snapshot& s)
{
    if (!s.engine || s.committed.size() != m_catalogue.GetNRoots() ||
        s.loads.GetNTrees() != m_catalogue.GetNTrees())
    {
        throw std::invalid_argument("DrlEnvironment::Restore: not a snapshot of this "
                                    "environment");
    }
    m_engine->CopyStateFrom(*s.engine); // keeps this environment's workloads
    m_slots.SetUsage(s.slots);
    m_state = m_engine.get();
    m_committed = s.committed;
    m_loads.Restore(s.loads);
    m_treeSentLast = s.treeSentLast;
    m_selectedLast = s.selectedLast;
    m_selected = s.selectedLast;
    m_roundOf = s.roundOf;
    m_selectedCount = s.selectedCount;
    m_sent = s.sent;
    m_rootsDone = s.rootsDone;
    m_round = s.round;
    m_candidates.Clear();
    m_picked = 0;
    m_open = false;
}

bool
DrlEnvironment::StartFrom(const SchedulerState& state)
{
    CheckObservable(state, "StartFrom");
    std::vector<uint8_t> allowed(m_catalogue.GetSet(0).GetN(), 0);
    bool any = false;
    for (uint32_t id : state.GetReady())
    {
        if (state.CanStart(id))
        {
            allowed[id] = 1;
            any = true;
        }
    }
    if (!any)
    {
        return false;
    }
    m_start.reset();
    m_allowedNow.clear();
    Reset();
    std::vector<uint32_t> sent = state.GetFinished();
    sent.insert(sent.end(), state.GetStarted().begin(), state.GetStarted().end());
    SendBefore(sent);
    m_allowedNow = std::move(allowed);
    m_start = std::make_unique<Snapshot>(Save());
    return true;
}

void
DrlEnvironment::SendBefore(const std::vector<uint32_t>& sent)
{
    const auto close = [this]() {
        m_engine->CloseRound();
        ++m_round;
    };
    for (uint32_t id : sent)
    {
        if (!m_engine->CanStart(id) && !m_engine->GetStarted().empty())
        {
            close(); // it shares a link with this round's, or depends on one of them
        }
        if (!m_engine->CanStart(id))
        {
            throw std::logic_error("DrlEnvironment::StartFrom: workload " + std::to_string(id) +
                                   " was sent before what it depends on; please report this");
        }
        m_engine->Start(id);
        m_roundOf[0][id] = m_round;
    }
    if (!m_engine->GetStarted().empty())
    {
        close();
    }
    m_sent = static_cast<uint32_t>(sent.size());
    m_loads.RecountLeft(*m_engine);
    CountRootsDone();
    m_loads.ComputeLoads(*m_engine, m_committed);
}

uint32_t
DrlEnvironment::GetStartRound() const
{
    return m_start ? m_start->round : 0;
}

uint32_t
DrlEnvironment::GetStartSent() const
{
    return m_start ? m_start->sent : 0;
}

bool
DrlEnvironment::IsAllowedNow(uint32_t e) const
{
    return m_allowedNow.empty() || m_round != GetStartRound() || m_allowedNow[e] != 0;
}

void
DrlEnvironment::UseTranslations(const ServerTranslations& translations)
{
    m_start.reset(); // symmetric decoding starts from the beginning
    m_allowedNow.clear();
    m_orbits = std::make_unique<DrlOrbits>(m_catalogue, translations);
    m_listedRoots.assign(m_catalogue.GetNRoots(), 0);
    for (uint32_t r = 0; r < m_catalogue.GetNRoots(); ++r)
    {
        m_listedRoots[r] = m_orbits->GetRepresentative(r) == r;
    }
    m_rescanOnPick = true; // an orbit's links are not all indexed by its representative
    Reset();
}

bool
DrlEnvironment::IsSymmetric() const
{
    return m_orbits != nullptr;
}

uint32_t
DrlEnvironment::DecisionSize() const
{
    return std::max<uint32_t>(1, m_orbits ? m_orbits->GetSize() : 0);
}

void
DrlEnvironment::CheckObservable(const SchedulerState& state, const std::string& caller) const
{
    if (IsSymmetric())
    {
        throw std::invalid_argument("DrlEnvironment::" + caller + ": symmetric decoding plans "
                                    "offline; observe with an environment of one set");
    }
    const WorkloadSet& mine = m_catalogue.GetSet(0);
    if (m_catalogue.GetNSets() != 1 || state.GetWorkloads().GetN() != mine.GetN())
    {
        throw std::invalid_argument(
            "DrlEnvironment::" + caller + ": the state runs " +
            std::to_string(state.GetWorkloads().GetN()) + " workloads; the environment has " +
            std::to_string(m_catalogue.GetNSets()) + " candidate set(s) of " +
            std::to_string(mine.GetN()) +
            " (observe a state with the one set of workloads it was made for)");
    }
}

void
DrlEnvironment::Observe(SchedulerState& state)
{
    CheckObservable(state, "Observe");
    m_start.reset(); // a live state acted on directly: no start of episodes to come back to
    m_allowedNow.clear();
    // What the last round did is known only when this decision follows the one before it on
    // the same state (m_round is still the round of that decision).
    const uint32_t trees = m_catalogue.GetNTrees();
    const bool next = m_state == &state && state.GetRound() == m_round + 1;
    if (next)
    {
        m_selectedLast = m_selected;
    }
    else
    {
        m_treeSentLast.assign(trees, 0);
        m_selectedLast.assign(trees, 0);
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
        m_loads.DropDone(state);
    }
    uint64_t left = 0;
    for (uint32_t t = 0; t < trees; ++t)
    {
        left += m_loads.GetLeft(t);
    }
    if (!same || left != state.GetWorkloads().GetN() - m_sent)
    {
        m_loads.RecountLeft(state);
    }
    CountRootsDone();
    m_selected.assign(trees, 0);
    m_candidates.Clear();
    m_picked = 0;
    m_open = false;
    m_loads.ComputeLoads(*m_state, m_committed);
}

void
DrlEnvironment::CountRootsDone()
{
    m_rootsDone = 0;
    for (uint32_t r = 0; r < m_catalogue.GetNRoots(); ++r)
    {
        m_rootsDone += m_catalogue.GetRootTrees(r).empty();
    }
    for (uint32_t t = 0; t < m_catalogue.GetNTrees(); ++t)
    {
        m_rootsDone += m_loads.GetLeft(t) == 0;
    }
}

uint32_t
DrlEnvironment::GetTreeRoot(uint32_t t) const
{
    return m_catalogue.GetTrees().at(t).root;
}

uint32_t
DrlEnvironment::GetTreeOf(uint32_t set, uint32_t id) const
{
    return m_catalogue.GetTreeOf(set, id);
}

uint32_t
DrlEnvironment::GetNTrees() const
{
    return m_catalogue.GetNTrees();
}

uint32_t
DrlEnvironment::GetNTotal() const
{
    return m_catalogue.GetNTotal();
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
    return m_rootsDone == m_catalogue.GetNRoots();
}

uint32_t
DrlEnvironment::GetBound() const
{
    return m_catalogue.GetBound();
}

uint32_t
DrlEnvironment::GetRoundsLeftBound() const
{
    return m_loads.GetRoundsLeftBound(m_committed);
}

uint32_t
DrlEnvironment::GetNSets() const
{
    return m_catalogue.GetNSets();
}

std::vector<uint8_t>
DrlEnvironment::GetTreesOfSet(uint32_t set) const
{
    return m_catalogue.GetTreesOfSet(set);
}

std::vector<float>
DrlEnvironment::GetGlobalFeatures() const
{
    const uint32_t servers = std::max<uint32_t>(1, m_catalogue.GetTopology().GetNServers());
    return {static_cast<float>(m_sent) / std::max<uint32_t>(1, m_catalogue.GetNTotal()),
            static_cast<float>(m_rootsDone) / std::max<uint32_t>(1, m_catalogue.GetNRoots()),
            static_cast<float>(m_round) / m_catalogue.GetBound(),
            static_cast<float>(m_picked) / servers,
            m_catalogue.GetAggregatorShare()};
}

std::vector<float>
DrlEnvironment::GetTreeFeatures() const
{
    return m_treeObservation.Compute(*m_state, m_committed, m_treeSentLast, m_selectedLast);
}

std::vector<uint8_t>
DrlEnvironment::GetTreeMask() const
{
    std::vector<uint8_t> mask(m_catalogue.GetNTrees(), 0);
    if (m_open || IsDone())
    {
        return mask;
    }
    for (uint32_t id : m_state->GetReady())
    {
        const uint32_t t = m_catalogue.GetTreeOfEngineId(id);
        const uint32_t c = m_committed[m_catalogue.GetTree(t).root];
        // Ready is not enough: a workload whose aggregating switch has no free slot (another
        // chunk holds it) cannot start, and a tree of such workloads only would give the
        // round nothing to pick.
        mask[t] |= (c == NO_INDEX || c == t) && IsAllowedNow(id) && m_state->CanStart(id) &&
                   m_slots.CanStart(id);
    }
    return mask;
}

uint32_t
DrlEnvironment::SelectTrees(const std::vector<uint8_t>& selected,
                            const std::vector<float>& preference)
{
    const uint32_t trees = m_catalogue.GetNTrees();
    if (selected.size() != trees || (!preference.empty() && preference.size() != trees))
    {
        throw std::invalid_argument("SelectTrees: " + std::to_string(selected.size()) +
                                    " entries and " + std::to_string(preference.size()) +
                                    " preferences for " + std::to_string(trees) +
                                    " trees (preferences: one per tree, or none)");
    }
    if (m_open || IsDone())
    {
        throw std::invalid_argument(m_open ? "SelectTrees: a round is open; close it first"
                                           : "SelectTrees: the AllReduce is done");
    }
    ApplySelection(selected, preference, GetTreeMask());
    m_candidates.List(*m_state, m_selected, m_listedRoots, MakeConflictTest());
    m_picked = 0;
    m_treeSentLast.assign(trees, 0);
    m_open = true;
    return m_selectedCount;
}

void
DrlEnvironment::ApplySelection(const std::vector<uint8_t>& selected,
                               const std::vector<float>& preference,
                               const std::vector<uint8_t>& mask)
{
    m_selectedCount = 0;
    for (uint32_t t = 0; t < m_catalogue.GetNTrees(); ++t)
    {
        m_selected[t] = (selected[t] != 0 && mask[t] != 0) ? 1 : 0;
        m_selectedCount += m_selected[t];
    }
    if (m_selectedCount == 0)
    {
        m_selected = mask;
        m_selectedCount = static_cast<uint32_t>(std::count(mask.begin(), mask.end(), 1));
    }
    for (uint32_t r = 0; r < m_catalogue.GetNRoots(); ++r)
    {
        uint32_t best = NO_INDEX;
        bool served = false;
        for (uint32_t t : m_catalogue.GetRootTrees(r))
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
        // Every root as its representative (smaller, so decided first); the candidates are
        // the representatives' (their orbits go with them).
        m_selectedCount = 0;
        for (uint32_t j = 0; j < m_catalogue.GetNSets(); ++j)
        {
            for (uint32_t r = 0; r < m_catalogue.GetNRoots(); ++r)
            {
                const uint32_t tq = m_catalogue.GetSetTree(j, m_orbits->GetRepresentative(r));
                const uint32_t t = m_catalogue.GetSetTree(j, r);
                if (tq == NO_INDEX || t == NO_INDEX)
                {
                    continue;
                }
                m_selected[t] = m_selected[tq] && mask[t];
                m_selectedCount += m_selected[t];
            }
        }
    }
}

const std::vector<std::pair<uint32_t, uint32_t>>&
DrlEnvironment::GetCandidates() const
{
    return m_candidates.Get();
}

const std::vector<uint8_t>&
DrlEnvironment::GetCandidateMask() const
{
    return m_candidates.GetMask();
}

bool
DrlEnvironment::Conflicts(uint32_t set, uint32_t id) const
{
    const uint32_t e = m_catalogue.GetEngineId(set, id);
    if (IsSymmetric())
    {
        // Its whole orbit starts with it (the orbit's links are disjoint: DrlOrbits).
        for (uint32_t member : m_orbits->GetOrbit(e))
        {
            if (!m_state->CanStart(member))
            {
                return true;
            }
        }
    }
    else if (!m_state->CanStart(e) || !IsAllowedNow(e) || !m_slots.CanStart(e))
    {
        return true;
    }
    const uint32_t t = m_catalogue.GetTreeOf(set, id);
    const uint32_t c = m_committed[m_catalogue.GetTree(t).root];
    return c != NO_INDEX && c != t;
}

DrlRoundCandidates::ConflictTest
DrlEnvironment::MakeConflictTest() const
{
    return [this](uint32_t set, uint32_t id) { return Conflicts(set, id); };
}

std::vector<float>
DrlEnvironment::GetCandidateFeatures() const
{
    std::vector<uint32_t> all(m_candidates.Get().size());
    std::iota(all.begin(), all.end(), 0);
    return GetCandidateFeatures(all);
}

std::vector<float>
DrlEnvironment::GetCandidateFeatures(const std::vector<uint32_t>& which) const
{
    return m_candidateObservation.Compute(which, *m_state, m_committed);
}

bool
DrlEnvironment::CanPick() const
{
    return m_open && m_candidates.GetNPickable() > 0;
}

uint32_t
DrlEnvironment::GetNPickable() const
{
    return m_candidates.GetNPickable();
}

void
DrlEnvironment::StartWorkload(uint32_t set, uint32_t e)
{
    const uint32_t local = e - m_catalogue.GetOffset(set);
    const uint32_t tree = m_catalogue.GetTreeOf(set, local);
    const uint32_t root = m_catalogue.GetTree(tree).root;
    m_state->Start(e);
    m_slots.Start(e);
    if (m_committed[root] == NO_INDEX)
    {
        m_committed[root] = tree;
    }
    m_roundOf[set][local] = m_round;
    ++m_treeSentLast[tree];
    ++m_picked;
}

double
DrlEnvironment::Pick(uint32_t index)
{
    const auto& candidates = m_candidates.Get();
    if (!m_open || index >= candidates.size() || !m_candidates.GetMask()[index])
    {
        throw std::invalid_argument(
            "Pick: candidate " + std::to_string(index) + " of " +
            std::to_string(candidates.size()) +
            (m_open ? " is masked (picked, conflicting or of another tree of its root)"
                    : " cannot be picked: no round is open"));
    }
    const auto [set, id] = candidates[index];
    const uint32_t e = m_catalogue.GetEngineId(set, id);
    if (IsSymmetric())
    {
        for (uint32_t member : m_orbits->GetOrbit(e))
        {
            StartWorkload(set, member);
        }
    }
    else
    {
        StartWorkload(set, e);
    }
    m_candidates.Take(index, *m_state, m_rescanOnPick, MakeConflictTest());
    return LowerReward(m_catalogue.GetNTotal()) * DecisionSize();
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
    for (uint32_t e : GetLastRound())
    {
        m_slots.Finish(e);
    }
    for (uint32_t t = 0; t < m_catalogue.GetNTrees(); ++t)
    {
        if (m_treeSentLast[t] == 0)
        {
            continue;
        }
        m_loads.DropDone(t, *m_state); // this round's picks are done now
        if (m_loads.GetLeft(t) == 0)
        {
            ++m_rootsDone;
        }
    }
    m_sent += m_picked;
    ++m_round;
    m_selectedLast = m_selected;
    m_open = false;
    m_candidates.Clear();
    const double reward =
        UpperReward(m_picked, m_catalogue.GetNTotal(), m_selectedCount, GetNTrees(), IsDone());
    m_picked = 0;
    m_loads.ComputeLoads(*m_state, m_committed);
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
                               std::to_string(m_sent) + " of " +
                               std::to_string(m_catalogue.GetNTotal()) + " workloads sent)");
    }
    return m_catalogue.MakePlan(m_committed, m_roundOf);
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
    return m_candidateObservation.TeacherTies(rule, *m_state);
}

std::unique_ptr<DrlEnvironment>
MakeDrlEnvironment(const Topology& topology,
                   uint32_t treesPerRoot,
                   uint32_t treeSeed,
                   uint32_t pieces,
                   const std::vector<std::vector<FlowTree>>& taught)
{
    if (!taught.empty() && topology.CountAggregators() > 0)
    {
        throw std::invalid_argument("MakeDrlEnvironment: taught tree sets on " +
                                    topology.GetName() + ", which has aggregating switches");
    }
    // Taught trees (the flat-tree search's) stand alone: beside other candidate sets the upper
    // level, which sees no feature telling them apart, did not learn to select them.
    auto trees = taught.empty() ? BuildCandidateTrees(topology, treesPerRoot, treeSeed) : taught;
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
