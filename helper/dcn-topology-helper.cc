/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dcn-topology-helper.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/lossless-channel.h"
#include "ns3/lossless-net-device.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/queue.h"
#include "ns3/rdma-helper.h"
#include "ns3/shared-buffer.h"
#include "ns3/size-limits.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcnTopologyHelper");

DcnTopologyHelper::DcnTopologyHelper(const Topology& topology)
    : m_topology(topology)
{
    m_topology.Validate();
    m_trafficControl.SetRootQueueDisc("ns3::FqCoDelQueueDisc");
    m_trafficControl.SetQueueLimits("ns3::DynamicQueueLimits");
}

DcnTopologyHelper::DcnTopologyHelper(const NodeContainer& servers)
{
    Adopt(P2pNetworkReader().Read(servers));
}

DcnTopologyHelper::DcnTopologyHelper(const NodeContainer& servers, const NodeContainer& switches)
{
    Adopt(P2pNetworkReader().Read(servers, switches));
}

void
DcnTopologyHelper::Adopt(P2pNetworkReader::Network network)
{
    m_topology = std::move(network.topology);
    m_nodes = network.nodes;
    m_links = std::move(network.links);
    m_interfaces = std::move(network.interfaces);
    for (uint32_t id = 0; id < m_nodes.GetN(); ++id)
    {
        m_modelId[m_nodes.Get(id)->GetId()] = id;
    }
    m_stackInstalled = true;
    m_read = true;
}

bool
DcnTopologyHelper::IsReadNetwork() const
{
    return m_read;
}

void
DcnTopologyHelper::RefuseOnReadNetwork(const std::string& step) const
{
    if (m_read)
    {
        throw std::logic_error("DcnTopologyHelper::" + step +
                               ": this helper took a network you built, whose nodes, links, "
                               "stack and addresses stay yours; set it with your own ns-3 "
                               "helpers, and choose the AllReduce's routes with "
                               "InstallWorkloadRoutes() or UseNetworkRouting()");
    }
}

void
DcnTopologyHelper::InstallWorkloadRoutes()
{
    if (!m_read)
    {
        throw std::logic_error("DcnTopologyHelper::InstallWorkloadRoutes is for a network you "
                               "built (the constructors taking nodes); this helper builds its "
                               "own: use Install() or InstallFlowTreeRoutes()");
    }
    if (m_networkRouting)
    {
        throw std::logic_error("DcnTopologyHelper::InstallWorkloadRoutes: UseNetworkRouting ran "
                               "already; choose one of the two");
    }
    InstallFlowTreeRoutes(std::vector<FlowTree>{});
}

void
DcnTopologyHelper::UseNetworkRouting()
{
    if (!m_read)
    {
        throw std::logic_error("DcnTopologyHelper::UseNetworkRouting is for a network you built "
                               "(the constructors taking nodes); this helper builds its own, "
                               "with routes along the flow trees");
    }
    if (!m_routing.empty())
    {
        throw std::logic_error("DcnTopologyHelper::UseNetworkRouting: InstallWorkloadRoutes ran "
                               "already; choose one of the two");
    }
    m_networkRouting = true;
}

bool
DcnTopologyHelper::UsesNetworkRouting() const
{
    return m_networkRouting;
}

bool
DcnTopologyHelper::HasModuleRouting() const
{
    return !m_routing.empty();
}

std::vector<uint32_t>
DcnTopologyHelper::GetNetworkPath(uint32_t from,
                                  uint32_t to,
                                  uint16_t sourcePort,
                                  uint16_t destinationPort) const
{
    const Ipv4Address source = GetServerAddress(from);
    const Ipv4Address destination = GetServerAddress(to);
    Ipv4Header header;
    header.SetSource(source);
    header.SetDestination(destination);
    header.SetProtocol(TcpL4Protocol::PROT_NUMBER);
    TcpHeader tcp;
    tcp.SetSourcePort(sourcePort);
    tcp.SetDestinationPort(destinationPort);
    std::ostringstream where;
    where << "from server " << from << " (" << source << ") to server " << to << " ("
          << destination << ")";
    std::vector<uint32_t> path{from};
    while (path.back() != to)
    {
        Ptr<Node> node = GetNode(path.back());
        const std::string here = "ns-3 node " + std::to_string(node->GetId());
        Ptr<Ipv4RoutingProtocol> routing = node->GetObject<Ipv4>()->GetRoutingProtocol();
        Socket::SocketErrno error;
        Ptr<Packet> probe = Create<Packet>(); // a fresh one per hop: nothing carries over
        probe->AddHeader(tcp);
        Ptr<Ipv4Route> route =
            routing ? routing->RouteOutput(probe, header, nullptr, error) : nullptr;
        if (!route || !route->GetOutputDevice())
        {
            throw std::invalid_argument(
                "the network's routing has no route " + where.str() + " at " + here +
                ": populate the routing tables first (e.g. "
                "Ipv4GlobalRoutingHelper::PopulateRoutingTables), or check the address plan");
        }
        if (!route->GetOutputDevice()->GetChannel() ||
            route->GetOutputDevice()->GetChannel()->GetNDevices() != 2)
        {
            throw std::invalid_argument(
                "the network's routing sends packets " + where.str() + " at " + here +
                " out of its " + route->GetOutputDevice()->GetInstanceTypeId().GetName() +
                ", not a point-to-point link of the network");
        }
        Ptr<Channel> channel = route->GetOutputDevice()->GetChannel();
        Ptr<NetDevice> peer =
            channel->GetDevice(channel->GetDevice(0) == route->GetOutputDevice() ? 1 : 0);
        const auto next = m_modelId.find(peer->GetNode()->GetId());
        if (next == m_modelId.end() || !m_topology.HasLink(path.back(), next->second))
        {
            throw std::invalid_argument("the network's routing sends packets " + where.str() +
                                        " out of the network at " + here + ", to ns-3 node " +
                                        std::to_string(peer->GetNode()->GetId()));
        }
        if (path.size() > m_topology.GetNNodes())
        {
            throw std::invalid_argument("the network's routing loops " + where.str() +
                                        " (at " + here + ")");
        }
        path.push_back(next->second);
    }
    return path;
}

WorkloadSet
DcnTopologyHelper::FollowNetworkRouting(const WorkloadSet& workloads) const
{
    WorkloadSet routed = workloads;
    for (uint32_t w = 0; w < routed.GetN(); ++w)
    {
        const Workload& workload = routed.Get(w);
        routed.SetPath(w, GetNetworkPath(workload.src, workload.dst));
    }
    return routed;
}

void
DcnTopologyHelper::SetTrafficControl(const TrafficControlHelper& tc)
{
    RefuseOnLossless("SetTrafficControl");
    RefuseOnReadNetwork("SetTrafficControl");
    m_trafficControl = tc;
    m_withTrafficControl = true;
}

void
DcnTopologyHelper::DisableTrafficControl()
{
    RefuseOnReadNetwork("DisableTrafficControl");
    m_withTrafficControl = false;
}

void
DcnTopologyHelper::SetTcpCongestionControl(const std::string& type)
{
    RefuseOnReadNetwork("SetTcpCongestionControl");
    TypeId tid;
    // Made once to check: some congestion controls (TcpCubic in ns-3.37) name another
    // parent in their TypeId than the class they derive from.
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.HasConstructor() ||
        !DynamicCast<TcpCongestionOps>(ObjectFactory(type).Create()))
    {
        throw std::invalid_argument("'" + type + "' is not a TCP congestion control of ns-3 "
                                    "(a TcpCongestionOps, e.g. ns3::TcpNewReno, ns3::TcpCubic, "
                                    "ns3::TcpDctcp)");
    }
    m_tcpType = tid;
    m_tcpTypeSet = true;
}

void
DcnTopologyHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    RefuseOnReadNetwork("SetDeviceAttribute");
    if (m_lossless)
    {
        RefuseMissingAttribute(LosslessNetDevice::GetTypeId(), name);
        m_ethernet.SetDeviceAttribute(name, value);
    }
    m_p2p.SetDeviceAttribute(name, value);
    m_deviceAttributes.emplace_back(name, value.Copy());
}

void
DcnTopologyHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    RefuseOnReadNetwork("SetChannelAttribute");
    if (m_lossless)
    {
        RefuseMissingAttribute(LosslessChannel::GetTypeId(), name);
        m_ethernet.SetChannelAttribute(name, value);
    }
    m_p2p.SetChannelAttribute(name, value);
    m_channelAttributes.emplace_back(name, value.Copy());
}

void
DcnTopologyHelper::Install()
{
    RefuseOnReadNetwork("Install");
    CreateNodesAndLinks();
    InternetStackHelper stack;
    InstallStack(stack);
    AssignIpv4Addresses();
    InstallFlowTreeRoutes();
}

void
DcnTopologyHelper::Require(bool done, const std::string& step, const std::string& first) const
{
    if (!done)
    {
        throw std::logic_error("DcnTopologyHelper::" + step + " needs " + first + " first");
    }
}

void
DcnTopologyHelper::CreateNodesAndLinks()
{
    RefuseOnReadNetwork("CreateNodesAndLinks");
    if (m_nodes.GetN() != 0)
    {
        throw std::logic_error("DcnTopologyHelper::CreateNodesAndLinks ran already; use a new "
                               "helper for another network");
    }
    NS_LOG_FUNCTION(this << m_topology.GetName());
    // ns-3 keeps about 15 KiB per point-to-point link with its devices, queues, interfaces
    // and addresses (measured: 60,000 more links of a random graph, 0.9 GB more at peak);
    // a node with its internet stack is counted the same.
    constexpr uint64_t BYTES_PER_ELEMENT = uint64_t{16} << 10;
    CheckMemory("the ns-3 network of '" + m_topology.GetName() + "' (" +
                    std::to_string(m_topology.GetNNodes()) + " nodes, " +
                    std::to_string(m_topology.GetNLinks()) + " links, about " +
                    std::to_string(BYTES_PER_ELEMENT >> 10) + " KiB each)",
                SaturatingMultiply(uint64_t{m_topology.GetNNodes()} + m_topology.GetNLinks(),
                                   BYTES_PER_ELEMENT),
                "use a smaller topology (the flow level, allreduce-rounds, takes larger ones)");
    for (uint32_t id = 0; id < m_topology.GetNNodes(); ++id)
    {
        m_nodes.Create(1, m_partition.GetRank(id));
    }
    for (uint32_t id = 0; id < m_nodes.GetN(); ++id)
    {
        m_modelId[m_nodes.Get(id)->GetId()] = id;
    }
    m_links.reserve(m_topology.GetNLinks());
    for (uint32_t i = 0; i < m_topology.GetNLinks(); ++i)
    {
        const TopologyLink& link = m_topology.GetLink(i);
        if (m_lossless)
        {
            m_links.push_back(m_ethernet.Install(m_nodes.Get(link.a), m_nodes.Get(link.b)));
            for (uint32_t end = 0; end < 2; ++end)
            {
                // Set on every port, so that SetCutThrough decides and a default of the user's
                // (--ns3::LosslessNetDevice::CutThrough) cannot make it say one and run another.
                const uint32_t node = end == 0 ? link.a : link.b;
                m_links.back().Get(end)->SetAttribute(
                    "CutThrough",
                    BooleanValue(m_cutThrough && node >= m_topology.GetNServers()));
            }
        }
        else
        {
            m_links.push_back(m_p2p.Install(m_nodes.Get(link.a), m_nodes.Get(link.b)));
            for (uint32_t end = 0; end < 2; ++end)
            {
                m_links.back().Get(end)->TraceConnectWithoutContext(
                    "PhyRxDrop",
                    Callback<void, Ptr<const Packet>>(
                        [this](Ptr<const Packet>) { ++m_receiveErrors; }));
            }
        }
        ApplyLinkProperties(i);
    }
    for (uint32_t i : m_partition.GetCutLinks())
    {
        TimeValue delay;
        m_links[i].Get(0)->GetChannel()->GetAttribute("Delay", delay);
        if (delay.Get().IsZero())
        {
            const TopologyLink& link = m_topology.GetLink(i);
            throw std::invalid_argument(
                "link " + std::to_string(i) + " (" + m_topology.GetNodeName(link.a) + " - " +
                m_topology.GetNodeName(link.b) + ") joins ranks " +
                std::to_string(m_partition.GetRank(link.a)) + " and " +
                std::to_string(m_partition.GetRank(link.b)) + " but has no delay: a link "
                "between ranks needs one (it is the lookahead that lets them run in "
                "parallel); give the links a delay (e.g. --delay=1us)");
        }
    }
}

void
DcnTopologyHelper::SetPartition(const TopologyPartition& partition)
{
    if (m_lossless && partition.GetNRanks() > 1)
    {
        throw std::invalid_argument("lossless Ethernet links cannot join the ranks of a "
                                    "distributed run (they have no MPI channel); run RDMA on "
                                    "one process");
    }
    RefuseOnReadNetwork("SetPartition");
    if (m_nodes.GetN() != 0)
    {
        throw std::logic_error("DcnTopologyHelper::SetPartition comes before "
                               "CreateNodesAndLinks (Install)");
    }
    if (partition.GetRanks().size() != m_topology.GetNNodes())
    {
        throw std::invalid_argument("the partition has " +
                                    std::to_string(partition.GetRanks().size()) +
                                    " nodes, the topology " +
                                    std::to_string(m_topology.GetNNodes()));
    }
#ifndef NS3_MPI
    if (partition.GetNRanks() > 1)
    {
        throw std::invalid_argument(
            "a distributed run on " + std::to_string(partition.GetNRanks()) + " ranks needs "
            "ns-3 built with its MPI module, which this ns-3 is not (Debian's binary ns-3 "
            "has none): build the module inside an ns-3 source tree configured with "
            "--enable-mpi (doc/allreduce.rst, \"Distributed runs\")");
    }
#endif
    m_partition = partition;
}

const TopologyPartition&
DcnTopologyHelper::GetPartition() const
{
    return m_partition;
}

bool
DcnTopologyHelper::IsSimulatedHere(uint32_t node) const
{
    return m_partition.GetNRanks() <= 1 || m_partition.GetRank(node) == Simulator::GetSystemId();
}

std::vector<bool>
DcnTopologyHelper::GetSimulatedNodes() const
{
    std::vector<bool> simulated(m_topology.GetNNodes());
    for (uint32_t node = 0; node < simulated.size(); ++node)
    {
        simulated[node] = IsSimulatedHere(node);
    }
    return simulated;
}

Ptr<ArrivalSequencer>
DcnTopologyHelper::SequenceArrivals()
{
    if (!m_sequencer)
    {
        m_sequencer = CreateObject<ArrivalSequencer>();
        for (uint32_t i = 0; i < m_nodes.GetN(); ++i)
        {
            m_sequencer->Install(m_nodes.Get(i));
        }
    }
    return m_sequencer;
}

void
DcnTopologyHelper::ApplyLinkProperties(uint32_t link)
{
    const LinkProperties& p = m_topology.GetLinkProperties(link);
    if (p.IsDefault())
    {
        return;
    }
    for (uint32_t end = 0; end < 2; ++end)
    {
        Ptr<NetDevice> device = m_links[link].Get(end);
        DataRateValue rate;
        device->GetAttribute("DataRate", rate);
        const double bps = p.GetRate(static_cast<double>(rate.Get().GetBitRate()));
        device->SetAttribute("DataRate",
                             DataRateValue(DataRate(std::max<uint64_t>(1, std::llround(bps)))));
    }
    if (p.delayNs >= 0)
    {
        m_links[link].Get(0)->GetChannel()->SetAttribute("Delay",
                                                         TimeValue(NanoSeconds(p.delayNs)));
    }
    NS_LOG_INFO("link " << link << ": rate " << p.rateBps << " bps x " << p.rateFactor
                        << ", delay " << p.delayNs << " ns");
}

void
DcnTopologyHelper::InstallStack(InternetStackHelper& stack)
{
    RefuseOnReadNetwork("InstallStack");
    Require(m_nodes.GetN() != 0, "InstallStack", "CreateNodesAndLinks");
    stack.Install(m_nodes);
    for (uint32_t i = 0; m_tcpTypeSet && i < m_nodes.GetN(); ++i)
    {
        if (Ptr<TcpL4Protocol> tcp = m_nodes.Get(i)->GetObject<TcpL4Protocol>())
        {
            tcp->SetAttribute("SocketType", TypeIdValue(m_tcpType));
        }
    }
    if (m_lossless)
    {
        LosslessEthernetHelper::Validate(m_nodes);
        m_rdma.Install(m_nodes); // validates against each node's devices
    }
    else if (m_withTrafficControl)
    {
        for (uint32_t i = 0; i < m_links.size(); ++i)
        {
            m_trafficControl.Install(m_links[i]);
            // Another rank's node sends nothing here: its queue discs go again. (Made first,
            // so that the random streams ns-3 numbers as objects are made stay as on one
            // process, for discs that draw, such as RED.)
            const TopologyLink& link = m_topology.GetLink(i);
            for (uint32_t end = 0; end < 2; ++end)
            {
                if (!IsSimulatedHere(end == 0 ? link.a : link.b))
                {
                    m_trafficControl.Uninstall(m_links[i].Get(end));
                }
            }
        }
    }
    m_stackInstalled = true;
}

void
DcnTopologyHelper::AssignIpv4Addresses(Ipv4Address base)
{
    RefuseOnReadNetwork("AssignIpv4Addresses");
    Require(m_stackInstalled, "AssignIpv4Addresses", "InstallStack");
    if (!m_interfaces.empty())
    {
        throw std::logic_error("DcnTopologyHelper::AssignIpv4Addresses ran already");
    }
    const uint64_t first = base.Get();
    const uint64_t needed = uint64_t{4} * m_topology.GetNLinks();
    if (first % 4 != 0)
    {
        throw std::invalid_argument("AssignIpv4Addresses: base must be a multiple of 4 (a /30 "
                                    "network address)");
    }
    if (first + needed > (uint64_t{1} << 32))
    {
        throw std::invalid_argument("AssignIpv4Addresses: " +
                                    std::to_string(m_topology.GetNLinks()) +
                                    " links need /30 subnets past 255.255.255.255; choose a "
                                    "lower base");
    }
    const Ipv4Mask mask("255.255.255.252");
    m_interfaces.resize(m_topology.GetNLinks());
    for (uint32_t i = 0; i < m_topology.GetNLinks(); ++i)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            Ptr<NetDevice> device = m_links[i].Get(end);
            Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
            int32_t iface = ipv4->GetInterfaceForDevice(device);
            if (iface < 0)
            {
                iface = static_cast<int32_t>(ipv4->AddInterface(device));
            }
            const Ipv4Address address(static_cast<uint32_t>(first + 4 * uint64_t{i} + 1 + end));
            ipv4->AddAddress(iface, Ipv4InterfaceAddress(address, mask));
            ipv4->SetMetric(iface, 1);
            ipv4->SetUp(iface);
            m_interfaces[i].Add(ipv4, iface);
        }
    }
}

void
DcnTopologyHelper::InstallFlowTreeRoutes()
{
    InstallFlowTreeRoutes(BuildShortestPathTrees(m_topology));
}

void
DcnTopologyHelper::InstallFlowTreeRoutes(const std::vector<FlowTree>& trees)
{
    Require(!m_interfaces.empty(), "InstallFlowTreeRoutes", "AssignIpv4Addresses");
    if (m_networkRouting)
    {
        throw std::logic_error("DcnTopologyHelper::InstallFlowTreeRoutes: the network uses its "
                               "own routing (UseNetworkRouting)");
    }
    std::vector<bool> seen(m_topology.GetNServers(), false);
    for (const auto& tree : trees)
    {
        const uint32_t root = tree.GetRoot();
        if (seen[root])
        {
            throw std::invalid_argument("InstallFlowTreeRoutes: two trees have root " +
                                        std::to_string(root) + "; give at most one per root");
        }
        seen[root] = true;
    }
    if (m_routing.empty())
    {
        for (uint32_t node = 0; node < m_topology.GetNNodes(); ++node)
        {
            Ptr<Ipv4> ipv4 = m_nodes.Get(node)->GetObject<Ipv4>();
            Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(ipv4->GetRoutingProtocol());
            if (!list)
            {
                throw std::invalid_argument(
                    "the module's routing goes into an Ipv4ListRouting (InternetStackHelper's "
                    "default) on every node; ns-3 node " +
                    std::to_string(m_nodes.Get(node)->GetId()) + " has " +
                    (ipv4->GetRoutingProtocol()
                         ? ipv4->GetRoutingProtocol()->GetInstanceTypeId().GetName()
                         : std::string("no routing")));
            }
            Ptr<FlowPathRouting> routing = CreateObject<FlowPathRouting>();
            if (m_topology.IsServer(node) || m_topology.IsAggregator(node))
            {
                // One address per endpoint of transfers (a server, or a switch that
                // aggregates), whatever port its packets leave from.
                routing->SetSourceAddress(GetPortAddress(node, 0));
            }
            list->AddRoutingProtocol(routing, FLOW_PATH_ROUTING_PRIORITY);
            m_routing.push_back(routing);
        }
    }
    for (const auto& tree : trees)
    {
        const uint32_t root = tree.GetRoot();
        for (uint32_t node = 0; node < m_topology.GetNNodes(); ++node)
        {
            const uint32_t parent = tree.GetParent(node);
            if (parent == NO_INDEX || !IsSimulatedHere(node))
            {
                continue; // the root itself, a node outside the tree, or another rank's
            }
            const auto link = static_cast<uint32_t>(m_topology.FindLink(node, parent));
            const uint32_t iface = GetInterface(node, link);
            const Ipv4Address gateway = GetLinkAddress(parent, link);
            for (uint32_t port = 0; port < m_topology.GetNPorts(root); ++port)
            {
                m_routing[node]->AddHostRoute(GetPortAddress(root, port), gateway, iface);
            }
        }
    }
}

void
DcnTopologyHelper::InstallFlowRoute(const std::vector<uint32_t>& path,
                                    uint16_t sourcePort,
                                    uint16_t destinationPort)
{
    Require(!m_routing.empty(), "InstallFlowRoute", "InstallFlowTreeRoutes");
    const auto isEndpoint = [this](uint32_t node) {
        return node < m_topology.GetNNodes() &&
               (m_topology.IsServer(node) || m_topology.IsAggregator(node));
    };
    if (path.size() < 2 || !isEndpoint(path.front()) || !isEndpoint(path.back()))
    {
        throw std::invalid_argument("InstallFlowRoute: a path must run from one server (or "
                                    "aggregating switch) to another through at least one link");
    }
    std::vector<uint32_t> links;
    for (size_t i = 0; i + 1 < path.size(); ++i)
    {
        const uint32_t n = m_topology.GetNNodes();
        const int64_t link =
            path[i] < n && path[i + 1] < n ? m_topology.FindLink(path[i], path[i + 1]) : -1;
        if (link < 0)
        {
            throw std::invalid_argument("InstallFlowRoute: nodes " + std::to_string(path[i]) +
                                        " and " + std::to_string(path[i + 1]) +
                                        " on the path are not linked");
        }
        links.push_back(static_cast<uint32_t>(link));
    }
    const Ipv4Address source = GetPortAddress(path.front(), 0);
    const Ipv4Address destination = GetPortAddress(path.back(), 0);
    // At a node of this rank, the flow (from, fromPort) -> (to, toPort) leaves over link
    // towards neighbour.
    const auto route = [this](uint32_t node,
                              uint32_t neighbour,
                              uint32_t link,
                              Ipv4Address from,
                              uint16_t fromPort,
                              Ipv4Address to,
                              uint16_t toPort) {
        if (IsSimulatedHere(node))
        {
            m_routing[node]->AddFlowRoute(from,
                                          fromPort,
                                          to,
                                          toPort,
                                          GetLinkAddress(neighbour, link),
                                          GetInterface(node, link));
        }
    };
    for (size_t i = 0; i < links.size(); ++i)
    {
        route(path[i], path[i + 1], links[i], source, sourcePort, destination, destinationPort);
        route(path[i + 1], path[i], links[i], destination, destinationPort, source, sourcePort);
    }
}

void
DcnTopologyHelper::SetLinkUp(uint32_t link, bool up)
{
    Require(!m_interfaces.empty(), "SetLinkUp", "AssignIpv4Addresses");
    if (link >= m_interfaces.size())
    {
        throw std::out_of_range("link " + std::to_string(link) + " does not exist (" +
                                std::to_string(m_interfaces.size()) + " links)");
    }
    NS_LOG_FUNCTION(this << link << up);
    for (uint32_t end = 0; end < 2; ++end)
    {
        const auto [ipv4, iface] = m_interfaces[link].Get(end);
        if (up)
        {
            ipv4->SetUp(iface);
        }
        else
        {
            ipv4->SetDown(iface);
        }
    }
    for (const auto& callback : m_linkStateCallbacks)
    {
        callback(link, up);
    }
}

void
DcnTopologyHelper::AddLinkStateCallback(Callback<void, uint32_t, bool> callback)
{
    m_linkStateCallbacks.push_back(callback);
}

bool
DcnTopologyHelper::IsLinkUp(uint32_t link) const
{
    Require(!m_interfaces.empty(), "IsLinkUp", "AssignIpv4Addresses");
    const auto& ends = m_interfaces.at(link);
    return ends.Get(0).first->IsUp(ends.Get(0).second) &&
           ends.Get(1).first->IsUp(ends.Get(1).second);
}

int64_t
DcnTopologyHelper::SetPacketLoss(double rate, int64_t stream)
{
    Require(!m_links.empty(), "SetPacketLoss", "CreateNodesAndLinks");
    if (!(rate >= 0.0 && rate < 1.0))
    {
        throw std::invalid_argument("packet loss rate must be in [0, 1), got " +
                                    std::to_string(rate));
    }
    int64_t used = 0;
    for (const auto& devices : m_links)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            Ptr<RateErrorModel> model = CreateObject<RateErrorModel>();
            model->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            model->SetRate(rate);
            used += model->AssignStreams(stream + used);
            devices.Get(end)->SetAttribute("ReceiveErrorModel", PointerValue(model));
        }
    }
    return used;
}

void
DcnTopologyHelper::EnablePcapAll(const std::string& prefix)
{
    RefuseOnLossless("EnablePcapAll");
    m_p2p.EnablePcapAll(prefix);
}

Ptr<FlowPathRouting>
DcnTopologyHelper::GetRouting(uint32_t node) const
{
    Require(!m_routing.empty(), "GetRouting", "InstallFlowTreeRoutes");
    if (node >= m_routing.size())
    {
        throw std::out_of_range("node " + std::to_string(node) + " does not exist (" +
                                std::to_string(m_routing.size()) + " nodes)");
    }
    return m_routing[node];
}

const Topology&
DcnTopologyHelper::GetTopology() const
{
    return m_topology;
}

NodeContainer
DcnTopologyHelper::GetServers() const
{
    NodeContainer servers;
    for (uint32_t i = 0; i < m_topology.GetNServers(); ++i)
    {
        servers.Add(GetNode(i));
    }
    return servers;
}

NodeContainer
DcnTopologyHelper::GetSwitches() const
{
    NodeContainer switches;
    for (uint32_t id = m_topology.GetNServers(); id < m_topology.GetNNodes(); ++id)
    {
        switches.Add(GetNode(id));
    }
    return switches;
}

NodeContainer
DcnTopologyHelper::GetNodes() const
{
    return m_nodes;
}

Ptr<Node>
DcnTopologyHelper::GetServer(uint32_t i) const
{
    if (i >= m_topology.GetNServers())
    {
        throw std::out_of_range("server " + std::to_string(i) + " does not exist (" +
                                std::to_string(m_topology.GetNServers()) + " servers)");
    }
    return GetNode(i);
}

Ptr<Node>
DcnTopologyHelper::GetSwitch(uint32_t j) const
{
    if (j >= m_topology.GetNSwitches())
    {
        throw std::out_of_range("switch " + std::to_string(j) + " does not exist (" +
                                std::to_string(m_topology.GetNSwitches()) + " switches)");
    }
    return GetNode(m_topology.GetNServers() + j);
}

Ptr<Node>
DcnTopologyHelper::GetNode(uint32_t id) const
{
    Require(m_nodes.GetN() != 0, "GetNode", "CreateNodesAndLinks");
    if (id >= m_nodes.GetN())
    {
        throw std::out_of_range("node " + std::to_string(id) + " does not exist (" +
                                std::to_string(m_nodes.GetN()) + " nodes)");
    }
    return m_nodes.Get(id);
}

uint32_t
DcnTopologyHelper::GetModelId(Ptr<const Node> node) const
{
    const auto it = m_modelId.find(node->GetId());
    if (it == m_modelId.end())
    {
        throw std::invalid_argument("ns-3 node " + std::to_string(node->GetId()) +
                                    " is not a node of this DcnTopologyHelper's network");
    }
    return it->second;
}

NetDeviceContainer
DcnTopologyHelper::GetLinkDevices(uint32_t link) const
{
    Require(!m_links.empty(), "GetLinkDevices", "CreateNodesAndLinks");
    return m_links.at(link);
}

uint32_t
DcnTopologyHelper::GetInterface(uint32_t node, uint32_t link) const
{
    const TopologyLink& l = m_topology.GetLink(link);
    return m_interfaces.at(link).Get(l.a == node ? 0 : 1).second;
}

Ipv4Address
DcnTopologyHelper::GetLinkAddress(uint32_t node, uint32_t link) const
{
    Require(!m_interfaces.empty(), "GetLinkAddress", "AssignIpv4Addresses");
    const TopologyLink& l = m_topology.GetLink(link);
    return m_interfaces.at(link).GetAddress(l.a == node ? 0 : 1);
}

Ipv4Address
DcnTopologyHelper::GetPortAddress(uint32_t node, uint32_t port) const
{
    const auto& ports = m_topology.GetPortLinks(node);
    if (port >= ports.size())
    {
        throw std::out_of_range("node " + std::to_string(node) + " has no port " +
                                std::to_string(port) + " (" + std::to_string(ports.size()) +
                                " ports)");
    }
    return GetLinkAddress(node, ports[port]);
}

Ipv4Address
DcnTopologyHelper::GetServerAddress(uint32_t server) const
{
    if (server >= m_topology.GetNServers())
    {
        throw std::out_of_range("server " + std::to_string(server) + " does not exist (" +
                                std::to_string(m_topology.GetNServers()) + " servers)");
    }
    return GetPortAddress(server, 0);
}

void
DcnTopologyHelper::RefuseOnLossless(const std::string& step) const
{
    if (m_lossless)
    {
        throw std::logic_error("DcnTopologyHelper::" + step +
                               " does not apply to lossless Ethernet links "
                               "(UseLosslessEthernet): their ports have class queues and the "
                               "nodes a shared buffer, set with LosslessEthernetHelper");
    }
}

void
DcnTopologyHelper::UseLosslessEthernet(const LosslessEthernetHelper& ethernet,
                                       const RdmaHelper& rdma)
{
    RefuseOnReadNetwork("UseLosslessEthernet");
    if (m_nodes.GetN() != 0)
    {
        throw std::logic_error("DcnTopologyHelper::UseLosslessEthernet: call it before Install "
                               "(CreateNodesAndLinks)");
    }
    if (m_partition.GetNRanks() > 1)
    {
        throw std::invalid_argument("lossless Ethernet links cannot join the ranks of a "
                                    "distributed run (they have no MPI channel); run RDMA on "
                                    "one process");
    }
    m_lossless = true;
    m_ethernet = ethernet;
    m_rdma = rdma;
    for (const auto& [name, value] : m_deviceAttributes)
    {
        RefuseMissingAttribute(LosslessNetDevice::GetTypeId(), name);
        m_ethernet.SetDeviceAttribute(name, *value);
    }
    for (const auto& [name, value] : m_channelAttributes)
    {
        RefuseMissingAttribute(LosslessChannel::GetTypeId(), name);
        m_ethernet.SetChannelAttribute(name, *value);
    }
}

void
DcnTopologyHelper::RefuseMissingAttribute(TypeId type, const std::string& name)
{
    TypeId::AttributeInformation info;
    if (!type.LookupAttributeByName(name, &info))
    {
        throw std::invalid_argument("lossless Ethernet links (UseLosslessEthernet) have no "
                                    "attribute " + name + " on their " + type.GetName() +
                                    "; leave it out, or set one of its own");
    }
}

void
DcnTopologyHelper::SetCutThrough(bool enabled)
{
    if (m_nodes.GetN() != 0)
    {
        throw std::logic_error("DcnTopologyHelper::SetCutThrough: call it before Install "
                               "(CreateNodesAndLinks)");
    }
    m_cutThrough = enabled;
}

bool
DcnTopologyHelper::UsesLosslessEthernet() const
{
    return m_lossless;
}

DcnTopologyHelper::TransportCounters
DcnTopologyHelper::GetTransportCounters() const
{
    TransportCounters counters;
    counters.droppedPackets = m_receiveErrors;
    for (uint32_t n = 0; n < m_nodes.GetN(); ++n)
    {
        Ptr<Node> node = m_nodes.Get(n);
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<NetDevice> device = node->GetDevice(i);
            if (auto lossless = DynamicCast<LosslessNetDevice>(device))
            {
                const LosslessNetDevice::Counters& c = lossless->GetCounters();
                counters.pfcPauseFrames += c.pausesSent;
                counters.ecnMarks += c.ecnMarks;
                counters.droppedPackets += c.drops;
                counters.pfcPortDrops += lossless->IsPfcEnabled() ? c.drops : 0;
            }
            else if (auto p2p = DynamicCast<PointToPointNetDevice>(device))
            {
                counters.droppedPackets += p2p->GetQueue()->GetTotalDroppedPackets();
            }
            Ptr<QueueDisc> disc = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
            if (disc)
            {
                const QueueDisc::Stats& stats = disc->GetStats();
                counters.droppedPackets += stats.nTotalDroppedPackets;
                counters.ecnMarks += stats.nTotalMarkedPackets;
            }
        }
    }
    counters.cnps = RdmaHelper::GetTotals(m_nodes).cnpsSent;
    return counters;
}

} // namespace ns3
