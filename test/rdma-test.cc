/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The RoCEv2 transport (doc/allreduce.rst, "RDMA"): a queue pair delivers a stream exactly and
// in order at nearly line rate; flows through one bottleneck converge to fair shares under
// DCQCN without a drop; go-back-N and selective repeat recover a lost packet; bad settings are
// refused with what to change.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t PORT = 7000;

/// Hosts 0..n-1 and one switch (node n), on 10 Gbps lossless links with 1 us delay.
struct Star
{
    NodeContainer nodes;                   //!< hosts, then the switch
    std::vector<Ipv4Address> address;      //!< per host
    std::vector<NetDeviceContainer> links; //!< per host: its device, the switch's

    /// \param hosts hosts \param rdma sets the sockets' attributes
    Star(uint32_t hosts, const RdmaHelper& rdma = RdmaHelper())
    {
        nodes.Create(hosts + 1);
        LosslessEthernetHelper ethernet;
        ethernet.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        ethernet.SetChannelAttribute("Delay", StringValue("1us"));
        for (uint32_t h = 0; h < hosts; ++h)
        {
            links.push_back(ethernet.Install(nodes.Get(h), nodes.Get(hosts)));
        }
        InternetStackHelper internet;
        internet.Install(nodes);
        Ipv4AddressHelper addresses("10.1.0.0", "255.255.255.252");
        for (const auto& link : links)
        {
            address.push_back(addresses.Assign(link).GetAddress(0));
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
};

/// One stream over a queue pair, and what arrived of it.
struct Stream
{
    std::vector<uint8_t> sent;                       //!< the bytes sent
    std::vector<uint8_t> received;                   //!< the bytes received, in order
    Time last;                                       //!< when the last byte arrived
    std::vector<std::pair<Time, uint64_t>> arrivals; //!< (time, bytes so far)
    Ptr<Socket> requester;                           //!< the sending end
};

/**
 * Sends `bytes` from host `from` to host `to` on a new queue pair from `start`.
 * \return the stream (filled as the simulation runs)
 */
std::shared_ptr<Stream>
Open(Star& star, uint32_t from, uint32_t to, uint32_t bytes, Time start, uint16_t port = PORT)
{
    auto stream = std::make_shared<Stream>();
    stream->sent.resize(bytes);
    for (uint32_t i = 0; i < bytes; ++i)
    {
        stream->sent[i] = static_cast<uint8_t>((i * 7 + from) & 0xff);
    }
    Ptr<Socket> listener = Socket::CreateSocket(star.nodes.Get(to), RdmaSocketFactory::GetTypeId());
    EXPECT_EQ(listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)), 0);
    EXPECT_EQ(listener->Listen(), 0);
    listener->SetAcceptCallback(
        MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
        Callback<void, Ptr<Socket>, const Address&>([stream](Ptr<Socket> s, const Address&) {
            s->SetRecvCallback(Callback<void, Ptr<Socket>>([stream](Ptr<Socket> r) {
                while (Ptr<Packet> p = r->Recv())
                {
                    const size_t at = stream->received.size();
                    stream->received.resize(at + p->GetSize());
                    p->CopyData(stream->received.data() + at, p->GetSize());
                    stream->last = Simulator::Now();
                    stream->arrivals.emplace_back(Simulator::Now(), stream->received.size());
                }
            }));
        }));
    Ptr<Socket> qp = Socket::CreateSocket(star.nodes.Get(from), RdmaSocketFactory::GetTypeId());
    stream->requester = qp;
    Simulator::Schedule(start, [qp, stream, star = &star, to, port]() {
        EXPECT_EQ(qp->Connect(InetSocketAddress(star->address[to], port)), 0);
        EXPECT_EQ(qp->Send(stream->sent.data(), static_cast<uint32_t>(stream->sent.size()), 0),
                  static_cast<int>(stream->sent.size()));
    });
    return stream;
}

/// \param s a stream \param from \param to \return its bytes received between two times
uint64_t
BytesBetween(const Stream& s, Time from, Time to)
{
    uint64_t before = 0;
    uint64_t until = 0;
    for (const auto& [t, bytes] : s.arrivals)
    {
        if (t <= from)
        {
            before = bytes;
        }
        if (t <= to)
        {
            until = bytes;
        }
    }
    return until - before;
}

} // namespace

TEST(Rdma, OneQueuePairDeliversItsStreamExactlyAtNearlyLineRate)
{
    Star star(2);
    const uint32_t bytes = 8 * 1024 * 1024;
    auto stream = Open(star, 0, 1, bytes, Seconds(0));
    Simulator::Run();
    EXPECT_EQ(stream->received, stream->sent);
    // 4096 payload bytes take 4096 + 16 (RoCE) + 28 (UDP, IPv4) + 18 (Ethernet) + 20 (preamble,
    // gap) = 4178 on the line: 98.0% of 10 Gbps at most.
    const double gbps = bytes * 8.0 / stream->last.GetSeconds() / 1e9;
    EXPECT_GT(gbps, 9.6) << gbps;
    EXPECT_LE(gbps, 9.81) << gbps;
    const RdmaSocket::Counters c = RdmaHelper::GetTotals(star.nodes);
    EXPECT_EQ(c.retransmitted, 0U);
    EXPECT_EQ(c.cnpsSent, 0U);
    EXPECT_EQ(c.dataPackets, bytes / 4096);
    EXPECT_LE(c.acks, c.dataPackets / 4 + 1); // coalesced, every four packets
    Simulator::Destroy();
}

TEST(Rdma, FlowsThroughOneBottleneckConvergeToFairSharesWithoutLoss)
{
    // Three senders into one receiver, starting 1 ms apart; DCQCN shares the receiver's link.
    Star star(4);
    std::vector<std::shared_ptr<Stream>> streams;
    for (uint32_t h = 0; h < 3; ++h)
    {
        streams.push_back(
            Open(star, h, 3, 30 * 1024 * 1024, MilliSeconds(h), static_cast<uint16_t>(PORT + h)));
    }
    Simulator::Stop(MilliSeconds(40));
    Simulator::Run();
    std::vector<double> gbps;
    for (const auto& s : streams)
    {
        gbps.push_back(BytesBetween(*s, MilliSeconds(20), MilliSeconds(40)) * 8.0 / 0.02 / 1e9);
    }
    const double sum = std::accumulate(gbps.begin(), gbps.end(), 0.0);
    double squares = 0;
    for (double g : gbps)
    {
        squares += g * g;
    }
    const double jain = sum * sum / (gbps.size() * squares);
    EXPECT_GT(jain, 0.95) << gbps[0] << " " << gbps[1] << " " << gbps[2];
    // DCQCN's alpha starts at 1 and decays by g = 1/256 per 55 us, so its cuts stay deep for tens
    // of milliseconds and the queue drains between them: the link runs at about 85% here.
    EXPECT_GT(sum, 7.5) << "the bottleneck stays mostly busy";
    EXPECT_LT(sum, 9.81);
    EXPECT_EQ(star.Drops(), 0U);
    EXPECT_GT(RdmaHelper::GetTotals(star.nodes).cnpsReceived, 0U);
    Simulator::Destroy();
}

namespace
{

/**
 * One stream of 1 MiB from host 0 to host 1, whose 10th data packet host 1 drops.
 * \param recovery "go-back-n" or "selective-repeat"
 */
std::pair<std::shared_ptr<Stream>, RdmaSocket::Counters>
RunWithOneLoss(const std::string& recovery)
{
    RdmaHelper rdma;
    rdma.SetSocketAttribute("Recovery", StringValue(recovery));
    Star star(2, rdma);
    Ptr<ReceiveListErrorModel> loss = CreateObject<ReceiveListErrorModel>();
    loss->SetList({9}); // the 10th frame host 1 receives
    star.links[1].Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    auto stream = Open(star, 0, 1, 1024 * 1024, Seconds(0));
    Simulator::Run();
    const RdmaSocket::Counters counters = RdmaHelper::GetTotals(star.nodes);
    Simulator::Destroy();
    return {stream, counters};
}

} // namespace

TEST(Rdma, GoBackNRecoversALostPacketWithOneNak)
{
    const auto [stream, c] = RunWithOneLoss("go-back-n");
    EXPECT_EQ(stream->received, stream->sent);
    EXPECT_EQ(c.nacks, 1U);
    EXPECT_GE(c.retransmitted, 1U); // the lost packet and those sent after it
    EXPECT_EQ(c.timeouts, 0U);
}

TEST(Rdma, SelectiveRepeatSendsOnlyTheLostPacketAgain)
{
    const auto [stream, c] = RunWithOneLoss("selective-repeat");
    EXPECT_EQ(stream->received, stream->sent);
    EXPECT_EQ(c.nacks, 1U);
    EXPECT_EQ(c.retransmitted, 1U);
    EXPECT_EQ(c.timeouts, 0U);
}

TEST(Rdma, RefusesSettingsThatCannotWork)
{
    using test::ExpectRefused;
    const auto socket = [](const std::string& name, const AttributeValue& value) {
        RdmaHelper rdma;
        rdma.SetSocketAttribute(name, value);
        rdma.Validate(DataRate("10Gbps"));
    };
    const auto dcqcn = [](const std::string& name, const AttributeValue& value) {
        RdmaHelper rdma;
        rdma.SetRateControlAttribute(name, value);
        rdma.Validate(DataRate("10Gbps"));
    };
    ExpectRefused([&] { socket("PayloadSize", UintegerValue(1000)); },
                  "256, 512, 1024, 2048 or 4096");
    ExpectRefused([&] { socket("RetransmitTimeout", TimeValue(MicroSeconds(-5))); },
                  "RetransmitTimeout must be > 0");
    ExpectRefused([&] { socket("AckInterval", UintegerValue(0)); }, "AckInterval must be >= 1");
    ExpectRefused([&] { dcqcn("RateTimer", TimeValue(MicroSeconds(-1))); },
                  "RateTimer must be > 0");
    ExpectRefused([&] { dcqcn("AlphaTimer", TimeValue(Seconds(0))); }, "AlphaTimer must be > 0");
    ExpectRefused([&] { dcqcn("G", DoubleValue(0)); }, "G must be in (0, 1]");
    ExpectRefused([&] { dcqcn("MinRate", DataRateValue(DataRate("40Gbps"))); },
                  "at most the line rate");
}
