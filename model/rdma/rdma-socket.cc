/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-socket.h"

#include "lossless-net-device.h"
#include "rdma-socket-factory.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-packet-info-tag.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaSocket");
NS_OBJECT_ENSURE_REGISTERED(RdmaSocket);

namespace
{
constexpr uint8_t UDP = 17;
constexpr uint32_t IP_UDP_BYTES = 20 + 8;

/// \param a a PSN \param b another \return a - b as a signed distance
int32_t
Distance(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b);
}
} // namespace

TypeId
RdmaSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaSocket")
            .SetParent<Socket>()
            .SetGroupName("Allreduce")
            .AddConstructor<RdmaSocket>()
            .AddAttribute("PayloadSize",
                          "Stream bytes per packet: the RoCE path MTU (256, 512, 1024, 2048 or "
                          "4096).",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaSocket::m_payloadSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AckInterval",
                          "The responder acknowledges every this many packets in sequence "
                          "(and whenever the sender asks).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RdmaSocket::m_ackInterval),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RetransmitTimeout",
                          "The sender resends from its oldest unacknowledged packet after this "
                          "long without an acknowledgement.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&RdmaSocket::m_retransmitTimeout),
                          MakeTimeChecker())
            .AddAttribute("RetryCount",
                          "Retransmission timeouts in a row without progress after which the "
                          "queue pair fails (its socket's error-close callback fires), as RC's "
                          "retry count.",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RdmaSocket::m_retryCount),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CnpInterval",
                          "The responder sends at most one CNP per queue pair per this long "
                          "(DCQCN's N, 50 us).",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RdmaSocket::m_cnpInterval),
                          MakeTimeChecker())
            .AddAttribute(
                "Recovery",
                "Loss recovery: go-back-N or selective repeat.",
                EnumValue(GO_BACK_N),
                compat::MakeEnumAccessor<RdmaRecovery>(&RdmaSocket::m_recovery),
                MakeEnumChecker(GO_BACK_N, "go-back-n", SELECTIVE_REPEAT, "selective-repeat"))
            .AddAttribute("SendBufferSize",
                          "Bytes Send may hold, sent or not, until acknowledged.",
                          UintegerValue(256 * 1024 * 1024),
                          MakeUintegerAccessor(&RdmaSocket::m_sendBufferSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NicQueueFrames",
                          "The sender holds back while the NIC's egress queue for its class "
                          "holds this many of its packets (the NIC pulls from its queue pairs).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&RdmaSocket::m_nicQueueFrames),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DataDscp",
                          "DSCP of data packets (26: class 3, lossless).",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RdmaSocket::m_dataDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("ControlDscp",
                          "DSCP of ACKs, NAKs and CNPs (48: class 6).",
                          UintegerValue(48),
                          MakeUintegerAccessor(&RdmaSocket::m_controlDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddTraceSource("DataSent",
                            "A data packet was sent (PSN, whether it is a retransmission).",
                            MakeTraceSourceAccessor(&RdmaSocket::m_dataSentTrace),
                            "ns3::RdmaSocket::DataSentTracedCallback");
    return tid;
}

RdmaSocket::RdmaSocket() = default;

RdmaSocket::~RdmaSocket() = default;

void
RdmaSocket::Setup(Ptr<Node> node, Ptr<RdmaSocketFactory> factory, Ptr<DcqcnRateControl> rate)
{
    m_node = node;
    m_factory = factory;
    m_rate = rate;
}

void
RdmaSocket::DoDispose()
{
    m_sendEvent.Cancel();
    m_timer.Cancel();
    if (m_udp)
    {
        m_udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_udp = nullptr;
    m_responders.clear();
    m_kept.clear();
    m_rx.clear();
    if (m_rate)
    {
        m_rate->Dispose();
    }
    m_rate = nullptr;
    m_factory = nullptr;
    m_node = nullptr;
    Socket::DoDispose();
}

void
RdmaSocket::Validate() const
{
    const uint32_t p = m_payloadSize;
    if (p != 256 && p != 512 && p != 1024 && p != 2048 && p != 4096)
    {
        throw std::invalid_argument("RDMA: PayloadSize (the RoCE path MTU) must be 256, 512, "
                                    "1024, 2048 or 4096 bytes, got " +
                                    std::to_string(p));
    }
    if (m_sendBufferSize < p)
    {
        // Less than a packet: every packet would wait for the one before to be acknowledged.
        throw std::invalid_argument("RDMA: SendBufferSize must hold at least one packet's "
                                    "payload (PayloadSize, " + std::to_string(p) +
                                    " bytes), got " + std::to_string(m_sendBufferSize));
    }
    if (m_ackInterval == 0)
    {
        throw std::invalid_argument("RDMA: AckInterval must be >= 1 packet");
    }
    if (!m_retransmitTimeout.IsStrictlyPositive())
    {
        throw std::invalid_argument("RDMA: RetransmitTimeout must be > 0, got " +
                                    std::to_string(m_retransmitTimeout.GetMicroSeconds()) + " us");
    }
    if (m_cnpInterval.IsStrictlyNegative())
    {
        throw std::invalid_argument("RDMA: CnpInterval must be >= 0, got " +
                                    std::to_string(m_cnpInterval.GetMicroSeconds()) + " us");
    }
}

RdmaSocket::Counters&
RdmaSocket::Counters::operator+=(const Counters& other)
{
    dataPackets += other.dataPackets;
    retransmitted += other.retransmitted;
    timeouts += other.timeouts;
    acks += other.acks;
    nacks += other.nacks;
    cnpsSent += other.cnpsSent;
    cnpsReceived += other.cnpsReceived;
    marked += other.marked;
    return *this;
}

const RdmaSocket::Counters&
RdmaSocket::GetCounters() const
{
    return m_counters;
}

Ptr<DcqcnRateControl>
RdmaSocket::GetRateControl() const
{
    return m_rate;
}

Time
RdmaSocket::GetLastTransmission() const
{
    return m_lastTx;
}

Time
RdmaSocket::GetRetransmitTimeout() const
{
    return m_retransmitTimeout;
}

int
RdmaSocket::Fail(SocketErrno error)
{
    m_errno = error;
    return -1;
}

Socket::SocketErrno
RdmaSocket::GetErrno() const
{
    return m_errno;
}

Socket::SocketType
RdmaSocket::GetSocketType() const
{
    return NS3_SOCK_STREAM;
}

Ptr<Node>
RdmaSocket::GetNode() const
{
    return m_node;
}

int
RdmaSocket::Bind(const Address& address)
{
    if (!InetSocketAddress::IsMatchingType(address))
    {
        return Fail(ERROR_INVAL);
    }
    if (m_udp)
    {
        return Fail(ERROR_INVAL); // bound already
    }
    m_udp = Socket::CreateSocket(m_node, UdpSocketFactory::GetTypeId());
    if (m_udp->Bind(address) == -1)
    {
        const SocketErrno error = m_udp->GetErrno();
        m_udp = nullptr;
        return Fail(error);
    }
    m_udp->SetIpRecvTos(true);
    m_udp->SetRecvPktInfo(true);
    Address bound;
    m_udp->GetSockName(bound);
    m_local = InetSocketAddress::ConvertFrom(bound);
    return 0;
}

int
RdmaSocket::Bind()
{
    return Bind(InetSocketAddress(Ipv4Address::GetAny(), 0));
}

int
RdmaSocket::Bind6()
{
    return Fail(ERROR_AFNOSUPPORT); // RoCEv2 over IPv4 only, here
}

int
RdmaSocket::Connect(const Address& address)
{
    if (!InetSocketAddress::IsMatchingType(address) || m_role != FRESH)
    {
        return Fail(ERROR_INVAL);
    }
    if (!m_udp && Bind() == -1)
    {
        return -1;
    }
    m_peer = InetSocketAddress::ConvertFrom(address);
    Ptr<Ipv4Route> route = Route(nullptr);
    if (!route)
    {
        return Fail(ERROR_NOROUTETOHOST);
    }
    if (m_local.GetIpv4() == Ipv4Address::GetAny())
    {
        m_local.SetIpv4(route->GetSource());
    }
    DataRateValue lineRate;
    if (!route->GetOutputDevice()->GetAttributeFailSafe("DataRate", lineRate))
    {
        return Fail(ERROR_INVAL);
    }
    try
    {
        m_rate->Validate(lineRate.Get());
        Validate();
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR(e.what()); // RdmaHelper::Validate refuses these before a simulation
    }
    m_rate->Start(lineRate.Get());
    m_role = REQUESTER;
    m_udp->SetRecvCallback(MakeCallback(&RdmaSocket::ReceiveControl, this));
    // The queue pair is set up out of band, as collective libraries set theirs up first.
    Simulator::ScheduleNow(&RdmaSocket::NotifyConnectionSucceeded, this);
    return 0;
}

int
RdmaSocket::Listen()
{
    if (!m_udp || m_role != FRESH)
    {
        return Fail(ERROR_INVAL);
    }
    try
    {
        Validate();
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR(e.what()); // RdmaHelper::Validate refuses these before a simulation
    }
    m_role = LISTENER;
    m_udp->SetRecvCallback(MakeCallback(&RdmaSocket::ReceiveAtListener, this));
    return 0;
}

int
RdmaSocket::Close()
{
    if (m_role == REQUESTER)
    {
        m_closing = true;
        CloseIfDone();
        return 0;
    }
    // A listener stops accepting; its responders, which receive through its UDP socket, go
    // on (as TCP's accepted connections outlive their listener).
    m_closed = true;
    return 0;
}

int
RdmaSocket::ShutdownSend()
{
    m_shutdownSend = true;
    return 0;
}

int
RdmaSocket::ShutdownRecv()
{
    return 0;
}

uint32_t
RdmaSocket::GetTxAvailable() const
{
    return m_role == REQUESTER && !m_closing
               ? m_sendBufferSize -
                     static_cast<uint32_t>(std::min<size_t>(m_tx.size(), m_sendBufferSize))
               : 0;
}

int
RdmaSocket::Send(Ptr<Packet> p, uint32_t /* flags */)
{
    if (m_role != REQUESTER)
    {
        return Fail(ERROR_NOTCONN);
    }
    if (m_closing || m_shutdownSend)
    {
        return Fail(ERROR_SHUTDOWN);
    }
    const uint32_t size = p->GetSize();
    if (size > GetTxAvailable())
    {
        return Fail(ERROR_MSGSIZE);
    }
    std::vector<uint8_t> bytes(size);
    p->CopyData(bytes.data(), size);
    m_tx.insert(m_tx.end(), bytes.begin(), bytes.end());
    TrySend();
    return static_cast<int>(size);
}

int
RdmaSocket::SendTo(Ptr<Packet> p, uint32_t flags, const Address& /* toAddress */)
{
    return Send(p, flags);
}

uint32_t
RdmaSocket::GetRxAvailable() const
{
    return m_rxBytes;
}

Ptr<Packet>
RdmaSocket::Recv(uint32_t maxSize, uint32_t /* flags */)
{
    if (m_rx.empty() || maxSize == 0)
    {
        return nullptr;
    }
    Ptr<Packet> packet = m_rx.front();
    m_rx.pop_front();
    if (packet->GetSize() > maxSize)
    {
        m_rx.push_front(packet->CreateFragment(maxSize, packet->GetSize() - maxSize));
        packet = packet->CreateFragment(0, maxSize);
    }
    m_rxBytes -= packet->GetSize();
    return packet;
}

Ptr<Packet>
RdmaSocket::RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress)
{
    fromAddress = m_peer;
    return Recv(maxSize, flags);
}

int
RdmaSocket::GetSockName(Address& address) const
{
    address = m_local;
    return 0;
}

int
RdmaSocket::GetPeerName(Address& address) const
{
    if (m_role != REQUESTER && m_role != RESPONDER)
    {
        const_cast<RdmaSocket*>(this)->m_errno = ERROR_NOTCONN;
        return -1;
    }
    address = m_peer;
    return 0;
}

bool
RdmaSocket::SetAllowBroadcast(bool allowBroadcast)
{
    return !allowBroadcast;
}

bool
RdmaSocket::GetAllowBroadcast() const
{
    return false;
}

// The requester -----------------------------------------------------------------------------

void
RdmaSocket::TrySend()
{
    while (m_role == REQUESTER && !m_closed && m_sendEvent.IsExpired() && !m_waitingNic)
    {
        const bool again = !m_resend.empty();
        const uint32_t psn = again ? m_resend.front() : m_next;
        const bool fresh = Distance(psn, m_una) >= static_cast<int32_t>(m_sent.size());
        if (fresh && m_sentEnd >= m_txBase + m_tx.size())
        {
            return; // nothing to send
        }
        if (Simulator::Now() < m_nextSend)
        {
            m_sendEvent =
                Simulator::Schedule(m_nextSend - Simulator::Now(), &RdmaSocket::TrySend, this);
            return;
        }
        if (!SendData(psn))
        {
            return; // the NIC's queue is full: NicReady follows
        }
        if (again)
        {
            m_resend.erase(m_resend.begin());
        }
        else
        {
            ++m_next;
        }
    }
}

void
RdmaSocket::NicReady()
{
    m_waitingNic = false;
    TrySend();
}

bool
RdmaSocket::SendData(uint32_t psn)
{
    const auto index = static_cast<size_t>(Distance(psn, m_una));
    const bool fresh = index >= m_sent.size();
    Segment segment;
    if (fresh)
    {
        segment.offset = m_sentEnd;
        segment.length = static_cast<uint32_t>(
            std::min<uint64_t>(m_payloadSize, m_txBase + m_tx.size() - m_sentEnd));
    }
    else
    {
        segment = m_sent[index];
    }
    const auto from = m_tx.begin() + static_cast<std::ptrdiff_t>(segment.offset - m_txBase);
    std::vector<uint8_t> bytes(from, from + segment.length);
    Ptr<Packet> packet = Create<Packet>(bytes.data(), segment.length);
    RoceHeader header;
    header.SetOpcode(RoceHeader::DATA);
    header.SetPsn(psn);
    header.SetDestinationQp(m_peer.GetPort());
    // The last bytes the sender has ask for an acknowledgement at once.
    header.SetAckRequest(segment.offset + segment.length == m_txBase + m_tx.size());
    packet->AddHeader(header);
    const uint32_t ipBytes = packet->GetSize() + IP_UDP_BYTES;
    if (!Transmit(packet, m_dataDscp, true, true))
    {
        return false;
    }
    if (fresh)
    {
        m_sent.push_back(segment);
        m_sentEnd += segment.length;
        ++m_counters.dataPackets;
    }
    else
    {
        ++m_counters.retransmitted;
    }
    m_dataSentTrace(psn, !fresh);
    m_lastTx = Simulator::Now();
    m_rate->OnBytesSent(ipBytes);
    m_nextSend =
        Simulator::Now() + m_rate->GetRate().CalculateBytesTxTime(ipBytes + m_frameOverhead);
    ArmTimer();
    return true;
}

void
RdmaSocket::ReceiveControl(Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv())
    {
        RoceHeader header;
        packet->RemoveHeader(header);
        switch (header.GetOpcode())
        {
        case RoceHeader::ACK:
            Acknowledge(RoceHeader::Unwrap(header.GetPsn(), m_una));
            break;
        case RoceHeader::NACK:
            NotAcknowledged(RoceHeader::Unwrap(header.GetPsn(), m_una));
            break;
        case RoceHeader::CNP:
            ++m_counters.cnpsReceived;
            m_rate->OnCnp();
            break;
        default:
            break;
        }
    }
}

void
RdmaSocket::Acknowledge(uint32_t psn)
{
    const int32_t acked = Distance(psn, m_una) + 1;
    if (acked <= 0 || m_sent.empty())
    {
        return;
    }
    const auto count = std::min<size_t>(static_cast<size_t>(acked), m_sent.size());
    const uint64_t end = m_sent[count - 1].offset + m_sent[count - 1].length;
    m_sent.erase(m_sent.begin(), m_sent.begin() + static_cast<std::ptrdiff_t>(count));
    const auto freed = static_cast<uint32_t>(end - m_txBase);
    m_tx.erase(m_tx.begin(), m_tx.begin() + freed);
    m_txBase = end;
    m_una += static_cast<uint32_t>(count);
    m_lastProgress = Simulator::Now();
    m_retries = 0;
    if (Distance(m_next, m_una) < 0)
    {
        m_next = m_una;
    }
    m_resend.erase(std::remove_if(m_resend.begin(),
                                  m_resend.end(),
                                  [this](uint32_t p) { return Distance(p, m_una) < 0; }),
                   m_resend.end());
    m_timer.Cancel();
    ArmTimer();
    NotifyDataSent(freed);
    NotifySend(GetTxAvailable());
    CloseIfDone();
}

void
RdmaSocket::NotAcknowledged(uint32_t psn)
{
    Acknowledge(psn - 1); // everything before it arrived
    if (Distance(psn, m_una) < 0 || Distance(psn, m_una) >= static_cast<int32_t>(m_sent.size()))
    {
        return; // stale
    }
    if (m_recovery == GO_BACK_N)
    {
        m_next = psn;
    }
    else if (std::find(m_resend.begin(), m_resend.end(), psn) == m_resend.end())
    {
        m_resend.push_back(psn);
    }
    TrySend();
}

void
RdmaSocket::RetransmitTimeout()
{
    if (m_sent.empty())
    {
        return;
    }
    // The timeout counts from the last packet sent or acknowledgement: a queue pair held to a
    // low rate, or by a paused NIC, is slow, not lost.
    const Time quiet = std::max(m_lastTx, m_lastProgress) + m_retransmitTimeout;
    if (Simulator::Now() < quiet)
    {
        m_timer =
            Simulator::Schedule(quiet - Simulator::Now(), &RdmaSocket::RetransmitTimeout, this);
        return;
    }
    ++m_counters.timeouts;
    if (++m_retries > m_retryCount)
    {
        // As an RC queue pair whose retry count runs out: it goes to the error state.
        m_closed = true;
        m_sendEvent.Cancel();
        m_udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_udp->Close();
        NotifyErrorClose();
        return;
    }
    if (m_recovery == GO_BACK_N)
    {
        m_next = m_una;
    }
    else if (std::find(m_resend.begin(), m_resend.end(), m_una) == m_resend.end())
    {
        m_resend.insert(m_resend.begin(), m_una);
    }
    ArmTimer();
    TrySend();
}

void
RdmaSocket::ArmTimer()
{
    if (!m_sent.empty() && m_timer.IsExpired())
    {
        m_timer = Simulator::Schedule(m_retransmitTimeout, &RdmaSocket::RetransmitTimeout, this);
    }
}

void
RdmaSocket::CloseIfDone()
{
    if (!m_closing || m_closed || !m_tx.empty())
    {
        return;
    }
    m_closed = true;
    m_sendEvent.Cancel();
    m_timer.Cancel();
    m_udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    m_udp->Close();
    NotifyNormalClose();
}

// The listener and the responders -----------------------------------------------------------

void
RdmaSocket::ReceiveAtListener(Ptr<Socket> socket)
{
    Address from;
    while (Ptr<Packet> packet = socket->RecvFrom(from))
    {
        SocketIpTosTag tos;
        const bool marked = packet->PeekPacketTag(tos) && (tos.GetTos() & 0x3) == 0x3;
        Ipv4PacketInfoTag info;
        packet->PeekPacketTag(info);
        RoceHeader header;
        packet->RemoveHeader(header);
        const InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
        const auto key = std::make_pair(peer.GetIpv4().Get(), peer.GetPort());
        auto it = m_responders.find(key);
        if (it == m_responders.end())
        {
            if (m_closed || header.GetOpcode() != RoceHeader::DATA ||
                !NotifyConnectionRequest(from))
            {
                continue;
            }
            Ptr<RdmaSocket> responder = DynamicCast<RdmaSocket>(m_factory->CreateSocket());
            responder->m_role = RESPONDER;
            responder->m_local = InetSocketAddress(info.GetAddress(), m_local.GetPort());
            responder->m_peer = peer;
            it = m_responders.emplace(key, responder).first;
            NotifyNewConnectionCreated(responder, from);
        }
        packet->RemoveAllPacketTags();
        it->second->ReceiveData(packet, header, marked);
    }
}

void
RdmaSocket::ReceiveData(Ptr<Packet> packet, const RoceHeader& header, bool marked)
{
    const uint32_t psn = RoceHeader::Unwrap(header.GetPsn(), m_expected);
    if (marked)
    {
        ++m_counters.marked;
        if (!m_cnpSent || Simulator::Now() - m_lastCnp >= m_cnpInterval)
        {
            SendControl(RoceHeader::CNP, 0);
            m_lastCnp = Simulator::Now();
            m_cnpSent = true;
        }
    }
    const int32_t ahead = Distance(psn, m_expected);
    if (ahead < 0 || (m_closed && ahead != 0))
    {
        SendControl(RoceHeader::ACK, m_expected - 1); // a duplicate: its ACK may have been lost
        return;
    }
    if (ahead > 0)
    {
        if (m_recovery == SELECTIVE_REPEAT)
        {
            m_kept.emplace(psn, packet);
        }
        if (!m_nakSent)
        {
            SendControl(RoceHeader::NACK, m_expected);
            m_nakSent = true;
        }
        return;
    }
    ++m_expected;
    m_nakSent = false;
    ++m_unacked;
    if (!m_closed)
    {
        m_rxBytes += packet->GetSize();
        m_rx.push_back(packet);
    }
    const uint32_t before = m_expected;
    DeliverKept();
    if (m_unacked >= m_ackInterval || header.GetAckRequest() || m_expected != before)
    {
        SendControl(RoceHeader::ACK, m_expected - 1);
        m_unacked = 0;
    }
    if (!m_kept.empty())
    {
        SendControl(RoceHeader::NACK, m_expected); // the next gap among the kept
        m_nakSent = true;
    }
    if (!m_closed)
    {
        NotifyDataRecv();
    }
}

void
RdmaSocket::DeliverKept()
{
    for (auto it = m_kept.begin(); it != m_kept.end() && it->first == m_expected;)
    {
        if (!m_closed)
        {
            m_rxBytes += it->second->GetSize();
            m_rx.push_back(it->second);
        }
        ++m_expected;
        ++m_unacked;
        it = m_kept.erase(it);
    }
    while (!m_kept.empty() && Distance(m_kept.begin()->first, m_expected) < 0)
    {
        m_kept.erase(m_kept.begin());
    }
}

void
RdmaSocket::SendControl(RoceHeader::Opcode opcode, uint32_t psn)
{
    Ptr<Packet> packet = Create<Packet>();
    RoceHeader header;
    header.SetOpcode(opcode);
    header.SetPsn(psn);
    header.SetDestinationQp(m_peer.GetPort());
    packet->AddHeader(header);
    Transmit(packet, m_controlDscp, false, false);
    switch (opcode)
    {
    case RoceHeader::ACK:
        ++m_counters.acks;
        break;
    case RoceHeader::NACK:
        ++m_counters.nacks;
        break;
    default:
        ++m_counters.cnpsSent;
        break;
    }
}

// Both --------------------------------------------------------------------------------------

bool
RdmaSocket::Transmit(Ptr<Packet> packet, uint8_t dscp, bool ect, bool data)
{
    UdpHeader udp;
    udp.SetSourcePort(m_local.GetPort());
    udp.SetDestinationPort(m_peer.GetPort());
    if (Node::ChecksumEnabled())
    {
        udp.EnableChecksums();
        udp.InitializeChecksum(m_local.GetIpv4(), m_peer.GetIpv4(), UDP);
    }
    packet->AddHeader(udp);
    Ptr<Ipv4Route> route = Route(packet);
    if (!route)
    {
        NS_LOG_LOGIC("no route to " << m_peer.GetIpv4() << "; the packet is lost");
        return true;
    }
    Ptr<LosslessNetDevice> nic = DynamicCast<LosslessNetDevice>(route->GetOutputDevice());
    if (nic)
    {
        m_frameOverhead = nic->GetFrameOverhead();
    }
    const uint8_t cls = dscp >> 3;
    if (data && nic &&
        nic->GetLocalQueuedBytes(cls) >= uint64_t{m_nicQueueFrames} * (packet->GetSize() + 20))
    {
        m_waitingNic = true;
        nic->NotifyWhenDequeued(MakeCallback(&RdmaSocket::NicReady, Ptr<RdmaSocket>(this)));
        return false;
    }
    SocketIpTosTag tos;
    tos.SetTos(static_cast<uint8_t>(dscp << 2 | (ect ? 0x2 : 0x0)));
    packet->ReplacePacketTag(tos);
    m_node->GetObject<Ipv4>()->Send(packet, m_local.GetIpv4(), m_peer.GetIpv4(), UDP, route);
    return true;
}

Ptr<Ipv4Route>
RdmaSocket::Route(Ptr<Packet> packet) const
{
    Ipv4Header header;
    header.SetSource(m_local.GetIpv4());
    header.SetDestination(m_peer.GetIpv4());
    header.SetProtocol(UDP);
    Socket::SocketErrno error;
    return m_node->GetObject<Ipv4>()->GetRoutingProtocol()->RouteOutput(packet,
                                                                        header,
                                                                        nullptr,
                                                                        error);
}

} // namespace ns3
