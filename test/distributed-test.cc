/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Distributed runs (doc/allreduce.rst, "Distributed runs"): the driver that starts each rank's
// transfers from what its nodes know, and the packet-level run in distributed mode on one
// process, which runs the same protocol as a run on several ranks.

#include "allreduce-experiment.h"
#include "packet-report.h"
#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{

/**
 * Plays a distributed run's notices without a network: one driver per rank, each holding
 * the nodes partition gives it (and, with parts, only the workloads they need, as a rank of a
 * run does); a transfer arrives one step after it starts, a notice one step after it is sent.
 * Records at which step each workload (by its id in the plan) started.
 */
class NoticeBench
{
  public:
    NoticeBench(const Plan& plan,
                bool barrier,
                const TopologyPartition& partition,
                bool parts = false)
        : m_plan(plan)
    {
        const Topology& topo = plan.workloads.GetTopology();
        m_drivers.resize(partition.GetNRanks());
        m_parts.resize(partition.GetNRanks()); // not resized again: the drivers point here
        m_kept.resize(partition.GetNRanks());
        for (uint32_t r = 0; r < partition.GetNRanks(); ++r)
        {
            std::vector<bool> local(topo.GetNNodes());
            for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
            {
                local[node] = partition.GetRank(node) == r;
            }
            m_drivers[r].Setup(m_plan.workloads, m_plan.schedule, barrier, local, 0);
            if (parts)
            {
                m_kept[r] = m_drivers[r].FindNeeded(local);
                m_parts[r] = plan.workloads;
                m_parts[r].Keep(m_kept[r]);
                m_drivers[r].Adopt(m_parts[r], m_kept[r]);
            }
        }
        m_rank = partition.GetRanks();
        m_startStep.assign(plan.workloads.GetN(), -1);
    }

    /**
     * Runs until nothing is left to deliver.
     * \param ready per late node, the step at which its gradient is ready
     * \return the nodes told of the end
     */
    uint32_t Run(const std::map<uint32_t, int>& ready = {})
    {
        std::vector<bool> late(m_rank.size(), false);
        for (const auto& [node, step] : ready)
        {
            late[node] = true;
            m_events.emplace(step, std::make_tuple(2, node, 0u));
        }
        for (uint32_t r = 0; r < m_drivers.size(); ++r)
        {
            Take(m_drivers[r].Begin(late), 0, r);
        }
        while (!m_events.empty())
        {
            const auto [step, event] = *m_events.begin();
            m_events.erase(m_events.begin());
            const auto [kind, node, value] = event;
            const uint32_t rank = m_rank[node];
            DistributedDriver& driver = m_drivers[rank];
            if (kind == 0)
            {
                Take(driver.Finished(FromPlan(rank, value)), step, rank);
            }
            else if (kind == 2)
            {
                Take(driver.GradientReady(node), step, rank);
            }
            else
            {
                DistributedNotice n;
                EXPECT_TRUE(DistributedNotice::Deserialize(m_notices[value].Serialize(), n));
                Take(driver.Receive(node, n), step, rank);
            }
        }
        return m_ended;
    }

    const std::vector<int>& GetStartSteps() const
    {
        return m_startStep;
    }

    /// \return per rank, the workloads it holds (all without parts)
    std::vector<uint32_t> GetPartSizes() const
    {
        std::vector<uint32_t> sizes;
        for (const auto& kept : m_kept)
        {
            sizes.push_back(kept.empty() ? m_plan.workloads.GetN()
                                         : static_cast<uint32_t>(kept.size()));
        }
        return sizes;
    }

  private:
    /// \return the plan's workload \p id in rank's part (it must hold it)
    uint32_t FromPlan(uint32_t rank, uint32_t id) const
    {
        const uint32_t w = m_drivers[rank].FindWorkload(id);
        EXPECT_NE(w, NO_INDEX) << "rank " << rank << " lacks " << id;
        return w;
    }

    void Take(const DistributedDriver::Actions& a, int step, uint32_t rank)
    {
        for (uint32_t local : a.start)
        {
            const uint32_t w = m_drivers[rank].GetSetupId(local);
            EXPECT_EQ(m_startStep[w], -1) << "workload " << w << " started twice";
            m_startStep[w] = step;
            m_events.emplace(step + 1, std::make_tuple(0, m_plan.workloads.Get(w).dst, w));
        }
        for (const auto& [to, notice] : a.send)
        {
            m_notices.push_back(notice);
            m_events.emplace(step + 1, std::make_tuple(1, to, uint32_t(m_notices.size() - 1)));
        }
        m_ended += static_cast<uint32_t>(a.ended.size());
    }

    const Plan& m_plan;
    std::vector<DistributedDriver> m_drivers;
    std::vector<WorkloadSet> m_parts;           //!< per rank, its part (parts)
    std::vector<std::vector<uint32_t>> m_kept;  //!< per rank, its part's plan ids (parts)
    std::vector<uint32_t> m_rank;
    std::vector<int> m_startStep;
    std::vector<DistributedNotice> m_notices;
    /// By step, in the order made: (0 arrival, 1 notice, 2 gradient ready; node; value)
    std::multimap<int, std::tuple<int, uint32_t, uint32_t>> m_events;
    uint32_t m_ended{0};
};

Plan
MakeTestPlan(const std::string& spec, const std::string& scheduler)
{
    return CreateScheduler(scheduler)->MakePlan(BuildTopology(spec), 1);
}

} // namespace

TEST(DistributedDriver, BarrierStartsARoundOnlyOnceTheCoordinatorHeardTheLastOne)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    const Topology& topo = plan.workloads.GetTopology();
    const auto roundOf = RoundOfEachWorkload(plan.schedule, plan.workloads.GetN());
    std::vector<int> one; // the steps on one rank
    for (uint32_t ranks : {1u, 3u, 5u})
    {
        NoticeBench bench(plan, true, TopologyPartition::Make(topo, ranks));
        EXPECT_EQ(bench.Run(), 9u) << "every server hears of the end";
        const std::vector<int>& step = bench.GetStartSteps();
        std::vector<int> lastArrival(plan.schedule.GetNRounds(), 0);
        for (uint32_t w = 0; w < step.size(); ++w)
        {
            ASSERT_GE(step[w], 0) << "workload " << w << " never started";
            lastArrival[roundOf[w]] = std::max(lastArrival[roundOf[w]], step[w] + 1);
        }
        // Round t+1 starts after round t's last arrival, its receiver's ROUND_DONE to the
        // coordinator and the coordinator's ROUND_GO (each a step, but to or from the
        // coordinator itself, which takes none).
        for (uint32_t w = 0; w < step.size(); ++w)
        {
            if (roundOf[w] > 0)
            {
                EXPECT_GE(step[w], lastArrival[roundOf[w] - 1] + (plan.workloads.Get(w).src != 0))
                    << "workload " << w << " of round " << roundOf[w] << " on " << ranks;
            }
        }
        if (ranks == 1)
        {
            one = step;
        }
        EXPECT_EQ(step, one) << "the steps depend on the ranks (" << ranks << ")";
    }
}

TEST(DistributedDriver, ACoordinatorThatSendsAndReceivesNothingIsRefused)
{
    // Ring on BCube(2,1)'s four servers: server 0 takes part; a switch (node 4) does not.
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "ring");
    DistributedDriver driver;
    const std::vector<bool> local(8, true);
    EXPECT_NO_THROW(driver.Setup(plan.workloads, plan.schedule, true, local, 0));
    test::ExpectRefused([&] { driver.Setup(plan.workloads, plan.schedule, true, local, 4); },
                        "sends and receives nothing");
}

TEST(DistributedDriver, AsyncStartsEachWorkloadAfterItsDependenciesOnAnyRanks)
{
    const Plan plan = MakeTestPlan("dcell:n=3,k=1", "balanced");
    const Topology& topo = plan.workloads.GetTopology();
    std::vector<int> one; // the steps on one rank
    for (uint32_t ranks : {1u, 2u, 4u})
    {
        NoticeBench bench(plan,
                          false,
                          TopologyPartition::Make(topo, ranks, TopologyPartition::METIS));
        EXPECT_EQ(bench.Run(), topo.GetNServers());
        const std::vector<int>& step = bench.GetStartSteps();
        for (uint32_t w = 0; w < step.size(); ++w)
        {
            ASSERT_GE(step[w], 0) << "workload " << w << " never started on " << ranks;
            for (uint32_t d : plan.workloads.GetDeps(w))
            {
                EXPECT_GT(step[w], step[d]) << "workload " << w << " before its dependency " << d;
            }
        }
        // When it starts does not depend on how many ranks hold the nodes.
        if (ranks == 1)
        {
            one = step;
        }
        EXPECT_EQ(step, one) << ranks << " ranks";
    }
}

TEST(DistributedDriver, ALateServerStartsNothingBeforeItsGradientOnAnyRanks)
{
    const Plan plan = MakeTestPlan("bcube:n=3,k=1", "greedy");
    const Topology& topo = plan.workloads.GetTopology();
    const std::map<uint32_t, int> ready{{2, 3}, {5, 7}};
    for (bool barrier : {true, false})
    {
        std::vector<int> one; // the steps on one rank
        for (uint32_t ranks : {1u, 2u, 3u})
        {
            NoticeBench bench(plan, barrier, TopologyPartition::Make(topo, ranks));
            EXPECT_EQ(bench.Run(ready), 9u) << "every server hears of the end";
            const std::vector<int>& step = bench.GetStartSteps();
            std::map<uint32_t, int> first; // per late server, its first start
            for (uint32_t w = 0; w < step.size(); ++w)
            {
                ASSERT_GE(step[w], 0) << "workload " << w << " never started";
                const uint32_t src = plan.workloads.Get(w).src;
                if (ready.count(src))
                {
                    const auto [it, added] = first.emplace(src, step[w]);
                    it->second = std::min(it->second, step[w]);
                }
            }
            // Each sends first when its gradient is ready: server 2 from the start, as
            // barrier's round 0 and async's first workloads would, server 5 later still.
            EXPECT_EQ(first[2], 3) << (barrier ? "barrier" : "async") << ", " << ranks;
            EXPECT_GE(first[5], 7) << (barrier ? "barrier" : "async") << ", " << ranks;
            if (ranks == 1)
            {
                one = step;
            }
            EXPECT_EQ(step, one) << "the steps depend on the ranks (" << ranks << ")";
        }
    }
}

TEST(DistributedDriver, ARankHoldingOnlyItsPartStartsEveryWorkloadWhenAWholePlanWould)
{
    // Merge trees (dependencies across servers), Ring and PS; barrier and async; late servers.
    const std::map<uint32_t, int> ready{{2, 3}, {5, 7}};
    for (const auto& [spec, scheduler] :
         std::vector<std::pair<std::string, std::string>>{{"dcell:n=3,k=1", "balanced"},
                                                          {"fattree:k=4", "ring"},
                                                          {"bcube:n=3,k=1", "ps"}})
    {
        const Plan plan = MakeTestPlan(spec, scheduler);
        const Topology& topo = plan.workloads.GetTopology();
        for (bool barrier : {true, false})
        {
            for (uint32_t ranks : {2u, 3u, 4u})
            {
                const std::string what = spec + " " + scheduler + (barrier ? " barrier " : " async ") +
                                         std::to_string(ranks) + " ranks";
                const TopologyPartition partition =
                    TopologyPartition::Make(topo, ranks, TopologyPartition::METIS);
                NoticeBench whole(plan, barrier, partition);
                NoticeBench parts(plan, barrier, partition, true);
                EXPECT_EQ(parts.Run(ready), whole.Run(ready)) << what;
                EXPECT_EQ(parts.GetStartSteps(), whole.GetStartSteps()) << what;
                EXPECT_EQ(std::count(parts.GetStartSteps().begin(), parts.GetStartSteps().end(), -1),
                          0)
                    << what;
                for (uint32_t size : parts.GetPartSizes())
                {
                    EXPECT_LT(size, plan.workloads.GetN()) << what << ": a rank holds it all";
                }
            }
        }
    }
}

TEST(DistributedDriver, ANoticeIsSixteenBytesAndAnythingElseIsNotOne)
{
    const DistributedNotice n{DistributedNotice::END, 70000, 5000000000123ULL};
    const std::vector<uint8_t> bytes = n.Serialize();
    ASSERT_EQ(bytes.size(), DistributedNotice::BYTES);
    DistributedNotice back;
    ASSERT_TRUE(DistributedNotice::Deserialize(bytes, back));
    EXPECT_EQ(back.kind, n.kind);
    EXPECT_EQ(back.from, 70000u);
    EXPECT_EQ(back.value, 5000000000123ULL); // a stop time in ns, past 2^32
    EXPECT_FALSE(DistributedNotice::Deserialize({1, 2, 3}, back));
    std::vector<uint8_t> unknown = bytes;
    unknown[0] = 9;
    EXPECT_FALSE(DistributedNotice::Deserialize(unknown, back));
}

TEST(DistributedRun, OneProcessVerifiesBarrierAndAsyncAndReportsItsRank)
{
    for (const std::string mode : {"barrier", "async"})
    {
        const Plan plan = MakeTestPlan("bcube:n=3,k=1,ina=all", "balanced");
        PacketRunConfig config = test::SmallPacketRun(mode);
        config.distributed = true;
        const PacketRunReport report = RunPacketAllReduce(plan, config);
        ASSERT_TRUE(report.result.finished) << mode << ": " << report.result.error;
        EXPECT_TRUE(report.verification.verified) << report.verification.message;
        EXPECT_EQ(report.verification.checked, 9u);
        EXPECT_EQ(report.result.transfersFinished, plan.workloads.GetN());
        ASSERT_TRUE(report.distributed);
        ASSERT_EQ(report.distributed->ranks.size(), 1u);
        EXPECT_EQ(report.distributed->ranks[0].nodes, plan.workloads.GetTopology().GetNNodes());
        EXPECT_EQ(report.distributed->ranks[0].events, report.events);
        // No global view, so no flow monitor: the reports say so rather than count 0.
        std::ostringstream text;
        PrintPacketReport(text, plan, config, report);
        EXPECT_NE(text.str().find("bytes on the wire, flows and losses not counted"),
                  std::string::npos)
            << text.str();
        std::ostringstream json;
        WritePacketReportJson(json, plan, config, report, "");
        const auto doc = nlohmann::json::parse(json.str());
        for (const char* key : {"flows", "wire_bytes", "lost_packets", "link_utilization_mean"})
        {
            EXPECT_TRUE(doc.at(key).is_null()) << key << " is " << doc.at(key);
        }
        const auto& r = report.result;
        EXPECT_EQ(r.completionTime, *std::max_element(r.transferEnd.begin(), r.transferEnd.end()));
        for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
        {
            for (uint32_t d : plan.workloads.GetDeps(w))
            {
                EXPECT_GE(r.transferStart[w], r.transferEnd[d]) << mode << " workload " << w;
            }
        }
        if (mode == "barrier") // a round starts once the coordinator heard the last one end
        {
            for (uint32_t t = 0; t + 1 < r.roundEnd.size(); ++t)
            {
                EXPECT_GT(r.roundStart[t + 1], r.roundEnd[t]) << "round " << t + 1;
            }
        }
    }
}

TEST(DistributedRun, ALateServerSendsOnlyOnceItsGradientIsReady)
{
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    for (const std::string mode : {"barrier", "async"})
    {
        PacketRunConfig config = test::SmallPacketRun(mode);
        config.distributed = true;
        const PacketRunReport prompt = RunPacketAllReduce(plan, config);
        config.stragglers = "list:0,0,300us,0";
        const PacketRunReport late = RunPacketAllReduce(plan, config);
        ASSERT_TRUE(late.result.finished) << mode << ": " << late.result.error;
        EXPECT_TRUE(late.verification.verified) << late.verification.message;
        double first = 1; // server 2's first start
        for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
        {
            if (plan.workloads.Get(w).src == 2)
            {
                first = std::min(first, late.result.transferStart[w]);
            }
        }
        EXPECT_GE(first, 300e-6) << mode;
        EXPECT_LT(first, 301e-6) << mode << ": it waits for nothing else";
        EXPECT_GT(late.result.completionTime, 300e-6) << mode;
        EXPECT_GT(prompt.result.completionTime, 0) << mode;
    }
}

TEST(DistributedRun, WhatItCannotHonourIsRefusedSayingWhat)
{
    const Plan plan = MakeTestPlan("bcube:n=2,k=1", "greedy");
    const auto refused = [&](PacketRunConfig config, const std::string& words, bool online) {
        config.distributed = true;
        test::ExpectRefused(
            [&] { RunPacketAllReduce(plan, config, online ? CreateScheduler("greedy") : nullptr); },
            words);
    };
    PacketRunConfig c = test::SmallPacketRun("async");
    PacketRunConfig online = c;
    online.decisions = "online";
    refused(online, "cannot honour decisions online", true);
    PacketRunConfig loss = c;
    loss.loss = 0.01;
    refused(loss, "cannot honour --loss", false);
    PacketRunConfig down = c;
    down.linkDowns.push_back({0, 0.0001});
    refused(down, "cannot honour --link-down", false);
    PacketRunConfig warm = c;
    warm.warmUps = 1;
    refused(warm, "cannot honour --warm-ups", false);
    PacketRunConfig perTransfer = c;
    perTransfer.connections = "per-transfer";
    refused(perTransfer, "cannot honour --connections=per-transfer", false);
    PacketRunConfig groups = c;
    groups.partition = "pods";
    refused(groups, "give auto, groups or metis", false);
    PacketRunConfig red = c;
    red.queueDisc = "red";
    refused(red, "cannot honour --queue-disc=red", false);
    PacketRunConfig fifo = c;
    fifo.queueDisc = "none";
    refused(fifo, "cannot honour --queue-disc=none", false);
}

TEST(DistributedRun, ARankBeyondOneNeedsMpi)
{
    // Standalone, against Debian's ns-3 (no MPI module); the in-tree CI stage runs on two
    // ranks, and checks there that a link between ranks without a delay is refused.
    const Topology topo = BuildTopology("bcube:n=2,k=1");
    DcnTopologyHelper dcn(topo);
    ASSERT_FALSE(HasDistributedSimulator());
    test::ExpectRefused([&] { dcn.SetPartition(TopologyPartition::Make(topo, 2)); },
                        "needs ns-3 built with its MPI module");
    EXPECT_THROW(dcn.SetPartition(TopologyPartition::Make(BuildTopology("bcube:n=3,k=1"), 1)),
                 std::invalid_argument);
    dcn.SetPartition(TopologyPartition::Make(topo, 1)); // one rank needs nothing
}
