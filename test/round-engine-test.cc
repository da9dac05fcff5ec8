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
        EXPECT_EQ(engine.GetStatus(w.id) == RoundEngine::Status::READY, w.deps.empty());
        EXPECT_EQ(Contains(engine.GetReady(), w.id), w.deps.empty());
    }
}

TEST(RoundEngine, RefusesInvalidStepsAndSaysWhy)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    // Workload 0 (1->0) waits for workload 2 (3->1).
    EXPECT_EQ(ErrorOf([&] { engine.Add(0); }),
              "workload 0 is not ready: it depends on workload 2, which has not finished in "
              "an earlier round");
    EXPECT_EQ(ErrorOf([&] { engine.CloseRound(); }).rfind("round 0 is empty", 0), 0u);
    engine.Add(2); // 3 -> 7 -> 1
    EXPECT_EQ(ErrorOf([&] { engine.Add(2); }), "workload 2 is already in round 0");
    // Another workload over 3->7: server 3's reduce for a root reached through switch 7.
    uint32_t clash = 0;
    for (const Workload& w : ws.GetAll())
    {
        if (w.id != 2 && engine.GetStatus(w.id) == RoundEngine::Status::READY &&
            w.links.front() == ws.Get(2).links.front())
        {
            clash = w.id;
        }
    }
    ASSERT_NE(clash, 0u);
    EXPECT_FALSE(engine.CanAdd(clash));
    EXPECT_TRUE(Contains(engine.GetConflicting(), clash));
    EXPECT_FALSE(Contains(engine.GetAddable(), clash));
    EXPECT_EQ(ErrorOf([&] { engine.Add(clash); }),
              "workload " + std::to_string(clash) +
                  " needs link 3->7, which another workload of round 0 already uses");
    EXPECT_EQ(ErrorOf([&] { engine.Add(99); }), "workload 99 does not exist; there are 24");
    engine.CloseRound();
    EXPECT_EQ(engine.GetRoundOf(2), 0u);
    EXPECT_EQ(ErrorOf([&] { engine.Add(2); }), "workload 2 already finished in round 0");
}

TEST(RoundEngine, StepRoundIsAllOrNothing)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    const auto readyBefore = engine.GetReady();
    const uint32_t first = readyBefore.front();
    EXPECT_THROW(engine.StepRound({first, first}), std::invalid_argument);
    EXPECT_EQ(engine.GetRound(), 0u);
    EXPECT_TRUE(engine.GetPicked().empty());
    EXPECT_EQ(engine.GetReady().size(), readyBefore.size());
    EXPECT_TRUE(engine.CanAdd(first));
    engine.StepRound({first});
    EXPECT_EQ(engine.GetRound(), 1u);
    EXPECT_EQ(engine.GetNDone(), 1u);
}

TEST(RoundEngine, ClosingARoundReleasesDependents)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    engine.StepRound({2}); // 3->1
    EXPECT_EQ(engine.GetStatus(0), RoundEngine::Status::READY); // 1->0 may go now
    engine.StepRound({0, 1});                                      // both reduces into 0
    EXPECT_TRUE(engine.CanAdd(3));                                 // gather 0->1
    EXPECT_TRUE(engine.CanAdd(4));                                 // gather 0->2
    EXPECT_EQ(engine.GetStatus(5), RoundEngine::Status::WAITING);  // 1->3 waits for 0->1
}

TEST(RoundEngine, ResetStartsOver)
{
    const WorkloadSet ws = BCubeTwoOne();
    RoundEngine engine(ws);
    while (!engine.IsDone())
    {
        std::vector<uint32_t> round;
        for (uint32_t id : engine.GetAddable())
        {
            if (engine.CanAdd(id))
            {
                engine.Add(id);
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
