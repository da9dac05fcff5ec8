/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's packet-level cases: an AllReduce run by the applications over TCP in ns-3
// ends with the exact sum on every server (doc/allreduce.rst, "Packet level").

#include "allreduce-experiment.h"
#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <vector>

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * Packet level, for in-tree users: an AllReduce run by the applications over TCP ends with the
 * exact sum on every server, in both modes, with the same rounds as the schedule.
 */
class PacketAllReduceTestCase : public TestCase
{
  public:
    PacketAllReduceTestCase()
        : TestCase("packet level: ps, ring and balanced on DCell(3,1) end with the exact sum on "
                   "every server in both modes")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* scheduler : {"ps", "ring", "balanced"})
        {
            const Plan plan =
                CreateScheduler(scheduler)->MakePlan(BuildTopology("dcell:n=3,k=1"), 1);
            for (const char* mode : {"barrier", "async"})
            {
                PacketRunConfig config;
                config.mode = mode;
                config.gradientBytes = 16384;
                config.connections = std::string(mode) == "async" ? "per-transfer" : "persistent";
                const PacketRunReport r = RunPacketAllReduce(plan, config);
                NS_TEST_EXPECT_MSG_EQ(r.result.finished, true, r.result.error);
                NS_TEST_EXPECT_MSG_EQ(r.verification.verified,
                                      true,
                                      scheduler << " " << mode << ": " << r.verification.message);
                NS_TEST_EXPECT_MSG_EQ(r.result.roundEnd.size(),
                                      plan.schedule.GetNRounds(),
                                      "one end per round");
                // Each workload on one flow (one each per transfer, shared when persistent).
                std::vector<uint32_t> seen(plan.workloads.GetN(), 0);
                for (const FlowReport& f : r.flows)
                {
                    for (uint32_t w : f.workloads)
                    {
                        ++seen[w];
                    }
                }
                NS_TEST_EXPECT_MSG_EQ((seen == std::vector<uint32_t>(plan.workloads.GetN(), 1)),
                                      true,
                                      "every workload on exactly one flow");
            }
        }
    }
};

Cases
ns3::allreduce_suite::MakePacketCases()
{
    return {{new PacketAllReduceTestCase, TestCase::QUICK}};
}
