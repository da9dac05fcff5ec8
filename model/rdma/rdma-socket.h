/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RDMA_SOCKET_H
#define NS3_ALLREDUCE_RDMA_SOCKET_H

#include "dcqcn-rate-control.h"
#include "roce-header.h"

#include "ns3/event-id.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

class RdmaSocketFactory;

/**
 * \ingroup allreduce-rdma
 * How a RdmaSocket recovers lost packets.
 */
enum RdmaRecovery
{
    GO_BACK_N,        //!< the receiver drops what comes after a gap and NAKs it; the sender
                      //!< resends from there (RoCE NICs' default)
    SELECTIVE_REPEAT, //!< the receiver keeps what comes after a gap; the sender resends only
                      //!< the packet NAKed
};

/**
 * \ingroup allreduce-rdma
 * One end of a reliable-connected RoCEv2 queue pair, as an ns-3 stream socket
 * (doc/allreduce.rst, "RDMA"), so that any application written for TCP sockets, such as
 * AllReduceApplication, runs over RDMA by taking RdmaSocketFactory as its socket factory.
 *
 * The queue pair is set up out of band, as collective libraries set theirs up before the
 * collective: Connect succeeds at once, and the first packet from a new peer creates the
 * responder's end at the listener (the accept callbacks fire). Bytes handed to Send go in
 * packets of PayloadSize bytes over UDP (the socket's own ports: the module's flow routes tell
 * connections by ports; RoCEv2's well-known destination port is 4791) and IPv4 at DSCP 26,
 * ECN-capable, paced at the DCQCN rate of the queue pair (DcqcnRateControl) and held back while
 * the NIC's egress queue for the class holds NicQueueFrames packets made on the node (the NIC
 * pulls from its queue pairs; a paused port stops them). The responder acknowledges cumulatively
 * every AckInterval packets and when the sender asks (the last packet of what it has), sends a NAK
 * on a gap in sequence (go-back-N by default, selective repeat as an option) and, when packets
 * arrive marked CE, a CNP at most every CnpInterval. The sender resends from its oldest
 * unacknowledged packet when it has neither sent nor had anything acknowledged for
 * RetransmitTimeout, and fails after RetryCount such timeouts in a row (error close).
 */
class RdmaSocket : public Socket
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    RdmaSocket();
    ~RdmaSocket() override;

    /// What the socket counted.
    struct Counters
    {
        uint64_t dataPackets{0};   //!< data packets sent, first transmissions
        uint64_t retransmitted{0}; //!< data packets sent again
        uint64_t timeouts{0};      //!< retransmission timeouts
        uint64_t acks{0};          //!< ACKs sent
        uint64_t nacks{0};         //!< NAKs sent
        uint64_t cnpsSent{0};      //!< CNPs sent
        uint64_t cnpsReceived{0};  //!< CNPs received
        uint64_t marked{0};        //!< data packets received marked CE

        /// Adds another's counts. \param other the counts to add \return this
        Counters& operator+=(const Counters& other);
    };

    /**
     * Called by RdmaSocketFactory. \param node the node \param factory its factory
     * \param rateControl the queue pair's rate control, not yet started
     */
    void Setup(Ptr<Node> node, Ptr<RdmaSocketFactory> factory, Ptr<DcqcnRateControl> rateControl);
    /// \return what it counted
    const Counters& GetCounters() const;
    /// \return the rate control of its queue pair
    Ptr<DcqcnRateControl> GetRateControl() const;
    /// \return when it last sent a data packet (zero: never)
    Time GetLastTransmission() const;
    /// \return its retransmission timeout
    Time GetRetransmitTimeout() const;
    /**
     * Checks the attributes.
     * \throws std::invalid_argument naming the bad value
     */
    void Validate() const;

    /**
     * TracedCallback signature of a data packet sent.
     * \param psn its PSN \param again whether it is a retransmission
     */
    typedef void (*DataSentTracedCallback)(uint32_t psn, bool again);

    // Socket
    SocketErrno GetErrno() const override;
    SocketType GetSocketType() const override;
    Ptr<Node> GetNode() const override;
    int Bind(const Address& address) override;
    int Bind() override;
    int Bind6() override;
    int Close() override;
    int ShutdownSend() override;
    int ShutdownRecv() override;
    int Connect(const Address& address) override;
    int Listen() override;
    uint32_t GetTxAvailable() const override;
    int Send(Ptr<Packet> p, uint32_t flags) override;
    int SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress) override;
    uint32_t GetRxAvailable() const override;
    Ptr<Packet> Recv(uint32_t maxSize, uint32_t flags) override;
    Ptr<Packet> RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress) override;
    int GetSockName(Address& address) const override;
    int GetPeerName(Address& address) const override;
    bool SetAllowBroadcast(bool allowBroadcast) override;
    bool GetAllowBroadcast() const override;

  protected:
    void DoDispose() override;

  private:
    /// Its part in a queue pair.
    enum Role
    {
        FRESH,     //!< neither bound to a peer nor listening
        REQUESTER, //!< it sends (Connect)
        LISTENER,  //!< it makes responders (Listen)
        RESPONDER, //!< it receives, made by a listener
    };

    /// A data packet sent and not yet acknowledged.
    struct Segment
    {
        uint64_t offset; //!< its first byte in the stream
        uint32_t length; //!< its bytes
    };

    // The requester
    /// Sends data while the rate, the NIC and the data allow.
    void TrySend();
    /// The NIC's queue has room again.
    void NicReady();
    /// \param psn a PSN to send (new or again) \return whether it went (false: the NIC is full)
    bool SendData(uint32_t psn);
    /// \param socket the UDP socket, with ACKs, NAKs or CNPs
    void ReceiveControl(Ptr<Socket> socket);
    /// \param psn every PSN up to it arrived
    void Acknowledge(uint32_t psn);
    /// \param psn it is missing (everything before it arrived)
    void NotAcknowledged(uint32_t psn);
    /// Nothing was sent or acknowledged for RetransmitTimeout.
    void RetransmitTimeout();
    /// (Re)arms the retransmission timer while anything is unacknowledged.
    void ArmTimer();
    /// Closes for good once everything sent is acknowledged (Close was called).
    void CloseIfDone();

    // The listener and the responders
    /// \param socket the listener's UDP socket, with data
    void ReceiveAtListener(Ptr<Socket> socket);
    /**
     * A data packet for this responder.
     * \param packet its payload \param header its RoCE header \param marked it came CE
     */
    void ReceiveData(Ptr<Packet> packet, const RoceHeader& header, bool marked);
    /// Delivers selective repeat's kept packets that are now in sequence.
    void DeliverKept();
    /// \param opcode ACK, NACK or CNP \param psn its PSN
    void SendControl(RoceHeader::Opcode opcode, uint32_t psn);

    // Both
    /**
     * Sends a RoCE packet over UDP and IPv4 along the routing's route for its ports.
     * \param packet the RoCE header and payload \param dscp its DSCP \param ect ECN-capable
     * \param data a data packet: held back while the NIC's queue for its class is full
     * \return false when held back (NicReady follows)
     */
    bool Transmit(Ptr<Packet> packet, uint8_t dscp, bool ect, bool data);
    /**
     * \param packet a packet with its UDP header (the flow routes read its ports), or null
     *        for a route by addresses only
     * \return the routing's route from this end to its peer (null: none)
     */
    Ptr<Ipv4Route> Route(Ptr<Packet> packet) const;
    /// \param error the errno to keep \return -1
    int Fail(SocketErrno error);

    // Attributes
    uint32_t m_payloadSize{4096};       //!< RoCE payload per packet (path MTU)
    uint32_t m_ackInterval{4};          //!< ACK every this many packets
    Time m_retransmitTimeout;           //!< resend after this long without an ACK
    uint32_t m_retryCount{7};           //!< timeouts in a row before the queue pair fails
    Time m_cnpInterval;                 //!< at most one CNP per this long
    RdmaRecovery m_recovery{GO_BACK_N}; //!< loss recovery
    uint32_t m_sendBufferSize{0};       //!< bytes Send may hold
    uint32_t m_nicQueueFrames{2};       //!< NIC queue depth the sender fills
    uint8_t m_dataDscp{26};             //!< DSCP of data
    uint8_t m_controlDscp{48};          //!< DSCP of ACKs, NAKs, CNPs

    Ptr<Node> m_node;                    //!< the node
    Ptr<RdmaSocketFactory> m_factory;    //!< the factory (makes responders)
    Ptr<DcqcnRateControl> m_rate;        //!< the rate control
    Role m_role{FRESH};                  //!< its part
    SocketErrno m_errno{ERROR_NOTERROR}; //!< the last error
    Ptr<Socket> m_udp;                   //!< receives (requester: control; listener: data)
    InetSocketAddress m_local{Ipv4Address::GetAny(), 0};                   //!< its address and port
    InetSocketAddress m_peer{Ipv4Address::GetAny(), 0};                    //!< the other end
    std::map<std::pair<uint32_t, uint16_t>, Ptr<RdmaSocket>> m_responders; //!< by peer
    bool m_closing{false};      //!< Close called: finish, then close
    bool m_closed{false};       //!< closed for good
    bool m_shutdownSend{false}; //!< no more Send

    // The requester's stream
    std::deque<uint8_t> m_tx;       //!< bytes from m_txBase on, not yet acknowledged
    uint64_t m_txBase{0};           //!< stream offset of m_tx's first byte
    std::deque<Segment> m_sent;     //!< PSNs m_una.. sent, their bytes
    uint32_t m_una{0};              //!< the oldest unacknowledged PSN
    uint32_t m_next{0};             //!< the next PSN to send (new or again)
    std::vector<uint32_t> m_resend; //!< selective repeat: PSNs to send again first
    Time m_nextSend;                //!< the rate allows the next packet then
    EventId m_sendEvent;            //!< the paced send
    EventId m_timer;                //!< the retransmission timer
    bool m_waitingNic{false};       //!< waits for the NIC's queue
    Time m_lastTx;                  //!< last data transmission
    Time m_lastProgress;            //!< last acknowledgement that acknowledged something
    uint32_t m_retries{0};          //!< timeouts in a row without progress
    uint64_t m_sentEnd{0};          //!< stream offset after the last byte ever sent
    uint32_t m_frameOverhead{38};   //!< line bytes per packet beyond IP (from the NIC)

    // The responder's stream
    uint32_t m_expected{0};                 //!< the next PSN in sequence
    uint32_t m_unacked{0};                  //!< packets in sequence since the last ACK
    bool m_nakSent{false};                  //!< a NAK for m_expected went already
    Time m_lastCnp;                         //!< the last CNP sent
    bool m_cnpSent{false};                  //!< a CNP was ever sent
    std::map<uint32_t, Ptr<Packet>> m_kept; //!< selective repeat: out of sequence
    std::deque<Ptr<Packet>> m_rx;           //!< in-sequence payloads not yet read
    uint32_t m_rxBytes{0};                  //!< bytes in m_rx

    Counters m_counters; //!< counts

    TracedCallback<uint32_t, bool> m_dataSentTrace; //!< a data packet (PSN, again)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_RDMA_SOCKET_H */
