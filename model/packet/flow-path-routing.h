/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_FLOW_PATH_ROUTING_H
#define NS3_ALLREDUCE_FLOW_PATH_ROUTING_H

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Static routes that make packets follow given paths: a route per flow (addresses and ports),
 * so that every workload takes the path its schedule names, and a route per destination
 * address along the destination's flow tree for everything else; both in hash tables.
 *
 * A host route is the output interface and the next hop (the node's parent in the destination
 * server's flow tree). DcnTopologyHelper installs it on every
 * node, in the node's Ipv4ListRouting above Ipv4StaticRouting, so that packets to servers follow
 * the trees and everything else (directly connected subnets) falls through to static routing.
 *
 * Ipv4StaticRouting would do the same with host routes, but it checks each added route against
 * all earlier ones and looks routes up linearly: with one route per server address on every
 * node that costs seconds to build and a scan per packet per hop on large topologies (BCube(8,2):
 * 1536 routes a node). Here adding and looking up a route take constant time.
 *
 * It can also hold flow routes, for single TCP or UDP flows that must take a path of their own
 * (the packet-level AllReduce gives every workload the path its schedule names, which a
 * per-destination table cannot express when two workloads to one server take different paths).
 * A flow route matches the source and destination addresses and ports; it is looked up first,
 * and a packet of no flow (or with no flow route here) falls back to the host route.
 *
 * A route whose interface is down is not used: the packet is left to the next protocol (and is
 * dropped when none has a route), as with static routing.
 */
class FlowPathRouting : public Ipv4RoutingProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowPathRouting();
    ~FlowPathRouting() override;

    /**
     * Adds or replaces the route to one destination.
     * \param destination the destination address
     * \param nextHop the next hop's address on the link of interface
     * \param interface the output interface index
     */
    void AddHostRoute(Ipv4Address destination, Ipv4Address nextHop, uint32_t interface);
    /**
     * Adds or replaces the route of one flow (TCP or UDP, either direction of a connection is
     * its own flow).
     * \param source the flow's source address \param sourcePort its source port
     * \param destination its destination address \param destinationPort its destination port
     * \param nextHop the next hop's address on the link of interface
     * \param interface the output interface index
     */
    void AddFlowRoute(Ipv4Address source,
                      uint16_t sourcePort,
                      Ipv4Address destination,
                      uint16_t destinationPort,
                      Ipv4Address nextHop,
                      uint32_t interface);
    /**
     * Sets the source address that routes for locally sent packets carry (sockets bound to no
     * address take it as theirs). A server uses one address for everything it sends, so that
     * its flows are known by that address wherever the first hop goes.
     * \param address the address; the default (Ipv4Address::GetAny) means the output
     *        interface's own address
     */
    void SetSourceAddress(Ipv4Address address);
    /// \return the number of host routes
    uint32_t GetNRoutes() const;
    /// \return the number of flow routes
    uint32_t GetNFlowRoutes() const;
    /**
     * \param destination a destination address
     * \param[out] interface the output interface, when there is a route
     * \param[out] nextHop the next hop, when there is a route
     * \return true when there is a route to destination (whether its interface is up or not)
     */
    bool LookupHostRoute(Ipv4Address destination, uint32_t& interface, Ipv4Address& nextHop) const;

    // Inherited from Ipv4RoutingProtocol
    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    compat::RouteInputCallback<UnicastForwardCallback> ucb,
                    compat::RouteInputCallback<MulticastForwardCallback> mcb,
                    compat::RouteInputCallback<LocalDeliverCallback> lcb,
                    compat::RouteInputCallback<ErrorCallback> ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  protected:
    void DoDispose() override;

  private:
    /// One route: where a destination's packets leave, and to whom.
    struct Route
    {
        uint32_t interface; //!< output interface index
        Ipv4Address nextHop; //!< next hop address
    };

    /// A flow: addresses and ports.
    struct FlowKey
    {
        uint32_t source;          //!< source address
        uint32_t destination;     //!< destination address
        uint16_t sourcePort;      //!< source port
        uint16_t destinationPort; //!< destination port

        /// \param o another key \return true when equal
        bool operator==(const FlowKey& o) const
        {
            return source == o.source && destination == o.destination &&
                   sourcePort == o.sourcePort && destinationPort == o.destinationPort;
        }
    };

    /// Hash of a FlowKey.
    struct FlowKeyHash
    {
        /// \param k a key \return its hash
        size_t operator()(const FlowKey& k) const
        {
            const uint64_t a = (uint64_t{k.source} << 32) | k.destination;
            const uint64_t b = (uint64_t{k.sourcePort} << 16) | k.destinationPort;
            return std::hash<uint64_t>()(a * 0x9E3779B97F4A7C15ULL ^ b);
        }
    };

    /**
     * \param p the packet, starting with its TCP or UDP header (may be null)
     * \param header its IPv4 header
     * \return the route of its flow, else of its destination, through an interface that is
     *         up, or null
     */
    Ptr<Ipv4Route> MakeRoute(Ptr<const Packet> p, const Ipv4Header& header) const;
    /**
     * \param destination the destination address
     * \param route the route to it
     * \return a route object through an interface that is up, or null
     */
    Ptr<Ipv4Route> MakeRoute(Ipv4Address destination, const Route& route) const;

    Ptr<Ipv4> m_ipv4;                                //!< the node's IPv4
    Ipv4Address m_source{Ipv4Address::GetAny()};     //!< source of local packets (any: iface)
    std::unordered_map<uint32_t, Route> m_routes;    //!< destination address -> route
    std::unordered_map<FlowKey, Route, FlowKeyHash> m_flowRoutes; //!< flow -> route
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_FLOW_PATH_ROUTING_H */
