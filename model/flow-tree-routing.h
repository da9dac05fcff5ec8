/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FLOW_TREE_ROUTING_H
#define FLOW_TREE_ROUTING_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup allreduce
 * Static host routes that follow flow trees, looked up by destination in a hash table.
 *
 * It holds one route per destination address: the output interface and the next hop (the
 * node's parent in the destination server's flow tree). DcnTopologyHelper installs it on every
 * node, in the node's Ipv4ListRouting above Ipv4StaticRouting, so that packets to servers follow
 * the trees and everything else (directly connected subnets) falls through to static routing.
 *
 * Ipv4StaticRouting would do the same with host routes, but it checks each added route against
 * all earlier ones and looks routes up linearly: with one route per server address on every
 * node that costs seconds to build and a scan per packet per hop on large topologies (BCube(8,2):
 * 1536 routes a node). Here adding and looking up a route take constant time.
 *
 * A route whose interface is down is not used: the packet is left to the next protocol (and is
 * dropped when none has a route), as with static routing.
 */
class FlowTreeRouting : public Ipv4RoutingProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowTreeRouting();
    ~FlowTreeRouting() override;

    /**
     * Adds or replaces the route to one destination.
     * \param destination the destination address
     * \param nextHop the next hop's address on the link of interface
     * \param interface the output interface index
     */
    void AddHostRoute(Ipv4Address destination, Ipv4Address nextHop, uint32_t interface);
    /// \return the number of routes
    uint32_t GetNRoutes() const;
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
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
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

    /**
     * \param destination a destination address
     * \return a route object for it through an interface that is up, or null
     */
    Ptr<Ipv4Route> MakeRoute(Ipv4Address destination) const;

    Ptr<Ipv4> m_ipv4;                                //!< the node's IPv4
    std::unordered_map<uint32_t, Route> m_routes;    //!< destination address -> route
};

} // namespace ns3

#endif /* FLOW_TREE_ROUTING_H */
