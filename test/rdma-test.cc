/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The RoCEv2 transport (doc/allreduce.rst, "RDMA"): a queue pair delivers a stream exactly and
// in order at nearly line rate; flows through one bottleneck converge to fair shares under
// DCQCN without a drop; go-back-N and selective repeat recover a lost packet; bad settings are
// refused with what to change.

#include "packet-report.h"
#include "rdma-validation.h"
#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>

using namespace ns3;
using namespace ns3::rdma_validation;

TEST(Rdma, OneQueuePairDeliversItsStreamExactlyAtNearlyLineRate)
{
    const uint32_t bytes = 8 * 1024 * 1024;
    const LineRate run = RunLineRate(bytes);
    EXPECT_TRUE(run.exact);
    // 4096 payload bytes take 4096 + 16 (RoCE) + 28 (UDP, IPv4) + 18 (Ethernet) + 20 (preamble,
    // gap) = 4178 on the line: 98.0% of 10 Gbps at most.
    EXPECT_GT(run.gbps, 9.6);
    EXPECT_LE(run.gbps, 9.81);
    EXPECT_EQ(run.retransmitted, 0U);
    EXPECT_EQ(run.cnps, 0U);
    EXPECT_EQ(run.dataPackets, bytes / 4096);
    EXPECT_LE(run.acks, run.dataPackets / 4 + 1); // coalesced, every four packets
}

TEST(Rdma, FlowsThroughOneBottleneckConvergeToFairSharesWithoutLoss)
{
    // Three senders into one receiver, starting 1 ms apart; DCQCN shares the receiver's link.
    const FairShare run = RunFairShare(3, 20, 40);
    EXPECT_GT(run.jain, 0.95) << run.gbps[0] << " " << run.gbps[1] << " " << run.gbps[2];
    // DCQCN's alpha starts at 1 and decays by g = 1/256 per 55 us, so its cuts stay deep for tens
    // of milliseconds and the queue drains between them: the link runs at about 85% here.
    EXPECT_GT(run.total, 7.5) << "the bottleneck stays mostly busy";
    EXPECT_LT(run.total, 9.81);
    EXPECT_EQ(run.drops, 0U);
    EXPECT_GT(run.cnps, 0U);
}

TEST(Rdma, ACutThroughSwitchForwardsAFrameWhileItStillArrives)
{
    // 4096 + 16 + 28 + 18 + 20 = 4178 bytes take 3.342 us at 10 Gbps, and each link 1 us.
    // Store and forward: the frame crosses two links whole, 2 x 4.342 = 8.685 us. Cut through:
    // the switch starts it on once 64 bytes (and the preamble) are in, 57.6 ns later.
    EXPECT_NEAR(RunOnePacketMicroseconds(false), 8.685, 0.01);
    EXPECT_NEAR(RunOnePacketMicroseconds(true), 3.342 + 0.058 + 2.0, 0.01);
}

TEST(Rdma, GoBackNRecoversALostPacketWithOneNak)
{
    const Recovery run = RunOneLoss("go-back-n");
    EXPECT_TRUE(run.exact);
    EXPECT_EQ(run.nacks, 1U);
    EXPECT_GE(run.retransmitted, 1U); // the lost packet and those sent after it
    EXPECT_EQ(run.timeouts, 0U);
}

TEST(Rdma, SelectiveRepeatSendsOnlyTheLostPacketAgain)
{
    const Recovery run = RunOneLoss("selective-repeat");
    EXPECT_TRUE(run.exact);
    EXPECT_EQ(run.nacks, 1U);
    EXPECT_EQ(run.retransmitted, 1U);
    EXPECT_EQ(run.timeouts, 0U);
}

TEST(Rdma, RefusesSettingsThatCannotWork)
{
    using test::ExpectRefused;
    const auto socket = [](const std::string& name, const AttributeValue& value) {
        RdmaHelper rdma;
        rdma.SetSocketAttribute(name, value);
        rdma.Validate(DataRate("10Gbps"));
    };
    const auto dcqcn = [](const std::string& name, const AttributeValue& value) {
        RdmaHelper rdma;
        rdma.SetRateControlAttribute(name, value);
        rdma.Validate(DataRate("10Gbps"));
    };
    ExpectRefused([&] { socket("PayloadSize", UintegerValue(1000)); },
                  "256, 512, 1024, 2048 or 4096");
    ExpectRefused([&] { socket("RetransmitTimeout", TimeValue(MicroSeconds(-5))); },
                  "RetransmitTimeout must be > 0");
    ExpectRefused([&] { socket("AckInterval", UintegerValue(0)); }, "AckInterval must be >= 1");
    ExpectRefused([&] { dcqcn("RateTimer", TimeValue(MicroSeconds(-1))); },
                  "RateTimer must be > 0");
    ExpectRefused([&] { dcqcn("AlphaTimer", TimeValue(Seconds(0))); }, "AlphaTimer must be > 0");
    ExpectRefused([&] { dcqcn("G", DoubleValue(0)); }, "G must be in (0, 1]");
    ExpectRefused([&] { dcqcn("MinRate", DataRateValue(DataRate("40Gbps"))); },
                  "ns3::DcqcnRateControl::MinRate is 40Gbps, above the line rate 10Gbps; give "
                  "--ns3::DcqcnRateControl::MinRate=RATE from 1bps to 10Gbps");
    ExpectRefused([&] { dcqcn("HyperIncrease", DataRateValue(DataRate("1000Gbps"))); },
                  "HyperIncrease is 1000Gbps, above the line rate");
    ExpectRefused([&] { dcqcn("AdditiveIncrease", DataRateValue(DataRate(0))); },
                  "AdditiveIncrease is 0bps, not above 0");
    // A slow line names the attribute the user never set (MinRate's default, 100Mbps).
    ExpectRefused([] { RdmaHelper().Validate(DataRate("50Mbps")); },
                  "MinRate is 100Mbps, above the line rate 50Mbps");
    // Less than a payload: every packet would wait for the last to be acknowledged.
    ExpectRefused([&] { socket("SendBufferSize", UintegerValue(1)); },
                  "SendBufferSize must hold at least one packet's payload (PayloadSize, 4096 "
                  "bytes), got 1");
}

TEST(Rdma, RefusesBuffersThatCannotHoldAFrame)
{
    using test::ExpectRefused;
    const auto buffer = [](const std::string& name, const AttributeValue& value) {
        NodeContainer nodes;
        nodes.Create(2);
        LosslessEthernetHelper ethernet;
        ethernet.SetBufferAttribute(name, value);
        ethernet.Install(nodes.Get(0), nodes.Get(1));
        LosslessEthernetHelper::Validate(nodes);
    };
    // A byte of headroom: with PFC on, what arrives after a pause would be dropped.
    ExpectRefused([&] { buffer("Headroom", UintegerValue(1)); },
                  "a Headroom of 1 bytes cannot hold one full frame of port 0 (9038 bytes");
    ExpectRefused([&] { buffer("Size", UintegerValue(20000)); }, "leaving no shared space");
    ExpectRefused([&] { buffer("Size", UintegerValue(30000)); },
                  "its shared space of 303 bytes cannot hold one full frame (9038 bytes");
    ExpectRefused(
        [&] {
            NodeContainer nodes;
            nodes.Create(2);
            LosslessEthernetHelper ethernet;
            ethernet.SetBufferAttribute("Threshold", StringValue("static"));
            ethernet.SetBufferAttribute("StaticThreshold", UintegerValue(100));
            ethernet.Install(nodes.Get(0), nodes.Get(1));
            LosslessEthernetHelper::Validate(nodes);
        },
        "its StaticThreshold of 100 bytes cannot hold one full frame");
    // The largest Alpha is taken, and its threshold is bounded by the shared space (an Alpha
    // of 1e13 once overflowed it to 0); a larger one is out of the attribute's range.
    EXPECT_NO_THROW(buffer("Alpha", DoubleValue(SharedBuffer::MAX_ALPHA)));
    TypeId::AttributeInformation info;
    ASSERT_TRUE(SharedBuffer::GetTypeId().LookupAttributeByName("Alpha", &info));
    EXPECT_FALSE(info.checker->Check(DoubleValue(1e13)));
    Simulator::Destroy();
}

TEST(Rdma, TheSwitchingAskedIsTheSwitchingRun)
{
    // A default of the user's cannot make the helper say store-and-forward and run cut-through.
    Config::SetDefault("ns3::LosslessNetDevice::CutThrough", BooleanValue(true));
    for (const bool cutThrough : {false, true})
    {
        DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
        dcn.UseLosslessEthernet();
        dcn.SetCutThrough(cutThrough);
        dcn.Install();
        const Topology& topo = dcn.GetTopology();
        for (uint32_t u = 0; u < topo.GetNNodes(); ++u)
        {
            Ptr<Node> node = dcn.GetNode(u);
            for (uint32_t i = 0; i < node->GetNDevices(); ++i)
            {
                BooleanValue value;
                if (node->GetDevice(i)->GetAttributeFailSafe("CutThrough", value))
                {
                    EXPECT_EQ(value.Get(), cutThrough && u >= topo.GetNServers())
                        << topo.GetNodeName(u) << " port " << i;
                }
            }
        }
        Simulator::Destroy();
    }
    Config::Reset();
}

TEST(Rdma, RefusesNetworksAndRunsItCannotServe)
{
    using test::ExpectRefused;
    ExpectRefused(
        [] {
            NodeContainer nodes;
            nodes.Create(2);
            LosslessEthernetHelper ethernet;
            ethernet.SetDeviceAttribute("PfcEnabled", BooleanValue(false));
            ethernet.Install(nodes.Get(0), nodes.Get(1));
            LosslessEthernetHelper::Validate(nodes);
        },
        "set PfcEnabled alike");
    ExpectRefused([] { RdmaHelper().Validate(DataRate("10Gbps"), 1500); },
                  "more than the links' MTU of 1500");
    ExpectRefused(
        [] {
            DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
            dcn.SetDeviceAttribute("InterframeGap", TimeValue(NanoSeconds(10)));
            dcn.UseLosslessEthernet();
        },
        "have no attribute InterframeGap");
    const Plan plan = CreateScheduler("ring")->MakePlan(BuildTopology("bcube:n=2,k=1"), 1);
    for (const auto& [option, words] :
         std::vector<std::pair<std::string, std::string>>{{"tcp", "--tcp does not apply"},
                                                          {"queue", "--queue-disc does not"},
                                                          {"switching", "--switching applies"}})
    {
        PacketRunConfig config = test::SmallPacketRun("barrier");
        config.transport = option == "switching" ? "tcp" : "rdma";
        // Any given is refused, the TCP defaults' names too (cubic, auto): RDMA has neither.
        config.tcp = option == "tcp" ? "cubic" : "";
        config.queueDisc = option == "queue" ? "auto" : "";
        config.switching = option == "switching" ? "cut-through" : "";
        ExpectRefused([&] { RunPacketAllReduce(plan, config); }, words);
    }
}

TEST(Rdma, AllReduceVerifiesExactlyOverRdmaInEveryModeWithoutADrop)
{
    const Topology topo = BuildTopology("bcube:n=3,k=1");
    for (const std::string scheduler : {"ring", "greedy"})
    {
        const Plan plan = CreateScheduler(scheduler)->MakePlan(topo, 1);
        for (const std::string mode : {"barrier", "async"})
        {
            PacketRunConfig config = test::SmallPacketRun(mode);
            config.transport = "rdma";
            const PacketRunReport run = RunPacketAllReduce(plan, config);
            EXPECT_TRUE(run.result.finished && run.verification.verified)
                << scheduler << " " << mode << ": " << run.verification.message;
            EXPECT_EQ(run.transport, "rdma");
            EXPECT_EQ(run.counters.droppedPackets, 0U) << scheduler << " " << mode;
        }
    }
}

TEST(Rdma, TheReportSaysWhatRanAndNothingItDidNotRun)
{
    const Plan plan = CreateScheduler("ring")->MakePlan(BuildTopology("bcube:n=2,k=1"), 1);
    PacketRunConfig config = test::SmallPacketRun("barrier");
    config.transport = "rdma";
    config.switching = "store-and-forward";
    std::ostringstream os;
    WritePacketReportJson(os, plan, config, RunPacketAllReduce(plan, config), "");
    const std::string json = os.str();
    EXPECT_NE(json.find("\"switching\": \"store-and-forward\""), std::string::npos) << json;
    EXPECT_EQ(json.find("\"tcp\""), std::string::npos) << json;
    EXPECT_EQ(json.find("\"queue_disc\""), std::string::npos) << json;
    config.transport = "tcp";
    config.switching = "";
    os.str("");
    WritePacketReportJson(os, plan, config, RunPacketAllReduce(plan, config), "");
    EXPECT_NE(os.str().find("\"tcp\": \"cubic\""), std::string::npos) << os.str();
    EXPECT_EQ(os.str().find("\"switching\""), std::string::npos) << os.str();
}

TEST(Rdma, AllReduceRecoversFromLossAndRoutesAroundAFailedLink)
{
    const Topology topo = BuildTopology("bcube:n=3,k=1");
    PacketRunConfig lossy = test::SmallPacketRun("async");
    lossy.transport = "rdma";
    lossy.loss = 0.02;
    const PacketRunReport run =
        RunPacketAllReduce(CreateScheduler("greedy")->MakePlan(topo, 1), lossy);
    EXPECT_TRUE(run.result.finished && run.verification.verified) << run.verification.message;
    EXPECT_GT(run.counters.droppedPackets, 0U); // go-back-N made up for them
    PacketRunConfig failing = test::SmallPacketRun("barrier");
    failing.transport = "rdma";
    failing.decisions = "online";
    failing.linkDowns.push_back(LinkDownEvent{4, 20e-6});
    const Ptr<AllReduceScheduler> greedy = CreateScheduler("greedy");
    const PacketRunReport rerouted = RunPacketAllReduce(greedy->MakePlan(topo, 1), failing, greedy);
    EXPECT_TRUE(rerouted.result.finished && rerouted.verification.verified)
        << rerouted.result.error;
    EXPECT_GT(rerouted.result.rerouted, 0U);
}
