/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-search-reporter.h"

#include "progress-reporter.h"

#include "ns3/callback.h"

#include <limits>

namespace ns3
{

DrlSearchReporter::DrlSearchReporter(std::ostream& os, const std::string& program, double interval)
    : m_os(os),
      m_program(program),
      m_interval(interval),
      m_start(std::chrono::steady_clock::now()),
      m_stepStart(m_start),
      m_last(m_start)
{
}

void
DrlSearchReporter::Connect(Ptr<DrlScheduler> drl, const std::string& topology)
{
    m_topology = topology;
    drl->TraceConnectWithoutContext("SearchProgress",
                                    MakeCallback(&DrlSearchReporter::Report, this));
}

void
DrlSearchReporter::Report(const std::string& step, uint32_t done, uint32_t total, uint32_t best)
{
    using Seconds = std::chrono::duration<double>;
    const auto now = std::chrono::steady_clock::now();
    if (step != m_step)
    {
        m_step = step;
        m_stepStart = now;
    }
    if (Seconds(now - m_last).count() < m_interval || done == 0)
    {
        return;
    }
    m_last = now;
    m_os << m_program << ": drl on " << m_topology << ": ";
    if (step == "rollout")
    {
        m_os << "rollout round " << done << " of at most " << total;
    }
    else
    {
        m_os << step << " " << done << " of " << total << " done";
    }
    if (best > 0 && best != std::numeric_limits<uint32_t>::max())
    {
        m_os << " (best " << best << " rounds)";
    }
    m_os << "; " << ProgressReporter::FormatDuration(Seconds(now - m_start).count())
         << " elapsed";
    if (done < total)
    {
        const double perStep = Seconds(now - m_stepStart).count() / done;
        m_os << ", at most about "
             << ProgressReporter::FormatDuration(perStep * (total - done)) << " left";
    }
    m_os << std::endl;
}

} // namespace ns3
