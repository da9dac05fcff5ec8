/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-scheduler.h"

#include "drl-scheduler.h"
#include "optimal-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceScheduler");

NS_OBJECT_ENSURE_REGISTERED(AllReduceScheduler);

TypeId
AllReduceScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AllReduceScheduler").SetParent<Object>().SetGroupName("AllReduce");
    return tid;
}

WorkloadSet
AllReduceScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::MERGE,
                              pieces);
}

void
AllReduceScheduler::Prepare(const WorkloadSet& /* workloads */)
{
}

Plan
AllReduceScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    Plan plan;
    plan.workloads = MakeWorkloads(topology, pieces);
    plan.schedule = RunRounds(*this, plan.workloads);
    return plan;
}

Schedule
RunRounds(AllReduceScheduler& scheduler, const WorkloadSet& workloads)
{
    scheduler.Prepare(workloads);
    RoundEngine engine(workloads);
    while (!engine.IsDone())
    {
        const std::string where = "scheduler '" + scheduler.GetName() + "' in round " +
                                  std::to_string(engine.GetRound()) + ": ";
        if (engine.GetReady().empty())
        {
            throw std::runtime_error(where + "no workload is ready but " +
                                     std::to_string(workloads.GetN() - engine.GetNDone()) +
                                     " are not done");
        }
        try
        {
            scheduler.SelectRound(engine);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error(where + e.what());
        }
        const size_t started = engine.GetStarted().size();
        if (started == 0)
        {
            throw std::runtime_error(where + "started no workload although " +
                                     std::to_string(engine.GetReady().size()) + " are ready");
        }
        engine.CloseRound();
        NS_LOG_DEBUG(scheduler.GetName() << " round " << engine.GetRound() - 1 << ": " << started
                                         << " workloads");
    }
    Schedule schedule;
    schedule.scheduler = scheduler.GetName();
    schedule.rounds = engine.GetRounds();
    return schedule;
}

namespace
{

struct Entry
{
    std::string name;
    std::string typeId;
    std::string description;
    /// for schedulers that need an optional library: why it cannot run (empty when it can)
    std::string (*unavailable)(){nullptr};
};

std::vector<Entry>&
Registry()
{
    static std::vector<Entry> entries{
        {"ps", "ns3::ParameterServerScheduler",
         "Parameter Server baseline: every server sends to the chunk owner and back, no merge"},
        {"ring", "ns3::RingScheduler", "Ring AllReduce baseline over servers 0..N-1"},
        {"greedy", "ns3::GreedyScheduler",
         "critical-path list scheduling of merge workloads on shortest-path trees"},
        {"balanced", "ns3::BalancedScheduler",
         "load-balanced flow trees (shortest or not) chosen by search, then list scheduling"},
        {"optimal", "ns3::OptimalScheduler",
         "the fewest rounds for the flow trees in use, proven with an integer program (COIN-OR "
         "CBC); status and interval when the time limit stops it",
         &GetOptimalSchedulerUnavailableReason},
        {"drl", "ns3::DrlScheduler",
         "hierarchical deep reinforcement learning (LibTorch): a flow-tree selection policy and "
         "a workload scheduling policy, loaded from a trained checkpoint",
         &GetDrlUnavailableReason},
    };
    return entries;
}

} // namespace

void
RegisterScheduler(const std::string& name, const std::string& typeId, const std::string& description)
{
    if (name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
            std::string::npos)
    {
        throw std::invalid_argument("scheduler name must be letters, digits, '-' or '_', got '" +
                                    name + "'");
    }
    for (const Entry& e : Registry())
    {
        if (e.name == name)
        {
            throw std::invalid_argument("scheduler name '" + name + "' is already taken by " +
                                        e.typeId);
        }
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) || !tid.IsChildOf(AllReduceScheduler::GetTypeId()))
    {
        throw std::invalid_argument("'" + typeId + "' is not the TypeId of an AllReduceScheduler subclass");
    }
    Registry().push_back({name, typeId, description});
}

std::vector<std::pair<std::string, std::string>>
ListSchedulers()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const Entry& e : Registry())
    {
        out.emplace_back(e.name, e.description);
    }
    return out;
}

Ptr<AllReduceScheduler>
CreateScheduler(const std::string& name)
{
    std::string typeId = name;
    for (const Entry& e : Registry())
    {
        if (e.name == name)
        {
            typeId = e.typeId;
        }
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) || !tid.IsChildOf(AllReduceScheduler::GetTypeId()) ||
        !tid.HasConstructor())
    {
        std::string names;
        for (const Entry& e : Registry())
        {
            names += (names.empty() ? "" : ", ") + e.name;
        }
        throw std::invalid_argument("unknown scheduler '" + name + "'; available: " + names +
                                    " (or the TypeId name of an AllReduceScheduler subclass)");
    }
    for (const Entry& e : Registry())
    {
        if (e.typeId == tid.GetName() && e.unavailable && !e.unavailable().empty())
        {
            throw std::invalid_argument(e.unavailable());
        }
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return factory.Create<AllReduceScheduler>();
}

double
SchedulerResult::GetRatio() const
{
    return bounds.bandwidth == 0 ? 0.0
                                 : static_cast<double>(plan.schedule.GetNRounds()) /
                                       bounds.bandwidth;
}

SchedulerResult
EvaluatePlan(Plan plan)
{
    SchedulerResult result;
    result.plan = std::move(plan);
    result.bounds = ComputeBounds(result.plan.workloads);
    result.check = ValidateSchedule(result.plan.workloads, result.plan.schedule);
    return result;
}

SchedulerResult
EvaluateScheduler(const Topology& topology, const std::string& scheduler, uint32_t pieces)
{
    return EvaluateScheduler(topology, CreateScheduler(scheduler), pieces);
}

SchedulerResult
EvaluateScheduler(const Topology& topology, Ptr<AllReduceScheduler> s, uint32_t pieces)
{
    const auto start = std::chrono::steady_clock::now();
    Plan plan = s->MakePlan(topology, pieces);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SchedulerResult result = EvaluatePlan(std::move(plan));
    result.seconds = seconds;
    return result;
}

} // namespace ns3

namespace ns3
{

Schedule
CompactRounds(const std::vector<uint32_t>& roundOf)
{
    uint32_t horizon = 0;
    for (uint32_t t : roundOf)
    {
        if (t != NO_INDEX)
        {
            horizon = std::max(horizon, t + 1);
        }
    }
    Schedule s;
    s.rounds.resize(horizon);
    for (uint32_t w = 0; w < roundOf.size(); ++w)
    {
        if (roundOf[w] != NO_INDEX)
        {
            s.rounds[roundOf[w]].push_back(w);
        }
    }
    s.rounds.erase(std::remove_if(s.rounds.begin(),
                                  s.rounds.end(),
                                  [](const std::vector<uint32_t>& r) { return r.empty(); }),
                   s.rounds.end());
    return s;
}

Plan
MakeTreeChoicePlan(const std::vector<std::vector<FlowTree>>& trees,
                   const std::vector<WorkloadSet>& candidates,
                   const std::vector<uint32_t>& chosen,
                   const std::vector<std::vector<uint32_t>>& roundOf)
{
    NS_ABORT_MSG_IF(trees.size() != candidates.size() || roundOf.size() != candidates.size() ||
                        candidates.empty(),
                    "MakeTreeChoicePlan: one tree set, workload set and assignment per candidate");
    const Topology& topology = candidates.front().GetTopology();
    // The chosen tree of every root, and the workloads on them; their ids differ from the
    // candidates', their keys (chunk, piece, phase, src, dst) do not.
    std::vector<FlowTree> mine;
    for (uint32_t r = 0; r < topology.GetNServers(); ++r)
    {
        mine.push_back(trees.at(chosen.at(r))[r]);
    }
    Plan plan;
    plan.workloads = WorkloadSet::Build(topology,
                                        mine,
                                        WorkloadSemantics::MERGE,
                                        candidates.front().GetPieces());
    using Key = std::tuple<uint32_t, uint32_t, int, uint32_t, uint32_t>;
    const auto keyOf = [](const Workload& w) {
        return Key{w.chunk, w.piece, static_cast<int>(w.phase), w.src, w.dst};
    };
    std::map<Key, uint32_t> roundByKey;
    for (size_t j = 0; j < candidates.size(); ++j)
    {
        for (uint32_t w = 0; w < candidates[j].GetN(); ++w)
        {
            const Workload& wl = candidates[j].Get(w);
            if (chosen[wl.chunk] == j && roundOf[j][w] != NO_INDEX)
            {
                roundByKey[keyOf(wl)] = roundOf[j][w];
            }
        }
    }
    std::vector<uint32_t> mineRound(plan.workloads.GetN(), NO_INDEX);
    for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
    {
        const auto it = roundByKey.find(keyOf(plan.workloads.Get(w)));
        if (it == roundByKey.end())
        {
            throw std::logic_error("workload " + std::to_string(w) +
                                   " of the chosen trees has no round");
        }
        mineRound[w] = it->second;
    }
    plan.schedule = CompactRounds(mineRound);
    return plan;
}

} // namespace ns3
