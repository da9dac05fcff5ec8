/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-validation.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/lossless-ethernet-helper.h"
#include "ns3/lossless-net-device.h"
#include "ns3/pointer.h"
#include "ns3/rdma-helper.h"
#include "ns3/rdma-socket-factory.h"
#include "ns3/shared-buffer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <random>

namespace ns3
{
namespace rdma_validation
{
namespace
{

constexpr uint8_t ROCE_TOS = (26 << 2) | 0x02; //!< DSCP 26 (class 3), ECN-capable
constexpr uint16_t PORT = 7000;

/// Hosts and switches on 10 Gbps lossless links with 1 us delay, global routing.
struct Network
{
    NodeContainer nodes;                                               //!< every node
    std::map<std::pair<uint32_t, uint32_t>, NetDeviceContainer> links; //!< by (lower, higher)
    std::map<uint32_t, Ipv4Address> address;                           //!< a node's first

    /**
     * \param count nodes \param edges the links \param pfc pause (true) or drop
     * \param rdma the transport's settings
     */
    Network(uint32_t count,
            const std::vector<std::pair<uint32_t, uint32_t>>& edges,
            bool pfc,
            const RdmaHelper& rdma = RdmaHelper())
    {
        nodes.Create(count);
        LosslessEthernetHelper ethernet;
        ethernet.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        ethernet.SetChannelAttribute("Delay", StringValue("1us"));
        ethernet.SetBufferAttribute("Size", UintegerValue(1000000));
        ethernet.SetBufferAttribute("Threshold", StringValue("static"));
        ethernet.SetBufferAttribute("StaticThreshold", UintegerValue(100000));
        ethernet.SetBufferAttribute("PfcEnabled", BooleanValue(pfc));
        ethernet.SetDeviceAttribute("PfcEnabled", BooleanValue(pfc));
        for (const auto& [a, b] : edges)
        {
            links[{std::min(a, b), std::max(a, b)}] = ethernet.Install(nodes.Get(a), nodes.Get(b));
        }
        InternetStackHelper internet;
        internet.Install(nodes);
        Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
        for (const auto& [ends, devices] : links)
        {
            Ipv4InterfaceContainer ifs = addresses.Assign(devices);
            address.emplace(ends.first, ifs.GetAddress(0));
            address.emplace(ends.second, ifs.GetAddress(1));
            addresses.NewNetwork();
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
        LosslessEthernetHelper::Validate(nodes);
        rdma.Install(nodes);
    }

    /// \return packets every buffer dropped
    uint64_t Drops() const
    {
        uint64_t drops = 0;
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            drops += nodes.Get(i)->GetObject<SharedBuffer>()->GetDrops();
        }
        return drops;
    }

    /// \return PFC pause frames every port sent
    uint64_t Pauses() const
    {
        uint64_t pauses = 0;
        for (const auto& [ends, devices] : links)
        {
            for (uint32_t end = 0; end < 2; ++end)
            {
                pauses +=
                    DynamicCast<LosslessNetDevice>(devices.Get(end))->GetCounters().pausesSent;
            }
        }
        return pauses;
    }

    /// \param from a node \param to its neighbour \return from's port toward to
    Ptr<LosslessNetDevice> Port(uint32_t from, uint32_t to) const
    {
        const auto& devices = links.at({std::min(from, to), std::max(from, to)});
        return DynamicCast<LosslessNetDevice>(devices.Get(from < to ? 0 : 1));
    }
};

/// Counts what a host receives over UDP on PORT.
struct Sink
{
    uint64_t bytes{0}; //!< payload received

    /// \param node the host
    explicit Sink(Ptr<Node> node)
    {
        Ptr<Socket> socket = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), PORT));
        socket->SetRecvCallback(Callback<void, Ptr<Socket>>([this](Ptr<Socket> s) {
            while (Ptr<Packet> p = s->Recv())
            {
                bytes += p->GetSize();
            }
        }));
    }
};

/**
 * Sends 1000-byte UDP datagrams at 90% of line rate from 0 to `until`, each at a random point
 * of its slot (seeded by the sender's node id). Below line rate the sender's NIC queue empties,
 * so the jitter reaches the switches and senders do not lock in phase: at exactly line rate the
 * NICs space every sender's packets alike, and at a full drop-tail queue the same sender would
 * win every time.
 * \return how many
 */
uint64_t
Blast(Ptr<Node> from, Ipv4Address to, Time until)
{
    Ptr<Socket> socket = Socket::CreateSocket(from, UdpSocketFactory::GetTypeId());
    socket->Bind();
    socket->Connect(InetSocketAddress(to, PORT));
    socket->SetIpTos(ROCE_TOS); // after Connect, which takes the address's TOS
    const Time gap = DataRate("9Gbps").CalculateBytesTxTime(1000 + 28 + 38);
    std::mt19937_64 random(from->GetId() + 1);
    std::uniform_int_distribution<int64_t> jitter(0, gap.GetNanoSeconds() - 1);
    uint64_t count = 0;
    for (Time at = Seconds(0); at < until; at += gap, ++count)
    {
        Simulator::Schedule(at + NanoSeconds(jitter(random)),
                            [socket]() { socket->Send(Create<Packet>(1000)); });
    }
    return count;
}

/// One stream over a queue pair, as it arrives.
struct Stream
{
    std::vector<uint8_t> sent;                       //!< the bytes sent
    std::vector<uint8_t> received;                   //!< the bytes received, in order
    std::vector<std::pair<Time, uint64_t>> arrivals; //!< (time, bytes so far)
};

/// Sends `bytes` from `from` to `to` on a new queue pair at `start`. \return the stream
std::shared_ptr<Stream>
Open(Network& net, uint32_t from, uint32_t to, uint32_t bytes, Time start, uint16_t port)
{
    auto stream = std::make_shared<Stream>();
    stream->sent.resize(bytes);
    for (uint32_t i = 0; i < bytes; ++i)
    {
        stream->sent[i] = static_cast<uint8_t>((i * 7 + from) & 0xff);
    }
    Ptr<Socket> listener = Socket::CreateSocket(net.nodes.Get(to), RdmaSocketFactory::GetTypeId());
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    listener->Listen();
    listener->SetAcceptCallback(
        MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
        Callback<void, Ptr<Socket>, const Address&>([stream](Ptr<Socket> s, const Address&) {
            s->SetRecvCallback(Callback<void, Ptr<Socket>>([stream](Ptr<Socket> r) {
                while (Ptr<Packet> p = r->Recv())
                {
                    const size_t at = stream->received.size();
                    stream->received.resize(at + p->GetSize());
                    p->CopyData(stream->received.data() + at, p->GetSize());
                    stream->arrivals.emplace_back(Simulator::Now(), stream->received.size());
                }
            }));
        }));
    Ptr<Socket> qp = Socket::CreateSocket(net.nodes.Get(from), RdmaSocketFactory::GetTypeId());
    const Ipv4Address destination = net.address.at(to);
    Simulator::Schedule(start, [qp, stream, destination, port]() {
        qp->Connect(InetSocketAddress(destination, port));
        qp->Send(stream->sent.data(), static_cast<uint32_t>(stream->sent.size()), 0);
    });
    return stream;
}

/// \return a stream's bytes received between two times
uint64_t
BytesBetween(const Stream& s, Time from, Time to)
{
    uint64_t before = 0;
    uint64_t until = 0;
    for (const auto& [t, bytes] : s.arrivals)
    {
        before = t <= from ? bytes : before;
        until = t <= to ? bytes : until;
    }
    return until - before;
}

/// \return host h's links to switch `hub`
std::vector<std::pair<uint32_t, uint32_t>>
StarEdges(uint32_t hosts)
{
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        edges.emplace_back(h, hosts);
    }
    return edges;
}

} // namespace

LineRate
RunLineRate(uint32_t bytes)
{
    Network net(3, StarEdges(2), true);
    auto stream = Open(net, 0, 1, bytes, Seconds(0), PORT);
    Simulator::Run();
    LineRate out;
    out.exact = stream->received == stream->sent;
    out.gbps = stream->arrivals.empty()
                   ? 0
                   : bytes * 8.0 / stream->arrivals.back().first.GetSeconds() / 1e9;
    const RdmaSocket::Counters c = RdmaHelper::GetTotals(net.nodes);
    out.dataPackets = c.dataPackets;
    out.acks = c.acks;
    out.retransmitted = c.retransmitted;
    out.cnps = c.cnpsSent;
    Simulator::Destroy();
    return out;
}

FairShare
RunFairShare(uint32_t flows, uint32_t fromMs, uint32_t toMs)
{
    Network net(flows + 2, StarEdges(flows + 1), true);
    std::vector<std::shared_ptr<Stream>> streams;
    for (uint32_t h = 0; h < flows; ++h)
    {
        streams.push_back(Open(net,
                               h,
                               flows,
                               toMs * 2500000U / flows, // twice a fair share at line rate
                               MilliSeconds(h),
                               static_cast<uint16_t>(PORT + h)));
    }
    Simulator::Stop(MilliSeconds(toMs));
    Simulator::Run();
    FairShare out;
    double squares = 0;
    for (const auto& s : streams)
    {
        const double g = BytesBetween(*s, MilliSeconds(fromMs), MilliSeconds(toMs)) * 8.0 /
                         ((toMs - fromMs) * 1e-3) / 1e9;
        out.gbps.push_back(g);
        out.total += g;
        squares += g * g;
    }
    out.jain = squares > 0 ? out.total * out.total / (flows * squares) : 0;
    out.drops = net.Drops();
    out.cnps = RdmaHelper::GetTotals(net.nodes).cnpsReceived;
    out.pauses = net.Pauses();
    Simulator::Destroy();
    return out;
}

Incast
RunIncast(bool pfc)
{
    Network net(6, StarEdges(5), pfc); // hosts 0-3 send to host 4, all on switch 5
    Sink sink(net.nodes.Get(4));
    Incast out;
    for (uint32_t h = 0; h < 4; ++h)
    {
        out.sent += Blast(net.nodes.Get(h), net.address.at(4), MicroSeconds(500));
    }
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    out.received = sink.bytes / 1000;
    out.drops = net.Drops();
    for (uint32_t h = 0; h < 4; ++h)
    {
        out.pauses += net.Port(5, h)->GetCounters().pausesSent;
    }
    out.marks = net.Port(5, 4)->GetCounters().ecnMarks;
    Simulator::Destroy();
    return out;
}

Spreading
RunSpreading(bool pfc, bool incast)
{
    Network net(9, {{0, 5}, {1, 5}, {2, 5}, {5, 6}, {3, 6}, {4, 6}, {6, 7}, {6, 8}}, pfc);
    Sink victim(net.nodes.Get(4));
    Sink congested(net.nodes.Get(3));
    const Time duration = MicroSeconds(2000);
    Blast(net.nodes.Get(2), net.address.at(4), duration);
    if (incast)
    {
        for (uint32_t h : {0U, 1U, 7U, 8U})
        {
            Blast(net.nodes.Get(h), net.address.at(3), duration);
        }
    }
    Simulator::Stop(duration);
    Simulator::Run();
    Spreading out;
    out.victimGbps = victim.bytes * 8.0 / duration.GetSeconds() / 1e9;
    out.upstreamPauses = net.Port(6, 5)->GetCounters().pausesSent;
    for (uint32_t h : {0U, 1U, 2U})
    {
        out.hostPauses += net.Port(5, h)->GetCounters().pausesSent;
    }
    Simulator::Destroy();
    return out;
}

double
RunOnePacketMicroseconds(bool cutThrough)
{
    Network net(3, StarEdges(2), true);
    for (uint32_t host : {0U, 1U})
    {
        net.Port(2, host)->SetAttribute("CutThrough", BooleanValue(cutThrough));
    }
    auto stream = Open(net, 0, 1, 4096, Seconds(0), PORT);
    Simulator::Run();
    const double us =
        stream->arrivals.empty() ? 0 : stream->arrivals.back().first.GetSeconds() * 1e6;
    Simulator::Destroy();
    return us;
}

Recovery
RunOneLoss(const std::string& recovery)
{
    RdmaHelper rdma;
    rdma.SetSocketAttribute("Recovery", StringValue(recovery));
    Network net(3, StarEdges(2), true, rdma);
    Ptr<ReceiveListErrorModel> loss = CreateObject<ReceiveListErrorModel>();
    loss->SetList({9}); // the 10th frame host 1 receives
    net.Port(1, 2)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    auto stream = Open(net, 0, 1, 1024 * 1024, Seconds(0), PORT);
    Simulator::Run();
    const RdmaSocket::Counters c = RdmaHelper::GetTotals(net.nodes);
    Recovery out;
    out.exact = stream->received == stream->sent;
    out.nacks = c.nacks;
    out.retransmitted = c.retransmitted;
    out.timeouts = c.timeouts;
    out.ms = stream->arrivals.empty() ? 0 : stream->arrivals.back().first.GetSeconds() * 1e3;
    Simulator::Destroy();
    return out;
}

} // namespace rdma_validation
} // namespace ns3
