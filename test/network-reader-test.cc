/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// AllReduce on a network the user built with ns-3's own helpers: P2pNetworkReader reads it
// into a Topology, DcnTopologyHelper takes it without changing it, and bad networks are
// refused with an error that names the ns-3 node.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/csma-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A star by hand: `servers` servers around one switch (created last), /30 per link.
struct Star
{
    NodeContainer servers;
    NodeContainer hub;
    std::vector<NetDeviceContainer> links;

    explicit Star(uint32_t n,
                  bool stack = true,
                  bool addresses = true,
                  const char* base = "10.0.0.0")
    {
        servers.Create(n);
        hub.Create(1);
        if (stack)
        {
            InternetStackHelper().Install(NodeContainer(servers, hub));
        }
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        Ipv4AddressHelper ip(base, "255.255.255.252");
        for (uint32_t s = 0; s < n; ++s)
        {
            links.push_back(p2p.Install(servers.Get(s), hub.Get(0)));
            if (addresses)
            {
                ip.Assign(links.back());
                ip.NewNetwork();
            }
        }
    }

    ~Star()
    {
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset(); // the next test may use the same addresses
    }
};

using test::ExpectRefused;

} // namespace

TEST(P2pNetworkReader, ReadsTheServersNamedAndFindsTheSwitches)
{
    Star star(3);
    const P2pNetworkReader::Network network = P2pNetworkReader().Read(star.servers);
    EXPECT_EQ(network.topology.GetNServers(), 3U);
    EXPECT_EQ(network.topology.GetNSwitches(), 1U);
    EXPECT_EQ(network.topology.GetNLinks(), 3U);
    // Server i is the node named i-th; the switch comes after them.
    EXPECT_EQ(network.nodes.Get(1), star.servers.Get(1));
    EXPECT_EQ(network.nodes.Get(3), star.hub.Get(0));
    // Each link's devices and addresses are the user's, end a the lower model id.
    EXPECT_EQ(network.links[2].Get(0), star.links[2].Get(0));
    EXPECT_EQ(network.interfaces[0].GetAddress(0), Ipv4Address("10.0.0.1"));
    EXPECT_EQ(network.interfaces[0].GetAddress(1), Ipv4Address("10.0.0.2"));
}

TEST(P2pNetworkReader, ServerOrderIsTheOrderNamed)
{
    Star star(3);
    NodeContainer reversed(star.servers.Get(2), star.servers.Get(1), star.servers.Get(0));
    DcnTopologyHelper network(reversed);
    EXPECT_EQ(network.GetServer(0), star.servers.Get(2));
    EXPECT_EQ(network.GetServerAddress(0), Ipv4Address("10.0.0.9"));
    EXPECT_EQ(network.GetModelId(star.hub.Get(0)), 3U);
}

TEST(P2pNetworkReader, RefusesBadNetworksNamingTheNode)
{
    {
        Star star(2);
        NodeContainer twice(star.servers, star.servers.Get(0));
        ExpectRefused([&] { P2pNetworkReader().Read(twice); },
                      "is named twice, as server 0 and as server 2");
        ExpectRefused([&] { P2pNetworkReader().Read(star.servers, star.servers.Get(1)); },
                      "is named twice, as server 1 and as switch 0");
        ExpectRefused([&] { P2pNetworkReader().Read(NodeContainer()); }, "no servers named");
    }
    {
        // A second star that no link joins to the first.
        Star left(2);
        Star right(2, true, true, "10.1.0.0");
        NodeContainer both(left.servers, right.servers);
        ExpectRefused([&] { P2pNetworkReader().Read(both); },
                      "the network is not connected: server 2 (ns-3 node " +
                          std::to_string(right.servers.Get(0)->GetId()) + ")");
    }
    {
        Star star(2);
        Ptr<Node> lan = CreateObject<Node>();
        InternetStackHelper().Install(lan);
        CsmaHelper().Install(NodeContainer(lan, star.hub.Get(0)));
        ExpectRefused([&] { P2pNetworkReader().Read(NodeContainer(star.servers, lan)); },
                      "(server 2) has no point-to-point link to the network (its devices: "
                      "ns3::LoopbackNetDevice, ns3::CsmaNetDevice)");
    }
}

TEST(P2pNetworkReader, RefusesAnAddressPlanThatLeavesAServerUnreachable)
{
    {
        Star star(2, false, false);
        ExpectRefused([&] { P2pNetworkReader().Read(star.servers); },
                      "has no internet stack: install one");
    }
    {
        Star star(2, true, false);
        ExpectRefused([&] { P2pNetworkReader().Read(star.servers); },
                      "has no IPv4 address on its point-to-point device 1 (the link to ns-3 "
                      "node " + std::to_string(star.hub.Get(0)->GetId()) + ")");
    }
    {
        Star star(2, true, false);
        Ipv4AddressHelper ip("10.0.0.0", "255.255.255.0");
        ip.Assign(star.links[0]);
        ip.NewNetwork();
        Ptr<Ipv4> server = star.servers.Get(1)->GetObject<Ipv4>();
        Ptr<Ipv4> hub = star.hub.Get(0)->GetObject<Ipv4>();
        const int32_t a = server->AddInterface(star.links[1].Get(0));
        const int32_t b = hub->AddInterface(star.links[1].Get(1));
        server->AddAddress(a, Ipv4InterfaceAddress("10.0.1.1", "255.255.255.0"));
        hub->AddAddress(b, Ipv4InterfaceAddress("10.0.2.1", "255.255.255.0"));
        ExpectRefused([&] { P2pNetworkReader().Read(star.servers); },
                      "has addresses 10.0.1.1/24 and 10.0.2.1/24, not in one subnet");
    }
    {
        Star star(2, true, false);
        Ipv4AddressHelper ip("10.0.0.0", "255.255.255.0");
        ip.Assign(star.links[0]);
        // The second link's server end takes the first link's server address again.
        Ptr<Ipv4> server = star.servers.Get(1)->GetObject<Ipv4>();
        Ptr<Ipv4> hub = star.hub.Get(0)->GetObject<Ipv4>();
        const int32_t a = server->AddInterface(star.links[1].Get(0));
        const int32_t b = hub->AddInterface(star.links[1].Get(1));
        server->AddAddress(a, Ipv4InterfaceAddress("10.0.0.1", "255.255.255.0"));
        hub->AddAddress(b, Ipv4InterfaceAddress("10.0.0.3", "255.255.255.0"));
        ExpectRefused([&] { P2pNetworkReader().Read(star.servers); },
                      "both have address 10.0.0.1; every address must be unique");
    }
}

TEST(P2pNetworkReader, RefusesTwoLinksBetweenOnePair)
{
    Star star(2);
    NetDeviceContainer again = PointToPointHelper().Install(star.servers.Get(0), star.hub.Get(0));
    Ipv4AddressHelper("10.9.0.0", "255.255.255.252").Assign(again);
    ExpectRefused([&] { P2pNetworkReader().Read(star.servers); },
                  "are joined by two point-to-point links");
}

TEST(P2pNetworkReader, TheHelperLeavesTheUsersNetworkAlone)
{
    Star star(3);
    DcnTopologyHelper network(star.servers);
    EXPECT_TRUE(network.IsReadNetwork());
    for (const auto& refuse : std::vector<std::function<void()>>{
             [&] { network.Install(); },
             [&] { network.CreateNodesAndLinks(); },
             [&] { network.AssignIpv4Addresses(); },
             [&] { network.SetDeviceAttribute("DataRate", StringValue("1Gbps")); },
             [&] { network.SetTcpCongestionControl("ns3::TcpNewReno"); },
             [&] { network.DisableTrafficControl(); }})
    {
        EXPECT_THROW(refuse(), std::logic_error);
    }
    // The module's routing goes beside the user's: static and global routing stay.
    network.InstallWorkloadRoutes();
    Ptr<Ipv4ListRouting> list =
        DynamicCast<Ipv4ListRouting>(star.hub.Get(0)->GetObject<Ipv4>()->GetRoutingProtocol());
    ASSERT_TRUE(list);
    EXPECT_EQ(list->GetNRoutingProtocols(), 3U);
    int16_t priority = 0;
    EXPECT_TRUE(DynamicCast<FlowPathRouting>(list->GetRoutingProtocol(0, priority)));
    EXPECT_EQ(priority, DcnTopologyHelper::FLOW_PATH_ROUTING_PRIORITY);
    // A generated network has no use for InstallWorkloadRoutes.
    DcnTopologyHelper generated(BuildTopology("bcube:n=2,k=1"));
    EXPECT_THROW(generated.InstallWorkloadRoutes(), std::logic_error);
}

TEST(P2pNetworkReader, AnAllReduceOnTheUsersNetworkVerifiesExactly)
{
    Star star(4);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    DcnTopologyHelper network(star.servers);
    network.InstallWorkloadRoutes();
    AllReduceHelper allreduce(network);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(64 << 10));
    allreduce.Install(CreateScheduler("ring"));
    Simulator::Run();
    EXPECT_TRUE(allreduce.GetController()->GetResult().finished)
        << allreduce.GetController()->GetResult().error;
    const AllReduceVerification verification = allreduce.GetController()->Verify();
    EXPECT_TRUE(verification.verified) << verification.message;
}

TEST(P2pNetworkReader, TheNetworksOwnRoutingCarriesTheTransfersAndThePathsAreRead)
{
    Star star(4);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    DcnTopologyHelper network(star.servers);
    network.UseNetworkRouting();
    EXPECT_THROW(network.InstallWorkloadRoutes(), std::logic_error);
    EXPECT_EQ(network.GetNetworkPath(0, 3), (std::vector<uint32_t>{0, 4, 3}));
    AllReduceHelper allreduce(network);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(64 << 10));
    const Ptr<AllReduceScheduler> greedy = CreateScheduler("greedy");
    // A plan's schedule was made for its own paths: refused, before anything is installed.
    ExpectRefused([&] { allreduce.Install(greedy->MakePlan(network.GetTopology(), 1)); },
                  "the network uses its own routing (UseNetworkRouting): a plan's schedule");
    allreduce.Install(greedy);
    Simulator::Run();
    Ptr<AllReduceController> controller = allreduce.GetController();
    EXPECT_TRUE(controller->GetResult().finished) << controller->GetResult().error;
    EXPECT_TRUE(controller->Verify().verified) << controller->Verify().message;
    // No route of the module: every transfer's path is read from the simulation, and it is
    // the one the routing tables gave its workload.
    EXPECT_EQ(network.GetNode(0)->GetObject<Ipv4>()->GetRoutingProtocol()->GetInstanceTypeId(),
              Ipv4ListRouting::GetTypeId());
    ASSERT_TRUE(allreduce.GetPathRecorder());
    for (uint32_t w = 0; w < controller->GetWorkloads().GetN(); ++w)
    {
        const Workload& workload = controller->GetWorkloads().Get(w);
        EXPECT_EQ(allreduce.GetTakenPath(w), workload.path) << "workload " << w;
        EXPECT_EQ(workload.path.size(), 3U);
    }
}

TEST(P2pNetworkReader, ANetworkWithoutRoutesIsRefusedNamingTheNode)
{
    Star star(2);
    DcnTopologyHelper network(star.servers); // no PopulateRoutingTables
    network.UseNetworkRouting();
    ExpectRefused([&] { network.GetNetworkPath(0, 1); },
                  "the network's routing has no route from server 0 (10.0.0.1) to server 1 "
                  "(10.0.0.5) at ns-3 node " +
                      std::to_string(star.servers.Get(0)->GetId()));
    AllReduceHelper allreduce(network);
    ExpectRefused([&] { allreduce.Install(CreateScheduler("ring")); }, "has no route");
}

TEST(P2pNetworkReader, AnInstallWithoutARoutingChoiceIsRefused)
{
    Star star(2);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    DcnTopologyHelper network(star.servers);
    AllReduceHelper allreduce(network);
    ExpectRefused([&] { allreduce.Install(CreateScheduler("ring")); },
                  "the network you built has no routes chosen for the AllReduce: call "
                  "InstallWorkloadRoutes()");
}

TEST(P2pNetworkReader, AServerLinkedOnlyToNodesNotNamedSaysWhichToName)
{
    Star star(2);
    ExpectRefused([&] { P2pNetworkReader().Read(star.servers, NodeContainer()); },
                  "(server 0) has no point-to-point link to the network: its links go to ns-3 "
                  "node " + std::to_string(star.hub.Get(0)->GetId()) +
                      ", which are not named as switches; name them too");
}

TEST(P2pNetworkReader, ARecorderGoneBeforeTheRunLeavesTheDevicesTracesAlone)
{
    // A recorder listens to every link's devices; when the last reference to it goes before
    // the packets flow, it must leave their traces (ASan, in CI, sees a call into freed memory).
    Star star(3);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    DcnTopologyHelper network(star.servers);
    network.UseNetworkRouting();
    std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> links;
    for (uint32_t link = 0; link < network.GetTopology().GetNLinks(); ++link)
    {
        links.emplace_back(network.GetLinkDevices(link).Get(0), network.GetLinkDevices(link).Get(1));
    }
    {
        Ptr<PathRecorder> gone = CreateObject<PathRecorder>();
        gone->Watch(network.GetTopology(), links);
        EXPECT_THROW(gone->Watch(network.GetTopology(), links), std::logic_error);
    }
    AllReduceHelper allreduce(network);
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(64 << 10));
    allreduce.Install(CreateScheduler("ring"));
    Simulator::Run();
    EXPECT_TRUE(allreduce.GetController()->Verify().verified);
    // This Install's own recorder, kept by its controller, saw every transfer.
    EXPECT_GT(allreduce.GetPathRecorder()->GetNFlows(), 0U);
}
