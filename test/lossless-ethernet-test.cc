/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Lossless Ethernet (doc/allreduce.rst, "RDMA"): priority flow control keeps an incast from
// losing packets where a lossy buffer drops them; a pause travels upstream and slows a flow
// that does not cross the congested port (congestion spreading); ECN marks come with queues;
// bad settings are refused with what to change.

#include "rdma-validation.h"
#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>
#include <string>

using namespace ns3;
using namespace ns3::rdma_validation;

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

TEST(LosslessEthernet, PauseSpreadsUpstreamAndSlowsAFlowThatAvoidsTheCongestedPort)
{
    const Spreading alone = RunSpreading(true, false);
    const Spreading lossy = RunSpreading(false, true);
    const Spreading lossless = RunSpreading(true, true);
    EXPECT_GT(alone.victimGbps, 8.3); // the victim alone gets all it sends (9 Gbps less framing)
    EXPECT_EQ(alone.upstreamPauses, 0U);
    // Lossy, the victim keeps its third of the shared link; lossless, the pauses from the
    // congested port stop the shared link for it too, down to a third of the third the
    // congested port gives the shared link's flows.
    EXPECT_GT(lossy.victimGbps, 2.8);
    EXPECT_GT(lossless.upstreamPauses, 0U);
    EXPECT_GT(lossless.hostPauses, 0U);
    EXPECT_LT(lossless.victimGbps, 0.7 * lossy.victimGbps)
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
    ExpectRefused([&] { build("Alpha", DoubleValue(0), true); }, "Alpha must be above 0");
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
