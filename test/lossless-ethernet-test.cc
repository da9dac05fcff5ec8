/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Lossless Ethernet (doc/allreduce.rst, "RDMA"): priority flow control keeps an incast from
// losing packets where a lossy buffer drops them; a pause travels upstream and slows a flow
// that does not cross the congested port (congestion spreading); ECN marks come with queues;
// bad settings are refused with what to change.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t ROCE_TOS = (26 << 2) | 0x02; //!< DSCP 26 (class 3), ECN-capable
constexpr uint16_t PORT = 9000;

/// A network of hosts and switches on lossless links, with global routing.
struct Network
{
    NodeContainer nodes;                                               //!< every node
    std::map<std::pair<uint32_t, uint32_t>, NetDeviceContainer> links; //!< by its two ends
    std::map<uint32_t, Ipv4Address> address;                           //!< a host's address

    /**
     * \param count nodes \param edges the links (node pairs)
     * \param pfc the buffers pause (true) or drop (false) \param bufferBytes each node's buffer
     */
    Network(uint32_t count,
            const std::vector<std::pair<uint32_t, uint32_t>>& edges,
            bool pfc,
            uint64_t bufferBytes)
    {
        nodes.Create(count);
        LosslessEthernetHelper ethernet;
        ethernet.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        ethernet.SetChannelAttribute("Delay", StringValue("1us"));
        ethernet.SetBufferAttribute("Size", UintegerValue(bufferBytes));
        ethernet.SetBufferAttribute("Threshold", StringValue("static"));
        ethernet.SetBufferAttribute("StaticThreshold", UintegerValue(100000));
        ethernet.SetBufferAttribute("PfcEnabled", BooleanValue(pfc));
        for (const auto& [a, b] : edges)
        {
            links[{a, b}] = ethernet.Install(nodes.Get(a), nodes.Get(b));
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

    /// \param from a node \param to its neighbour \return from's device toward to
    Ptr<LosslessNetDevice> Port(uint32_t from, uint32_t to) const
    {
        const auto it = links.find({std::min(from, to), std::max(from, to)});
        return DynamicCast<LosslessNetDevice>(it->second.Get(from < to ? 0 : 1));
    }
};

/// Counts the bytes a host receives on PORT.
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
 * Sends 1000-byte UDP datagrams at line rate from a host to another, from 0 to `until`.
 * \return how many it sent
 */
uint64_t
Blast(Ptr<Node> from, Ipv4Address to, Time until)
{
    Ptr<Socket> socket = Socket::CreateSocket(from, UdpSocketFactory::GetTypeId());
    socket->Bind();
    socket->Connect(InetSocketAddress(to, PORT));
    socket->SetIpTos(ROCE_TOS); // after Connect, which takes the address's TOS
    const Time gap = DataRate("10Gbps").CalculateBytesTxTime(1000 + 28 + 38);
    uint64_t count = 0;
    for (Time at = Seconds(0); at < until; at += gap, ++count)
    {
        Simulator::Schedule(at, [socket]() { socket->Send(Create<Packet>(1000)); });
    }
    return count;
}

/// What an incast of four hosts into one, through one switch, did.
struct Incast
{
    uint64_t sent{0};     //!< datagrams sent
    uint64_t received{0}; //!< datagrams received
    uint64_t drops{0};    //!< packets the buffers dropped
    uint64_t pauses{0};   //!< pauses the switch sent
    uint64_t marks{0};    //!< ECN marks at the switch's port to the receiver
};

Incast
RunIncast(bool pfc)
{
    // Hosts 0-3 send to host 4, all on switch 5.
    Network net(6, {{0, 5}, {1, 5}, {2, 5}, {3, 5}, {4, 5}}, pfc, 1000000);
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

} // namespace

TEST(LosslessEthernet, IncastLosesNothingWithPfcAndPausesTheSenders)
{
    const Incast run = RunIncast(true);
    EXPECT_EQ(run.drops, 0U);
    EXPECT_EQ(run.received, run.sent);
    EXPECT_GT(run.pauses, 0U);
    EXPECT_GT(run.marks, 0U); // the queue to the receiver passed Kmin
}

TEST(LosslessEthernet, IncastLosesPacketsWithPfcOff)
{
    const Incast run = RunIncast(false);
    EXPECT_GT(run.drops, 0U);
    EXPECT_EQ(run.received + run.drops, run.sent);
    EXPECT_EQ(run.pauses, 0U);
}

namespace
{

/// What the congestion-spreading run measured.
struct Spreading
{
    double victimGbps{0};       //!< the victim flow's throughput
    uint64_t upstreamPauses{0}; //!< pauses switch 6 sent to switch 5
    uint64_t hostPauses{0};     //!< pauses switch 5 sent to its hosts
};

/**
 * Hosts 0, 1 (to host 3) and 2 (the victim, to host 4) share the link between switch 5 and
 * switch 6; host 7, on switch 6, also sends to host 3. The port to host 3 is congested; the one
 * to host 4 is not.
 * \param pfc lossless or lossy \param incast with the flows to host 3 (else the victim alone)
 */
Spreading
RunSpreading(bool pfc, bool incast)
{
    Network net(8, {{0, 5}, {1, 5}, {2, 5}, {5, 6}, {3, 6}, {4, 6}, {6, 7}}, pfc, 1000000);
    Sink victim(net.nodes.Get(4));
    Sink congested(net.nodes.Get(3));
    const Time duration = MicroSeconds(2000);
    Blast(net.nodes.Get(2), net.address.at(4), duration);
    if (incast)
    {
        for (uint32_t h : {0U, 1U, 7U})
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

} // namespace

TEST(LosslessEthernet, PauseSpreadsUpstreamAndSlowsAFlowThatAvoidsTheCongestedPort)
{
    const Spreading alone = RunSpreading(true, false);
    const Spreading lossy = RunSpreading(false, true);
    const Spreading lossless = RunSpreading(true, true);
    EXPECT_GT(alone.victimGbps, 9.0); // the victim alone runs at line rate, less framing
    EXPECT_EQ(alone.upstreamPauses, 0U);
    // Lossy, the victim keeps about its third of the shared link; lossless, the pauses from
    // the congested port stop the shared link for it too.
    EXPECT_GT(lossless.upstreamPauses, 0U);
    EXPECT_GT(lossless.hostPauses, 0U);
    EXPECT_LT(lossless.victimGbps, 0.8 * lossy.victimGbps)
        << "lossless " << lossless.victimGbps << " Gbps, lossy " << lossy.victimGbps;
}

TEST(LosslessEthernet, RefusesSettingsThatCannotWork)
{
    using test::ExpectRefused;
    const auto build = [](const std::string& name, const AttributeValue& value, bool buffer) {
        NodeContainer nodes;
        nodes.Create(2);
        LosslessEthernetHelper ethernet;
        if (buffer)
        {
            ethernet.SetBufferAttribute(name, value);
        }
        else
        {
            ethernet.SetDeviceAttribute(name, value);
        }
        ethernet.Install(nodes.Get(0), nodes.Get(1));
        LosslessEthernetHelper::Validate(nodes);
    };
    ExpectRefused([&] { build("EcnKmin", UintegerValue(300000), false); }, "above EcnKmax");
    ExpectRefused([&] { build("EcnPmax", DoubleValue(0), false); }, "EcnPmax must be in (0, 1]");
    ExpectRefused(
        [&] {
            NodeContainer nodes;
            nodes.Create(2);
            LosslessEthernetHelper ethernet;
            ethernet.SetBufferAttribute("Threshold", StringValue("static"));
            ethernet.SetBufferAttribute("StaticThreshold", UintegerValue(20000000));
            ethernet.Install(nodes.Get(0), nodes.Get(1));
            LosslessEthernetHelper::Validate(nodes);
        },
        "above the buffer's Size");
    ExpectRefused([&] { build("Size", UintegerValue(10000), true); }, "leaving no shared space");
    ExpectRefused([&] { build("Alpha", DoubleValue(-1), true); }, "Alpha must be > 0");
    ExpectRefused(
        [] {
            NodeContainer nodes;
            nodes.Create(3);
            LosslessEthernetHelper ethernet;
            ethernet.Install(nodes.Get(0), nodes.Get(1));
            PointToPointHelper p2p;
            p2p.Install(nodes.Get(1), nodes.Get(2));
            LosslessEthernetHelper::Validate(nodes);
        },
        "cannot pause");
}
