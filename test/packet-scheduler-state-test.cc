/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The packet-level SchedulerState: workloads that finish one at a time, links busy while in
// flight, stragglers, links down, re-routing.

#include "ns3/allreduce-module.h"
#include "ns3/string.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;

namespace
{

WorkloadSet
MergeWorkloads(const std::string& spec)
{
    const Topology topo = BuildTopology(spec);
    return WorkloadSet::Build(topo, BuildShortestPathTrees(topo), WorkloadSemantics::MERGE, 1);
}

bool
Contains(const std::vector<uint32_t>& list, uint32_t id)
{
    return std::find(list.begin(), list.end(), id) != list.end();
}

} // namespace

TEST(PacketSchedulerState, LinksStayBusyUntilTheirWorkloadFinishesAndDependentsFollow)
{
    PacketSchedulerState state(MergeWorkloads("bcube:n=3,k=1"));
    const WorkloadSet& ws = state.GetWorkloads();
    // A leaf's reduce workload: its dependent waits for it and for other workloads.
    uint32_t first = NO_INDEX;
    for (uint32_t id : state.GetReady())
    {
        if (!ws.GetDependents(id).empty())
        {
            first = id;
            break;
        }
    }
    ASSERT_NE(first, NO_INDEX);
    state.Start(first);
    EXPECT_EQ(state.GetStatus(first), WorkloadStatus::STARTED);
    EXPECT_EQ(state.TakeStarted(), std::vector<uint32_t>{first});
    EXPECT_TRUE(state.TakeStarted().empty());
    for (uint32_t l : ws.Get(first).links)
    {
        EXPECT_TRUE(state.IsLinkBusy(l));
    }
    // Another ready workload on one of its links cannot start while it is in flight.
    for (uint32_t id : state.GetReady())
    {
        for (uint32_t l : ws.Get(id).links)
        {
            if (state.IsLinkBusy(l))
            {
                EXPECT_FALSE(state.CanStart(id));
                EXPECT_THROW(state.Start(id), std::invalid_argument);
            }
        }
    }
    const uint32_t next = *ws.GetDependents(first).begin();
    EXPECT_EQ(state.GetStatus(next), WorkloadStatus::WAITING);
    state.Finish(first);
    EXPECT_EQ(state.GetStatus(first), WorkloadStatus::DONE);
    // The dependent is ready exactly when all its dependencies are done.
    const auto allDepsDone = [&] {
        const IdSpan deps = ws.GetDeps(next);
        return std::all_of(deps.begin(), deps.end(), [&](uint32_t d) {
            return state.GetStatus(d) == WorkloadStatus::DONE;
        });
    };
    while (!allDepsDone())
    {
        EXPECT_EQ(state.GetStatus(next), WorkloadStatus::WAITING);
        const uint32_t any = state.GetReady().front();
        state.Start(any);
        state.Finish(any);
    }
    EXPECT_EQ(state.GetStatus(next), WorkloadStatus::READY);
    EXPECT_TRUE(state.GetStarted().empty());
    EXPECT_EQ(state.GetFinished().front(), first);
    for (uint32_t l : ws.Get(first).links)
    {
        EXPECT_FALSE(state.IsLinkBusy(l));
    }
    EXPECT_THROW(state.Finish(first), std::invalid_argument);
}

TEST(PacketSchedulerState, AHeldServerHoldsEveryWorkloadThatCarriesItsContribution)
{
    PacketSchedulerState state(MergeWorkloads("bcube:n=3,k=1"));
    const WorkloadSet& ws = state.GetWorkloads();
    const size_t readyBefore = state.GetReady().size();
    state.HoldServer(4);
    EXPECT_FALSE(state.IsServerReady(4));
    EXPECT_LT(state.GetReady().size(), readyBefore);
    for (uint32_t id : state.GetReady())
    {
        const auto carries = ws.GetCarries(id);
        EXPECT_FALSE(std::binary_search(carries.begin(), carries.end(), 4u)) << id;
    }
    for (const Workload& w : ws.GetAll())
    {
        if (w.src == 4 && ws.GetDeps(w.id).empty())
        {
            EXPECT_EQ(state.GetStatus(w.id), WorkloadStatus::WAITING);
        }
    }
    state.ReleaseServer(4);
    EXPECT_TRUE(state.IsServerReady(4));
    EXPECT_EQ(state.GetReady().size(), readyBefore);
    // Once a workload started, the set of late servers is fixed.
    state.Start(state.GetReady().front());
    EXPECT_THROW(state.HoldServer(1), std::logic_error);
}

TEST(PacketSchedulerState, ALinkDownBlocksItsWorkloadsAndAShortestPathGoesAround)
{
    PacketSchedulerState state(MergeWorkloads("bcube:n=3,k=1"));
    const WorkloadSet& ws = state.GetWorkloads();
    const uint32_t id = state.GetReady().front();
    const Workload w = ws.Get(id);
    const uint32_t link = w.links.front() / 2;
    state.SetLinkDown(link, true);
    EXPECT_TRUE(state.IsLinkDown(2 * link));
    EXPECT_TRUE(state.IsLinkDown(2 * link + 1));
    EXPECT_EQ(state.FindDownLink(id), w.links.front());
    EXPECT_FALSE(state.CanStart(id));
    const std::vector<uint32_t> around = state.FindUpPath(w.src, w.dst);
    ASSERT_GE(around.size(), w.path.size());
    EXPECT_EQ(around.front(), w.src);
    EXPECT_EQ(around.back(), w.dst);
    state.SetPath(id, around);
    EXPECT_EQ(state.GetWorkloads().Get(id).path, around);
    EXPECT_EQ(state.FindDownLink(id), NO_INDEX);
    EXPECT_TRUE(state.CanStart(id));
    state.Start(id);
    // In flight, it moves its busy marks with it.
    state.SetPath(id, w.path.ToVector());
    for (uint32_t l : w.links)
    {
        EXPECT_TRUE(state.IsLinkBusy(l));
    }
    EXPECT_THROW(state.SetPath(id, {w.src, w.dst}), std::invalid_argument); // not linked
    state.SetLinkDown(link, false);
    EXPECT_FALSE(state.IsLinkDown(2 * link));
    EXPECT_THROW(state.SetLinkDown(1000, true), std::out_of_range);
}

TEST(PacketSchedulerState, NoPathIsAnEmptyPath)
{
    // jellyfish with one server per switch: a server's only link down cuts it off.
    PacketSchedulerState state(MergeWorkloads("jellyfish:switches=10,degree=4,servers=1,seed=1"));
    state.SetLinkDown(0, true); // server 0 - switch 10
    EXPECT_TRUE(state.FindUpPath(0, 5).empty());
    EXPECT_TRUE(state.FindUpPath(5, 0).empty());
    EXPECT_FALSE(state.FindUpPath(1, 5).empty());
}

TEST(PacketSchedulerState, EveryServerPortBusyOrDownIsSaturation)
{
    PacketSchedulerState state(MergeWorkloads("bcube:n=2,k=1"));
    EXPECT_FALSE(state.IsSaturated());
    const Topology& topo = state.GetWorkloads().GetTopology();
    for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
    {
        state.SetLinkDown(link, true);
    }
    EXPECT_TRUE(state.IsSaturated());
    for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
    {
        state.SetLinkDown(link, false);
    }
    EXPECT_FALSE(state.IsSaturated());
}

TEST(ReplayScheduler, ListOrderStartsEveryReadyWorkloadInPlanOrder)
{
    const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=3,k=1"), 1);
    Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
    replay->SetAttribute("Order", StringValue("list"));
    replay->SetPlan(plan);
    replay->Prepare(plan.workloads);
    PacketSchedulerState state(plan.workloads);
    replay->SelectRound(state);
    // Round 0 of the plan starts whole, first, in its order.
    const std::vector<uint32_t> started = state.TakeStarted();
    const auto& round0 = plan.schedule.rounds.front();
    ASSERT_GE(started.size(), round0.size());
    EXPECT_TRUE(std::equal(round0.begin(), round0.end(), started.begin()));
    for (uint32_t id : state.GetReady())
    {
        EXPECT_FALSE(state.CanStart(id)) << "workload " << id << " could have started";
    }
    EXPECT_TRUE(Contains(started, round0.front()));
}

TEST(PacketSchedulerState, AwaitingGradientIsWhatOnlyALateGradientHolds)
{
    PacketSchedulerState state(MergeWorkloads("bcube:n=3,k=1"));
    const WorkloadSet& ws = state.GetWorkloads();
    EXPECT_TRUE(state.GetAwaitingGradient().empty());
    state.HoldServer(4);
    const std::vector<uint32_t> awaiting = state.GetAwaitingGradient();
    ASSERT_FALSE(awaiting.empty());
    for (const Workload& w : ws.GetAll())
    {
        const auto carries = ws.GetCarries(w.id);
        const bool late = std::binary_search(carries.begin(), carries.end(), 4u);
        // Dependencies done (none yet) and server 4's contribution aboard: awaiting.
        EXPECT_EQ(Contains(awaiting, w.id), late && ws.GetDeps(w.id).empty()) << w.id;
    }
    state.ReleaseServer(4);
    EXPECT_TRUE(state.GetAwaitingGradient().empty());
    // The flow level has no late gradients.
    RoundEngine engine(ws);
    EXPECT_TRUE(engine.GetAwaitingGradient().empty());
}

namespace
{

/**
 * Runs rounds of equal length on the packet-level state: late servers' gradients are ready in
 * the middle of round lateRound; online, what they let start joins that round (as the
 * controller does), replay waits for the next.
 * \return the rounds until every workload is done
 */
uint32_t
RunWithLateServers(AllReduceScheduler& scheduler,
                   const WorkloadSet& workloads,
                   const std::vector<uint32_t>& late,
                   uint32_t lateRound,
                   bool join)
{
    scheduler.Prepare(workloads);
    PacketSchedulerState state(workloads);
    for (uint32_t s : late)
    {
        state.HoldServer(s);
    }
    uint32_t rounds = 0;
    while (!state.IsDone() && rounds < 10 * workloads.GetN())
    {
        scheduler.SelectRound(state);
        if (rounds == lateRound)
        {
            for (uint32_t s : late)
            {
                state.ReleaseServer(s);
            }
            if (join)
            {
                scheduler.SelectRound(state);
            }
        }
        const std::vector<uint32_t> inFlight = state.GetStarted();
        for (uint32_t id : inFlight)
        {
            state.Finish(id);
        }
        state.TakeStarted();
        ++rounds;
    }
    return rounds;
}

} // namespace

TEST(PriorityListScheduler, WhileAGradientIsLateNothingAheadOfThePlanOutlastsItsFirstRound)
{
    uint32_t aheadStarted = 0;
    for (const char* name : {"ps", "ring", "greedy", "balanced"})
    {
        Ptr<AllReduceScheduler> scheduler = CreateScheduler(name);
        const Plan plan = scheduler->MakePlan(BuildTopology("dcell:n=4,k=1"), 1);
        const auto& rounds = plan.schedule.rounds;
        std::vector<uint32_t> roundOf(plan.workloads.GetN());
        for (uint32_t r = 0; r < rounds.size(); ++r)
        {
            for (uint32_t id : rounds[r])
            {
                roundOf[id] = r;
            }
        }
        scheduler->Prepare(plan.workloads);
        PacketSchedulerState state(plan.workloads);
        state.HoldServer(5);
        // Rounds of equal length while server 5's gradient is late.
        for (uint32_t decision = 0; decision < 8; ++decision)
        {
            // The first planned round not wholly started, and its longest path.
            uint32_t frontier = 0;
            while (std::all_of(rounds[frontier].begin(), rounds[frontier].end(), [&](uint32_t id) {
                return state.GetStatus(id) == WorkloadStatus::DONE;
            }))
            {
                ++frontier;
            }
            size_t longest = 0;
            for (uint32_t id : rounds[frontier])
            {
                longest = std::max(longest, plan.workloads.Get(id).links.size());
            }
            scheduler->SelectRound(state);
            for (uint32_t id : state.TakeStarted())
            {
                if (roundOf[id] > frontier)
                {
                    ++aheadStarted;
                    EXPECT_LE(plan.workloads.Get(id).links.size(), longest)
                        << name << ": workload " << id << " (planned round " << roundOf[id]
                        << ") outlasts planned round " << frontier;
                }
                state.Finish(id);
            }
        }
    }
    // The late gradient does not stop the others from working ahead.
    EXPECT_GT(aheadStarted, 0u);
}

TEST(PriorityListScheduler, LateGradientsNeverCostMoreRoundsThanReplayingThePlan)
{
    uint32_t ahead = 0;
    for (const char* spec : {"bcube:n=3,k=1", "bcube:n=4,k=1", "dcell:n=4,k=1"})
    {
        for (const char* name : {"ps", "ring", "greedy", "balanced"})
        {
            Ptr<AllReduceScheduler> scheduler = CreateScheduler(name);
            const Plan plan = scheduler->MakePlan(BuildTopology(spec), 1);
            Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
            replay->SetPlan(plan);
            const auto planned = static_cast<uint32_t>(plan.schedule.rounds.size());
            for (const std::vector<uint32_t>& late : {std::vector<uint32_t>{1},
                                                      std::vector<uint32_t>{2, 7}})
            {
                for (uint32_t lateRound : {0u, 2u, planned / 3})
                {
                    const uint32_t replayed =
                        RunWithLateServers(*replay, plan.workloads, late, lateRound, false);
                    const uint32_t online =
                        RunWithLateServers(*scheduler, plan.workloads, late, lateRound, true);
                    EXPECT_LE(online, replayed)
                        << name << " on " << spec << ", " << late.size()
                        << " late servers ready in round " << lateRound;
                    ahead += online < replayed;
                }
            }
        }
    }
    // Working ahead while a gradient is late pays somewhere.
    EXPECT_GT(ahead, 0u);
}
