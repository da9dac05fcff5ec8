/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_APPLICATION_H
#define NS3_ALLREDUCE_ALLREDUCE_APPLICATION_H

#include "ns3/application.h"
#include "ns3/gradient-layout.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-packet Packet level
 * \ingroup allreduce
 * AllReduce packet by packet in ns-3: the application on every server, the controller that asks the
 * scheduler at each decision point, its connection pool, gradient release and stall watch, and the
 * routes along the flow trees (doc/allreduce.rst, "Packet level").
 */

class AllReduceController;

/**
 * \ingroup allreduce-packet
 * What a server's initial gradient holds.
 */
enum GradientValues
{
    GRADIENT_INTEGER, //!< whole numbers in [-64, 64]: every sum is exact in float32
    GRADIENT_FLOAT,   //!< uniform floats in [-1, 1): sums agree within a rounding tolerance
};

/**
 * \ingroup allreduce-packet
 * A server's initial gradient, the same for the same arguments on every platform (SplitMix64).
 * \param values P \param server the server \param seed the seed \param kind integer or float
 * \return P values
 */
std::vector<float> MakeGradient(uint64_t values, uint32_t server, uint32_t seed, GradientValues kind);

/**
 * \ingroup allreduce-packet
 * The AllReduce application of one server (doc/allreduce.rst, "Packet level"), or of one switch
 * that aggregates (Topology::IsAggregator; "Aggregation in the network"). It holds the server's
 * gradient as float32 values (a switch: zeros, it contributes nothing) and, when its
 * AllReduceController starts a workload, sends that workload's piece of its current vector as real
 * bytes to the workload's receiver over a connection of its socket factory (TCP by default),
 * from the source port the controller names so that the packets take the workload's path: with
 * persistent connections (AllReduceController's Connections) one connection per receiver and
 * path, opened by the first transfer and reused by the next ones, which queue behind each other
 * on its stream; per transfer, a new connection each time. Each transfer on a stream opens with
 * an 8-byte header (workload id, payload bytes). On the receiving node a reduce-scatter piece is
 * added to the vector (the merge) and an all-gather piece replaces it; the transfer has finished
 * when its last byte is applied. So a switch adds the pieces its children send and sends the sum
 * on, and in all-gather sends the complete piece it received to each of its children: it
 * receives a transfer whole before it sends (store and forward), as the flow level's rounds
 * count it.
 *
 * The application is driven: install it with AllReduceHelper, which also builds the
 * controller, the routes and the ports.
 */
class AllReduceApplication : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AllReduceApplication();
    ~AllReduceApplication() override;

    /**
     * Called by the controller before the simulation starts.
     * \param controller the controller \param node this application's server or aggregating
     *        switch (model node id)
     */
    void SetController(Ptr<AllReduceController> controller, uint32_t node);
    /// \return this application's server or aggregating switch (model node id)
    uint32_t GetNodeId() const;
    /// \return true on an aggregating switch, false on a server
    bool IsAggregator() const;
    /// \return the port it listens on
    uint16_t GetPort() const;
    /// \return the initial gradient of this server (recomputed from Seed and Values); zeros on
    ///         a switch
    std::vector<float> MakeInitialGradient() const;
    /// \return the current vector: the initial gradient until the run, the sum after it
    const std::vector<float>& GetVector() const;
    /**
     * Puts the initial gradient back for the next AllReduce on the same connections (called
     * by the controller after a warm-up, when nothing is in flight).
     */
    void Restart();
    /// \return GradientValues of this node
    GradientValues GetValues() const;
    /// \return the seed of the gradients (the Seed attribute)
    uint32_t GetSeed() const;

    /**
     * Distributed runs: sends a notice (a UDP datagram) from this node's notice port
     * (AllReduceController's NoticePort) to another node's (called by the controller).
     * \param to the node's address \param port its notice port \param bytes the notice
     */
    void SendNotice(Ipv4Address to, uint16_t port, const std::vector<uint8_t>& bytes);

    /**
     * Starts sending one workload (called by the controller): on the connection open from
     * sourcePort, behind the transfers still queued there, or on a new connection from it.
     * \param workload a workload whose sender is this node
     * \param to the receiver's address \param sourcePort the port to send from
     */
    void StartTransfer(uint32_t workload, Ipv4Address to, uint16_t sourcePort);
    /**
     * When TCP will next act on a transfer this server sent, if nothing arrives before: its
     * connection's last transmission plus its current retransmission timeout. The controller waits for it before
     * it calls a transfer stalled, so that a backing-off TCP is not mistaken for a stuck one.
     * \param workload a workload this server sent
     * \return that time, or zero when TCP has sent nothing for it (or it is not TCP)
     */
    Time GetRetransmissionDeadline(uint32_t workload) const;

    /**
     * Whether TCP's retransmission timer has expired on a connection this server sends on
     * (its congestion window fell to one segment, its timeout backed off): the controller
     * gives later transfers another connection.
     * \param sourcePort the connection's source port
     * \return true once it has expired there
     */
    bool HasTimedOut(uint16_t sourcePort) const;

    /// Fires RoundFinished (called by the controller). \param round the round
    void NotifyRoundFinished(uint32_t round);
    /**
     * Closes the listener (nothing more arrives) and fires CollectiveFinished (called by the
     * controller).
     * \param closeConnections also close the connections, when the simulation goes on (their
     *        endpoints would cost later packets a lookup); when it stops here their closing
     *        packets would never arrive, and FlowMonitor would count them lost
     */
    void NotifyCollectiveFinished(bool closeConnections);

    /// TracedCallback signature of a workload event. \param workload the workload id
    typedef void (*WorkloadTracedCallback)(uint32_t workload);
    /// TracedCallback signature of a round's end. \param round the round index
    typedef void (*RoundTracedCallback)(uint32_t round);
    /// TracedCallback signature of the collective's end. \param time the completion time
    typedef void (*TimeTracedCallback)(Time time);

    /// Bytes of the header that opens every transfer.
    static constexpr uint32_t HEADER_BYTES = 8;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /**
     * A transfer this server is sending: its header, then its piece's values, read from the
     * vector as they are handed to the socket. Nothing changes them before they have all been
     * handed over: what arrives into a piece at its sender is a dependency of the sending, or
     * depends on it (CheckNotSending).
     */
    struct Outgoing
    {
        uint32_t workload{0};            //!< its workload
        uint8_t header[HEADER_BYTES]{};  //!< the header that opens it
        uint64_t offset{0};              //!< its piece's first value in the vector
        uint64_t payload{0};             //!< its payload bytes
        uint64_t sent{0};                //!< bytes handed to the socket so far, header first

        /// \return the bytes of header and payload
        uint64_t GetSize() const
        {
            return HEADER_BYTES + payload;
        }
    };

    /// A connection this server sends on: its transfers in order.
    struct Sender
    {
        uint16_t port{0};            //!< its source port
        bool connected{false};       //!< the handshake is done
        std::deque<Outgoing> queue;  //!< transfers not yet handed to the socket whole
    };

    /// A connection this server receives on: the transfer arriving now.
    struct Incoming
    {
        uint8_t header[HEADER_BYTES];  //!< the header as it arrives
        uint32_t headerGot{0};         //!< header bytes so far
        uint32_t workload{0};          //!< its workload, once the header is in
        std::vector<float> payload;    //!< the payload as it arrives
        uint64_t got{0};               //!< payload bytes so far
    };

    /**
     * Sets the TCP attributes every socket of this application takes, sending or listening:
     * SegmentSize, MinRto, DelAckTimeout, TimeWait (as MaxSegLifetime) and DataRetries.
     * \param tcp the socket
     */
    void ConfigureTcp(Ptr<TcpSocket> tcp) const;
    /**
     * Follows TCP's transmissions and retransmission timeout for one connection.
     * \param tcp its socket \param port its source port
     */
    void WatchTcp(Ptr<TcpSocket> tcp, uint16_t port);
    /// \param socket a sending socket whose connection is up
    void ConnectionSucceeded(Ptr<Socket> socket);
    /// \param socket a sending socket whose connection failed
    void ConnectionFailed(Ptr<Socket> socket);
    /**
     * TCP gave up on a connection this server sends on (DataRetries retransmissions of a
     * segment unanswered), perhaps after the application closed it (per transfer).
     * \param socket its socket \param port its source port
     */
    void ConnectionBroken(Ptr<Socket> socket, uint16_t port);
    /// \param socket a sending socket \param available bytes free in its buffer
    void SendMore(Ptr<Socket> socket, uint32_t available);
    /// \param socket a new connection \param from its peer
    void Accept(Ptr<Socket> socket, const Address& from);
    /// \param socket a receiving socket with data
    void Receive(Ptr<Socket> socket);
    /// \param socket the notice socket, with datagrams
    void ReceiveNotice(Ptr<Socket> socket);
    /**
     * Takes a transfer's header off the stream and checks it.
     * \param in the transfer whose header is complete
     */
    void ReadHeader(Incoming& in);
    /**
     * Applies a complete incoming transfer: adds (reduce) or copies (gather) its values.
     * \param in the transfer
     */
    void Apply(const Incoming& in);
    /**
     * Aborts, naming the workload, when a transfer still being handed to a socket carries
     * values in [first, first + n) of the vector, which is about to change (the plan's
     * dependencies rule that out).
     * \param first the first value \param n values
     */
    void CheckNotSending(uint64_t first, uint64_t n) const;
    /**
     * \param out a transfer being sent
     * \return its payload's bytes, in the vector
     */
    const uint8_t* GetPayload(const Outgoing& out) const;
    /**
     * A transfer has arrived whole: applies it, makes the connection ready for the next one
     * (persistent) or closes it (per transfer), and tells the controller.
     * \param socket its connection \param in its state (gone when per transfer)
     * \return whether to go on reading the connection
     */
    bool Finish(Ptr<Socket> socket, Incoming& in);
    /**
     * Closes the listener, and the connections, silenced; nothing more is sent or received.
     * \param connections close the connections too (else they are only silenced)
     */
    void CloseAll(bool connections = true);
    /// \return "server 3" or "switch 12", for messages
    std::string Name() const;

    // Attributes
    TypeId m_protocol;        //!< socket factory
    uint16_t m_port{0};       //!< listening port
    uint32_t m_seed{0};       //!< gradient seed
    GradientValues m_values{GRADIENT_INTEGER}; //!< gradient kind
    uint32_t m_segmentSize{0}; //!< TCP segment size
    uint32_t m_sendSize{0};   //!< most bytes per Send call, 0: the transport's (m_sendChunk)
    Time m_minRto;            //!< TCP minimum RTO
    Time m_delAckTimeout;     //!< TCP delayed-ACK timeout
    Time m_connTimeout;       //!< TCP SYN retransmission timeout
    Time m_timeWait;          //!< TCP TIME_WAIT of the senders' sockets
    uint32_t m_dataRetries{15}; //!< TCP retransmissions before a connection gives up

    Ptr<AllReduceController> m_controller;  //!< the controller
    uint32_t m_node{0};                     //!< this server or aggregating switch
    std::vector<float> m_vector;            //!< the current vector
    Ptr<Socket> m_listener;                 //!< the listening socket
    Ptr<Socket> m_notices;                  //!< distributed: the notices' UDP socket
    std::map<Ptr<Socket>, Sender> m_outgoing;   //!< connections sent on
    std::map<uint16_t, Ptr<Socket>> m_bySourcePort; //!< the same, by source port
    std::map<Ptr<Socket>, Incoming> m_incoming; //!< connections received on
    std::vector<uint8_t> m_scratch;             //!< a packet that holds more than one transfer
    std::vector<uint8_t> m_opening;             //!< the Send that holds a transfer's header
    std::vector<std::vector<float>> m_spare;    //!< payloads of connections that ended
    static constexpr size_t MAX_SPARE_PAYLOADS = 4; //!< most payloads kept in m_spare
    uint32_t m_readSize{0};                     //!< most bytes per Recv call
    uint32_t m_sendChunk{0};                    //!< most bytes per Send call (SendSize's)
    bool m_closed{false};                       //!< CloseAll ran

    /// What TCP last did for a transfer this server sent.
    struct TcpActivity
    {
        Time lastTx; //!< its last segment sent (first transmission or retransmission)
        Time rto;    //!< its current retransmission timeout
        bool timedOut{false}; //!< the retransmission timer expired (TCP entered CA_LOSS)
    };

    std::map<uint16_t, TcpActivity> m_tcpActivity; //!< by source port, for the stall detector

    TracedCallback<uint32_t> m_transferStarted;  //!< a transfer from this server started
    TracedCallback<uint32_t> m_transferFinished; //!< a transfer to this server was applied
    TracedCallback<uint32_t> m_roundFinished;    //!< a round of the schedule finished
    TracedCallback<Time> m_collectiveFinished;   //!< the whole AllReduce finished
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_APPLICATION_H */
