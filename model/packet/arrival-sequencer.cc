/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "arrival-sequencer.h"

#include "ns3/ipv4.h"
#include "ns3/ipv6.h"
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
                            "A packet that arrived at the same instant as others, handed on to "
                            "the node in the order of the devices",
                            MakeTraceSourceAccessor(&ArrivalSequencer::m_handedOn),
                            "ns3::ArrivalSequencer::HandedOnCallback");
    return tid;
}

Ptr<ArrivalSequencer>
ArrivalSequencer::Install(Ptr<Node> node)
{
    if (Ptr<ArrivalSequencer> existing = node->GetObject<ArrivalSequencer>())
    {
        return existing;
    }
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    if (!tc)
    {
        throw std::invalid_argument("node " + std::to_string(node->GetId()) +
                                    " has no internet stack: install it (InternetStackHelper) "
                                    "before the arrival sequencer");
    }
    // The node hands IPv4 and ARP (and IPv6) packets of each interface's device to the traffic
    // control layer (Ipv4L3Protocol::AddInterface, Ipv6L3Protocol::AddInterface register it
    // once per protocol and device); the loopback's go straight to IP.
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
            handled.emplace_back(0x0800, device);
            handled.emplace_back(0x0806, device);
        }
        if (ipv6 && ipv6->GetInterfaceForDevice(device) >= 0)
        {
            handled.emplace_back(0x86DD, device);
        }
    }
    Ptr<ArrivalSequencer> sequencer = CreateObject<ArrivalSequencer>();
    sequencer->m_tc = tc;
    // Node::UnregisterProtocolHandler removes one registration of the handler per call.
    for (std::size_t i = 0; i < handled.size(); ++i)
    {
        node->UnregisterProtocolHandler(MakeCallback(&TrafficControlLayer::Receive, tc));
    }
    for (const auto& [protocol, device] : handled)
    {
        node->RegisterProtocolHandler(MakeCallback(&ArrivalSequencer::Receive, sequencer),
                                      protocol,
                                      device);
    }
    node->AggregateObject(sequencer);
    NS_LOG_INFO("node " << node->GetId() << ": " << handled.size() << " handlers sequenced");
    return sequencer;
}

uint64_t
ArrivalSequencer::GetSimultaneous() const
{
    return m_simultaneous;
}

void
ArrivalSequencer::DoDispose()
{
    m_tc = nullptr;
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
    m_held.push_back(Arrival{device, packet, protocol, from, to, type});
    if (!m_flushPending)
    {
        // Every packet of this instant was scheduled before the instant began (a link has a
        // transmission time; one from another rank is read before the rank reaches its
        // time), so this flush runs after all of them.
        m_flushPending = true;
        Simulator::ScheduleNow(&ArrivalSequencer::Flush, this);
    }
}

void
ArrivalSequencer::Flush()
{
    m_flushPending = false;
    std::vector<Arrival> held;
    held.swap(m_held);
    if (held.size() > 1)
    {
        ++m_simultaneous;
        std::stable_sort(held.begin(), held.end(), [](const Arrival& a, const Arrival& b) {
            return a.device->GetIfIndex() < b.device->GetIfIndex();
        });
        for (const Arrival& a : held)
        {
            m_handedOn(a.device, a.packet);
        }
    }
    for (const Arrival& a : held)
    {
        m_tc->Receive(a.device, a.packet, a.protocol, a.from, a.to, a.type);
    }
}

} // namespace ns3
