/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmarks (Google Benchmark) of the flow-level core: building the workloads, and planning
// an AllReduce with each scheduler (workloads + rounds), on BCube(5,1), DCell(6,1) and the
// large cases BCube(8,2) (512 servers, 523,264 workloads) and DCell(3,2) (156 servers), and
// at data-center scale fat-tree k=16 (1,024 servers, 2,095,104 workloads; AtScaleBench/4/j:
// each scheduler meets the bandwidth bound, 2,046 rounds, in 2-10 s).
// Also validating each plan (ValidateSchedule alone: rounds, data and order).
// Reports wall time, rounds, and the process's peak resident memory after the case
// (cases run from small to large, so the peak belongs to the largest case run so far: run one
// case alone for its own peak).
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Plan
//   build/benchmark/allreduce-benchmarks --benchmark_filter='AtScaleBench/4/1/'   # one case

#include "peak-memory.h"

#include "ns3/allreduce-module.h"

#include <benchmark/benchmark.h>


#include <string>

using namespace ns3;

namespace
{

const char* const FLOW_SPECS[] = {
    "bcube:n=5,k=1",
    "dcell:n=6,k=1",
    "dcell:n=3,k=2",
    "bcube:n=8,k=2",
    "fattree:k=16",
};

const char* const SCHEDULERS[] = {"ps", "ring", "greedy", "balanced"};

void
BuildWorkloadsBench(benchmark::State& state)
{
    const std::string spec = FLOW_SPECS[state.range(0)];
    state.SetLabel(spec);
    const Topology t = BuildTopology(spec);
    const auto trees = BuildShortestPathTrees(t);
    uint32_t n = 0;
    for (auto _ : state)
    {
        WorkloadSet ws = WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 1);
        n = ws.GetN();
        benchmark::DoNotOptimize(n);
    }
    state.counters["workloads"] = n;
    state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void
PlanBench(benchmark::State& state)
{
    const std::string spec = FLOW_SPECS[state.range(0)];
    const std::string name = SCHEDULERS[state.range(1)];
    state.SetLabel(name + " on " + spec);
    const Topology t = BuildTopology(spec);
    uint32_t rounds = 0;
    for (auto _ : state)
    {
        Ptr<AllReduceScheduler> s = CreateScheduler(name);
        const Plan plan = s->MakePlan(t, 1);
        rounds = plan.schedule.GetNRounds();
        benchmark::DoNotOptimize(rounds);
    }
    state.counters["rounds"] = rounds;
    state.counters["bound"] = ComputeBandwidthBound(t, 1);
    state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void
ValidateBench(benchmark::State& state)
{
    const std::string spec = FLOW_SPECS[state.range(0)];
    const std::string name = SCHEDULERS[state.range(1)];
    state.SetLabel(name + " on " + spec);
    const Plan plan = CreateScheduler(name)->MakePlan(BuildTopology(spec), 1);
    bool valid = false;
    for (auto _ : state)
    {
        valid = ValidateSchedule(plan.workloads, plan.schedule).valid;
        benchmark::DoNotOptimize(valid);
    }
    state.counters["valid"] = valid;
    state.counters["workloads"] = plan.workloads.GetN();
    state.counters["peak_rss_MiB"] = PeakRssMiB();
}

void
SmallAndLarge(benchmark::internal::Benchmark* b)
{
    for (int64_t spec = 0; spec < 4; ++spec)
    {
        for (int64_t s = 0; s < 4; ++s)
        {
            b->Args({spec, s});
        }
    }
}

void
DataCenterScale(benchmark::internal::Benchmark* b)
{
    for (int64_t s = 0; s < 4; ++s)
    {
        b->Args({4, s});
    }
}

// The same as PlanBench, at data-center scale, apart so that --benchmark_filter=Plan stays short.
void
AtScaleBench(benchmark::State& state)
{
    PlanBench(state);
}

} // namespace

BENCHMARK(BuildWorkloadsBench)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(PlanBench)->Apply(SmallAndLarge)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(AtScaleBench)->Apply(DataCenterScale)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(ValidateBench)->Apply(SmallAndLarge)->Unit(benchmark::kMillisecond)->Iterations(1);
