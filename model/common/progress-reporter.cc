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
      m_start(std::chrono::steady_clock::now()),
      m_stepStart(m_start),
      m_lastLine(m_start),
      m_thread(&ProgressReporter::Beat, this)
{
}

ProgressReporter::~ProgressReporter()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void
ProgressReporter::SetHeartbeat(double seconds)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_heartbeat = std::max(0.0, seconds);
    }
    m_wake.notify_all();
}

void
ProgressReporter::SetQuiet(double seconds)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_quiet = std::max(0.0, seconds);
}

void
ProgressReporter::Beat()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    while (!m_stop)
    {
        if (m_heartbeat <= 0 || m_begun == 0)
        {
            m_wake.wait(lock);
            continue;
        }
        const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(m_heartbeat));
        const auto now = std::chrono::steady_clock::now();
        const auto running = now - m_stepStart;
        // The next multiple of the interval since the step began.
        const auto due = m_stepStart + interval * (running / interval + 1);
        if (m_wake.wait_until(lock, due) == std::cv_status::timeout && !m_stop &&
            std::chrono::steady_clock::now() >= m_stepStart + interval)
        {
            const double onStep = std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - m_stepStart)
                                      .count();
            m_os << m_program << ": [" << m_begun << "/" << m_total << "] " << m_step
                 << " still running, " << FormatDuration(onStep) << " on this step; "
                 << FormatDuration(GetElapsed()) << " elapsed" << std::endl;
            m_lastLine = std::chrono::steady_clock::now();
        }
    }
}

void
ProgressReporter::Begin(const std::string& what)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_step = what;
    m_stepStart = std::chrono::steady_clock::now();
    m_wake.notify_all();
    ++m_begun;
    if (m_quiet > 0 &&
        std::chrono::duration<double>(m_stepStart - m_lastLine).count() < m_quiet)
    {
        return;
    }
    m_lastLine = m_stepStart;
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
