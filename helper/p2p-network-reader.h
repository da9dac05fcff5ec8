/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_P2P_NETWORK_READER_H
#define NS3_ALLREDUCE_P2P_NETWORK_READER_H

#include "ns3/ipv4-interface-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/topology.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * Reads a network a user built with ns-3's own helpers (nodes, point-to-point links, the
 * internet stack, IPv4 addresses) into the module's Topology, so that an AllReduce can run on
 * it (DcnTopologyHelper's constructor that takes nodes uses it; doc/allreduce.rst, "AllReduce
 * on your own network").
 *
 * The user names the servers, in the order that becomes their server index. The switches are
 * the other nodes: named too, or found by following point-to-point channels from the servers.
 * Every point-to-point channel between two nodes of the network becomes a topology link;
 * other devices (CSMA, Wi-Fi, ...) are not part of it. Each link end must have an IPv4
 * address, and both ends one subnet.
 *
 * Bad input is refused with an std::invalid_argument that names the ns-3 node: no servers; a
 * node named twice, or both as a server and as a switch; a server without a point-to-point
 * link (e.g. reached only through CSMA); two links between one pair of nodes; a network that
 * is not connected; a node without an internet stack; a link end without an IPv4 address; two
 * link ends outside one subnet; an address used twice.
 */
class P2pNetworkReader
{
  public:
    /// A network read from ns-3.
    struct Network
    {
        Topology topology; //!< servers 0..S-1 in the order named, then the switches
        NodeContainer nodes; //!< the ns-3 nodes, in model id order
        std::vector<NetDeviceContainer> links; //!< per topology link, its devices (end a, b)
        std::vector<Ipv4InterfaceContainer> interfaces; //!< per link, its ends' interfaces
    };

    /// \param name the topology's name (default: "ns-3 network")
    void SetName(const std::string& name);

    /**
     * Reads the network of the servers: every node reached from them over point-to-point
     * channels is a switch (in ns-3 node id order).
     * \param servers the servers, server i at index i
     * \return the network
     * \throws std::invalid_argument for bad input (see the class)
     */
    Network Read(const NodeContainer& servers) const;
    /**
     * Reads the network of the nodes named: links to other nodes are not part of it.
     * \param servers the servers, server i at index i
     * \param switches the switches, switch j at index j
     * \return the network
     * \throws std::invalid_argument for bad input (see the class)
     */
    Network Read(const NodeContainer& servers, const NodeContainer& switches) const;

  private:
    /**
     * \param servers the servers \param switches the switches, or empty to find them
     * \param find true to find the switches
     * \return the network
     */
    Network DoRead(const NodeContainer& servers, const NodeContainer& switches, bool find) const;
    /// Adds the links between the network's nodes, in model id and device order.
    void ReadLinks(Network& network) const;
    /// Checks the addresses and fills network.interfaces.
    void ReadAddresses(Network& network) const;
    /// Throws when a server cannot reach server 0 over the links read.
    void CheckConnected(const Network& network) const;

    std::string m_name{"ns-3 network"}; //!< the topology's name
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_P2P_NETWORK_READER_H */
