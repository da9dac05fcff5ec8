/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "priority-list-scheduler.h"

#include "ns3/boolean.h"

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
                            .SetGroupName("AllReduce")
                            .AddAttribute("FollowPlanWhenLate",
                                          "While a late gradient (a straggler) holds workloads "
                                          "back, take the ready ones in the order of this "
                                          "rule's own flow-level plan and keep the links of the "
                                          "held ones free; false: the priorities alone",
                                          BooleanValue(true),
                                          MakeBooleanAccessor(
                                              &PriorityListScheduler::m_followPlanWhenLate),
                                          MakeBooleanChecker());
    return tid;
}

void
PriorityListScheduler::Prepare(const WorkloadSet& workloads)
{
    if (!m_planning)
    {
        m_plannedRound.clear();
    }
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
PriorityListScheduler::PlanRounds(const WorkloadSet& workloads)
{
    m_planning = true;
    Schedule plan;
    try
    {
        plan = RunRounds(*this, workloads);
    }
    catch (...)
    {
        m_planning = false;
        throw;
    }
    m_planning = false;
    m_plannedRound.assign(workloads.GetN(), 0);
    for (uint32_t round = 0; round < plan.rounds.size(); ++round)
    {
        for (uint32_t id : plan.rounds[round])
        {
            m_plannedRound[id] = round;
        }
    }
    // RunRounds prepared the rule for its own run; UpdatePriorities catches up with this one.
    m_priority = ComputePriorities(workloads);
}

void
PriorityListScheduler::SelectRound(SchedulerState& state)
{
    std::vector<uint32_t> awaiting;
    if (m_followPlanWhenLate && !m_planning)
    {
        awaiting = state.GetAwaitingGradient();
        if (!awaiting.empty() && m_plannedRound.empty())
        {
            PlanRounds(state.GetWorkloads());
        }
    }
    UpdatePriorities(state, m_priority);
    std::vector<uint32_t> ready = state.GetReady();
    const bool byPlan = !m_plannedRound.empty();
    std::sort(ready.begin(), ready.end(), [this, byPlan](uint32_t a, uint32_t b) {
        if (byPlan && m_plannedRound[a] != m_plannedRound[b])
        {
            return m_plannedRound[a] < m_plannedRound[b];
        }
        return m_priority[a] != m_priority[b] ? m_priority[a] > m_priority[b] : a < b;
    });
    // The held workloads of the earliest planned round keep their links: nothing planned
    // after them takes those, so they start the moment their gradient is ready.
    uint32_t heldRound = NO_INDEX;
    std::vector<uint8_t> kept;
    if (byPlan && !awaiting.empty())
    {
        for (uint32_t id : awaiting)
        {
            heldRound = std::min(heldRound, m_plannedRound[id]);
        }
        kept.assign(state.GetWorkloads().GetNDirectedLinks(), 0);
        for (uint32_t id : awaiting)
        {
            if (m_plannedRound[id] == heldRound)
            {
                for (uint32_t l : state.GetWorkloads().Get(id).links)
                {
                    kept[l] = 1;
                }
            }
        }
    }
    const auto takesKeptLink = [&](uint32_t id) {
        if (kept.empty() || m_plannedRound[id] <= heldRound)
        {
            return false;
        }
        const auto& links = state.GetWorkloads().Get(id).links;
        return std::any_of(links.begin(), links.end(), [&kept](uint32_t l) { return kept[l]; });
    };
    for (uint32_t id : ready)
    {
        // Every workload leaves a server: once every server port is taken, nothing fits.
        if (state.IsSaturated())
        {
            break;
        }
        if (state.CanStart(id) && !takesKeptLink(id))
        {
            state.Start(id);
        }
    }
}

} // namespace ns3
