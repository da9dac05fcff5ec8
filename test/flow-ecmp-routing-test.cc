/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ECMP per flow over ns-3's global routing (FlowEcmpRouting), and the paths the simulation's
// packets take read back (PathRecorder) when the network's own routing carries an AllReduce.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// Two ToR switches with two servers each, both ToRs linked to both spines: between servers
/// under different ToRs there are two equal-cost paths.
struct LeafSpine
{
    NodeContainer servers{4};
    NodeContainer tors{2};
    NodeContainer spines{2};

    /// \param ecmp put FlowEcmpRouting above global routing \param random per-packet ECMP
    LeafSpine(bool ecmp, bool random = false)
    {
        Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(random));
        InternetStackHelper stack;
        if (ecmp)
        {
            Ipv4ListRoutingHelper list;
            list.Add(Ipv4StaticRoutingHelper(), 0);
            list.Add(FlowEcmpRoutingHelper(), -5);
            list.Add(Ipv4GlobalRoutingHelper(), -10);
            stack.SetRoutingHelper(list);
        }
        stack.Install(NodeContainer(servers, tors, spines));
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        Ipv4AddressHelper ip("10.0.0.0", "255.255.255.252");
        const auto link = [&](Ptr<Node> a, Ptr<Node> b) {
            ip.Assign(p2p.Install(a, b));
            ip.NewNetwork();
        };
        for (uint32_t s = 0; s < 4; ++s)
        {
            link(servers.Get(s), tors.Get(s / 2));
        }
        for (uint32_t t = 0; t < 2; ++t)
        {
            for (uint32_t p = 0; p < 2; ++p)
            {
                link(tors.Get(t), spines.Get(p));
            }
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    ~LeafSpine()
    {
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
        Config::Reset();
    }
};

/// An AllReduce (greedy, 256 KiB) run on a network with the network's own routing.
struct OwnRoutingRun
{
    DcnTopologyHelper network;
    AllReduceHelper allreduce;

    explicit OwnRoutingRun(const LeafSpine& net)
        : network(net.servers),
          allreduce(network)
    {
        network.UseNetworkRouting();
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(256 << 10));
        allreduce.Install(CreateScheduler("greedy"));
        Simulator::Run();
    }
};

} // namespace

TEST(FlowEcmpRouting, EveryFlowTakesOnePathAndFlowsSpreadOverTheEqualCostOnes)
{
    LeafSpine net(true);
    DcnTopologyHelper network(net.servers);
    network.UseNetworkRouting();
    // Server 0 to server 2 (under the other ToR): through either spine (model ids 6, 7),
    // always the same one for one flow, both over many flows.
    std::set<uint32_t> spines;
    for (uint16_t port = 49152; port < 49152 + 64; ++port)
    {
        const std::vector<uint32_t> path = network.GetNetworkPath(0, 2, port, 5000);
        ASSERT_EQ(path.size(), 5U);
        EXPECT_EQ(path, network.GetNetworkPath(0, 2, port, 5000));
        spines.insert(path[2]);
    }
    EXPECT_EQ(spines, (std::set<uint32_t>{6, 7}));
    // Under one ToR there is one shortest path.
    EXPECT_EQ(network.GetNetworkPath(0, 1, 49152, 5000), (std::vector<uint32_t>{0, 4, 1}));
}

TEST(FlowEcmpRouting, AnAllReduceOverItVerifiesAndNoFlowIsSplit)
{
    LeafSpine net(true);
    OwnRoutingRun run(net);
    Ptr<AllReduceController> controller = run.allreduce.GetController();
    ASSERT_TRUE(controller->GetResult().finished) << controller->GetResult().error;
    EXPECT_TRUE(controller->Verify().verified) << controller->Verify().message;
    Ptr<PathRecorder> paths = run.allreduce.GetPathRecorder();
    ASSERT_TRUE(paths);
    std::set<uint32_t> spines;
    for (uint32_t w = 0; w < controller->GetWorkloads().GetN(); ++w)
    {
        const Workload& workload = controller->GetWorkloads().Get(w);
        const std::vector<uint32_t> taken = run.allreduce.GetTakenPath(w);
        ASSERT_FALSE(taken.empty()) << "workload " << w;
        EXPECT_EQ(taken.front(), workload.src);
        EXPECT_EQ(taken.back(), workload.dst);
        if (taken.size() == 5)
        {
            spines.insert(taken[2]);
        }
        EXPECT_FALSE(paths->IsSplit({controller->GetAddress(workload.src),
                                     controller->GetSourcePort(w),
                                     controller->GetAddress(workload.dst),
                                     controller->GetApplication(workload.dst)->GetPort()}));
    }
    EXPECT_EQ(spines.size(), 2U) << "the flows between ToRs should use both spines";
    // The flow-level model of what happened: the workloads on the paths taken.
    const WorkloadSet taken = run.allreduce.GetTakenWorkloads();
    for (uint32_t w = 0; w < taken.GetN(); ++w)
    {
        EXPECT_EQ(taken.Get(w).path, run.allreduce.GetTakenPath(w));
    }
}

TEST(FlowEcmpRouting, PerPacketEcmpSplitsFlowsAndTheRecorderSaysSo)
{
    LeafSpine net(false, true); // global routing's RandomEcmpRouting: one draw per packet
    OwnRoutingRun run(net);
    Ptr<AllReduceController> controller = run.allreduce.GetController();
    Ptr<PathRecorder> paths = run.allreduce.GetPathRecorder();
    uint32_t split = 0;
    for (uint32_t w = 0; w < controller->GetWorkloads().GetN(); ++w)
    {
        const Workload& workload = controller->GetWorkloads().Get(w);
        split += paths->IsSplit({controller->GetAddress(workload.src),
                                 controller->GetSourcePort(w),
                                 controller->GetAddress(workload.dst),
                                 controller->GetApplication(workload.dst)->GetPort()});
    }
    EXPECT_GT(split, 0U);
    EXPECT_TRUE(controller->Verify().verified) << controller->Verify().message;
}
