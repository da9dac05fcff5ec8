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
    const uint32_t next = ws.GetDependents(first)[0];
    EXPECT_EQ(state.GetStatus(next), WorkloadStatus::WAITING);
    state.Finish(first);
    EXPECT_EQ(state.GetStatus(first), WorkloadStatus::DONE);
    // The dependent is ready exactly when all its dependencies are done.
    const auto allDepsDone = [&] {
        return std::all_of(ws.Get(next).deps.begin(), ws.Get(next).deps.end(), [&](uint32_t d) {
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
        if (w.src == 4 && w.deps.empty())
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
    state.SetPath(id, w.path);
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
