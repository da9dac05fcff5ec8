/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The ns-3 TestSuite "allreduce", the one ns-3's test-runner runs inside an ns-3 tree
// (./test.py --suite=allreduce) and the module's allreduce-test-runner runs standalone. It
// covers every subsystem; its cases live one file per subsystem (allreduce-suite-*.cc), in the
// order of the manual's "How the code is organized". The GoogleTest tests (*-test.cc) go
// further, standalone only.

#include "allreduce-suite-cases.h"

using namespace ns3;

/**
 * \ingroup allreduce-tests
 * The TestSuite "allreduce".
 */
class AllReduceTestSuite : public TestSuite
{
  public:
    AllReduceTestSuite()
        : TestSuite("allreduce") // a UNIT suite, the default (the name changed in ns-3.42)
    {
        using namespace ns3::allreduce_suite;
        for (Cases (*make)() : {&MakeTopologyCases,
                                &MakeWorkloadCases,
                                &MakeSchedulerCases,
                                &MakeNetworkCases,
                                &MakePacketCases,
                                &MakeYourNetworkCases,
                                &MakeClusterCases,
                                &MakeAggregationCases,
                                &MakeMscclCases,
                                &MakeRdmaCases})
        {
            for (TestCase* testCase : make())
            {
                AddTestCase(testCase);
            }
        }
    }
};

/// Registers the suite.
static AllReduceTestSuite g_allReduceTestSuite;
