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

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ns3
{
namespace test
{

/**
 * EXPECTs that calling f throws std::invalid_argument whose message holds \p words.
 * \param f what should refuse \param words part of the message
 */
template <typename F>
void
ExpectRefused(F f, const std::string& words)
{
    try
    {
        f();
        ADD_FAILURE() << "accepted; expected an error with: " << words;
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
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
