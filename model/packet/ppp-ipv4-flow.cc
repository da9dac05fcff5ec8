/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ppp-ipv4-flow.h"

namespace ns3
{

bool
ReadPppIpv4Flow(Ptr<const Packet> packet, PppIpv4Flow& flow)
{
    // A PPP header (2 bytes: 0x0021) or an Ethernet II header (14 bytes, EtherType 0x0800 at
    // 12), the IPv4 header (IHL words), then the TCP or UDP ports.
    uint8_t bytes[14 + 60 + 4];
    const uint32_t got = packet->CopyData(bytes, sizeof(bytes));
    const bool ppp = got >= 2 && bytes[0] == 0x00 && bytes[1] == 0x21;
    const bool ethernet = !ppp && got >= 14 && bytes[12] == 0x08 && bytes[13] == 0x00;
    const uint32_t PPP = ppp ? 2 : 14; // where the IPv4 header starts
    if ((!ppp && !ethernet) || got < PPP + 20 || (bytes[PPP] >> 4) != 4)
    {
        return false;
    }
    const uint8_t protocol = bytes[PPP + 9];
    const uint32_t ports = PPP + 4 * uint32_t(bytes[PPP] & 0x0f);
    if ((protocol != 6 && protocol != 17) || got < ports + 4)
    {
        return false;
    }
    const auto word = [&bytes](uint32_t at) {
        return uint32_t(bytes[at]) << 24 | uint32_t(bytes[at + 1]) << 16 |
               uint32_t(bytes[at + 2]) << 8 | bytes[at + 3];
    };
    flow.source = Ipv4Address(word(PPP + 12));
    flow.destination = Ipv4Address(word(PPP + 16));
    flow.sourcePort = static_cast<uint16_t>(bytes[ports] << 8 | bytes[ports + 1]);
    flow.destinationPort = static_cast<uint16_t>(bytes[ports + 2] << 8 | bytes[ports + 3]);
    flow.protocol = protocol;
    flow.identification = static_cast<uint16_t>(bytes[PPP + 4] << 8 | bytes[PPP + 5]);
    flow.laterFragment = ((bytes[PPP + 6] & 0x1f) | bytes[PPP + 7]) != 0;
    return true;
}

} // namespace ns3
