/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// What each fuzz target does with one input, shared by the libFuzzer programs (fuzz/*.cc) and
// the GoogleTest that replays every corpus file (test/fuzz-corpus-test.cc). An input may be
// refused with std::invalid_argument, which is the module's way of saying "bad input"; anything
// else that escapes (another exception, a crash, a sanitizer report, a leak) is a finding, and
// so is a broken property that a target checks on what was accepted (Finding below).

#ifndef NS3_ALLREDUCE_FUZZ_TARGETS_H
#define NS3_ALLREDUCE_FUZZ_TARGETS_H

#include "ns3/flow-tree.h"
#include "ns3/gradient-layout.h"
#include "ns3/job-trace.h"
#include "ns3/msccl-algorithm.h"
#include "ns3/msccl-simulator.h"
#include "ns3/round-engine.h"
#include "ns3/router-file.h"
#include "ns3/schedule.h"
#include "ns3/size-limits.h"
#include "ns3/topology-generators.h"
#include "ns3/topology.h"
#include "ns3/workload.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace allreduce_fuzz
{

/// The memory limit the targets run under: large inputs are refused, not built.
constexpr uint64_t FUZZ_MEMORY_LIMIT = uint64_t{64} << 20;

/// Reports a broken property of an accepted input and aborts: libFuzzer keeps the input.
[[noreturn]] inline void
Finding(const std::string& what)
{
    std::fprintf(stderr, "fuzz finding: %s\n", what.c_str());
    std::abort();
}

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

/// A router file (ns-3's topology-read formats): the first byte picks the format, the rest is
/// the text.
inline void
FuzzRouterFile(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    if (size == 0)
    {
        return;
    }
    static const char* const formats[] = {"inet", "orbis", "rocketfuel"};
    try
    {
        const ns3::RouterGraph graph =
            ns3::ParseRouterFile(std::string(reinterpret_cast<const char*>(data) + 1, size - 1),
                                 formats[data[0] % 3],
                                 "fuzz.txt");
        (void)graph.links.size();
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

/**
 * A job trace (allreduce-cluster --trace): read; what was accepted must be what the reader
 * promises (times finite and >= 0 in arrival order, counts >= 1, gradients multiples of 4), be
 * written back by FormatJobTrace to a trace that reads to the same jobs, and be split into
 * chunk pieces as the cluster engine splits a job's gradient (CheckClusterJobs,
 * MakeClusterJobResults) without the layout losing or inventing a value. The pieces per chunk
 * are allreduce-cluster's --pieces (1 to 1000000): an optional first line "# pieces=N" (a
 * comment to the reader), else 1. Jobs larger than the largest topology (2^24 nodes) are
 * refused by the cluster before any layout, and skipped here.
 */
inline void
FuzzJobTrace(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    const std::string text(reinterpret_cast<const char*>(data), size);
    uint32_t pieces = 1;
    const std::string tag = "# pieces=";
    if (text.rfind(tag, 0) == 0)
    {
        uint64_t p = 0;
        for (size_t i = tag.size(); i < text.size() && i < tag.size() + 7 && text[i] >= '0' &&
                                    text[i] <= '9';
             ++i)
        {
            p = p * 10 + static_cast<uint64_t>(text[i] - '0');
        }
        if (p < 1 || p > 1000000)
        {
            return;
        }
        pieces = static_cast<uint32_t>(p);
    }
    std::vector<ns3::JobSpec> jobs;
    try
    {
        jobs = ns3::ParseJobTrace(text, "fuzz.csv");
    }
    catch (const std::invalid_argument&)
    {
        return;
    }
    if (jobs.empty())
    {
        Finding("ParseJobTrace returned no job");
    }
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        const ns3::JobSpec& job = jobs[i];
        if (!(job.arrivalS >= 0) || !(job.computeS >= 0) || !std::isfinite(job.arrivalS) ||
            !std::isfinite(job.computeS) || job.servers == 0 || job.iterations == 0 ||
            job.gradientBytes == 0 || job.gradientBytes % 4 != 0 ||
            (i > 0 && job.arrivalS < jobs[i - 1].arrivalS))
        {
            Finding("job " + std::to_string(i) + " was accepted out of the trace's rules");
        }
    }
    std::vector<ns3::JobSpec> again;
    try
    {
        again = ns3::ParseJobTrace(ns3::FormatJobTrace(jobs), "formatted.csv");
    }
    catch (const std::invalid_argument& e)
    {
        Finding(std::string("a formatted trace is refused: ") + e.what());
    }
    if (again != jobs)
    {
        Finding("a trace formatted and read back differs from the one read");
    }
    for (const ns3::JobSpec& job : jobs)
    {
        if (job.servers > (uint32_t{1} << 24))
        {
            continue;
        }
        const uint64_t values = job.gradientBytes / 4;
        ns3::GradientLayout layout;
        try
        {
            layout = ns3::GradientLayout(values, job.servers, pieces);
        }
        catch (const std::invalid_argument&)
        {
            continue;
        }
        const uint32_t lastChunk = job.servers - 1;
        const uint32_t lastPiece = pieces - 1;
        const uint64_t max = layout.GetMaxPieceSize();
        if (layout.GetSize(0, 0) != max || layout.GetSize(lastChunk, lastPiece) == 0 ||
            layout.GetOffset(lastChunk, lastPiece) + layout.GetSize(lastChunk, lastPiece) !=
                values ||
            static_cast<double>(max) * job.servers * pieces < static_cast<double>(values))
        {
            Finding("the layout of " + std::to_string(values) + " values over " +
                    std::to_string(job.servers) + " chunks x " + std::to_string(pieces) +
                    " pieces does not cover the gradient: largest piece " + std::to_string(max) +
                    ", last piece at " +
                    std::to_string(layout.GetOffset(lastChunk, lastPiece)) + " of size " +
                    std::to_string(layout.GetSize(lastChunk, lastPiece)));
        }
    }
}

/// Runs workloads on a RoundEngine, each round starting every ready workload it can (in ready
/// order, or reversed), and checks the schedule it makes with the validator.
inline void
RunGreedyRounds(const ns3::WorkloadSet& ws, bool reversed, const std::string& what)
{
    ns3::RoundEngine engine(ws);
    ns3::Schedule schedule;
    schedule.scheduler = "fuzz-greedy";
    while (engine.GetFinished().size() < ws.GetN())
    {
        std::vector<uint32_t> ready = engine.GetReady();
        if (reversed)
        {
            std::reverse(ready.begin(), ready.end());
        }
        for (uint32_t id : ready)
        {
            if (engine.CanStart(id))
            {
                engine.Start(id);
            }
        }
        if (engine.GetStarted().empty())
        {
            Finding(what + ": round " + std::to_string(engine.GetRound()) + " can start none of " +
                    std::to_string(ready.size()) + " ready workloads with " +
                    std::to_string(engine.GetFinished().size()) + " of " +
                    std::to_string(ws.GetN()) + " done");
        }
        schedule.rounds.push_back(engine.GetStarted());
        engine.CloseRound();
    }
    if (engine.GetRounds() != schedule.rounds)
    {
        Finding(what + ": the engine's rounds are not those it started");
    }
    const ns3::ScheduleCheck check = ns3::ValidateSchedule(ws, schedule);
    if (!check.valid)
    {
        Finding(what + ": the validator refuses the round engine's schedule: " + check.error);
    }
    const ns3::RoundBounds bounds = ns3::ComputeBounds(ws);
    if (schedule.GetNRounds() < bounds.GetMax())
    {
        Finding(what + ": " + std::to_string(schedule.GetNRounds()) +
                " rounds, fewer than the lower bound " + std::to_string(bounds.GetMax()) +
                " (bandwidth " + std::to_string(bounds.bandwidth) + ", links " +
                std::to_string(bounds.links) + ", path " + std::to_string(bounds.path) + ")");
    }
}

/**
 * A topology file, aggregating switches and their slots included, as the flow-level programs
 * take it (file:PATH): read and validated; written back and read again to the same topology;
 * then, when small (at most 16 servers, 64 nodes and 256 links, so that an input runs in
 * milliseconds), the workloads of every semantics (merge, ps, ring) are built on its
 * shortest-path trees with every merge choice (all aggregators, the racks', none), for 1
 * piece (and 2 up to 8 servers), and run on the round engine with its slot rule by a greedy
 * scheduler (ready order, and reversed). The schedule must be complete (no round where nothing can start: the slot rule promises no
 * deadlock), pass the validator, and take no fewer rounds than the lower bounds.
 */
inline void
FuzzAggregatorRounds(const uint8_t* data, size_t size)
{
    ns3::SetMemoryLimit(FUZZ_MEMORY_LIMIT);
    std::istringstream is(std::string(reinterpret_cast<const char*>(data), size));
    ns3::Topology t;
    try
    {
        t = ns3::ReadTopology(is, "fuzz.topo");
    }
    catch (const std::invalid_argument&)
    {
        return;
    }
    std::ostringstream written;
    ns3::WriteTopology(t, written);
    std::istringstream back(written.str());
    try
    {
        const std::string difference = ns3::ReadTopology(back, "written.topo").DescribeDifference(t);
        if (!difference.empty())
        {
            Finding("a topology written and read back differs: " + difference);
        }
    }
    catch (const std::invalid_argument& e)
    {
        Finding(std::string("a written topology is refused: ") + e.what());
    }
    if (t.GetNServers() > 16 || t.GetNNodes() > 64 || t.GetNLinks() > 256)
    {
        return;
    }
    std::vector<ns3::FlowTree> trees;
    try
    {
        trees = ns3::BuildShortestPathTrees(t);
    }
    catch (const std::invalid_argument& e)
    {
        Finding(std::string("no shortest-path trees on a valid topology: ") + e.what());
    }
    const std::vector<std::vector<uint8_t>> choices = ns3::ChooseMergeChoices(t);
    for (const ns3::WorkloadSemantics semantics : {ns3::WorkloadSemantics::MERGE,
                                                   ns3::WorkloadSemantics::PARAMETER_SERVER,
                                                   ns3::WorkloadSemantics::RING})
    {
        for (uint32_t pieces = 1; pieces <= (t.GetNServers() <= 8 ? 2u : 1u); ++pieces)
        {
            for (size_t c = 0; c < choices.size(); ++c)
            {
                if (semantics == ns3::WorkloadSemantics::RING && c > 0)
                {
                    break; // ring streams never meet: one choice is enough
                }
                const std::string what = ns3::ToString(semantics) + ", " +
                                         std::to_string(pieces) + " pieces, merge choice " +
                                         std::to_string(c);
                ns3::WorkloadSet ws;
                try
                {
                    ws = ns3::WorkloadSet::Build(t, trees, semantics, pieces, choices[c]);
                }
                catch (const std::invalid_argument& e)
                {
                    Finding(what + ": workloads refused on a valid topology: " + e.what());
                }
                RunGreedyRounds(ws, false, what);
                RunGreedyRounds(ws, true, what + ", reversed");
            }
        }
    }
}

} // namespace allreduce_fuzz

#endif /* NS3_ALLREDUCE_FUZZ_TARGETS_H */
