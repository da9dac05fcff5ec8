/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "priority-list-scheduler.h"

#include "ns3/boolean.h"

#include <algorithm>
#include <limits>
#include <numeric>
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
    const bool byPlan = !m_rounds.empty();
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
    // The rule takes the ready workloads in that order and starts each one the state lets
    // start. Once a workload's first link is taken, none of the others on it can start, so the
    // ready workloads wait in one heap per first link, merged by a heap of their heads; a heap
    // whose link is taken is dropped whole. Same workloads as a sort of the whole ready list,
    // without sorting it (BCube(8,2): about 150,000 ready, at most 1,536 start a round). Each
    // entry carries its sort key, so that comparing two reads no other memory.
    const WorkloadSet& workloads = state.GetWorkloads();
    const uint32_t links = workloads.GetNDirectedLinks();
    const std::vector<uint32_t>& ready = state.GetReady();
    // First links as the state has them now (the packet level reroutes around failed links).
    const auto& all = workloads.GetAll();
    m_firstLink.resize(workloads.GetN());
    for (uint32_t id : ready)
    {
        m_firstLink[id] = all[id].links.empty() ? links : all[id].links.front();
    }
    m_bucketStart.assign(links + 2, 0);
    for (uint32_t id : ready)
    {
        ++m_bucketStart[m_firstLink[id] + 1];
    }
    std::partial_sum(m_bucketStart.begin(), m_bucketStart.end(), m_bucketStart.begin());
    m_bucketEnd.assign(m_bucketStart.begin(), m_bucketStart.end() - 1);
    m_entries.resize(ready.size());
    for (uint32_t id : ready)
    {
        Entry& e = m_entries[m_bucketEnd[m_firstLink[id]]++];
        e.first = byPlan ? ~uint64_t{m_plannedRound[id]} : m_priority[id];
        e.second = byPlan ? m_priority[id] : 0;
        e.id = id;
    }
    m_heads.clear();
    for (uint32_t b = 0; b <= links; ++b)
    {
        if (m_bucketStart[b] < m_bucketEnd[b])
        {
            std::make_heap(m_entries.begin() + m_bucketStart[b],
                           m_entries.begin() + m_bucketEnd[b]);
            m_heads.push_back(b);
        }
    }
    // std heaps keep the greatest on top: Entry's order puts the first to take there.
    const auto headAfter = [this](uint32_t a, uint32_t b) {
        return m_entries[m_bucketStart[a]] < m_entries[m_bucketStart[b]];
    };
    std::make_heap(m_heads.begin(), m_heads.end(), headAfter);
    while (!m_heads.empty())
    {
        // Every workload leaves a server: once every server port is taken, nothing fits.
        if (state.IsSaturated())
        {
            break;
        }
        std::pop_heap(m_heads.begin(), m_heads.end(), headAfter);
        const uint32_t b = m_heads.back();
        m_heads.pop_back();
        if (b < links && (state.IsLinkBusy(b) || state.IsLinkDown(b)))
        {
            continue; // none of this link's workloads can start this round
        }
        const auto first = m_entries.begin() + m_bucketStart[b];
        const uint32_t id = first->id;
        std::pop_heap(first, m_entries.begin() + m_bucketEnd[b]);
        --m_bucketEnd[b];
        // Ahead of the plan, only what the frontier round's longest transfer covers.
        const bool ahead = byPlan && m_plannedRound[id] > m_frontier;
        if (state.CanStart(id) && !(ahead && GetLength(state, id) > longest))
        {
            state.Start(id);
        }
        if (m_bucketStart[b] < m_bucketEnd[b])
        {
            m_heads.push_back(b);
            std::push_heap(m_heads.begin(), m_heads.end(), headAfter);
        }
    }
}

} // namespace ns3
