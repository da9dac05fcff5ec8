/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dcqcn-rate-control.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/quantity.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnRateControl");
NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
DcqcnRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DcqcnRateControl")
            .SetParent<Object>()
            .SetGroupName("Allreduce")
            .AddConstructor<DcqcnRateControl>()
            .AddAttribute("G",
                          "Alpha's gain g (Zhu et al. use 1/256).",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&DcqcnRateControl::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaTimer",
                          "Alpha decays by (1 - g) every this long without a CNP (K, 55 us).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnRateControl::m_alphaTimer),
                          MakeTimeChecker())
            .AddAttribute("RateTimer",
                          "The rate rises at each expiry of this timer after a cut (T).",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&DcqcnRateControl::m_rateTimer),
                          MakeTimeChecker())
            .AddAttribute("ByteCounter",
                          "The rate rises each time this many bytes are sent after a cut "
                          "(B, 10 MB).",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&DcqcnRateControl::m_byteCounter),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("FastRecoverySteps",
                          "Increase events of fast recovery before additive increase (F, 5).",
                          UintegerValue(5),
                          MakeUintegerAccessor(&DcqcnRateControl::m_f),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncrease",
                          "R_AI, the target rate's additive step (40 Mbps).",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_ai),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "R_HAI, the target rate's hyper-increase step.",
                          DataRateValue(DataRate("400Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_hai),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "The rate never falls below it.",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&DcqcnRateControl::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Rate",
                            "The current rate Rc changed.",
                            MakeTraceSourceAccessor(&DcqcnRateControl::m_rateTrace),
                            "ns3::DcqcnRateControl::RateTracedCallback");
    return tid;
}

DcqcnRateControl::DcqcnRateControl() = default;

DcqcnRateControl::~DcqcnRateControl() = default;

void
DcqcnRateControl::DoDispose()
{
    m_timer.Cancel();
    Object::DoDispose();
}

void
DcqcnRateControl::Validate(DataRate lineRate) const
{
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument("DCQCN: " + what);
    };
    if (!(m_g > 0 && m_g <= 1))
    {
        refuse("G must be in (0, 1], got " + std::to_string(m_g));
    }
    if (!m_alphaTimer.IsStrictlyPositive())
    {
        refuse("AlphaTimer must be > 0, got " + std::to_string(m_alphaTimer.GetMicroSeconds()) +
               " us");
    }
    if (!m_rateTimer.IsStrictlyPositive())
    {
        refuse("RateTimer must be > 0, got " + std::to_string(m_rateTimer.GetMicroSeconds()) +
               " us");
    }
    if (m_byteCounter == 0)
    {
        refuse("ByteCounter must be > 0 bytes");
    }
    // Each rate in its attribute's name: MinRate's default (100Mbps) is above a slow line's
    // rate, and the user who set only the line rate must learn which attribute to lower.
    const std::string line = Quantity::FormatRate(lineRate.GetBitRate());
    for (const auto& [name, rate] : {std::pair<std::string, DataRate>{"MinRate", m_minRate},
                                     {"AdditiveIncrease", m_ai},
                                     {"HyperIncrease", m_hai}})
    {
        if (rate.GetBitRate() == 0 || rate > lineRate)
        {
            refuse("ns3::DcqcnRateControl::" + name + " is " +
                   Quantity::FormatRate(rate.GetBitRate()) + ", " +
                   (rate.GetBitRate() == 0 ? "not above 0" : "above the line rate " + line) +
                   "; give --ns3::DcqcnRateControl::" + name + "=RATE from 1bps to " + line +
                   (name == "MinRate" ? " (its default is 100Mbps)" : ""));
        }
    }
}

void
DcqcnRateControl::Start(DataRate lineRate)
{
    m_line = static_cast<double>(lineRate.GetBitRate());
    m_rc = m_line;
    m_rt = m_line;
    m_alpha = 1;
    m_alphaSince = Simulator::Now();
}

DataRate
DcqcnRateControl::GetRate() const
{
    return DataRate(static_cast<uint64_t>(m_rc));
}

DataRate
DcqcnRateControl::GetTargetRate() const
{
    return DataRate(static_cast<uint64_t>(m_rt));
}

double
DcqcnRateControl::GetAlpha() const
{
    const double periods =
        std::floor((Simulator::Now() - m_alphaSince).GetSeconds() / m_alphaTimer.GetSeconds());
    return m_alpha * std::pow(1 - m_g, periods);
}

double
DcqcnRateControl::Clamp(double rate) const
{
    return std::clamp(rate, static_cast<double>(m_minRate.GetBitRate()), m_line);
}

void
DcqcnRateControl::SetRate(double rate)
{
    const DataRate before = GetRate();
    m_rc = Clamp(rate);
    if (GetRate() != before)
    {
        m_rateTrace(before, GetRate());
    }
}

void
DcqcnRateControl::OnCnp()
{
    ++m_cnps;
    const double alpha = GetAlpha();
    m_rt = m_rc;
    SetRate(m_rc * (1 - alpha / 2));
    m_alpha = (1 - m_g) * alpha + m_g;
    m_alphaSince = Simulator::Now();
    m_timerCount = 0;
    m_byteCount = 0;
    m_bytes = 0;
    m_timer.Cancel();
    m_timer = Simulator::Schedule(m_rateTimer, &DcqcnRateControl::TimerExpired, this);
}

void
DcqcnRateControl::OnBytesSent(uint32_t bytes)
{
    if (m_rc >= m_line && m_rt >= m_line)
    {
        return; // at line rate: nothing to recover
    }
    m_bytes += bytes;
    if (m_bytes >= m_byteCounter)
    {
        m_bytes -= m_byteCounter;
        ++m_byteCount;
        Increase();
    }
}

void
DcqcnRateControl::TimerExpired()
{
    ++m_timerCount;
    Increase();
    if (m_rc < m_line || m_rt < m_line)
    {
        m_timer = Simulator::Schedule(m_rateTimer, &DcqcnRateControl::TimerExpired, this);
    }
}

void
DcqcnRateControl::Increase()
{
    // The counts include this event: the first F events of either are fast recovery.
    const uint32_t most = std::max(m_timerCount, m_byteCount);
    const uint32_t least = std::min(m_timerCount, m_byteCount);
    if (least > m_f)
    {
        m_rt = Clamp(m_rt + (least - m_f) * static_cast<double>(m_hai.GetBitRate()));
    }
    else if (most > m_f)
    {
        m_rt = Clamp(m_rt + static_cast<double>(m_ai.GetBitRate()));
    }
    SetRate((m_rt + m_rc) / 2);
}

uint64_t
DcqcnRateControl::GetCnps() const
{
    return m_cnps;
}

} // namespace ns3
