/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-application.h"

#include "allreduce-controller.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/tcp-socket.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceApplication");

NS_OBJECT_ENSURE_REGISTERED(AllReduceApplication);

namespace
{

/// SplitMix64 (Steele, Lea, Flood 2014): fixed output on every platform, unlike std::
/// distributions, so a gradient is the same wherever the seed is the same.
uint64_t
SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

} // namespace

std::vector<float>
MakeGradient(uint64_t values, uint32_t server, uint32_t seed, GradientValues kind)
{
    uint64_t state = (uint64_t{seed} << 32) ^ server;
    SplitMix64(state); // decorrelate neighbouring (seed, server) pairs
    std::vector<float> out(values);
    for (auto& v : out)
    {
        const uint64_t r = SplitMix64(state);
        if (kind == GRADIENT_INTEGER)
        {
            v = static_cast<float>(static_cast<int64_t>(r % 129) - 64);
        }
        else
        {
            v = static_cast<float>(static_cast<double>(r >> 40) / double(1 << 23) - 1.0);
        }
    }
    return out;
}

TypeId
AllReduceApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AllReduceApplication")
            .SetParent<Application>()
            .SetGroupName("AllReduce")
            .AddConstructor<AllReduceApplication>()
            .AddAttribute("Protocol",
                          "The socket factory of the transfers (a stream socket, e.g. TCP).",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&AllReduceApplication::m_protocol),
                          MakeTypeIdChecker())
            .AddAttribute("Port",
                          "The port the application listens on.",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&AllReduceApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Seed",
                          "Seed of this server's initial gradient.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&AllReduceApplication::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Values",
                          "What the initial gradient holds: integer values in [-64, 64] "
                          "(sums exact) or float values in [-1, 1).",
                          EnumValue(GRADIENT_INTEGER),
                          compat::MakeEnumAccessor<GradientValues>(&AllReduceApplication::m_values),
                          MakeEnumChecker(GRADIENT_INTEGER,
                                          "integer",
                                          GRADIENT_FLOAT,
                                          "float"))
            .AddAttribute("SegmentSize",
                          "TCP maximum segment size of the transfers, in bytes.",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&AllReduceApplication::m_segmentSize),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("MinRto",
                          "TCP minimum retransmission timeout of the transfers (ns-3's default, "
                          "1 s, is made for the wide area; data-center stacks use milliseconds).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&AllReduceApplication::m_minRto),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("DelAckTimeout",
                          "How long a receiver holds back the acknowledgement of a lone segment "
                          "(TCP's delayed ACK; ns-3's default, 200 ms, is longer than MinRto): "
                          "far below MinRto, so that the last segment of a transfer is "
                          "acknowledged before its sender's retransmission timer fires (else a "
                          "persistent connection left idle for MinRto with its last segment "
                          "unacknowledged times out spuriously and restarts from one segment), "
                          "and short, so that a connection restarting from one segment after a "
                          "timeout does not wait long for each acknowledgement (a Linux receiver "
                          "acknowledges at once then: quick ACKs, which ns-3 does not model).",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&AllReduceApplication::m_delAckTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("ConnTimeout",
                          "TCP timeout before a lost connection request (SYN) is sent again.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&AllReduceApplication::m_connTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("TimeWait",
                          "How long a TCP endpoint lingers after its transfer closed "
                          "(TIME_WAIT, twice TCP's maximum segment lifetime; ns-3's default is "
                          "240 s). A closed connection's ports are never used again, so "
                          "nothing needs the endpoint; each one left costs every later packet "
                          "on the node a lookup (ns-3 searches endpoints one by one).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&AllReduceApplication::m_timeWait),
                          MakeTimeChecker(MicroSeconds(2)))
            .AddAttribute("DataRetries",
                          "TCP retransmissions of a segment before the connection gives up "
                          "(ns-3's default is 6; Linux's tcp_retries2 is 15). A persistent "
                          "connection lives the whole run, through every loss on its path.",
                          UintegerValue(15),
                          MakeUintegerAccessor(&AllReduceApplication::m_dataRetries),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("SendSize",
                          "Most bytes handed to the socket in one Send call; 0 (the default): "
                          "one segment (SegmentSize) over TCP, 65536 over other sockets. Each "
                          "call makes a packet of that many bytes of real data, and TCP keeps "
                          "it until acknowledged while ns-3 recycles packet buffers at the "
                          "largest size it has freed: sends far above a segment give every "
                          "later packet a buffer that large (doc/allreduce.rst, \"Against a "
                          "bare ns-3 run\").",
                          UintegerValue(0),
                          MakeUintegerAccessor(&AllReduceApplication::m_sendSize),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("TransferStarted",
                            "This server started sending a workload.",
                            MakeTraceSourceAccessor(&AllReduceApplication::m_transferStarted),
                            "ns3::AllReduceApplication::WorkloadTracedCallback")
            .AddTraceSource("TransferFinished",
                            "A workload to this server arrived whole and was applied.",
                            MakeTraceSourceAccessor(&AllReduceApplication::m_transferFinished),
                            "ns3::AllReduceApplication::WorkloadTracedCallback")
            .AddTraceSource("RoundFinished",
                            "Every transfer of a round of the schedule finished.",
                            MakeTraceSourceAccessor(&AllReduceApplication::m_roundFinished),
                            "ns3::AllReduceApplication::RoundTracedCallback")
            .AddTraceSource("CollectiveFinished",
                            "Every transfer of the AllReduce finished.",
                            MakeTraceSourceAccessor(&AllReduceApplication::m_collectiveFinished),
                            "ns3::AllReduceApplication::TimeTracedCallback");
    return tid;
}

AllReduceApplication::AllReduceApplication()
{
    NS_LOG_FUNCTION(this);
}

AllReduceApplication::~AllReduceApplication()
{
    NS_LOG_FUNCTION(this);
}

void
AllReduceApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_controller = nullptr;
    m_listener = nullptr;
    m_notices = nullptr;
    m_outgoing.clear();
    m_bySourcePort.clear();
    m_incoming.clear();
    m_spare.clear();
    Application::DoDispose();
}

void
AllReduceApplication::SetController(Ptr<AllReduceController> controller, uint32_t node)
{
    m_controller = controller;
    m_node = node;
    m_vector = MakeInitialGradient();
}

uint32_t
AllReduceApplication::GetNodeId() const
{
    return m_node;
}

bool
AllReduceApplication::IsAggregator() const
{
    NS_ABORT_MSG_UNLESS(m_controller, "AllReduceApplication has no controller; install it "
                                      "with AllReduceHelper");
    return !m_controller->GetWorkloads().GetTopology().IsServer(m_node);
}

uint16_t
AllReduceApplication::GetPort() const
{
    return m_port;
}

GradientValues
AllReduceApplication::GetValues() const
{
    return m_values;
}

uint32_t
AllReduceApplication::GetSeed() const
{
    return m_seed;
}

std::vector<float>
AllReduceApplication::MakeInitialGradient() const
{
    NS_ABORT_MSG_UNLESS(m_controller, "AllReduceApplication has no controller; install it "
                                      "with AllReduceHelper");
    const uint64_t values = m_controller->GetLayout().GetNValues();
    if (IsAggregator())
    {
        return std::vector<float>(values, 0.0F); // a switch contributes nothing of its own
    }
    return MakeGradient(values, m_node, m_seed, m_values);
}

const std::vector<float>&
AllReduceApplication::GetVector() const
{
    return m_vector;
}

void
AllReduceApplication::Restart()
{
    NS_LOG_FUNCTION(this);
    CheckNotSending(0, m_vector.size());
    m_vector = MakeInitialGradient();
}

void
AllReduceApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_UNLESS(m_controller, "AllReduceApplication has no controller; install it "
                                      "with AllReduceHelper");
    m_listener = Socket::CreateSocket(GetNode(), m_protocol);
    NS_ABORT_MSG_UNLESS(m_listener->GetSocketType() == Socket::NS3_SOCK_STREAM,
                        "AllReduceApplication needs a stream socket factory (such as "
                        "ns3::TcpSocketFactory) for Protocol, got "
                            << m_protocol.GetName());
    if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) == -1)
    {
        NS_FATAL_ERROR("AllReduceApplication on " << Name() << " cannot listen on port "
                                                    << m_port);
    }
    // TCP keeps what Send gets as one packet until acknowledged, and hands over all it holds
    // in sequence as one packet, copied together, unless asked for less: a segment at a time
    // keeps its packets' buffers segment-sized (SendSize). RdmaSocket copies what it gets and
    // hands over its packets as they came.
    m_readSize = std::numeric_limits<uint32_t>::max();
    m_sendChunk = m_sendSize ? m_sendSize : 65536;
    if (Ptr<TcpSocket> tcp = DynamicCast<TcpSocket>(m_listener))
    {
        ConfigureTcp(tcp); // accepted sockets are forked from the listener and inherit it
        m_readSize = m_segmentSize;
        m_sendChunk = m_sendSize ? m_sendSize : m_segmentSize;
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&AllReduceApplication::Accept, this));
    if (m_controller->IsDistributed())
    {
        // Notices of a distributed run, from this node's own address (their flow routes
        // match it).
        m_notices = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        const InetSocketAddress here(m_controller->GetAddress(m_node),
                                     m_controller->GetNoticePort());
        if (m_notices->Bind(here) == -1)
        {
            NS_FATAL_ERROR(Name() << " cannot take notices on UDP port "
                                  << m_controller->GetNoticePort());
        }
        m_notices->SetRecvCallback(MakeCallback(&AllReduceApplication::ReceiveNotice, this));
    }
}

void
AllReduceApplication::SendNotice(Ipv4Address to, uint16_t port, const std::vector<uint8_t>& bytes)
{
    NS_LOG_FUNCTION(this << to << port);
    NS_ABORT_MSG_UNLESS(m_notices, Name() << " sends notices only in a distributed run, "
                                             "once started");
    if (m_notices->SendTo(Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size())),
                          0,
                          InetSocketAddress(to, port)) < 0)
    {
        // No route: the run cannot end as it should; its deadline reports it.
        NS_LOG_WARN(Name() << " could not send a notice to " << to << " (error "
                           << m_notices->GetErrno() << ")");
    }
}

void
AllReduceApplication::ReceiveNotice(Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv())
    {
        std::vector<uint8_t> bytes(packet->GetSize());
        packet->CopyData(bytes.data(), static_cast<uint32_t>(bytes.size()));
        m_controller->NotifyNotice(m_node, bytes); // may end the run: CloseAll
        if (!m_notices)
        {
            return;
        }
    }
}

void
AllReduceApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    CloseAll();
}

void
AllReduceApplication::CloseAll(bool connections)
{
    // Sockets are closed and silenced but stay in the maps: this may run inside Receive (the
    // last transfer ends the collective), which still holds its entry.
    m_closed = true;
    m_spare = {}; // nothing more arrives
    if (m_notices)
    {
        m_notices->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_notices->Close();
        m_notices = nullptr;
    }
    if (m_listener)
    {
        m_listener->Close();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeNullCallback<void, Ptr<Socket>, const Address&>());
        m_listener = nullptr;
    }
    for (auto& [socket, out] : m_outgoing)
    {
        socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                   MakeNullCallback<void, Ptr<Socket>>());
        if (connections)
        {
            socket->Close();
        }
    }
    m_bySourcePort.clear();
    for (auto& [socket, in] : m_incoming)
    {
        socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        if (connections)
        {
            socket->Close();
        }
    }
}

void
AllReduceApplication::StartTransfer(uint32_t workload, Ipv4Address to, uint16_t sourcePort)
{
    NS_LOG_FUNCTION(this << workload << to << sourcePort);
    const Workload& w = m_controller->GetWorkloads().Get(workload);
    NS_ABORT_MSG_UNLESS(w.src == m_node, "workload " << workload << " is sent by node " << w.src
                                                     << ", not " << Name());
    const GradientLayout& layout = m_controller->GetLayout();
    const uint64_t offset = layout.GetOffset(w.chunk, w.piece);
    const uint64_t size = layout.GetSize(w.chunk, w.piece);
    const uint64_t payload = size * sizeof(float);
    NS_ABORT_MSG_UNLESS(payload <= UINT32_MAX, "a piece of " << payload
                                                             << " bytes does not fit the 32-bit "
                                                                "transfer header; use more pieces");

    Outgoing out;
    out.workload = workload;
    // The values now are the data the schedule says the server holds when the round starts,
    // read from the vector as they are sent: nothing changes them before they have all left
    // (CheckNotSending).
    // The plan's id: a receiver on another rank of a distributed run holds another part.
    const uint32_t header[2] = {m_controller->GetPlanId(workload),
                                static_cast<uint32_t>(payload)};
    std::memcpy(out.header, header, HEADER_BYTES);
    out.offset = offset;
    out.payload = payload;
    m_transferStarted(workload);

    const auto open = m_bySourcePort.find(sourcePort);
    if (open != m_bySourcePort.end())
    {
        // The connection to this receiver on this path is open: queue behind what it carries.
        Sender& sender = m_outgoing.at(open->second);
        sender.queue.push_back(std::move(out));
        if (sender.connected)
        {
            SendMore(open->second, 0);
        }
        return;
    }
    Ptr<Socket> socket = Socket::CreateSocket(GetNode(), m_protocol);
    if (Ptr<TcpSocket> tcp = DynamicCast<TcpSocket>(socket))
    {
        ConfigureTcp(tcp);
        tcp->SetAttribute("ConnTimeout", TimeValue(m_connTimeout));
        WatchTcp(tcp, sourcePort);
    }
    const Ipv4Address from = m_controller->GetAddress(m_node);
    if (socket->Bind(InetSocketAddress(from, sourcePort)) == -1)
    {
        NS_FATAL_ERROR(Name() << " cannot send workload " << workload
                                 << " from port " << sourcePort << ": it is in use");
    }
    Sender& sender = m_outgoing[socket];
    sender.port = sourcePort;
    sender.queue.push_back(std::move(out));
    m_bySourcePort[sourcePort] = socket;
    socket->SetConnectCallback(MakeCallback(&AllReduceApplication::ConnectionSucceeded, this),
                               MakeCallback(&AllReduceApplication::ConnectionFailed, this));
    socket->SetSendCallback(MakeCallback(&AllReduceApplication::SendMore, this));
    // The port rides with the callback: per transfer, the socket has left m_outgoing once all
    // its bytes are handed over, but TCP may still give up on it.
    socket->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                              Callback<void, Ptr<Socket>>([this, sourcePort](Ptr<Socket> s) {
                                  ConnectionBroken(s, sourcePort);
                              }));
    if (socket->Connect(InetSocketAddress(to, m_controller->GetPort(w.dst))) == -1)
    {
        // No route at all (e.g. the first link is down): report it, outside this call chain.
        Simulator::ScheduleNow(&AllReduceApplication::ConnectionFailed, this, socket);
    }
}

void
AllReduceApplication::ConfigureTcp(Ptr<TcpSocket> tcp) const
{
    tcp->SetAttribute("SegmentSize", UintegerValue(m_segmentSize));
    tcp->SetAttribute("MinRto", TimeValue(m_minRto));
    tcp->SetAttribute("DelAckTimeout", TimeValue(m_delAckTimeout));
    tcp->SetAttribute("MaxSegLifetime", DoubleValue(m_timeWait.GetSeconds() / 2));
    tcp->SetAttribute("DataRetries", UintegerValue(m_dataRetries));
}

void
AllReduceApplication::WatchTcp(Ptr<TcpSocket> tcp, uint16_t port)
{
    // Entries of a std::map stay where they are, so the traces (one per segment sent) write to
    // this one without a lookup.
    TcpActivity* activity = &m_tcpActivity[port];
    *activity = TcpActivity{Seconds(0), m_connTimeout};
    tcp->TraceConnectWithoutContext(
        "Tx",
        Callback<void, Ptr<const Packet>, const TcpHeader&, Ptr<const TcpSocketBase>>(
            [activity](Ptr<const Packet>, const TcpHeader&, Ptr<const TcpSocketBase>) {
                activity->lastTx = Simulator::Now();
            }));
    tcp->TraceConnectWithoutContext(
        "RTO",
        Callback<void, Time, Time>([activity](Time, Time rto) { activity->rto = rto; }));
    tcp->TraceConnectWithoutContext(
        "CongState",
        Callback<void, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t>(
            [activity](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state) {
                activity->timedOut |= state == TcpSocketState::CA_LOSS;
            }));
}

bool
AllReduceApplication::HasTimedOut(uint16_t sourcePort) const
{
    const auto it = m_tcpActivity.find(sourcePort);
    return it != m_tcpActivity.end() && it->second.timedOut;
}

Time
AllReduceApplication::GetRetransmissionDeadline(uint32_t workload) const
{
    const auto it = m_tcpActivity.find(m_controller->GetSourcePort(workload));
    if (it == m_tcpActivity.end() || it->second.lastTx.IsZero())
    {
        return Seconds(0);
    }
    return it->second.lastTx + it->second.rto;
}

void
AllReduceApplication::ConnectionSucceeded(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    const auto it = m_outgoing.find(socket);
    if (it != m_outgoing.end())
    {
        it->second.connected = true;
        SendMore(socket, socket->GetTxAvailable());
    }
}

void
AllReduceApplication::ConnectionFailed(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    const auto it = m_outgoing.find(socket);
    if (it != m_outgoing.end() && !it->second.queue.empty())
    {
        const uint32_t workload = it->second.queue.front().workload;
        m_bySourcePort.erase(it->second.port);
        m_outgoing.erase(it);
        m_controller->NotifyTransferFailed(workload);
    }
}

void
AllReduceApplication::ConnectionBroken(Ptr<Socket> socket, uint16_t port)
{
    NS_LOG_FUNCTION(this << socket << port);
    if (m_closed)
    {
        return;
    }
    if (m_outgoing.erase(socket) != 0)
    {
        m_bySourcePort.erase(port);
    }
    // In the transport's own words: the user tunes the one that gave up.
    const bool tcp = m_protocol.IsChildOf(TcpSocketFactory::GetTypeId()) ||
                     m_protocol == TcpSocketFactory::GetTypeId();
    m_controller->NotifyConnectionBroken(
        m_node,
        port,
        tcp ? "TCP gave up on the connection (its retransmissions went unanswered; the "
              "application's DataRetries)"
            : "the RDMA queue pair failed (RetryCount retransmission timeouts in a row without "
              "progress; ns3::RdmaSocket::RetryCount)");
}

void
AllReduceApplication::SendMore(Ptr<Socket> socket, uint32_t /* available */)
{
    const auto it = m_outgoing.find(socket);
    if (it == m_outgoing.end() || m_closed)
    {
        return;
    }
    Sender& sender = it->second;
    while (!sender.queue.empty())
    {
        Outgoing& out = sender.queue.front();
        while (out.sent < out.GetSize())
        {
            const uint32_t room = socket->GetTxAvailable();
            if (room == 0)
            {
                return; // SendMore runs again when the buffer drains
            }
            const auto n = static_cast<uint32_t>(
                std::min<uint64_t>({out.GetSize() - out.sent, room, m_sendChunk}));
            const uint8_t* bytes = m_opening.data();
            if (out.sent >= HEADER_BYTES)
            {
                bytes = GetPayload(out) + (out.sent - HEADER_BYTES);
            }
            else
            {
                // The Send that opens the transfer: its header, then its payload's first bytes.
                const auto head = static_cast<uint32_t>(HEADER_BYTES - out.sent);
                m_opening.resize(n);
                bytes = m_opening.data();
                std::memcpy(m_opening.data(), out.header + out.sent, std::min(head, n));
                if (n > head)
                {
                    std::memcpy(m_opening.data() + head, GetPayload(out), n - head);
                }
            }
            const int accepted = socket->Send(bytes, n, 0);
            if (accepted <= 0)
            {
                return;
            }
            out.sent += static_cast<uint32_t>(accepted);
        }
        sender.queue.pop_front(); // all handed over: TCP delivers the rest
    }
    if (m_controller->GetConnections() == AllReduceController::PER_TRANSFER)
    {
        socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        socket->Close(); // after the data, as TCP closes
        m_bySourcePort.erase(sender.port);
        m_outgoing.erase(it);
    }
}

void
AllReduceApplication::Accept(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    m_incoming.emplace(socket, Incoming{});
    socket->SetRecvCallback(MakeCallback(&AllReduceApplication::Receive, this));
}

void
AllReduceApplication::ReadHeader(Incoming& in)
{
    uint32_t header[2];
    std::memcpy(header, in.header, HEADER_BYTES);
    in.workload = m_controller->FindWorkload(header[0]);
    const WorkloadSet& ws = m_controller->GetWorkloads();
    NS_ABORT_MSG_UNLESS(in.workload < ws.GetN() && ws.Get(in.workload).dst == m_node,
                        Name() << " got a transfer header for workload " << header[0]
                               << " of the plan, which is not addressed to it");
    const Workload& w = ws.Get(in.workload);
    const uint64_t expected = m_controller->GetLayout().GetSize(w.chunk, w.piece) * sizeof(float);
    NS_ABORT_MSG_UNLESS(header[1] == expected,
                        "workload " << in.workload << " announces " << header[1]
                                    << " bytes, its piece has " << expected);
    if (in.payload.capacity() == 0 && !m_spare.empty())
    {
        // A connection per transfer: the payload of one that ended. resize() then zeroes only
        // what it grows by.
        in.payload = std::move(m_spare.back());
        m_spare.pop_back();
    }
    in.payload.resize(expected / sizeof(float));
    in.got = 0;
}

void
AllReduceApplication::Receive(Ptr<Socket> socket)
{
    const auto it = m_incoming.find(socket);
    if (it == m_incoming.end())
    {
        return;
    }
    Incoming& in = it->second;
    Ptr<Packet> packet;
    while (!m_closed && (packet = socket->Recv(m_readSize, 0)))
    {
        const uint32_t size = packet->GetSize();
        if (size == 0)
        {
            break;
        }
        m_controller->NotifyProgress(size);
        if (in.headerGot == HEADER_BYTES && in.got + size <= in.payload.size() * sizeof(float))
        {
            // The usual case: the packet lies inside one transfer's payload; copy it once.
            packet->CopyData(reinterpret_cast<uint8_t*>(in.payload.data()) + in.got, size);
            in.got += size;
            if (in.got == in.payload.size() * sizeof(float) && !Finish(socket, in))
            {
                return;
            }
            continue;
        }
        // A header, or the end of one transfer and the start of the next.
        m_scratch.resize(size);
        packet->CopyData(m_scratch.data(), size);
        uint32_t at = 0;
        while (at < size)
        {
            if (in.headerGot < HEADER_BYTES)
            {
                const uint32_t n = std::min(HEADER_BYTES - in.headerGot, size - at);
                std::memcpy(in.header + in.headerGot, m_scratch.data() + at, n);
                in.headerGot += n;
                at += n;
                if (in.headerGot < HEADER_BYTES)
                {
                    break;
                }
                ReadHeader(in);
            }
            const uint64_t payloadBytes = in.payload.size() * sizeof(float);
            const auto n = static_cast<uint32_t>(std::min<uint64_t>(payloadBytes - in.got, size - at));
            std::memcpy(reinterpret_cast<uint8_t*>(in.payload.data()) + in.got,
                        m_scratch.data() + at,
                        n);
            in.got += n;
            at += n;
            if (in.got == payloadBytes && !Finish(socket, in))
            {
                return;
            }
        }
    }
}

bool
AllReduceApplication::Finish(Ptr<Socket> socket, Incoming& in)
{
    const uint32_t workload = in.workload;
    Apply(in);
    in.headerGot = 0; // the next transfer on the stream starts with its header
    in.got = 0;
    const bool perTransfer = m_controller->GetConnections() == AllReduceController::PER_TRANSFER;
    if (perTransfer)
    {
        socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        socket->Close();
        if (m_spare.size() < MAX_SPARE_PAYLOADS)
        {
            m_spare.push_back(std::move(in.payload)); // the next connection's, values and all
        }
        m_incoming.erase(socket); // in is gone
    }
    m_transferFinished(workload);
    m_controller->NotifyTransferFinished(workload); // may end the collective: CloseAll
    return !perTransfer && !m_closed;
}

const uint8_t*
AllReduceApplication::GetPayload(const Outgoing& out) const
{
    return reinterpret_cast<const uint8_t*>(m_vector.data() + out.offset);
}

void
AllReduceApplication::CheckNotSending(uint64_t first, uint64_t n) const
{
    for (const auto& [socket, sender] : m_outgoing)
    {
        for (const Outgoing& out : sender.queue)
        {
            const uint64_t values = out.payload / sizeof(float);
            NS_ABORT_MSG_IF(values > 0 && out.offset < first + n && first < out.offset + values,
                            Name() << " would change values that workload " << out.workload
                                   << ", still being sent, carries: a piece must not change "
                                      "at its sender before it has left (its dependencies)");
        }
    }
}

void
AllReduceApplication::Apply(const Incoming& in)
{
    const Workload& w = m_controller->GetWorkloads().Get(in.workload);
    const uint64_t offset = m_controller->GetLayout().GetOffset(w.chunk, w.piece);
    const uint64_t n = in.payload.size();
    CheckNotSending(offset, n);
    // Distinct vectors: the compiler may add several values at once.
    const float* __restrict values = in.payload.data();
    float* __restrict target = m_vector.data() + offset;
    if (w.phase == Phase::REDUCE)
    {
        for (uint64_t i = 0; i < n; ++i)
        {
            target[i] += values[i]; // the merge
        }
    }
    else
    {
        std::memcpy(target, values, n * sizeof(float));
    }
    NS_LOG_INFO(Name() << " applied workload " << in.workload << " ("
                          << ToString(w.phase) << ", " << n << " values)");
}

std::string
AllReduceApplication::Name() const
{
    return m_controller ? m_controller->GetWorkloads().GetTopology().GetNodeName(m_node)
                        : "node " + std::to_string(m_node);
}

void
AllReduceApplication::NotifyRoundFinished(uint32_t round)
{
    m_roundFinished(round);
}

void
AllReduceApplication::NotifyCollectiveFinished(bool closeConnections)
{
    // Nothing more is sent or arrives: free the ports and the endpoints that every packet
    // reaching this node would otherwise be looked up against (AllReduces that follow on a
    // cluster).
    CloseAll(closeConnections);
    m_collectiveFinished(Simulator::Now());
}

} // namespace ns3
