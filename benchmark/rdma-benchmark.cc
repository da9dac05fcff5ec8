/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmark (Google Benchmark) of the RDMA model against published behaviour
// (doc/allreduce.rst, "RDMA"), on 10 Gbps lossless links with 1 us delay. Each case reports the
// figures the manual quotes as counters; test/rdma-test.cc and test/lossless-ethernet-test.cc
// assert them.
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Rdma
//
// RdmaLineRate: one queue pair, 8 MiB (expected: 98.0% of line rate, the framing of a 4096-byte
// payload). RdmaFairShare: three queue pairs into one host, 1 ms apart, measured from 20 to
// 40 ms (DCQCN: equal shares). RdmaIncast: four hosts blast UDP at line rate into a fifth for
// 500 us, PFC on and off (lossless: nothing lost). RdmaSpreading: a flow to a free port shares a
// switch-to-switch link with an incast (Guo et al. 2016: pauses spread upstream and slow it).
// RdmaRecovery: one lost packet, go-back-N and selective repeat.

#include "rdma-validation.h"

#include <benchmark/benchmark.h>

using namespace ns3;
using namespace ns3::rdma_validation;

namespace
{

void
RdmaLineRate(benchmark::State& state)
{
    LineRate run;
    for (auto _ : state)
    {
        run = RunLineRate(8 * 1024 * 1024);
    }
    state.counters["gbps"] = run.gbps;
    state.counters["exact"] = run.exact;
    state.counters["data_packets"] = static_cast<double>(run.dataPackets);
    state.counters["acks"] = static_cast<double>(run.acks);
}

void
RdmaFairShare(benchmark::State& state)
{
    FairShare run;
    for (auto _ : state)
    {
        run = RunFairShare(3, 20, 40);
    }
    for (size_t i = 0; i < run.gbps.size(); ++i)
    {
        state.counters["flow" + std::to_string(i) + "_gbps"] = run.gbps[i];
    }
    state.counters["jain"] = run.jain;
    state.counters["total_gbps"] = run.total;
    state.counters["cnps"] = static_cast<double>(run.cnps);
    state.counters["pauses"] = static_cast<double>(run.pauses);
    state.counters["drops"] = static_cast<double>(run.drops);
}

void
RdmaIncast(benchmark::State& state)
{
    Incast run;
    for (auto _ : state)
    {
        run = RunIncast(state.range(0) != 0);
    }
    state.SetLabel(state.range(0) != 0 ? "PFC on" : "PFC off");
    state.counters["sent"] = static_cast<double>(run.sent);
    state.counters["received"] = static_cast<double>(run.received);
    state.counters["drops"] = static_cast<double>(run.drops);
    state.counters["pauses"] = static_cast<double>(run.pauses);
    state.counters["ecn_marks"] = static_cast<double>(run.marks);
}

void
RdmaSpreading(benchmark::State& state)
{
    Spreading alone;
    Spreading lossy;
    Spreading lossless;
    for (auto _ : state)
    {
        alone = RunSpreading(true, false);
        lossy = RunSpreading(false, true);
        lossless = RunSpreading(true, true);
    }
    state.counters["victim_alone_gbps"] = alone.victimGbps;
    state.counters["victim_lossy_gbps"] = lossy.victimGbps;
    state.counters["victim_lossless_gbps"] = lossless.victimGbps;
    state.counters["upstream_pauses"] = static_cast<double>(lossless.upstreamPauses);
    state.counters["host_pauses"] = static_cast<double>(lossless.hostPauses);
}

void
RdmaRecovery(benchmark::State& state)
{
    Recovery run;
    const bool selective = state.range(0) != 0;
    for (auto _ : state)
    {
        run = RunOneLoss(selective ? "selective-repeat" : "go-back-n");
    }
    state.SetLabel(selective ? "selective repeat" : "go-back-N");
    state.counters["exact"] = run.exact;
    state.counters["nacks"] = static_cast<double>(run.nacks);
    state.counters["retransmitted"] = static_cast<double>(run.retransmitted);
    state.counters["timeouts"] = static_cast<double>(run.timeouts);
    state.counters["last_byte_ms"] = run.ms;
}

} // namespace

BENCHMARK(RdmaLineRate)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(RdmaFairShare)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(RdmaIncast)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(RdmaSpreading)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(RdmaRecovery)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);
