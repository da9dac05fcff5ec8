/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's RDMA cases (doc/allreduce.rst, "RDMA: RoCEv2 over lossless Ethernet"): a
// frame's time through a switch, PFC against drops in an incast, and an AllReduce over RoCEv2
// queue pairs ending with the exact sums, with and without loss. They run in every ns-3 the
// module builds in, so that the lossless devices, the buffers and the transport are checked
// inside an ns-3 tree too (the GoogleTest cases of test/rdma-test.cc go further, standalone).

#include "allreduce-experiment.h"
#include "allreduce-suite-cases.h"
#include "rdma-validation.h"

#include "ns3/allreduce-module.h"

#include <cmath>
#include <string>

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * \ingroup allreduce-tests
 * The lossless Ethernet devices: a 4,178-byte frame through one switch takes its exact line
 * and link times, stored and forwarded or cut through; four hosts into one lose nothing with
 * PFC (and pause), and lose datagrams without it.
 */
class LosslessEthernetTestCase : public TestCase
{
  public:
    LosslessEthernetTestCase()
        : TestCase("rdma: a frame's time through a switch stored or cut through; an incast "
                   "without loss under PFC and with loss without it")
    {
    }

  private:
    void DoRun() override
    {
        using namespace rdma_validation;
        // 4096 + 16 + 28 + 18 + 20 = 4178 bytes take 3.342 us at 10 Gbps, each link 1 us: two
        // links whole, or the second started once 64 bytes (and the preamble) are in.
        NS_TEST_EXPECT_MSG_EQ_TOL(RunOnePacketMicroseconds(false), 8.685, 0.01, "stored");
        NS_TEST_EXPECT_MSG_EQ_TOL(RunOnePacketMicroseconds(true), 5.400, 0.01, "cut through");
        const Incast lossless = RunIncast(true);
        NS_TEST_EXPECT_MSG_EQ(lossless.received, lossless.sent, "PFC: every datagram arrives");
        NS_TEST_EXPECT_MSG_EQ(lossless.drops, 0U, "PFC: no drop");
        NS_TEST_EXPECT_MSG_GT(lossless.pauses, 0U, "PFC: the switch paused its hosts");
        const Incast lossy = RunIncast(false);
        NS_TEST_EXPECT_MSG_LT(lossy.received, lossy.sent, "without PFC the switch drops");
        NS_TEST_EXPECT_MSG_GT(lossy.drops, 0U, "without PFC the switch drops");
    }
};

/**
 * \ingroup allreduce-tests
 * An AllReduce over RoCEv2 queue pairs on lossless BCube(3,1): the exact sums in both modes
 * without a drop; with 2% of the packets lost, go-back-N makes up for every one.
 */
class RdmaAllReduceTestCase : public TestCase
{
  public:
    RdmaAllReduceTestCase()
        : TestCase("rdma: greedy on BCube(3,1) over RoCEv2 ends with the exact sums in both "
                   "modes without a drop, and with 2% loss")
    {
    }

  private:
    void DoRun() override
    {
        const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=3,k=1"), 1);
        for (const std::string mode : {"barrier", "async"})
        {
            const PacketRunReport run = RunPacketAllReduce(plan, Config(mode, 0));
            NS_TEST_EXPECT_MSG_EQ(run.result.finished, true, mode << ": " << run.result.error);
            NS_TEST_EXPECT_MSG_EQ(run.verification.verified,
                                  true,
                                  mode << ": " << run.verification.message);
            NS_TEST_EXPECT_MSG_EQ(run.transport, "rdma", mode);
            NS_TEST_EXPECT_MSG_EQ(run.counters.droppedPackets, 0U, mode << ": no drop");
        }
        const PacketRunReport lossy = RunPacketAllReduce(plan, Config("async", 0.02));
        NS_TEST_EXPECT_MSG_EQ(lossy.verification.verified, true, lossy.verification.message);
        NS_TEST_EXPECT_MSG_GT(lossy.counters.droppedPackets, 0U, "the loss happened");
    }

    /// \return a small RDMA run in mode, with the fraction loss of packets lost on the links
    static PacketRunConfig Config(const std::string& mode, double loss)
    {
        PacketRunConfig config;
        config.mode = mode;
        config.gradientBytes = 8192;
        config.flowMonitor = false;
        config.transport = "rdma";
        config.loss = loss;
        return config;
    }
};

Cases
ns3::allreduce_suite::MakeRdmaCases()
{
    return {new LosslessEthernetTestCase, new RdmaAllReduceTestCase};
}
