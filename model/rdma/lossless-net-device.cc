/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "lossless-net-device.h"

#include "lossless-channel.h"
#include "pfc-ingress-tag.h"
#include "shared-buffer.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-trailer.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LosslessNetDevice");
NS_OBJECT_ENSURE_REGISTERED(LosslessNetDevice);

namespace
{
constexpr uint16_t IPV4 = 0x0800;
constexpr uint32_t ETHERNET_BYTES = 14 + 4; //!< Ethernet II header and FCS
constexpr uint32_t PREAMBLE_BYTES = 8;      //!< preamble and start delimiter
constexpr uint32_t CUT_THROUGH_BYTES = 64;  //!< what a cut-through port reads before it forwards
} // namespace

TypeId
LosslessNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LosslessNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Allreduce")
            .AddConstructor<LosslessNetDevice>()
            .AddAttribute("DataRate",
                          "The line rate.",
                          DataRateValue(DataRate("10Gbps")),
                          MakeDataRateAccessor(&LosslessNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute(
                "Mtu",
                "The largest IP packet, in bytes (9000: jumbo frames, as RoCE "
                "networks run them so that a 4096-byte RoCE payload fits).",
                UintegerValue(9000),
                MakeUintegerAccessor(&LosslessNetDevice::SetMtu, &LosslessNetDevice::GetMtu),
                MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("PreambleAndGap",
                          "Line bytes each frame takes beyond itself: preamble and start "
                          "delimiter (8) and the interframe gap (12).",
                          UintegerValue(20),
                          MakeUintegerAccessor(&LosslessNetDevice::m_preambleAndGap),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("PfcEnabled",
                          "Whether the port sends PFC frames (as its node's SharedBuffer asks) "
                          "and honours those it receives.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LosslessNetDevice::m_pfc),
                          MakeBooleanChecker())
            .AddAttribute("EcnEnabled",
                          "Whether the port marks ECN-capable IPv4 packets CE at egress.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&LosslessNetDevice::m_ecn),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Bytes queued in the packet's class above which marking starts "
                          "(DCQCN's Kmin; Zhu et al. 2015 use 5 KB).",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&LosslessNetDevice::m_kmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKmax",
                          "Bytes queued at which the marking probability reaches EcnPmax; "
                          "every packet above it is marked (DCQCN's Kmax; 200 KB there).",
                          UintegerValue(200000),
                          MakeUintegerAccessor(&LosslessNetDevice::m_kmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnPmax",
                          "Marking probability at EcnKmax (DCQCN's Pmax; 1% there).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&LosslessNetDevice::m_pmax),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("CutThrough",
                          "Received data frames are handed on once their first 64 bytes are "
                          "in (cut-through switching); frames for this node wait for their "
                          "tail.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&LosslessNetDevice::m_cutThrough),
                          MakeBooleanChecker())
            .AddAttribute("ReceiveErrorModel",
                          "Drops received data frames (not PFC frames), e.g. a RateErrorModel.",
                          PointerValue(),
                          MakePointerAccessor(&LosslessNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("PhyTxBegin",
                            "A frame starts on the line (Ethernet header first).",
                            MakeTraceSourceAccessor(&LosslessNetDevice::m_phyTxBegin),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcSent",
                            "A PFC frame was sent (class, quanta; 0 quanta resumes).",
                            MakeTraceSourceAccessor(&LosslessNetDevice::m_pfcSent),
                            "ns3::LosslessNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcReceived",
                            "A PFC frame was received (class, quanta; 0 quanta resumes).",
                            MakeTraceSourceAccessor(&LosslessNetDevice::m_pfcReceived),
                            "ns3::LosslessNetDevice::PfcTracedCallback")
            .AddTraceSource("EcnMarked",
                            "An IPv4 packet was marked CE at egress.",
                            MakeTraceSourceAccessor(&LosslessNetDevice::m_ecnMarked),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A packet was dropped: no room in the node's buffer, or a receive "
                            "error.",
                            MakeTraceSourceAccessor(&LosslessNetDevice::m_drop),
                            "ns3::Packet::TracedCallback");
    return tid;
}

LosslessNetDevice::LosslessNetDevice()
    : m_uniform(CreateObject<UniformRandomVariable>())
{
    m_pausedUntil.fill(Seconds(0));
}

LosslessNetDevice::~LosslessNetDevice() = default;

void
LosslessNetDevice::DoDispose()
{
    m_wake.Cancel();
    m_node = nullptr;
    m_channel = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxCallback =
        MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    m_promiscCallback = PromiscReceiveCallback();
    m_linkChangeCallbacks.clear();
    m_dequeueWaiters.clear();
    for (auto& queue : m_queues)
    {
        queue.clear();
    }
    m_pfcFrames.clear();
    NetDevice::DoDispose();
}

void
LosslessNetDevice::Attach(Ptr<LosslessChannel> channel)
{
    m_channel = channel;
    channel->Attach(this);
    for (auto& callback : m_linkChangeCallbacks)
    {
        callback();
    }
}

void
LosslessNetDevice::Validate() const
{
    if (m_kmin > m_kmax)
    {
        throw std::invalid_argument("ECN: EcnKmin (" + std::to_string(m_kmin) +
                                    " bytes) is above EcnKmax (" + std::to_string(m_kmax) +
                                    " bytes); marking starts at Kmin and is certain above Kmax");
    }
    if (m_rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("lossless Ethernet: a port's DataRate must be above 0");
    }
    if (!(m_pmax > 0 && m_pmax <= 1))
    {
        throw std::invalid_argument("ECN: EcnPmax must be in (0, 1], got " +
                                    std::to_string(m_pmax));
    }
}

int64_t
LosslessNetDevice::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

uint8_t
LosslessNetDevice::ClassOf(Ptr<const Packet> packet, uint16_t protocol)
{
    uint8_t bytes[2];
    if (protocol != IPV4 || packet->CopyData(bytes, 2) < 2)
    {
        return 0;
    }
    return static_cast<uint8_t>(bytes[1] >> 5); // the TOS byte: DSCP (6 bits), ECN (2)
}

bool
LosslessNetDevice::Send(Ptr<Packet> packet, const Address& /* dest */, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << protocolNumber);
    const uint8_t cls = ClassOf(packet, protocolNumber);
    PfcIngressTag ingress;
    const bool forwarded = packet->RemovePacketTag(ingress);
    if (forwarded)
    {
        // Forwarded: the node's buffer charges it to the queue it came in on.
        if (Ptr<SharedBuffer> buffer = m_node->GetObject<SharedBuffer>())
        {
            if (!buffer->Admit(ingress.GetIfIndex(),
                               m_ifIndex,
                               ingress.GetClass(),
                               packet->GetSize()))
            {
                ++m_counters.drops;
                m_drop(packet);
                return false;
            }
            packet->AddPacketTag(ingress); // released when it leaves
        }
    }
    if (m_ecn && protocolNumber == IPV4)
    {
        MarkEcn(packet, cls);
    }
    m_queuedBytes[cls] += packet->GetSize();
    m_localBytes[cls] += forwarded ? 0 : packet->GetSize();
    m_queues[cls].push_back(Queued{packet, protocolNumber, !forwarded});
    TransmitNext();
    return true;
}

bool
LosslessNetDevice::SendFrom(Ptr<Packet> packet,
                            const Address& /* source */,
                            const Address& dest,
                            uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

void
LosslessNetDevice::MarkEcn(Ptr<Packet> packet, uint8_t cls)
{
    const uint64_t queued = m_queuedBytes[cls];
    if (queued <= m_kmin)
    {
        return;
    }
    Ipv4Header ip;
    packet->PeekHeader(ip);
    if (ip.GetEcn() == Ipv4Header::ECN_NotECT || ip.GetEcn() == Ipv4Header::ECN_CE)
    {
        return;
    }
    const double p =
        queued >= m_kmax ? 1.0 : m_pmax * double(queued - m_kmin) / double(m_kmax - m_kmin);
    if (m_uniform->GetValue() >= p)
    {
        return;
    }
    packet->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    packet->AddHeader(ip);
    ++m_counters.ecnMarks;
    m_ecnMarked(packet);
}

Ptr<Packet>
LosslessNetDevice::Frame(Ptr<Packet> frame, uint16_t protocol) const
{
    EthernetHeader header(false);
    header.SetSource(m_address);
    const Ptr<LosslessNetDevice> peer = m_channel ? m_channel->GetPeer(this) : nullptr;
    header.SetDestination(protocol == PfcHeader::ETHERTYPE
                              ? Mac48Address("01:80:c2:00:00:01") // MAC control frames
                              : (peer ? Mac48Address::ConvertFrom(peer->GetAddress())
                                      : Mac48Address::GetBroadcast()));
    header.SetLengthType(protocol);
    frame->AddHeader(header);
    EthernetTrailer trailer;
    frame->AddTrailer(trailer);
    return frame;
}

void
LosslessNetDevice::TransmitNext()
{
    if (m_busy || !IsLinkUp())
    {
        return;
    }
    Ptr<Packet> frame;
    const bool pfcFrame = !m_pfcFrames.empty(); // PFC frames are not cut through
    if (pfcFrame)
    {
        frame = m_pfcFrames.front();
        m_pfcFrames.pop_front();
    }
    Time wake = Time::Max();
    const Time now = Simulator::Now();
    for (int c = PfcHeader::CLASSES - 1; !frame && c >= 0; --c)
    {
        if (m_queues[c].empty())
        {
            continue;
        }
        if (m_pfc && m_pausedUntil[c] > now)
        {
            wake = std::min(wake, m_pausedUntil[c]);
            continue;
        }
        const Time earliest = EarliestStart(m_queues[c].front().packet);
        if (earliest > now)
        {
            wake = std::min(wake, earliest); // cut through: it must not overtake its own tail
            continue;
        }
        Queued next = m_queues[c].front();
        m_queues[c].pop_front();
        m_queuedBytes[c] -= next.packet->GetSize();
        m_localBytes[c] -= next.local ? next.packet->GetSize() : 0;
        PfcIngressTag ingress;
        if (next.packet->RemovePacketTag(ingress))
        {
            m_node->GetObject<SharedBuffer>()->Release(ingress.GetIfIndex(),
                                                       m_ifIndex,
                                                       ingress.GetClass(),
                                                       next.packet->GetSize());
        }
        frame = Frame(next.packet, next.protocol);
    }
    if (!frame)
    {
        if (wake != Time::Max())
        {
            m_wake.Cancel();
            m_wake = Simulator::Schedule(wake - now, &LosslessNetDevice::TransmitNext, this);
        }
        return;
    }
    m_busy = true;
    m_phyTxBegin(frame);
    const Time txTime = m_rate.CalculateBytesTxTime(frame->GetSize() + m_preambleAndGap);
    const Time headerTime =
        pfcFrame ? txTime : m_rate.CalculateBytesTxTime(PREAMBLE_BYTES + CUT_THROUGH_BYTES);
    m_channel->Transmit(frame, this, txTime, std::min(headerTime, txTime));
    Simulator::Schedule(txTime, &LosslessNetDevice::TransmitComplete, this);
    std::vector<Callback<void>> waiters;
    waiters.swap(m_dequeueWaiters);
    for (auto& waiter : waiters)
    {
        waiter();
    }
}

void
LosslessNetDevice::TransmitComplete()
{
    m_busy = false;
    TransmitNext();
}

bool
LosslessNetDevice::IsCutThrough() const
{
    return m_cutThrough;
}

bool
LosslessNetDevice::IsForThisNode(Ptr<const Packet> frame) const
{
    uint8_t bytes[14 + 20];
    if (frame->CopyData(bytes, sizeof(bytes)) < sizeof(bytes) || bytes[12] != 0x08 ||
        bytes[13] != 0x00)
    {
        return true; // not IPv4: nothing to forward
    }
    const Ptr<Ipv4> ipv4 = m_node->GetObject<Ipv4>();
    const uint32_t to = uint32_t(bytes[30]) << 24 | uint32_t(bytes[31]) << 16 |
                        uint32_t(bytes[32]) << 8 | bytes[33];
    return !ipv4 || ipv4->GetInterfaceForAddress(Ipv4Address(to)) >= 0;
}

Time
LosslessNetDevice::EarliestStart(Ptr<const Packet> packet) const
{
    PfcIngressTag ingress;
    if (!packet->PeekPacketTag(ingress) || ingress.GetTailAt().IsZero())
    {
        return Time(0);
    }
    return ingress.GetTailAt() -
           m_rate.CalculateBytesTxTime(packet->GetSize() + ETHERNET_BYTES + m_preambleAndGap);
}

void
LosslessNetDevice::Receive(Ptr<Packet> frame, Time tail)
{
    NS_LOG_FUNCTION(this << frame << tail);
    if (tail.IsStrictlyPositive() && IsForThisNode(frame))
    {
        // Cut through only what leaves again: the node itself takes a frame whole.
        Simulator::Schedule(tail, &LosslessNetDevice::Receive, this, frame, Time(0));
        return;
    }
    EthernetTrailer trailer;
    frame->RemoveTrailer(trailer);
    EthernetHeader header(false);
    frame->RemoveHeader(header);
    const uint16_t protocol = header.GetLengthType();
    if (protocol == PfcHeader::ETHERTYPE)
    {
        PfcHeader pfc;
        frame->RemoveHeader(pfc);
        HonourPfc(pfc);
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        ++m_counters.drops;
        m_drop(frame);
        return;
    }
    PfcIngressTag ingress(m_ifIndex,
                          ClassOf(frame, protocol),
                          tail.IsStrictlyPositive() ? Simulator::Now() + tail : Time(0));
    frame->ReplacePacketTag(ingress);
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this,
                          frame,
                          protocol,
                          header.GetSource(),
                          header.GetDestination(),
                          NetDevice::PACKET_HOST);
    }
    m_rxCallback(this, frame, protocol, header.GetSource());
}

void
LosslessNetDevice::HonourPfc(const PfcHeader& pfc)
{
    for (uint8_t c = 0; c < PfcHeader::CLASSES; ++c)
    {
        if (!pfc.IsEnabled(c))
        {
            continue;
        }
        const uint16_t quanta = pfc.GetQuanta(c);
        m_counters.pausesReceived += quanta > 0 ? 1 : 0;
        m_pfcReceived(c, quanta);
        if (m_pfc)
        {
            m_pausedUntil[c] = Simulator::Now() + QuantaToTime(quanta);
        }
    }
    m_wake.Cancel();
    TransmitNext(); // a resume may free a class; a pause reschedules the wake
}

void
LosslessNetDevice::SendPfc(uint8_t cls, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << +cls << quanta);
    if (!m_pfc)
    {
        return;
    }
    PfcHeader pfc;
    pfc.SetQuanta(cls, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    m_pfcFrames.push_back(Frame(frame, PfcHeader::ETHERTYPE));
    (quanta > 0 ? m_counters.pausesSent : m_counters.resumesSent) += 1;
    m_pfcSent(cls, quanta);
    TransmitNext();
}

Time
LosslessNetDevice::QuantaToTime(uint16_t quanta) const
{
    return m_rate.CalculateBytesTxTime(uint64_t{quanta} * 512 / 8);
}

bool
LosslessNetDevice::IsPaused(uint8_t cls) const
{
    return m_pfc && cls < PfcHeader::CLASSES && m_pausedUntil[cls] > Simulator::Now();
}

uint64_t
LosslessNetDevice::GetQueuedBytes(uint8_t cls) const
{
    return cls < PfcHeader::CLASSES ? m_queuedBytes[cls] : 0;
}

uint64_t
LosslessNetDevice::GetLocalQueuedBytes(uint8_t cls) const
{
    return cls < PfcHeader::CLASSES ? m_localBytes[cls] : 0;
}

void
LosslessNetDevice::NotifyWhenDequeued(Callback<void> callback)
{
    m_dequeueWaiters.push_back(callback);
}

DataRate
LosslessNetDevice::GetDataRate() const
{
    return m_rate;
}

bool
LosslessNetDevice::IsPfcEnabled() const
{
    return m_pfc;
}

uint32_t
LosslessNetDevice::GetFrameOverhead() const
{
    return ETHERNET_BYTES + m_preambleAndGap;
}

const LosslessNetDevice::Counters&
LosslessNetDevice::GetCounters() const
{
    return m_counters;
}

void
LosslessNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
LosslessNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
LosslessNetDevice::GetChannel() const
{
    return m_channel;
}

void
LosslessNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
LosslessNetDevice::GetAddress() const
{
    return m_address;
}

bool
LosslessNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
LosslessNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
LosslessNetDevice::IsLinkUp() const
{
    return m_channel && m_channel->GetNDevices() == 2;
}

void
LosslessNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.push_back(callback);
}

bool
LosslessNetDevice::IsBroadcast() const
{
    return true;
}

Address
LosslessNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
LosslessNetDevice::IsMulticast() const
{
    return true;
}

Address
LosslessNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
LosslessNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
LosslessNetDevice::IsPointToPoint() const
{
    return true;
}

bool
LosslessNetDevice::IsBridge() const
{
    return false;
}

Ptr<Node>
LosslessNetDevice::GetNode() const
{
    return m_node;
}

void
LosslessNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
LosslessNetDevice::NeedsArp() const
{
    return false;
}

void
LosslessNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
LosslessNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
LosslessNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
