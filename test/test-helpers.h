/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEST_HELPERS_H
#define NS3_ALLREDUCE_TEST_HELPERS_H

// Small helpers several tests share.

#include "allreduce-experiment.h"

#include "ns3/allreduce-module.h"

#include <stdexcept>
#include <string>

namespace ns3
{
namespace test
{

/// \return the message of the std::invalid_argument that f throws, or "" when it throws none
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

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
