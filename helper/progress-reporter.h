/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PROGRESS_REPORTER_H
#define NS3_ALLREDUCE_PROGRESS_REPORTER_H

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce
 * Progress lines for a long run, one per step begun: what runs, n of m, the time elapsed and
 * an estimate of the time left (from the mean time of the steps so far), e.g.
 * \code
 *   allreduce-table: [12/54] balanced on bcube(n=5,k=1); 31 s elapsed, about 1 min 48 s left
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
    std::ostream& m_os;                                  //!< where the lines go
    std::string m_program;                               //!< line prefix
    uint64_t m_total;                                    //!< steps in all
    uint64_t m_begun{0};                                 //!< steps begun
    std::chrono::steady_clock::time_point m_start;       //!< construction time
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PROGRESS_REPORTER_H */
