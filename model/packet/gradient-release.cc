/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "gradient-release.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ns3
{

GradientRelease::GradientRelease()
    : m_choice(CreateObject<UniformRandomVariable>())
{
}

void
GradientRelease::SetGivenTimes(const std::vector<Time>& times, uint32_t servers)
{
    for (size_t s = 0; s < times.size(); ++s)
    {
        if (times[s].IsStrictlyNegative())
        {
            throw std::invalid_argument("the gradient of server " + std::to_string(s) +
                                        " cannot be ready before the start (" +
                                        std::to_string(times[s].GetSeconds()) + " s)");
        }
    }
    if (servers > 0)
    {
        CheckCount(times, servers);
    }
    m_given = times;
}

void
GradientRelease::CheckCount(const std::vector<Time>& times, uint32_t servers)
{
    if (!times.empty() && times.size() != servers)
    {
        throw std::invalid_argument("SetGradientReadyTimes gave " + std::to_string(times.size()) +
                                    " times; give one per server (" + std::to_string(servers) +
                                    ")");
    }
}

void
GradientRelease::Check(uint32_t servers, uint32_t stragglers) const
{
    CheckCount(m_given, servers);
    if (stragglers > servers)
    {
        throw std::invalid_argument("Stragglers is " + std::to_string(stragglers) +
                                    ", but there are " + std::to_string(servers) + " servers");
    }
}

void
GradientRelease::AssignStream(int64_t stream)
{
    m_choice->SetStream(stream);
}

void
GradientRelease::NewRun()
{
    m_warmUpTimes.clear();
}

void
GradientRelease::FinishWarmUp(double seconds)
{
    m_warmUpTimes.push_back(seconds);
}

uint32_t
GradientRelease::GetWarmUpsFinished() const
{
    return static_cast<uint32_t>(m_warmUpTimes.size());
}

const std::vector<double>&
GradientRelease::GetWarmUpTimes() const
{
    return m_warmUpTimes;
}

void
GradientRelease::Hold(uint32_t n,
                      bool warmUp,
                      uint32_t stragglers,
                      Ptr<RandomVariableStream> delay,
                      PacketSchedulerState* state,
                      Callback<void, uint32_t> release)
{
    m_readyAt.assign(n, 0.0);
    m_lastRelease = 0;
    m_releases.clear();
    if (warmUp)
    {
        return;
    }
    if (!m_given.empty())
    {
        for (uint32_t s = 0; s < n; ++s)
        {
            m_readyAt[s] = m_given[s].GetSeconds();
        }
    }
    else if (stragglers > 0)
    {
        // A partial Fisher-Yates shuffle picks the late servers.
        std::vector<uint32_t> servers(n);
        std::iota(servers.begin(), servers.end(), 0);
        for (uint32_t i = 0; i < stragglers; ++i)
        {
            const uint32_t j = m_choice->GetInteger(i, n - 1);
            std::swap(servers[i], servers[j]);
            m_readyAt[servers[i]] = std::max(0.0, delay->GetValue());
        }
    }
    for (uint32_t s = 0; s < n; ++s)
    {
        if (m_readyAt[s] > 0)
        {
            if (state)
            {
                state->HoldServer(s);
            }
            m_lastRelease = std::max(m_lastRelease, m_readyAt[s]);
            m_releases.push_back(
                Simulator::Schedule(Seconds(m_readyAt[s]), [release, s]() { release(s); }));
        }
    }
}

void
GradientRelease::Cancel()
{
    for (EventId& e : m_releases)
    {
        e.Cancel();
    }
}

const std::vector<double>&
GradientRelease::GetReadyTimes() const
{
    return m_readyAt;
}

double
GradientRelease::GetLastRelease() const
{
    return m_lastRelease;
}

const std::vector<Time>&
GradientRelease::GetGivenTimes() const
{
    return m_given;
}

} // namespace ns3
