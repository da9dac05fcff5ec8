/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's packet-level cases: an AllReduce run by the applications over TCP in ns-3
// ends with the exact sum on every server, replayed or decided online, around a failed link
// (doc/allreduce.rst, "Packet level").

#include "allreduce-experiment.h"
#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <vector>

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * Packet level, for in-tree users: an AllReduce run by the applications over TCP ends with the
 * exact sum on every server, in both modes, with the same rounds as the schedule.
 */
class PacketAllReduceTestCase : public TestCase
{
  public:
    PacketAllReduceTestCase()
        : TestCase("packet level: ps, ring and balanced on DCell(3,1) end with the exact sum on "
                   "every server in both modes")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* scheduler : {"ps", "ring", "balanced"})
        {
            const Plan plan =
                CreateScheduler(scheduler)->MakePlan(BuildTopology("dcell:n=3,k=1"), 1);
            for (const char* mode : {"barrier", "async"})
            {
                PacketRunConfig config;
                config.mode = mode;
                config.gradientBytes = 16384;
                config.connections = std::string(mode) == "async" ? "per-transfer" : "persistent";
                const PacketRunReport r = RunPacketAllReduce(plan, config);
                NS_TEST_EXPECT_MSG_EQ(r.result.finished, true, r.result.error);
                NS_TEST_EXPECT_MSG_EQ(r.verification.verified,
                                      true,
                                      scheduler << " " << mode << ": " << r.verification.message);
                NS_TEST_EXPECT_MSG_EQ(r.result.roundEnd.size(),
                                      plan.schedule.GetNRounds(),
                                      "one end per round");
                // Each workload on one flow (one each per transfer, shared when persistent).
                std::vector<uint32_t> seen(plan.workloads.GetN(), 0);
                for (const FlowReport& f : r.flows)
                {
                    for (uint32_t w : f.workloads)
                    {
                        ++seen[w];
                    }
                }
                NS_TEST_EXPECT_MSG_EQ((seen == std::vector<uint32_t>(plan.workloads.GetN(), 1)),
                                      true,
                                      "every workload on exactly one flow");
            }
        }
    }
};

namespace
{

/// Bytes of every server's gradient in the helper cases: 4,096 float32 values.
constexpr uint64_t GRADIENT_BYTES = 16384;

} // namespace

/**
 * \ingroup allreduce-tests
 * The module's own API, as a user's script uses it: DcnTopologyHelper builds fat-tree k=4,
 * AllReduceHelper installs an application per server and a controller that replays a plan
 * round after round, and every server ends with the exact sum, having sent 2 (N-1) gradients
 * of payload. The check is not vacuous: the same run stopped halfway is not verified.
 */
class HelperReplayTestCase : public TestCase
{
  public:
    HelperReplayTestCase()
        : TestCase("packet level: AllReduceHelper replays a plan on fat-tree k=4 round after "
                   "round to the exact sums; stopped halfway it is not verified")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = BuildTopology("fattree:k=4");
        const Plan plan = CreateScheduler("balanced")->MakePlan(t, 1);
        const uint32_t n = t.GetNServers();
        double completion = 0;
        {
            DcnTopologyHelper dcn(t);
            InstallNetwork(dcn);
            AllReduceHelper allreduce(dcn);
            allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
            allreduce.SetControllerAttribute("GradientBytes", UintegerValue(GRADIENT_BYTES));
            const ApplicationContainer apps = allreduce.Install(plan);
            NS_TEST_ASSERT_MSG_EQ(apps.GetN(), n, "one application per server");
            for (uint32_t s = 0; s < n; ++s)
            {
                NS_TEST_EXPECT_MSG_EQ(apps.Get(s)->GetNode(), dcn.GetServer(s), "server " << s);
            }
            Ptr<AllReduceController> controller = allreduce.GetController();
            std::vector<uint32_t> rounds;
            controller->TraceConnectWithoutContext(
                "RoundFinished",
                Callback<void, uint32_t, Time>(
                    [&rounds](uint32_t round, Time) { rounds.push_back(round); }));
            Simulator::Run();
            const AllReduceRunResult& r = controller->GetResult();
            NS_TEST_ASSERT_MSG_EQ(r.finished, true, r.error);
            const AllReduceVerification v = controller->Verify();
            NS_TEST_EXPECT_MSG_EQ(v.verified, true, v.message);
            NS_TEST_EXPECT_MSG_EQ(v.exact, true, "integer values are compared exactly");
            NS_TEST_EXPECT_MSG_EQ(v.maxError, 0.0, "no error at all");
            NS_TEST_EXPECT_MSG_EQ(r.transfersFinished, plan.workloads.GetN(), "transfers");
            NS_TEST_EXPECT_MSG_EQ(r.payloadBytes, 2 * (n - 1) * GRADIENT_BYTES, "payload");
            NS_TEST_ASSERT_MSG_EQ(rounds.size(), plan.schedule.GetNRounds(), "rounds finished");
            for (uint32_t i = 0; i < rounds.size(); ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(rounds[i], i, "barrier: rounds end in order");
                NS_TEST_EXPECT_MSG_GT_OR_EQ(r.roundStart[i],
                                            (i == 0 ? 0.0 : r.roundEnd[i - 1]),
                                            "round " << i << " started before the one before "
                                                     << "it ended");
            }
            completion = r.completionTime;
            Simulator::Destroy();
        }

        DcnTopologyHelper dcn(t);
        InstallNetwork(dcn);
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(GRADIENT_BYTES));
        allreduce.Install(plan);
        Simulator::Stop(Seconds(completion / 2));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(allreduce.GetController()->GetResult().finished, false, "halfway");
        const AllReduceVerification half = allreduce.GetController()->Verify();
        NS_TEST_EXPECT_MSG_EQ(half.verified, false, "a run stopped halfway verified");
        NS_TEST_EXPECT_MSG_EQ(Mentions(half.message, "server"), true, half.message);
        Simulator::Destroy();
    }
};

/**
 * \ingroup allreduce-tests
 * A scheduler deciding inside ns-3 (AllReduceHelper::Install with a scheduler): unperturbed, in
 * barrier mode greedy decides the rounds it plans offline, one decision per round; with a link
 * failing mid-run it routes the workloads not yet finished around it and still ends with the
 * exact sum; in async mode its run validates.
 */
class OnlinePacketTestCase : public TestCase
{
  public:
    OnlinePacketTestCase()
        : TestCase("packet level: greedy deciding online in ns-3 takes its offline rounds, routes "
                   "around a link failing mid-run, exact sums in both modes")
    {
    }

  private:
    /// What an online run left.
    struct OnlineRun
    {
        AllReduceRunResult result;          //!< the controller's result
        AllReduceVerification verification; //!< every server against the exact sum
        WorkloadSet workloads;              //!< the workloads, with the paths they took
        Schedule schedule;                  //!< the rounds as decided
    };

    /// \return one online run of greedy on BCube(3,1), link 0 down at downAt s when not 0
    static OnlineRun Run(const std::string& mode, double downAt)
    {
        DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
        InstallNetwork(dcn);
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("Mode", StringValue(mode));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(65536));
        allreduce.SetControllerAttribute("StallTimeout", TimeValue(MilliSeconds(50)));
        allreduce.Install(CreateScheduler("greedy"));
        if (downAt > 0)
        {
            Simulator::Schedule(Seconds(downAt), &DcnTopologyHelper::SetLinkUp, &dcn, 0, false);
        }
        Simulator::Run();
        Ptr<AllReduceController> c = allreduce.GetController();
        OnlineRun run{c->GetResult(), c->Verify(), c->GetWorkloads(), c->GetSchedule()};
        Simulator::Destroy();
        return run;
    }

    void DoRun() override
    {
        const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=3,k=1"), 1);
        const OnlineRun unperturbed = Run("barrier", 0);
        NS_TEST_ASSERT_MSG_EQ(unperturbed.result.finished, true, unperturbed.result.error);
        NS_TEST_EXPECT_MSG_EQ(unperturbed.verification.verified,
                              true,
                              unperturbed.verification.message);
        NS_TEST_EXPECT_MSG_EQ((unperturbed.schedule.rounds == plan.schedule.rounds),
                              true,
                              "online, unperturbed, greedy decides its offline rounds");
        NS_TEST_EXPECT_MSG_EQ(unperturbed.result.decisions,
                              plan.schedule.GetNRounds(),
                              "one decision per round");

        const double downAt = 0.3 * unperturbed.result.completionTime;
        const OnlineRun failed = Run("barrier", downAt);
        NS_TEST_ASSERT_MSG_EQ(failed.result.finished, true, failed.result.error);
        NS_TEST_EXPECT_MSG_EQ(failed.verification.verified, true, failed.verification.message);
        NS_TEST_EXPECT_MSG_GT(failed.result.rerouted, 0, "workloads routed around link 0");
        for (uint32_t w = 0; w < failed.workloads.GetN(); ++w)
        {
            const auto& links = failed.workloads.Get(w).links;
            const bool onLink0 = std::find(links.begin(), links.end(), 0) != links.end() ||
                                 std::find(links.begin(), links.end(), 1) != links.end();
            NS_TEST_EXPECT_MSG_EQ((failed.result.transferStart[w] > downAt && onLink0),
                                  false,
                                  "workload " << w << " started after the failure on link 0");
        }

        const OnlineRun async = Run("async", 0);
        NS_TEST_ASSERT_MSG_EQ(async.result.finished, true, async.result.error);
        NS_TEST_EXPECT_MSG_EQ(async.verification.verified, true, async.verification.message);
        const ScheduleCheck check = ValidateSchedule(async.workloads, async.schedule);
        NS_TEST_EXPECT_MSG_EQ(check.valid, true, check.error);
    }
};

Cases
ns3::allreduce_suite::MakePacketCases()
{
    return {new PacketAllReduceTestCase,
            new HelperReplayTestCase,
            new OnlinePacketTestCase};
}
