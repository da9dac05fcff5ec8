/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "optimal-scheduler.h"

#include "balanced-scheduler.h"
#include "flat-tree-search.h"
#include "round-program.h"
#include "symmetric-program.h"
#include "scheduler-registry.h"

#include "ns3/abort.h"
#include "ns3/aggregator-slots.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OptimalScheduler");

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);

static const SchedulerRegistration g_registration(
    "optimal",
    OptimalScheduler::GetTypeId(),
    "the fewest rounds for the flow trees in use, proven with an integer program (COIN-OR "
    "CBC); status and interval when the time limit stops it",
    50,
    &GetOptimalSchedulerUnavailableReason);

namespace
{

using Clock = std::chrono::steady_clock;

double
SecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// \return the number of distinct rounds used by a roundOf assignment over candidates
uint32_t
CountRounds(const std::vector<std::vector<uint32_t>>& roundOf)
{
    std::vector<bool> used;
    for (const auto& v : roundOf)
    {
        for (uint32_t t : v)
        {
            if (t != NO_INDEX)
            {
                if (t >= used.size())
                {
                    used.resize(t + 1, false);
                }
                used[t] = true;
            }
        }
    }
    return static_cast<uint32_t>(std::count(used.begin(), used.end(), true));
}

/**
 * Per root, keeps the first of every group of candidates with the same tree (the same
 * workloads of that chunk); the others leave the program.
 * \param candidates the candidate workload sets
 * \param[in,out] inst gets options and active
 */
void
OfferDistinctTrees(const std::vector<WorkloadSet>& candidates, RoundProgramInstance& inst)
{
    const auto nSets = static_cast<uint32_t>(candidates.size());
    using Signature = std::vector<std::pair<Workload::Key, std::vector<uint32_t>>>;
    std::vector<std::map<Signature, uint32_t>> seen(inst.roots);
    std::vector<std::vector<Signature>> keys(nSets, std::vector<Signature>(inst.roots));
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (const Workload& w : candidates[j].GetAll())
        {
            keys[j][w.chunk].emplace_back(w.GetKey(), w.path);
        }
    }
    std::vector<std::vector<bool>> rootActive(nSets, std::vector<bool>(inst.roots, false));
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        for (uint32_t j = 0; j < nSets; ++j)
        {
            if (seen[r].emplace(keys[j][r], j).second)
            {
                inst.options[r].push_back(j);
                rootActive[j][r] = true;
            }
        }
    }
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (const Workload& w : candidates[j].GetAll())
        {
            inst.active[j][w.id] = rootActive[j][w.chunk];
        }
    }
}

/**
 * Bounds valid for every choice of trees: per link, the sum over roots of the least load any
 * of the root's trees puts there; the least critical path each root can have.
 * \param candidates the candidate workload sets
 * \param inst the options per root
 * \return the bounds
 */
RoundBounds
ComputeChoiceBounds(const std::vector<WorkloadSet>& candidates, const RoundProgramInstance& inst)
{
    RoundBounds b;
    b.bandwidth = ComputeBandwidthBound(candidates.front().GetTopology(),
                                        candidates.front().GetPieces());
    const uint32_t nLinks = candidates.front().GetNDirectedLinks();
    std::vector<uint32_t> linkLoad(nLinks, 0);
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        std::vector<uint32_t> least(nLinks, NO_INDEX);
        uint32_t leastPath = NO_INDEX;
        for (uint32_t j : inst.options[r])
        {
            std::vector<uint32_t> load(nLinks, 0);
            uint32_t path = 0;
            for (const Workload& w : candidates[j].GetAll())
            {
                if (w.chunk == r)
                {
                    for (uint32_t l : w.links)
                    {
                        ++load[l];
                    }
                    path = std::max(path,
                                    candidates[j].GetHeight(w.id) + candidates[j].GetDepth(w.id));
                }
            }
            for (uint32_t l = 0; l < nLinks; ++l)
            {
                least[l] = std::min(least[l], load[l]);
            }
            leastPath = std::min(leastPath, path);
        }
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            linkLoad[l] += least[l] == NO_INDEX ? 0 : least[l];
        }
        b.path = std::max(b.path, leastPath == NO_INDEX ? 0 : leastPath);
    }
    b.links = nLinks == 0 ? 0 : *std::max_element(linkLoad.begin(), linkLoad.end());
    return b;
}

} // namespace

bool
IsOptimalSchedulerAvailable()
{
    return RoundProgram::IsSolverAvailable();
}

std::string
GetOptimalSchedulerUnavailableReason()
{
    if (IsOptimalSchedulerAvailable())
    {
        return "";
    }
    return "the 'optimal' scheduler needs COIN-OR CBC, which was not found when this module "
           "was configured; install it (Debian: apt-get install coinor-libcbc-dev) and "
           "configure the module again";
}

std::string
OptimalSearch::GetStatusName() const
{
    switch (status)
    {
    case OPTIMAL:
        return "optimal";
    case FEASIBLE:
        return "feasible";
    case TIME_LIMIT:
        return "time-limit";
    }
    return "?";
}

std::string
OptimalSearch::GetInterval() const
{
    if (lower == upper)
    {
        return std::to_string(upper);
    }
    return "[" + std::to_string(lower) + ", " + std::to_string(upper) + "]";
}

std::string
OptimalSearch::GetCandidateInterval() const
{
    if (candidateLower == upper)
    {
        return std::to_string(upper);
    }
    if (candidateLower > upper)
    {
        return "at least " + std::to_string(candidateLower); // the start is on other trees
    }
    return "[" + std::to_string(candidateLower) + ", " + std::to_string(upper) + "]";
}

TypeId
OptimalScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OptimalScheduler")
            .SetParent<AllReduceScheduler>()
            .SetGroupName("AllReduce")
            .AddConstructor<OptimalScheduler>()
            .AddAttribute("TimeLimit",
                          "Wall-time limit of the search in seconds (balanced's start on the "
                          "candidate trees and every integer program; the plans of StartFrom's "
                          "other schedulers come before it, bounded by their own budgets); "
                          "when it runs out the best schedule found is returned with its "
                          "status and proven interval",
                          DoubleValue(60.0),
                          MakeDoubleAccessor(&OptimalScheduler::m_timeLimit),
                          MakeDoubleChecker<double>(0.001))
            .AddAttribute("SymmetricShare",
                          "Share of TimeLimit the program restricted to symmetric schedules "
                          "may take on the best start plan's trees, where the topology's "
                          "translations copy them (0: none; doc/allreduce.rst, \"The exact "
                          "scheduler: optimal\")",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&OptimalScheduler::m_symmetricShare),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("TreesPerRoot",
                          "Candidate flow trees per root the program may choose among (1: the "
                          "shortest-path trees only; more: also load-balanced trees)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&OptimalScheduler::m_treesPerRoot),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("MaxNonzeros",
                          "Largest integer program built, in non-zero coefficients (about 40 "
                          "bytes each in CBC); larger instances get the heuristic's schedule "
                          "and the bounds, with a note saying so",
                          UintegerValue(50000000),
                          MakeUintegerAccessor(&OptimalScheduler::m_maxNonzeros),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("StartFrom",
                          "Schedulers whose best plan is the first upper bound, comma "
                          "separated (auto: every registered scheduler that can plan on the "
                          "topology, drl where LibTorch and a checkpoint for it are there); "
                          "the search keeps that plan when the program finds nothing better",
                          StringValue("auto"),
                          MakeStringAccessor(&OptimalScheduler::m_startFrom),
                          MakeStringChecker())
            .AddAttribute("FlatSearchMoves",
                          "Moves of the flat-tree search per round count it tries (where "
                          "servers reach each other through switches only: every transfer "
                          "straight to its root, rounds and paths chosen by a tabu search; "
                          "doc/allreduce.rst); 0: none",
                          UintegerValue(300000),
                          MakeUintegerAccessor(&OptimalScheduler::m_flatMoves),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Seed",
                          "Seed of the load-balanced candidate trees (TreesPerRoot > 1) and of "
                          "the flat-tree search",
                          UintegerValue(1),
                          MakeUintegerAccessor(&OptimalScheduler::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("StartScheduler",
                            "A scheduler StartFrom names is about to make its start plan",
                            MakeTraceSourceAccessor(&OptimalScheduler::m_startScheduler),
                            "ns3::OptimalScheduler::StartSchedulerCallback");
    return tid;
}

std::string
OptimalScheduler::GetName() const
{
    return "optimal";
}

const OptimalSearch&
OptimalScheduler::GetSearch() const
{
    return m_search;
}

void
OptimalScheduler::Prepare(const WorkloadSet& workloads)
{
    std::vector<WorkloadSet> candidates{workloads};
    std::vector<uint32_t> chosen;
    m_search = OptimalSearch();
    Schedule started;
    const uint32_t startRounds = RunStartRounds(workloads, started);
    const std::string startName = m_search.heuristic;
    const auto start = Clock::now(); // TimeLimit counts the program's time from here
    const auto roundOf = Search(candidates, false, chosen, start, startRounds, startName);
    // For fixed workloads the program's bounds hold for every schedule of them.
    m_search.lower = m_search.candidateLower;
    SetStatus();
    // The program's schedule, or the start's where it found nothing better.
    Schedule schedule = CountRounds(roundOf) > m_search.upper ? std::move(started)
                                                              : CompactRounds(roundOf.front());
    schedule.scheduler = GetName();
    m_replay->SetSchedule(std::move(schedule));
    m_replay->Prepare(workloads);
}

void
OptimalScheduler::SelectRound(SchedulerState& state)
{
    m_replay->SelectRound(state);
}

Plan
OptimalScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::MERGE, pieces); // before the trees
    if (!IsOptimalSchedulerAvailable())
    {
        throw std::runtime_error(GetOptimalSchedulerUnavailableReason());
    }
    m_search = OptimalSearch();
    const auto begin = Clock::now();
    const uint32_t certified = ComputeCertifiedBound(topology, pieces);
    Plan started;
    uint32_t startRounds = RunStartSchedulers(topology, pieces, started);
    SearchFlatTrees(topology, pieces, certified, started, startRounds);
    m_search.startSeconds = SecondsSince(begin);
    const auto start = Clock::now(); // TimeLimit counts the programs' time from here
    if (pieces == 1)
    {
        SearchSymmetric(topology, certified, started, startRounds);
    }
    const std::string startName = m_search.heuristic;
    Plan plan;
    if (startRounds <= certified)
    {
        // A plan found elsewhere meets the certified bound: nothing can do better.
        plan = std::move(started);
        m_search.upper = startRounds;
        m_search.heuristicRounds = startRounds;
        m_search.candidateLower = startRounds;
        m_search.treesPerRoot = 0;
    }
    else
    {
        const auto trees = BuildCandidateTrees(topology, m_treesPerRoot, m_seed);
        std::vector<WorkloadSet> candidates;
        for (const auto& t : trees)
        {
            candidates.push_back(
                WorkloadSet::Build(topology, t, WorkloadSemantics::MERGE, pieces));
        }
        std::vector<uint32_t> chosen;
        const auto roundOf =
            Search(candidates, candidates.size() > 1, chosen, start, startRounds, startName);
        if (CountRounds(roundOf) > m_search.upper)
        {
            plan = std::move(started); // the program found nothing better than the start
        }
        else if (candidates.size() == 1)
        {
            plan.workloads = std::move(candidates.front());
            plan.schedule = CompactRounds(roundOf.front());
        }
        else
        {
            plan = MakeTreeChoicePlan(trees, candidates, chosen, roundOf);
        }
    }
    m_search.lower = std::min(certified, m_search.upper);
    SetStatus();
    m_search.seconds = SecondsSince(begin);
    plan.schedule.scheduler = GetName();
    const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
    if (!check.valid)
    {
        throw std::logic_error("optimal: the solver's schedule is invalid (" + check.error +
                               "); please report this");
    }
    return plan;
}

std::vector<std::vector<uint32_t>>
OptimalScheduler::Search(const std::vector<WorkloadSet>& candidates,
                         bool treeChoice,
                         std::vector<uint32_t>& chosen,
                         Clock::time_point start,
                         uint32_t cap,
                         const std::string& capName)
{
    if (!IsOptimalSchedulerAvailable())
    {
        throw std::runtime_error(GetOptimalSchedulerUnavailableReason());
    }
    NS_ABORT_MSG_IF(candidates.empty() || (!treeChoice && candidates.size() != 1),
                    "optimal: one candidate without tree choice");
    if (AggregatorSlots::HasLimitedSlots(candidates.front().GetTopology()))
    {
        throw std::invalid_argument(
            "optimal: its integer program does not model aggregator slots (doc/allreduce.rst, "
            "\"Aggregation in the network\"); leave slots= out for unlimited slots, or use "
            "another scheduler");
    }
    m_search.treesPerRoot = static_cast<uint32_t>(candidates.size());
    std::vector<std::vector<uint32_t>> best = StartFromHeuristic(candidates, chosen);
    if (cap < m_search.upper)
    {
        // The program asks only about fewer rounds than the plan found elsewhere; best stays
        // the candidates' schedule, which the caller sets aside unless the program beats cap.
        m_search.upper = cap;
        m_search.heuristicRounds = cap;
        m_search.heuristic = capName;
    }
    const RoundProgramInstance inst = MakeInstance(candidates, treeChoice);
    // The program's bounds hold on the candidate trees only; they may be above a start plan
    // found on other trees, and then there is nothing for the program to find.
    m_search.lower = std::min(m_search.bounds.GetMax(), m_search.upper);
    Bisect(inst, start, best, chosen);
    m_search.candidateLower = std::max(m_search.bounds.GetMax(), m_search.lower);
    m_search.seconds = SecondsSince(start);
    NS_LOG_INFO("optimal: on the candidate trees " << m_search.GetCandidateInterval() << " in "
                                                  << m_search.seconds << " s");
    return best;
}

void
OptimalScheduler::SetStatus()
{
    m_search.lower = std::min(m_search.lower, m_search.upper);
    m_search.candidateLower = std::max(m_search.candidateLower, m_search.lower);
    if (m_search.lower == m_search.upper)
    {
        m_search.status = OptimalSearch::OPTIMAL;
    }
    else if (m_search.candidateLower >= m_search.upper)
    {
        m_search.status = OptimalSearch::FEASIBLE;
    }
    else
    {
        m_search.status = OptimalSearch::TIME_LIMIT;
    }
    NS_LOG_INFO("optimal: " << m_search.GetStatusName() << " " << m_search.GetInterval());
}

std::vector<std::string>
OptimalScheduler::GetStartNames() const
{
    if (m_startFrom == "auto")
    {
        std::vector<std::string> names;
        for (const auto& [name, description] : ListSchedulers())
        {
            if (name != GetName() && GetSchedulerUnavailableReason(name).empty())
            {
                names.push_back(name);
            }
        }
        return names;
    }
    std::vector<std::string> names;
    if (m_startFrom == "none")
    {
        return names;
    }
    for (size_t from = 0; from <= m_startFrom.size();)
    {
        const size_t comma = std::min(m_startFrom.find(',', from), m_startFrom.size());
        const std::string name = m_startFrom.substr(from, comma - from);
        from = comma + 1;
        if (name == GetName() || name.empty() ||
            std::find(names.begin(), names.end(), name) != names.end())
        {
            throw std::invalid_argument(
                "optimal: StartFrom '" + m_startFrom +
                "' must name other schedulers, each once, comma separated (e.g. "
                "balanced,drl), or be auto or none");
        }
        std::string known;
        bool registered = false;
        for (const auto& [entry, description] : ListSchedulers())
        {
            registered = registered || entry == name;
            known += entry == GetName() ? "" : (known.empty() ? "" : ", ") + entry;
        }
        if (!registered)
        {
            throw std::invalid_argument("optimal: StartFrom names '" + name +
                                        "', which is not a scheduler's name; give names of " +
                                        known + " (comma separated, no spaces), auto or none");
        }
        const std::string why = GetSchedulerUnavailableReason(name);
        if (!why.empty())
        {
            throw std::invalid_argument("optimal: StartFrom names " + name + ": " + why);
        }
        names.push_back(name);
    }
    return names;
}

void
OptimalScheduler::SearchFlatTrees(const Topology& topology,
                                  uint32_t pieces,
                                  uint32_t certified,
                                  Plan& best,
                                  uint32_t& bestRounds)
{
    if (pieces != 1 || m_flatMoves == 0 || !HasFlatTrees(topology))
    {
        return;
    }
    // One count: keeps a plan of fewer rounds than the best so far, else says there is none.
    const auto find = [&](uint32_t rounds) {
        std::optional<Plan> plan = SearchFlatSchedule(topology, rounds, {m_flatMoves, 1, m_seed});
        if (!plan || plan->schedule.GetNRounds() >= bestRounds)
        {
            m_search.started.push_back("flat-tree search: none in " + std::to_string(rounds));
            return false;
        }
        bestRounds = plan->schedule.GetNRounds();
        best = std::move(*plan);
        m_search.heuristic = "flat-tree search";
        m_search.started.push_back(m_search.heuristic + " " + std::to_string(bestRounds));
        return true;
    };
    const uint32_t servers = topology.GetNServers();
    if (bestRounds == NO_INDEX)
    {
        // No start plan (StartFrom none): up from the certified bound, a few even counts, until
        // one is found (the counts below it were tried).
        const uint32_t first = std::max<uint32_t>(certified + certified % 2, 2);
        for (uint32_t rounds = first; rounds <= first + 6 && FitsFlatSearch(servers, rounds);
             rounds += 2)
        {
            if (find(rounds))
            {
                break;
            }
        }
        return;
    }
    // Down from the start's rounds, two at a time, until the certified bound or the first
    // count it cannot find in its moves (a failure costs all of them; a find is quick).
    for (uint32_t rounds = bestRounds - 1 - (bestRounds - 1) % 2;
         rounds >= std::max<uint32_t>(certified, 2) && rounds < bestRounds;
         rounds = bestRounds - 1 - (bestRounds - 1) % 2)
    {
        if (!FitsFlatSearch(servers, rounds) || !find(rounds))
        {
            return;
        }
    }
}

void
OptimalScheduler::SearchSymmetric(const Topology& topology,
                                  uint32_t certified,
                                  Plan& best,
                                  uint32_t& bestRounds)
{
    const ServerTranslations translations = ServerTranslations::Find(topology);
    if (bestRounds == NO_INDEX || bestRounds <= certified || translations.IsEmpty() ||
        m_symmetricShare <= 0)
    {
        return;
    }
    const auto begin = Clock::now();
    const double budget = m_symmetricShare * m_timeLimit;
    for (uint32_t rounds = bestRounds - 1; rounds >= certified && rounds < bestRounds; --rounds)
    {
        const double left = budget - SecondsSince(begin);
        if (left <= 0.01)
        {
            return;
        }
        SymmetricProgramResult result;
        try
        {
            result = ScheduleSymmetrically(topology, translations, best, rounds, left);
        }
        catch (const std::invalid_argument&)
        {
            return; // the best plan is not a symmetric one: nothing to restrict to
        }
        const std::string seconds = std::to_string(static_cast<int>(result.seconds + 0.5));
        if (result.answer == RoundProgram::FEASIBLE && result.plan)
        {
            best = std::move(*result.plan);
            bestRounds = best.schedule.GetNRounds();
            m_search.heuristic = "symmetric program";
            m_search.started.push_back("symmetric program " + std::to_string(bestRounds) +
                                       " (" + seconds + " s)");
            continue;
        }
        m_search.started.push_back(
            "symmetric program: " +
            std::string(result.answer == RoundProgram::INFEASIBLE ? "none" : "nothing found") +
            " in " + std::to_string(rounds) + " on these trees (" + seconds + " s)");
        return;
    }
}

void
OptimalScheduler::AddStartPlan(Plan plan, const std::string& who)
{
    m_given.emplace_back(std::move(plan), who);
}

uint32_t
OptimalScheduler::RunStartSchedulers(const Topology& topology, uint32_t pieces, Plan& best)
{
    uint32_t bestRounds = NO_INDEX;
    const auto keep = [&](Plan& plan, const std::string& who) {
        const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
        if (!check.valid)
        {
            throw std::invalid_argument("optimal: the start plan of " + who +
                                        " is not a valid schedule (" + check.error + ")");
        }
        if (NoteStart(who, plan.schedule.GetNRounds(), bestRounds))
        {
            best = std::move(plan);
        }
    };
    std::vector<std::pair<Plan, std::string>> given;
    given.swap(m_given); // used once
    for (auto& [plan, who] : given)
    {
        const Topology& theirs = plan.workloads.GetTopology();
        if (!theirs.DescribeDifference(topology).empty() || plan.workloads.GetPieces() != pieces)
        {
            throw std::invalid_argument("optimal: the start plan of " + who + " is for " +
                                        theirs.GetName() + " with " +
                                        std::to_string(plan.workloads.GetPieces()) +
                                        " pieces, not " + topology.GetName() + " with " +
                                        std::to_string(pieces));
        }
        keep(plan, who);
    }
    for (const std::string& name : GetStartNames())
    {
        Plan plan;
        if (TryStartScheduler(name, [&](AllReduceScheduler& s) {
                plan = s.MakePlan(topology, pieces);
            }))
        {
            keep(plan, name);
        }
    }
    return bestRounds;
}

uint32_t
OptimalScheduler::RunStartRounds(const WorkloadSet& workloads, Schedule& best)
{
    uint32_t bestRounds = NO_INDEX;
    for (const std::string& name : GetStartNames())
    {
        Schedule schedule;
        if (TryStartScheduler(name,
                              [&](AllReduceScheduler& s) { schedule = RunRounds(s, workloads); }))
        {
            if (NoteStart(name, schedule.GetNRounds(), bestRounds))
            {
                best = std::move(schedule);
            }
        }
    }
    return bestRounds;
}

bool
OptimalScheduler::NoteStart(const std::string& who, uint32_t rounds, uint32_t& bestRounds)
{
    m_search.started.push_back(who + " " + std::to_string(rounds));
    if (rounds >= bestRounds)
    {
        return false;
    }
    bestRounds = rounds;
    m_search.heuristic = who;
    return true;
}

bool
OptimalScheduler::TryStartScheduler(const std::string& name,
                                    const std::function<void(AllReduceScheduler&)>& run)
{
    try
    {
        Ptr<AllReduceScheduler> scheduler = CreateScheduler(name);
        m_startScheduler(scheduler);
        run(*scheduler);
        return true;
    }
    catch (const std::exception& e)
    {
        // Bad input or an unmet need (drl without LibTorch's files); not our own bugs.
        const bool cannot = dynamic_cast<const std::invalid_argument*>(&e) ||
                            dynamic_cast<const std::runtime_error*>(&e);
        if (!cannot)
        {
            throw;
        }
        if (m_startFrom != "auto")
        {
            throw std::invalid_argument("optimal: StartFrom's " + name +
                                        " cannot plan: " + e.what());
        }
        // auto takes every scheduler that can plan here: drl cannot on a topology without its
        // checkpoint, and the search starts from the others.
        m_search.started.push_back(name + ": " + e.what());
        return false;
    }
}

std::vector<std::vector<uint32_t>>
OptimalScheduler::StartFromHeuristic(const std::vector<WorkloadSet>& candidates,
                                     std::vector<uint32_t>& chosen)
{
    const auto nSets = static_cast<uint32_t>(candidates.size());
    Ptr<BalancedScheduler> heuristic = CreateObject<BalancedScheduler>();
    Schedule schedule;
    uint32_t bestSet = 0;
    for (uint32_t j = 0; j < nSets; ++j)
    {
        Schedule s = heuristic->ScheduleWorkloads(candidates[j]);
        if (j == 0 || s.GetNRounds() < schedule.GetNRounds())
        {
            schedule = std::move(s);
            bestSet = j;
        }
    }
    std::vector<std::vector<uint32_t>> roundOf(nSets);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        roundOf[j].assign(candidates[j].GetN(), NO_INDEX);
    }
    for (uint32_t t = 0; t < schedule.rounds.size(); ++t)
    {
        for (uint32_t w : schedule.rounds[t])
        {
            roundOf[bestSet][w] = t;
        }
    }
    chosen.assign(candidates.front().GetTopology().GetNServers(), bestSet);
    m_search.heuristic = "balanced's list scheduling of the candidates";
    m_search.started.push_back(m_search.heuristic + " " + std::to_string(schedule.GetNRounds()));
    m_search.heuristicRounds = schedule.GetNRounds();
    m_search.upper = schedule.GetNRounds();
    return roundOf;
}

RoundProgramInstance
OptimalScheduler::MakeInstance(const std::vector<WorkloadSet>& candidates, bool treeChoice)
{
    const auto nSets = static_cast<uint32_t>(candidates.size());
    RoundProgramInstance inst;
    inst.sets = &candidates;
    inst.treeChoice = treeChoice;
    inst.roots = candidates.front().GetTopology().GetNServers();
    inst.options.assign(inst.roots, {});
    inst.active.resize(nSets);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        inst.active[j].assign(candidates[j].GetN(), true);
    }
    if (treeChoice)
    {
        OfferDistinctTrees(candidates, inst);
        m_search.bounds = ComputeChoiceBounds(candidates, inst);
    }
    else
    {
        for (uint32_t r = 0; r < inst.roots; ++r)
        {
            inst.options[r].push_back(0);
        }
        m_search.bounds = ComputeBounds(candidates.front());
    }
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        m_search.treeOptions += static_cast<uint32_t>(inst.options[r].size());
    }
    return inst;
}

void
OptimalScheduler::Bisect(const RoundProgramInstance& inst,
                         std::chrono::steady_clock::time_point start,
                         std::vector<std::vector<uint32_t>>& best,
                         std::vector<uint32_t>& chosen)
{
    // Ask about round counts between the bounds: the lower bound first (often tight), then
    // by bisection. A count whose time ran out is left open and the search looks above it.
    uint32_t open = 0; // the highest count left open so far (0: none)
    bool first = true;
    while (m_search.lower < m_search.upper)
    {
        const double left = m_timeLimit - SecondsSince(start);
        const uint32_t floorT = std::max(m_search.lower, open + 1);
        if (left <= 0.05 || floorT >= m_search.upper)
        {
            break;
        }
        const uint32_t T = first ? floorT : floorT + (m_search.upper - 1 - floorT) / 2;
        first = false;
        // The last count to settle gets all the time left; otherwise half of it, so that a
        // hard proof cannot starve the counts above it.
        const bool lastOne = T == floorT && T + 1 == m_search.upper;
        RoundProgram program(inst, T);
        RoundProgram::Outcome o = program.Solve(lastOne ? left : left / 2, m_maxNonzeros);
        if (o.tooLarge)
        {
            m_search.note = "the integer program for " + std::to_string(T) +
                            " rounds would have about " + std::to_string(o.nonzeros) +
                            " non-zeros, more than MaxNonzeros (" +
                            std::to_string(m_maxNonzeros) +
                            "); the heuristic's schedule is returned with the bounds";
            NS_LOG_INFO("optimal: " << m_search.note);
            break;
        }
        m_search.variables = std::max(m_search.variables, o.variables);
        m_search.constraints = std::max(m_search.constraints, o.constraints);
        m_search.nonzeros = std::max(m_search.nonzeros, o.nonzeros);
        NS_LOG_INFO("optimal: T=" << T << " -> "
                                  << (o.answer == RoundProgram::FEASIBLE     ? "feasible"
                                      : o.answer == RoundProgram::INFEASIBLE ? "infeasible"
                                                                             : "unknown")
                                  << " (" << o.variables << " binaries, " << o.constraints
                                  << " rows) after " << SecondsSince(start) << " s");
        switch (o.answer)
        {
        case RoundProgram::FEASIBLE: {
            const uint32_t rounds = CountRounds(o.roundOf);
            m_search.feasible.push_back(T);
            if (rounds < m_search.upper)
            {
                m_search.upper = rounds;
                best = std::move(o.roundOf);
                chosen = std::move(o.chosen);
            }
            break;
        }
        case RoundProgram::INFEASIBLE:
            m_search.infeasible.push_back(T);
            m_search.lower = std::max(m_search.lower, T + 1);
            break;
        case RoundProgram::UNKNOWN:
            m_search.unknown.push_back(T);
            open = std::max(open, T);
            break;
        }
    }
}

} // namespace ns3
