/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-search-reporter.h"

#include "ns3/callback.h"

#include <limits>

namespace ns3
{

DrlSearchReporter::DrlSearchReporter(std::ostream& os, const std::string& program, double quiet)
    : m_os(os),
      m_program(program),
      m_quiet(quiet)
{
}

DrlSearchReporter::~DrlSearchReporter() = default;

void
DrlSearchReporter::Connect(Ptr<DrlScheduler> drl, const std::string& topology)
{
    m_topology = topology;
    drl->TraceConnectWithoutContext("SearchProgress",
                                    MakeCallback(&DrlSearchReporter::Report, this));
}

void
DrlSearchReporter::ConnectStarts(Ptr<OptimalScheduler> optimal, const std::string& topology)
{
    m_topology = topology;
    optimal->TraceConnectWithoutContext("StartScheduler",
                                        MakeCallback(&DrlSearchReporter::Start, this));
}

void
DrlSearchReporter::Start(Ptr<AllReduceScheduler> scheduler)
{
    if (Ptr<DrlScheduler> drl = DynamicCast<DrlScheduler>(scheduler))
    {
        Connect(drl, m_topology);
    }
}

void
DrlSearchReporter::Report(const std::string& step, uint32_t done, uint32_t total, uint32_t best)
{
    if (step != m_step)
    {
        m_step = step;
        m_phase.reset();
        if (step == "done")
        {
            return;
        }
        m_phase = std::make_unique<ProgressReporter>(m_os, m_program, total);
        m_phase->SetQuiet(m_quiet);
    }
    if (!m_phase || done >= total)
    {
        return;
    }
    // The next step begins: "done" steps are behind it.
    std::string what = "drl on " + m_topology + ": ";
    if (step == "rollout")
    {
        what += "rollout round " + std::to_string(done + 1);
    }
    else
    {
        what += done == 0 ? std::string("the greedy episode")
                          : "sampled episode " + std::to_string(done);
    }
    if (best > 0 && best != std::numeric_limits<uint32_t>::max())
    {
        what += " (best " + std::to_string(best) + " rounds)";
    }
    m_phase->Begin(what);
}

} // namespace ns3
