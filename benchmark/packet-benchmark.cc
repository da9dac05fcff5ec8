/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmark (Google Benchmark) of the packet-level AllReduce: BCube(4,1), 16 servers, a
// 16 MB gradient per server (16,000,000 bytes), 10 Gbps links with 1 us delay, greedy schedule,
// barrier and async, its plan replayed and decided online. Reports wall time per run,
// simulated events per wall second, the simulated completion time, the decisions and the
// process's peak memory. Every run is verified exactly.
//
// LargePacketBench: 64 and 128 servers (BCube(8,1), fat-tree k=8), balanced, barrier, decided
// online, 1 MiB and 16 MB per server (default links): wall time in all and in Simulator::Run,
// events per wall second, peak memory; every run verified exactly. The 16 MB fat-tree case
// simulates about 70 M events (tens of minutes here).
//
// DrlOnlineBench: the cost of drl's decisions inside ns-3 (BCube(3,1) and DCell(4,1), 1 MiB,
// barrier): the time spent in SelectRound per decision, beside the run's wall time.
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Packet
//   build/benchmark/allreduce-benchmarks --benchmark_filter=LargePacket
//   build/benchmark/allreduce-benchmarks --benchmark_filter=DrlOnline

#include "ns3/allreduce-module.h"

#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <chrono>
#include <string>

using namespace ns3;

namespace
{

void
PacketBench(benchmark::State& state)
{
    const std::string mode = state.range(0) == 0 ? "barrier" : "async";
    const bool online = state.range(1) == 1;
    state.SetLabel("bcube:n=4,k=1 greedy 16MB 10Gbps " + mode + (online ? " online" : " replay"));
    const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=4,k=1"), 1);
    PacketRunConfig config;
    config.mode = mode;
    config.gradientBytes = 16000000;
    config.dataRate = "10Gbps";
    config.delay = "1us";
    config.flowMonitor = false;
    config.decisions = online ? "online" : "replay";
    PacketRunReport report;
    for (auto _ : state)
    {
        report = RunPacketAllReduce(plan, config, online ? CreateScheduler("greedy") : nullptr);
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
    state.counters["decisions"] = report.result.decisions;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_MiB"] = usage.ru_maxrss / 1024.0;
}

const char* const LARGE_SPECS[] = {"bcube:n=8,k=1", "fattree:k=8"};

void
LargePacketBench(benchmark::State& state)
{
    const std::string spec = LARGE_SPECS[state.range(0)];
    const uint64_t bytes = state.range(1) == 0 ? 1048576 : 16000000;
    state.SetLabel(spec + " balanced barrier online " + (bytes == 1048576 ? "1MiB" : "16MB"));
    const auto start = std::chrono::steady_clock::now();
    const Plan plan = CreateScheduler("balanced")->MakePlan(BuildTopology(spec), 1);
    PacketRunConfig config;
    config.gradientBytes = bytes;
    config.decisions = "online";
    config.flowMonitor = false;
    PacketRunReport report;
    for (auto _ : state)
    {
        report = RunPacketAllReduce(plan, config, CreateScheduler("balanced"));
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
    }
    const double all =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.counters["wall_s"] = all;
    state.counters["run_s"] = report.wallSeconds;
    state.counters["outside_run"] = 1 - report.wallSeconds / all;
    state.counters["events"] = static_cast<double>(report.events);
    state.counters["events_per_s"] = report.events / report.wallSeconds;
    state.counters["ratio"] = report.result.completionTime / report.predictedTime;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_MiB"] = usage.ru_maxrss / 1024.0;
}

/// Decides as another scheduler does, timing its SelectRound.
class TimedScheduler : public AllReduceScheduler
{
  public:
    explicit TimedScheduler(Ptr<AllReduceScheduler> inner)
        : m_inner(inner)
    {
    }

    std::string GetName() const override
    {
        return m_inner->GetName();
    }

    void Prepare(const WorkloadSet& workloads) override
    {
        m_inner->Prepare(workloads);
    }

    void SelectRound(SchedulerState& state) override
    {
        const auto start = std::chrono::steady_clock::now();
        m_inner->SelectRound(state);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ++calls;
    }

    double seconds{0}; //!< in SelectRound, summed
    uint32_t calls{0}; //!< SelectRound calls

  private:
    Ptr<AllReduceScheduler> m_inner; //!< the scheduler timed
};

const char* const DRL_ONLINE_SPECS[] = {"bcube:n=3,k=1", "dcell:n=4,k=1"};

void
DrlOnlineBench(benchmark::State& state)
{
    const std::string spec = DRL_ONLINE_SPECS[state.range(0)];
    state.SetLabel(spec + " drl online 1MiB barrier");
    const std::string unavailable = GetSchedulerUnavailableReason("drl");
    if (!unavailable.empty())
    {
        state.SkipWithError(unavailable.c_str());
        return;
    }
    const Plan plan = CreateScheduler("drl")->MakePlan(BuildTopology(spec), 1);
    PacketRunConfig config;
    config.decisions = "online";
    config.flowMonitor = false;
    double decideSeconds = 0;
    uint32_t decisions = 0;
    for (auto _ : state)
    {
        Ptr<TimedScheduler> timed = CreateObject<TimedScheduler>(CreateScheduler("drl"));
        const PacketRunReport report = RunPacketAllReduce(plan, config, timed);
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
        decideSeconds += timed->seconds;
        decisions += timed->calls;
    }
    state.counters["decisions"] = benchmark::Counter(decisions, benchmark::Counter::kAvgIterations);
    state.counters["ms_per_decision"] = decisions ? decideSeconds * 1e3 / decisions : 0;
}

} // namespace

BENCHMARK(PacketBench)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(LargePacketBench)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(DrlOnlineBench)->DenseRange(0, 1)->Unit(benchmark::kMillisecond)->Iterations(3);
