/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ARRIVAL_SEQUENCER_H
#define NS3_ALLREDUCE_ARRIVAL_SEQUENCER_H

#include "ns3/address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"
#include "ns3/traffic-control-layer.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Hands the nodes the packets that arrive at one instant in one fixed order, so that a
 * distributed run does not depend on how the network is split into ranks ("Distributed runs"
 * in the manual).
 *
 * ns-3 runs the events of one instant in the order they were created. A packet that comes
 * over a link from another rank is created when its MPI message is read, later than the same
 * packet on one process, so at one nanosecond it may come before or after a transmission that
 * completes, or another packet, at its node: a queue then serves them the other way round,
 * and the run ends a few nanoseconds earlier or later on some number of ranks.
 *
 * The sequencer sits between each node and its traffic control layer. It holds every packet
 * that arrives at an instant until every other event of that instant has run (also those
 * made at the instant, such as a queue disc woken by a completed transmission: it looks again
 * until an instant's look finds that nothing else ran), then hands each on in an event of its
 * own at the same instant, by node id and then device index. No time changes, only the order
 * within an instant. One sequencer serves the nodes of one simulation (one rank).
 */
class ArrivalSequencer : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    /**
     * Puts the sequencer between the node and its traffic control layer, for every device with
     * an IPv4 or IPv6 interface (not the loopback); the node's other protocol handlers stay.
     * Does nothing for a node it serves already.
     * \param node a node with the internet stack and its interfaces installed
     * \throws std::invalid_argument when the node has no internet stack
     */
    void Install(Ptr<Node> node);

    /// \return how many times more than one packet arrived at a node at one instant
    uint64_t GetSimultaneous() const;

    /**
     * TracedCallback signature for a packet that arrived at its node at the same instant as
     * others, as it is handed on. \param device the device it came in on \param packet it
     */
    typedef void (*ArrivalTracedCallback)(Ptr<const NetDevice> device, Ptr<const Packet> packet);

  protected:
    void DoDispose() override;

  private:
    /// One packet held until the end of its instant.
    struct Arrival
    {
        uint32_t node;                   //!< the node it arrived at
        Ptr<NetDevice> device;           //!< the device it came in on
        Ptr<const Packet> packet;        //!< the packet
        uint16_t protocol;               //!< its protocol number
        Address from;                    //!< the sender's address
        Address to;                      //!< the receiving address
        NetDevice::PacketType type;      //!< the packet type
        bool simultaneous;               //!< others arrived at its node at the same instant
    };

    /// Holds a packet a node received (the nodes' protocol handler).
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);

    /**
     * Looks whether the instant's other events have all run; if so, hands the held packets
     * on, else looks again after those that ran since.
     * \param first the look scheduled by the instant's first arrival (it always looks again:
     *        the arrival's event may have made events after it)
     */
    void EndOfInstant(bool first);

    /// Hands one held packet to its node's traffic control layer. \param a the packet
    void Deliver(const Arrival& a);

    std::vector<Ptr<TrafficControlLayer>> m_tc; //!< per node id, where packets go on (null:
                                                //!< not served)
    std::vector<Arrival> m_held;     //!< the packets of this instant
    bool m_looking{false};           //!< an end-of-instant look is scheduled
    uint64_t m_eventsAtLook{0};      //!< events run when the last look was scheduled
    uint64_t m_simultaneous{0};      //!< GetSimultaneous
    /// Trace: a packet that arrived at its node with others at one instant, handed on.
    TracedCallback<Ptr<const NetDevice>, Ptr<const Packet>> m_handedOn;
};

} // namespace ns3

#endif // NS3_ALLREDUCE_ARRIVAL_SEQUENCER_H
