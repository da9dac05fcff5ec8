/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LOSSLESS_NET_DEVICE_H
#define NS3_ALLREDUCE_LOSSLESS_NET_DEVICE_H

#include "pfc-header.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-rdma RDMA at packet level
 * \ingroup allreduce
 * Lossless Ethernet (priority flow control, shared switch buffers, ECN marking) and the RoCEv2
 * transport with DCQCN (doc/allreduce.rst, "RDMA").
 */

class LosslessChannel;

/**
 * \ingroup allreduce-rdma
 * An Ethernet port of lossless Ethernet (IEEE 802.1Qbb): eight egress queues, one per priority
 * class, served in strict priority (7 first); priority flow control frames that pause and
 * resume a class, sent ahead of every queued frame and honoured per class; ECN marking at
 * egress (RED-like between Kmin and Kmax, as DCQCN's congestion point).
 *
 * A packet's class is its IPv4 DSCP's class selector (DSCP / 8): RoCEv2 data at DSCP 26 is
 * class 3, its CNPs at DSCP 48 class 6, TCP at DSCP 0 class 0; other protocols take class 0.
 * Frames carry an Ethernet II header and FCS, and the line also spends PreambleAndGap bytes per
 * frame. The port does not decide what to pause: its node's SharedBuffer does, as packets come
 * in (tagged with PfcIngressTag) and leave; without a SharedBuffer the port forwards whatever it
 * is given. With CutThrough (DcnTopologyHelper sets it on switch ports), a data frame is handed
 * on once its first 64 bytes are in, so that it may leave by another port while it still
 * arrives, as cut-through switches forward; it leaves no earlier than its tail allows (a faster
 * egress port waits), and one for the node itself waits for its tail. Traces: PhyTxBegin (the
 * frame), PfcSent, PfcReceived, EcnMarked, Drop.
 */
class LosslessNetDevice : public NetDevice
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    LosslessNetDevice();
    ~LosslessNetDevice() override;

    /// What the port counted.
    struct Counters
    {
        uint64_t pausesSent{0};     //!< PFC frames that paused a class (not resumes)
        uint64_t resumesSent{0};    //!< PFC frames that resumed a class
        uint64_t pausesReceived{0}; //!< PFC pause frames received
        uint64_t ecnMarks{0};       //!< packets marked CE here
        uint64_t drops{0};          //!< packets dropped (buffer full, receive errors)
    };

    /**
     * \param channel the cable this port is on (LosslessChannel::Attach is called)
     */
    void Attach(Ptr<LosslessChannel> channel);
    /**
     * A frame arrives from the cable (called by LosslessChannel).
     * \param frame the frame
     * \param tail how long until its last bit is in (zero: it is whole; more when the port
     *        cuts through and only its header is in)
     */
    void Receive(Ptr<Packet> frame, Time tail);
    /// \return whether received data frames are handed on from their header (CutThrough)
    bool IsCutThrough() const;
    /**
     * Sends a PFC frame for one class, ahead of every queued frame (called by the SharedBuffer).
     * \param cls the class \param quanta the pause time (0: resume)
     */
    void SendPfc(uint8_t cls, uint16_t quanta);
    /// \param quanta PFC quanta \return how long they pause at this port's rate
    Time QuantaToTime(uint16_t quanta) const;
    /// \param cls a class \return whether the peer has paused it now
    bool IsPaused(uint8_t cls) const;
    /// \param cls a class \return bytes of IP packets waiting in its egress queue
    uint64_t GetQueuedBytes(uint8_t cls) const;
    /// \param cls a class \return bytes of packets made on this node waiting in it (not those
    ///        it forwards)
    uint64_t GetLocalQueuedBytes(uint8_t cls) const;
    /**
     * \param callback called once, the next time a frame leaves an egress queue (a sender that
     *        found the queue full waits for it, as a NIC pulls from its queue pairs)
     */
    void NotifyWhenDequeued(Callback<void> callback);
    /// \return the line rate
    DataRate GetDataRate() const;
    /// \return whether it sends and honours PFC frames
    bool IsPfcEnabled() const;
    /// \return bytes a frame adds to an IP packet on the line (Ethernet, FCS, PreambleAndGap)
    uint32_t GetFrameOverhead() const;
    /// \return what the port counted
    const Counters& GetCounters() const;
    /**
     * \param packet an IPv4 packet (IPv4 header first) or anything else
     * \param protocol its EtherType
     * \return its priority class: its DSCP / 8 for IPv4, else 0
     */
    static uint8_t ClassOf(Ptr<const Packet> packet, uint16_t protocol);
    /**
     * Checks the ECN attributes.
     * \throws std::invalid_argument naming the bad value: EcnKmin above EcnKmax, EcnPmax
     *         outside (0, 1]
     */
    void Validate() const;
    /**
     * Uses fixed random streams for ECN marking.
     * \param stream the first stream \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// TracedCallback signature of a PFC frame. \param cls its class \param quanta its time
    typedef void (*PfcTracedCallback)(uint8_t cls, uint16_t quanta);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    /// An IP packet waiting at egress.
    struct Queued
    {
        Ptr<Packet> packet; //!< the packet, without Ethernet header
        uint16_t protocol;  //!< its EtherType
        bool local;         //!< made on this node (not forwarded)
    };

    /// Marks CE on an ECN-capable IPv4 packet as DCQCN's congestion point does.
    /// \param packet the packet \param cls its class
    void MarkEcn(Ptr<Packet> packet, uint8_t cls);
    /// Starts the next frame when the line is free: a PFC frame, else the highest class not paused.
    void TransmitNext();
    /// The frame on the line has left.
    void TransmitComplete();
    /// \param frame a frame \param protocol its EtherType \return it with Ethernet header and FCS
    Ptr<Packet> Frame(Ptr<Packet> frame, uint16_t protocol) const;
    /// \param header a PFC frame received
    void HonourPfc(const PfcHeader& header);
    /// \param frame a received IPv4 frame, Ethernet header first \return whether it is for
    ///        this node (one of its addresses)
    bool IsForThisNode(Ptr<const Packet> frame) const;
    /// \param packet a queued packet \return the earliest it may start (its tail's arrival less
    ///        its transmission here; zero when it arrived whole)
    Time EarliestStart(Ptr<const Packet> packet) const;

    // Attributes
    DataRate m_rate;                     //!< line rate
    uint16_t m_mtu{9000};                //!< MTU (IP packet bytes)
    uint32_t m_preambleAndGap{20};       //!< line bytes per frame beyond the frame
    bool m_pfc{true};                    //!< sends and honours PFC frames
    bool m_ecn{true};                    //!< marks ECN at egress
    bool m_cutThrough{false};            //!< hands data frames on from their header
    uint32_t m_kmin{0};                  //!< marking starts above it (bytes queued in the class)
    uint32_t m_kmax{0};                  //!< marking probability reaches Pmax at it, 1 above
    double m_pmax{0};                    //!< marking probability at Kmax
    Ptr<ErrorModel> m_receiveErrorModel; //!< drops received frames

    Ptr<Node> m_node;                                            //!< the node
    Ptr<LosslessChannel> m_channel;                              //!< the cable
    Mac48Address m_address;                                      //!< the MAC address
    uint32_t m_ifIndex{0};                                       //!< index on the node
    NetDevice::ReceiveCallback m_rxCallback;                     //!< up to the node
    NetDevice::PromiscReceiveCallback m_promiscCallback;         //!< promiscuous listeners
    std::vector<Callback<void>> m_linkChangeCallbacks;           //!< told of link changes
    std::array<std::deque<Queued>, PfcHeader::CLASSES> m_queues; //!< egress, per class
    std::array<uint64_t, PfcHeader::CLASSES> m_queuedBytes{};    //!< bytes per class
    std::array<uint64_t, PfcHeader::CLASSES> m_localBytes{};     //!< of them, made here
    std::deque<Ptr<Packet>> m_pfcFrames;                         //!< PFC frames to send first
    std::array<Time, PfcHeader::CLASSES> m_pausedUntil;          //!< per class, paused till then
    EventId m_wake;                               //!< the end of the earliest pause holding a frame
    bool m_busy{false};                           //!< a frame is on the line
    std::vector<Callback<void>> m_dequeueWaiters; //!< NotifyWhenDequeued
    Ptr<UniformRandomVariable> m_uniform;         //!< ECN marking draws
    Counters m_counters;                          //!< counts

    TracedCallback<Ptr<const Packet>> m_phyTxBegin;  //!< a frame starts on the line
    TracedCallback<uint8_t, uint16_t> m_pfcSent;     //!< a PFC frame sent
    TracedCallback<uint8_t, uint16_t> m_pfcReceived; //!< a PFC frame received
    TracedCallback<Ptr<const Packet>> m_ecnMarked;   //!< a packet marked CE
    TracedCallback<Ptr<const Packet>> m_drop;        //!< a packet dropped
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LOSSLESS_NET_DEVICE_H */
