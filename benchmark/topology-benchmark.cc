/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmarks (Google Benchmark): building topologies and flow trees, and turning a topology
// into an ns-3 network with DcnTopologyHelper. Measures; checks nothing.
//
//   build/benchmark/allreduce-benchmarks [--benchmark_filter=Helper]

#include "ns3/allreduce-module.h"
#include "ns3/simulator.h"

#include <benchmark/benchmark.h>

#include <string>

using namespace ns3;

namespace
{

const char* const SPECS[] = {
    "bcube:n=5,k=1",
    "dcell:n=6,k=1",
    "bcube:n=8,k=2",
    "dcell:n=3,k=2",
    "jellyfish:switches=1000,degree=10,servers=4,seed=1",
    "fattree:k=24",
};

void
BuildTopologyBench(benchmark::State& state)
{
    const std::string spec = SPECS[state.range(0)];
    state.SetLabel(spec);
    uint32_t links = 0;
    for (auto _ : state)
    {
        Topology t = BuildTopology(spec);
        links = t.GetNLinks();
        benchmark::DoNotOptimize(links);
    }
    state.counters["links"] = links;
}

void
ShortestPathTreesBench(benchmark::State& state)
{
    const std::string spec = SPECS[state.range(0)];
    state.SetLabel(spec);
    const Topology t = BuildTopology(spec);
    for (auto _ : state)
    {
        auto trees = BuildShortestPathTrees(t);
        benchmark::DoNotOptimize(trees.data());
    }
    state.counters["trees"] = t.GetNServers();
}

void
HelperInstallBench(benchmark::State& state)
{
    const std::string spec = SPECS[state.range(0)];
    state.SetLabel(spec);
    const Topology t = BuildTopology(spec);
    for (auto _ : state)
    {
        DcnTopologyHelper dcn(t);
        dcn.Install();
        state.PauseTiming();
        Simulator::Destroy(); // frees the nodes for the next iteration
        state.ResumeTiming();
    }
    state.counters["nodes"] = t.GetNNodes();
}

} // namespace

BENCHMARK(BuildTopologyBench)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);
BENCHMARK(ShortestPathTreesBench)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);
BENCHMARK(HelperInstallBench)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
