/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// What each fuzz target does with one input, shared by the libFuzzer programs (fuzz/*.cc) and
// the GoogleTest that replays every corpus file (test/fuzz-corpus-test.cc). An input may be
// refused with std::invalid_argument, which is the module's way of saying "bad input"; anything
// else that escapes (another exception, a crash, a sanitizer report, a leak) is a finding.

#ifndef NS3_ALLREDUCE_FUZZ_TARGETS_H
#define NS3_ALLREDUCE_FUZZ_TARGETS_H

#include "ns3/msccl-algorithm.h"
#include "ns3/msccl-simulator.h"
#include "ns3/schedule.h"
#include "ns3/size-limits.h"
#include "ns3/topology-generators.h"
#include "ns3/topology.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace allreduce_fuzz
{

/// The memory limit the targets run under: large inputs are refused, not built.
constexpr uint64_t FUZZ_MEMORY_LIMIT = uint64_t{64} << 20;

/// A topology spec ("bcube:n=3,k=1"): built, validated, and its diameter taken from a sample.
inline void
FuzzTopologySpec(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    const std::string spec(reinterpret_cast<const char*>(data), size);
    // file:PATH would read the machine's files; topology files have a target of their own.
    if (size > 256 || spec.find("file") != std::string::npos)
    {
        return;
    }
    try
    {
        const ns3::Topology t = ns3::BuildTopology(spec);
        (void)t.GetServerDiameter(2);
    }
    catch (const std::invalid_argument&)
    {
    }
}

/// A topology file's text: read and validated.
inline void
FuzzTopologyFile(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    std::istringstream is(std::string(reinterpret_cast<const char*>(data), size));
    try
    {
        const ns3::Topology t = ns3::ReadTopology(is, "fuzz.topo");
        (void)t.GetNLinks();
    }
    catch (const std::invalid_argument&)
    {
    }
}

/// A schedule file's text: read, validated and bounded, as allreduce-rounds --schedule-in does.
inline void
FuzzScheduleJson(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    try
    {
        const ns3::ScheduleFile file =
            ns3::ParseScheduleJson(std::string(reinterpret_cast<const char*>(data), size),
                                   "fuzz.json");
        (void)ns3::ValidateSchedule(file.workloads, file.schedule);
        (void)ns3::ComputeBounds(file.workloads);
    }
    catch (const std::invalid_argument&)
    {
    }
}

/// MSCCL algorithm files: read and checked (structure), then run on symbolic data.
inline void
FuzzMscclXml(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    try
    {
        const ns3::MscclAlgorithm algo =
            ns3::ParseMscclXml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.xml");
        (void)ns3::SimulateMscclAlgorithm(algo, "fuzz.xml");
    }
    catch (const std::invalid_argument&)
    {
    }
}

} // namespace allreduce_fuzz

#endif /* NS3_ALLREDUCE_FUZZ_TARGETS_H */
