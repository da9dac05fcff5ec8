/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "priority-list-scheduler.h"

#include "ns3/boolean.h"

#include <algorithm>
#include <limits>
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
                                          "Once a late gradient (a straggler) holds workloads "
                                          "back, take the ready ones in the order of this "
                                          "rule's own flow-level plan, and beyond its first "
                                          "round not wholly started only transfers no longer "
                                          "than that round's longest; false: the priorities "
                                          "alone",
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
        m_rounds.clear();
        m_plannedRound.clear();
        m_roundLength.clear();
        m_frontier = 0;
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

double
PriorityListScheduler::GetLength(const SchedulerState& state, uint32_t id)
{
    double rate = 1;
    const auto& links = state.GetWorkloads().Get(id).links;
    for (uint32_t l : links)
    {
        rate = std::min(rate, state.GetLinkRate(l));
    }
    return links.size() / rate;
}

void
PriorityListScheduler::PlanRounds(const SchedulerState& state)
{
    const WorkloadSet& workloads = state.GetWorkloads();
    m_planning = true;
    try
    {
        m_rounds = RunRounds(*this, workloads).rounds;
    }
    catch (...)
    {
        m_planning = false;
        throw;
    }
    m_planning = false;
    m_plannedRound.assign(workloads.GetN(), 0);
    m_roundLength.assign(m_rounds.size(), 0.0);
    for (uint32_t round = 0; round < m_rounds.size(); ++round)
    {
        for (uint32_t id : m_rounds[round])
        {
            m_plannedRound[id] = round;
            m_roundLength[round] = std::max(m_roundLength[round], GetLength(state, id));
        }
    }
    m_frontier = 0;
    // RunRounds prepared the rule for its own run; UpdatePriorities catches up with this one.
    m_priority = ComputePriorities(workloads);
}

void
PriorityListScheduler::SelectRound(SchedulerState& state)
{
    if (m_followPlanWhenLate && !m_planning && m_rounds.empty() &&
        !state.GetAwaitingGradient().empty())
    {
        PlanRounds(state);
    }
    UpdatePriorities(state, m_priority);
    std::vector<uint32_t> ready = state.GetReady();
    const bool byPlan = !m_rounds.empty();
    std::sort(ready.begin(), ready.end(), [this, byPlan](uint32_t a, uint32_t b) {
        if (byPlan && m_plannedRound[a] != m_plannedRound[b])
        {
            return m_plannedRound[a] < m_plannedRound[b];
        }
        return m_priority[a] != m_priority[b] ? m_priority[a] > m_priority[b] : a < b;
    });
    double longest = std::numeric_limits<double>::infinity();
    if (byPlan)
    {
        const auto started = [&state](uint32_t id) {
            return state.GetStatus(id) == WorkloadStatus::STARTED ||
                   state.GetStatus(id) == WorkloadStatus::DONE;
        };
        while (m_frontier < m_rounds.size() &&
               std::all_of(m_rounds[m_frontier].begin(), m_rounds[m_frontier].end(), started))
        {
            ++m_frontier;
        }
        if (m_frontier < m_rounds.size())
        {
            longest = m_roundLength[m_frontier];
        }
    }
    for (uint32_t id : ready)
    {
        // Every workload leaves a server: once every server port is taken, nothing fits.
        if (state.IsSaturated())
        {
            break;
        }
        // Ahead of the plan, only what the frontier round's longest transfer covers.
        const bool ahead = byPlan && m_plannedRound[id] > m_frontier;
        if (state.CanStart(id) && !(ahead && GetLength(state, id) > longest))
        {
            state.Start(id);
        }
    }
}

} // namespace ns3
