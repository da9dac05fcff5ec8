/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "p2p-network-reader.h"

#include "ns3/channel.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("P2pNetworkReader");

namespace
{

/// \return "ns-3 node N" \param node a node
std::string
Name(Ptr<const Node> node)
{
    return "ns-3 node " + std::to_string(node->GetId());
}

/// \return the device at the other end of device's point-to-point channel, or null
/// \param device a device
Ptr<NetDevice>
PeerOf(Ptr<NetDevice> device)
{
    if (!DynamicCast<PointToPointNetDevice>(device) || !device->GetChannel() ||
        device->GetChannel()->GetNDevices() != 2)
    {
        return nullptr;
    }
    Ptr<Channel> channel = device->GetChannel();
    return channel->GetDevice(channel->GetDevice(0) == device ? 1 : 0);
}

/// \return the TypeIds of node's devices, e.g. "ns3::CsmaNetDevice, ns3::LoopbackNetDevice"
/// \param node a node
std::string
DeviceTypes(Ptr<Node> node)
{
    std::ostringstream os;
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        os << (d == 0 ? "" : ", ") << node->GetDevice(d)->GetInstanceTypeId().GetName();
    }
    return node->GetNDevices() == 0 ? "none" : os.str();
}

/// \return "a.b.c.d/len" \param address an interface address
std::string
ToString(const Ipv4InterfaceAddress& address)
{
    std::ostringstream os;
    os << address.GetLocal() << "/" << address.GetMask().GetPrefixLength();
    return os.str();
}

} // namespace

void
P2pNetworkReader::SetName(const std::string& name)
{
    m_name = name;
}

P2pNetworkReader::Network
P2pNetworkReader::Read(const NodeContainer& servers) const
{
    return DoRead(servers, NodeContainer(), true);
}

P2pNetworkReader::Network
P2pNetworkReader::Read(const NodeContainer& servers, const NodeContainer& switches) const
{
    return DoRead(servers, switches, false);
}

P2pNetworkReader::Network
P2pNetworkReader::DoRead(const NodeContainer& servers,
                         const NodeContainer& switches,
                         bool find) const
{
    if (servers.GetN() == 0)
    {
        throw std::invalid_argument("no servers named: give the nodes the AllReduce runs on");
    }
    std::map<uint32_t, std::string> named; // ns-3 node id -> "server i" or "switch j"
    const auto add = [&named](Ptr<Node> node, const std::string& role) {
        const auto [it, added] = named.emplace(node->GetId(), role);
        if (!added)
        {
            throw std::invalid_argument(Name(node) + " is named twice, as " + it->second +
                                        " and as " + role +
                                        "; name every node once, as a server (an end of "
                                        "transfers) or as a switch (it forwards)");
        }
    };
    Network network;
    for (uint32_t i = 0; i < servers.GetN(); ++i)
    {
        add(servers.Get(i), "server " + std::to_string(i));
        network.nodes.Add(servers.Get(i));
    }
    std::vector<Ptr<Node>> found;
    if (find)
    {
        // Breadth first from the servers over point-to-point channels; the nodes found are
        // the switches, in ns-3 node id order.
        std::set<uint32_t> seen;
        std::deque<Ptr<Node>> queue(servers.Begin(), servers.End());
        for (; !queue.empty(); queue.pop_front())
        {
            for (uint32_t d = 0; d < queue.front()->GetNDevices(); ++d)
            {
                Ptr<NetDevice> peer = PeerOf(queue.front()->GetDevice(d));
                if (peer && named.count(peer->GetNode()->GetId()) == 0 &&
                    seen.insert(peer->GetNode()->GetId()).second)
                {
                    found.push_back(peer->GetNode());
                    queue.push_back(peer->GetNode());
                }
            }
        }
        std::sort(found.begin(), found.end(), [](Ptr<Node> a, Ptr<Node> b) {
            return a->GetId() < b->GetId();
        });
    }
    else
    {
        found.assign(switches.Begin(), switches.End());
    }
    for (uint32_t j = 0; j < found.size(); ++j)
    {
        add(found[j], "switch " + std::to_string(j));
        network.nodes.Add(found[j]);
    }
    network.topology = Topology(m_name, servers.GetN(), static_cast<uint32_t>(found.size()));
    ReadLinks(network);
    CheckConnected(network);
    ReadAddresses(network);
    network.topology.Validate();
    NS_LOG_INFO("read " << m_name << ": " << servers.GetN() << " servers, " << found.size()
                        << " switches, " << network.topology.GetNLinks() << " links");
    return network;
}

void
P2pNetworkReader::ReadLinks(Network& network) const
{
    std::map<uint32_t, uint32_t> modelId; // ns-3 node id -> model id
    for (uint32_t id = 0; id < network.nodes.GetN(); ++id)
    {
        modelId[network.nodes.Get(id)->GetId()] = id;
    }
    for (uint32_t a = 0; a < network.nodes.GetN(); ++a)
    {
        Ptr<Node> node = network.nodes.Get(a);
        bool linked = false;
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<NetDevice> peer = PeerOf(node->GetDevice(d));
            const auto it = peer ? modelId.find(peer->GetNode()->GetId()) : modelId.end();
            if (it == modelId.end())
            {
                continue; // not a point-to-point link, or one to a node outside the network
            }
            linked = true;
            if (it->second < a || it->second == a)
            {
                continue; // added from the other end (or a loop, which carries nothing)
            }
            if (network.topology.HasLink(a, it->second))
            {
                throw std::invalid_argument(
                    Name(node) + " and " + Name(peer->GetNode()) +
                    " are joined by two point-to-point links; the model takes one link per "
                    "pair of nodes (make it one faster link)");
            }
            network.topology.AddLink(a, it->second);
            network.links.emplace_back(node->GetDevice(d), peer);
        }
        if (!linked && network.topology.IsServer(a))
        {
            std::string peers;
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                if (Ptr<NetDevice> peer = PeerOf(node->GetDevice(d)))
                {
                    peers += (peers.empty() ? "" : ", ") + Name(peer->GetNode());
                }
            }
            throw std::invalid_argument(
                Name(node) + " (server " + std::to_string(a) +
                ") has no point-to-point link to the network" +
                (peers.empty() ? " (its devices: " + DeviceTypes(node) +
                                     "); the AllReduce runs over point-to-point channels only: "
                                     "link it with a PointToPointHelper"
                               : ": its links go to " + peers +
                                     ", which are not named as switches; name them too"));
        }
    }
}

void
P2pNetworkReader::CheckConnected(const Network& network) const
{
    const Topology& topology = network.topology;
    const std::vector<uint32_t> hops = topology.GetHopDistances(0);
    for (uint32_t id = 1; id < topology.GetNNodes(); ++id)
    {
        if (hops[id] == NO_INDEX)
        {
            const bool server = topology.IsServer(id);
            throw std::invalid_argument(
                "the network is not connected: " + std::string(server ? "server " : "switch ") +
                std::to_string(server ? id : id - topology.GetNServers()) + " (" +
                Name(network.nodes.Get(id)) + ") cannot be reached from server 0 (" +
                Name(network.nodes.Get(0)) + ") over point-to-point links");
        }
    }
}

void
P2pNetworkReader::ReadAddresses(Network& network) const
{
    std::map<Ipv4Address, uint32_t> owner; // address -> ns-3 node id
    network.interfaces.resize(network.links.size());
    for (uint32_t l = 0; l < network.links.size(); ++l)
    {
        Ipv4InterfaceAddress ends[2];
        for (uint32_t end = 0; end < 2; ++end)
        {
            Ptr<NetDevice> device = network.links[l].Get(end);
            Ptr<NetDevice> peer = network.links[l].Get(1 - end);
            Ptr<Node> node = device->GetNode();
            Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
            if (!ipv4)
            {
                throw std::invalid_argument(Name(node) + " has no internet stack: install one "
                                            "(InternetStackHelper) on every node first");
            }
            const int32_t iface = ipv4->GetInterfaceForDevice(device);
            if (iface < 0 || ipv4->GetNAddresses(iface) == 0)
            {
                throw std::invalid_argument(
                    Name(node) + " has no IPv4 address on its point-to-point device " +
                    std::to_string(device->GetIfIndex()) + " (the link to " +
                    Name(peer->GetNode()) + "): assign addresses to every link first "
                    "(Ipv4AddressHelper::Assign)");
            }
            ends[end] = ipv4->GetAddress(iface, 0);
            const auto [it, added] = owner.emplace(ends[end].GetLocal(), node->GetId());
            if (!added)
            {
                std::ostringstream os;
                os << ends[end].GetLocal();
                throw std::invalid_argument("ns-3 nodes " + std::to_string(it->second) +
                                            " and " + std::to_string(node->GetId()) +
                                            " both have address " + os.str() +
                                            "; every address must be unique");
            }
            network.interfaces[l].Add(ipv4, static_cast<uint32_t>(iface));
        }
        const Ipv4Mask mask = ends[0].GetMask();
        if (ends[0].GetLocal().CombineMask(mask) != ends[1].GetLocal().CombineMask(mask))
        {
            throw std::invalid_argument(
                "the link between " + Name(network.links[l].Get(0)->GetNode()) + " and " +
                Name(network.links[l].Get(1)->GetNode()) + " has addresses " +
                ToString(ends[0]) + " and " + ToString(ends[1]) +
                ", not in one subnet: neither end reaches the other; give both ends of a link "
                "one subnet (one Ipv4AddressHelper::Assign per link)");
        }
    }
}

} // namespace ns3
