/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's scheduler cases: every registered scheduler at flow level.

#include "allreduce-suite-cases.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * Flow level, for in-tree users (who run ns-3's test-runner, not the GoogleTest core tests):
 * every registered scheduler gives a valid schedule, no shorter than the lower bounds.
 */
class FlowLevelSchedulersTestCase : public TestCase
{
  public:
    FlowLevelSchedulersTestCase()
        : TestCase("every scheduler's schedule is valid and respects the bounds")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* spec : {"bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4"})
        {
            const Topology t = BuildTopology(spec);
            for (const auto& entry : ListSchedulers())
            {
                if (!GetSchedulerUnavailableReason(entry.first).empty())
                {
                    continue; // built without CBC or LibTorch: nothing to run
                }
                Ptr<AllReduceScheduler> scheduler = CreateScheduler(entry.first);
                if (entry.first == "drl")
                {
                    // one shipped checkpoint serves every topology; greedy decoding
                    scheduler->SetAttribute(
                        "Model",
                        StringValue(GetDrlGeneralModelPath()));
                    scheduler->SetAttribute("Samples", UintegerValue(0));
                }
                if (entry.first == "optimal")
                {
                    // validity is checked here, not optimality: a short search will do
                    scheduler->SetAttribute("TimeLimit", DoubleValue(1.0));
                }
                const SchedulerResult r = EvaluateScheduler(t, scheduler, 1);
                NS_TEST_EXPECT_MSG_EQ(r.check.valid,
                                      true,
                                      entry.first << " on " << spec << ": " << r.check.error);
                NS_TEST_EXPECT_MSG_GT_OR_EQ(r.plan.schedule.GetNRounds(),
                                            r.bounds.GetMax(),
                                            entry.first << " on " << spec);
            }
        }
    }
};

Cases
ns3::allreduce_suite::MakeSchedulerCases()
{
    return {{new FlowLevelSchedulersTestCase, TestCase::QUICK}};
}
