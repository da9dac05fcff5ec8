/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_FLOW_ECMP_ROUTING_H
#define NS3_ALLREDUCE_FLOW_ECMP_ROUTING_H

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Equal-cost multi-path routing per flow, over ns-3's global routing (doc/allreduce.rst,
 * "AllReduce on your own network"), as data-center switches hash flows onto equal-cost
 * paths. ns-3.37's Ipv4GlobalRouting computes every equal-cost next hop but either takes the
 * first or (RandomEcmpRouting) draws one per packet, which reorders a TCP flow. This protocol
 * reads the same table (the node's Ipv4GlobalRouting, in the same Ipv4ListRouting) and takes,
 * among the routes global routing would choose from (host routes to the destination, or else
 * network routes that match it), the one a hash of the flow's addresses, protocol and TCP or
 * UDP ports picks: every packet of a flow takes one path, different flows spread.
 *
 * Add it to each node's Ipv4ListRouting above global routing (FlowEcmpRoutingHelper, e.g. at
 * priority -5 with global routing at -10), then populate global routing's tables as usual.
 * Where it finds no route (no global routing, no route) the next protocol of the list decides.
 * Unlike global routing it skips routes whose interface is down, and counts AS-external routes
 * with the network routes (global routing takes them only when no network route matches).
 * Each lookup reads the table anew (GetRoute), in time that grows with the square of its
 * routes: made for the networks a user wires by hand, not for thousands of routes.
 */
class FlowEcmpRouting : public Ipv4RoutingProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FlowEcmpRouting();
    ~FlowEcmpRouting() override;

    /**
     * The route a packet of a flow takes here.
     * \param header the IPv4 header (source, destination, protocol)
     * \param packet the packet without its IPv4 header (its TCP or UDP ports are read), or
     *        null (the ports count as 0)
     * \param oif the output device asked for, or null
     * \return the route, or null when global routing has none
     */
    Ptr<Ipv4Route> Lookup(const Ipv4Header& header,
                          Ptr<const Packet> packet,
                          Ptr<NetDevice> oif) const;

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
    /// \return the node's global routing (from its Ipv4ListRouting), or null
    Ptr<Ipv4GlobalRouting> GetGlobalRouting() const;

    Ptr<Ipv4> m_ipv4;  //!< the node's IPv4
    uint32_t m_salt{0}; //!< mixed into the hash (Salt)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_FLOW_ECMP_ROUTING_H */
