/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmark (Google Benchmark) of the packet-level AllReduce: BCube(4,1), 16 servers, a
// 16 MB gradient per server (16,000,000 bytes), 10 Gbps links with 1 us delay, greedy schedule,
// barrier and async. Reports wall time per run, simulated events per wall second, the
// simulated completion time and the process's peak memory. Every run is verified exactly.
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Packet

#include "ns3/allreduce-module.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <string>

using namespace ns3;

namespace
{

void
PacketBench(benchmark::State& state)
{
    const std::string mode = state.range(0) == 0 ? "barrier" : "async";
    state.SetLabel("bcube:n=4,k=1 greedy 16MB 10Gbps " + mode);
    const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=4,k=1"), 1);
    PacketRunConfig config;
    config.mode = mode;
    config.gradientBytes = 16000000;
    config.dataRate = "10Gbps";
    config.delay = "1us";
    config.flowMonitor = false;
    PacketRunReport report;
    for (auto _ : state)
    {
        report = RunPacketAllReduce(plan, config);
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
    }
    state.counters["events"] = static_cast<double>(report.events);
    state.counters["events_per_s"] = report.events / report.wallSeconds;
    state.counters["sim_ms"] = report.result.completionTime * 1e3;
    state.counters["flow_ms"] = report.predictedTime * 1e3;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_MiB"] = usage.ru_maxrss / 1024.0;
}

} // namespace

BENCHMARK(PacketBench)->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);
