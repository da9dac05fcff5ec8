/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The scheduler hook: every scheduler's schedule is valid everywhere, the best heuristic meets
// its floors, results are deterministic, and a user's own scheduler plugs in by name.

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>

#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>

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

/// Four servers and two switches written in the topology file format.
Topology
FileTopology()
{
    std::istringstream is("topology two-switches\nservers 4\nswitches 2\n"
                          "link 0 4\nlink 1 4\nlink 2 5\nlink 3 5\nlink 4 5\nlink 0 5\n");
    return ReadTopology(is, "two-switches.topo");
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
    topologies.push_back(FileTopology());
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
