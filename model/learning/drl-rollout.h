/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_ROLLOUT_H
#define NS3_ALLREDUCE_DRL_ROLLOUT_H

#include "drl-environment.h"
#include "drl-policy.h"

#include "ns3/plan.h"

#include <cstdint>
#include <functional>

namespace ns3
{

#ifdef ALLREDUCE_HAVE_TORCH

/**
 * \ingroup allreduce-learning
 * The rollout search on top of the policies (doc/allreduce.rst, "Search at decode time"): a
 * rollout algorithm (Bertsekas' pilot method) whose base policy is the greedy one. From the
 * start, every round it tries `branches` decisions of both levels for the next round (the
 * greedy one, then sampled ones), completes each by the greedy policy, and moves to the one
 * whose completion ends in the fewest rounds (then: the fewest workloads in the last round,
 * which is the nearest to saving one; then the first tried). Since the greedy decision is always
 * among them, each state's completion is never worse than the one before: the search only ever
 * improves on the greedy episode.
 *
 * A completion stops as soon as it cannot end in as few rounds as the best decision of its round
 * chosen before its wave (DrlPolicy::Run's cut-off; here all on this thread, the pool overload
 * below says how the waves run): it could not be chosen. The search returns the best plan it
 * completed or the incumbent (e.g. the best of Decode's samples), whichever is better. It ends
 * when the workloads it scheduled reach `budget` (the decisions of a wave after that are not
 * taken), and does not start when its expected cost (branches x incumbent rounds x half the
 * workloads) is over the budget. Deterministic: decision b of round t draws from a generator
 * seeded by seed, t and b.
 *
 * \param policy the policies
 * \param env the environment (it is reset)
 * \param incumbent the best plan so far (its rounds are the bar to beat); may be empty
 * \param branches decisions tried per state (1: the greedy episode again)
 * \param seed seed of the sampled decisions
 * \param budget workloads the search may schedule
 * \param[out] stats when given, how it went
 * \param progress when given, called as the search starts and after every round decided:
 *        (rounds decided, rounds of the best plan so far)
 * \return the best plan: the incumbent unless the search found one of fewer rounds, or as many
 *         rounds and fewer workloads in the last
 */
Plan DrlRollout(const DrlPolicy& policy,
                DrlEnvironment& env,
                Plan incumbent,
                uint32_t branches,
                uint64_t seed,
                uint64_t budget,
                DrlRolloutStats* stats = nullptr,
                const std::function<void(uint32_t, uint32_t)>& progress = {});

/**
 * DrlRollout on the pool's threads, with the same result on any number of them: each state's
 * greedy decision is known from the completion chosen the state before (not run again), and
 * the other decisions run DrlPolicy::SEARCH_WAVE at a time, each cut at the decision chosen
 * before its wave; the budget is counted decision by decision in order, and those of a wave
 * after it ran out are not taken.
 * \param policy see above
 * \param pool the environments (worker 0's is the search's own; it is reset)
 * \param incumbent see above
 * \param branches see above
 * \param seed see above
 * \param budget see above
 * \param[out] stats see above
 * \param progress see above
 * \return see above
 */
Plan DrlRollout(const DrlPolicy& policy,
                DrlEnvironmentPool& pool,
                Plan incumbent,
                uint32_t branches,
                uint64_t seed,
                uint64_t budget,
                DrlRolloutStats* stats = nullptr,
                const std::function<void(uint32_t, uint32_t)>& progress = {});

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_ROLLOUT_H */
