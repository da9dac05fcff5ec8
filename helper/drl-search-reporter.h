/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H
#define NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H

#include "ns3/drl-scheduler.h"
#include "ns3/ptr.h"

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce
 * Progress lines for the `drl` scheduler's search (its SearchProgress trace source): what it
 * does, n of m, the best rounds so far, the time elapsed and an estimate of the time left, e.g.
 * \code
 *   allreduce-rounds: drl on bcube(n=8,k=2): episode 1 of 33 done (best 383 rounds); 1 min 53 s elapsed
 *   allreduce-rounds: drl on dcell(n=6,k=1): rollout round 20 of at most 52 (best 52 rounds); 8 s elapsed, at most about 13 s left
 * \endcode
 * A line at most every interval (5 s unless given), so that a search of a second says nothing
 * and one of minutes is never silent for long.
 */
class DrlSearchReporter
{
  public:
    /**
     * \param os where the lines go (std::cerr for a program)
     * \param program the name each line starts with
     * \param interval seconds between two lines at least
     */
    DrlSearchReporter(std::ostream& os, const std::string& program, double interval = 5);

    /**
     * Reports the search of a scheduler from now on.
     * \param drl the scheduler
     * \param topology the name of the topology it schedules, for the lines
     */
    void Connect(Ptr<DrlScheduler> drl, const std::string& topology);

  private:
    /// The SearchProgress sink (see DrlScheduler::SearchProgressCallback).
    void Report(const std::string& step, uint32_t done, uint32_t total, uint32_t best);

    std::ostream& m_os;                                      //!< where the lines go
    std::string m_program;                                   //!< line prefix
    std::string m_topology;                                  //!< what is scheduled
    double m_interval;                                       //!< seconds between lines
    std::chrono::steady_clock::time_point m_start;           //!< when the search started
    std::chrono::steady_clock::time_point m_stepStart;       //!< when this kind of step started
    std::chrono::steady_clock::time_point m_last;            //!< the last line (or the start)
    std::string m_step;                                      //!< the kind of step under way
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H */
