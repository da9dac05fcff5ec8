/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Several jobs on one cluster: at flow level, links held by other jobs' rounds, the cluster
// engine's placements, waits, shared links and completion times, worked by hand; at packet
// level, links shared by the controllers of joint jobs, jobs installed on their views, and
// whole traces run in one ns-3 simulation, every AllReduce exact.

#include "cluster-table.h"
#include "packet-cluster.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace ns3;
using ns3::test::Dumbbell;
using ns3::test::ErrorOf;
using ns3::test::SequencePlacement;

namespace
{

/// \return the merge workloads on shortest-path trees of a job's view, `pieces` per chunk
WorkloadSet
MergeOnView(const JobView& view, uint32_t pieces = 1)
{
    return WorkloadSet::Build(view.GetTopology(),
                              BuildShortestPathTrees(view.GetTopology()),
                              WorkloadSemantics::MERGE,
                              pieces);
}

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

ClusterConfig
FlowConfig(ClusterMode mode, const std::string& scheduler = "greedy")
{
    ClusterConfig config;
    config.scheduler = scheduler;
    config.mode = mode;
    config.linkRateBps = 32000; // a piece of 4,000 bytes per second
    return config;
}

Ptr<PlacementPolicy>
List(const std::string& servers)
{
    Ptr<PlacementPolicy> list = CreatePlacement("list");
    list->SetAttribute("Servers", StringValue(servers));
    return list;
}

} // namespace

TEST(RoundEngineHolds, AHeldLinkIsBusyUntilReleasedAndAWithdrawnWorkloadIsReadyAgain)
{
    const Topology t = Dumbbell();
    const JobView view(t, {0, 2});
    const WorkloadSet workloads = MergeOnView(view);
    RoundEngine engine(workloads);
    ASSERT_EQ(engine.GetReady().size(), 2U); // 0 -> 2 and 2 -> 0, both across link 4 - 5
    const uint32_t across = 2 * 4;          // link 4 - 5, direction 4 -> 5
    engine.SetLinkHeld(across, true);
    EXPECT_TRUE(engine.IsLinkBusy(across));
    EXPECT_FALSE(engine.IsLinkDown(across));
    uint32_t blocked = 0;
    uint32_t free = 0;
    for (uint32_t id : engine.GetReady())
    {
        (engine.CanStart(id) ? free : blocked) = id;
    }
    EXPECT_FALSE(engine.CanStart(blocked));
    try
    {
        engine.Start(blocked);
        ADD_FAILURE() << "a workload started on a held link";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("which other traffic holds"), std::string::npos)
            << e.what();
    }
    engine.Start(free);
    engine.SetLinkHeld(across, false);
    EXPECT_FALSE(engine.IsLinkBusy(across));
    EXPECT_TRUE(engine.CanStart(blocked));
    engine.Withdraw(free);
    EXPECT_EQ(engine.GetStatus(free), WorkloadStatus::READY);
    EXPECT_TRUE(engine.GetStarted().empty());
    EXPECT_THROW(engine.Withdraw(free), std::invalid_argument);
    EXPECT_THROW(engine.SetLinkHeld(2 * t.GetNLinks(), true), std::out_of_range);
}

TEST(RoundEngineHolds, EveryServerPortHeldOrBusySaturatesTheRound)
{
    const Topology t = Dumbbell();
    const JobView view(t, {0, 2});
    const WorkloadSet workloads = MergeOnView(view);
    RoundEngine engine(workloads);
    // The view's servers are cluster servers 0 and 2: their up links are directed links 0 and 4.
    engine.SetLinkHeld(0, true);
    EXPECT_FALSE(engine.IsSaturated());
    engine.SetLinkHeld(4, true);
    EXPECT_TRUE(engine.IsSaturated());
    engine.SetLinkHeld(4, false);
    EXPECT_FALSE(engine.IsSaturated());
    for (uint32_t id : engine.GetReady())
    {
        if (engine.CanStart(id))
        {
            engine.Start(id);
            break;
        }
    }
    EXPECT_TRUE(engine.IsSaturated());
}

TEST(ClusterEngine, TwoJobsSharingALinkTakeTurnsFirstComeFirstServed)
{
    // Job 0 on servers 0 and 2, job 1 on servers 1 and 3: both cross link 4 - 5 both ways.
    // Alone, each takes 2 rounds (reduce, then gather; one piece each way per round). Job 0
    // came first, so it holds the link for both its rounds and job 1 waits for it.
    const Topology t = Dumbbell();
    for (ClusterMode mode : {ClusterMode::INDEPENDENT, ClusterMode::JOINT})
    {
        ClusterEngine engine(t,
                             CreateObject<SequencePlacement>(
                                 std::vector<std::vector<uint32_t>>{{0, 2}, {1, 3}}),
                             FlowConfig(mode));
        const ClusterResult r = engine.Run({Job(0, 2), Job(0, 2)});
        ASSERT_EQ(r.jobs.size(), 2U);
        EXPECT_EQ(r.jobs[0].servers, (std::vector<uint32_t>{0, 2}));
        EXPECT_EQ(r.jobs[1].servers, (std::vector<uint32_t>{1, 3}));
        EXPECT_DOUBLE_EQ(r.jobs[0].roundS, 1.0);
        EXPECT_DOUBLE_EQ(r.jobs[0].startS, 0.0);
        EXPECT_DOUBLE_EQ(r.jobs[1].startS, 0.0); // placed at once, but its rounds wait
        EXPECT_DOUBLE_EQ(r.jobs[0].finishS, 2.0);
        EXPECT_DOUBLE_EQ(r.jobs[1].finishS, 4.0);
        EXPECT_EQ(r.jobs[0].rounds, 2U);
        EXPECT_EQ(r.jobs[1].rounds, 2U);
        EXPECT_DOUBLE_EQ(r.GetMeanJct(), 3.0);
        EXPECT_DOUBLE_EQ(r.GetJctQuantile(0.95), 4.0);
        EXPECT_DOUBLE_EQ(r.makespanS, 4.0);
        // 4 rounds of two workloads, each holding 3 directed links (up, across, down) for 1 s:
        // 24 of the 10 directed links × 4 s.
        EXPECT_DOUBLE_EQ(r.linkUtilisation, 24.0 / 40.0);
        for (const ClusterJobResult& job : r.jobs)
        {
            EXPECT_TRUE(job.valid) << job.error;
            ASSERT_EQ(job.schedules.size(), 1U);
            EXPECT_TRUE(ValidateSchedule(*job.workloads, job.schedules[0]).valid);
        }
    }
}

TEST(ClusterEngine, JointSchedulingServesTheJobWithLeastWorkLeftFirst)
{
    // Job 0 runs 3 AllReduces, job 1 one; both want link 4 - 5 at time 0. First come: job 1
    // waits 6 rounds. Joint: job 1 has less work left and goes first, job 0 waits 2 rounds.
    const Topology t = Dumbbell();
    const std::vector<JobSpec> jobs{Job(0, 2, 3), Job(0, 2, 1)};
    auto run = [&](ClusterMode mode) {
        ClusterEngine engine(t,
                             CreateObject<SequencePlacement>(
                                 std::vector<std::vector<uint32_t>>{{0, 2}, {1, 3}}),
                             FlowConfig(mode));
        return engine.Run(jobs);
    };
    const ClusterResult independent = run(ClusterMode::INDEPENDENT);
    EXPECT_DOUBLE_EQ(independent.jobs[0].finishS, 6.0);
    EXPECT_DOUBLE_EQ(independent.jobs[1].finishS, 8.0);
    const ClusterResult joint = run(ClusterMode::JOINT);
    EXPECT_DOUBLE_EQ(joint.jobs[1].finishS, 2.0);
    EXPECT_DOUBLE_EQ(joint.jobs[0].finishS, 8.0);
    EXPECT_LT(joint.GetMeanJct(), independent.GetMeanJct());
    EXPECT_DOUBLE_EQ(joint.makespanS, independent.makespanS);
}

TEST(ClusterEngine, AJobWaitsForServersAndTheWaitCountsInItsCompletionTime)
{
    // Four servers; job 0 takes three of them for 1 AllReduce; job 1 arrives at 0.5 s and
    // needs two, so it waits until job 0 ends; job 2, arriving later and needing one, waits
    // behind job 1 (first come, first served).
    const Topology t = Dumbbell();
    ClusterEngine engine(t, CreatePlacement("packed"), FlowConfig(ClusterMode::INDEPENDENT));
    const ClusterResult r = engine.Run({Job(0, 3), Job(0.5, 2), Job(0.75, 1)});
    const ClusterJobResult& first = r.jobs[0];
    const ClusterJobResult& second = r.jobs[1];
    const ClusterJobResult& third = r.jobs[2];
    EXPECT_EQ(first.servers, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_GT(first.finishS, 0.5);
    EXPECT_DOUBLE_EQ(second.startS, first.finishS);
    EXPECT_DOUBLE_EQ(third.startS, first.finishS);
    EXPECT_GT(second.GetJct(), second.finishS - second.startS);
    EXPECT_DOUBLE_EQ(second.GetJct(), second.finishS - 0.5);
    // One server has nothing to exchange: it ends as soon as it starts.
    EXPECT_DOUBLE_EQ(third.finishS, third.startS);
    EXPECT_EQ(third.rounds, 0U);
    for (const ClusterJobResult& job : r.jobs)
    {
        EXPECT_TRUE(job.valid) << job.error;
    }
}

TEST(ClusterEngine, ComputingPrecedesEachAllReduce)
{
    const Topology t = Dumbbell();
    JobSpec job = Job(1, 2, 2);
    job.computeS = 10;
    ClusterEngine engine(t, List("0,1"), FlowConfig(ClusterMode::INDEPENDENT));
    const ClusterResult r = engine.Run({job});
    // 1 s arrival, then twice: 10 s computing and 2 rounds of 1 s.
    EXPECT_DOUBLE_EQ(r.jobs[0].finishS, 1 + 2 * (10 + 2));
    EXPECT_EQ(r.jobs[0].rounds, 4U);
    EXPECT_EQ(r.jobs[0].schedules.size(), 2U);
}

TEST(ClusterEngine, AServerOutsideAJobRelaysItsTraffic)
{
    // In BCube(2,1) paths between servers 0 and 3 pass through server 1 or 2.
    const Topology t = BuildTopology("bcube:n=2,k=1");
    ClusterEngine engine(t, List("0,3"), FlowConfig(ClusterMode::INDEPENDENT));
    const ClusterResult r = engine.Run({Job(0, 2)});
    ASSERT_TRUE(r.jobs[0].valid) << r.jobs[0].error;
    const WorkloadSet& w = *r.jobs[0].workloads;
    bool relayed = false;
    for (const Workload& workload : w.GetAll())
    {
        relayed |= workload.path.size() > 3; // server, switch, relay server, switch, server
    }
    EXPECT_TRUE(relayed);
    EXPECT_EQ(r.jobs[0].rounds, 2U);
}

TEST(ClusterEngine, EveryJobOfAGeneratedTraceIsValidAndTheRunIsDeterministic)
{
    const Topology t = BuildTopology("fattree:k=4");
    JobTraceConfig trace;
    trace.jobs = 12;
    trace.seed = 3;
    trace.meanInterarrivalS = 0.0002;
    trace.servers = {2, 4, 8};
    trace.gradientBytes = {65536, 262144};
    const std::vector<JobSpec> jobs = GenerateJobTrace(trace);
    for (const std::string& scheduler : {"ps", "ring", "greedy", "balanced"})
    {
        for (ClusterMode mode : {ClusterMode::INDEPENDENT, ClusterMode::JOINT})
        {
            ClusterConfig config;
            config.scheduler = scheduler;
            config.mode = mode;
            ClusterEngine a(t, CreatePlacement("random"), config);
            ClusterEngine b(t, CreatePlacement("random"), config);
            const ClusterResult ra = a.Run(jobs);
            const ClusterResult rb = b.Run(jobs);
            ASSERT_EQ(ra.jobs.size(), jobs.size());
            for (size_t i = 0; i < jobs.size(); ++i)
            {
                EXPECT_TRUE(ra.jobs[i].valid) << scheduler << " job " << i << ": "
                                              << ra.jobs[i].error;
                EXPECT_GE(ra.jobs[i].startS, jobs[i].arrivalS);
                EXPECT_GT(ra.jobs[i].finishS, ra.jobs[i].startS);
                EXPECT_GE(ra.jobs[i].rounds, ra.jobs[i].boundRounds * jobs[i].iterations);
                EXPECT_EQ(ra.jobs[i].servers, rb.jobs[i].servers);
                EXPECT_EQ(ra.jobs[i].finishS, rb.jobs[i].finishS);
            }
            EXPECT_GT(ra.linkUtilisation, 0.0);
            EXPECT_LE(ra.linkUtilisation, 1.0);
        }
    }
}

TEST(ClusterEngine, AJobsScheduleFileReadsBackOnItsViewAndValidates)
{
    const Topology t = BuildTopology("bcube:n=2,k=1");
    ClusterEngine engine(t, List("0,3"), FlowConfig(ClusterMode::INDEPENDENT));
    const ClusterResult r = engine.Run({Job(0, 2)});
    std::ostringstream file;
    WriteScheduleJson(file, *r.jobs[0].workloads, r.jobs[0].schedules[0]);
    std::istringstream in(file.str());
    const ScheduleFile read = ReadScheduleJson(in, "job0.json");
    EXPECT_EQ(read.workloads.GetTopology(), r.jobs[0].workloads->GetTopology());
    EXPECT_EQ(read.schedule.rounds, r.jobs[0].schedules[0].rounds);
    EXPECT_TRUE(ValidateSchedule(read.workloads, read.schedule).valid);
}

TEST(ClusterEngine, BadJobsAndSettingsAreRefusedBeforeAnythingRuns)
{
    const Topology t = Dumbbell();
    ClusterEngine engine(t, CreatePlacement("packed"), FlowConfig(ClusterMode::INDEPENDENT));
    EXPECT_THROW(engine.Run({Job(0, 5)}), std::invalid_argument);
    EXPECT_THROW(engine.Run({Job(1, 2), Job(0, 2)}), std::invalid_argument);
    JobSpec tiny = Job(0, 4);
    tiny.gradientBytes = 8; // two values for four chunks
    EXPECT_THROW(engine.Run({tiny}), std::invalid_argument);
    EXPECT_THROW(ClusterEngine(t, nullptr, FlowConfig(ClusterMode::JOINT)), std::invalid_argument);
    EXPECT_THROW(ClusterEngine(t, CreatePlacement("packed"), FlowConfig(ClusterMode::JOINT, "fast")),
                 std::invalid_argument);
    ClusterConfig noRate = FlowConfig(ClusterMode::JOINT);
    noRate.linkRateBps = 0;
    EXPECT_THROW(ClusterEngine(t, CreatePlacement("packed"), noRate), std::invalid_argument);
}

namespace
{

/// Counts, per directed link, the transfers of each job in flight, and the worst overlap.
struct LinkLog
{
    std::map<uint32_t, std::vector<uint32_t>> inFlight; //!< per job, per directed link
    uint32_t jobsOnOneLink{0};                           //!< the most jobs on a link at once
    std::vector<Ptr<AllReduceController>> controllers;   //!< per job
    uint32_t ended{0};                                   //!< controllers ended

    void Change(uint32_t job, uint32_t workload, int delta)
    {
        auto& counts = inFlight[job];
        for (uint32_t l : controllers[job]->GetWorkloads().Get(workload).links)
        {
            counts[l] += delta;
            uint32_t jobs = 0;
            for (const auto& [j, c] : inFlight)
            {
                jobs += c[l] > 0;
            }
            jobsOnOneLink = std::max(jobsOnOneLink, jobs);
        }
    }
};

/// Runs two jobs, on servers {0, 2} and {1, 3}, as two controllers on one network.
LinkLog
RunTwoJobs(bool shared, const std::string& mode)
{
    const Topology cluster = Dumbbell();
    DcnTopologyHelper network(cluster);
    network.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    network.SetChannelAttribute("Delay", StringValue("1us"));
    network.Install();
    Ptr<SharedLinks> links;
    if (shared)
    {
        links = CreateObject<SharedLinks>();
        links->SetNDirectedLinks(2 * cluster.GetNLinks());
    }
    LinkLog log;
    std::vector<JobView> views{JobView(cluster, {0, 2}), JobView(cluster, {1, 3})};
    std::vector<WorkloadSet> workloads;
    for (const JobView& view : views)
    {
        workloads.push_back(MergeOnView(view, 4)); // 4 pieces: several rounds each way
    }
    for (uint32_t job = 0; job < 2; ++job)
    {
        AllReduceHelper helper(network);
        helper.SetAttribute("Port", UintegerValue(5000 + job));
        helper.SetControllerAttribute("GradientBytes", UintegerValue(65536));
        helper.SetControllerAttribute("Mode", StringValue(mode));
        helper.SetControllerAttribute("StopWhenFinished", BooleanValue(false));
        helper.SetControllerAttribute("SharedLinks", PointerValue(links));
        ApplicationContainer apps =
            helper.InstallJob(views[job], CreateScheduler("greedy"), workloads[job]);
        EXPECT_EQ(apps.Get(0)->GetNode(), network.GetServer(views[job].ToCluster(0)));
        EXPECT_EQ(apps.Get(1)->GetNode(), network.GetServer(views[job].ToCluster(1)));
        Ptr<AllReduceController> c = helper.GetController();
        log.controllers.push_back(c);
        log.inFlight[job].assign(2 * cluster.GetNLinks(), 0);
        c->TraceConnectWithoutContext("TransferStarted",
                                      Callback<void, uint32_t>([&log, job](uint32_t w) {
                                          log.Change(job, w, +1);
                                      }));
        c->TraceConnectWithoutContext("TransferFinished",
                                      Callback<void, uint32_t>([&log, job](uint32_t w) {
                                          log.Change(job, w, -1);
                                      }));
        c->TraceConnectWithoutContext("RunEnded", Callback<void, std::string>([&log](std::string) {
                                          if (++log.ended == 2)
                                          {
                                              Simulator::Stop();
                                          }
                                      }));
    }
    Simulator::Run();
    for (uint32_t job = 0; job < 2; ++job)
    {
        EXPECT_TRUE(log.controllers[job]->GetResult().finished)
            << log.controllers[job]->GetResult().error;
        EXPECT_TRUE(log.controllers[job]->Verify().verified) << "job " << job;
    }
    Simulator::Destroy();
    return log;
}

} // namespace

TEST(SharedLinks, CountsTransfersAndAsksWaitersLeastWorkFirst)
{
    Ptr<SharedLinks> links = CreateObject<SharedLinks>();
    links->SetNDirectedLinks(4);
    links->Hold(std::vector<uint32_t>{0, 1});
    links->Hold(std::vector<uint32_t>{1});
    EXPECT_EQ(links->GetInFlight(), (std::vector<uint32_t>{1, 2, 0, 0}));
    EXPECT_THROW(links->Hold(std::vector<uint32_t>{4}), std::out_of_range);
    std::vector<int> asked;
    links->AddWaiter(Callback<double>([] { return 5.0; }),
                     Callback<void>([&asked] { asked.push_back(5); }));
    const uint64_t gone = links->AddWaiter(Callback<double>([] { return 1.0; }),
                                           Callback<void>([&asked] { asked.push_back(0); }));
    links->AddWaiter(Callback<double>([] { return 2.0; }),
                     Callback<void>([&asked] { asked.push_back(2); }));
    links->RemoveWaiter(gone);
    links->Release(std::vector<uint32_t>{1});
    EXPECT_TRUE(asked.empty()); // asked in an event of its own, after the releaser decided
    Simulator::Run();
    EXPECT_EQ(asked, (std::vector<int>{2, 5}));
    EXPECT_EQ(links->GetInFlight(), (std::vector<uint32_t>{1, 1, 0, 0}));
    EXPECT_THROW(links->Release(std::vector<uint32_t>{2}), std::logic_error);
    Simulator::Destroy();
}

TEST(PacketSchedulerStateShared, LinksOtherJobsUseAreBusy)
{
    const Topology cluster = Dumbbell();
    const JobView view(cluster, {0, 2});
    PacketSchedulerState state(MergeOnView(view));
    std::vector<uint32_t> inFlight(2 * cluster.GetNLinks(), 0);
    inFlight[2 * 4] = 1; // another job sends 4 -> 5
    state.SetSharedLinkUse(inFlight);
    EXPECT_TRUE(state.IsLinkBusy(2 * 4));
    uint32_t blocked = 0;
    for (uint32_t id : state.GetReady())
    {
        blocked += !state.CanStart(id);
    }
    EXPECT_EQ(blocked, 1U); // 0 -> 2 crosses 4 -> 5; 2 -> 0 does not
    inFlight[2 * 4] = 0;
    state.SetSharedLinkUse(inFlight);
    EXPECT_FALSE(state.IsLinkBusy(2 * 4));
    for (uint32_t id : state.GetReady())
    {
        EXPECT_TRUE(state.CanStart(id));
    }
    // Its own transfers are not the others': a link it alone uses stays its own.
    const uint32_t first = state.GetReady().front();
    state.Start(first);
    for (uint32_t l : state.GetWorkloads().Get(first).links)
    {
        inFlight[l] = 1;
    }
    state.SetSharedLinkUse(inFlight);
    EXPECT_EQ(state.TakeStarted(), (std::vector<uint32_t>{first}));
    state.Finish(first);
    for (uint32_t l : state.GetWorkloads().Get(first).links)
    {
        EXPECT_FALSE(state.IsLinkBusy(l)) << "link " << l;
    }
    EXPECT_THROW(state.SetSharedLinkUse({1, 2}), std::invalid_argument);
}

TEST(PacketCluster, JointJobsNeverShareADirectedLinkAndIndependentOnesDo)
{
    for (const std::string mode : {"barrier", "async"})
    {
        EXPECT_EQ(RunTwoJobs(true, mode).jobsOnOneLink, 1U) << mode;
        EXPECT_EQ(RunTwoJobs(false, mode).jobsOnOneLink, 2U) << mode;
    }
}

TEST(PacketCluster, JobsSharingTheClusterOverRdmaEndWithTheExactSums)
{
    const Topology cluster = BuildTopology("fattree:k=4");
    JobTraceConfig trace;
    trace.jobs = 3;
    trace.seed = 2;
    trace.meanInterarrivalS = 1e-5;
    trace.servers = {4, 8};
    trace.gradientBytes = {16384};
    trace.computeS = 1e-5;
    for (ClusterMode mode : {ClusterMode::INDEPENDENT, ClusterMode::JOINT})
    {
        PacketClusterConfig config;
        config.cluster.scheduler = "balanced";
        config.cluster.mode = mode;
        config.transport = "rdma";
        const ClusterResult r =
            RunPacketCluster(cluster, CreatePlacement("packed"), config, GenerateJobTrace(trace));
        for (const ClusterJobResult& job : r.jobs)
        {
            EXPECT_TRUE(job.verified && job.valid) << "job " << job.id << ": " << job.error;
        }
    }
}

TEST(PacketCluster, EveryJobOfATraceEndsWithTheExactSumsAndWaitsForServers)
{
    // Fat-tree k=4 has 16 servers: jobs of 8 arriving together cannot all run at once.
    const Topology cluster = BuildTopology("fattree:k=4");
    JobTraceConfig trace;
    trace.jobs = 5;
    trace.seed = 2;
    trace.meanInterarrivalS = 1e-5;
    trace.servers = {4, 8};
    trace.gradientBytes = {16384};
    trace.iterations = 2;
    trace.computeS = 1e-5;
    const std::vector<JobSpec> jobs = GenerateJobTrace(trace);
    for (ClusterMode mode : {ClusterMode::INDEPENDENT, ClusterMode::JOINT})
    {
        PacketClusterConfig config;
        config.cluster.scheduler = "balanced";
        config.cluster.mode = mode;
        uint32_t reported = 0;
        const ClusterResult r =
            RunPacketCluster(cluster,
                             CreatePlacement("packed"),
                             config,
                             jobs,
                             [&reported](const ClusterJobResult&, uint32_t done) {
                                 reported = done;
                             });
        EXPECT_EQ(reported, jobs.size());
        bool waited = false;
        for (const ClusterJobResult& job : r.jobs)
        {
            EXPECT_TRUE(job.verified) << "job " << job.id << ": " << job.error;
            EXPECT_TRUE(job.valid) << "job " << job.id << ": " << job.error;
            EXPECT_EQ(job.schedules.size(), 2U);
            EXPECT_GE(job.startS, job.spec.arrivalS);
            EXPECT_GT(job.finishS, job.startS + 2 * job.spec.computeS);
            if (job.startS > job.spec.arrivalS + 1e-9) // arrivals fall on whole nanoseconds
            {
                waited = true;
                // It started when another job ended and freed its servers.
                bool freedBy = false;
                for (const ClusterJobResult& other : r.jobs)
                {
                    freedBy |= other.finishS == job.startS;
                }
                EXPECT_TRUE(freedBy) << "job " << job.id;
            }
        }
        EXPECT_TRUE(waited);
        EXPECT_GT(r.decisions, 0U);
    }
}

TEST(GradientLayout, PiecesBeyond2To32DoNotWrap)
{
    // fuzz-job-trace's divide-by-zero.csv: 65536 chunks x 65536 pieces is 2^32, which wrapped
    // to 0 in 32 bits and divided by it.
    const GradientLayout exact(uint64_t{1} << 32, 65536, 65536);
    EXPECT_EQ(exact.GetMaxPieceSize(), 1u);
    EXPECT_EQ(exact.GetSize(65535, 65535), 1u);
    EXPECT_EQ(exact.GetOffset(65535, 65535), (uint64_t{1} << 32) - 1);
    // wrapped-pieces.csv: 4295 x 1000000 wrapped to 32704 pieces of 131330 values.
    const GradientLayout wrapped(4295000000, 4295, 1000000);
    EXPECT_EQ(wrapped.GetMaxPieceSize(), 1u);
    EXPECT_EQ(wrapped.GetOffset(4294, 999999) + wrapped.GetSize(4294, 999999), 4295000000u);
    EXPECT_THROW(GradientLayout((uint64_t{1} << 32) - 1, 65536, 65536), std::invalid_argument);
}

TEST(ClusterEngine, PiecesAreCheckedAgainstTheGradientSayingTheMostAccepted)
{
    const Topology t = Dumbbell();
    JobSpec job = Job(0, 4); // 16000 bytes: 4000 values, 1000 per server
    const std::string error = ErrorOf([&] { CheckClusterJobs(t, {job}, 1001); });
    EXPECT_NE(error.find("job 0: its gradient of 16000 bytes (4000 float32 values) over its 4 "
                         "servers holds at most 1000 pieces per chunk (a piece of 0 values is "
                         "meaningless), and --pieces is 1001: give --pieces=1000 or less"),
              std::string::npos)
        << error;
    EXPECT_NO_THROW(CheckClusterJobs(t, {job}, 1000));
    job.gradientBytes = 8;
    EXPECT_NE(ErrorOf([&] { CheckClusterJobs(t, {job}, 1); })
                  .find("cannot give each server one value"),
              std::string::npos);
}

TEST(ClusterEngine, TheFuzzersProgramTraceIsRefusedBeforeAnyWork)
{
    // /tmp/fuzz-findings/job-trace/program-trace.csv on fattree:k=64 with --pieces=65536
    // divided by zero (SIGFPE); now each placement refuses before a run.
    const Topology cluster = BuildTopology("fattree:k=64");
    const std::vector<JobSpec> jobs = ParseJobTrace("0,65536,17179869184,1,0\n", "program.csv");
    const std::string error = ErrorOf([&] { CheckClusterJobs(cluster, jobs, 65536); });
    EXPECT_NE(error.find("job 0's 65536 servers x --pieces=65536 (4294967296 pieces, a workload "
                         "each) would need"),
              std::string::npos)
        << error;
    EXPECT_NE(ErrorOf([&] { CheckClusterJobs(cluster, jobs, 65537); })
                  .find("holds at most 65536 pieces per chunk"),
              std::string::npos);
    EXPECT_NO_THROW(CheckClusterJobs(cluster, jobs, 1));
    EXPECT_NE(ErrorOf([&] {
                  CheckPlacement(cluster, *CreatePlacement("topology-aware"), jobs);
              }).find("the topology-aware placement of a job of 65536 servers"),
              std::string::npos);
}

TEST(ClusterEngine, TimesBeyondReachAreRefusedForLibraryCallersToo)
{
    const Topology t = Dumbbell();
    const auto errorFor = [&t](double arrival, double compute, uint32_t iterations) {
        JobSpec job = Job(arrival, 2, iterations);
        job.computeS = compute;
        return ErrorOf([&] { CheckClusterJobs(t, {job}, 1); });
    };
    EXPECT_NE(errorFor(1e10, 0, 1).find("job 0: arrival_s 1e+10s is not from 0 to 1e9 s"),
              std::string::npos);
    EXPECT_NE(errorFor(0, 1e300, 1).find("job 0: compute_s 1e+300s is not from 0 to 1e9 s"),
              std::string::npos);
    EXPECT_NE(errorFor(0, std::nan(""), 1).find("compute_s nans is not from 0"),
              std::string::npos);
    EXPECT_NE(errorFor(0, -1, 1).find("compute_s -1s"), std::string::npos);
    EXPECT_NE(errorFor(5e8, 1e3, 1000000).find("is beyond 1e9 s"), std::string::npos);
    std::vector<JobSpec> serial(3, Job(0, 2));
    for (JobSpec& job : serial)
    {
        job.computeS = 4e8;
    }
    EXPECT_NE(ErrorOf([&] { CheckClusterJobs(t, serial, 1); })
                  .find("when they wait for each other's servers the run lasts beyond 1e9 s"),
              std::string::npos);
    std::vector<JobSpec> many(2, Job(0, 2, 600000));
    EXPECT_NE(ErrorOf([&] { CheckClusterJobs(t, many, 1); })
                  .find("the 2 jobs run 1200000 AllReduces in all"),
              std::string::npos);
}

TEST(PacketCluster, WhatASimulationCannotFinishIsRefusedBeforeItStarts)
{
    const Topology t = Dumbbell();
    PacketClusterConfig config;
    config.cluster.scheduler = "greedy";
    JobSpec late = Job(0, 2);
    late.computeS = 1e10; // aborted in the controller's StartTime
    EXPECT_NE(ErrorOf([&] { RunPacketCluster(t, CreatePlacement("packed"), config, {late}); })
                  .find("compute_s 1e+10s is not from 0 to 1e9 s"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] {
                  RunPacketCluster(t, CreatePlacement("packed"), config, {Job(0, 2, 5001)});
              }).find("the jobs run 5001 AllReduces in all (their iterations), one listening "
                      "port each, and a simulation has 5000"),
              std::string::npos);
    JobSpec huge = Job(0, 2);
    huge.gradientBytes = uint64_t{1} << 40;
    EXPECT_NE(ErrorOf([&] { RunPacketCluster(t, CreatePlacement("packed"), config, {huge}); })
                  .find("job 0's gradient_bytes 1099511627776 on each of its 2 servers"),
              std::string::npos);
    // A job arriving at 1e9 s, the edge, starts then (it went negative beyond ns-3's clock).
    JobSpec edge = Job(1e9, 2);
    const ClusterResult r = RunPacketCluster(t, CreatePlacement("packed"), config, {edge});
    EXPECT_EQ(r.jobs[0].startS, 1e9);
    EXPECT_GT(r.jobs[0].finishS, 1e9);
    EXPECT_TRUE(r.jobs[0].verified) << r.jobs[0].error;
}

TEST(ClusterTable, EveryTopologyAndPlacementIsCheckedBeforeTheFirstRun)
{
    ClusterTableConfig config;
    config.topologies = {"fattree:k=4", "bcube:n=2,k=1"}; // 16 and 4 servers
    config.placements = {"packed"};
    config.modes = {ClusterMode::INDEPENDENT};
    config.schedulers = {"greedy"};
    config.jobs = {Job(0, 8)};
    const std::string error = ErrorOf([&] { ClusterTable table(config); });
    EXPECT_NE(error.find("on bcube(n=2,k=1) (--topologies): job 0 asks for 8 servers"),
              std::string::npos)
        << error;
}
