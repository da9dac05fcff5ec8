/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-rollout.h"

#include "drl-threads.h"

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

/// What one decision of a round gave, completed greedily.
struct Branch
{
    bool cut{true};                 //!< its completion stopped: it cannot be chosen
    Value value{NONE};              //!< its completion's worth (when not cut)
    DrlEnvironment::Snapshot child; //!< the state after the decision
    DrlEnvironment::Snapshot next;  //!< after the completion's first round: the greedy
                                    //!< decision from child, which the next state tries first
    uint64_t scheduled{0};          //!< workloads scheduled
    Plan plan;                      //!< its completion's plan, where it beat the bar given
};

/// One greedy round of both levels from the environment's state, closed (none when done).
void
GreedyRound(const DrlPolicy& policy, DrlEnvironment& env)
{
    if (!env.IsDone())
    {
        std::mt19937_64 unused(0); // greedy decisions draw nothing
        policy.ActRound(env, DrlPolicy::Mode::GREEDY, unused);
        env.CloseRound();
    }
}

/**
 * Completes the environment's state greedily (its first round apart, kept in r.next), stopping
 * once it cannot end below `cutoff` rounds (as DrlPolicy::Run does).
 */
void
Complete(const DrlPolicy& policy, DrlEnvironment& env, uint32_t cutoff, Value bar, Branch& r)
{
    GreedyRound(policy, env);
    r.next = env.Save();
    r.cut = !env.IsDone() && cutoff != std::numeric_limits<uint32_t>::max() &&
            uint64_t{env.GetRound()} + env.GetRoundsLeftBound() >= cutoff;
    if (!r.cut)
    {
        std::mt19937_64 unused(0);
        r.cut = policy
                    .Run(env,
                         DrlPolicy::Mode::GREEDY,
                         DrlPolicy::Mode::GREEDY,
                         unused,
                         false,
                         nullptr,
                         cutoff)
                    .cut;
    }
    if (!r.cut)
    {
        r.value = {env.GetRound(), static_cast<uint32_t>(env.GetLastRound().size())};
        if (r.value < bar)
        {
            r.plan = env.GetPlan();
        }
    }
}

/// Decision b from `here` (greedy for 0, else sampled from its own generator, seeded by seed,
/// the round and b), completed greedily.
Branch
TryDecision(const DrlPolicy& policy,
            DrlEnvironment& env,
            const DrlEnvironment::Snapshot& here,
            uint32_t b,
            uint64_t seed,
            uint32_t cutoff,
            Value bar)
{
    Branch r;
    env.Restore(here);
    const uint32_t round = env.GetRound();
    const uint32_t sentBefore = env.GetNSent();
    std::mt19937_64 rng(DrlPolicy::SampleSeed(seed + 0x51ED27ULL * (round + 1), b));
    policy.ActRound(env, b == 0 ? DrlPolicy::Mode::GREEDY : DrlPolicy::Mode::SAMPLE, rng);
    env.CloseRound();
    r.child = env.Save();
    Complete(policy, env, cutoff, bar, r);
    r.scheduled = env.GetNSent() - sentBefore;
    return r;
}

/// The state after the greedy decision from `child` (a chosen branch's, when it came from the
/// round before and so has none yet).
DrlEnvironment::Snapshot
GreedyNext(const DrlPolicy& policy, DrlEnvironment& env, const DrlEnvironment::Snapshot& child)
{
    env.Restore(child);
    GreedyRound(policy, env);
    return env.Save();
}

/// The best plan the search found so far, and its worth (DrlRollout's).
struct Found
{
    Plan& best;   //!< the plan
    Value& value; //!< its worth
};

/**
 * Tries the decisions of state `here`: decision 0 (the greedy one) from `known` when the state
 * before gave it, else completed here; the others DrlPolicy::SEARCH_WAVE at a time on the
 * pool's threads, each cut at the decision chosen before its wave; their results taken in
 * order, so that nothing depends on the threads.
 * \return the chosen decision (the first of the least worth), or tried.size() when none was
 *         finished before the budget ran out
 */
uint32_t
TryState(const DrlPolicy& policy,
         DrlEnvironmentPool& pool,
         const DrlEnvironment::Snapshot& here,
         Branch* known,
         uint64_t seed,
         uint64_t budget,
         std::vector<Branch>& tried,
         DrlRolloutStats& s,
         Found found)
{
    DrlEnvironment& env = pool.Get(0);
    const auto branches = static_cast<uint32_t>(tried.size());
    const uint32_t round = env.GetRound(); // env is at `here`
    if (known)
    {
        tried[0] = std::move(*known);
        tried[0].plan = Plan();
    }
    else
    {
        tried[0] = TryDecision(policy,
                               env,
                               here,
                               0,
                               seed,
                               std::numeric_limits<uint32_t>::max(),
                               found.value);
        s.scheduled += tried[0].scheduled;
    }
    ++s.tried;
    uint32_t chosen = branches; // none yet
    const auto merge = [&](uint32_t b) {
        const Value value = tried[b].value;
        if (value < found.value)
        {
            found.value = value;
            found.best = std::move(tried[b].plan);
            NS_LOG_INFO("rollout: round " << round << ", decision " << b << ": " << value.first
                                          << " rounds, " << value.second
                                          << " workloads in the last");
        }
        if (chosen == branches || value < tried[chosen].value)
        {
            chosen = b;
        }
    };
    if (!tried[0].cut)
    {
        merge(0);
    }
    s.budgetOut = s.scheduled >= budget;
    for (uint32_t first = 1; first < branches && !s.budgetOut; first += DrlPolicy::SEARCH_WAVE)
    {
        const uint32_t n = std::min(DrlPolicy::SEARCH_WAVE, branches - first);
        const uint32_t cutoff = chosen == branches ? std::numeric_limits<uint32_t>::max()
                                                   : tried[chosen].value.first + 1;
        const Value bar = found.value;
        RunInParallel(n, pool.Ready(n), [&](uint32_t w, size_t k) {
            const auto b = static_cast<uint32_t>(first + k);
            tried[b] = TryDecision(policy, pool.Get(w), here, b, seed, cutoff, bar);
        });
        // In order; those after the budget ran out are not taken (one at a time, they would
        // not have run).
        for (uint32_t b = first; b < first + n && !s.budgetOut; ++b)
        {
            ++s.tried;
            s.scheduled += tried[b].scheduled;
            s.budgetOut = s.scheduled >= budget;
            if (!tried[b].cut)
            {
                merge(b);
            }
        }
    }
    return chosen;
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
    DrlEnvironmentPool pool(env);
    return DrlRollout(policy, pool, std::move(incumbent), branches, seed, budget, stats, progress);
}

Plan
DrlRollout(const DrlPolicy& policy,
           DrlEnvironmentPool& pool,
           Plan incumbent,
           uint32_t branches,
           uint64_t seed,
           uint64_t budget,
           DrlRolloutStats* stats,
           const std::function<void(uint32_t, uint32_t)>& progress)
{
    DrlEnvironment& env = pool.Get(0);
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
    // The greedy decision from `here` is the first round of the completion of the decision
    // chosen before: known, with its worth, once a decision was chosen.
    std::unique_ptr<Branch> known;
    if (!s.skipped && progress)
    {
        progress(0, bestValue.first);
    }
    while (!s.skipped && !s.budgetOut)
    {
        std::vector<Branch> tried(branches);
        const uint32_t chosen =
            TryState(policy, pool, here, known.get(), seed, budget, tried, s, {best, bestValue});
        if (chosen == branches)
        {
            break; // the budget ran out before any decision was finished
        }
        Branch& next = tried[chosen];
        if (known && chosen == 0)
        {
            next.next = GreedyNext(policy, env, next.child); // not kept the round before
        }
        here = std::move(next.child);
        known = std::make_unique<Branch>();
        known->cut = false;
        known->value = next.value;
        known->child = std::move(next.next);
        env.Restore(here);
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
