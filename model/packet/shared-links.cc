/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "shared-links.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedLinks");

NS_OBJECT_ENSURE_REGISTERED(SharedLinks);

TypeId
SharedLinks::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SharedLinks")
                            .SetParent<Object>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<SharedLinks>();
    return tid;
}

void
SharedLinks::SetNDirectedLinks(uint32_t directedLinks)
{
    m_inFlight.assign(directedLinks, 0);
}

const std::vector<uint32_t>&
SharedLinks::GetInFlight() const
{
    return m_inFlight;
}

void
SharedLinks::Hold(IdSpan links)
{
    for (uint32_t l : links)
    {
        if (l >= m_inFlight.size())
        {
            throw std::out_of_range("SharedLinks: directed link " + std::to_string(l) +
                                    " does not exist; there are " +
                                    std::to_string(m_inFlight.size()));
        }
    }
    for (uint32_t l : links)
    {
        ++m_inFlight[l];
    }
}

void
SharedLinks::Release(IdSpan links)
{
    for (uint32_t l : links)
    {
        if (l >= m_inFlight.size() || m_inFlight[l] == 0)
        {
            throw std::logic_error("SharedLinks: directed link " + std::to_string(l) +
                                   " released but not held");
        }
        --m_inFlight[l];
    }
    if (m_notify.IsExpired() && !m_waiters.empty())
    {
        m_notify = Simulator::ScheduleNow(&SharedLinks::NotifyWaiters, this);
    }
}

uint64_t
SharedLinks::AddWaiter(Callback<double> workLeft, Callback<void> decide)
{
    m_waiters.emplace(m_nextKey, Waiter{workLeft, decide});
    return m_nextKey++;
}

void
SharedLinks::RemoveWaiter(uint64_t key)
{
    m_waiters.erase(key);
}

void
SharedLinks::NotifyWaiters()
{
    std::vector<std::pair<double, uint64_t>> order;
    for (const auto& [key, waiter] : m_waiters)
    {
        order.emplace_back(waiter.workLeft(), key);
    }
    std::sort(order.begin(), order.end());
    for (const auto& [left, key] : order)
    {
        // A waiter may end (and leave) while another decides.
        const auto it = m_waiters.find(key);
        if (it != m_waiters.end())
        {
            Callback<void> decide = it->second.decide;
            decide();
        }
    }
}

void
SharedLinks::DoDispose()
{
    m_notify.Cancel();
    m_waiters.clear();
    Object::DoDispose();
}

} // namespace ns3
