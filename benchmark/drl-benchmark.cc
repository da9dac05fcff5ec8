/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmarks (Google Benchmark) of the hierarchical DRL scheduler, on one thread: one greedy
// episode of a policy (random weights: the cost does not depend on them) on BCube(5,1) and
// DCell(6,1) with 3 candidate trees per root as training records it (pick by pick); one greedy
// episode as the scheduler decodes it (the general checkpoint, the lower network scoring in
// passes: rescore share 0, as training, and 0.5, the default) on DCell(6,1), DCell(3,2) and
// BCube(6,2), with the cost per decision (a tree selection or a pick); and one PPO iteration
// (4 episodes, update, decoding with 8 samples) on BCube(3,1) and DCell(4,1).
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Drl

#include "ns3/allreduce-module.h"

#include <benchmark/benchmark.h>

#ifdef ALLREDUCE_HAVE_TORCH
#include "ns3/drl-trainer.h"

using namespace ns3;

namespace
{

const char* const EPISODE_SPECS[] = {"bcube:n=5,k=1", "dcell:n=6,k=1"};
const char* const TRAIN_SPECS[] = {"bcube:n=3,k=1", "dcell:n=4,k=1"};

void
DrlEpisodeBench(benchmark::State& state)
{
    torch::set_num_threads(1);
    const std::string spec = EPISODE_SPECS[state.range(0)];
    state.SetLabel(spec);
    torch::manual_seed(1);
    DrlPolicy policy;
    auto env = MakeDrlEnvironment(BuildTopology(spec), 3, 1, 1);
    std::mt19937_64 rng(1);
    uint32_t rounds = 0;
    uint32_t decisions = 0;
    for (auto _ : state)
    {
        env->Reset();
        const DrlEpisode e =
            policy.Run(*env, DrlPolicy::Mode::GREEDY, DrlPolicy::Mode::GREEDY, rng, true);
        rounds = e.rounds;
        decisions = static_cast<uint32_t>(e.upper.size() + e.lower.size());
    }
    state.counters["rounds"] = rounds;
    state.counters["decisions"] = decisions;
    state.counters["workloads"] = env->GetNTotal();
}

/// A case of DrlDecodeBench.
struct DecodeCase
{
    const char* spec; //!< the topology
    double share;     //!< the rescore share
    bool symmetric;   //!< symmetric decoding (the representatives' decisions repeated)
};

/// The cases of DrlDecodeBench.
const DecodeCase DECODE_CASES[] = {{"dcell:n=6,k=1", 0.0, false},
                                   {"dcell:n=6,k=1", 0.5, false},
                                   {"dcell:n=3,k=2", 0.5, false},
                                   {"bcube:n=6,k=2", 0.5, false},
                                   {"dcell:n=6,k=1", 0.5, true},
                                   {"bcube:n=6,k=2", 0.5, true}};

void
DrlDecodeBench(benchmark::State& state)
{
    torch::set_num_threads(1);
    const auto [spec, share, symmetric] = DECODE_CASES[state.range(0)];
    state.SetLabel(std::string(spec) + " rescore " + std::to_string(share).substr(0, 3) +
                   (symmetric ? " symmetric" : ""));
    DrlPolicy policy = DrlPolicy::Load(GetDrlGeneralModelPath());
    policy.SetRescoreShare(share);
    const Topology topology = BuildTopology(spec);
    auto env = symmetric ? MakeSymmetricDrlEnvironment(topology,
                                                       ServerTranslations::Find(topology),
                                                       policy.GetTreesPerRoot(),
                                                       policy.GetTreeSeed(),
                                                       1)
                         : MakeDrlEnvironment(topology,
                                              policy.GetTreesPerRoot(),
                                              policy.GetTreeSeed(),
                                              1);
    std::mt19937_64 rng(1);
    uint32_t rounds = 0;
    for (auto _ : state)
    {
        env->Reset();
        rounds = policy.Run(*env, DrlPolicy::Mode::GREEDY, DrlPolicy::Mode::GREEDY, rng, false)
                     .rounds;
    }
    // Symmetric: a pick is an orbit, one workload per server of the representative's orbit.
    const double decisions =
        rounds + env->GetNTotal() /
                     (symmetric ? ServerTranslations::Find(topology).GetOrbitSize() : 1.0);
    state.counters["rounds"] = rounds;
    state.counters["workloads"] = env->GetNTotal();
    // Seconds per decision (a tree selection or a pick).
    state.counters["per_decision"] = benchmark::Counter(
        decisions,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void
DrlIterationBench(benchmark::State& state)
{
    torch::set_num_threads(1);
    const std::string spec = TRAIN_SPECS[state.range(0)];
    state.SetLabel(spec);
    DrlHyperParams p;
    p.imitationSteps = 0;
    DrlTrainer trainer({BuildTopology(spec)}, p, 1);
    trainer.Train(0, "", false, nullptr); // the start, not timed
    uint32_t iterations = 0;
    for (auto _ : state)
    {
        trainer.Train(++iterations, "", false, nullptr);
    }
    state.counters["decoded_rounds"] = trainer.GetCurve().back().evalRounds;
}

} // namespace

BENCHMARK(DrlEpisodeBench)->DenseRange(0, 1)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(DrlDecodeBench)->DenseRange(0, 5)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(DrlIterationBench)->DenseRange(0, 1)->Unit(benchmark::kMillisecond)->Iterations(3);
#endif
