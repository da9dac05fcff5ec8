/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Packet-level AllReduce: real gradients over ns-3 TCP, checked exactly, and its faults.

#include "allreduce-experiment.h"
#include "dynamic-table.h"
#include "packet-report.h"
#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/channel.h"
#include "ns3/core-module.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-header.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/traffic-control-layer.h"

#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

Plan
MakeTestPlan(const std::string& spec, const std::string& scheduler, uint32_t pieces = 1)
{
    return CreateScheduler(scheduler)->MakePlan(BuildTopology(spec), pieces);
}

using ns3::test::SmallPacketRun;

/**
 * The links a failure sweep takes down: every one, and under AddressSanitizer (which runs a
 * packet-level run about twenty times slower) every third, so that CI's sanitizer pass still
 * re-routes around links of every part of the topology in minutes rather than a quarter hour.
 */
#ifdef __SANITIZE_ADDRESS__
constexpr uint32_t FAILURE_SWEEP_STRIDE = 3;
#else
constexpr uint32_t FAILURE_SWEEP_STRIDE = 1;
#endif

} // namespace

TEST(GradientLayout, PiecesCoverTheGradientInOrderWithoutGaps)
{
    const GradientLayout layout(1000, 7, 3); // 21 pieces: 13 of 48 values, 8 of 47
    uint64_t next = 0;
    for (uint32_t c = 0; c < 7; ++c)
    {
        for (uint32_t p = 0; p < 3; ++p)
        {
            EXPECT_EQ(layout.GetOffset(c, p), next);
            EXPECT_GE(layout.GetSize(c, p), 47u);
            EXPECT_LE(layout.GetSize(c, p), 48u);
            next += layout.GetSize(c, p);
        }
    }
    EXPECT_EQ(next, 1000u);
    EXPECT_EQ(layout.GetMaxPieceSize(), 48u);
}

TEST(GradientLayout, TooSmallAGradientIsRefusedWithTheSizes)
{
    try
    {
        GradientLayout(17, 9, 2);
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(),
                     "a gradient of 17 float32 values (68 bytes) cannot be split into 9 chunks "
                     "x 2 pieces: every piece needs at least one value, so use at least 72 "
                     "bytes or fewer pieces");
    }
}

TEST(Gradient, SameSeedSameValuesAndIntegersStayInRange)
{
    const auto a = MakeGradient(1000, 3, 7, GRADIENT_INTEGER);
    EXPECT_EQ(a, MakeGradient(1000, 3, 7, GRADIENT_INTEGER));
    EXPECT_NE(a, MakeGradient(1000, 4, 7, GRADIENT_INTEGER));
    EXPECT_NE(a, MakeGradient(1000, 3, 8, GRADIENT_INTEGER));
    for (float v : a)
    {
        EXPECT_EQ(v, std::round(v));
        EXPECT_LE(std::fabs(v), 64.0f);
    }
    for (float v : MakeGradient(1000, 3, 7, GRADIENT_FLOAT))
    {
        EXPECT_GE(v, -1.0f);
        EXPECT_LT(v, 1.0f);
    }
}

/// Every scheduler, both modes, on small topologies of every family: exact sums everywhere.
class PacketExactSum
    : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string>>
{
};

TEST_P(PacketExactSum, EveryServerEndsWithTheExactSum)
{
    const auto& [spec, scheduler, mode] = GetParam();
    const Plan plan = MakeTestPlan(spec, scheduler);
    const PacketRunReport report = RunPacketAllReduce(plan, SmallPacketRun(mode));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_EQ(report.result.transfersFinished, plan.workloads.GetN());
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
    EXPECT_TRUE(report.verification.exact);
    EXPECT_EQ(report.verification.maxError, 0.0);
    EXPECT_GT(report.result.completionTime, 0.0);
    // Each chunk moves 2(N−1) times (N−1 reduce, N−1 gather): 2(N−1) gradients of bytes.
    const uint64_t n = plan.workloads.GetTopology().GetNServers();
    EXPECT_EQ(report.result.payloadBytes, 2 * (n - 1) * 8192);
}

INSTANTIATE_TEST_SUITE_P(
    SmallTopologies,
    PacketExactSum,
    ::testing::Combine(::testing::Values("bcube:n=2,k=1",
                                         "dcell:n=2,k=1",
                                         "fattree:k=4",
                                         "jellyfish:switches=6,degree=3,seed=2"),
                       ::testing::Values("ps", "ring", "greedy", "balanced"),
                       ::testing::Values("barrier", "async")));

TEST(PacketLevel, BarrierRoundsFollowOneAnother)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    const PacketRunReport report = RunPacketAllReduce(plan, SmallPacketRun("barrier"));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    const auto& r = report.result;
    ASSERT_EQ(r.roundEnd.size(), plan.schedule.GetNRounds());
    for (uint32_t t = 0; t + 1 < r.roundEnd.size(); ++t)
    {
        EXPECT_LT(r.roundStart[t], r.roundEnd[t]);
        EXPECT_GE(r.roundStart[t + 1], r.roundEnd[t]) << "round " << t + 1 << " started early";
    }
    EXPECT_EQ(r.completionTime, r.roundEnd.back());
}

TEST(PacketLevel, AsyncStartsAfterDependenciesAndNeverSharesALink)
{
    const Plan plan = MakeTestPlan("dcell:n=3,k=1", "balanced", 2);
    const PacketRunReport report = RunPacketAllReduce(plan, SmallPacketRun("async"));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    const auto& r = report.result;
    const WorkloadSet& ws = plan.workloads;
    std::vector<std::vector<uint32_t>> onLink(ws.GetNDirectedLinks());
    for (uint32_t w = 0; w < ws.GetN(); ++w)
    {
        for (uint32_t d : ws.GetDeps(w))
        {
            EXPECT_GE(r.transferStart[w], r.transferEnd[d]) << "workload " << w << " dep " << d;
        }
        for (uint32_t link : ws.Get(w).links)
        {
            onLink[link].push_back(w);
        }
    }
    for (const auto& users : onLink)
    {
        for (size_t i = 0; i < users.size(); ++i)
        {
            for (size_t j = i + 1; j < users.size(); ++j)
            {
                const uint32_t a = users[i];
                const uint32_t b = users[j];
                EXPECT_TRUE(r.transferEnd[a] <= r.transferStart[b] ||
                            r.transferEnd[b] <= r.transferStart[a])
                    << "workloads " << a << " and " << b << " overlap on a link";
            }
        }
    }
}

TEST(PacketLevel, PacketsTravelOnlyTheWorkloadPathsAndTheirReverse)
{
    // balanced spreads the fat-tree's flow trees over the core, so a workload's path is not
    // what the per-destination (shortest-path tree) routes would take: with those alone, 40
    // checks here fail.
    const Plan plan = MakeTestPlan("fattree:k=4", "balanced");
    const PacketRunReport report = RunPacketAllReduce(plan, SmallPacketRun("barrier"));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    std::set<uint32_t> data;
    std::set<uint32_t> acks;
    for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
    {
        for (uint32_t link : plan.workloads.Get(w).links)
        {
            data.insert(link);
            acks.insert(link ^ 1u); // the same link, the other direction
        }
    }
    for (uint32_t link = 0; link < report.linkBytes.size(); ++link)
    {
        if (data.count(link) || acks.count(link))
        {
            EXPECT_GT(report.linkBytes[link], 0u) << "directed link " << link;
        }
        else
        {
            EXPECT_EQ(report.linkBytes[link], 0u) << "directed link " << link << " is on no path";
        }
    }
}

TEST(PacketLevel, FloatGradientsAgreeWithinTheStatedTolerance)
{
    PacketRunConfig config = SmallPacketRun("async");
    config.values = "float";
    const PacketRunReport report =
        RunPacketAllReduce(MakeTestPlan("bcube:n=3,k=1", "greedy"), config);
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
    EXPECT_FALSE(report.verification.exact);
    EXPECT_LT(report.verification.maxError, 1e-5);
}

TEST(PacketLevel, AFileWithOtherNodeNumberingReplaysWithTheSameRounds)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "balanced");
    std::stringstream written;
    WriteScheduleJson(written, plan.workloads, plan.schedule);
    // Renumber as another tool might: switches first, every id shifted by 100 and reversed.
    nlohmann::json doc = nlohmann::json::parse(written);
    const uint32_t nodes = plan.workloads.GetTopology().GetNNodes();
    const auto other = [nodes](uint32_t id) { return 100 + nodes - 1 - id; };
    for (auto& node : doc["topology"]["nodes"])
    {
        node["id"] = other(node["id"].get<uint32_t>());
    }
    for (auto& link : doc["topology"]["links"])
    {
        link = {other(link[0].get<uint32_t>()), other(link[1].get<uint32_t>())};
    }
    for (auto& w : doc["workloads"])
    {
        for (const char* key : {"chunk", "src", "dst"})
        {
            w[key] = other(w[key].get<uint32_t>());
        }
        for (const char* key : {"path", "carries"})
        {
            for (auto& id : w[key])
            {
                id = other(id.get<uint32_t>());
            }
        }
    }
    std::stringstream renumbered(doc.dump());
    const ScheduleFile file = ReadScheduleJson(renumbered, "renumbered");
    // Servers come first again, ordered by their file ids (reversed here).
    EXPECT_EQ(file.nodeIds.front(), other(8));
    EXPECT_EQ(file.nodeIds.back(), other(9));
    ASSERT_TRUE(ValidateSchedule(file.workloads, file.schedule).valid);

    const Plan replay{file.workloads, file.schedule};
    const PacketRunReport report = RunPacketAllReduce(replay, SmallPacketRun("barrier"));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
    EXPECT_EQ(report.result.roundEnd.size(), plan.schedule.GetNRounds());
    for (double end : report.result.roundEnd)
    {
        EXPECT_GT(end, 0.0);
    }
    // Each replayed workload took the path written in the file.
    for (uint32_t w = 0; w < file.workloads.GetN(); ++w)
    {
        const auto& path = file.workloads.Get(w).path;
        const auto& written_path = doc["workloads"][w]["path"];
        ASSERT_EQ(path.size(), written_path.size());
        for (size_t i = 0; i < path.size(); ++i)
        {
            EXPECT_EQ(file.nodeIds[path[i]], written_path[i].get<uint32_t>());
        }
    }
}

TEST(PacketLevel, APlanMovedIntoARunComesBackAsTheReportsRun)
{
    // allreduce-packet moves its plan into the run (held once) and reports from the run's.
    for (const std::string decisions : {"replay", "online"})
    {
        const Plan plan = MakeTestPlan("bcube:n=3,k=1", "balanced");
        PacketRunConfig config = SmallPacketRun("barrier");
        config.decisions = decisions;
        Plan moved = plan;
        const PacketRunReport report =
            RunPacketAllReduce(std::move(moved),
                               config,
                               decisions == "online" ? CreateScheduler("balanced") : nullptr);
        ASSERT_TRUE(report.result.finished) << decisions << ": " << report.result.error;
        EXPECT_TRUE(report.verification.verified) << report.verification.message;
        EXPECT_EQ(report.plannedRounds, plan.schedule.GetNRounds()) << decisions;
        ASSERT_EQ(report.run.workloads.GetN(), plan.workloads.GetN());
        for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
        {
            EXPECT_EQ(report.run.workloads.Get(w).path, plan.workloads.Get(w).path);
            EXPECT_EQ(report.run.workloads.Get(w).carries, plan.workloads.Get(w).carries);
        }
        if (decisions == "replay")
        {
            EXPECT_EQ(report.run.schedule.rounds, plan.schedule.rounds);
        }
        std::ostringstream fromPlan;
        std::ostringstream fromRun;
        WritePacketReportJson(fromPlan, plan, config, report, "");
        WritePacketReportJson(fromRun, report.run, config, report, "");
        EXPECT_EQ(fromRun.str(), fromPlan.str()) << decisions;
        const nlohmann::json doc = nlohmann::json::parse(fromRun.str());
        EXPECT_EQ(doc.at("rounds"), plan.schedule.GetNRounds());
        // The per-transfer times are written straight to the stream: the same numbers, in
        // the text the whole document would print.
        EXPECT_EQ(doc.at("transfer_start_s").get<std::vector<double>>(),
                  report.result.transferStart);
        EXPECT_EQ(doc.at("transfer_end_s").get<std::vector<double>>(), report.result.transferEnd);
        EXPECT_EQ(fromRun.str(), doc.dump(2) + "\n") << decisions;
    }
}

TEST(PacketFaults, OnePercentLossIsRecoveredByTcpAndTheSumIsExact)
{
    for (const std::string mode : {"barrier", "async"})
    {
        PacketRunConfig config = SmallPacketRun(mode);
        config.gradientBytes = 256 * 1024;
        config.loss = 0.01;
        config.flowMonitor = true;
        const PacketRunReport report =
            RunPacketAllReduce(MakeTestPlan("bcube:n=3,k=1", "greedy"), config);
        ASSERT_TRUE(report.result.finished) << mode << ": " << report.result.error;
        EXPECT_TRUE(report.verification.verified) << report.verification.message;
        uint64_t lost = 0;
        for (const auto& f : report.flows)
        {
            lost += f.lostPackets;
            EXPECT_EQ(f.lostPackets, f.txPackets - f.rxPackets);
        }
        EXPECT_GT(lost, 0u) << "1% loss dropped nothing: the error model is not in place";
    }
}

TEST(PacketFaults, HeavyLossIsWaitedForWhileTcpStillRetransmits)
{
    // At 5% loss TCP's backed-off retransmissions leave gaps longer than a short stall timeout;
    // a retransmission still to come is not a stall, so the run verifies.
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 1 << 20;
    config.loss = 0.05;
    config.stallTimeout = MilliSeconds(50);
    const PacketRunReport report =
        RunPacketAllReduce(MakeTestPlan("bcube:n=3,k=1", "greedy"), config);
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_FALSE(report.result.stalled);
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
}

TEST(PacketFaults, ALinkDownMidRunIsReportedAsAStallNamingTheWorkloadAndTheLink)
{
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 1 << 20;
    config.linkDowns = {{9, 100e-6}}; // bcube(3,1): server 4 - switch 13
    config.stallTimeout = MilliSeconds(50);
    const PacketRunReport report =
        RunPacketAllReduce(MakeTestPlan("bcube:n=3,k=1", "greedy"), config);
    const auto& r = report.result;
    EXPECT_FALSE(r.finished);
    EXPECT_TRUE(r.stalled);
    EXPECT_NE(r.error.find("stall: no data arrived for 0.05 s"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("stuck: workload "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("link 9 (4-13) on its path is down"), std::string::npos) << r.error;
    EXPECT_LT(r.transfersFinished, 144u);
    EXPECT_FALSE(report.verification.verified);
    EXPECT_NE(report.verification.message.find("verified: false: server "), std::string::npos);
}

TEST(PacketFaults, AnInvalidScheduleIsRefusedBeforeTheSimulationStarts)
{
    Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    std::swap(plan.schedule.rounds.front(), plan.schedule.rounds.back());
    try
    {
        RunPacketAllReduce(plan, SmallPacketRun("barrier"));
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("the schedule is not valid for its workloads, so "
                                             "it is not run: "),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(Simulator::Now(), Seconds(0));
}

TEST(PacketFaults, APlanForAnotherTopologyIsRefused)
{
    DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
    dcn.Install();
    AllReduceHelper allreduce(dcn);
    try
    {
        allreduce.Install(MakeTestPlan("dcell:n=2,k=1", "greedy"));
        FAIL() << "no exception";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(),
                     "the workloads are for another topology than the network: "
                     "'dcell(n=2,k=1)' has 6 servers, 3 switches and 9 links; "
                     "'bcube(n=3,k=1)' has 9 servers, 6 switches and 18 links");
    }
    Simulator::Destroy();
}

TEST(PacketFaults, AGradientOfPartFloatsOrTooFewValuesIsRefused)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy", 2);
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 8194;
    EXPECT_THROW(
        {
            try
            {
                RunPacketAllReduce(plan, config);
            }
            catch (const std::invalid_argument& e)
            {
                EXPECT_STREQ(e.what(), "--gradient-bytes must be a multiple of 4 (the gradient is "
                                       "of 4-byte values), got 8194");
                throw;
            }
        },
        std::invalid_argument);
    config.gradientBytes = 64; // 16 values for 9 x 2 pieces
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument);
    // Below one value: the controller refuses it (ns-3's attribute checker used to abort).
    config.gradientBytes = 2;
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument);
    config.gradientBytes = 0;
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument);
}

namespace
{
uint32_t g_started = 0;
uint32_t g_finished = 0;
std::vector<uint32_t> g_rounds;
uint32_t g_collective = 0;

void
CountStarted(uint32_t)
{
    ++g_started;
}

void
CountFinished(uint32_t)
{
    ++g_finished;
}

void
RecordRound(uint32_t round, Time duration)
{
    EXPECT_GT(duration, Seconds(0));
    g_rounds.push_back(round);
}

void
CountCollective(Time)
{
    ++g_collective;
}
} // namespace

TEST(AllReduceHelper, InstallsAppsWhoseTracesReportEveryTransferRoundAndTheEnd)
{
    DcnTopologyHelper dcn(BuildTopology("dcell:n=2,k=1"));
    dcn.Install();
    const Plan plan = MakeTestPlan("dcell:n=2,k=1", "greedy");
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    ApplicationContainer apps = allreduce.Install(plan);
    ASSERT_EQ(apps.GetN(), 6u);
    g_started = g_finished = g_collective = 0;
    g_rounds.clear();
    for (uint32_t s = 0; s < apps.GetN(); ++s)
    {
        EXPECT_EQ(apps.Get(s)->GetNode(), dcn.GetServer(s));
        apps.Get(s)->TraceConnectWithoutContext("TransferStarted", MakeCallback(&CountStarted));
        apps.Get(s)->TraceConnectWithoutContext("TransferFinished",
                                                MakeCallback(&CountFinished));
        apps.Get(s)->TraceConnectWithoutContext("CollectiveFinished",
                                                MakeCallback(&CountCollective));
    }
    allreduce.GetController()->TraceConnectWithoutContext("RoundFinished",
                                                          MakeCallback(&RecordRound));
    Simulator::Run();
    EXPECT_EQ(g_started, plan.workloads.GetN());
    EXPECT_EQ(g_finished, plan.workloads.GetN());
    EXPECT_EQ(g_collective, 6u);
    std::vector<uint32_t> expected(plan.schedule.GetNRounds());
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(g_rounds, expected); // barrier: in order, each once
    EXPECT_TRUE(allreduce.GetController()->Verify().verified);
    Simulator::Destroy();
}

TEST(AllReduceHelper, ConnectionsThatWouldNotFitInMemoryAreRefusedBeforeAnyOpens)
{
    DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
    dcn.Install();
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "balanced"); // 36 pairs of servers
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    SetMemoryLimit(1 << 20); // the gradients fit, 16 connections (64 KiB each) would
    try
    {
        allreduce.Install(plan);
        ADD_FAILURE() << "installed";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string message = e.what();
        EXPECT_NE(message.find("the 36 connections of " + std::to_string(plan.workloads.GetN()) +
                               " workloads on 'bcube(n=3,k=1)'"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("would need 2 MiB, more than the limit of 1 MiB"),
                  std::string::npos)
            << message;
    }
    SetMemoryLimit(MAX_MEMORY_BYTES);
    EXPECT_EQ(allreduce.GetController(), nullptr);
    Simulator::Destroy();
}

TEST(AllReduceHelper, ProgressIsSilentInAShortRunAndPlanningAndTransfersAreWatched)
{
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    dcn.Install();
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    std::ostringstream progress;
    allreduce.EnableProgress(progress, "test"); // before Install: planning watched too
    allreduce.Install(CreateScheduler("balanced"));
    Simulator::Run();
    EXPECT_TRUE(allreduce.GetController()->Verify().verified);
    EXPECT_EQ(progress.str(), ""); // a line per 10 s at most: none in a short run
    Simulator::Destroy();
}

TEST(AllReduceHelper, WarmUpsRunFirstOnTheSameConnectionsAndTracesTellThemApart)
{
    DcnTopologyHelper dcn(BuildTopology("dcell:n=2,k=1"));
    dcn.Install();
    const Plan plan = MakeTestPlan("dcell:n=2,k=1", "greedy");
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    allreduce.SetControllerAttribute("WarmUps", UintegerValue(2));
    ApplicationContainer apps = allreduce.Install(plan);
    g_started = g_finished = g_collective = 0;
    g_rounds.clear();
    for (uint32_t s = 0; s < apps.GetN(); ++s)
    {
        apps.Get(s)->TraceConnectWithoutContext("TransferStarted", MakeCallback(&CountStarted));
        apps.Get(s)->TraceConnectWithoutContext("CollectiveFinished",
                                                MakeCallback(&CountCollective));
    }
    std::vector<uint32_t> started;
    Ptr<AllReduceController> controller = allreduce.GetController();
    controller->TraceConnectWithoutContext(
        "Started",
        Callback<void, uint32_t>([&started](uint32_t index) { started.push_back(index); }));
    controller->TraceConnectWithoutContext("RoundFinished", MakeCallback(&RecordRound));
    Simulator::Run();
    EXPECT_EQ(started, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(g_started, 3 * plan.workloads.GetN()); // the transfer traces fire in each
    EXPECT_EQ(g_rounds.size(), 3 * plan.schedule.GetNRounds());
    EXPECT_EQ(g_collective, 6u); // the end, once
    const AllReduceRunResult& r = controller->GetResult();
    ASSERT_TRUE(r.finished) << r.error;
    EXPECT_EQ(r.warmUpTimes.size(), 2u);
    EXPECT_EQ(r.transfersFinished, plan.workloads.GetN()); // the measured one's
    EXPECT_TRUE(controller->Verify().verified);
    Simulator::Destroy();

    // Per transfer, nothing carries over: the controller refuses it.
    DcnTopologyHelper other(BuildTopology("dcell:n=2,k=1"));
    other.Install();
    AllReduceHelper perTransfer(other);
    perTransfer.SetControllerAttribute("GradientBytes", UintegerValue(4096));
    perTransfer.SetControllerAttribute("WarmUps", UintegerValue(1));
    perTransfer.SetControllerAttribute("Connections", StringValue("per-transfer"));
    EXPECT_THROW(perTransfer.Install(plan), std::invalid_argument);
    Simulator::Destroy();
}

namespace
{

/// A run that decides online with a fresh scheduler of that name.
PacketRunReport
RunOnline(const Plan& plan, const std::string& scheduler, PacketRunConfig config)
{
    config.decisions = "online";
    return RunPacketAllReduce(plan, config, CreateScheduler(scheduler));
}

} // namespace

TEST(PacketOnline, UnperturbedBarrierDecisionsAreTheReplayedPlan)
{
    // A list scheduler decides at each round's end what it decided offline: same rounds, same
    // completion time to the nanosecond.
    for (const char* scheduler : {"greedy", "balanced", "ring"})
    {
        const Plan plan = MakeTestPlan("bcube:n=3,k=1", scheduler);
        const PacketRunReport replay = RunPacketAllReduce(plan, SmallPacketRun("barrier"));
        const PacketRunReport online = RunOnline(plan, scheduler, SmallPacketRun("barrier"));
        ASSERT_TRUE(online.result.finished) << online.result.error;
        EXPECT_TRUE(online.verification.verified) << online.verification.message;
        EXPECT_EQ(online.run.schedule.rounds, plan.schedule.rounds) << scheduler;
        EXPECT_EQ(online.result.decisions, plan.schedule.GetNRounds()) << scheduler;
        EXPECT_EQ(online.result.completionTime, replay.result.completionTime) << scheduler;
        EXPECT_EQ(replay.run.schedule.rounds, plan.schedule.rounds);
    }
}

TEST(PacketOnline, AsyncDecisionsEndWithTheExactSum)
{
    const Plan plan = MakeTestPlan("dcell:n=3,k=1", "balanced");
    const PacketRunReport online = RunOnline(plan, "balanced", SmallPacketRun("async"));
    ASSERT_TRUE(online.result.finished) << online.result.error;
    EXPECT_TRUE(online.verification.verified) << online.verification.message;
    EXPECT_GE(online.result.decisions, online.run.schedule.GetNRounds());
    EXPECT_TRUE(ValidateSchedule(online.run.workloads, online.run.schedule).valid);
}

TEST(PacketOnline, EveryLinkOfBCubeFailingMidRunIsRoutedAround)
{
    // BCube(3,1) stays connected without any one link: online always completes exactly; the
    // replayed plan stalls when the failed link lies on a path still to be used.
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 65536;
    config.stallTimeout = MilliSeconds(50);
    const double unperturbed = RunPacketAllReduce(plan, config).result.completionTime;
    uint32_t replayStalls = 0;
    uint32_t swept = 0;
    for (uint32_t link = 0; link < plan.workloads.GetTopology().GetNLinks();
         link += FAILURE_SWEEP_STRIDE, ++swept)
    {
        config.linkDowns = {{link, 0.3 * unperturbed}};
        const PacketRunReport online = RunOnline(plan, "greedy", config);
        ASSERT_TRUE(online.result.finished) << "link " << link << ": " << online.result.error;
        EXPECT_TRUE(online.verification.verified) << online.verification.message;
        EXPECT_GT(online.result.rerouted, 0u) << "link " << link;
        for (uint32_t w = 0; w < online.run.workloads.GetN(); ++w)
        {
            // A workload that started after the failure avoided the link.
            const auto& links = online.run.workloads.Get(w).links;
            if (online.result.transferStart[w] > 0.3 * unperturbed)
            {
                EXPECT_EQ(std::count(links.begin(), links.end(), 2 * link) +
                              std::count(links.begin(), links.end(), 2 * link + 1),
                          0)
                    << "workload " << w << " uses link " << link;
            }
        }
        replayStalls += RunPacketAllReduce(plan, config).result.stalled;
    }
    EXPECT_EQ(replayStalls, swept);
}

TEST(PacketOnline, StragglersHoldOnlyWhatCarriesTheirContribution)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 65536;
    config.stragglers = "2:200us";
    const PacketRunReport replay = RunPacketAllReduce(plan, config);
    const PacketRunReport online = RunOnline(plan, "greedy", config);
    ASSERT_TRUE(replay.result.finished) << replay.result.error;
    ASSERT_TRUE(online.result.finished) << online.result.error;
    EXPECT_TRUE(online.verification.verified) << online.verification.message;
    EXPECT_LE(online.result.completionTime, replay.result.completionTime);
    // No workload that carries a late server's contribution started before its gradient.
    config.stragglers = "list:0,0,0,0,300us,0,0,0,0";
    for (const PacketRunReport& r : {RunPacketAllReduce(plan, config),
                                     RunOnline(plan, "greedy", config)})
    {
        ASSERT_TRUE(r.result.finished) << r.result.error;
        for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
        {
            const auto carries = plan.workloads.GetCarries(w);
            if (std::binary_search(carries.begin(), carries.end(), 4u))
            {
                EXPECT_GE(r.result.transferStart[w], 300e-6) << "workload " << w;
            }
        }
    }
    // The same seed picks the same servers; the spec is checked.
    config.stragglers = "3:exp:100us";
    EXPECT_EQ(RunOnline(plan, "greedy", config).result.completionTime,
              RunOnline(plan, "greedy", config).result.completionTime);
    for (const char* bad : {"3", "x:1us", "0:1us", "2:-1us", "all:1us", "list:1us,x", "10:1us"})
    {
        config.stragglers = bad;
        EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument) << bad;
    }
}

TEST(PacketOnline, DecisionTraceFiresPerDecision)
{
    const Topology topo = BuildTopology("bcube:n=2,k=1");
    DcnTopologyHelper dcn(topo);
    dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn.SetChannelAttribute("Delay", StringValue("1us"));
    dcn.Install();
    AllReduceHelper allreduce(dcn);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(8192));
    allreduce.Install(CreateScheduler("greedy"));
    uint32_t decisions = 0;
    uint32_t started = 0;
    std::pair<uint32_t*, uint32_t*> counts(&decisions, &started);
    allreduce.GetController()->TraceConnectWithoutContext(
        "Decision",
        MakeCallback(+[](std::pair<uint32_t*, uint32_t*>* counts,
                         uint32_t ready,
                         uint32_t /* inFlight */,
                         const std::vector<uint32_t>& picked) {
                         ++*counts->first;
                         *counts->second += picked.size();
                         EXPECT_GE(ready, picked.size());
                     })
            .Bind(&counts));
    // A link the user takes down from their own script is routed around.
    Simulator::Schedule(MicroSeconds(10), &DcnTopologyHelper::SetLinkUp, &dcn, 0, false);
    Simulator::Run();
    const AllReduceRunResult& r = allreduce.GetController()->GetResult();
    EXPECT_TRUE(r.finished) << r.error;
    EXPECT_TRUE(allreduce.GetController()->Verify().verified);
    EXPECT_EQ(decisions, r.decisions);
    EXPECT_EQ(started, allreduce.GetController()->GetWorkloads().GetN());
    Simulator::Destroy();
}

TEST(PacketOnline, OptionsAreChecked)
{
    EXPECT_EQ(ChooseDecisions("", "greedy"), "online");
    EXPECT_EQ(ChooseDecisions("replay", "greedy"), "replay");
    EXPECT_EQ(ChooseDecisions("", "optimal"), "replay");
    EXPECT_EQ(ChooseDecisions("", ""), "replay");
    EXPECT_THROW(ChooseDecisions("online", "optimal"), std::invalid_argument);
    EXPECT_THROW(ChooseDecisions("online", ""), std::invalid_argument);
    EXPECT_THROW(ParseLinkDowns({"-1"}, {}), std::invalid_argument);
    EXPECT_THROW(ParseLinkDowns({"0"}, {"2e6s"}), std::invalid_argument);
    // Straggler delays exact to the nanosecond (they were printed with 6 decimals: 400 ns ran as
    // 0 and 1400 ns as 1 us), above 0, and within what a packet-level run reaches.
    EXPECT_EQ(ParseStragglerSpec("2:400ns").delay, "ns3::ConstantRandomVariable[Constant=0.0000004]");
    EXPECT_EQ(ParseStragglerSpec("2:1400ns").delay,
              "ns3::ConstantRandomVariable[Constant=0.0000014]");
    EXPECT_EQ(ParseStragglerSpec("1:exp:2s").delay, "ns3::ExponentialRandomVariable[Mean=2]");
    for (const char* bad : {"2:0ns", "2:1e9s", "2:0.5ns", "list:0,1e7", "all:exp:0s", "2:-1us"})
    {
        EXPECT_THROW(ParseStragglerSpec(bad), std::invalid_argument) << bad;
    }
    const auto downs = ParseLinkDowns({"3", "7"}, {"1us", "2ms"});
    ASSERT_EQ(downs.size(), 2u);
    EXPECT_EQ(downs[1].link, 7u);
    EXPECT_DOUBLE_EQ(downs[1].at, 2e-3);
    EXPECT_THROW(ParseLinkDowns({"3"}, {"1us", "2us"}), std::invalid_argument);
    EXPECT_THROW(ParseLinkDowns({"x"}, {}), std::invalid_argument);
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    PacketRunConfig config = SmallPacketRun("barrier");
    config.decisions = "online";
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument); // no scheduler
    config.decisions = "sometimes";
    EXPECT_THROW(RunPacketAllReduce(plan, config, CreateScheduler("greedy")),
                 std::invalid_argument);
}

namespace
{

/// Greedy, remembering the most foreign traffic and the slowest link it was shown.
class WatchingScheduler : public GreedyScheduler
{
  public:
    void SelectRound(SchedulerState& state) override
    {
        for (uint32_t l = 0; l < state.GetWorkloads().GetNDirectedLinks(); ++l)
        {
            maxLoad = std::max(maxLoad, state.GetLinkLoad(l));
            minRate = std::min(minRate, state.GetLinkRate(l));
        }
        GreedyScheduler::SelectRound(state);
    }

    double maxLoad{0}; //!< the most foreign traffic seen on a link
    double minRate{1}; //!< the slowest link seen
};

} // namespace

TEST(PacketConditions, BackgroundTrafficSharesTheLinksAndTheSchedulerSeesIt)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 65536;
    const PacketRunReport quiet = RunPacketAllReduce(plan, config);
    config.backgroundLoad = 0.3;
    config.decisions = "online";
    Ptr<WatchingScheduler> watcher = CreateObject<WatchingScheduler>();
    const PacketRunReport busy = RunPacketAllReduce(plan, config, watcher);
    ASSERT_TRUE(busy.result.finished) << busy.result.error;
    EXPECT_TRUE(busy.verification.verified) << busy.verification.message;
    EXPECT_EQ(quiet.foreignBytes, 0u);
    EXPECT_GT(busy.foreignBytes, 0u);
    EXPECT_GT(busy.result.completionTime, quiet.result.completionTime);
    EXPECT_GT(watcher->maxLoad, 0.1) << "device counters reach the state";
    EXPECT_LE(watcher->maxLoad, 1.0);
    // The AllReduce's own bytes are told apart: about the same as without the background.
    const auto sum = [](const std::vector<uint64_t>& v) {
        return std::accumulate(v.begin(), v.end(), uint64_t{0});
    };
    EXPECT_NEAR(double(sum(busy.linkBytes)), double(sum(quiet.linkBytes)),
                0.2 * double(sum(quiet.linkBytes)));
    // The same seed gives the same run; bulk senders work too.
    config.decisions = "replay";
    EXPECT_EQ(RunPacketAllReduce(plan, config).result.completionTime,
              RunPacketAllReduce(plan, config).result.completionTime);
    config.backgroundApplication = "bulk";
    const PacketRunReport bulk = RunPacketAllReduce(plan, config);
    ASSERT_TRUE(bulk.result.finished) << bulk.result.error;
    EXPECT_TRUE(bulk.verification.verified);
    EXPECT_GT(bulk.foreignBytes, 0u);
    for (double bad : {-0.1, 1.5})
    {
        config.backgroundLoad = bad;
        EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument) << bad;
    }
    config.backgroundLoad = 0.3;
    config.backgroundApplication = "ping";
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument);
}

TEST(PacketConditions, SlowedLinksRunAtTheirOwnRateAndTheSchedulerSeesIt)
{
    const Topology topo = BuildTopology("bcube:n=3,k=1,slow=0.25,slowrate=0.5");
    {
        DcnTopologyHelper dcn(topo);
        dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        dcn.Install();
        for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
        {
            DataRateValue rate;
            dcn.GetLinkDevices(l).Get(1)->GetAttribute("DataRate", rate);
            EXPECT_EQ(rate.Get().GetBitRate(),
                      topo.GetLinkProperties(l).IsDefault() ? 10000000000u : 5000000000u);
        }
        Simulator::Destroy();
    }
    const Plan even = MakeTestPlan("bcube:n=3,k=1", "greedy");
    const Plan uneven = CreateScheduler("greedy")->MakePlan(topo, 1);
    EXPECT_EQ(uneven.schedule.rounds, even.schedule.rounds) << "the flow level keeps rounds";
    PacketRunConfig config = SmallPacketRun("async");
    config.gradientBytes = 65536;
    config.decisions = "online";
    Ptr<WatchingScheduler> watcher = CreateObject<WatchingScheduler>();
    const PacketRunReport slow = RunPacketAllReduce(uneven, config, watcher);
    const PacketRunReport fast = RunOnline(even, "greedy", config);
    ASSERT_TRUE(slow.result.finished) << slow.result.error;
    EXPECT_TRUE(slow.verification.verified) << slow.verification.message;
    EXPECT_GT(slow.result.completionTime, fast.result.completionTime);
    EXPECT_DOUBLE_EQ(watcher->minRate, 0.5);
    // Utilization counts a slowed link against its own rate.
    ASSERT_EQ(slow.linkRateBps.size(), 2 * size_t{topo.GetNLinks()});
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const double rate = topo.GetLinkProperties(l).IsDefault() ? 10e9 : 5e9;
        EXPECT_EQ(slow.linkRateBps[2 * l], rate);
        const double capacity = rate * slow.result.completionTime;
        EXPECT_DOUBLE_EQ(slow.GetLinkUtilization()[2 * l], slow.linkBytes[2 * l] * 8.0 / capacity);
    }
}

TEST(PacketConditions, ATopologyFilesRateAndDelayReachTheDevices)
{
    std::istringstream text("servers 2\nswitches 1\nlink 0 2 rate=2Gbps delay=7us\n"
                            "link 1 2 factor=0.25\n");
    const Topology topo = ReadTopology(text, "two.topo");
    DcnTopologyHelper dcn(topo);
    dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn.SetChannelAttribute("Delay", StringValue("1us"));
    dcn.Install();
    DataRateValue rate;
    TimeValue delay;
    dcn.GetLinkDevices(0).Get(0)->GetAttribute("DataRate", rate);
    dcn.GetLinkDevices(0).Get(0)->GetChannel()->GetAttribute("Delay", delay);
    EXPECT_EQ(rate.Get().GetBitRate(), 2000000000u);
    EXPECT_EQ(delay.Get(), MicroSeconds(7));
    dcn.GetLinkDevices(1).Get(0)->GetAttribute("DataRate", rate);
    dcn.GetLinkDevices(1).Get(0)->GetChannel()->GetAttribute("Delay", delay);
    EXPECT_EQ(rate.Get().GetBitRate(), 2500000000u) << "a quarter of the network's rate";
    EXPECT_EQ(delay.Get(), MicroSeconds(1)) << "the network's delay";
    Simulator::Destroy();
}

TEST(LinkLoadMonitor, TellsTheAllReducesPacketsFromOtherTrafficByPort)
{
    const auto packet = [](uint16_t from, uint16_t to, uint8_t protocol) {
        Ptr<Packet> p = Create<Packet>(100);
        TcpHeader tcp;
        tcp.SetSourcePort(from);
        tcp.SetDestinationPort(to);
        p->AddHeader(tcp);
        Ipv4Header ip;
        ip.SetProtocol(protocol);
        ip.SetPayloadSize(p->GetSize());
        p->AddHeader(ip);
        PppHeader ppp;
        ppp.SetProtocol(0x0021);
        p->AddHeader(ppp);
        return p;
    };
    EXPECT_TRUE(LinkLoadMonitor::IsOwn(packet(10000, 5000, 6), 5000)) << "data";
    EXPECT_TRUE(LinkLoadMonitor::IsOwn(packet(5000, 10000, 6), 5000)) << "its acknowledgement";
    EXPECT_FALSE(LinkLoadMonitor::IsOwn(packet(49153, 9, 6), 5000)) << "background";
    EXPECT_FALSE(LinkLoadMonitor::IsOwn(packet(10000, 5000, 1), 5000)) << "not TCP or UDP";
    EXPECT_FALSE(LinkLoadMonitor::IsOwn(Create<Packet>(10), 5000)) << "too short";
}

TEST(DynamicTable, TheFailingLinkIsNeverABridgeAndTheSeedDecides)
{
    for (const char* spec : {"fattree:k=4", "jellyfish:switches=10,degree=4,servers=1,seed=1",
                             "dcell:n=4,k=1"})
    {
        const Topology topo = BuildTopology(spec);
        std::set<uint32_t> drawn;
        for (uint32_t seed = 1; seed <= 8; ++seed)
        {
            const uint32_t link = DynamicTable::DrawFailingLink(topo, seed);
            ASSERT_NE(link, NO_INDEX) << spec;
            EXPECT_EQ(link, DynamicTable::DrawFailingLink(topo, seed));
            // A server's only link is never drawn: the graph stays connected without it.
            const TopologyLink& l = topo.GetLink(link);
            for (uint32_t end : {l.a, l.b})
            {
                EXPECT_FALSE(topo.IsServer(end) && topo.GetNPorts(end) == 1) << spec;
            }
            drawn.insert(link);
        }
        EXPECT_GT(drawn.size(), 1u) << spec << ": seeds draw different links";
    }
    Topology star("star", 3, 1);
    for (uint32_t s = 0; s < 3; ++s)
    {
        star.AddLink(s, 3);
    }
    EXPECT_EQ(DynamicTable::DrawFailingLink(star, 1), NO_INDEX) << "every link is a bridge";
}

TEST(DynamicTable, RunsEveryScenarioBothWaysAndVerifiesEachRun)
{
    DynamicTableConfig config;
    config.topologies = {"bcube:n=2,k=1"};
    config.schedulers = {"greedy"};
    config.scenarios = DynamicTable::SCENARIOS;
    config.run.gradientBytes = 16384;
    DynamicTable table(config);
    EXPECT_EQ(table.GetNSteps(), 10u);
    table.Run(nullptr);
    EXPECT_EQ(table.GetFailure(), "");
    ASSERT_EQ(table.GetRows().size(), 5u);
    for (const DynamicTableRow& row : table.GetRows())
    {
        EXPECT_TRUE(row.onlineFinished) << row.scenario << ": " << row.onlineError;
        if (row.scenario == "stragglers")
        {
            // A late gradient's workloads may join the round in flight: a decision, no round.
            EXPECT_GE(row.decisions, row.onlineRounds);
        }
        else
        {
            EXPECT_EQ(row.decisions, row.onlineRounds) << "barrier: a decision per round";
        }
    }
    const DynamicTableRow& none = table.GetRows()[0];
    EXPECT_EQ(none.GetRatio(), 1.0) << "greedy decides online what it planned";
    EXPECT_NE(table.GetRows()[1].conditions.find("down at"), std::string::npos);
    std::ostringstream csv;
    table.WriteCsv(csv);
    EXPECT_EQ(csv.str().rfind("topology,scheduler,scenario,conditions,", 0), 0u) << csv.str();
    config.scenarios = {"flood"};
    EXPECT_THROW(DynamicTable{config}, std::invalid_argument);
    config.scenarios = {"none"};
    config.schedulers = {"optimal"};
    EXPECT_THROW(DynamicTable{config}, std::invalid_argument);
}

TEST(PacketOnline, EveryLinkOfDCellAndJellyfishFailingMidRunIsRoutedAroundWhereAPathIsLeft)
{
    // Online completes exactly wherever the graph stays connected without the link, and says
    // there is no path where it does not; the replayed plan stalls exactly when a transfer
    // still unfinished at the failure (in the unperturbed run) crosses the link.
    for (const char* spec : {"dcell:n=4,k=1", "jellyfish:switches=10,degree=4,servers=1,seed=1"})
    {
        const Plan plan = MakeTestPlan(spec, "greedy");
        const Topology& topo = plan.workloads.GetTopology();
        PacketRunConfig config = SmallPacketRun("barrier");
        config.gradientBytes = 16384;
        config.stallTimeout = MilliSeconds(20);
        const PacketRunReport unperturbed = RunPacketAllReduce(plan, config);
        const double at = 0.3 * unperturbed.result.completionTime;
        for (uint32_t link = 0; link < topo.GetNLinks(); link += FAILURE_SWEEP_STRIDE)
        {
            config.linkDowns = {{link, at}};
            Topology without(topo.GetName(), topo.GetNServers(), topo.GetNSwitches());
            for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
            {
                if (l != link)
                {
                    without.AddLink(topo.GetLink(l).a, topo.GetLink(l).b);
                }
            }
            const PacketRunReport online = RunOnline(plan, "greedy", config);
            if (without.IsConnected())
            {
                ASSERT_TRUE(online.result.finished) << spec << " link " << link << ": "
                                                    << online.result.error;
                EXPECT_TRUE(online.verification.verified) << online.verification.message;
            }
            else
            {
                EXPECT_TRUE(online.result.stalled) << spec << " link " << link;
                EXPECT_NE(online.result.error.find("no path from server"), std::string::npos)
                    << online.result.error;
            }
            bool later = false;
            for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
            {
                const auto& links = plan.workloads.Get(w).links;
                later |= unperturbed.result.transferEnd[w] > at &&
                         (std::count(links.begin(), links.end(), 2 * link) +
                          std::count(links.begin(), links.end(), 2 * link + 1)) > 0;
            }
            const PacketRunReport replay = RunPacketAllReduce(plan, config);
            EXPECT_EQ(replay.result.stalled, later) << spec << " link " << link;
            EXPECT_EQ(replay.result.finished, !later) << spec << " link " << link;
        }
    }
}

TEST(PacketLevel, ZeroDelayLinksAreAcceptedAndNegativeOnesRefused)
{
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    PacketRunConfig config = SmallPacketRun("barrier");
    config.delay = Seconds(0);
    const PacketRunReport r = RunPacketAllReduce(plan, config);
    ASSERT_TRUE(r.result.finished) << r.result.error;
    EXPECT_TRUE(r.verification.verified);
    config.delay = MicroSeconds(-1);
    EXPECT_THROW(RunPacketAllReduce(plan, config), std::invalid_argument);
}

TEST(PacketTransport, PersistentConnectionsCarrySeveralTransfersEachAndTheSumStaysExact)
{
    // Pieces of 2 KiB with k=2: several transfers, and headers, share each stream, and a
    // segment often holds the end of one transfer and the start of the next.
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "balanced", 2);
    for (const std::string mode : {"barrier", "async"})
    {
        std::map<std::string, size_t> flowsOf;
        for (const std::string connections : {"persistent", "per-transfer"})
        {
            PacketRunConfig config = SmallPacketRun(mode);
            config.gradientBytes = 9 * 2 * 2048 + 36; // pieces one value apart in size
            config.connections = connections;
            config.flowMonitor = true;
            const PacketRunReport report = RunPacketAllReduce(plan, config);
            ASSERT_TRUE(report.result.finished) << connections << ": " << report.result.error;
            EXPECT_TRUE(report.verification.verified)
                << connections << ": " << report.verification.message;
            // Every workload on exactly one connection, which runs between its two nodes.
            std::vector<uint32_t> seen(plan.workloads.GetN(), 0);
            for (const FlowReport& f : report.flows)
            {
                for (uint32_t w : f.workloads)
                {
                    ++seen[w];
                    EXPECT_EQ(plan.workloads.Get(w).src, f.src);
                    EXPECT_EQ(plan.workloads.Get(w).dst, f.dst);
                }
                EXPECT_EQ(f.lostPackets, 0u) << "closing packets counted as lost";
            }
            EXPECT_EQ(seen, std::vector<uint32_t>(plan.workloads.GetN(), 1)) << connections;
            flowsOf[connections] = report.flows.size();
        }
        EXPECT_EQ(flowsOf["per-transfer"], plan.workloads.GetN());
        EXPECT_LT(flowsOf["persistent"], plan.workloads.GetN() / 2)
            << "persistent connections were not reused";
    }
}

TEST(PacketTransport, AWarmUpLeavesTheMeasuredAllReduceWarmConnectionsAndTheExactSum)
{
    // 9 servers, pieces of 116 KB over connections that a warm-up opened, or not.
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "balanced");
    const auto total = [](const std::vector<uint64_t>& bytes) {
        return std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
    };
    for (const std::string mode : {"barrier", "async"})
    {
        PacketRunConfig config = SmallPacketRun(mode);
        config.gradientBytes = 1 << 20;
        config.flowMonitor = true;
        const PacketRunReport cold = RunPacketAllReduce(plan, config);
        config.warmUps = 1;
        const PacketRunReport warm = RunPacketAllReduce(plan, config);
        ASSERT_TRUE(cold.result.finished) << mode << ": " << cold.result.error;
        ASSERT_TRUE(warm.result.finished) << mode << ": " << warm.result.error;
        EXPECT_TRUE(cold.result.warmUpTimes.empty());
        // The warm-up is the cold run, event for event; the measured one starts again from
        // the initial gradients (else every server would hold twice the sum).
        ASSERT_EQ(warm.result.warmUpTimes.size(), 1u) << mode;
        EXPECT_DOUBLE_EQ(warm.result.warmUpTimes[0], cold.result.completionTime) << mode;
        EXPECT_TRUE(warm.verification.verified) << mode << ": " << warm.verification.message;
        if (mode == "barrier")
        {
            // Round by round on disjoint links, nothing but the windows differs (async may
            // start in another order once the timings move).
            EXPECT_LT(warm.result.completionTime, cold.result.completionTime)
                << "the connections were not warm";
        }
        EXPECT_EQ(warm.run.schedule.GetNRounds(), cold.run.schedule.GetNRounds()) << mode;
        // What the report counts is the measured AllReduce's: its bytes (no handshakes now),
        // every workload on one flow.
        EXPECT_LT(total(warm.linkBytes), total(cold.linkBytes)) << mode;
        EXPECT_GT(total(warm.linkBytes), total(cold.linkBytes) * 0.97) << mode;
        std::vector<uint32_t> seen(plan.workloads.GetN(), 0);
        for (const FlowReport& f : warm.flows)
        {
            EXPECT_GT(f.txPackets, 0u);
            EXPECT_LE(f.duration, warm.result.completionTime + 1e-9);
            for (uint32_t w : f.workloads)
            {
                ++seen[w];
            }
        }
        EXPECT_EQ(seen, std::vector<uint32_t>(plan.workloads.GetN(), 1)) << mode;
    }
    // Late gradients hold the measured AllReduce only: its warm-up is the cold run.
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 1 << 20;
    config.stragglers = "list:0,0,0,0.002,0,0,0,0,0";
    config.warmUps = 1;
    const PacketRunReport late = RunPacketAllReduce(plan, config);
    ASSERT_TRUE(late.result.finished) << late.result.error;
    EXPECT_TRUE(late.verification.verified);
    EXPECT_GT(late.result.completionTime, 0.002);
    ASSERT_EQ(late.result.warmUpTimes.size(), 1u);
    EXPECT_LT(late.result.warmUpTimes[0], 0.002);
}

TEST(PacketTransport, EveryTcpAndQueueDiscVerifies)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    for (const auto& [tcp, queue] : std::vector<std::pair<std::string, std::string>>{
             {"cubic", "fq-codel"},
             {"newreno", "none"},
             {"newreno", "red"},
             {"dctcp", "auto"}})
    {
        PacketRunConfig config = SmallPacketRun("barrier");
        config.gradientBytes = 256 * 1024;
        config.tcp = tcp;
        config.queueDisc = queue;
        if (queue == "none")
        {
            config.queueSize = QueueSize("50p");
        }
        const PacketRunReport report = RunPacketAllReduce(plan, config);
        ASSERT_TRUE(report.result.finished) << tcp << " " << queue << ": " << report.result.error;
        EXPECT_TRUE(report.verification.verified) << tcp << " " << queue;
    }
    EXPECT_EQ(GetQueueDisc(PacketRunConfig{}), "fq-codel");
    PacketRunConfig dctcp;
    dctcp.tcp = "dctcp";
    EXPECT_EQ(GetQueueDisc(dctcp), "red");
}

TEST(PacketTransport, EveryQueueDiscTakesEverySizeUnit)
{
    // ns-3's fq_codel keeps a limit of 0 packets when given bytes, which drops every packet: a
    // byte limit is held above it (ByteLimitQueueDisc), and red's thresholds follow the unit.
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    for (const std::string queue : {"fq-codel", "red", "none"})
    {
        for (const std::string size : {"300p", "1MB", "1MiB", "600KB", "512KiB", "2000000B",
                                       "1e6", "4500B"})
        {
            PacketRunConfig config = SmallPacketRun("barrier");
            config.gradientBytes = 256 * 1024;
            config.tcp = queue == "red" ? "dctcp" : "cubic";
            config.queueDisc = queue;
            config.queueSize = ParseQueueSize("--queue-size", size);
            const PacketRunReport report = RunPacketAllReduce(plan, config);
            ASSERT_TRUE(report.result.finished) << queue << " " << size << ": "
                                                << report.result.error;
            EXPECT_TRUE(report.verification.verified) << queue << " " << size;
        }
    }
    // And the limit binds: two packets' worth of bytes slow ring's contended rounds as two
    // packets do (a limit that was set but not enforced would run as fast as a large one).
    const Plan ring = MakeTestPlan("bcube:n=3,k=1", "ring");
    for (const std::string queue : {"fq-codel", "red", "none"})
    {
        std::map<std::string, double> took;
        for (const std::string size : {"2p", "3004B", "1MiB"})
        {
            PacketRunConfig config = SmallPacketRun("barrier");
            config.gradientBytes = 1 << 20;
            config.tcp = queue == "red" ? "dctcp" : "cubic";
            config.queueDisc = queue;
            config.queueSize = ParseQueueSize("--queue-size", size);
            const PacketRunReport report = RunPacketAllReduce(ring, config);
            ASSERT_TRUE(report.result.finished) << queue << " " << size;
            EXPECT_TRUE(report.verification.verified) << queue << " " << size;
            took[size] = report.result.completionTime;
        }
        EXPECT_GT(took["3004B"], 1.2 * took["1MiB"]) << queue;
        if (queue != "red") // red marks and drops early by its own thresholds
        {
            EXPECT_NEAR(took["3004B"], took["2p"], 0.25 * took["2p"]) << queue;
        }
    }
    Simulator::Destroy();
}

TEST(PacketTransport, TransportOptionsThatCannotWorkAreRefused)
{
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    const auto refuses = [&plan](const std::function<void(PacketRunConfig&)>& change,
                                 const std::string& says) {
        PacketRunConfig config = SmallPacketRun("barrier");
        change(config);
        try
        {
            RunPacketAllReduce(plan, config);
            ADD_FAILURE() << "accepted; expected an error saying '" << says << "'";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
        }
    };
    refuses([](PacketRunConfig& c) { c.tcp = "vegas"; }, "tcp must be");
    refuses([](PacketRunConfig& c) { c.connections = "pooled"; }, "connections must be");
    refuses(
        [](PacketRunConfig& c) {
            c.connections = "per-transfer";
            c.warmUps = 1;
        },
        "warm-ups need persistent connections");
    refuses(
        [](PacketRunConfig& c) {
            c.warmUps = 2;
            c.linkDowns.push_back(LinkDownEvent{0, 0.001});
        },
        "warm-ups and --link-down do not combine");
    refuses([](PacketRunConfig& c) { c.queueDisc = "codel"; }, "queue disc must be");
    refuses(
        [](PacketRunConfig& c) {
            c.tcp = "dctcp";
            c.queueDisc = "fq-codel";
        },
        "dctcp needs queues that mark ECN");
    for (const std::string size : {"12", "1501B", "0p", "p", "10 p", "5GB", "99999999999p"})
    {
        EXPECT_THROW(ParseQueueSize("--queue-size", size), std::invalid_argument) << size;
    }
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    EXPECT_THROW(dcn.SetTcpCongestionControl("ns3::Node"), std::invalid_argument);
    EXPECT_THROW(dcn.SetTcpCongestionControl("ns3::TcpNoSuchThing"), std::invalid_argument);
    Simulator::Destroy();
}

TEST(PacketTransport, TheNetworkTakesTheCongestionControlAndQueueDiscsAsked)
{
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    dcn.SetTcpCongestionControl("ns3::TcpNewReno");
    dcn.Install();
    for (uint32_t node = 0; node < dcn.GetNodes().GetN(); ++node)
    {
        TypeIdValue type;
        dcn.GetNodes().Get(node)->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", type);
        EXPECT_EQ(type.Get().GetName(), "ns3::TcpNewReno");
    }
    Ptr<NetDevice> device = dcn.GetLinkDevices(0).Get(0);
    Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
    ASSERT_TRUE(tc);
    Ptr<QueueDisc> root = tc->GetRootQueueDiscOnDevice(device);
    ASSERT_TRUE(root) << "no queue disc on the devices";
    EXPECT_EQ(root->GetInstanceTypeId().GetName(), "ns3::FqCoDelQueueDisc");
    Simulator::Destroy();

    DcnTopologyHelper fifo(BuildTopology("bcube:n=2,k=1"));
    fifo.DisableTrafficControl();
    fifo.Install();
    Ptr<NetDevice> d = fifo.GetLinkDevices(0).Get(0);
    EXPECT_FALSE(d->GetNode()->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(d));
    Simulator::Destroy();
}

TEST(PacketTransport, AConnectionHitByALinkFailureTakesNoNewTransfers)
{
    // Two links fail mid-run; the transfers in flight on them wait one retransmission timeout
    // (10 ms) and are routed around. Reused afterwards, those connections would carry a
    // one-segment window acknowledged only at the 200 ms delayed-ACK timeout: 3.6 s.
    PacketRunConfig config = SmallPacketRun("barrier");
    config.gradientBytes = 256 * 1024;
    config.decisions = "online";
    config.stallTimeout = MilliSeconds(50);
    config.linkDowns = ParseLinkDowns({"9", "4"}, {"100us", "300us"});
    const PacketRunReport report = RunPacketAllReduce(MakeTestPlan("bcube:n=3,k=1", "greedy"),
                                                      config,
                                                      CreateScheduler("greedy"));
    ASSERT_TRUE(report.result.finished) << report.result.error;
    EXPECT_TRUE(report.verification.verified) << report.verification.message;
    EXPECT_GT(report.result.rerouted, 0u);
    EXPECT_LT(report.result.completionTime, 0.05)
        << "a transfer went on a connection still backing off";
}

TEST(PacketFaults, AConnectionTcpGaveUpOnEndsTheRunSayingSo)
{
    // One retransmission allowed and 20% loss: TCP gives up on a connection with a transfer in
    // flight. The run ends naming it, not with a stall that says every link is up.
    Config::SetDefault("ns3::AllReduceApplication::DataRetries", UintegerValue(1));
    for (const std::string connections : {"persistent", "per-transfer"})
    {
        PacketRunConfig config = SmallPacketRun("barrier");
        config.gradientBytes = 64 * 1024;
        config.loss = 0.2;
        config.stallTimeout = MilliSeconds(50);
        config.connections = connections;
        const PacketRunReport report =
            RunPacketAllReduce(MakeTestPlan("bcube:n=2,k=1", "greedy"), config);
        EXPECT_FALSE(report.result.finished) << connections;
        EXPECT_FALSE(report.result.stalled) << connections << ": " << report.result.error;
        EXPECT_NE(report.result.error.find("TCP gave up on the connection"), std::string::npos)
            << connections << ": " << report.result.error;
    }
    Config::SetDefault("ns3::AllReduceApplication::DataRetries", UintegerValue(15));
}
