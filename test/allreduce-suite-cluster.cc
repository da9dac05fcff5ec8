/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's cluster cases: several jobs on one cluster, worked by hand at flow level
// (ClusterEngine: placements, waits, shared links, completion times) and run in one ns-3
// simulation at packet level (AllReduceHelper::InstallJob, SharedLinks) to exact sums
// (doc/allreduce.rst, "Several jobs").

#include "allreduce-suite-cases.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <map>

using namespace ns3;
using namespace ns3::allreduce_suite;
using ns3::test::Dumbbell;
using ns3::test::SequencePlacement;

namespace
{

/// A job arriving at `arrival` on `servers` servers whose rounds take 1 s at 32 kbit/s
/// (pieces of 4,000 bytes), `iterations` AllReduces, no computing.
JobSpec
Job(double arrival, uint32_t servers, uint32_t iterations = 1)
{
    JobSpec job;
    job.arrivalS = arrival;
    job.servers = servers;
    job.gradientBytes = 4000 * servers;
    job.iterations = iterations;
    return job;
}

/// Greedy in the given mode, a piece of 4,000 bytes per second on every link.
ClusterConfig
FlowConfig(ClusterMode mode)
{
    ClusterConfig config;
    config.scheduler = "greedy";
    config.mode = mode;
    config.linkRateBps = 32000;
    return config;
}

/// \return jobs on servers {0, 2} and {1, 3} of the dumbbell: both cross link 4 - 5
Ptr<PlacementPolicy>
AcrossTheMiddle()
{
    return CreateObject<SequencePlacement>(std::vector<std::vector<uint32_t>>{{0, 2}, {1, 3}});
}

} // namespace

/**
 * \ingroup allreduce-tests
 * ClusterEngine on the dumbbell, worked by hand: two jobs that both cross the middle link take
 * turns (the first come holds it for its 2 rounds, the other finishes at 4 s); jointly, the job
 * with less work left goes first; a job that finds too few free servers waits for them, and the
 * wait counts in its completion time.
 */
class ClusterFlowTestCase : public TestCase
{
  public:
    ClusterFlowTestCase()
        : TestCase("several jobs: at flow level jobs sharing a link take turns, jointly the least "
                   "work first, and a job waits for servers (worked by hand)")
    {
    }

  private:
    void DoRun() override
    {
        const Topology t = Dumbbell();
        for (ClusterMode mode : {ClusterMode::INDEPENDENT, ClusterMode::JOINT})
        {
            const std::string name = GetClusterModeName(mode);
            ClusterEngine engine(t, AcrossTheMiddle(), FlowConfig(mode));
            const ClusterResult r = engine.Run({Job(0, 2), Job(0, 2)});
            NS_TEST_ASSERT_MSG_EQ(r.jobs.size(), 2, name);
            NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[0].finishS, 2.0, 1e-9, name << ": first come");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].finishS, 4.0, 1e-9, name << ": waits its turn");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.jobs[1].startS, 0.0, 1e-9, name << ": placed at once");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.GetMeanJct(), 3.0, 1e-9, name);
            // 4 rounds of two workloads, each holding 3 directed links for 1 s, of 10 x 4 s.
            NS_TEST_EXPECT_MSG_EQ_TOL(r.linkUtilisation, 24.0 / 40.0, 1e-9, name);
            for (const ClusterJobResult& job : r.jobs)
            {
                NS_TEST_EXPECT_MSG_EQ(job.rounds, 2, name << " job " << job.id);
                NS_TEST_EXPECT_MSG_EQ(job.valid, true, job.error);
                NS_TEST_EXPECT_MSG_EQ(ValidateSchedule(*job.workloads, job.schedules[0]).valid,
                                      true,
                                      name << " job " << job.id);
            }
        }

        // Job 0 runs 3 AllReduces, job 1 one. First come: job 1 waits 6 rounds; joint: job 1
        // has less work left and goes first, job 0 waits 2 rounds.
        const std::vector<JobSpec> unequal{Job(0, 2, 3), Job(0, 2, 1)};
        ClusterEngine independent(t, AcrossTheMiddle(), FlowConfig(ClusterMode::INDEPENDENT));
        const ClusterResult first = independent.Run(unequal);
        NS_TEST_EXPECT_MSG_EQ_TOL(first.jobs[0].finishS, 6.0, 1e-9, "independent job 0");
        NS_TEST_EXPECT_MSG_EQ_TOL(first.jobs[1].finishS, 8.0, 1e-9, "independent job 1");
        ClusterEngine joint(t, AcrossTheMiddle(), FlowConfig(ClusterMode::JOINT));
        const ClusterResult least = joint.Run(unequal);
        NS_TEST_EXPECT_MSG_EQ_TOL(least.jobs[1].finishS, 2.0, 1e-9, "joint job 1");
        NS_TEST_EXPECT_MSG_EQ_TOL(least.jobs[0].finishS, 8.0, 1e-9, "joint job 0");

        // Job 0 takes three of the four servers; job 1 (two servers, at 0.5 s) waits for it to
        // end, and job 2 (one server, at 0.75 s) waits behind job 1: first come, first served.
        ClusterEngine packed(t, CreatePlacement("packed"), FlowConfig(ClusterMode::INDEPENDENT));
        const ClusterResult waits = packed.Run({Job(0, 3), Job(0.5, 2), Job(0.75, 1)});
        NS_TEST_EXPECT_MSG_EQ((waits.jobs[0].servers == std::vector<uint32_t>{0, 1, 2}),
                              true,
                              "packed: the first three servers");
        NS_TEST_EXPECT_MSG_EQ_TOL(waits.jobs[1].startS, waits.jobs[0].finishS, 1e-9, "job 1");
        NS_TEST_EXPECT_MSG_EQ_TOL(waits.jobs[2].startS, waits.jobs[0].finishS, 1e-9, "job 2");
        NS_TEST_EXPECT_MSG_EQ_TOL(waits.jobs[1].GetJct(),
                                  waits.jobs[1].finishS - 0.5,
                                  1e-9,
                                  "the wait counts");
        NS_TEST_EXPECT_MSG_EQ(waits.jobs[2].rounds, 0, "one server has nothing to exchange");
    }
};

/**
 * \ingroup allreduce-tests
 * Two jobs in one ns-3 simulation, each installed on its view of the dumbbell by
 * AllReduceHelper::InstallJob with its own scheduler: both end with the exact sums; deciding
 * jointly (one SharedLinks) no directed link ever carries both jobs' transfers at once, while
 * deciding independently they do share the middle link.
 */
class ClusterPacketTestCase : public TestCase
{
  public:
    ClusterPacketTestCase()
        : TestCase("several jobs: at packet level two jobs installed with InstallJob end with "
                   "exact sums; jointly they never share a directed link, independently they do")
    {
    }

  private:
    /// \return the most jobs with a transfer in flight on one directed link at once
    uint32_t RunTwoJobs(bool joint)
    {
        const Topology cluster = Dumbbell();
        DcnTopologyHelper network(cluster);
        InstallNetwork(network);
        Ptr<SharedLinks> links;
        if (joint)
        {
            links = CreateObject<SharedLinks>();
            links->SetNDirectedLinks(2 * cluster.GetNLinks());
        }
        const std::vector<JobView> views{JobView(cluster, {0, 2}), JobView(cluster, {1, 3})};
        std::vector<Ptr<AllReduceController>> controllers;
        // Per job, per directed link, its transfers in flight; the most jobs on one link.
        std::vector<std::vector<uint32_t>> inFlight(2,
                                                    std::vector<uint32_t>(2 * cluster.GetNLinks()));
        uint32_t most = 0;
        uint32_t ended = 0;
        for (uint32_t job = 0; job < 2; ++job)
        {
            const WorkloadSet workloads =
                WorkloadSet::Build(views[job].GetTopology(),
                                   BuildShortestPathTrees(views[job].GetTopology()),
                                   WorkloadSemantics::MERGE,
                                   4); // 4 pieces: several rounds each way
            AllReduceHelper helper(network);
            helper.SetAttribute("Port", UintegerValue(5000 + job));
            helper.SetControllerAttribute("GradientBytes", UintegerValue(65536));
            helper.SetControllerAttribute("StopWhenFinished", BooleanValue(false));
            helper.SetControllerAttribute("SharedLinks", PointerValue(links));
            const ApplicationContainer apps =
                helper.InstallJob(views[job], CreateScheduler("greedy"), workloads);
            NS_TEST_EXPECT_MSG_EQ(apps.Get(1)->GetNode(),
                                  network.GetServer(views[job].ToCluster(1)),
                                  "job " << job << "'s server 1 on its cluster server");
            Ptr<AllReduceController> c = helper.GetController();
            controllers.push_back(c);
            // By index, not by Ptr: a callback holding its own controller would never free it.
            const auto change = [&inFlight, &most, &controllers, job](uint32_t w, int delta) {
                for (uint32_t l : controllers[job]->GetWorkloads().Get(w).links)
                {
                    inFlight[job][l] += delta;
                    most = std::max<uint32_t>(most, (inFlight[0][l] > 0) + (inFlight[1][l] > 0));
                }
            };
            c->TraceConnectWithoutContext(
                "TransferStarted",
                Callback<void, uint32_t>([change](uint32_t w) { change(w, +1); }));
            c->TraceConnectWithoutContext(
                "TransferFinished",
                Callback<void, uint32_t>([change](uint32_t w) { change(w, -1); }));
            c->TraceConnectWithoutContext("RunEnded",
                                          Callback<void, std::string>([&ended](std::string) {
                                              if (++ended == 2)
                                              {
                                                  Simulator::Stop();
                                              }
                                          }));
        }
        Simulator::Run();
        for (uint32_t job = 0; job < 2; ++job)
        {
            const AllReduceRunResult& r = controllers[job]->GetResult();
            NS_TEST_EXPECT_MSG_EQ(r.finished, true, "job " << job << ": " << r.error);
            const AllReduceVerification v = controllers[job]->Verify();
            NS_TEST_EXPECT_MSG_EQ((v.verified && v.exact),
                                  true,
                                  "job " << job << ": " << v.message);
        }
        Simulator::Destroy();
        return most;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(RunTwoJobs(true), 1, "joint: one job per directed link at a time");
        NS_TEST_EXPECT_MSG_EQ(RunTwoJobs(false), 2, "independent: both on the middle link");
    }
};

Cases
ns3::allreduce_suite::MakeClusterCases()
{
    return {new ClusterFlowTestCase,
            new ClusterPacketTestCase};
}
