/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-ecmp-routing.h"

#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <ostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowEcmpRouting");
NS_OBJECT_ENSURE_REGISTERED(FlowEcmpRouting);

namespace
{

/// FNV-1a over the bytes of v, continuing from hash \return the hash
uint32_t
Mix(uint32_t hash, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        hash = (hash ^ ((v >> (8 * i)) & 0xffu)) * 16777619u;
    }
    return hash;
}

} // namespace

TypeId
FlowEcmpRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowEcmpRouting")
            .SetParent<Ipv4RoutingProtocol>()
            .SetGroupName("AllReduce")
            .AddConstructor<FlowEcmpRouting>()
            .AddAttribute("Salt",
                          "Mixed into the hash of each flow: another salt spreads the flows "
                          "differently (as switches seed their ECMP hash).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlowEcmpRouting::m_salt),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

FlowEcmpRouting::FlowEcmpRouting() = default;

FlowEcmpRouting::~FlowEcmpRouting() = default;

void
FlowEcmpRouting::DoDispose()
{
    m_ipv4 = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

Ptr<Ipv4GlobalRouting>
FlowEcmpRouting::GetGlobalRouting() const
{
    Ptr<Ipv4ListRouting> list =
        m_ipv4 ? DynamicCast<Ipv4ListRouting>(m_ipv4->GetRoutingProtocol()) : nullptr;
    for (uint32_t i = 0; list && i < list->GetNRoutingProtocols(); ++i)
    {
        int16_t priority;
        if (Ptr<Ipv4GlobalRouting> global =
                DynamicCast<Ipv4GlobalRouting>(list->GetRoutingProtocol(i, priority)))
        {
            return global;
        }
    }
    return nullptr;
}

Ptr<Ipv4Route>
FlowEcmpRouting::Lookup(const Ipv4Header& header,
                        Ptr<const Packet> packet,
                        Ptr<NetDevice> oif) const
{
    Ptr<Ipv4GlobalRouting> global = GetGlobalRouting();
    if (!global)
    {
        return nullptr;
    }
    // The routes global routing chooses from: host routes to the destination, or else the
    // network routes that match it; on the output device asked for, if any.
    const Ipv4Address destination = header.GetDestination();
    std::vector<Ipv4RoutingTableEntry*> routes;
    for (const bool host : {true, false})
    {
        for (uint32_t i = 0; i < global->GetNRoutes(); ++i)
        {
            Ipv4RoutingTableEntry* entry = global->GetRoute(i);
            const bool match = host ? entry->IsHost() && entry->GetDest() == destination
                                    : entry->IsNetwork() &&
                                          entry->GetDestNetworkMask().IsMatch(
                                              destination,
                                              entry->GetDestNetwork());
            if (match && m_ipv4->IsUp(entry->GetInterface()) &&
                (!oif || oif == m_ipv4->GetNetDevice(entry->GetInterface())))
            {
                routes.push_back(entry);
            }
        }
        if (!routes.empty())
        {
            break;
        }
    }
    if (routes.empty())
    {
        return nullptr;
    }
    // TCP (6) and UDP (17) headers both start with the source and destination ports.
    // Not when the packet holds no such header: a later fragment, or a packet an unbound UDP
    // socket asks a route for before it adds its header (its source address is still Any).
    uint8_t ports[4] = {0, 0, 0, 0};
    if (packet && (header.GetProtocol() == 6 || header.GetProtocol() == 17) &&
        packet->GetSize() >= 4 && header.GetFragmentOffset() == 0 &&
        header.GetSource() != Ipv4Address::GetAny())
    {
        packet->CopyData(ports, 4);
    }
    uint32_t hash = Mix(2166136261u, m_salt);
    hash = Mix(hash, header.GetSource().Get());
    hash = Mix(hash, destination.Get());
    hash = Mix(hash, header.GetProtocol());
    hash = Mix(hash, uint32_t(ports[0]) << 24 | uint32_t(ports[1]) << 16 |
                         uint32_t(ports[2]) << 8 | ports[3]);
    // FNV-1a's low bits depend on few input bits (its low bit is the parity of the bytes' low
    // bits): finish with MurmurHash3's avalanche before taking the rest modulo the routes.
    hash ^= hash >> 16;
    hash *= 0x85ebca6bu;
    hash ^= hash >> 13;
    hash *= 0xc2b2ae35u;
    hash ^= hash >> 16;
    const Ipv4RoutingTableEntry* route = routes[hash % routes.size()];
    NS_LOG_LOGIC(header.GetSource() << " -> " << destination << ": " << routes.size()
                                    << " equal-cost routes, takes interface "
                                    << route->GetInterface());
    Ptr<Ipv4Route> out = Create<Ipv4Route>();
    out->SetDestination(destination);
    out->SetSource(m_ipv4->GetAddress(route->GetInterface(), 0).GetLocal());
    out->SetGateway(route->GetGateway());
    out->SetOutputDevice(m_ipv4->GetNetDevice(route->GetInterface()));
    return out;
}

Ptr<Ipv4Route>
FlowEcmpRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> route =
        header.GetDestination().IsMulticast() ? nullptr : Lookup(header, p, oif);
    sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return route;
}

bool
FlowEcmpRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            compat::RouteInputCallback<UnicastForwardCallback> ucb,
                            compat::RouteInputCallback<MulticastForwardCallback> /* mcb */,
                            compat::RouteInputCallback<LocalDeliverCallback> /* lcb */,
                            compat::RouteInputCallback<ErrorCallback> /* ecb */)
{
    // Local delivery and multicast are the list's and the other protocols' business.
    const uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    if (header.GetDestination().IsMulticast() || header.GetDestination().IsBroadcast() ||
        m_ipv4->IsDestinationAddress(header.GetDestination(), iif) || !m_ipv4->IsForwarding(iif))
    {
        return false;
    }
    Ptr<Ipv4Route> route = Lookup(header, p, nullptr);
    if (!route)
    {
        return false;
    }
    ucb(route, p, header);
    return true;
}

void
FlowEcmpRouting::NotifyInterfaceUp(uint32_t /* interface */)
{
}

void
FlowEcmpRouting::NotifyInterfaceDown(uint32_t /* interface */)
{
}

void
FlowEcmpRouting::NotifyAddAddress(uint32_t /* interface */, Ipv4InterfaceAddress /* address */)
{
}

void
FlowEcmpRouting::NotifyRemoveAddress(uint32_t /* interface */, Ipv4InterfaceAddress /* address */)
{
}

void
FlowEcmpRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
FlowEcmpRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit /* unit */) const
{
    *stream->GetStream() << "FlowEcmpRouting (salt " << m_salt
                         << "): global routing's equal-cost routes, one per flow by hash\n";
}

} // namespace ns3
