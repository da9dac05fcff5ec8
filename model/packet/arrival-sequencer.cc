/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "arrival-sequencer.h"

#include "ns3/arp-l3-protocol.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv6-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ArrivalSequencer");
NS_OBJECT_ENSURE_REGISTERED(ArrivalSequencer);

TypeId
ArrivalSequencer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ArrivalSequencer")
            .SetParent<Object>()
            .SetGroupName("Allreduce")
            .AddConstructor<ArrivalSequencer>()
            .AddTraceSource("HandedOn",
                            "A packet that arrived at its node at the same instant as others, "
                            "as it is handed on (in the order of the node's devices)",
                            MakeTraceSourceAccessor(&ArrivalSequencer::m_handedOn),
                            "ns3::ArrivalSequencer::ArrivalTracedCallback");
    return tid;
}

void
ArrivalSequencer::Install(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this << node->GetId());
    const uint32_t id = node->GetId();
    if (id < m_tc.size() && m_tc[id])
    {
        return;
    }
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    if (!tc)
    {
        throw std::invalid_argument("node " + std::to_string(id) +
                                    " has no internet stack: install it (InternetStackHelper) "
                                    "before the arrival sequencer");
    }
    // The node hands the IPv4 and ARP (and IPv6) packets of each interface's device to the
    // traffic control layer: Ipv4L3Protocol::AddInterface and Ipv6L3Protocol::AddInterface
    // register it once per protocol and device; the loopback's go straight to IP.
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    Ptr<Ipv6> ipv6 = node->GetObject<Ipv6>();
    std::vector<std::pair<uint16_t, Ptr<NetDevice>>> handled;
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        Ptr<NetDevice> device = node->GetDevice(d);
        if (DynamicCast<LoopbackNetDevice>(device))
        {
            continue;
        }
        if (ipv4 && ipv4->GetInterfaceForDevice(device) >= 0)
        {
            handled.emplace_back(Ipv4L3Protocol::PROT_NUMBER, device);
            handled.emplace_back(ArpL3Protocol::PROT_NUMBER, device);
        }
        if (ipv6 && ipv6->GetInterfaceForDevice(device) >= 0)
        {
            handled.emplace_back(Ipv6L3Protocol::PROT_NUMBER, device);
        }
    }
    // Node::UnregisterProtocolHandler removes one registration of the handler per call.
    for (std::size_t i = 0; i < handled.size(); ++i)
    {
        node->UnregisterProtocolHandler(MakeCallback(&TrafficControlLayer::Receive, tc));
    }
    for (const auto& [protocol, device] : handled)
    {
        node->RegisterProtocolHandler(MakeCallback(&ArrivalSequencer::Receive, this),
                                      protocol,
                                      device);
    }
    m_tc.resize(std::max<std::size_t>(m_tc.size(), id + 1));
    m_tc[id] = tc;
    NS_LOG_INFO("node " << id << ": " << handled.size() << " handlers sequenced");
}

uint64_t
ArrivalSequencer::GetSimultaneous() const
{
    return m_simultaneous;
}

void
ArrivalSequencer::DoDispose()
{
    m_tc.clear();
    m_held.clear();
    Object::DoDispose();
}

void
ArrivalSequencer::Receive(Ptr<NetDevice> device,
                          Ptr<const Packet> packet,
                          uint16_t protocol,
                          const Address& from,
                          const Address& to,
                          NetDevice::PacketType type)
{
    NS_LOG_FUNCTION(this << device << packet);
    m_held.push_back(
        Arrival{device->GetNode()->GetId(), device, packet, protocol, from, to, type, false});
    if (!m_looking)
    {
        m_looking = true;
        Simulator::ScheduleNow(&ArrivalSequencer::EndOfInstant, this, true);
    }
}

void
ArrivalSequencer::EndOfInstant(bool first)
{
    // Simulator::GetEventCount counts this event too: one more than at the last look means
    // that nothing else ran in between, so nothing of this instant is left to run (an event
    // made at it would have been made by one that ran).
    const uint64_t events = Simulator::GetEventCount();
    if (first || events != m_eventsAtLook + 1)
    {
        m_eventsAtLook = events;
        Simulator::ScheduleNow(&ArrivalSequencer::EndOfInstant, this, false);
        return;
    }
    m_looking = false;
    std::vector<Arrival> held;
    held.swap(m_held);
    std::stable_sort(held.begin(), held.end(), [](const Arrival& a, const Arrival& b) {
        return a.node != b.node ? a.node < b.node
                                : a.device->GetIfIndex() < b.device->GetIfIndex();
    });
    for (std::size_t i = 0; i < held.size(); ++i)
    {
        const bool withPrevious = i > 0 && held[i - 1].node == held[i].node;
        const bool withNext = i + 1 < held.size() && held[i + 1].node == held[i].node;
        held[i].simultaneous = withPrevious || withNext;
        m_simultaneous += withPrevious && !(i > 1 && held[i - 2].node == held[i].node) ? 1 : 0;
        // Each in an event of its own: a packet forwarded to another rank tells that rank
        // (null-message synchronizer) that nothing comes before the next event here.
        Simulator::ScheduleWithContext(held[i].node,
                                       Seconds(0),
                                       &ArrivalSequencer::Deliver,
                                       this,
                                       held[i]);
    }
}

void
ArrivalSequencer::Deliver(const Arrival& a)
{
    NS_LOG_FUNCTION(this << a.node << a.packet);
    if (a.simultaneous)
    {
        m_handedOn(a.device, a.packet);
    }
    m_tc[a.node]->Receive(a.device, a.packet, a.protocol, a.from, a.to, a.type);
}

} // namespace ns3
