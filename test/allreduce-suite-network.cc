/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's network cases: DcnTopologyHelper's ns-3 network (nodes, devices, addresses,
// FlowPathRouting's routes) carries packets exactly along the model's flow trees.

#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

using namespace ns3;
using namespace ns3::allreduce_suite;

namespace
{

/// Which nodes (model ids) transmitted and received each packet, by packet uid, in order.
struct HopLog
{
    std::map<uint64_t, std::vector<uint32_t>> tx;
    std::map<uint64_t, std::vector<uint32_t>> rx;
};

void
RecordTx(HopLog* log, uint32_t node, Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    log->tx[packet->GetUid()].push_back(node);
}

void
RecordRx(HopLog* log, uint32_t node, Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    log->rx[packet->GetUid()].push_back(node);
}

void
CountBytes(uint32_t* bytes, Ptr<Socket> socket)
{
    while (Ptr<Packet> p = socket->Recv())
    {
        *bytes += p->GetSize();
    }
}

/// Number of servers strictly between the ends of a path.
uint32_t
InnerServers(const Topology& t, const std::vector<uint32_t>& path)
{
    uint32_t n = 0;
    for (size_t i = 1; i + 1 < path.size(); ++i)
    {
        n += t.IsServer(path[i]) ? 1 : 0;
    }
    return n;
}

} // namespace

/**
 * \ingroup allreduce-tests
 * Sends UDP data both ways between two servers that are two server-hops apart and checks that
 * it arrives and that every packet visits exactly the nodes of the model's flow-tree path.
 */
class PacketFollowsFlowTreeTestCase : public TestCase
{
  public:
    /// \param spec the topology spec
    explicit PacketFollowsFlowTreeTestCase(const std::string& spec)
        : TestCase("network: packets between servers two server-hops apart follow the flow "
                   "tree, " +
                   spec),
          m_spec(spec)
    {
    }

  private:
    void DoRun() override
    {
        const Topology topology = BuildTopology(m_spec);
        DcnTopologyHelper dcn(topology);
        dcn.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("5us"));
        dcn.Install();
        const auto trees = BuildShortestPathTrees(topology);

        // The first pair (u, v) whose path has exactly one server in between.
        uint32_t u = 0;
        uint32_t v = 0;
        bool found = false;
        for (uint32_t a = 0; a < topology.GetNServers() && !found; ++a)
        {
            for (uint32_t b = 0; b < topology.GetNServers() && !found; ++b)
            {
                if (a != b && InnerServers(topology, trees[b].GetPathToRoot(a)) == 1 &&
                    InnerServers(topology, trees[a].GetPathToRoot(b)) == 1)
                {
                    u = a;
                    v = b;
                    found = true;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(found, true, "no two servers two server-hops apart in " << m_spec);

        HopLog log;
        for (uint32_t id = 0; id < topology.GetNNodes(); ++id)
        {
            Ptr<Ipv4L3Protocol> l3 = dcn.GetNode(id)->GetObject<Ipv4L3Protocol>();
            l3->TraceConnectWithoutContext("Tx", MakeBoundCallback(&RecordTx, &log, id));
            l3->TraceConnectWithoutContext("Rx", MakeBoundCallback(&RecordRx, &log, id));
        }

        const uint16_t port = 9;
        const uint32_t packets = 5;
        const uint32_t size = 1000;
        uint32_t received[2] = {0, 0};
        const uint32_t ends[2][2] = {{u, v}, {v, u}}; // (source, destination) per direction
        std::vector<Ptr<Socket>> sockets;
        for (uint32_t d = 0; d < 2; ++d)
        {
            const uint32_t src = ends[d][0];
            const uint32_t dst = ends[d][1];
            Ptr<Socket> sink =
                Socket::CreateSocket(dcn.GetServer(dst), UdpSocketFactory::GetTypeId());
            sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
            sink->SetRecvCallback(MakeBoundCallback(&CountBytes, &received[d]));
            Ptr<Socket> source =
                Socket::CreateSocket(dcn.GetServer(src), UdpSocketFactory::GetTypeId());
            source->Connect(InetSocketAddress(dcn.GetServerAddress(dst), port));
            for (uint32_t i = 0; i < packets; ++i)
            {
                Simulator::Schedule(MicroSeconds(100 * (i + 1)), [source, size]() {
                    source->Send(Create<Packet>(size));
                });
            }
            sockets.push_back(sink);
            sockets.push_back(source);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        for (uint32_t d = 0; d < 2; ++d)
        {
            const uint32_t src = ends[d][0];
            const uint32_t dst = ends[d][1];
            NS_TEST_ASSERT_MSG_EQ(received[d],
                                  packets * size,
                                  "server " << dst << " did not get all bytes from " << src);
            const auto path = trees[dst].GetPathToRoot(src);
            const std::vector<uint32_t> senders(path.begin(), path.end() - 1);
            const std::vector<uint32_t> receivers(path.begin() + 1, path.end());
            uint32_t checked = 0;
            for (const auto& [uid, nodes] : log.tx)
            {
                if (nodes.front() != src)
                {
                    continue; // the other direction's packet
                }
                ++checked;
                NS_TEST_ASSERT_MSG_EQ((nodes == senders), true,
                                      "packet " << uid << " was sent by other nodes than the "
                                                << "flow-tree path of " << src << " to " << dst);
                NS_TEST_ASSERT_MSG_EQ((log.rx[uid] == receivers), true,
                                      "packet " << uid << " was received by other nodes than the "
                                                << "flow-tree path of " << src << " to " << dst);
            }
            NS_TEST_ASSERT_MSG_EQ(checked, packets, "packets sent by " << src);
            NS_TEST_ASSERT_MSG_GT(path.size(), 3, "path " << src << "->" << dst << " too short");
        }
        Simulator::Destroy();
    }

    std::string m_spec; //!< topology spec
};

/**
 * \ingroup allreduce-tests
 * The helper makes one node per model node, one device per port, one address per device, and
 * the accessors return what the model says.
 */
class HelperStructureTestCase : public TestCase
{
  public:
    HelperStructureTestCase()
        : TestCase("network: DcnTopologyHelper builds one node per model node and one device "
                   "per port")
    {
    }

  private:
    void DoRun() override
    {
        const Topology topology = BuildTopology("fattree:k=4");
        DcnTopologyHelper dcn(topology);
        dcn.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("50p"));
        dcn.Install();
        NS_TEST_ASSERT_MSG_EQ(dcn.GetServers().GetN(), 16, "servers");
        NS_TEST_ASSERT_MSG_EQ(dcn.GetSwitches().GetN(), 20, "switches");
        NS_TEST_ASSERT_MSG_EQ(dcn.GetNodes().GetN(), 36, "nodes");
        std::set<uint32_t> addresses;
        for (uint32_t id = 0; id < topology.GetNNodes(); ++id)
        {
            Ptr<Node> node = dcn.GetNode(id);
            NS_TEST_ASSERT_MSG_EQ(dcn.GetModelId(node), id, "model id round trip");
            // Device 0 is the loopback.
            NS_TEST_ASSERT_MSG_EQ(node->GetNDevices(), topology.GetNPorts(id) + 1, "devices");
            for (uint32_t port = 0; port < topology.GetNPorts(id); ++port)
            {
                addresses.insert(dcn.GetPortAddress(id, port).Get());
            }
        }
        NS_TEST_ASSERT_MSG_EQ(addresses.size(), 2 * topology.GetNLinks(), "distinct addresses");
        const auto link = topology.GetLink(0);
        NetDeviceContainer devices = dcn.GetLinkDevices(0);
        NS_TEST_ASSERT_MSG_EQ(devices.Get(0)->GetNode(), dcn.GetNode(link.a), "link end a");
        NS_TEST_ASSERT_MSG_EQ(devices.Get(1)->GetNode(), dcn.GetNode(link.b), "link end b");
        Simulator::Destroy();
    }
};

/**
 * \ingroup allreduce-tests
 * A TCP bulk transfer between two servers several hops apart completes: data and
 * acknowledgements both find their way along the flow trees.
 */
class TcpTransferTestCase : public TestCase
{
  public:
    TcpTransferTestCase()
        : TestCase("network: a TCP bulk transfer across DCell(4,1) delivers every byte")
    {
    }

  private:
    void DoRun() override
    {
        const Topology topology = BuildTopology("dcell:n=4,k=1");
        DcnTopologyHelper dcn(topology);
        dcn.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("2us"));
        dcn.Install();
        const uint32_t src = 0;
        const uint32_t dst = topology.GetNServers() - 1; // the farthest DCell_0
        const uint32_t bytes = 200000;
        const uint16_t port = 5000;

        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sink = sinkHelper.Install(dcn.GetServer(dst));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(dcn.GetServerAddress(dst), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
        ApplicationContainer source = bulk.Install(dcn.GetServer(src));
        sink.Start(Seconds(0));
        source.Start(MilliSeconds(1));
        Simulator::Stop(Seconds(2));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx(),
                              bytes,
                              "bytes received by server " << dst << " from server " << src);
        Simulator::Destroy();
    }
};

/**
 * \ingroup allreduce-tests
 * Every node holds one flow-tree route per address of every other server, pointing at its
 * parent in that server's tree; a route through an interface that is down is not used.
 */
class RoutingTableTestCase : public TestCase
{
  public:
    RoutingTableTestCase()
        : TestCase("network: FlowPathRouting holds a route per server address via the tree "
                   "parent")
    {
    }

  private:
    void DoRun() override
    {
        const Topology topology = BuildTopology("bcube:n=3,k=1");
        DcnTopologyHelper dcn(topology);
        dcn.Install();
        const auto trees = BuildShortestPathTrees(topology);
        for (uint32_t node = 0; node < topology.GetNNodes(); ++node)
        {
            const uint32_t others = topology.GetNServers() - (topology.IsServer(node) ? 1 : 0);
            NS_TEST_ASSERT_MSG_EQ(dcn.GetRouting(node)->GetNRoutes(),
                                  others * 2,
                                  "routes on node " << node);
            for (uint32_t root = 0; root < topology.GetNServers(); ++root)
            {
                if (root == node)
                {
                    continue;
                }
                const uint32_t parent = trees[root].GetParent(node);
                for (uint32_t port = 0; port < 2; ++port)
                {
                    uint32_t iface = 0;
                    Ipv4Address gateway;
                    NS_TEST_ASSERT_MSG_EQ(dcn.GetRouting(node)->LookupHostRoute(
                                              dcn.GetPortAddress(root, port),
                                              iface,
                                              gateway),
                                          true,
                                          "no route");
                    const auto link = static_cast<uint32_t>(topology.FindLink(node, parent));
                    const auto& l = topology.GetLink(link);
                    const uint32_t parentPort =
                        std::find(topology.GetPortLinks(parent).begin(),
                                  topology.GetPortLinks(parent).end(),
                                  link) -
                        topology.GetPortLinks(parent).begin();
                    NS_TEST_ASSERT_MSG_EQ(gateway,
                                          dcn.GetPortAddress(parent, parentPort),
                                          "gateway of node " << node << " to root " << root);
                    NS_TEST_ASSERT_MSG_EQ(dcn.GetLinkDevices(link).Get(l.a == node ? 0 : 1),
                                          dcn.GetNode(node)->GetObject<Ipv4>()->GetNetDevice(
                                              iface),
                                          "interface of node " << node << " to root " << root);
                }
            }
        }

        // Take server 0's route to server 4 down: RouteOutput then finds no route.
        Ptr<Ipv4> ipv4 = dcn.GetServer(0)->GetObject<Ipv4>();
        uint32_t iface = 0;
        Ipv4Address gateway;
        dcn.GetRouting(0)->LookupHostRoute(dcn.GetServerAddress(4), iface, gateway);
        Ipv4Header header;
        header.SetDestination(dcn.GetServerAddress(4));
        Socket::SocketErrno error = Socket::ERROR_NOTERROR;
        NS_TEST_ASSERT_MSG_NE(dcn.GetRouting(0)->RouteOutput(Create<Packet>(), header, nullptr,
                                                             error),
                              nullptr,
                              "route while up");
        ipv4->SetDown(iface);
        NS_TEST_ASSERT_MSG_EQ(dcn.GetRouting(0)->RouteOutput(Create<Packet>(), header, nullptr,
                                                             error),
                              nullptr,
                              "route while down");
        NS_TEST_ASSERT_MSG_EQ(error, Socket::ERROR_NOROUTETOHOST, "error while down");
        Simulator::Destroy();
    }
};

Cases
ns3::allreduce_suite::MakeNetworkCases()
{
    return {new PacketFollowsFlowTreeTestCase("bcube:n=3,k=1"),
            new PacketFollowsFlowTreeTestCase("dcell:n=4,k=1"),
            new HelperStructureTestCase(),
            new TcpTransferTestCase(),
            new RoutingTableTestCase()};
}
