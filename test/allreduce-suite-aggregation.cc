/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's aggregation cases: switches that add gradients in flight (doc/allreduce.rst,
// "Aggregation in the network"): which switches aggregate, the workloads they merge and
// replicate, their slots in the validator, fewer rounds, and at packet level an application on
// every aggregating switch adding the real values to exact sums.

#include "allreduce-suite-cases.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <set>
#include <sstream>

using namespace ns3;
using namespace ns3::allreduce_suite;
using ns3::test::AggregatingStar;
using ns3::test::ChunkByChunk;
using ns3::test::FindWorkload;

namespace
{

/// Servers 0, 1 on switch 4 and 2, 3 on switch 5, joined 4 - 5; only switch 4 aggregates.
Topology
LeftRackAggregates()
{
    Topology t = test::Dumbbell();
    t.SetAggregatorSlots(4, Topology::UNLIMITED_SLOTS);
    return t;
}

/// Merge workloads on the shortest-path trees.
WorkloadSet
Build(const Topology& t)
{
    return WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1);
}

/// \return the aggregating switches of a spec's topology
std::set<uint32_t>
Aggregators(const std::string& spec)
{
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
}

} // namespace

/**
 * \ingroup allreduce-tests
 * The spec options: `ina=all` makes every switch aggregate with `slots`, `ina=FRACTION` a share
 * chosen by `inaseed`; bad options are refused with their reason; topology files carry the
 * aggregators both ways.
 */
class AggregationSpecTestCase : public TestCase
{
  public:
    AggregationSpecTestCase()
        : TestCase("aggregation: ina=all and ina=FRACTION choose the switches that aggregate, with "
                   "their slots; bad options refused; topology files carry them")
    {
    }

  private:
    void DoRun() override
    {
        const Topology all = BuildTopology("fattree:k=4,ina=all,slots=8");
        NS_TEST_EXPECT_MSG_EQ(all.GetName(), "fattree(k=4),ina=all,slots=8", "the name says so");
        NS_TEST_EXPECT_MSG_EQ(all.CountAggregators(), 20, "every switch of fat-tree k=4");
        NS_TEST_EXPECT_MSG_EQ(all.GetAggregatorSlots(16), 8, "slots=8");
        NS_TEST_EXPECT_MSG_EQ(all.IsAggregator(0), false, "a server is no aggregator");
        NS_TEST_EXPECT_MSG_EQ(BuildTopology("fattree:k=4,ina=all").GetAggregatorSlots(35),
                              Topology::UNLIMITED_SLOTS,
                              "no slots given: unlimited");
        NS_TEST_EXPECT_MSG_EQ(BuildTopology("fattree:k=4").CountAggregators(), 0, "no ina");

        const std::string jellyfish = "jellyfish:switches=10,degree=4,servers=1,seed=1,ina=0.5";
        const std::set<uint32_t> half = Aggregators(jellyfish);
        NS_TEST_EXPECT_MSG_EQ(half.size(), 5, "half of 10 switches");
        NS_TEST_EXPECT_MSG_EQ((half == Aggregators(jellyfish + ",inaseed=1")), true, "seed 1");
        NS_TEST_EXPECT_MSG_EQ((half != Aggregators(jellyfish + ",inaseed=2")), true, "seed 2");

        const auto error = [](const std::string& spec) {
            return ErrorOf([&spec] { BuildTopology(spec); });
        };
        const std::string noIna = error("fattree:k=4,slots=4");
        NS_TEST_EXPECT_MSG_EQ(Mentions(noIna, "needs ina=all or ina=FRACTION"), true, noIna);
        const std::string range = error("fattree:k=4,ina=1.5");
        NS_TEST_EXPECT_MSG_EQ(Mentions(range, "in (0, 1], got '1.5'"), true, range);

        Topology racks = LeftRackAggregates();
        racks.SetAggregatorSlots(4, 3);
        std::ostringstream os;
        WriteTopology(racks, os);
        NS_TEST_EXPECT_MSG_EQ(Mentions(os.str(), "aggregator 4 slots=3\n"), true, os.str());
        std::istringstream is(os.str());
        const Topology back = ReadTopology(is, "racks.topo");
        NS_TEST_EXPECT_MSG_EQ(back.DescribeDifference(racks), "", "read back");
        NS_TEST_EXPECT_MSG_EQ(back.IsAggregator(5), false, "switch 5 forwards");
    }
};

/**
 * \ingroup allreduce-tests
 * At flow level, on four servers around an aggregating switch worked by hand: the switch merges
 * the three parts of each chunk into one and replicates the complete sum (32 workloads, every
 * bound 4 where servers alone need 6, greedy 7 rounds); with one slot the validator refuses a
 * second chunk while the switch holds a partial sum. Every scheduler is valid with every
 * fat-tree switch aggregating, and on the seed paper's smallest Jellyfish balanced takes fewer
 * rounds with every switch aggregating than ps or itself without.
 */
class AggregationFlowTestCase : public TestCase
{
  public:
    AggregationFlowTestCase()
        : TestCase("aggregation: a switch merges and replicates (worked by hand), slots are "
                   "checked, every scheduler is valid and balanced takes fewer rounds")
    {
    }

  private:
    void DoRun() override
    {
        const WorkloadSet ws = Build(AggregatingStar());
        NS_TEST_EXPECT_MSG_EQ(ws.GetN(), 32, "per chunk 3 parts up, 1 sum, 1 back, 3 copies");
        const uint32_t sum = FindWorkload(ws, 0, Phase::REDUCE, 4, 0);
        NS_TEST_ASSERT_MSG_NE(sum, NO_INDEX, "the switch sends chunk 0's sum to server 0");
        NS_TEST_EXPECT_MSG_EQ((ws.GetCarries(sum) == std::vector<uint32_t>{1, 2, 3}),
                              true,
                              "the sum carries the three other servers");
        NS_TEST_EXPECT_MSG_EQ(ws.GetDeps(sum).size(), 3, "it waits for the three parts");
        const RoundBounds b = ComputeBounds(ws);
        NS_TEST_EXPECT_MSG_EQ(b.bandwidth, 4, "bandwidth bound");
        NS_TEST_EXPECT_MSG_EQ(b.links, 4, "link bound");
        NS_TEST_EXPECT_MSG_EQ(b.path, 4, "critical path");
        NS_TEST_EXPECT_MSG_EQ(ComputeBandwidthBound(BuildTopology("bcube:n=4,k=0"), 1),
                              6,
                              "the same star with servers merging alone");
        NS_TEST_EXPECT_MSG_EQ(ValidateSchedule(ws, ChunkByChunk(ws)).valid, true, "by hand");
        const Plan greedy = CreateScheduler("greedy")->MakePlan(AggregatingStar(), 1);
        NS_TEST_EXPECT_MSG_EQ(greedy.schedule.GetNRounds(), 7, "greedy on the star");

        // One slot: chunk 1's first part cannot join chunk 0's first round.
        const WorkloadSet one = Build(AggregatingStar(1));
        Schedule early = ChunkByChunk(one);
        const uint32_t moved = FindWorkload(one, 1, Phase::REDUCE, 0, 4);
        auto& from = early.rounds[4];
        from.erase(std::find(from.begin(), from.end(), moved));
        early.rounds[0].push_back(moved);
        const ScheduleCheck check = ValidateSchedule(one, early);
        NS_TEST_EXPECT_MSG_EQ(Mentions(check.error, "round 0: workload " + std::to_string(moved)) &&
                                  Mentions(check.error, "all its 1 slots are in use"),
                              true,
                              check.error);
        NS_TEST_EXPECT_MSG_EQ(ValidateSchedule(Build(AggregatingStar(2)), early).valid,
                              true,
                              "two slots hold both chunks");

        const Topology fattree = BuildTopology("fattree:k=4,ina=all");
        for (const char* name : {"ps", "ring", "greedy", "balanced"})
        {
            const SchedulerResult r = EvaluateScheduler(fattree, name, 1);
            NS_TEST_EXPECT_MSG_EQ(r.check.valid, true, name << ": " << r.check.error);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.plan.schedule.GetNRounds(), r.bounds.GetMax(), name);
        }
        // The seed paper's smallest Jellyfish, where its merge loses to ps: with every switch
        // aggregating, balanced takes fewer rounds than both.
        const std::string jellyfish = "jellyfish:switches=10,degree=4,servers=1,seed=1";
        const auto rounds = [](const std::string& spec, const char* name) {
            return EvaluateScheduler(BuildTopology(spec), name, 1).plan.schedule.GetNRounds();
        };
        const uint32_t aggregating = rounds(jellyfish + ",ina=all", "balanced");
        NS_TEST_EXPECT_MSG_LT(aggregating, rounds(jellyfish, "balanced"), "against balanced");
        NS_TEST_EXPECT_MSG_LT(aggregating, rounds(jellyfish, "ps"), "against ps");
    }
};

/**
 * \ingroup allreduce-tests
 * At packet level an AllReduceApplication runs on every aggregating switch and none on a
 * forwarding one; it adds the real values its children send and replicates the complete sums,
 * and every server ends with the exact sum: the left rack's switch online (balanced), and every
 * switch of fat-tree k=4 replaying a plan.
 */
class AggregationPacketTestCase : public TestCase
{
  public:
    AggregationPacketTestCase()
        : TestCase("aggregation: at packet level aggregating switches run an application that "
                   "adds the real values; every server ends with the exact sum")
    {
    }

  private:
    void DoRun() override
    {
        const Topology racks = LeftRackAggregates();
        DcnTopologyHelper dcn(racks);
        InstallNetwork(dcn);
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
        allreduce.SetControllerAttribute("Mode", StringValue("async"));
        const ApplicationContainer apps = allreduce.Install(CreateScheduler("balanced"));
        NS_TEST_ASSERT_MSG_EQ(apps.GetN(), 5, "four servers and the aggregating switch");
        NS_TEST_EXPECT_MSG_EQ(apps.Get(4)->GetNode(), dcn.GetNode(4), "switch 4's application");
        NS_TEST_EXPECT_MSG_EQ(dcn.GetNode(5)->GetNApplications(), 0, "switch 5 only forwards");
        Ptr<AllReduceController> controller = allreduce.GetController();
        uint32_t atSwitch = 0;
        for (const Workload& w : controller->GetWorkloads().GetAll())
        {
            NS_TEST_EXPECT_MSG_EQ((w.src != 5 && w.dst != 5), true, "workload " << w.id);
            atSwitch += w.src == 4 || w.dst == 4;
        }
        NS_TEST_EXPECT_MSG_GT(atSwitch, 0, "workloads merge at switch 4");
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(controller->GetResult().finished,
                              true,
                              controller->GetResult().error);
        const AllReduceVerification v = controller->Verify();
        NS_TEST_EXPECT_MSG_EQ((v.verified && v.exact), true, v.message);
        Simulator::Destroy();

        const Topology fattree = BuildTopology("fattree:k=4,ina=all");
        const Plan plan = CreateScheduler("balanced")->MakePlan(fattree, 1);
        DcnTopologyHelper network(fattree);
        InstallNetwork(network);
        AllReduceHelper replay(network);
        replay.SetControllerAttribute("GradientBytes", UintegerValue(16384));
        NS_TEST_EXPECT_MSG_EQ(replay.Install(plan).GetN(), 36, "16 servers and 20 switches");
        Simulator::Run();
        const AllReduceRunResult& r = replay.GetController()->GetResult();
        NS_TEST_EXPECT_MSG_EQ(r.finished, true, r.error);
        NS_TEST_EXPECT_MSG_EQ(r.transfersFinished, plan.workloads.GetN(), "every transfer");
        const AllReduceVerification all = replay.GetController()->Verify();
        NS_TEST_EXPECT_MSG_EQ((all.verified && all.exact), true, all.message);
        Simulator::Destroy();
    }
};

Cases
ns3::allreduce_suite::MakeAggregationCases()
{
    return {new AggregationSpecTestCase,
            new AggregationFlowTestCase,
            new AggregationPacketTestCase};
}
