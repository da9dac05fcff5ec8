/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The round engine: state, steps one workload or one round at a time, and refused steps.

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;

namespace
{

/// BCube(2,1) merge workloads (see workload-test.cc for root 0 worked out by hand).
WorkloadSet
BCubeTwoOne()
{
    const Topology t = BuildTopology("bcube:n=2,k=1");
    return WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1);
}

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

bool
Contains(const std::vector<uint32_t>& v, uint32_t x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

TEST(RoundEngine, StartsWithExactlyTheWorkloadsWithoutDependenciesReady)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    EXPECT_EQ(engine.GetRound(), 0u);
    EXPECT_FALSE(engine.IsDone());
    for (const Workload& w : ws.GetAll())
    {
        EXPECT_EQ(engine.GetStatus(w.id) == WorkloadStatus::READY, ws.GetDeps(w.id).empty());
        EXPECT_EQ(Contains(engine.GetReady(), w.id), ws.GetDeps(w.id).empty());
    }
}

TEST(RoundEngine, RefusesInvalidStepsAndSaysWhy)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    // Workload 0 (1->0) waits for workload 2 (3->1).
    EXPECT_EQ(ErrorOf([&] { engine.Start(0); }),
              "workload 0 depends on workload 2, which has not finished in an earlier round");
    EXPECT_EQ(ErrorOf([&] { engine.CloseRound(); }).rfind("round 0 is empty", 0), 0u);
    engine.Start(2); // 3 -> 7 -> 1
    EXPECT_EQ(ErrorOf([&] { engine.Start(2); }), "workload 2 is already in round 0");
    // Another workload over 3->7: server 3's reduce for a root reached through switch 7.
    uint32_t clash = 0;
    for (const Workload& w : ws.GetAll())
    {
        if (w.id != 2 && engine.GetStatus(w.id) == WorkloadStatus::READY &&
            w.links.front() == ws.Get(2).links.front())
        {
            clash = w.id;
        }
    }
    ASSERT_NE(clash, 0u);
    EXPECT_FALSE(engine.CanStart(clash));
    EXPECT_TRUE(engine.IsLinkBusy(ws.Get(2).links.front()));
    EXPECT_TRUE(Contains(engine.GetReady(), clash));
    EXPECT_EQ(ErrorOf([&] { engine.Start(clash); }),
              "workload " + std::to_string(clash) +
                  " needs link 3->7, which another workload of round 0 already uses");
    EXPECT_EQ(ErrorOf([&] { engine.Start(99); }), "workload 99 does not exist; there are 24");
    engine.CloseRound();
    EXPECT_EQ(engine.GetRoundOf(2), 0u);
    EXPECT_EQ(ErrorOf([&] { engine.Start(2); }),
              "workload 2 is scheduled again (it finished in round 0)");
    EXPECT_EQ(engine.GetFinished(), std::vector<uint32_t>{2});
}

TEST(RoundEngine, StepRoundIsAllOrNothing)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    const auto readyBefore = engine.GetReady();
    const uint32_t first = readyBefore.front();
    EXPECT_THROW(engine.StepRound({first, first}), std::invalid_argument);
    EXPECT_EQ(engine.GetRound(), 0u);
    EXPECT_TRUE(engine.GetStarted().empty());
    EXPECT_EQ(engine.GetReady().size(), readyBefore.size());
    EXPECT_TRUE(engine.CanStart(first));
    engine.StepRound({first});
    EXPECT_EQ(engine.GetRound(), 1u);
    EXPECT_EQ(engine.GetNDone(), 1u);
}

TEST(RoundEngine, ClosingARoundReleasesDependents)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    engine.StepRound({2}); // 3->1
    EXPECT_EQ(engine.GetStatus(0), WorkloadStatus::READY); // 1->0 may go now
    engine.StepRound({0, 1});                                      // both reduces into 0
    EXPECT_TRUE(engine.CanStart(3));                                 // gather 0->1
    EXPECT_TRUE(engine.CanStart(4));                                 // gather 0->2
    EXPECT_EQ(engine.GetStatus(5), WorkloadStatus::WAITING);  // 1->3 waits for 0->1
}

TEST(RoundEngine, ResetStartsOver)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    while (!engine.IsDone())
    {
        const std::vector<uint32_t> ready = engine.GetReady();
        for (uint32_t id : ready)
        {
            if (engine.CanStart(id))
            {
                engine.Start(id);
            }
        }
        engine.CloseRound();
    }
    EXPECT_EQ(engine.GetNDone(), ws.GetN());
    Schedule s;
    s.rounds = engine.GetRounds();
    EXPECT_TRUE(ValidateSchedule(ws, s).valid);
    engine.Reset();
    EXPECT_EQ(engine.GetRound(), 0u);
    EXPECT_EQ(engine.GetNDone(), 0u);
    EXPECT_TRUE(engine.GetRounds().empty());
}

TEST(RoundEngine, LinksDownBlockTheirWorkloadsUntilTheyComeBack)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    const uint32_t link = ws.Get(2).links.front() / 2; // 3 - 7
    engine.SetLinkDown(link, true);
    EXPECT_TRUE(engine.IsLinkDown(2 * link));
    EXPECT_TRUE(engine.IsLinkDown(2 * link + 1));
    EXPECT_FALSE(engine.CanStart(2));
    EXPECT_EQ(ErrorOf([&] { engine.Start(2); }), "workload 2 needs link 3->7, which is down");
    engine.SetLinkDown(link, false);
    EXPECT_TRUE(engine.CanStart(2));
    EXPECT_THROW(engine.SetLinkDown(99, true), std::out_of_range);
}

TEST(RoundEngine, SaturatedWhenEveryServerPortIsTaken)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    EXPECT_FALSE(engine.IsSaturated());
    const Topology& topo = ws.GetTopology();
    for (uint32_t i = 0; i < topo.GetNLinks(); ++i)
    {
        engine.SetLinkDown(i, true);
    }
    EXPECT_TRUE(engine.IsSaturated());
    EXPECT_TRUE(engine.GetReady().size() > 0);
    for (uint32_t id : engine.GetReady())
    {
        EXPECT_FALSE(engine.CanStart(id));
    }
    for (uint32_t i = 0; i < topo.GetNLinks(); ++i)
    {
        engine.SetLinkDown(i, false);
    }
    EXPECT_FALSE(engine.IsSaturated());
    // Workloads that leave every server port busy saturate it until the round closes.
    const std::vector<uint32_t> ready = engine.GetReady();
    for (uint32_t id : ready)
    {
        if (engine.CanStart(id))
        {
            engine.Start(id);
        }
    }
    uint32_t freePorts = 0;
    for (uint32_t i = 0; i < topo.GetNLinks(); ++i)
    {
        for (uint32_t l : {2 * i, 2 * i + 1})
        {
            const uint32_t from = l % 2 == 0 ? topo.GetLink(i).a : topo.GetLink(i).b;
            freePorts += topo.IsServer(from) && !engine.IsLinkBusy(l);
        }
    }
    EXPECT_EQ(engine.IsSaturated(), freePorts == 0);
    engine.CloseRound();
    EXPECT_FALSE(engine.IsSaturated());
}
