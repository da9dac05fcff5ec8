/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's MSCCL cases: a schedule written as an MSCCL algorithm file (XML), read back,
// checked by the MSCCL simulator, imported onto the topology with the same rounds, validated
// and run packet by packet to exact sums (doc/allreduce.rst, "MSCCL algorithm files").

#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * \ingroup allreduce-tests
 * balanced's BCube(3,1) schedule (11 rounds) exported as an MSCCL file: the file reads back as
 * an algorithm of 9 ranks that the MSCCL simulator runs to the AllReduce (one send per
 * workload), imports onto BCube(3,1) (directly and through ReadPlanFile) with the same rounds
 * and a valid schedule, and runs in ns-3 to the exact sums.
 */
class MscclRoundTripTestCase : public TestCase
{
  public:
    MscclRoundTripTestCase()
        : TestCase("MSCCL: a schedule exported as an MSCCL file reads back, simulates, imports "
                   "with the same rounds, validates and runs in ns-3 to exact sums")
    {
    }

  private:
    void DoRun() override
    {
        const Topology bcube = BuildTopology("bcube:n=3,k=1");
        const SchedulerResult original = EvaluateScheduler(bcube, "balanced", 1);
        NS_TEST_ASSERT_MSG_EQ(original.check.valid, true, original.check.error);
        const std::string path = CreateTempDirFilename("balanced.xml");
        WriteMscclFile(path, original.plan.workloads, original.plan.schedule);
        NS_TEST_EXPECT_MSG_EQ(IsMscclFile(path), true, path << " is XML");

        const MscclAlgorithm algorithm = ReadMscclFile(path);
        NS_TEST_EXPECT_MSG_EQ(algorithm.GetNRanks(), 9, "one rank per server");
        NS_TEST_EXPECT_MSG_EQ(algorithm.coll, "allreduce", "the collective");
        const std::vector<MscclTransfer> transfers = SimulateMscclAlgorithm(algorithm, path);
        NS_TEST_EXPECT_MSG_EQ(transfers.size(), original.plan.workloads.GetN(), "one per workload");

        const MscclImport imported = ImportMscclAlgorithm(algorithm, path, bcube, {});
        const SchedulerResult back = EvaluatePlan(imported.plan);
        NS_TEST_EXPECT_MSG_EQ(back.check.valid, true, back.check.error);
        NS_TEST_EXPECT_MSG_EQ(ToString(back.plan.workloads.GetSemantics()),
                              ToString(WorkloadSemantics::MSCCL),
                              "MSCCL semantics");
        NS_TEST_EXPECT_MSG_EQ(back.plan.workloads.GetN(), original.plan.workloads.GetN(), "size");
        NS_TEST_EXPECT_MSG_EQ(back.plan.schedule.GetNRounds(), 11, "balanced's 11 rounds");
        const Plan read = ReadPlanFile(path, "bcube:n=3,k=1");
        NS_TEST_EXPECT_MSG_EQ(read.schedule.GetNRounds(), 11, "through ReadPlanFile");

        DcnTopologyHelper dcn(bcube);
        InstallNetwork(dcn);
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(8192));
        allreduce.Install(imported.plan);
        Simulator::Run();
        const AllReduceRunResult& r = allreduce.GetController()->GetResult();
        NS_TEST_EXPECT_MSG_EQ(r.finished, true, r.error);
        NS_TEST_EXPECT_MSG_EQ(r.transfersFinished, imported.plan.workloads.GetN(), "transfers");
        const AllReduceVerification v = allreduce.GetController()->Verify();
        NS_TEST_EXPECT_MSG_EQ((v.verified && v.exact), true, v.message);
        Simulator::Destroy();
    }
};

/**
 * \ingroup allreduce-tests
 * What is wrong is refused with where: an algorithm with a receive taken out (the simulator
 * names the rank and the send nobody receives), a malformed file (its line), and an invalid
 * schedule or one with aggregating switches on export.
 */
class MscclRefusalTestCase : public TestCase
{
  public:
    MscclRefusalTestCase()
        : TestCase("MSCCL: a broken algorithm, a malformed file and schedules MSCCL cannot hold "
                   "are refused saying where")
    {
    }

  private:
    void DoRun() override
    {
        const SchedulerResult ring = EvaluateScheduler(BuildTopology("bcube:n=2,k=1"), "ring", 1);
        MscclAlgorithm broken = ExportMscclAlgorithm(ring.plan.workloads, ring.plan.schedule);
        NS_TEST_EXPECT_MSG_EQ(SimulateMscclAlgorithm(broken, "ring.xml").size(),
                              ring.plan.workloads.GetN(),
                              "the exported ring runs");
        // Rank 1's last receive from rank 0 taken out: rank 0's send to it is never received.
        broken.gpus[1].threadblocks[0].steps.pop_back();
        const std::string lost = ErrorOf([&broken] { SimulateMscclAlgorithm(broken, "ring.xml"); });
        NS_TEST_EXPECT_MSG_EQ(Mentions(lost, "MSCCL algorithm 'ring.xml': rank 0, step ") &&
                                  Mentions(lost,
                                           "it sends to rank 1 on channel 0, which never "
                                           "receives it"),
                              true,
                              lost);

        const std::string malformed = ErrorOf([] { ParseMscclXml("<algo", "f.xml"); });
        NS_TEST_EXPECT_MSG_EQ(Mentions(malformed, "not well-formed"), true, malformed);

        Schedule swapped = ring.plan.schedule;
        std::swap(swapped.rounds.front(), swapped.rounds.back());
        const std::string invalid =
            ErrorOf([&] { ExportMscclAlgorithm(ring.plan.workloads, swapped); });
        NS_TEST_EXPECT_MSG_EQ(Mentions(invalid, "invalid schedule"), true, invalid);
        const SchedulerResult ina =
            EvaluateScheduler(BuildTopology("fattree:k=4,ina=all"), "ps", 1);
        const std::string aggregating =
            ErrorOf([&] { ExportMscclAlgorithm(ina.plan.workloads, ina.plan.schedule); });
        NS_TEST_EXPECT_MSG_EQ(Mentions(aggregating, "switches do not aggregate"),
                              true,
                              aggregating);
    }
};

Cases
ns3::allreduce_suite::MakeMscclCases()
{
    return {new MscclRoundTripTestCase,
            new MscclRefusalTestCase};
}
