/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "progress-reporter.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

ProgressReporter::ProgressReporter(std::ostream& os, const std::string& program, uint64_t total)
    : m_os(os),
      m_program(program),
      m_total(total),
      m_start(std::chrono::steady_clock::now())
{
}

void
ProgressReporter::Begin(const std::string& what)
{
    ++m_begun;
    const double elapsed = GetElapsed();
    m_os << m_program << ": [" << m_begun << "/" << m_total << "] " << what << "; "
         << FormatDuration(elapsed) << " elapsed";
    if (m_begun > 1 && m_begun <= m_total)
    {
        const double perStep = elapsed / (m_begun - 1);
        m_os << ", about " << FormatDuration(perStep * (m_total - m_begun + 1)) << " left";
    }
    m_os << std::endl;
}

double
ProgressReporter::GetElapsed() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::string
ProgressReporter::FormatDuration(double seconds)
{
    const auto s = static_cast<uint64_t>(std::llround(std::max(0.0, seconds)));
    if (s < 60)
    {
        return std::to_string(s) + " s";
    }
    if (s < 3600)
    {
        return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
    }
    return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

} // namespace ns3
