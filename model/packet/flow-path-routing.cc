/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-path-routing.h"

#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowPathRouting");

NS_OBJECT_ENSURE_REGISTERED(FlowPathRouting);

TypeId
FlowPathRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowPathRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<FlowPathRouting>();
    return tid;
}

FlowPathRouting::FlowPathRouting()
{
    NS_LOG_FUNCTION(this);
}

FlowPathRouting::~FlowPathRouting()
{
    NS_LOG_FUNCTION(this);
}

void
FlowPathRouting::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_routes.clear();
    m_ipv4 = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

void
FlowPathRouting::AddHostRoute(Ipv4Address destination, Ipv4Address nextHop, uint32_t interface)
{
    NS_LOG_FUNCTION(this << destination << nextHop << interface);
    m_routes[destination.Get()] = Route{interface, nextHop};
}

void
FlowPathRouting::AddFlowRoute(Ipv4Address source,
                              uint16_t sourcePort,
                              Ipv4Address destination,
                              uint16_t destinationPort,
                              Ipv4Address nextHop,
                              uint32_t interface)
{
    NS_LOG_FUNCTION(this << source << sourcePort << destination << destinationPort << nextHop
                         << interface);
    m_flowRoutes[FlowKey{source.Get(), destination.Get(), sourcePort, destinationPort}] =
        Route{interface, nextHop};
}

void
FlowPathRouting::SetSourceAddress(Ipv4Address address)
{
    NS_LOG_FUNCTION(this << address);
    m_source = address;
}

uint32_t
FlowPathRouting::GetNRoutes() const
{
    return static_cast<uint32_t>(m_routes.size());
}

uint32_t
FlowPathRouting::GetNFlowRoutes() const
{
    return static_cast<uint32_t>(m_flowRoutes.size());
}

bool
FlowPathRouting::LookupHostRoute(Ipv4Address destination,
                                 uint32_t& interface,
                                 Ipv4Address& nextHop) const
{
    const auto it = m_routes.find(destination.Get());
    if (it == m_routes.end())
    {
        return false;
    }
    interface = it->second.interface;
    nextHop = it->second.nextHop;
    return true;
}

Ptr<Ipv4Route>
FlowPathRouting::MakeRoute(Ipv4Address destination, const Route& r) const
{
    if (!m_ipv4 || !m_ipv4->IsUp(r.interface))
    {
        return nullptr;
    }
    Ptr<Ipv4Route> route = Create<Ipv4Route>();
    route->SetDestination(destination);
    route->SetGateway(r.nextHop);
    route->SetOutputDevice(m_ipv4->GetNetDevice(r.interface));
    route->SetSource(m_source == Ipv4Address::GetAny() ? m_ipv4->GetAddress(r.interface, 0).GetLocal()
                                                        : m_source);
    return route;
}

Ptr<Ipv4Route>
FlowPathRouting::MakeRoute(Ptr<const Packet> p, const Ipv4Header& header) const
{
    const Ipv4Address destination = header.GetDestination();
    const uint8_t protocol = header.GetProtocol();
    // TCP (6) and UDP (17) headers both start with the source and destination ports.
    if (!m_flowRoutes.empty() && p && (protocol == 6 || protocol == 17) && p->GetSize() >= 4)
    {
        uint8_t ports[4];
        p->CopyData(ports, 4);
        const FlowKey key{header.GetSource().Get(),
                          destination.Get(),
                          static_cast<uint16_t>((ports[0] << 8) | ports[1]),
                          static_cast<uint16_t>((ports[2] << 8) | ports[3])};
        const auto it = m_flowRoutes.find(key);
        if (it != m_flowRoutes.end())
        {
            return MakeRoute(destination, it->second);
        }
    }
    const auto it = m_routes.find(destination.Get());
    return it == m_routes.end() ? nullptr : MakeRoute(destination, it->second);
}

Ptr<Ipv4Route>
FlowPathRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    NS_LOG_FUNCTION(this << p << header.GetDestination() << oif);
    Ptr<Ipv4Route> route = MakeRoute(p, header);
    if (!route && !p && !oif && m_ipv4 && m_source != Ipv4Address::GetAny())
    {
        // A lookup without a packet only picks a source address (TCP's Connect does one), and
        // a server sends from its one address whatever the interface: when the host route's
        // interface is down, any interface that is up answers, so that a flow routed around
        // the failure can still connect.
        for (uint32_t i = 1; i < m_ipv4->GetNInterfaces() && !route; ++i)
        {
            route = MakeRoute(header.GetDestination(), Route{i, Ipv4Address::GetZero()});
        }
    }
    if (route && oif && route->GetOutputDevice() != oif)
    {
        route = nullptr; // the caller insists on another device
    }
    sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return route;
}

bool
FlowPathRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            compat::RouteInputCallback<UnicastForwardCallback> ucb,
                            compat::RouteInputCallback<MulticastForwardCallback> /* mcb */,
                            compat::RouteInputCallback<LocalDeliverCallback> /* lcb */,
                            compat::RouteInputCallback<ErrorCallback> /* ecb */)
{
    NS_LOG_FUNCTION(this << p << header.GetDestination() << idev);
    // Ipv4ListRouting delivers local packets before asking its protocols; this one forwards.
    const uint32_t iif = static_cast<uint32_t>(m_ipv4->GetInterfaceForDevice(idev));
    if (!m_ipv4->IsForwarding(iif))
    {
        return false;
    }
    Ptr<Ipv4Route> route = MakeRoute(p, header);
    if (!route)
    {
        return false;
    }
    ucb(route, p, header);
    return true;
}

void
FlowPathRouting::NotifyInterfaceUp(uint32_t)
{
}

void
FlowPathRouting::NotifyInterfaceDown(uint32_t)
{
}

void
FlowPathRouting::NotifyAddAddress(uint32_t, Ipv4InterfaceAddress)
{
}

void
FlowPathRouting::NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress)
{
}

void
FlowPathRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    NS_LOG_FUNCTION(this << ipv4);
    m_ipv4 = ipv4;
}

void
FlowPathRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();
    Ptr<Node> node = m_ipv4 ? m_ipv4->GetObject<Node>() : nullptr;
    os << "Node: " << (node ? node->GetId() : 0) << ", Time: " << Now().As(unit)
       << ", FlowPathRouting table (" << m_routes.size() << " host routes, "
       << m_flowRoutes.size() << " flow routes)\n";
    os << std::left << std::setw(16) << "Destination" << std::setw(16) << "Gateway"
       << "Iface\n";
    std::vector<std::pair<uint32_t, Route>> sorted(m_routes.begin(), m_routes.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    for (const auto& [destination, route] : sorted)
    {
        std::ostringstream dest;
        std::ostringstream gateway;
        dest << Ipv4Address(destination);
        gateway << route.nextHop;
        os << std::setw(16) << dest.str() << std::setw(16) << gateway.str() << route.interface
           << "\n";
    }
    os << std::right << "\n";
}

} // namespace ns3
