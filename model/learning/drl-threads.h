/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_THREADS_H
#define NS3_ALLREDUCE_DRL_THREADS_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * Runs task(worker, i) for every i in [0, n) on `workers` threads (this one is worker 0), each
 * taking the next i until none is left; the first exception a task throws stops the others
 * from taking more and is rethrown here once all have stopped. What a task computes must not
 * depend on which worker runs it: that keeps results the same on any number of threads.
 * \param n tasks
 * \param workers threads to use, at most n of them (0 or 1: all on this thread)
 * \param task the task
 */
void RunInParallel(size_t n, uint32_t workers, const std::function<void(uint32_t, size_t)>& task);

/**
 * Sets up the BLAS under LibTorch for drl, once per process: OpenBLAS (Debian's
 * libopenblas0-pthread behind libblas.so.3) multiplies on one thread of its own, since drl's
 * threads (the trainer's, the search's) are what keeps the cores busy, unless the user set
 * OPENBLAS_NUM_THREADS. Other BLAS libraries are left as they are. Results do not depend on it.
 */
void SetUpDrlBlas();

/**
 * \return true when LibTorch's BLAS may be called from several threads at once: false for
 *         OpenBLAS built single-threaded (Debian's libopenblas0-serial has no locks), true
 *         otherwise (the reference BLAS keeps no state; OpenBLAS with threads locks)
 */
bool IsDrlBlasThreadSafe();

/// \return what IsDrlBlasThreadSafe's false means and how to fix it (for refusals)
std::string DescribeDrlBlasThreads();

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_THREADS_H */
