/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The module's own ns-3 test-runner: Debian's ns-3 ships none, but ns3::TestRunner::Run is in
// libns3-core. Run it as `allreduce-test-runner --suite=allreduce` (ctest does).

#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
