/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "path-recorder.h"

#include "ppp-ipv4-flow.h"

#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PathRecorder");
NS_OBJECT_ENSURE_REGISTERED(PathRecorder);

TypeId
PathRecorder::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PathRecorder")
            .SetParent<Object>()
            .SetGroupName("AllReduce")
            .AddConstructor<PathRecorder>()
            .AddTraceSource("PathSeen",
                            "A flow's first packet took one more hop: the flow and its path "
                            "so far (model node ids).",
                            MakeTraceSourceAccessor(&PathRecorder::m_pathSeen),
                            "ns3::PathRecorder::PathSeenCallback");
    return tid;
}

PathRecorder::PathRecorder() = default;

PathRecorder::~PathRecorder() = default;

void
PathRecorder::DoDispose()
{
    // The devices may outlive the recorder: leave their traces.
    for (size_t d = 0; d < m_devices.size(); ++d)
    {
        m_devices[d]->TraceDisconnectWithoutContext("PhyTxBegin", m_callbacks[d]);
    }
    m_devices.clear();
    m_callbacks.clear();
    Object::DoDispose();
}

void
PathRecorder::Watch(const Topology& topology,
                    const std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>>& links)
{
    if (links.size() != topology.GetNLinks())
    {
        throw std::invalid_argument("PathRecorder::Watch: " + std::to_string(links.size()) +
                                    " links given for a topology of " +
                                    std::to_string(topology.GetNLinks()));
    }
    if (!m_devices.empty())
    {
        throw std::logic_error("PathRecorder::Watch ran already; use one recorder per network");
    }
    m_topology = topology;
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        const TopologyLink& link = topology.GetLink(l);
        for (const auto& [device, node] : {std::make_pair(links[l].first, link.a),
                                            std::make_pair(links[l].second, link.b)})
        {
            const auto directed = static_cast<uint32_t>(m_devices.size());
            Callback<void, Ptr<const Packet>> sent =
                MakeCallback(&PathRecorder::Sent, this).Bind(directed);
            device->TraceConnectWithoutContext("PhyTxBegin", sent);
            m_devices.push_back(device);
            m_callbacks.push_back(sent);
            // Whose address it is: a path is complete when it reaches its destination's node.
            Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
            const int32_t iface = ipv4 ? ipv4->GetInterfaceForDevice(device) : -1;
            for (uint32_t i = 0; iface >= 0 && i < ipv4->GetNAddresses(iface); ++i)
            {
                m_nodeOf[ipv4->GetAddress(iface, i).GetLocal()] = node;
            }
        }
    }
}

void
PathRecorder::Sent(uint32_t directedLink, Ptr<const Packet> packet)
{
    PppIpv4Flow read;
    if (!ReadPppIpv4Flow(packet, read) || read.laterFragment) // a later fragment has no ports
    {
        return;
    }
    const FlowKey key{read.source, read.sourcePort, read.destination, read.destinationPort};
    const uint16_t id = read.identification;
    const auto [it, first] = m_flows.try_emplace(key);
    Flow& flow = it->second;
    const auto head = [this](uint32_t directed) {
        const TopologyLink& link = m_topology.GetLink(directed / 2);
        return directed % 2 == 0 ? link.b : link.a;
    };
    const auto tail = [this](uint32_t directed) {
        const TopologyLink& link = m_topology.GetLink(directed / 2);
        return directed % 2 == 0 ? link.a : link.b;
    };
    const auto destination = m_nodeOf.find(std::get<2>(key));
    const bool complete = !first && destination != m_nodeOf.end() &&
                          head(flow.directed.back()) == destination->second;
    if (!first && !complete && flow.id != id && tail(directedLink) == tail(flow.directed[0]))
    {
        // The packet the path was read from did not arrive (lost, or still on its way): read
        // it again from this newer one, which leaves the source.
        flow.directed.clear();
        flow.id = id;
        flow.directed.push_back(directedLink);
        m_pathSeen(key, GetPath(key));
    }
    else if (first || (!complete && flow.id == id && head(flow.directed.back()) == tail(directedLink)))
    {
        flow.id = id;
        flow.directed.push_back(directedLink);
        m_pathSeen(key, GetPath(key));
    }
    else if (complete && std::find(flow.directed.begin(), flow.directed.end(), directedLink) ==
                             flow.directed.end())
    {
        flow.split = true;
    }
}

std::vector<uint32_t>
PathRecorder::GetPath(const FlowKey& flow) const
{
    const auto it = m_flows.find(flow);
    std::vector<uint32_t> path;
    if (it == m_flows.end())
    {
        return path;
    }
    for (uint32_t directed : it->second.directed)
    {
        const TopologyLink& link = m_topology.GetLink(directed / 2);
        if (path.empty())
        {
            path.push_back(directed % 2 == 0 ? link.a : link.b);
        }
        path.push_back(directed % 2 == 0 ? link.b : link.a);
    }
    return path;
}

bool
PathRecorder::IsSplit(const FlowKey& flow) const
{
    const auto it = m_flows.find(flow);
    return it != m_flows.end() && it->second.split;
}

uint32_t
PathRecorder::GetNFlows() const
{
    return static_cast<uint32_t>(m_flows.size());
}

} // namespace ns3
