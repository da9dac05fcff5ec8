/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The arrival sequencer (doc/allreduce.rst, "Distributed runs"): packets that reach a node at
// the same nanosecond are handed on in the order of the node's devices, whichever of their
// events ns-3 created first; that is what keeps a distributed run's time the same on any
// number of ranks.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// What a run of ReceiveOrder does.
struct Setting
{
    bool sequenced{false}; //!< with an ArrivalSequencer on x
    bool bFirst{false};    //!< b's send event made before a's
    Time zeroDelayAt;      //!< when not zero: an event at x, made after the sends, that makes
                           //!< an event at the same instant, recorded as "z"
};

/**
 * Two senders, a and b, each one link from node x (x's device 0 goes to a, device 1 to b).
 * Both send one datagram of the same size at 1 ms, so that both reach x at the same instant.
 * \param setting the run \param arrival set to when the datagrams arrived
 * \param simultaneous set to the sequencer's count \return "a" and "b" in the order x's
 *        socket received from them, and "z"
 */
std::vector<std::string>
ReceiveOrder(const Setting& setting, Time* arrival = nullptr, uint64_t* simultaneous = nullptr)
{
    NodeContainer nodes;
    nodes.Create(3); // x, a, b
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    NetDeviceContainer xa = p2p.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer xb = p2p.Install(nodes.Get(0), nodes.Get(2));
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses("10.0.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifa = addresses.Assign(xa);
    addresses.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer ifb = addresses.Assign(xb);
    Ptr<ArrivalSequencer> sequencer;
    if (setting.sequenced)
    {
        sequencer = CreateObject<ArrivalSequencer>();
        sequencer->Install(nodes.Get(0));
        sequencer->Install(nodes.Get(0)); // does nothing: each packet is handed on once
    }

    std::vector<std::string> order;
    TypeId udp = UdpSocketFactory::GetTypeId();
    Ptr<Socket> sink = Socket::CreateSocket(nodes.Get(0), udp);
    sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
    sink->SetRecvCallback(Callback<void, Ptr<Socket>>([&](Ptr<Socket> socket) {
        Address from;
        while (socket->RecvFrom(from))
        {
            const Ipv4Address ip = InetSocketAddress::ConvertFrom(from).GetIpv4();
            order.push_back(ip == ifa.GetAddress(1) ? "a" : "b");
            if (arrival)
            {
                *arrival = Simulator::Now();
            }
        }
    }));
    auto sendFrom = [&](uint32_t node, Ipv4Address to) {
        Ptr<Socket> socket = Socket::CreateSocket(nodes.Get(node), udp);
        socket->Connect(InetSocketAddress(to, 9));
        Simulator::ScheduleWithContext(nodes.Get(node)->GetId(), MilliSeconds(1), [socket]() {
            socket->Send(Create<Packet>(1000));
        });
    };
    sendFrom(setting.bFirst ? 2 : 1, setting.bFirst ? ifb.GetAddress(0) : ifa.GetAddress(0));
    sendFrom(setting.bFirst ? 1 : 2, setting.bFirst ? ifa.GetAddress(0) : ifb.GetAddress(0));
    if (!setting.zeroDelayAt.IsZero())
    {
        // Made after the sends' arrival events, so ns-3 alone runs it after them.
        const Time at = setting.zeroDelayAt;
        Simulator::Schedule(MicroSeconds(1000.5), [&order, at]() {
            Simulator::Schedule(at - Simulator::Now(), [&order]() {
                Simulator::ScheduleNow([&order]() { order.push_back("z"); });
            });
        });
    }
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    if (simultaneous && sequencer)
    {
        *simultaneous = sequencer->GetSimultaneous();
    }
    Simulator::Destroy();
    return order;
}

} // namespace

TEST(ArrivalSequencer, SimultaneousArrivalsGoInDeviceOrder)
{
    using Order = std::vector<std::string>;
    // ns-3 alone: the packet whose event was made first is received first.
    EXPECT_EQ(ReceiveOrder({false, false, {}}), (Order{"a", "b"}));
    EXPECT_EQ(ReceiveOrder({false, true, {}}), (Order{"b", "a"}));
    // Sequenced: by x's device, whichever was made first.
    uint64_t simultaneous = 0;
    EXPECT_EQ(ReceiveOrder({true, false, {}}), (Order{"a", "b"}));
    EXPECT_EQ(ReceiveOrder({true, true, {}}, nullptr, &simultaneous), (Order{"a", "b"}));
    EXPECT_EQ(simultaneous, 1u);
}

TEST(ArrivalSequencer, PacketsComeAfterEverythingElseOfTheirInstant)
{
    using Order = std::vector<std::string>;
    Time arrival;
    ReceiveOrder({false, false, {}}, &arrival);
    ASSERT_GT(arrival, MilliSeconds(1));
    // ns-3 alone runs the event made at the instant after the packets' (made before it).
    EXPECT_EQ(ReceiveOrder({false, false, arrival}), (Order{"a", "b", "z"}));
    // Sequenced, the packets come last, as they would had their events been made later.
    EXPECT_EQ(ReceiveOrder({true, false, arrival}), (Order{"z", "a", "b"}));
    EXPECT_EQ(ReceiveOrder({true, true, arrival}), (Order{"z", "a", "b"}));
}

TEST(ArrivalSequencer, NeedsTheInternetStack)
{
    Ptr<Node> node = CreateObject<Node>();
    Ptr<ArrivalSequencer> sequencer = CreateObject<ArrivalSequencer>();
    test::ExpectRefused([&] { sequencer->Install(node); },
                        "has no internet stack: install it (InternetStackHelper)");
    Simulator::Destroy();
}
