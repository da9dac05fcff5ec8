/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Aggregation in the network (doc/allreduce.rst, "Aggregation in the network"): which switches
// aggregate, the workloads they merge and replicate, their slots, the bounds and the files.

#include "allreduce-experiment.h"
#include "test-helpers.h"
#include "test-topologies.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

using ns3::test::AggregatingStar;
using ns3::test::ChunkByChunk;

/// The dumbbell (servers 0, 1 on switch 4, servers 2, 3 on switch 5), with aggregating
/// switches as asked.
Topology
TwoRacks(bool leftAggregates, bool rightAggregates)
{
    Topology t = test::Dumbbell();
    t.SetAggregatorSlots(4, leftAggregates ? Topology::UNLIMITED_SLOTS : 0);
    t.SetAggregatorSlots(5, rightAggregates ? Topology::UNLIMITED_SLOTS : 0);
    return t;
}

/// Moves a workload of a schedule from one round to another.
void
MoveToRound(Schedule& s, uint32_t id, uint32_t from, uint32_t to)
{
    auto& round = s.rounds.at(from);
    const auto it = std::find(round.begin(), round.end(), id);
    ASSERT_NE(it, round.end()) << "workload " << id << " is not in round " << from;
    round.erase(it);
    s.rounds.at(to).push_back(id);
}

WorkloadSet
Build(const Topology& t, WorkloadSemantics semantics = WorkloadSemantics::MERGE)
{
    return WorkloadSet::Build(t, BuildShortestPathTrees(t), semantics, 1);
}

/// The workload of chunk `chunk` in `phase` from src to dst; fails the test when there is none.
const Workload&
Find(const WorkloadSet& ws, uint32_t chunk, Phase phase, uint32_t src, uint32_t dst)
{
    for (const Workload& w : ws.GetAll())
    {
        if (w.chunk == chunk && w.phase == phase && w.src == src && w.dst == dst)
        {
            return w;
        }
    }
    ADD_FAILURE() << "no " << ToString(phase) << " workload of chunk " << chunk << " from "
                  << src << " to " << dst;
    static const Workload none;
    return none;
}

} // namespace

TEST(AggregationSpec, InaAllMakesEverySwitchAggregateWithItsSlots)
{
    const Topology t = BuildTopology("fattree:k=4,ina=all,slots=8");
    EXPECT_EQ(t.GetName(), "fattree(k=4),ina=all,slots=8");
    EXPECT_EQ(t.CountAggregators(), 20u);
    for (uint32_t v = t.GetNServers(); v < t.GetNNodes(); ++v)
    {
        EXPECT_EQ(t.GetAggregatorSlots(v), 8u);
    }
    EXPECT_EQ(BuildTopology("fattree:k=4,ina=all").GetAggregatorSlots(16),
              Topology::UNLIMITED_SLOTS);
    EXPECT_EQ(BuildTopology("fattree:k=4").CountAggregators(), 0u);
}

TEST(AggregationSpec, AFractionIsASeededShareOfTheSwitches)
{
    const auto chosen = [](const std::string& spec) {
        const Topology t = BuildTopology(spec);
        std::set<uint32_t> out;
        for (uint32_t v = t.GetNServers(); v < t.GetNNodes(); ++v)
        {
            if (t.IsAggregator(v))
            {
                out.insert(v);
            }
        }
        return out;
    };
    const auto a = chosen("jellyfish:switches=10,degree=4,servers=1,seed=1,ina=0.5");
    EXPECT_EQ(a.size(), 5u);
    EXPECT_EQ(a, chosen("jellyfish:switches=10,degree=4,servers=1,seed=1,ina=0.5"));
    EXPECT_EQ(a, chosen("jellyfish:switches=10,degree=4,servers=1,seed=1,ina=0.5,inaseed=1"));
    EXPECT_NE(a, chosen("jellyfish:switches=10,degree=4,servers=1,seed=1,ina=0.5,inaseed=2"));
    EXPECT_EQ(chosen("fattree:k=4,ina=0.01").size(), 1u); // at least one
    EXPECT_EQ(BuildTopology("bcube:n=3,k=1,ina=0.5,inaseed=4").GetName(),
              "bcube(n=3,k=1),ina=0.5,inaseed=4");
}

TEST(AggregationSpec, BadOptionsAreRefusedWithTheirReason)
{
    const auto error = [](const std::string& spec) {
        try
        {
            BuildTopology(spec);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error("fattree:k=4,slots=4").find("needs ina=all or ina=FRACTION"),
              std::string::npos);
    EXPECT_NE(error("fattree:k=4,ina=1.5").find("in (0, 1], got '1.5'"), std::string::npos);
    EXPECT_NE(error("fattree:k=4,ina=some").find("got 'some'"), std::string::npos);
    EXPECT_NE(error("fattree:k=4,ina=all,slots=0").find("from 1 to"), std::string::npos);
    EXPECT_NE(error("fattree:k=4,ina=all,inaseed=2").find("drop it"), std::string::npos);
    EXPECT_NE(error("fattree:k=4,ina=0.5,inaseed=-1").find("inaseed must be >= 0"),
              std::string::npos);
}

TEST(AggregationSpec, TopologyFilesCarryAggregatorsBothWays)
{
    Topology t = TwoRacks(true, false);
    t.SetAggregatorSlots(4, 3);
    std::ostringstream os;
    WriteTopology(t, os);
    EXPECT_NE(os.str().find("aggregator 4 slots=3\n"), std::string::npos);
    std::istringstream is(os.str());
    const Topology back = ReadTopology(is, "racks.topo");
    EXPECT_EQ(back.DescribeDifference(t), "");
    EXPECT_EQ(back.GetAggregatorSlots(4), 3u);
    EXPECT_FALSE(back.IsAggregator(5));

    const auto error = [](const std::string& text) {
        std::istringstream in("servers 2\nswitches 1\nlink 0 2\nlink 1 2\n" + text);
        try
        {
            ReadTopology(in, "t.topo");
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error("aggregator 2\n"), "no error");
    EXPECT_NE(error("aggregator 0\n").find("t.topo:5: node 0 is not a switch"), std::string::npos);
    EXPECT_NE(error("aggregator 2 slots=0\n").find("slots=N"), std::string::npos);
    EXPECT_NE(error("aggregator 2\naggregator 2 slots=2\n").find("twice"), std::string::npos);
    // A spec cannot silently replace the aggregators a file names.
    Topology named = TwoRacks(true, true);
    const std::string path = testing::TempDir() + "aggregating-racks.topo";
    WriteTopologyFile(named, path);
    EXPECT_EQ(BuildTopology("file:" + path).CountAggregators(), 2u);
    EXPECT_THROW(BuildTopology("file:" + path + ",ina=all"), std::invalid_argument);
}

TEST(AggregationWorkloads, StarReducesInOneRoundPerDirection)
{
    // Worked by hand: for chunk 0, servers 1, 2, 3 send to the switch (one round up), the
    // switch sends their sum to server 0 (one round down); the gather mirrors it, the switch
    // replicating the complete sum to the three.
    const WorkloadSet ws = Build(AggregatingStar());
    EXPECT_EQ(ws.GetN(), 4u * 8u);
    std::vector<uint32_t> up;
    for (uint32_t src = 1; src < 4; ++src)
    {
        const Workload& w = Find(ws, 0, Phase::REDUCE, src, 4);
        EXPECT_EQ(w.path, (std::vector<uint32_t>{src, 4}));
        EXPECT_EQ(w.carries.ToVector(), std::vector<uint32_t>{src});
        EXPECT_TRUE(ws.GetDeps(w.id).empty());
        up.push_back(w.id);
    }
    const Workload& sum = Find(ws, 0, Phase::REDUCE, 4, 0);
    EXPECT_EQ(sum.carries.ToVector(), (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_EQ(ws.GetDeps(sum.id).ToVector(), up);
    const Workload& back = Find(ws, 0, Phase::GATHER, 0, 4);
    EXPECT_EQ(ws.GetDeps(back.id).ToVector(), std::vector<uint32_t>{sum.id});
    for (uint32_t dst = 1; dst < 4; ++dst)
    {
        EXPECT_EQ(ws.GetDeps(Find(ws, 0, Phase::GATHER, 4, dst).id).ToVector(),
                  std::vector<uint32_t>{back.id});
    }
    // Four per port each way: three parts and the own chunk's sum out, the own chunk's sum and
    // three complete chunks in. Server-only merge needs six.
    const RoundBounds b = ComputeBounds(ws);
    EXPECT_EQ(b.bandwidth, 4u);
    EXPECT_EQ(b.links, 4u);
    EXPECT_EQ(b.path, 4u);
    EXPECT_EQ(ComputeBandwidthBound(BuildTopology("bcube:n=4,k=0"), 1), 6u);
    const ScheduleCheck check = ValidateSchedule(ws, ChunkByChunk(ws));
    EXPECT_TRUE(check.valid) << check.error;
}

TEST(AggregationWorkloads, ParameterServerMergesAtSwitchesOnly)
{
    const WorkloadSet ws = Build(AggregatingStar(), WorkloadSemantics::PARAMETER_SERVER);
    EXPECT_EQ(ws.GetN(), 4u * 8u);
    EXPECT_EQ(Find(ws, 2, Phase::REDUCE, 0, 4).carries.ToVector(), std::vector<uint32_t>{0});
    EXPECT_EQ(Find(ws, 2, Phase::REDUCE, 4, 2).carries.ToVector(), (std::vector<uint32_t>{0, 1, 3}));
    EXPECT_TRUE(ValidateSchedule(ws, ChunkByChunk(ws)).valid);
    // In a two-level network the servers of the far rack do not merge, their switch does.
    const WorkloadSet racks = Build(TwoRacks(true, true), WorkloadSemantics::PARAMETER_SERVER);
    EXPECT_EQ(Find(racks, 0, Phase::REDUCE, 5, 4).carries.ToVector(), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(Find(racks, 0, Phase::REDUCE, 4, 0).carries.ToVector(), (std::vector<uint32_t>{1, 2, 3}));
}

TEST(AggregationWorkloads, ASwitchThatDoesNotAggregateForwards)
{
    // Only the left switch aggregates: streams from 2 and 3 pass the right one and merge on the
    // left with server 1's.
    const WorkloadSet ws = Build(TwoRacks(true, false));
    EXPECT_EQ(Find(ws, 0, Phase::REDUCE, 2, 4).path, (std::vector<uint32_t>{2, 5, 4}));
    EXPECT_EQ(Find(ws, 0, Phase::REDUCE, 3, 4).path, (std::vector<uint32_t>{3, 5, 4}));
    EXPECT_EQ(Find(ws, 0, Phase::REDUCE, 4, 0).carries.ToVector(), (std::vector<uint32_t>{1, 2, 3}));
    // Both aggregate: the right switch merges 2 and 3 first.
    const WorkloadSet both = Build(TwoRacks(true, true));
    EXPECT_EQ(Find(both, 0, Phase::REDUCE, 5, 4).carries.ToVector(), (std::vector<uint32_t>{2, 3}));
    // Toward root 2 the left switch merges 0 and 1, the right one that sum with 3.
    EXPECT_EQ(Find(both, 2, Phase::REDUCE, 4, 5).carries.ToVector(), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(Find(both, 2, Phase::REDUCE, 5, 2).carries.ToVector(), (std::vector<uint32_t>{0, 1, 3}));
    // A stream alone is not stopped (that would only cost a round): two servers joined through
    // two aggregating switches exchange directly.
    Topology line("line", 2, 2);
    line.AddLink(0, 2);
    line.AddLink(2, 3);
    line.AddLink(3, 1);
    line.SetAggregatorSlots(2, 4);
    line.SetAggregatorSlots(3, 4);
    const WorkloadSet direct = Build(line);
    EXPECT_EQ(direct.GetN(), 4u);
    EXPECT_EQ(Find(direct, 0, Phase::REDUCE, 1, 0).path, (std::vector<uint32_t>{1, 3, 2, 0}));
    // With no aggregator the workloads are the server-only ones.
    EXPECT_EQ(Build(TwoRacks(false, false)).GetN(), 2u * 4u * 3u);
}

TEST(AggregationSlots, AGroupTakesItsSlotsUntilTheSwitchHasSent)
{
    const WorkloadSet ws = Build(AggregatingStar(1));
    RoundEngine engine(ws);
    const uint32_t fromOne = Find(ws, 0, Phase::REDUCE, 1, 4).id;
    const uint32_t otherChunk = Find(ws, 1, Phase::REDUCE, 0, 4).id;
    ASSERT_TRUE(engine.CanStart(otherChunk));
    engine.Start(fromOne);
    EXPECT_FALSE(engine.CanStart(otherChunk));
    EXPECT_THROW(engine.Start(otherChunk), std::invalid_argument);
    try
    {
        engine.Start(otherChunk);
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("slot on aggregating switch 4, and all its 1 slots "
                                             "are in use"),
                  std::string::npos)
            << e.what();
    }
    // The rest of the group may start: it holds the slot already.
    engine.Start(Find(ws, 0, Phase::REDUCE, 2, 4).id);
    engine.Start(Find(ws, 0, Phase::REDUCE, 3, 4).id);
    engine.CloseRound();
    EXPECT_FALSE(engine.CanStart(otherChunk)); // the switch holds the partial sum
    engine.StepRound({Find(ws, 0, Phase::REDUCE, 4, 0).id});
    EXPECT_TRUE(engine.CanStart(otherChunk)); // sent: the slot is free
    // Taking a start back gives the slot back.
    engine.Start(otherChunk);
    EXPECT_FALSE(engine.CanStart(Find(ws, 2, Phase::REDUCE, 0, 4).id));
    engine.Withdraw(otherChunk);
    EXPECT_TRUE(engine.CanStart(Find(ws, 2, Phase::REDUCE, 0, 4).id));
}

TEST(AggregationSlots, TheValidatorRefusesMoreGroupsThanSlots)
{
    const WorkloadSet ws = Build(AggregatingStar(1));
    EXPECT_TRUE(ValidateSchedule(ws, ChunkByChunk(ws)).valid); // one group at a time
    Schedule two = ChunkByChunk(ws);
    // Start chunk 1's part from server 0 beside chunk 0's first round: links are free, the slot
    // is not.
    const uint32_t early = Find(ws, 1, Phase::REDUCE, 0, 4).id;
    MoveToRound(two, early, 4, 0);
    const ScheduleCheck check = ValidateSchedule(ws, two);
    EXPECT_FALSE(check.valid);
    EXPECT_NE(check.error.find("round 0: workload " + std::to_string(early)), std::string::npos)
        << check.error;
    EXPECT_NE(check.error.find("all its 1 slots are in use"), std::string::npos) << check.error;
    // With two slots the same schedule is fine.
    const WorkloadSet roomy = Build(AggregatingStar(2));
    EXPECT_TRUE(ValidateSchedule(roomy, two).valid);
}

TEST(AggregationData, TheValidatorFollowsTheDataThroughSwitches)
{
    // A switch that sends on before one of its inputs arrived: the data check names the switch.
    const Topology t = AggregatingStar();
    std::vector<Workload> list = Build(t).GetList();
    for (Workload& w : list)
    {
        if (w.phase == Phase::REDUCE && w.src == 4 && w.chunk == 0)
        {
            w.deps.pop_back(); // no longer waits for server 3's part
        }
    }
    const WorkloadSet ws(t, list, WorkloadSemantics::MERGE, 1);
    Schedule s = ChunkByChunk(ws);
    MoveToRound(s, Find(ws, 0, Phase::REDUCE, 3, 4).id, 0, 2);
    const ScheduleCheck check = ValidateSchedule(ws, s);
    EXPECT_FALSE(check.valid);
    EXPECT_NE(check.error.find("which switch 4 does not hold"), std::string::npos) << check.error;
}

TEST(AggregationBounds, NoScheduleGoesBelowTheBounds)
{
    for (const std::string spec : {"fattree:k=4,ina=all",
                                   "fattree:k=4,ina=0.5,slots=2",
                                   "bcube:n=3,k=1,ina=all",
                                   "dcell:n=3,k=1,ina=all,slots=1",
                                   "jellyfish:switches=8,degree=3,servers=2,seed=3,ina=0.5"})
    {
        const Topology t = BuildTopology(spec);
        for (const std::string name : {"ps", "ring", "greedy", "balanced"})
        {
            const Plan plan = CreateScheduler(name)->MakePlan(t, 1);
            const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
            EXPECT_TRUE(check.valid) << spec << " " << name << ": " << check.error;
            EXPECT_GE(plan.schedule.GetNRounds(), ComputeBounds(plan.workloads).GetMax())
                << spec << " " << name;
        }
    }
    // The star's best is known: 7 rounds (the optimal scheduler proves it where CBC is found).
    const Plan star = CreateScheduler("greedy")->MakePlan(AggregatingStar(), 1);
    EXPECT_EQ(star.schedule.GetNRounds(), 7u);
}

TEST(AggregationFiles, ScheduleFilesCarryTheAggregators)
{
    const Topology t = AggregatingStar(2);
    const Plan plan = CreateScheduler("greedy")->MakePlan(t, 1);
    std::ostringstream os;
    WriteScheduleJson(os, plan.workloads, plan.schedule);
    EXPECT_NE(os.str().find("\"format\": \"ns3-allreduce-schedule/2\""), std::string::npos);
    EXPECT_NE(os.str().find("{\"id\": 4, \"kind\": \"switch\", \"slots\": 2}"),
              std::string::npos);
    const ScheduleFile back = ParseScheduleJson(os.str(), "star.json");
    EXPECT_EQ(back.workloads.GetTopology().DescribeDifference(t), "");
    EXPECT_EQ(back.workloads.GetN(), plan.workloads.GetN());
    EXPECT_TRUE(ValidateSchedule(back.workloads, back.schedule).valid);
    // Version 1 knew no aggregators.
    std::string old = os.str();
    old.replace(old.find("schedule/2"), 10, "schedule/1");
    try
    {
        ParseScheduleJson(old, "old.json");
        ADD_FAILURE() << "a version-1 file with slots was read";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("topology.nodes[4].slots' needs format"),
                  std::string::npos)
            << e.what();
    }
}

TEST(AggregationWorkloads, MergePointsChooseWhichAggregatorsMerge)
{
    const Topology t = BuildTopology("fattree:k=4,ina=all");
    const auto count = [](const std::vector<uint8_t>& marks) {
        return std::count(marks.begin(), marks.end(), 1);
    };
    EXPECT_EQ(count(ChooseMergePoints(t, MergePoints::ALL)), 20);
    const auto racks = ChooseMergePoints(t, MergePoints::ACCESS);
    EXPECT_EQ(count(racks), 8); // the edge switches
    for (uint32_t v = 0; v < t.GetNNodes(); ++v)
    {
        if (racks[v])
        {
            EXPECT_TRUE(t.IsServer(t.GetNeighbors(v).front())) << v;
        }
    }
    const auto trees = BuildShortestPathTrees(t);
    const auto none = ChooseMergePoints(t, MergePoints::NONE);
    EXPECT_EQ(count(none), 0);
    EXPECT_EQ(WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 1, none).GetN(),
              2u * 16u * 15u);
    // Merging at the racks only: a stream crosses the core in one round.
    const WorkloadSet atRacks = WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 1, racks);
    for (const Workload& w : atRacks.GetAll())
    {
        EXPECT_TRUE(t.IsServer(w.src) || racks[w.src]) << w.id;
    }
    EXPECT_LT(ComputeBounds(atRacks).path, ComputeBounds(Build(t)).path);
    std::vector<uint8_t> wrong(t.GetNNodes(), 0);
    wrong[0] = 1;
    EXPECT_THROW(WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 1, wrong),
                 std::invalid_argument);
}

TEST(AggregationPays, FewerRoundsThanParameterServerAndServerOnlyMerge)
{
    // The seed paper's smallest Jellyfish, where its merge loses to PS: with every switch
    // aggregating, balanced takes fewer rounds than both (19 against 22 and 21 when written).
    const std::string spec = "jellyfish:switches=10,degree=4,servers=1,seed=1";
    const auto rounds = [](const std::string& s, const std::string& scheduler) {
        const Plan plan = CreateScheduler(scheduler)->MakePlan(BuildTopology(s), 1);
        EXPECT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid) << s << scheduler;
        return plan.schedule.GetNRounds();
    };
    const uint32_t aggregating = rounds(spec + ",ina=all", "balanced");
    EXPECT_LT(aggregating, rounds(spec, "ps"));
    EXPECT_LT(aggregating, rounds(spec, "balanced"));
}

// Packet level: switches that aggregate run an AllReduceApplication of their own, which adds
// the real values its children send and sends the sum on.

namespace
{

using ns3::test::SmallPacketRun;

/// Bytes of every workload's piece, summed: what a run puts on the wire as payload.
uint64_t
PayloadBytes(const WorkloadSet& ws, uint64_t gradientBytes)
{
    const GradientLayout layout(gradientBytes / 4,
                                ws.GetTopology().GetNServers(),
                                ws.GetPieces());
    uint64_t bytes = 0;
    for (const Workload& w : ws.GetAll())
    {
        bytes += layout.GetSize(w.chunk, w.piece) * 4;
    }
    return bytes;
}

} // namespace

TEST(AggregationPacket, TheStarsSwitchAddsTheRealValuesAndEveryServerEndsWithTheExactSum)
{
    // The star worked by hand above, chunk by chunk with real bytes over TCP: the switch's
    // application adds three servers' pieces and sends one sum down, then replicates the
    // complete chunk to the three.
    const WorkloadSet ws = Build(AggregatingStar());
    const Plan plan{ws, ChunkByChunk(ws)};
    for (const char* mode : {"barrier", "async"})
    {
        const PacketRunReport report = RunPacketAllReduce(plan, SmallPacketRun(mode));
        ASSERT_TRUE(report.result.finished) << mode << ": " << report.result.error;
        EXPECT_TRUE(report.verification.verified) << report.verification.message;
        EXPECT_TRUE(report.verification.exact);
        EXPECT_EQ(report.result.transfersFinished, ws.GetN());
        // 8 transfers of a quarter gradient per chunk: 8 gradients, where server-only merge
        // moves 2(N-1) = 6.
        EXPECT_EQ(report.result.payloadBytes, PayloadBytes(ws, 8192));
        EXPECT_EQ(report.result.payloadBytes, 8u * 8192u);
    }
}

TEST(AggregationPacket, InstallPutsAnApplicationOnEveryAggregatorAndNoneOnAForwardingSwitch)
{
    // Only the left switch aggregates: the right one forwards, as an IP router, the streams of
    // servers 2 and 3 that merge on the left.
    const Topology t = TwoRacks(true, false);
    DcnTopologyHelper dcn(t);
    dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn.Install();
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    allreduce.SetControllerAttribute("Mode", StringValue("async"));
    const ApplicationContainer apps = allreduce.Install(CreateScheduler("balanced"));
    ASSERT_EQ(apps.GetN(), 5u);
    EXPECT_EQ(apps.Get(4)->GetNode(), dcn.GetNode(4));
    EXPECT_EQ(dcn.GetNode(5)->GetNApplications(), 0u);
    Ptr<AllReduceController> controller = allreduce.GetController();
    uint32_t throughLeft = 0;
    for (const Workload& w : controller->GetWorkloads().GetAll())
    {
        EXPECT_NE(w.src, 5u);
        EXPECT_NE(w.dst, 5u);
        throughLeft += w.src == 4 || w.dst == 4;
    }
    EXPECT_GT(throughLeft, 0u);
    Simulator::Run();
    ASSERT_TRUE(controller->GetResult().finished) << controller->GetResult().error;
    const AllReduceVerification v = controller->Verify();
    EXPECT_TRUE(v.verified) << v.message;
    EXPECT_TRUE(v.exact);
    Simulator::Destroy();
}

TEST(AggregationPacket, SlotsLimitTheChunksASwitchHoldsWhileTheSchedulerDecidesLive)
{
    // One slot: at any time the switch holds at most one chunk piece's partial sum, from its
    // group's first start to the switch's last send of it. Followed on the controller's traces.
    const WorkloadSet ws = Build(AggregatingStar(1));
    DcnTopologyHelper dcn(ws.GetTopology());
    dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn.Install();
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(8192));
    allreduce.SetControllerAttribute("Mode", StringValue("async"));
    allreduce.Install(CreateScheduler("greedy"), ws);
    Ptr<AllReduceController> controller = allreduce.GetController();
    // Per group (chunk, phase), the switch's sends not finished yet; a group holds the slot
    // from its first start until then.
    std::map<std::pair<uint32_t, Phase>, uint32_t> sendsLeft;
    for (const Workload& w : ws.GetAll())
    {
        sendsLeft[{w.chunk, w.phase}] += w.src == 4;
    }
    std::set<std::pair<uint32_t, Phase>> holding;
    size_t most = 0;
    controller->TraceConnectWithoutContext(
        "TransferStarted", Callback<void, uint32_t>([&](uint32_t id) {
            const Workload& w = ws.Get(id);
            holding.insert({w.chunk, w.phase});
            most = std::max(most, holding.size());
        }));
    controller->TraceConnectWithoutContext(
        "TransferFinished", Callback<void, uint32_t>([&](uint32_t id) {
            const Workload& w = ws.Get(id);
            if (w.src == 4 && --sendsLeft[{w.chunk, w.phase}] == 0)
            {
                holding.erase({w.chunk, w.phase});
            }
        }));
    Simulator::Run();
    ASSERT_TRUE(controller->GetResult().finished) << controller->GetResult().error;
    EXPECT_TRUE(controller->Verify().verified) << controller->Verify().message;
    EXPECT_EQ(most, 1u);
    EXPECT_TRUE(ValidateSchedule(ws, controller->GetSchedule()).valid);
    Simulator::Destroy();
    // With four slots, groups overlap (the limit above is the slots', not the schedule's).
    const WorkloadSet roomy = Build(AggregatingStar(4));
    DcnTopologyHelper dcn4(roomy.GetTopology());
    dcn4.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn4.Install();
    AllReduceHelper allreduce4(dcn4);
    allreduce4.SetControllerAttribute("GradientBytes", UintegerValue(8192));
    allreduce4.SetControllerAttribute("Mode", StringValue("async"));
    allreduce4.Install(CreateScheduler("greedy"), roomy);
    std::set<std::pair<uint32_t, Phase>> started;
    size_t mostStarted = 0;
    allreduce4.GetController()->TraceConnectWithoutContext(
        "TransferStarted", Callback<void, uint32_t>([&](uint32_t id) {
            started.insert({roomy.Get(id).chunk, roomy.Get(id).phase});
            mostStarted = std::max(mostStarted, started.size());
        }));
    Simulator::Run();
    EXPECT_TRUE(allreduce4.GetController()->Verify().verified);
    EXPECT_GT(mostStarted, 1u);
    Simulator::Destroy();
}

/// Every scheduler that builds workloads through aggregators, replayed and online, on a
/// fat-tree whose switches all aggregate and on one where half of them do.
class AggregationPacketExactSum
    : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string>>
{
};

TEST_P(AggregationPacketExactSum, EveryServerEndsWithTheExactSum)
{
    const auto& [spec, scheduler, decisions] = GetParam();
    const Plan plan = CreateScheduler(scheduler)->MakePlan(BuildTopology(spec), 1);
    PacketRunConfig config = SmallPacketRun("async");
    config.gradientBytes = 16 * 1024;
    config.decisions = decisions;
    const PacketRunReport report =
        decisions == "online" ? RunPacketAllReduce(plan, config, CreateScheduler(scheduler))
                              : RunPacketAllReduce(plan, config);
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
    EXPECT_TRUE(report.verification.exact);
    EXPECT_EQ(report.result.transfersFinished, plan.workloads.GetN());
    EXPECT_TRUE(ValidateSchedule(report.run.workloads, report.run.schedule).valid);
}

INSTANTIATE_TEST_SUITE_P(
    FatTree,
    AggregationPacketExactSum,
    ::testing::Combine(::testing::Values("fattree:k=4,ina=all", "fattree:k=4,ina=0.5,slots=2"),
                       ::testing::Values("balanced", "ps", "greedy"),
                       ::testing::Values("replay", "online")));

TEST(AggregationPacket, ALinkBetweenAggregatorsFailingMidRunIsRoutedAround)
{
    // Online, a workload between two aggregators whose link goes down takes another path to the
    // same switch: the merge tree and the data stay, the sum is exact. Every fourth of the
    // fat-tree's switch-to-switch links, one per run.
    const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("fattree:k=4,ina=all"), 1);
    const Topology& t = plan.workloads.GetTopology();
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 65536;
    config.stallTimeout = MilliSeconds(50);
    config.decisions = "online";
    const double unperturbed =
        RunPacketAllReduce(plan, config, CreateScheduler("greedy")).result.completionTime;
    uint32_t tried = 0;
    for (uint32_t link = 0; link < t.GetNLinks(); ++link)
    {
        const TopologyLink& l = t.GetLink(link);
        if (t.IsServer(l.a) || t.IsServer(l.b) || link % 4 != 0)
        {
            continue;
        }
        ++tried;
        config.linkDowns = {{link, 0.3 * unperturbed}};
        const PacketRunReport online = RunPacketAllReduce(plan, config, CreateScheduler("greedy"));
        ASSERT_TRUE(online.result.finished) << "link " << link << ": " << online.result.error;
        EXPECT_TRUE(online.verification.verified) << online.verification.message;
        EXPECT_GT(online.result.rerouted, 0u) << "link " << link;
    }
    EXPECT_GE(tried, 4u);
}

TEST(AggregationRouting, TreesTowardAggregatorsMakeStreamsMeetWhereOnlySomeSwitchesAggregate)
{
    // Servers 1 and 2 hang off switches 4 and 5, each linked to switches 6 and 7, which both
    // reach server 0 through switch 3. Only 7 aggregates. The default trees take 6, the first
    // neighbour, where nothing merges; the trees toward aggregators take 7, where the streams
    // of 1 and 2 meet.
    Topology t("two-ways", 3, 5);
    t.AddLink(0, 3);
    t.AddLink(1, 4);
    t.AddLink(2, 5);
    for (uint32_t edge : {4u, 5u})
    {
        t.AddLink(edge, 6);
        t.AddLink(edge, 7);
    }
    t.AddLink(6, 3);
    t.AddLink(7, 3);
    t.SetAggregatorSlots(7, Topology::UNLIMITED_SLOTS);
    const WorkloadSet plain = WorkloadSet::Build(t, BuildShortestPathTrees(t),
                                                 WorkloadSemantics::MERGE, 1);
    EXPECT_EQ(Find(plain, 0, Phase::REDUCE, 1, 0).path, (std::vector<uint32_t>{1, 4, 6, 3, 0}));
    const std::vector<FlowTree> toward = BuildAggregatorTrees(t);
    EXPECT_EQ(toward[0].GetParent(4), 7u);
    EXPECT_EQ(toward[0].GetParent(5), 7u);
    EXPECT_EQ(toward[0].GetParent(3), 0u); // no aggregator nearer: as before
    const WorkloadSet meet = WorkloadSet::Build(t, toward, WorkloadSemantics::MERGE, 1);
    EXPECT_EQ(Find(meet, 0, Phase::REDUCE, 7, 0).carries.ToVector(), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(Find(meet, 0, Phase::REDUCE, 7, 0).path, (std::vector<uint32_t>{7, 3, 0}));
    EXPECT_FALSE(IsSameTreeSet(toward, BuildShortestPathTrees(t)));
    // Without aggregators they are the default trees.
    EXPECT_TRUE(IsSameTreeSet(BuildAggregatorTrees(test::Dumbbell()),
                              BuildShortestPathTrees(test::Dumbbell())));
    // balanced tries them, so it is never worse than on the default trees.
    const Plan plan = CreateScheduler("balanced")->MakePlan(t, 1);
    EXPECT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid);
    EXPECT_LE(plan.schedule.GetNRounds(),
              CreateScheduler("greedy")->MakePlan(t, 1).schedule.GetNRounds());
}
