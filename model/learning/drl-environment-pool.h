/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_ENVIRONMENT_POOL_H
#define NS3_ALLREDUCE_DRL_ENVIRONMENT_POOL_H

#include "drl-environment.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * One environment per worker thread of a search (DrlPolicy::Decode, DrlRollout): the search's
 * own for worker 0, and for the others twins made on first use, each starting where the
 * search's starts (so that Reset and the snapshots of one serve every other). Workers run on
 * as many threads as given, or on one where the BLAS under LibTorch is not safe from several
 * threads (IsDrlBlasThreadSafe). What a search finds does not depend on the threads.
 */
class DrlEnvironmentPool
{
  public:
    /// Makes a twin of the search's environment, in its starting state.
    using Maker = std::function<std::unique_ptr<DrlEnvironment>()>;

    /**
     * A pool of one: everything on this thread, in env.
     * \param env the search's environment
     */
    explicit DrlEnvironmentPool(DrlEnvironment& env);

    /**
     * \param env the search's environment (worker 0's)
     * \param make makes a twin for each other worker (not called for one thread)
     * \param threads worker threads (0: one per core)
     */
    DrlEnvironmentPool(DrlEnvironment& env, Maker make, uint32_t threads);

    /// \return the worker threads a search uses (at least 1)
    uint32_t GetThreads() const;

    /**
     * Makes the twins that `tasks` tasks on GetThreads threads need, on this thread (making
     * an environment is not safe from several threads at once); call it before running them.
     * \param tasks tasks about to run
     * \return the threads to run them on: at most GetThreads, at most tasks
     */
    uint32_t Ready(size_t tasks);

    /**
     * \param worker a worker whose environment Ready made (each worker calls it with its own
     *        only, from any thread)
     * \return its environment
     */
    DrlEnvironment& Get(uint32_t worker);

  private:
    DrlEnvironment* m_main;                              //!< worker 0's
    Maker m_make;                                        //!< makes the others'
    std::vector<std::unique_ptr<DrlEnvironment>> m_twins; //!< per worker above 0, once made
    uint32_t m_threads{1};                               //!< worker threads
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_ENVIRONMENT_POOL_H */
