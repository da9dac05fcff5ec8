/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// AllReduce on a network you built yourself with ns-3's own helpers: no DCN topology of the
// module, just nodes, point-to-point links, the internet stack, addresses and global routing,
// as in any ns-3 script. The module reads that network (which nodes are linked to which),
// runs an AllReduce on the servers you name, and checks every sum exactly.
//
//   allreduce-your-network                          a dumbbell: 3 + 3 leaves, one bottleneck
//   allreduce-your-network --network=leaf-spine     3 leaves (ToR) x 2 servers, 2 spines
//   allreduce-your-network --routing=network       the network's own (global) routing
//   allreduce-your-network --network=leaf-spine --routing=network-ecmp   ... with ECMP per flow
//   allreduce-your-network --network=inet:contrib/allreduce/examples/two-pods.inet
//   allreduce-your-network --scheduler=greedy
//
// Exit status: 0 when every server ends with the exact sum, 1 for bad input, 2 otherwise.

#include "ns3/allreduce-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"

#include <iostream>
#include <set>
#include <stdexcept>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("AllReduceYourNetwork");

// A dumbbell from ns-3's point-to-point-layout: the six leaves are the servers.
NodeContainer
BuildDumbbell(InternetStackHelper& stack)
{
    PointToPointHelper leaf;
    leaf.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    leaf.SetChannelAttribute("Delay", StringValue("1us"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("20Gbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("5us"));
    PointToPointDumbbellHelper dumbbell(3, leaf, 3, leaf, bottleneck);
    dumbbell.InstallStack(stack);
    dumbbell.AssignIpv4Addresses(Ipv4AddressHelper("10.1.0.0", "255.255.255.0"),
                                 Ipv4AddressHelper("10.2.0.0", "255.255.255.0"),
                                 Ipv4AddressHelper("10.3.0.0", "255.255.255.0"));
    NodeContainer servers;
    for (uint32_t i = 0; i < 3; ++i)
    {
        servers.Add(dumbbell.GetLeft(i));
    }
    for (uint32_t i = 0; i < 3; ++i)
    {
        servers.Add(dumbbell.GetRight(i));
    }
    return servers;
}

// A leaf-spine wired by hand: every ToR to every spine, two servers under each ToR.
NodeContainer
BuildLeafSpine(InternetStackHelper& stack)
{
    NodeContainer servers(6);
    NodeContainer tors(3);
    NodeContainer spines(2);
    stack.Install(NodeContainer(servers, tors, spines));

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252"); // a /30 per link
    const auto link = [&](Ptr<Node> a, Ptr<Node> b) {
        addresses.Assign(p2p.Install(a, b));
        addresses.NewNetwork();
    };
    for (uint32_t s = 0; s < servers.GetN(); ++s)
    {
        link(servers.Get(s), tors.Get(s / 2));
    }
    for (uint32_t t = 0; t < tors.GetN(); ++t)
    {
        for (uint32_t p = 0; p < spines.GetN(); ++p)
        {
            link(tors.Get(t), spines.Get(p));
        }
    }
    return servers;
}

// A router-level graph from a file in a format of ns-3's topology-read module (Inet, Orbis,
// Rocketfuel), read by the module's checked reader and wired as ns-3's topology-read example
// does: a point-to-point link per link, and one server on every router.
NodeContainer
BuildFromFile(InternetStackHelper& stack, const std::string& format, const std::string& file)
{
    const RouterGraph graph = ReadRouterFile(file, format);
    for (const std::string& note : graph.notes)
    {
        std::cerr << "allreduce-your-network: note: " << note << "\n";
    }
    NodeContainer routers(graph.names.size());
    NodeContainer servers(graph.names.size());
    stack.Install(NodeContainer(routers, servers));
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    const auto link = [&](Ptr<Node> a, Ptr<Node> b) {
        addresses.Assign(p2p.Install(a, b));
        addresses.NewNetwork();
    };
    for (const auto& [a, b] : graph.links)
    {
        link(routers.Get(a), routers.Get(b));
    }
    for (uint32_t r = 0; r < routers.GetN(); ++r)
    {
        link(servers.Get(r), routers.Get(r));
    }
    return servers;
}

// The network --network names; returns its servers.
NodeContainer
BuildNetwork(InternetStackHelper& stack, const std::string& shape)
{
    const std::string format = shape.substr(0, shape.find(':'));
    if (shape == "dumbbell" || shape == "leaf-spine")
    {
        return shape == "dumbbell" ? BuildDumbbell(stack) : BuildLeafSpine(stack);
    }
    if (shape.find(':') == std::string::npos ||
        (format != "inet" && format != "orbis" && format != "rocketfuel"))
    {
        throw std::invalid_argument("--network must be dumbbell, leaf-spine, inet:FILE, "
                                    "orbis:FILE or rocketfuel:FILE, got '" + shape + "'");
    }
    return BuildFromFile(stack, format, shape.substr(format.size() + 1));
}

// ns-3's global routing tables, with a line every 10 s once they have taken 10 s: on a
// network of thousands of nodes they take minutes.
void
PopulateRoutingTables()
{
    RunWithHeartbeat(std::cerr,
                     "allreduce-your-network",
                     "ns-3's global routing tables for " + std::to_string(NodeList::GetNNodes()) +
                         " nodes",
                     [] { Ipv4GlobalRoutingHelper::PopulateRoutingTables(); });
}

// The paths the AllReduce's transfers took, in ns-3 node ids (a>b>c), each once; how many
// transfers took the path their workload was scheduled on; and the rounds at flow level on
// the paths taken.
void
PrintPaths(const DcnTopologyHelper& network,
           const AllReduceHelper& allreduce,
           const std::string& scheduler)
{
    const WorkloadSet& workloads = allreduce.GetController()->GetWorkloads();
    std::set<std::vector<uint32_t>> paths;
    uint32_t predicted = 0;
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const std::vector<uint32_t> taken = allreduce.GetTakenPath(w); // read in ns-3
        predicted += taken == workloads.Get(w).path;
        if (taken.empty())
        {
            continue; // no packet of it was seen
        }
        std::vector<uint32_t> nodes;
        for (uint32_t id : taken)
        {
            nodes.push_back(network.GetNode(id)->GetId());
        }
        paths.insert(nodes);
    }
    std::cout << "paths taken (ns-3 node ids), " << paths.size() << ":";
    size_t shown = 0;
    for (const auto& path : paths)
    {
        if (shown++ == 40) // a large network takes thousands
        {
            std::cout << ", ... (" << paths.size() - 40 << " more)";
            break;
        }
        std::cout << (shown == 1 ? " " : ", ");
        for (size_t i = 0; i < path.size(); ++i)
        {
            std::cout << (i == 0 ? "" : ">") << path[i];
        }
    }
    std::cout << "\n";
    if (network.UsesNetworkRouting()) // read from the simulation (the module's routes pin them)
    {
        std::cout << predicted << " of " << workloads.GetN()
                  << " transfers took the path they were scheduled on\n";
    }
    const Schedule flow = RunRounds(*CreateScheduler(scheduler), allreduce.GetTakenWorkloads());
    std::cout << "flow level on the paths taken: " << flow.GetNRounds() << " rounds\n";
}

int
main(int argc, char* argv[])
{
    std::string shape = "dumbbell";
    std::string scheduler = "balanced";
    std::string routing = "module";
    CommandLine cmd(__FILE__);
    cmd.AddValue("network",
                 "dumbbell, leaf-spine, or a router file in a format of ns-3's topology-read: "
                 "inet:FILE, orbis:FILE, rocketfuel:FILE (doc/allreduce.rst)",
                 shape);
    cmd.AddValue("routing",
                 "module (routes per workload), network (your global routing) or network-ecmp "
                 "(global routing with ECMP per flow)",
                 routing);
    cmd.AddValue("scheduler", "ps, ring, greedy, balanced, drl (with LibTorch), ...", scheduler);
    try
    {
        ParseCheckedCommandLine(cmd, argc, argv, {"ns3::AllReduceController::GradientBytes"});
        if (routing != "module" && routing != "network" && routing != "network-ecmp")
        {
            throw std::invalid_argument("--routing must be module, network or network-ecmp, "
                                        "got '" + routing + "'");
        }
        // 1. Your network, with plain ns-3 helpers; your routing for everything else. With
        //    ECMP per flow, FlowEcmpRouting hashes each flow onto one of global routing's
        //    equal-cost next hops.
        InternetStackHelper stack;
        if (routing == "network-ecmp")
        {
            Ipv4ListRoutingHelper list;
            list.Add(Ipv4StaticRoutingHelper(), 0);
            list.Add(FlowEcmpRoutingHelper(), -5);
            list.Add(Ipv4GlobalRoutingHelper(), -10);
            stack.SetRoutingHelper(list);
        }
        NodeContainer servers = BuildNetwork(stack, shape);

        // 2. The module reads it: the servers you name, the switches it finds over
        //    point-to-point channels. Either the AllReduce's transfers get routes of their
        //    own, added beside yours (nothing of yours is removed), or they follow your
        //    routing, and the module reads the paths they take from the simulation.
        DcnTopologyHelper network(servers);
        if (routing == "module")
        {
            network.InstallWorkloadRoutes(); // the module's routes, beside yours
        }
        else
        {
            network.UseNetworkRouting();
        }
        const Topology& topology = network.GetTopology();
        std::cout << shape << ": " << topology.GetNServers() << " servers, "
                  << topology.GetNSwitches() << " switches, " << topology.GetNLinks()
                  << " links, " << scheduler << ", " << routing << " routing\n";

        // 3. The AllReduce, as on any network of the module: 256 KiB per server.
        AllReduceHelper allreduce(network);
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(256 << 10));
        // A long run says how far it got on stderr (a line per 10 s at most).
        allreduce.EnableProgress(std::cerr, "allreduce-your-network");
        // Your routing tables (ns-3's global routing), which Install checks when the
        // AllReduce follows them; otherwise filled once Install has checked that the
        // AllReduce fits in memory (on thousands of nodes they take minutes).
        if (routing != "module")
        {
            PopulateRoutingTables();
        }
        allreduce.Install(CreateScheduler(scheduler));
        if (routing == "module")
        {
            PopulateRoutingTables();
        }
        Simulator::Run();

        Ptr<AllReduceController> controller = allreduce.GetController();
        const AllReduceRunResult& result = controller->GetResult();
        const AllReduceVerification verification = controller->Verify();
        std::cout << "rounds      " << controller->GetSchedule().GetNRounds() << "\n"
                  << "completion  " << result.completionTime * 1e3 << " ms"
                  << (result.finished ? "" : " (did not finish: " + result.error + ")") << "\n";
        PrintPaths(network, allreduce, scheduler);
        std::cout << verification.message << "\n";
        Simulator::Destroy();
        return result.finished && verification.verified ? 0 : 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-your-network: error: " << DescribeError(e) << "\n";
        Simulator::Destroy();
        return 1;
    }
}
