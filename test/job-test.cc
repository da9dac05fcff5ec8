/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Jobs on a cluster: a job's view of the topology (its servers merge, the others relay) and
// job traces (read, written, generated), placement policies.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace ns3;

namespace
{

/// Servers 0, 1, 2 in a line through switches 3 and 4: 0 - 3 - 1 - 4 - 2.
Topology
Line()
{
    Topology t("line", 3, 2);
    t.AddLink(0, 3);
    t.AddLink(3, 1);
    t.AddLink(1, 4);
    t.AddLink(4, 2);
    return t;
}

using ns3::test::ErrorOf;

} // namespace

TEST(JobView, AServerOutsideTheJobRelaysWithoutMerging)
{
    const Topology cluster = Line();
    const JobView job(cluster, {0, 2});
    const Topology& view = job.GetTopology();
    EXPECT_EQ(view.GetNServers(), 2u);
    EXPECT_EQ(view.GetNSwitches(), 3u);
    // Server 1 is a switch of the view.
    EXPECT_EQ(job.ToView(1), 2u);
    EXPECT_FALSE(view.IsServer(job.ToView(1)));

    const WorkloadSet ws =
        WorkloadSet::Build(view, BuildShortestPathTrees(view), WorkloadSemantics::MERGE, 1);
    // 2·m·(m−1) workloads for m = 2, each crossing server 1 whole: 0-3-1-4-2 or back.
    ASSERT_EQ(ws.GetN(), 4u);
    for (const Workload& w : ws.GetAll())
    {
        const std::vector<uint32_t> path = job.ToCluster(w.path.ToVector());
        const std::vector<uint32_t> along = {0, 3, 1, 4, 2};
        const std::vector<uint32_t> back = {2, 4, 1, 3, 0};
        EXPECT_TRUE(path == along || path == back) << "workload " << w.id;
        EXPECT_EQ(w.links.size(), 4u);
    }
    // On the whole cluster, server 1 merges: no workload crosses it.
    const WorkloadSet all =
        WorkloadSet::Build(cluster, BuildShortestPathTrees(cluster), WorkloadSemantics::MERGE, 1);
    for (const Workload& w : all.GetAll())
    {
        EXPECT_EQ(w.links.size(), 2u) << "workload " << w.id;
    }
    // Every scheduler's schedule of the job is valid, and the bound is the pair's.
    for (const char* name : {"ps", "ring", "greedy", "balanced"})
    {
        const Plan plan = CreateScheduler(name)->MakePlan(view, 1);
        EXPECT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid) << name;
    }
}

TEST(JobView, LinksKeepTheirNumbersAndDirections)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    Topology slow = cluster;
    LinkProperties half;
    half.rateFactor = 0.5;
    slow.SetLinkProperties(5, half);
    const JobView job(slow, {9, 3, 14, 0});
    const Topology& view = job.GetTopology();
    ASSERT_EQ(view.GetNLinks(), slow.GetNLinks());
    ASSERT_EQ(view.GetNNodes(), slow.GetNNodes());
    for (uint32_t i = 0; i < slow.GetNLinks(); ++i)
    {
        EXPECT_EQ(job.ToCluster(view.GetLink(i).a), slow.GetLink(i).a) << i;
        EXPECT_EQ(job.ToCluster(view.GetLink(i).b), slow.GetLink(i).b) << i;
    }
    EXPECT_EQ(view.GetLinkProperties(5).rateFactor, 0.5);
    // Servers in the order given, then the others, then the switches.
    EXPECT_EQ(job.GetMembers(), (std::vector<uint32_t>{9, 3, 14, 0}));
    EXPECT_EQ(job.ToCluster(0), 9u);
    EXPECT_EQ(job.ToCluster(3), 0u);
    EXPECT_EQ(job.ToCluster(4), 1u);
    EXPECT_EQ(job.ToCluster(view.GetNNodes() - 1), slow.GetNNodes() - 1);
    for (uint32_t node = 0; node < slow.GetNNodes(); ++node)
    {
        EXPECT_EQ(job.ToCluster(job.ToView(node)), node);
    }
    // A workload's directed links are the cluster's directed links of its cluster path.
    const WorkloadSet ws =
        WorkloadSet::Build(view, BuildShortestPathTrees(view), WorkloadSemantics::MERGE, 1);
    for (const Workload& w : ws.GetAll())
    {
        const std::vector<uint32_t> path = job.ToCluster(w.path.ToVector());
        for (size_t h = 0; h + 1 < path.size(); ++h)
        {
            const auto link = static_cast<uint32_t>(slow.FindLink(path[h], path[h + 1]));
            const uint32_t directed = 2 * link + (slow.GetLink(link).a == path[h] ? 0 : 1);
            EXPECT_EQ(w.links[h], directed) << "workload " << w.id << " hop " << h;
        }
    }
}

TEST(JobView, APlacementThatIsNotServersOnceIsRefused)
{
    const Topology cluster = Line();
    EXPECT_NE(ErrorOf([&] { JobView(cluster, {}); }).find("at least one server"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { JobView(cluster, {0, 3}); })
                  .find("server 3 (of --ranks, or of a job's placement) is not a server"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { JobView(cluster, {2, 0, 2}); }).find("server 2 twice"),
              std::string::npos);
}

TEST(JobTrace, ReadsCommentsAHeaderAndBlankLines)
{
    const std::string text = "# two jobs\n"
                             "arrival_s, servers, gradient_bytes, iterations, compute_s\n"
                             "\n"
                             "0, 4, 1048576, 2, 0.001   # the first\r\n"
                             "0.5,8,4096,1,0\n";
    const std::vector<JobSpec> jobs = ParseJobTrace(text, "t.csv");
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].arrivalS, 0.0);
    EXPECT_EQ(jobs[0].servers, 4u);
    EXPECT_EQ(jobs[0].gradientBytes, 1048576u);
    EXPECT_EQ(jobs[0].iterations, 2u);
    EXPECT_EQ(jobs[0].computeS, 0.001);
    EXPECT_EQ(jobs[1].arrivalS, 0.5);
    EXPECT_EQ(jobs[1].servers, 8u);
    // Written and read back: the same jobs.
    EXPECT_EQ(ParseJobTrace(FormatJobTrace(jobs), "again"), jobs);
    EXPECT_EQ(FormatJobTrace(jobs).substr(0, FormatJobTrace(jobs).find('\n')), JOB_TRACE_HEADER);
}

TEST(JobTrace, TimesBeyondWhatADoubleResolvesAreWrittenAndReadBackTheSame)
{
    // Beyond about 9e6 s a double cannot tell every nanosecond apart; the shortest decimal of the
    // double read is not a whole number of nanoseconds, so the trace writes the nanoseconds read.
    const std::string text = "1e-9,10,24,1000,0.25\n"
                             "9999999999999982e-9,3,4,1,0\n"
                             "999999000.999999871,3,4,1,0.000000001\n";
    const std::vector<JobSpec> jobs = ParseJobTrace(text, "late.csv");
    ASSERT_EQ(jobs.size(), 3u);
    const std::string written = FormatJobTrace(jobs);
    EXPECT_NE(written.find("\n9999999.999999982,3,"), std::string::npos) << written;
    EXPECT_EQ(ParseJobTrace(written, "again"), jobs);
}

TEST(JobTrace, BadRowsAreRefusedWithTheirRowNumber)
{
    const std::string header = std::string(JOB_TRACE_HEADER) + "\n0,4,1024,1,0\n";
    const std::pair<const char*, const char*> cases[] = {
        {"0,4,1024,1", "t.csv:3: expected 5 comma-separated fields"},
        {"0,4,1024,1,0,7", "t.csv:3: expected 5"},
        {"-1,4,1024,1,0", "t.csv:3: arrival_s '-1' is negative; give seconds from 0 to 1e9"},
        {"nan,4,1024,1,0", "t.csv:3: arrival_s 'nan'"},
        {"1,0,1024,1,0", "t.csv:3: servers '0'; give a whole number from 1"},
        {"1,2.5,1024,1,0", "t.csv:3: servers '2.5'"},
        {"1,4,1022,1,0", "t.csv:3: gradient_bytes '1022' must be a multiple of 4"},
        {"1,4,1MiB,1,0", "t.csv:3: gradient_bytes '1MiB'"},
        {"1,4,1024,0,0", "t.csv:3: iterations '0'"},
        {"1,4,1024,1,x", "t.csv:3: compute_s 'x'"},
        {"1,4,1024,1,", "t.csv:3: compute_s is empty"},
    };
    for (const auto& [row, expected] : cases)
    {
        const std::string error = ErrorOf([&] { ParseJobTrace(header + row + "\n", "t.csv"); });
        EXPECT_NE(error.find(expected), std::string::npos) << row << " gave: " << error;
    }
    EXPECT_NE(ErrorOf([] { ParseJobTrace("1,4,1024,1,0\n0.5,4,1024,1,0\n", "t.csv"); })
                  .find("t.csv:2: arrival_s 0.5 is before the previous job's 1"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseJobTrace("# nothing\n", "t.csv"); }).find("t.csv: no job"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ParseJobTrace("arrival_s,size,gradient_bytes,iterations,compute_s\n",
                                         "t.csv"); })
                  .find("t.csv:1: the header"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { ReadJobTrace("/nonexistent/trace.csv"); }).find("/nonexistent/trace.csv"),
              std::string::npos);
}

TEST(JobTrace, TheGeneratorIsSeededAndDrawsFromItsLists)
{
    JobTraceConfig config;
    config.jobs = 200;
    config.meanInterarrivalS = 0.01;
    config.servers = {2, 4, 8};
    config.gradientBytes = {4096, 1048576};
    config.seed = 7;
    const std::vector<JobSpec> jobs = GenerateJobTrace(config);
    ASSERT_EQ(jobs.size(), 200u);
    EXPECT_EQ(GenerateJobTrace(config), jobs);
    config.seed = 8;
    EXPECT_NE(GenerateJobTrace(config), jobs);
    EXPECT_EQ(jobs.front().arrivalS, 0.0);
    std::vector<uint32_t> sizes(9, 0);
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        ++sizes.at(jobs[i].servers);
        EXPECT_TRUE(jobs[i].gradientBytes == 4096 || jobs[i].gradientBytes == 1048576);
        if (i > 0)
        {
            EXPECT_GE(jobs[i].arrivalS, jobs[i - 1].arrivalS);
        }
    }
    EXPECT_GT(sizes[2], 0u);
    EXPECT_GT(sizes[4], 0u);
    EXPECT_GT(sizes[8], 0u);
    // Poisson arrivals: the mean gap is near the mean asked for (199 gaps).
    const double meanGap = jobs.back().arrivalS / 199;
    EXPECT_GT(meanGap, 0.007);
    EXPECT_LT(meanGap, 0.013);
    // A generated trace is a trace.
    EXPECT_EQ(ParseJobTrace(FormatJobTrace(jobs), "generated"), jobs);
    config.servers = {};
    EXPECT_NE(ErrorOf([&] { GenerateJobTrace(config); }).find("job size"), std::string::npos);
}

namespace
{

/// \return a request for a job of `servers` servers, with the servers `busy` held
PlacementRequest
Request(const Topology& cluster, uint32_t servers, const std::vector<uint32_t>& busy)
{
    PlacementRequest request;
    request.servers = servers;
    request.free.assign(cluster.GetNServers(), 1);
    for (uint32_t s : busy)
    {
        request.free[s] = 0;
    }
    return request;
}

/// A placement that answers a held server: Place must refuse it.
class WrongPlacement : public PlacementPolicy
{
  public:
    std::string GetName() const override
    {
        return "wrong";
    }

  protected:
    std::vector<uint32_t> DoPlace(const Topology& /* cluster */,
                                  const PlacementRequest& request) override
    {
        std::vector<uint32_t> out;
        for (uint32_t s = 0; out.size() < request.servers; ++s)
        {
            out.push_back(s); // held or not
        }
        return out;
    }
};

} // namespace

TEST(Placement, PackedTakesTheFirstRunOfFreeServersElseTheLowest)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    Ptr<PlacementPolicy> packed = CreatePlacement("packed");
    EXPECT_EQ(packed->GetName(), "packed");
    EXPECT_EQ(packed->Place(cluster, Request(cluster, 4, {})),
              (std::vector<uint32_t>{0, 1, 2, 3}));
    // 0-3 and 6 held: the first run of four free servers is 7-10.
    EXPECT_EQ(packed->Place(cluster, Request(cluster, 4, {0, 1, 2, 3, 6})),
              (std::vector<uint32_t>{7, 8, 9, 10}));
    // No run of three: the lowest free servers.
    EXPECT_EQ(packed->Place(cluster, Request(cluster, 3, {1, 3, 5, 7, 9, 11, 13, 15, 0, 4, 8})),
              (std::vector<uint32_t>{2, 6, 10}));
    // Too few free servers: the job waits.
    std::vector<uint32_t> busy(14);
    std::iota(busy.begin(), busy.end(), 0);
    EXPECT_TRUE(packed->Place(cluster, Request(cluster, 3, busy)).empty());
}

TEST(Placement, RandomIsSeededAndTakesFreeServersOnly)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    const auto draw = [&cluster](uint64_t seed) {
        Ptr<PlacementPolicy> random = CreatePlacement("random");
        random->SetAttribute("Seed", UintegerValue(seed));
        std::vector<std::vector<uint32_t>> out;
        for (int i = 0; i < 5; ++i)
        {
            out.push_back(random->Place(cluster, Request(cluster, 5, {2, 3, 11})));
        }
        return out;
    };
    const auto first = draw(4);
    EXPECT_EQ(draw(4), first);
    EXPECT_NE(draw(5), first);
    for (const auto& placed : first)
    {
        ASSERT_EQ(placed.size(), 5u);
        EXPECT_TRUE(std::is_sorted(placed.begin(), placed.end()));
        EXPECT_EQ(std::adjacent_find(placed.begin(), placed.end()), placed.end());
        for (uint32_t s : placed)
        {
            EXPECT_TRUE(s != 2 && s != 3 && s != 11) << s;
        }
    }
    EXPECT_NE(first[0], first[1]); // the draws follow each other
}

TEST(Placement, AListIsTakenAsGivenOrWaitedFor)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    Ptr<PlacementPolicy> list = CreatePlacement("list");
    list->SetAttribute("Servers", StringValue("9, 3,14"));
    EXPECT_EQ(list->Place(cluster, Request(cluster, 3, {})), (std::vector<uint32_t>{9, 3, 14}));
    EXPECT_TRUE(list->Place(cluster, Request(cluster, 3, {14})).empty());
    EXPECT_NE(ErrorOf([&] { list->Place(cluster, Request(cluster, 4, {})); })
                  .find("gives 3 servers for a job of 4"),
              std::string::npos);
    list->SetAttribute("Servers", StringValue("1,2,1"));
    EXPECT_NE(ErrorOf([&] { list->Place(cluster, Request(cluster, 3, {})); })
                  .find("server 1 twice"),
              std::string::npos);
    list->SetAttribute("Servers", StringValue("1,2,16"));
    EXPECT_NE(ErrorOf([&] { list->Place(cluster, Request(cluster, 3, {})); })
                  .find("'16' is not a server"),
              std::string::npos);
}

TEST(Placement, TopologyAwareKeepsAJobInsideAPodAndAwayFromBusyLinks)
{
    // Fat-tree k=4: 4 servers per pod, 2 per edge switch (servers 4p..4p+3 in pod p).
    const Topology cluster = BuildTopology("fattree:k=4");
    Ptr<PlacementPolicy> aware = CreatePlacement("topology-aware");
    auto pod = [](uint32_t s) { return s / 4; };
    auto edge = [&](uint32_t s) { return cluster.GetNeighbors(s).front(); };
    const std::vector<uint32_t> pair = aware->Place(cluster, Request(cluster, 2, {}));
    ASSERT_EQ(pair.size(), 2U);
    EXPECT_EQ(edge(pair[0]), edge(pair[1]));
    // With server 1 held, the first pod no longer has a free edge switch pair: another does.
    const std::vector<uint32_t> other = aware->Place(cluster, Request(cluster, 2, {1}));
    EXPECT_EQ(edge(other[0]), edge(other[1]));
    const std::vector<uint32_t> four = aware->Place(cluster, Request(cluster, 4, {}));
    ASSERT_EQ(four.size(), 4U);
    for (uint32_t s : four)
    {
        EXPECT_EQ(pod(s), pod(four[0]));
    }
    // Running jobs on every link of pods 0 and 1: the job goes to pod 2 or 3.
    PlacementRequest busy = Request(cluster, 4, {});
    busy.linkJobs.assign(2 * cluster.GetNLinks(), 0);
    for (uint32_t i = 0; i < cluster.GetNLinks(); ++i)
    {
        const TopologyLink& link = cluster.GetLink(i);
        for (uint32_t end : {link.a, link.b})
        {
            if ((end < 8) || (!cluster.IsServer(end) &&
                              std::any_of(cluster.GetNeighbors(end).begin(),
                                          cluster.GetNeighbors(end).end(),
                                          [](uint32_t v) { return v < 8; })))
            {
                busy.linkJobs[2 * i] = busy.linkJobs[2 * i + 1] = 3;
            }
        }
    }
    const std::vector<uint32_t> away = aware->Place(cluster, busy);
    ASSERT_EQ(away.size(), 4U);
    for (uint32_t s : away)
    {
        EXPECT_GE(pod(s), 2U) << "server " << s;
        EXPECT_EQ(pod(s), pod(away[0]));
    }
}

TEST(Placement, BadRequestsAndWrongAnswersAreRefused)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    Ptr<PlacementPolicy> packed = CreatePlacement("packed");
    EXPECT_NE(ErrorOf([&] { packed->Place(cluster, Request(cluster, 17, {})); })
                  .find("a job of 17 servers cannot run"),
              std::string::npos);
    EXPECT_NE(ErrorOf([&] { packed->Place(cluster, Request(cluster, 0, {})); })
                  .find("a job of 0 servers"),
              std::string::npos);
    PlacementRequest shortFree = Request(cluster, 2, {});
    shortFree.free.pop_back();
    EXPECT_NE(ErrorOf([&] { packed->Place(cluster, shortFree); }).find("15 free marks"),
              std::string::npos);
    const std::string unknown = ErrorOf([] { CreatePlacement("nearest"); });
    EXPECT_NE(unknown.find("unknown placement 'nearest'; available: packed, random, topology-aware, list"),
              std::string::npos)
        << unknown;
    Ptr<WrongPlacement> wrong = CreateObject<WrongPlacement>();
    EXPECT_THROW(wrong->Place(cluster, Request(cluster, 2, {1})), std::logic_error);
    EXPECT_EQ(wrong->Place(cluster, Request(cluster, 2, {5})), (std::vector<uint32_t>{0, 1}));
}

TEST(JobTrace, TimesAreWholeNanosecondsASimulationCanReach)
{
    const std::pair<const char*, const char*> cases[] = {
        {"0,4,1024,1,1e10", "t.csv:1: compute_s '1e10' is beyond 1e9 s"},
        {"1e10,4,1024,1,0", "t.csv:1: arrival_s '1e10' is beyond 1e9 s"},
        {"0,4,1024,1,1e300", "t.csv:1: compute_s '1e300' is beyond 1e9 s"},
        {"0,4,1024,1,1e-10", "t.csv:1: compute_s '1e-10' is finer than a nanosecond"},
        {"0.0000000005,4,1024,1,0", "t.csv:1: arrival_s '0.0000000005' is finer than"},
        {"0,4,1024,1,-0", "t.csv:1: compute_s '-0' is negative"},
        {"0,4,1024,1,1ms", "t.csv:1: compute_s '1ms' is not a number of seconds"},
        {"0,4,1024,1,0x10", "t.csv:1: compute_s '0x10' is not a number of seconds"},
        {"0,4,1024,1,inf", "t.csv:1: compute_s 'inf' is not a number of seconds"},
        {"9e8,4,1024,1,2e8",
         "t.csv:1: arrival_s 9e8 + iterations 1 x compute_s 2e8 is beyond 1e9 s"},
        {"0,4,1024,1000000,1001",
         "t.csv:1: arrival_s 0 + iterations 1000000 x compute_s 1001 is beyond 1e9 s"},
        // One after another, the jobs would compute until 1.2e9 s.
        {"0,4,1024,1,6e8\n0,4,1024,1,6e8", "t.csv: the last job arrives at 0 s and the jobs "
                                           "compute for 1.2e+09 s in all"},
    };
    for (const auto& [rows, expected] : cases)
    {
        const std::string error = ErrorOf([&] { ParseJobTrace(std::string(rows) + "\n", "t.csv"); });
        EXPECT_NE(error.find(expected), std::string::npos) << rows << " gave: " << error;
        EXPECT_NE(error.find("give"), std::string::npos) << error; // says what is accepted
    }
    // The edges are accepted, exactly.
    const std::vector<JobSpec> edge = ParseJobTrace("0.000000001,4,1024,1,0\n"
                                                    "1e9,4,1024,1,0\n",
                                                    "t.csv");
    EXPECT_EQ(edge[0].arrivalS, 1e-9);
    EXPECT_EQ(edge[1].arrivalS, 1e9);
    EXPECT_EQ(ParseJobTrace("5e8,4,1024,1000,500000\n", "t.csv")[0].computeS, 5e5);
}

TEST(JobTrace, AWholeNanosecondTimeReadsFormatsAndReadsBackTheSame)
{
    const std::string text = "0.001234567,4,1024,3,0.000000007\n"
                             "123456789.123456789,4,1024,1,2.5e-3\n";
    const std::vector<JobSpec> jobs = ParseJobTrace(text, "t.csv");
    EXPECT_EQ(jobs[0].arrivalS, 0.001234567);
    EXPECT_EQ(jobs[0].computeS, 7e-9);
    EXPECT_EQ(ParseJobTrace(FormatJobTrace(jobs), "again.csv"), jobs);
}

TEST(JobTrace, HeaderMistakesNameTheirColumn)
{
    const std::pair<const char*, const char*> cases[] = {
        {"arrival_s,servers,,iterations,compute_s",
         "t.csv:1: the header's column 3 is empty where gradient_bytes belongs"},
        {"arrival_s,servers,gradient_bytes,iterations",
         "t.csv:1: the header's column 5 is missing where compute_s belongs"},
        {"arrival_s,servers,gradient_bytes,iterations,compute",
         "t.csv:1: the header's column 5 is 'compute' where compute_s belongs"},
        {"arrival_s,servers,gradient_bytes,iterations,compute_s,x", "t.csv:1: the header has 6"},
        {"0,4,1024,1,0\narrival_s,servers,gradient_bytes,iterations,compute_s",
         "t.csv:2: a header line is only accepted as the first row"},
        {"0,,1024,1,0", "t.csv:1: servers is empty; give a whole number from 1"},
        {",4,1024,1,0", "t.csv:1: arrival_s is empty; give seconds"},
    };
    for (const auto& [rows, expected] : cases)
    {
        const std::string error = ErrorOf([&] { ParseJobTrace(std::string(rows) + "\n", "t.csv"); });
        EXPECT_NE(error.find(expected), std::string::npos) << rows << " gave: " << error;
        EXPECT_EQ(error.find("field ''"), std::string::npos) << error;
    }
}

TEST(JobTrace, TheGeneratorWritesWholeNanosecondsAndStaysWithinReach)
{
    JobTraceConfig config;
    config.jobs = 50;
    config.meanInterarrivalS = 1.234567e-3;
    config.computeS = 0.5e-3;
    const std::vector<JobSpec> jobs = GenerateJobTrace(config);
    for (const JobSpec& job : jobs)
    {
        const double ns = job.arrivalS * 1e9;
        EXPECT_EQ(static_cast<double>(std::llround(ns)) / 1e9, job.arrivalS) << job.arrivalS;
    }
    EXPECT_EQ(ParseJobTrace(FormatJobTrace(jobs), "generated.csv"), jobs);
    config.jobs = 100000;
    config.meanInterarrivalS = 1e6; // arrivals up to about 1e11 s
    EXPECT_NE(ErrorOf([&] { GenerateJobTrace(config); })
                  .find("the run lasts beyond 1e9 s, more than a simulation can reach"),
              std::string::npos);
    config.jobs = 1;
    config.meanInterarrivalS = 0;
    config.iterations = 1000;
    config.computeS = 1e7;
    EXPECT_NE(ErrorOf([&] { GenerateJobTrace(config); }).find("at most 1e9 s"),
              std::string::npos);
}

TEST(Placement, AListIsCheckedBeforeARunAndNamesItsOption)
{
    const Topology cluster = BuildTopology("bcube:n=4,k=1");
    Ptr<PlacementPolicy> list = CreatePlacement("list");
    EXPECT_NE(ErrorOf([&] { list->CheckJobSize(cluster, 2); })
                  .find("--placement=list places each job on the servers of "
                        "--ns3::ListPlacement::Servers, which is not given: give 2 distinct "
                        "servers of 'bcube(n=4,k=1)' (0 to 15)"),
              std::string::npos);
    list->SetAttribute("Servers", StringValue("0,0"));
    const std::string twice = ErrorOf([&] { list->CheckJobSize(cluster, 2); });
    EXPECT_NE(twice.find("--ns3::ListPlacement::Servers='0,0' gives server 0 twice; give 2 "
                         "distinct servers"),
              std::string::npos)
        << twice;
    EXPECT_EQ(twice.find("a job's placement"), std::string::npos);
    list->SetAttribute("Servers", StringValue("0,1,"));
    EXPECT_NE(ErrorOf([&] { list->CheckJobSize(cluster, 2); }).find("ends with a comma"),
              std::string::npos);
    list->SetAttribute("Servers", StringValue("0,1"));
    EXPECT_NE(ErrorOf([&] { list->CheckJobSize(cluster, 3); })
                  .find("gives 2 servers for a job of 3"),
              std::string::npos);
    EXPECT_NO_THROW(list->CheckJobSize(cluster, 2));
}

TEST(Placement, TopologyAwareRefusesAJobItCouldNotPlaceInReasonableTime)
{
    const Topology cluster = BuildTopology("fattree:k=32"); // 8192 servers
    Ptr<PlacementPolicy> aware = CreatePlacement("topology-aware");
    EXPECT_NO_THROW(aware->CheckJobSize(cluster, 64));
    const std::string error = ErrorOf([&] { aware->CheckJobSize(cluster, 4096); });
    EXPECT_NE(error.find("the topology-aware placement of a job of 4096 servers on "
                         "'fattree(k=32)' would take about"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("give --placement=packed or random"), std::string::npos) << error;
    aware->SetAttribute("Candidates", UintegerValue(1));
    EXPECT_NO_THROW(aware->CheckJobSize(cluster, 1024));
    EXPECT_NO_THROW(CreatePlacement("packed")->CheckJobSize(cluster, 8192));
}
