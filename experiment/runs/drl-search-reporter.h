/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H
#define NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H

#include "ns3/progress-reporter.h"

#include "ns3/drl-scheduler.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * Progress lines for the `drl` scheduler's search (its SearchProgress trace source), through a
 * ProgressReporter per phase (the episodes, then the rollout's rounds): what runs, n of m, the
 * best rounds so far, the time elapsed and an estimate of the time left, e.g.
 * \code
 *   allreduce-rounds: [1/1] drl on bcube(n=8,k=2): the greedy episode still running, 1 min 0 s on this step; 1 min 0 s elapsed
 *   allreduce-rounds: [21/52] drl on dcell(n=6,k=1): rollout round 21 (best 52 rounds); 8 s elapsed, about 12 s left
 * \endcode
 * A step's line at most every `quiet` seconds (5 unless given) and a "still running" line
 * every 30 s of one step, so that a search of a second says nothing and one of minutes is
 * never silent for long.
 */
class DrlSearchReporter
{
  public:
    /**
     * \param os where the lines go (std::cerr for a program)
     * \param program the name each line starts with
     * \param quiet seconds between two step lines at least
     */
    DrlSearchReporter(std::ostream& os, const std::string& program, double quiet = 5);
    ~DrlSearchReporter();

    /**
     * Reports the search of a scheduler from now on.
     * \param drl the scheduler
     * \param topology the name of the topology it schedules, for the lines
     */
    void Connect(Ptr<DrlScheduler> drl, const std::string& topology);

    /**
     * Reports the search of the drl scheduler optimal starts from, if it does (StartFrom).
     * \param optimal the scheduler
     * \param topology the name of the topology it schedules, for the lines
     */
    void ConnectStarts(Ptr<OptimalScheduler> optimal, const std::string& topology);

  private:
    /// The SearchProgress sink (see DrlScheduler::SearchProgressCallback).
    void Report(const std::string& step, uint32_t done, uint32_t total, uint32_t best);
    /// The StartScheduler sink (see OptimalScheduler::StartSchedulerCallback).
    void Start(Ptr<AllReduceScheduler> scheduler);

    std::ostream& m_os;                        //!< where the lines go
    std::string m_program;                     //!< line prefix
    std::string m_topology;                    //!< what is scheduled
    double m_quiet;                            //!< seconds between step lines
    std::string m_step;                        //!< the phase under way
    std::unique_ptr<ProgressReporter> m_phase; //!< its lines
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_SEARCH_REPORTER_H */
