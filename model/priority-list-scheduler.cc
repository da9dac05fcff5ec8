/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "priority-list-scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PriorityListScheduler);

TypeId
PriorityListScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PriorityListScheduler")
                            .SetParent<AllReduceScheduler>()
                            .SetGroupName("AllReduce");
    return tid;
}

void
PriorityListScheduler::Prepare(const WorkloadSet& workloads)
{
    m_priority = ComputePriorities(workloads);
    if (m_priority.size() != workloads.GetN())
    {
        throw std::logic_error("scheduler '" + GetName() + "' gave " +
                               std::to_string(m_priority.size()) + " priorities for " +
                               std::to_string(workloads.GetN()) + " workloads");
    }
}

void
PriorityListScheduler::UpdatePriorities(const SchedulerState& /* state */,
                                        std::vector<uint64_t>& /* priority */)
{
}

void
PriorityListScheduler::SelectRound(SchedulerState& state)
{
    UpdatePriorities(state, m_priority);
    std::vector<uint32_t> ready = state.GetReady();
    std::sort(ready.begin(), ready.end(), [this](uint32_t a, uint32_t b) {
        return m_priority[a] != m_priority[b] ? m_priority[a] > m_priority[b] : a < b;
    });
    for (uint32_t id : ready)
    {
        // Every workload leaves a server: once every server port is taken, nothing fits.
        if (state.IsSaturated())
        {
            break;
        }
        if (state.CanStart(id))
        {
            state.Start(id);
        }
    }
}

} // namespace ns3
