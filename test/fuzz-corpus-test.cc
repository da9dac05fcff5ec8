/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Every file of the fuzz targets' seed corpora (fuzz/corpus/<target>/) goes through its target
// once more here, in the ordinary build: what the fuzzers found once stays fixed.

#include "../fuzz/fuzz-targets.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace
{

using Target = void (*)(const uint8_t*, size_t);

/// Runs target on every file of fuzz/corpus/NAME; returns how many it ran.
size_t
Replay(const std::string& name, Target target)
{
    const std::filesystem::path dir =
        std::filesystem::path(ALLREDUCE_SOURCE_DIR) / "fuzz" / "corpus" / name;
    size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
    {
        std::ifstream is(entry.path(), std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(is),
                                      std::istreambuf_iterator<char>()};
        target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        ++count;
    }
    // The targets lower the process's memory limit; the other tests expect the default.
    ns3::SetMemoryLimit(ns3::MAX_MEMORY_BYTES);
    return count;
}

} // namespace

TEST(FuzzCorpus, TopologySpecsReplayWithoutAFinding)
{
    EXPECT_GE(Replay("topology-spec", &allreduce_fuzz::FuzzTopologySpec), 10u);
}

TEST(FuzzCorpus, TopologyFilesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("topology-file", &allreduce_fuzz::FuzzTopologyFile), 4u);
}

TEST(FuzzCorpus, RouterFilesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("router-file", &allreduce_fuzz::FuzzRouterFile), 10u);
}

TEST(FuzzCorpus, ScheduleFilesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("schedule-json", &allreduce_fuzz::FuzzScheduleJson), 7u);
}

TEST(FuzzCorpus, MscclFilesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("msccl-xml", &allreduce_fuzz::FuzzMscclXml), 6u);
}

TEST(FuzzCorpus, JobTracesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("job-trace", &allreduce_fuzz::FuzzJobTrace), 12u);
}

TEST(FuzzCorpus, AggregatorTopologiesReplayWithoutAFinding)
{
    EXPECT_GE(Replay("aggregator-rounds", &allreduce_fuzz::FuzzAggregatorRounds), 10u);
}
