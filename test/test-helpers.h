/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEST_HELPERS_H
#define NS3_ALLREDUCE_TEST_HELPERS_H

// Small helpers several GoogleTest tests share (with the experiment layer); ErrorOf and the
// hand-made fixtures are in test-fixtures.h.

#include "allreduce-experiment.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"

#include <stdexcept>
#include <string>

namespace ns3
{
namespace test
{

/// \return a packet-level run small enough for a unit test: 8 KiB per server, no flow monitor
inline PacketRunConfig
SmallPacketRun(const std::string& mode)
{
    PacketRunConfig config;
    config.mode = mode;
    config.gradientBytes = 8192;
    config.flowMonitor = false;
    return config;
}

} // namespace test
} // namespace ns3

#endif /* NS3_ALLREDUCE_TEST_HELPERS_H */
