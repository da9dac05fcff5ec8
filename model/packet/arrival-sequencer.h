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

#include <cstdint>
#include <vector>

namespace ns3
{

class TrafficControlLayer;

/**
 * \ingroup allreduce-packet
 * Hands a node the packets that arrive at one instant in the order of its devices, so that a
 * distributed run does not depend on how the network is split into ranks ("Distributed runs"
 * in the manual).
 *
 * ns-3 runs the events of one instant in the order they were created. A packet that comes
 * over a link from another rank is created when its MPI message is read, later than the same
 * packet on one process, so two packets that reach a node at the same nanosecond may swap:
 * a switch then queues them the other way round, and the run ends a few nanoseconds earlier
 * or later on some number of ranks. The sequencer sits between the node and its traffic
 * control layer. It holds every packet that arrives at an instant and hands them on in one
 * event scheduled at that instant, after the instant's other events (transmissions that
 * complete, timers), sorted by the device's index; a device receives at most one packet at an
 * instant. No time changes, only the order of simultaneous arrivals.
 */
class ArrivalSequencer : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    /**
     * Puts a sequencer between the node and its traffic control layer, for every device with
     * an IPv4 or IPv6 interface (not the loopback). Does nothing if the node has one already.
     * \param node a node with the internet stack and its interfaces installed
     * \return the node's sequencer
     */
    static Ptr<ArrivalSequencer> Install(Ptr<Node> node);

    /**
     * TracedCallback signature for packets handed on after others that arrived at the same
     * instant. \param device the device it came in on \param packet the packet
     */
    typedef void (*HandedOnCallback)(Ptr<const NetDevice> device, Ptr<const Packet> packet);

    /// \return how many instants had more than one arrival at this node
    uint64_t GetSimultaneous() const;

  protected:
    void DoDispose() override;

  private:
    /// One packet held until the instant's flush.
    struct Arrival
    {
        Ptr<NetDevice> device;           //!< the device it came in on
        Ptr<const Packet> packet;        //!< the packet
        uint16_t protocol;               //!< its protocol number
        Address from;                    //!< the sender's address
        Address to;                      //!< the receiving address
        NetDevice::PacketType type;      //!< the packet type
    };

    /// Holds a packet the node received (the node's protocol handler).
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType type);

    /// Hands the instant's packets to the traffic control layer, by device index.
    void Flush();

    Ptr<TrafficControlLayer> m_tc;   //!< where packets go on
    std::vector<Arrival> m_held;     //!< the packets of this instant
    bool m_flushPending{false};      //!< a flush is scheduled for this instant
    uint64_t m_simultaneous{0};      //!< instants with more than one arrival
    /// Trace: packets that arrived at one instant, in the order handed on (device, packet).
    TracedCallback<Ptr<const NetDevice>, Ptr<const Packet>> m_handedOn;
};

} // namespace ns3

#endif // NS3_ALLREDUCE_ARRIVAL_SEQUENCER_H
