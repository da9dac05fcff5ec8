/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "balanced-scheduler.h"

#include "scheduler-registry.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>
#include <random>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BalancedScheduler");

NS_OBJECT_ENSURE_REGISTERED(BalancedScheduler);

static const SchedulerRegistration g_registration(
    "balanced",
    BalancedScheduler::GetTypeId(),
    "load-balanced flow trees (shortest or not) chosen by search, then list scheduling",
    40);

TypeId
BalancedScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BalancedScheduler")
            .SetParent<PriorityListScheduler>()
            .SetGroupName("AllReduce")
            .AddConstructor<BalancedScheduler>()
            .AddAttribute("Seed",
                          "Seed of the random tie-breaks; the same seed gives the same schedule",
                          UintegerValue(1),
                          MakeUintegerAccessor(&BalancedScheduler::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Tries",
                          "Priority rule and tie-break combinations tried per tree set (fewer "
                          "on large instances: at most 2 million workloads x tries)",
                          UintegerValue(32),
                          MakeUintegerAccessor(&BalancedScheduler::m_tries),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TreePasses",
                          "Passes of the tree load-balancing local search",
                          UintegerValue(50),
                          MakeUintegerAccessor(&BalancedScheduler::m_passes),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
BalancedScheduler::GetName() const
{
    return "balanced";
}

WorkloadSet
BalancedScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::MERGE, pieces); // before the trees
    return WorkloadSet::Build(topology,
                              BuildBalancedTrees(topology, m_passes, true, m_seed),
                              WorkloadSemantics::MERGE,
                              pieces);
}

std::vector<BalancedScheduler::Rule>
BalancedScheduler::GetRules(const Topology& topology)
{
    std::vector<Rule> rules;
    for (uint32_t r = 0; r < RULE_COUNT; ++r)
    {
        rules.push_back(static_cast<Rule>(r));
    }
    if (topology.CountAggregators() > 0)
    {
        rules.push_back(Rule::CHUNK_THEN_HEIGHT);
    }
    return rules;
}

void
BalancedScheduler::SetRule(Rule rule, uint64_t tieSeed)
{
    m_rule = rule;
    m_tieSeed = tieSeed;
}

Schedule
BalancedScheduler::ScheduleWorkloads(const WorkloadSet& workloads)
{
    return *ScheduleWorkloadsUnder(workloads, std::numeric_limits<uint32_t>::max());
}

std::optional<Schedule>
BalancedScheduler::ScheduleWorkloadsUnder(const WorkloadSet& workloads, uint32_t beat)
{
    const uint64_t budget = 2000000;
    const uint32_t n = std::max<uint32_t>(1, workloads.GetN());
    const auto tries = static_cast<uint32_t>(std::min<uint64_t>(m_tries, std::max<uint64_t>(1, budget / n)));
    // Each rule with ties by id first, then at random.
    std::vector<std::pair<Rule, uint64_t>> combos;
    for (uint32_t i = 0; i < tries; ++i)
    {
        combos.emplace_back(static_cast<Rule>(i % RULE_COUNT),
                            i < RULE_COUNT ? 0 : (uint64_t{m_seed} << 32) + i);
    }
    // Where switches merge, a chunk piece goes on only once every server's part has reached
    // the switch; by critical path the far servers' parts of every chunk go first, every chunk
    // completes late, and the gathers queue at the end. Taking chunk pieces in one order keeps
    // them flowing (fat-tree k=8, every switch aggregating: 255 rounds by critical path, 188
    // in chunk order).
    const uint32_t chunkTries = GetRules(workloads.GetTopology()).size() > RULE_COUNT
                                    ? std::max<uint32_t>(1, tries / RULE_COUNT)
                                    : 0;
    for (uint32_t i = 0; i < chunkTries; ++i)
    {
        combos.emplace_back(Rule::CHUNK_THEN_HEIGHT,
                            i == 0 ? 0 : (uint64_t{m_seed} << 32) + tries + i);
    }
    // A try stops as soon as it cannot beat the best so far: same schedule kept, and the
    // hopeless tries (shortest-path trees on a fat-tree: ten times the rounds) cost little.
    // Nor can a try beat a schedule that meets these workloads' lower bound: the rest are
    // skipped (fat-tree k=16: the first try meets the bandwidth bound).
    const uint32_t floor = ComputeBounds(workloads).GetMax();
    std::optional<Schedule> best;
    Rule bestRule = Rule::HEIGHT_THEN_LOAD;
    uint64_t bestTie = 0;
    for (const auto& [rule, tie] : combos)
    {
        if (best && best->GetNRounds() <= floor)
        {
            break;
        }
        SetRule(rule, tie);
        std::optional<Schedule> s =
            RunRoundsUnder(*this, workloads, best ? best->GetNRounds() : beat);
        if (s)
        {
            best = std::move(s);
            bestRule = rule;
            bestTie = tie;
        }
    }
    SetRule(bestRule, bestTie);
    return best;
}

Plan
BalancedScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::MERGE, pieces); // before the trees
    // Two balanced tree sets (with longer paths, then shortest only) first, the shortest-path
    // trees last: among equally short schedules the first wins.
    // With aggregating switches, each tree set also merges at every aggregator, at the racks'
    // only, or at none (doc/allreduce.rst, "Aggregation in the network": where aggregation
    // pays), each choice once.
    // The cheapest try first: the shortest-path trees in heights only (one sorted list, one
    // pass a round). A schedule that meets the bandwidth bound cannot be beaten (fat-tree k=16:
    // it does, in seconds, where a load rule passes over a million paths a round); one that
    // cannot meet it gives up within its first rounds, and the search runs as before.
    const uint32_t floor = ComputeBandwidthBound(topology, pieces);
    {
        WorkloadSet workloads = WorkloadSet::Build(
            topology, BuildShortestPathTrees(topology), WorkloadSemantics::MERGE, pieces);
        SetRule(Rule::HEIGHT_ONLY, 0);
        std::optional<Schedule> s = RunRoundsUnder(*this, workloads, floor + 1);
        if (s)
        {
            NS_LOG_INFO("balanced: the shortest-path trees in heights only meet the bound, "
                        << s->GetNRounds() << " rounds");
            return Plan{std::move(workloads), std::move(*s)};
        }
    }
    auto trees = BuildCandidateTrees(topology, 3, m_seed, m_passes, 2);
    // Where only some switches aggregate, also trees that route toward them (GRID's point:
    // where the streams go decides whether they meet), tried before the default trees
    // (appended at index size-1, which the loop below visits before trees[0]).
    AddAggregatorTrees(topology, trees);
    const auto choices = ChooseMergeChoices(topology);
    // Each workload set is built when its turn comes; none comes after a schedule that meets
    // the bandwidth bound, which no tree set beats.
    std::optional<Plan> best;
    size_t bestSet = 0;
    Rule bestRule = Rule::HEIGHT_THEN_LOAD;
    uint64_t bestTie = 0;
    for (size_t set = 0; set < trees.size() * choices.size(); ++set)
    {
        if (best && best->schedule.GetNRounds() <= floor)
        {
            break;
        }
        WorkloadSet workloads = WorkloadSet::Build(topology,
                                                   trees[(set / choices.size() + 1) % trees.size()],
                                                   WorkloadSemantics::MERGE,
                                                   pieces,
                                                   choices[set % choices.size()]);
        std::optional<Schedule> s = ScheduleWorkloadsUnder(
            workloads,
            best ? best->schedule.GetNRounds() : std::numeric_limits<uint32_t>::max());
        if (s)
        {
            best = Plan{std::move(workloads), std::move(*s)};
            bestSet = set;
            bestRule = m_rule;
            bestTie = m_tieSeed;
        }
    }
    NS_LOG_INFO("balanced: best " << best->schedule.GetNRounds() << " rounds with tree set "
                                  << bestSet << ", rule " << int(bestRule) << ", tie " << bestTie);
    SetRule(bestRule, bestTie);
    return std::move(*best);
}

namespace
{
/// \param v a value \param bits a width \return v, or the largest value of that width
uint64_t
Clamp(uint64_t v, unsigned bits)
{
    return std::min<uint64_t>(v, (uint64_t{1} << bits) - 1);
}
} // namespace

std::vector<uint64_t>
BalancedScheduler::ComputePriorities(const WorkloadSet& workloads)
{
    m_workloads = &workloads;
    m_remaining = workloads.GetLinkLoads();
    const auto& all = workloads.GetAll();
    m_seenFinished = 0;
    std::mt19937_64 rng(m_tieSeed);
    // The parts of each key that do not change as the schedule unfolds: the load of the
    // links goes in at GetPriority, the same for every workload of one path.
    std::vector<uint64_t> priority(all.size());
    for (const Workload& w : all)
    {
        const uint64_t tie = m_tieSeed != 0 ? rng() & 0xfffff : 0;
        const uint64_t height = Clamp(workloads.GetHeight(w.id), 20);
        switch (m_rule)
        {
        case Rule::HEIGHT_THEN_LOAD:
        case Rule::HEIGHT_ONLY:
            priority[w.id] = (height << 44) | tie;
            break;
        case Rule::LOAD_THEN_HEIGHT:
        case Rule::SUM_THEN_HEIGHT:
            priority[w.id] = (height << 20) | tie;
            break;
        case Rule::CHUNK_THEN_HEIGHT: {
            const uint64_t order =
                uint64_t{w.piece} * workloads.GetTopology().GetNServers() + w.chunk;
            priority[w.id] = (((uint64_t{1} << 20) - 1 - Clamp(order, 20)) << 40) |
                             (height << 20) | tie;
            break;
        }
        }
    }
    return priority;
}

void
BalancedScheduler::UpdatePriorities(const SchedulerState& state)
{
    const auto& all = m_workloads->GetAll();
    const auto& finished = state.GetFinished();
    for (; m_seenFinished < finished.size(); ++m_seenFinished)
    {
        for (uint32_t l : all[finished[m_seenFinished]].links)
        {
            --m_remaining[l];
        }
    }
}

bool
BalancedScheduler::ArePrioritiesFixed() const
{
    return m_rule == Rule::HEIGHT_ONLY || m_rule == Rule::CHUNK_THEN_HEIGHT;
}

uint64_t
BalancedScheduler::GetPriority(uint32_t /* id */, uint64_t pathOrder, IdSpan links) const
{
    if (ArePrioritiesFixed())
    {
        return pathOrder;
    }
    uint64_t maxLoad = 0;
    uint64_t sumLoad = 0;
    for (uint32_t l : links)
    {
        maxLoad = std::max<uint64_t>(maxLoad, m_remaining[l]);
        sumLoad += m_remaining[l];
    }
    switch (m_rule)
    {
    case Rule::HEIGHT_THEN_LOAD:
        return pathOrder | (Clamp(maxLoad, 24) << 20);
    case Rule::LOAD_THEN_HEIGHT:
        return pathOrder | (Clamp(maxLoad, 24) << 40);
    case Rule::SUM_THEN_HEIGHT:
        return pathOrder | (Clamp(sumLoad, 24) << 40);
    default:
        return pathOrder;
    }
}

} // namespace ns3
