/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The scheduler hook: every scheduler's schedule is valid everywhere, the best heuristic meets
// its floors, results are deterministic, and a user's own scheduler plugs in by name.

#include "paper-topologies.h"
#include "test-topologies.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

std::vector<std::string>
SchedulerNames()
{
    std::vector<std::string> names;
    for (const auto& entry : ListSchedulers())
    {
        names.push_back(entry.first);
    }
    return names;
}

} // namespace

namespace ns3
{

/// A user's scheduler: one workload per round, the lowest ready id.
class OneAtATimeScheduler : public AllReduceScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::OneAtATimeScheduler")
                                .SetParent<AllReduceScheduler>()
                                .AddConstructor<OneAtATimeScheduler>();
        return tid;
    }

    std::string GetName() const override
    {
        return "one-at-a-time";
    }

    void SelectRound(SchedulerState& state) override
    {
        const auto& ready = state.GetReady();
        state.Start(*std::min_element(ready.begin(), ready.end()));
    }
};

NS_OBJECT_ENSURE_REGISTERED(OneAtATimeScheduler);

} // namespace ns3

TEST(Schedulers, BuiltInsAreListed)
{
    // "optimal" is listed with or without CBC (without, creating it says how to enable it).
    EXPECT_EQ(SchedulerNames(),
              (std::vector<std::string>{"ps", "ring", "greedy", "balanced", "optimal", "drl"}));
    // Each registers itself from its own file, with the reason it cannot run in this build.
    EXPECT_EQ(GetSchedulerUnavailableReason("ps"), "");
    EXPECT_EQ(GetSchedulerUnavailableReason("optimal"), GetOptimalSchedulerUnavailableReason());
    EXPECT_EQ(GetSchedulerUnavailableReason("drl"), GetDrlUnavailableReason());
    EXPECT_EQ(CreateScheduler("ring")->GetInstanceTypeId(), RingScheduler::GetTypeId());
    EXPECT_EQ(CreateScheduler("balanced")->GetName(), "balanced");
}

/// The optimal scheduler's search is cut short here: these tests check validity, not optimality.
void
QuickSchedulerDefaults()
{
    Config::SetDefault("ns3::OptimalScheduler::TimeLimit", DoubleValue(1.0));
    // drl: one shipped checkpoint for every topology (the networks do not depend on its
    // size), greedy decoding only (no samples, no rollout)
    Config::SetDefault("ns3::DrlScheduler::Model",
                       StringValue(GetDrlGeneralModelPath()));
    Config::SetDefault("ns3::DrlScheduler::Samples", UintegerValue(0));
    Config::SetDefault("ns3::DrlScheduler::RolloutBranches", UintegerValue(0));
}

/// \return the schedulers that can run in this build
std::vector<std::string>
RunnableSchedulerNames()
{
    std::vector<std::string> names;
    for (const auto& name : SchedulerNames())
    {
        if (GetSchedulerUnavailableReason(name).empty())
        {
            names.push_back(name);
        }
    }
    return names;
}

TEST(Schedulers, EverySchedulerIsValidOnEveryTopology)
{
    QuickSchedulerDefaults();
    std::vector<Topology> topologies;
    for (const auto& spec : PaperTopologySpecs())
    {
        topologies.push_back(BuildTopology(spec));
    }
    for (const char* spec : {"bcube:n=2,k=2", "dcell:n=2,k=2", "fattree:k=4"})
    {
        topologies.push_back(BuildTopology(spec));
    }
    topologies.push_back(test::TwoSwitchesFile());
    for (const Topology& t : topologies)
    {
        for (const auto& name : RunnableSchedulerNames())
        {
            const SchedulerResult r = EvaluateScheduler(t, name, 1);
            EXPECT_TRUE(r.check.valid) << name << " on " << t.GetName() << ": " << r.check.error;
            EXPECT_EQ(r.plan.workloads.GetN(), 2 * t.GetNServers() * (t.GetNServers() - 1));
            EXPECT_GE(r.plan.schedule.GetNRounds(), r.bounds.GetMax()) << name << " " << t.GetName();
        }
    }
}

TEST(Schedulers, EverySchedulerRefusesTooManyWorkloadsBeforeItBuildsTrees)
{
    // DCell(3,3): 24,492 servers, 1.2 billion workloads. Refused from the server count alone:
    // the flow trees (3.2 GB, a minute) came first once, and drl's candidates ran out of memory.
    const Topology t = BuildTopology("dcell:n=3,k=3");
    for (const auto& name : RunnableSchedulerNames())
    {
        try
        {
            CreateScheduler(name)->MakePlan(t, 1);
            ADD_FAILURE() << name << " planned";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("1199667144 "), std::string::npos)
                << name << ": " << e.what();
            EXPECT_NE(std::string(e.what()).find(" workloads on 'dcell(n=3,k=3)'"),
                      std::string::npos)
                << name << ": " << e.what();
        }
    }
}

TEST(Schedulers, EvaluationChecksWhatPlanningAndValidatingHoldBeforeStarting)
{
    // bcube(n=16,k=2) passed the workloads' own check and then ran out of memory in
    // allreduce-rounds (std::bad_alloc). Here the same under a lowered limit: fattree(k=8)'s
    // 32,512 workloads at 512 bytes each are 15 MiB, over 8 MiB.
    SetMemoryLimit(uint64_t{8} << 20);
    try
    {
        EvaluateScheduler(BuildTopology("fattree:k=8"), "greedy", 1);
        ADD_FAILURE() << "evaluated over the limit";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("scheduling and checking the 32512 workloads of "
                                             "'fattree(k=8)' (1 piece per chunk) would need 15 "
                                             "MiB, more than the limit of 8 MiB"),
                  std::string::npos)
            << e.what();
    }
    SetMemoryLimit(MAX_MEMORY_BYTES);
    // What the programs print when the memory runs out all the same.
    EXPECT_NE(DescribeError(std::bad_alloc()).find("out of memory (std::bad_alloc)"),
              std::string::npos);
    EXPECT_EQ(DescribeError(std::invalid_argument("--pieces must be ...")), "--pieces must be ...");
    // LibTorch's errors lose their stack trace.
    EXPECT_EQ(DescribeError(std::runtime_error("The size of tensor a (20) must match\nException "
                                               "raised from infer_size_impl at ...\nframe #0")),
              "The size of tensor a (20) must match");
}

TEST(Schedulers, EverySchedulerIsValidWithPieces)
{
    QuickSchedulerDefaults();
    const Topology t = BuildTopology("bcube:n=3,k=1");
    for (const auto& name : RunnableSchedulerNames())
    {
        const SchedulerResult r = EvaluateScheduler(t, name, 3);
        EXPECT_TRUE(r.check.valid) << name << ": " << r.check.error;
        EXPECT_EQ(r.plan.workloads.GetN(), 2u * 9 * 8 * 3);
    }
}

TEST(Schedulers, BaselinesUseTheirOwnWorkloads)
{
    const Topology t = BuildTopology("bcube:n=3,k=1");
    EXPECT_EQ(CreateScheduler("ps")->MakeWorkloads(t, 1).GetSemantics(),
              WorkloadSemantics::PARAMETER_SERVER);
    EXPECT_EQ(CreateScheduler("ring")->MakeWorkloads(t, 1).GetSemantics(),
              WorkloadSemantics::RING);
    EXPECT_EQ(CreateScheduler("greedy")->MakeWorkloads(t, 1).GetSemantics(),
              WorkloadSemantics::MERGE);
}

// Floors of the flow-level issue for the best heuristic, k = 1: at most 1.5 x the bandwidth
// bound on each of the nine, at most 1.30 x as a geometric mean.
TEST(Schedulers, BalancedMeetsItsFloorsOnTheNine)
{
    double logSum = 0;
    for (const auto& spec : PaperTopologySpecs())
    {
        const SchedulerResult r = EvaluateScheduler(BuildTopology(spec), "balanced", 1);
        EXPECT_LE(r.GetRatio(), 1.5) << spec;
        logSum += std::log(r.GetRatio());
    }
    EXPECT_LE(std::exp(logSum / 9), 1.30);
}

TEST(Schedulers, BalancedIsNeverWorseThanGreedy)
{
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4"})
    {
        const Topology t = BuildTopology(spec);
        EXPECT_LE(EvaluateScheduler(t, "balanced", 1).plan.schedule.GetNRounds(),
                  EvaluateScheduler(t, "greedy", 1).plan.schedule.GetNRounds())
            << spec;
    }
}

TEST(Schedulers, HeuristicsReachTheBoundOnAFatTree)
{
    // With the fat-tree's trees spreading the way up (FlowTree::Ties::SPREAD), no core link is a
    // bottleneck: every heuristic meets the bandwidth bound (ps took 3,584 rounds on fat-tree
    // k=8 when every tie went to the lowest id).
    const Topology t = BuildTopology("fattree:k=8");
    for (const char* name : {"ps", "ring", "greedy"})
    {
        EXPECT_EQ(EvaluateScheduler(t, name, 1).plan.schedule.GetNRounds(),
                  ComputeBandwidthBound(t, 1))
            << name;
    }
}

TEST(Schedulers, RunRoundsUnderGivesUpExactlyWhenItCannotBeat)
{
    // A search relies on it: the schedule RunRounds makes when that beats the number, nothing
    // when it does not (however early it gave up).
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4"})
    {
        const Topology t = BuildTopology(spec);
        for (const char* name : {"ps", "greedy", "ring"})
        {
            Ptr<AllReduceScheduler> scheduler = CreateScheduler(name);
            const WorkloadSet workloads = scheduler->MakeWorkloads(t, 1);
            const Schedule full = RunRounds(*scheduler, workloads);
            const uint32_t rounds = full.GetNRounds();
            const auto under = RunRoundsUnder(*scheduler, workloads, rounds + 1);
            ASSERT_TRUE(under.has_value()) << spec << " " << name;
            EXPECT_EQ(under->rounds, full.rounds) << spec << " " << name;
            EXPECT_FALSE(RunRoundsUnder(*scheduler, workloads, rounds).has_value())
                << spec << " " << name;
            EXPECT_FALSE(RunRoundsUnder(*scheduler, workloads, ComputeBandwidthBound(t, 1))
                             .has_value())
                << spec << " " << name;
        }
    }
}

TEST(Schedulers, SameSeedSameScheduleOtherSeedStillValid)
{
    const Topology t = BuildTopology("dcell:n=4,k=1");
    const auto a = EvaluateScheduler(t, "balanced", 1);
    const auto b = EvaluateScheduler(t, "balanced", 1);
    EXPECT_EQ(a.plan.schedule.rounds, b.plan.schedule.rounds);
    Ptr<AllReduceScheduler> other = CreateScheduler("balanced");
    other->SetAttribute("Seed", UintegerValue(7));
    const Plan p = other->MakePlan(t, 1);
    EXPECT_TRUE(ValidateSchedule(p.workloads, p.schedule).valid);
}

TEST(Schedulers, BalancedTreesAreRealTreesWithLowerLinkLoad)
{
    const Topology t = BuildTopology("bcube:n=4,k=1");
    const auto trees = BuildBalancedTrees(t, 50, true, 1);
    ASSERT_EQ(trees.size(), t.GetNServers());
    const auto balanced = WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 1);
    const auto shortest =
        WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1);
    EXPECT_LT(ComputeBounds(balanced).links, ComputeBounds(shortest).links);
}

TEST(Schedulers, UnknownNamesAreRefusedListingTheAvailable)
{
    try
    {
        CreateScheduler("optimal-someday");
        ADD_FAILURE() << "an unknown scheduler was created";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(), "unknown scheduler 'optimal-someday'; available: ps, ring, greedy, "
                               "balanced, optimal, drl (or the TypeId name of a subclass of "
                               "ns3::AllReduceScheduler)");
    }
    EXPECT_THROW(CreateScheduler("ns3::Node"), std::invalid_argument);
}

TEST(Schedulers, AUsersSchedulerPlugsInByTypeIdAndByName)
{
    const Topology t = BuildTopology("bcube:n=2,k=1");
    const SchedulerResult byType = EvaluateScheduler(t, "ns3::OneAtATimeScheduler", 1);
    EXPECT_TRUE(byType.check.valid);
    EXPECT_EQ(byType.plan.schedule.GetNRounds(), 24u); // one workload per round
    RegisterScheduler("one-at-a-time", "ns3::OneAtATimeScheduler", "a test scheduler");
    EXPECT_EQ(SchedulerNames().back(), "one-at-a-time");
    EXPECT_TRUE(EvaluateScheduler(t, "one-at-a-time", 1).check.valid);
    EXPECT_THROW(RegisterScheduler("greedy", "ns3::OneAtATimeScheduler", ""),
                 std::invalid_argument);
    EXPECT_THROW(RegisterScheduler("node", "ns3::Node", ""), std::invalid_argument);
}

TEST(Schedulers, AStallingSchedulerIsReportedNotLooped)
{
    class Lazy : public AllReduceScheduler
    {
      public:
        std::string GetName() const override
        {
            return "lazy";
        }

        void SelectRound(SchedulerState&) override
        {
        }
    };

    Lazy lazy;
    const Topology t = BuildTopology("bcube:n=2,k=1");
    try
    {
        lazy.MakePlan(t, 1);
        ADD_FAILURE() << "an empty round was accepted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("scheduler 'lazy' in round 0: started no workload", 0),
                  0u)
            << e.what();
    }
}

namespace
{

/// List scheduling with made-up priorities that tie often, fixed or changing as the schedule
/// unfolds (the same for every workload of one path, as PriorityListScheduler asks).
class MadeUpPriorities : public PriorityListScheduler
{
  public:
    explicit MadeUpPriorities(bool changing)
        : m_changing(changing)
    {
    }

    std::string GetName() const override
    {
        return m_changing ? "made-up-changing" : "made-up-fixed";
    }

    /// \return the priority of a ready workload now, as the rule should see it
    uint64_t Now(const WorkloadSet& workloads, uint32_t id) const
    {
        const auto& links = workloads.Get(id).links;
        return GetPriority(id, m_order[id], IdSpan(links.data(), links.size()));
    }

  protected:
    std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) override
    {
        m_order.resize(workloads.GetN());
        for (uint32_t id = 0; id < workloads.GetN(); ++id)
        {
            m_order[id] = (id * 2654435761u >> 7) % 6; // six values: many ties, broken by id
        }
        return m_order;
    }

    void UpdatePriorities(const SchedulerState& state) override
    {
        m_done = state.GetNDone();
    }

    uint64_t GetPriority(uint32_t /* id */, uint64_t pathOrder, IdSpan links) const override
    {
        if (!m_changing)
        {
            return pathOrder;
        }
        uint64_t h = m_done;
        for (uint32_t l : links)
        {
            h = h * 31 + l;
        }
        return ((h % 13) << 8) | pathOrder;
    }

    bool ArePrioritiesFixed() const override
    {
        return !m_changing;
    }

  private:
    bool m_changing;              //!< priorities change with the workloads done
    uint64_t m_done{0};           //!< workloads done at the last UpdatePriorities
    std::vector<uint64_t> m_order; //!< per workload, its fixed part
};

/// Starts what a list scheduler should: the ready workloads sorted by priority (then lower id),
/// each one that can start. \return the workloads started
std::vector<uint32_t>
StartInPriorityOrder(RoundEngine& engine, const MadeUpPriorities& rule)
{
    std::vector<uint32_t> ready = engine.GetReady();
    std::vector<uint64_t> now(engine.GetWorkloads().GetN());
    for (uint32_t id : ready)
    {
        now[id] = rule.Now(engine.GetWorkloads(), id);
    }
    std::sort(ready.begin(), ready.end(), [&now](uint32_t a, uint32_t b) {
        return now[a] != now[b] ? now[a] > now[b] : a < b;
    });
    for (uint32_t id : ready)
    {
        if (engine.CanStart(id))
        {
            engine.Start(id);
        }
    }
    return engine.GetStarted();
}

/// \return a path from the workload's src to its dst whose first hop is not its own, or empty
std::vector<uint32_t>
OtherPath(const Topology& t, const Workload& w)
{
    std::vector<uint32_t> parent(t.GetNNodes(), NO_INDEX);
    std::deque<uint32_t> queue;
    for (uint32_t v : t.GetNeighbors(w.src))
    {
        if (v != w.path[1] && parent[v] == NO_INDEX && v != w.src)
        {
            parent[v] = w.src;
            queue.push_back(v);
        }
    }
    while (!queue.empty() && parent[w.dst] == NO_INDEX)
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        for (uint32_t v : t.GetNeighbors(u))
        {
            if (parent[v] == NO_INDEX && v != w.src)
            {
                parent[v] = u;
                queue.push_back(v);
            }
        }
    }
    std::vector<uint32_t> path;
    if (parent[w.dst] == NO_INDEX)
    {
        return path;
    }
    for (uint32_t v = w.dst; v != w.src; v = parent[v])
    {
        path.push_back(v);
    }
    path.push_back(w.src);
    std::reverse(path.begin(), path.end());
    return path;
}

} // namespace

// The list scheduler keeps the ready workloads filed between decisions instead of sorting them
// at each: it must start exactly what sorting them would, whatever happens between decisions
// (links down and back, links held by others, workloads withdrawn from a round, a decision
// in the middle of a round, a workload routed along another path).
TEST(PriorityListScheduler, StartsWhatSortingTheReadyWorkloadsStarts)
{
    uint32_t rerouted = 0;
    std::vector<Topology> topologies;
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4",
                             "jellyfish:switches=10,degree=4,servers=2,seed=3"})
    {
        topologies.push_back(BuildTopology(spec));
    }
    // Switches that aggregate with one slot each: a workload whose links are free may still
    // not start, and another of its path may.
    topologies.push_back(BuildTopology("fattree:k=4"));
    for (uint32_t node = topologies.back().GetNServers(); node < topologies.back().GetNNodes();
         ++node)
    {
        topologies.back().SetAggregatorSlots(node, 1);
    }
    for (const Topology& t : topologies)
    {
        const std::string spec = t.GetName() + (t.CountAggregators() > 0 ? " aggregating" : "");
        for (const WorkloadSemantics semantics :
             {WorkloadSemantics::MERGE, WorkloadSemantics::PARAMETER_SERVER})
        {
            for (const bool changing : {false, true})
            {
                WorkloadSet workloads =
                    WorkloadSet::Build(t, BuildShortestPathTrees(t), semantics, 2);
                MadeUpPriorities rule(changing);
                rule.Prepare(workloads);
                RoundEngine engine(workloads);
                RoundEngine reference(workloads);
                const uint32_t someLink = t.GetNLinks() / 2;
                while (!engine.IsDone())
                {
                    const uint32_t round = engine.GetRound();
                    const std::string where = spec + ", " + rule.GetName() +
                                              ", round " + std::to_string(round);
                    if (round == 2 || round == 5)
                    {
                        engine.SetLinkDown(someLink, round == 2);
                        reference.SetLinkDown(someLink, round == 2);
                    }
                    if (round == 3 || round == 4)
                    {
                        engine.SetLinkHeld(1, round == 3);
                        reference.SetLinkHeld(1, round == 3);
                    }
                    if (round % 5 == 4 && !engine.GetReady().empty())
                    {
                        const Workload& w = workloads.Get(engine.GetReady().front());
                        const auto path = OtherPath(t, w);
                        if (!path.empty())
                        {
                            workloads.SetPath(w.id, path);
                            ++rerouted;
                        }
                    }
                    rule.SelectRound(engine);
                    ASSERT_EQ(engine.GetStarted(), StartInPriorityOrder(reference, rule))
                        << where;
                    if (round % 3 == 1 && engine.GetStarted().size() > 1)
                    {
                        // Withdrawn, then a second decision in the same round.
                        const uint32_t id = engine.GetStarted().front();
                        engine.Withdraw(id);
                        reference.Withdraw(id);
                        rule.SelectRound(engine);
                        ASSERT_EQ(engine.GetStarted(), StartInPriorityOrder(reference, rule))
                            << where << ", after withdrawing workload " << id;
                    }
                    if (engine.GetStarted().empty() && round >= 2 && round <= 5)
                    {
                        // Nothing can start while the link is down and the other held (both
                        // agreed above: with one-slot aggregators the slots may wait for the
                        // down link): both links back, and decide again.
                        engine.SetLinkDown(someLink, false);
                        reference.SetLinkDown(someLink, false);
                        engine.SetLinkHeld(1, false);
                        reference.SetLinkHeld(1, false);
                        rule.SelectRound(engine);
                        ASSERT_EQ(engine.GetStarted(), StartInPriorityOrder(reference, rule))
                            << where << ", links back";
                    }
                    ASSERT_FALSE(engine.GetStarted().empty()) << where;
                    engine.CloseRound();
                    reference.CloseRound();
                }
            }
        }
    }
    EXPECT_GT(rerouted, 10u);
}

TEST(ReplayScheduler, WorksAheadWhenTheFrontierIsHeldUpLeavingItsLinksFree)
{
    // Round by round, a link the frontier round needs is held by another job. Replay starts
    // the rest of that round and waits; with WorkAhead it also starts ready workloads of later
    // rounds, never on a link the held-up workload needs, and nothing more when the round
    // starts whole. The plan leaves room to work ahead: balanced's, one workload a round (a
    // list scheduler's own rounds are packed: nothing ready would fit beside them).
    const Topology t = BuildTopology("bcube:n=3,k=1");
    Plan plan = CreateScheduler("balanced")->MakePlan(t, 1);
    std::vector<std::vector<uint32_t>> single;
    for (const auto& round : plan.schedule.rounds)
    {
        for (uint32_t id : round)
        {
            single.push_back({id});
        }
    }
    plan.schedule.rounds = single;
    ASSERT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid);
    const WorkloadSet& ws = plan.workloads;
    const auto& rounds = plan.schedule.rounds;
    const auto decide = [&](uint32_t r, bool workAhead, bool hold) {
        Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
        replay->SetPlan(plan);
        replay->SetWorkAhead(workAhead);
        replay->Prepare(ws);
        RoundEngine engine(ws);
        for (uint32_t before = 0; before < r; ++before)
        {
            engine.StepRound(rounds[before]);
        }
        engine.SetLinkHeld(ws.Get(rounds[r].front()).links.front(), hold);
        replay->SelectRound(engine);
        EXPECT_EQ(replay->GetFrontier(engine), hold ? r : r + 1);
        std::vector<uint32_t> started = engine.GetStarted();
        std::sort(started.begin(), started.end());
        return started;
    };
    uint32_t aheadRounds = 0;
    for (uint32_t r = 0; r < rounds.size(); ++r)
    {
        std::vector<uint32_t> whole = rounds[r];
        std::sort(whole.begin(), whole.end());
        EXPECT_EQ(decide(r, true, false), whole) << "round " << r << " starts whole";
        const uint32_t heldUp = rounds[r].front();
        std::vector<uint32_t> rest = whole;
        rest.erase(std::find(rest.begin(), rest.end(), heldUp));
        EXPECT_EQ(decide(r, false, true), rest) << "round " << r;
        const std::vector<uint32_t> ahead = decide(r, true, true);
        aheadRounds += ahead.size() > rest.size();
        const auto& needed = ws.Get(heldUp).links;
        for (uint32_t id : ahead)
        {
            if (std::binary_search(rest.begin(), rest.end(), id))
            {
                continue;
            }
            for (uint32_t l : ws.Get(id).links)
            {
                EXPECT_EQ(std::count(needed.begin(), needed.end(), l), 0)
                    << "round " << r << ": workload " << id << " took a link it needs";
            }
        }
    }
    EXPECT_GT(aheadRounds, 0u) << "nothing was ever started ahead";
}
