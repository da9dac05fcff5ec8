/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SUITE_CASES_H
#define NS3_ALLREDUCE_SUITE_CASES_H

// The cases of the ns-3 TestSuite "allreduce", one file per subsystem
// (allreduce-suite-SUBSYSTEM.cc); test/allreduce-test-suite.cc adds them all to the one suite.
// Internal to the tests: not installed, not part of the module.

#include "test-fixtures.h"

#include "ns3/dcn-topology-helper.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace allreduce_suite
{

/// Cases of one subsystem. Every one is QUICK, AddTestCase's default in every ns-3 version (the
/// name of the duration enum changed in ns-3.42).
using Cases = std::vector<TestCase*>;

/// \return topology generators, Jellyfish seeds, topology files and refused specs
Cases MakeTopologyCases();
/// \return workload sets, the validator, the lower bounds and schedule files
Cases MakeWorkloadCases();
/// \return every registered scheduler at flow level (optimal and drl, or their refusal)
Cases MakeSchedulerCases();
/// \return DcnTopologyHelper's network: nodes, devices, routes, packets along the flow trees
Cases MakeNetworkCases();
/// \return the packet-level AllReduce with exact verification
Cases MakePacketCases();
/// \return AllReduce on a network the user built: the module's routes and the network's own
Cases MakeYourNetworkCases();
/// \return several jobs on one cluster, at flow level and packet level
Cases MakeClusterCases();
/// \return switches that aggregate, at flow level and packet level
Cases MakeAggregationCases();
/// \return MSCCL algorithm files out and in, at flow level and packet level
Cases MakeMscclCases();
/// \return lossless Ethernet and the AllReduce over RoCEv2 queue pairs
Cases MakeRdmaCases();

/// Installs the network of the packet-level cases: every link 10 Gbit/s with 1 us of delay.
/// \param dcn the network, not yet installed
inline void
InstallNetwork(DcnTopologyHelper& dcn)
{
    dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
    dcn.SetChannelAttribute("Delay", StringValue("1us"));
    dcn.Install();
}

// test::ErrorOf (test-fixtures.h) turns an exception into its message: ns-3's TestCase does
// not catch exceptions, and one escaping would end the whole test-runner.
using test::ErrorOf;

/// \return true when text contains part
inline bool
Mentions(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace allreduce_suite
} // namespace ns3

#endif /* NS3_ALLREDUCE_SUITE_CASES_H */
