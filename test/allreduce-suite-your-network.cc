/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// TestSuite cases: AllReduce on a network the user built with ns-3's own helpers
// (doc/allreduce.rst, "AllReduce on your own network").

#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"

#include <set>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::allreduce_suite;

namespace
{

/// Which routes carry the AllReduce.
enum class Routing
{
    MODULE,      //!< the module's, beside the user's (InstallWorkloadRoutes)
    GLOBAL,      //!< the user's global routing (UseNetworkRouting)
    ECMP_PER_FLOW //!< the user's global routing with FlowEcmpRouting
};

/// \return a name for the case \param routing the routing
std::string
Describe(Routing routing)
{
    return routing == Routing::MODULE   ? "the module's routes"
           : routing == Routing::GLOBAL ? "global routing"
                                        : "global routing with ECMP per flow";
}

/**
 * A leaf-spine wired by hand with ns-3's helpers (2 ToRs with 2 servers each, 2 spines), read
 * by DcnTopologyHelper, an AllReduce on it: exact sums, and the paths the transfers took.
 */
class YourNetworkTestCase : public TestCase
{
  public:
    /// \param routing which routes carry the AllReduce
    explicit YourNetworkTestCase(Routing routing)
        : TestCase("your network: a leaf-spine built with ns-3's helpers, " + Describe(routing)),
          m_routing(routing)
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer servers(4);
        NodeContainer tors(2);
        NodeContainer spines(2);
        InternetStackHelper stack;
        if (m_routing == Routing::ECMP_PER_FLOW)
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
        for (uint32_t s = 0; s < 4; ++s)
        {
            ip.Assign(p2p.Install(servers.Get(s), tors.Get(s / 2)));
            ip.NewNetwork();
        }
        for (uint32_t t = 0; t < 2; ++t)
        {
            for (uint32_t p = 0; p < 2; ++p)
            {
                ip.Assign(p2p.Install(tors.Get(t), spines.Get(p)));
                ip.NewNetwork();
            }
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();

        DcnTopologyHelper network(servers);
        NS_TEST_ASSERT_MSG_EQ(network.GetTopology().GetNSwitches(), 4, "the ToRs and spines");
        NS_TEST_ASSERT_MSG_EQ(network.GetTopology().GetNLinks(), 8, "4 server links, 4 uplinks");
        if (m_routing == Routing::MODULE)
        {
            network.InstallWorkloadRoutes();
        }
        else
        {
            network.UseNetworkRouting();
        }
        AllReduceHelper allreduce(network);
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(64 << 10));
        allreduce.Install(CreateScheduler("balanced"));
        Simulator::Run();

        Ptr<AllReduceController> controller = allreduce.GetController();
        NS_TEST_ASSERT_MSG_EQ(controller->GetResult().finished,
                              true,
                              controller->GetResult().error);
        NS_TEST_ASSERT_MSG_EQ(controller->Verify().verified, true, controller->Verify().message);
        NS_TEST_ASSERT_MSG_EQ(bool(allreduce.GetPathRecorder()),
                              (m_routing != Routing::MODULE),
                              "paths are read from the simulation with the network's routing");
        std::set<uint32_t> spinesUsed;
        uint32_t onItsPath = 0;
        for (uint32_t w = 0; w < controller->GetWorkloads().GetN(); ++w)
        {
            const Workload& workload = controller->GetWorkloads().Get(w);
            const std::vector<uint32_t> taken = allreduce.GetTakenPath(w);
            NS_TEST_ASSERT_MSG_EQ((taken.size() >= 3), true, "workload " << w << " was seen");
            NS_TEST_ASSERT_MSG_EQ(taken.front(), workload.src, "workload " << w);
            NS_TEST_ASSERT_MSG_EQ(taken.back(), workload.dst, "workload " << w);
            onItsPath += (taken == workload.path);
            if (taken.size() == 5)
            {
                spinesUsed.insert(taken[2]);
            }
        }
        if (m_routing == Routing::GLOBAL)
        {
            // Global routing takes the first of the equal-cost next hops: one spine, and
            // every transfer where the routing tables said.
            NS_TEST_ASSERT_MSG_EQ(spinesUsed.size(), 1, "spines used with global routing");
            NS_TEST_ASSERT_MSG_EQ(onItsPath, controller->GetWorkloads().GetN(), "paths taken");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(spinesUsed.size(), 2, "spines used: " << Describe(m_routing));
        }
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
    }

    Routing m_routing; //!< which routes carry the AllReduce
};

/// A network the module cannot take is refused, naming the ns-3 node.
class YourNetworkRefusedTestCase : public TestCase
{
  public:
    YourNetworkRefusedTestCase()
        : TestCase("your network: a server named twice, and one without an address, refused")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer servers(2);
        NodeContainer hub(1);
        InternetStackHelper().Install(NodeContainer(servers, hub));
        PointToPointHelper p2p;
        Ipv4AddressHelper ip("10.0.0.0", "255.255.255.252");
        ip.Assign(p2p.Install(servers.Get(0), hub.Get(0)));
        p2p.Install(servers.Get(1), hub.Get(0)); // no address
        const std::string twice = ErrorOf([&] {
            DcnTopologyHelper network(NodeContainer(servers, servers.Get(0)));
        });
        NS_TEST_ASSERT_MSG_EQ(Mentions(twice, "is named twice, as server 0 and as server 2"),
                              true,
                              twice);
        const std::string address = ErrorOf([&] { DcnTopologyHelper network(servers); });
        NS_TEST_ASSERT_MSG_EQ(Mentions(address, "has no IPv4 address on its point-to-point device"),
                              true,
                              address);
        Simulator::Destroy();
        Ipv4AddressGenerator::Reset();
    }
};

} // namespace

Cases
ns3::allreduce_suite::MakeYourNetworkCases()
{
    return {new YourNetworkTestCase(Routing::MODULE),
            new YourNetworkTestCase(Routing::GLOBAL),
            new YourNetworkTestCase(Routing::ECMP_PER_FLOW),
            new YourNetworkRefusedTestCase()};
}
