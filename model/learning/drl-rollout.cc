/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-rollout.h"

#include "ns3/log.h"

#include <algorithm>
#include <limits>
#include <random>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DrlRollout");

#ifdef ALLREDUCE_HAVE_TORCH

namespace
{

/// What a plan is worth to the search: rounds, then workloads in the last round (lower wins).
using Value = std::pair<uint32_t, uint32_t>;

constexpr Value NONE{std::numeric_limits<uint32_t>::max(), 0};

Value
ValueOf(const Plan& plan)
{
    const auto& rounds = plan.schedule.rounds;
    return rounds.empty() ? NONE : Value{plan.schedule.GetNRounds(), rounds.back().size()};
}

} // namespace

Plan
DrlRollout(const DrlPolicy& policy,
           DrlEnvironment& env,
           Plan incumbent,
           uint32_t branches,
           uint64_t seed,
           uint64_t budget,
           DrlRolloutStats* stats,
           const std::function<void(uint32_t, uint32_t)>& progress)
{
    DrlRolloutStats s;
    s.branches = branches;
    s.budget = budget;
    Plan best = std::move(incumbent);
    Value bestValue = ValueOf(best);
    s.incumbent = best.schedule.GetNRounds();
    env.Reset();
    // Each state's decisions are completed: about half an episode each, per round decided.
    // From a live state (DrlEnvironment::StartFrom), only the rounds and workloads left count.
    const uint64_t rounds =
        bestValue == NONE ? env.GetBound() : bestValue.first - std::min(bestValue.first,
                                                                        env.GetStartRound());
    s.estimate = uint64_t{branches} * rounds * (env.GetNTotal() - env.GetStartSent()) / 2;
    s.skipped = branches == 0 || s.estimate > budget;
    DrlEnvironment::Snapshot here = env.Save();
    if (!s.skipped && progress)
    {
        progress(0, bestValue.first);
    }
    while (!s.skipped && !s.budgetOut)
    {
        const uint32_t round = env.GetRound();
        const uint32_t sentBefore = env.GetNSent();
        Value chosenValue = NONE;
        DrlEnvironment::Snapshot chosen;
        for (uint32_t b = 0; b < branches && !s.budgetOut; ++b)
        {
            if (b > 0)
            {
                env.Restore(here);
            }
            // Decision b of round t has its own generator, whatever was tried before it.
            std::mt19937_64 rng(DrlPolicy::SampleSeed(seed + 0x51ED27ULL * (round + 1), b));
            policy.ActRound(env, b == 0 ? DrlPolicy::Mode::GREEDY : DrlPolicy::Mode::SAMPLE, rng);
            env.CloseRound();
            ++s.tried;
            DrlEnvironment::Snapshot child = env.Save();
            // Finish it greedily, stopping once it cannot end in as few rounds as the best
            // decision of this round so far (ties go on: the last round's size breaks them).
            const uint32_t cutoff = chosenValue == NONE ? std::numeric_limits<uint32_t>::max()
                                                        : chosenValue.first + 1;
            std::mt19937_64 unused(0);
            const DrlEpisode e = policy.Run(env,
                                            DrlPolicy::Mode::GREEDY,
                                            DrlPolicy::Mode::GREEDY,
                                            unused,
                                            false,
                                            nullptr,
                                            cutoff);
            s.scheduled += env.GetNSent() - sentBefore;
            s.budgetOut = s.scheduled >= budget;
            if (e.cut)
            {
                continue;
            }
            const Value value{e.rounds, static_cast<uint32_t>(env.GetLastRound().size())};
            if (value < bestValue)
            {
                bestValue = value;
                best = env.GetPlan();
                NS_LOG_INFO("rollout: round " << round << ", decision " << b << ": "
                                              << value.first << " rounds, " << value.second
                                              << " workloads in the last");
            }
            if (value < chosenValue)
            {
                chosenValue = value;
                chosen = std::move(child);
            }
        }
        if (!chosen.engine)
        {
            break; // the budget ran out before any decision was finished
        }
        env.Restore(chosen);
        here = std::move(chosen);
        ++s.rounds;
        if (progress)
        {
            progress(s.rounds, bestValue.first);
        }
        if (env.IsDone())
        {
            break;
        }
    }
    s.found = best.schedule.GetNRounds();
    if (stats)
    {
        *stats = s;
    }
    return best;
}

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3
