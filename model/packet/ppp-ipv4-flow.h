/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PPP_IPV4_FLOW_H
#define NS3_ALLREDUCE_PPP_IPV4_FLOW_H

#include "ns3/ipv4-address.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The flow a packet belongs to, read from its bytes as a point-to-point device (PPP header) or
 * a lossless Ethernet port (Ethernet II header) transmits it, then the IPv4 header and the TCP
 * or UDP ports: what LinkLoadMonitor and PathRecorder read at every device's PhyTxBegin.
 */
struct PppIpv4Flow
{
    Ipv4Address source;          //!< IPv4 source address
    uint16_t sourcePort{0};      //!< TCP or UDP source port
    Ipv4Address destination;     //!< IPv4 destination address
    uint16_t destinationPort{0}; //!< TCP or UDP destination port
    uint8_t protocol{0};         //!< 6 (TCP) or 17 (UDP)
    uint16_t identification{0};  //!< the IPv4 identification
    bool laterFragment{false};   //!< a fragment after the first: its "ports" are payload
};

/**
 * \param packet a frame as a point-to-point device (PPP header first) or a lossless Ethernet
 *        port (Ethernet II header first) transmits it
 * \param[out] flow its flow, when it is one
 * \return true when it is an IPv4 TCP or UDP packet long enough to hold the ports
 */
bool ReadPppIpv4Flow(Ptr<const Packet> packet, PppIpv4Flow& flow);

} // namespace ns3

#endif /* NS3_ALLREDUCE_PPP_IPV4_FLOW_H */
