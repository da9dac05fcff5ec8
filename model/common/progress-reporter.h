/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PROGRESS_REPORTER_H
#define NS3_ALLREDUCE_PROGRESS_REPORTER_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * Progress lines for a long run, one per step begun: what runs, n of m, the time elapsed and
 * an estimate of the time left (from the mean time of the steps so far), e.g.
 * \code
 *   allreduce-table: [12/54] balanced on bcube(n=5,k=1); 31 s elapsed, about 1 min 48 s left
 * \endcode
 * A step that runs longer than the heartbeat (30 s unless set) says so again at that interval,
 * from a thread of its own, so that a long step is never silent:
 * \code
 *   allreduce-table: [157/161] balanced on fattree(k=8) still running, 1 min 0 s on this step; 2 min 13 s elapsed
 * \endcode
 */
class ProgressReporter
{
  public:
    /**
     * \param os where the lines go (std::cerr for a program)
     * \param program the name each line starts with
     * \param total the steps of the run
     */
    ProgressReporter(std::ostream& os, const std::string& program, uint64_t total);
    ~ProgressReporter();
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;
    /// \param seconds how long a step runs before a "still running" line (0: never)
    void SetHeartbeat(double seconds);

    /**
     * Prints a step's line only when this long has passed since the last line printed (or
     * since construction), so that a run of many quick steps says little and a short run
     * nothing; the "still running" lines are unchanged.
     * \param seconds the quiet time (0, the default: a line for every step)
     */
    void SetQuiet(double seconds);

    /**
     * Says that the next step begins.
     * \param what what it does
     */
    void Begin(const std::string& what);

    /// \return seconds since construction
    double GetElapsed() const;

    /**
     * \param seconds a duration
     * \return it for a person: "42 s", "3 min 5 s", "2 h 10 min"
     */
    static std::string FormatDuration(double seconds);

  private:
    /// The heartbeat thread: a line for every interval a step runs without a Begin.
    void Beat();

    std::ostream& m_os;                                  //!< where the lines go
    std::string m_program;                               //!< line prefix
    uint64_t m_total;                                    //!< steps in all
    uint64_t m_begun{0};                                 //!< steps begun
    std::chrono::steady_clock::time_point m_start;       //!< construction time
    std::chrono::steady_clock::time_point m_stepStart;   //!< when the current step began
    std::string m_step;                                  //!< what the current step does
    double m_heartbeat{30};                              //!< seconds between "still running"
    double m_quiet{0};                                   //!< seconds between step lines
    std::chrono::steady_clock::time_point m_lastLine;    //!< the last line (or construction)
    bool m_stop{false};                                  //!< the thread is to end
    std::mutex m_mutex;                                  //!< guards the above and m_os
    std::condition_variable m_wake;                      //!< wakes the thread
    std::thread m_thread;                                //!< runs Beat
};

/**
 * \ingroup allreduce-common
 * Runs one step that may take minutes (building a large topology, ns-3's global routing)
 * with a heartbeat on os: nothing when it ends within 10 s, then a line every 10 s, e.g.
 * \code
 *   dcn-topology: [1/1] building random(switches=12000,...) still running, 20 s on this step; 20 s elapsed
 * \endcode
 * \param os where the lines go (std::cerr) \param program the name each line starts with
 * \param what what the step does \param work the step
 * \return what work returns
 */
template <typename Work>
auto
RunWithHeartbeat(std::ostream& os, const std::string& program, const std::string& what, Work&& work)
{
    ProgressReporter progress(os, program, 1);
    progress.SetQuiet(10);
    progress.SetHeartbeat(10);
    progress.Begin(what);
    return work();
}

} // namespace ns3

#endif /* NS3_ALLREDUCE_PROGRESS_REPORTER_H */
