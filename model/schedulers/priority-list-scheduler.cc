/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "priority-list-scheduler.h"

#include "ns3/boolean.h"
#include "ns3/topology.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

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
    // A new run: index the paths and file the ready workloads anew (a workload set at the
    // address of the last one may be another one).
    m_followed = nullptr;
    m_indexed = nullptr;
}

void
PriorityListScheduler::UpdatePriorities(const SchedulerState& /* state */)
{
}

bool
PriorityListScheduler::ArePrioritiesFixed() const
{
    return true;
}

uint64_t
PriorityListScheduler::GetPriority(uint32_t /* id */, uint64_t pathOrder, IdSpan /* links */) const
{
    return pathOrder;
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
            m_roundLength[round] = std::max(m_roundLength[round], state.GetTransferLength(id));
        }
    }
    m_frontier = 0;
    // RunRounds prepared the rule for its own run; UpdatePriorities catches up with this one.
    m_priority = ComputePriorities(workloads);
    m_followed = nullptr;
}

PriorityListScheduler::Entry
PriorityListScheduler::MakeEntry(uint32_t id, uint64_t priority) const
{
    if (m_rounds.empty())
    {
        return Entry{priority, 0, id};
    }
    return Entry{~uint64_t{m_plannedRound[id]}, priority, id};
}

void
PriorityListScheduler::IndexPaths(const WorkloadSet& workloads)
{
    // Paths by their directed links: a hash of the links, and a list of the paths per hash
    // value to tell apart the (rare) different paths with equal hashes.
    const auto& all = workloads.GetAll();
    std::unordered_map<uint64_t, uint32_t> firstWithHash;
    std::vector<uint32_t> nextWithHash;
    m_pathOf.resize(all.size());
    m_pathStart.assign(1, 0);
    m_paths.clear();
    for (const Workload& w : all)
    {
        uint64_t h = 0x9e3779b97f4a7c15ULL ^ w.links.size();
        for (uint32_t l : w.links)
        {
            h = (h ^ l) * 0x100000001b3ULL;
            h ^= h >> 29;
        }
        const auto nPaths = static_cast<uint32_t>(m_pathStart.size() - 1);
        const auto [it, added] = firstWithHash.emplace(h, nPaths);
        uint32_t path = it->second;
        if (!added)
        {
            while (path != NO_INDEX &&
                   !std::equal(w.links.begin(), w.links.end(), PathLinks(path).begin(),
                               PathLinks(path).end()))
            {
                path = nextWithHash[path];
            }
        }
        if (added || path == NO_INDEX)
        {
            path = nPaths;
            m_paths.insert(m_paths.end(), w.links.begin(), w.links.end());
            m_pathStart.push_back(m_paths.size());
            nextWithHash.push_back(added ? NO_INDEX : it->second);
            it->second = path;
        }
        m_pathOf[w.id] = path;
    }
    m_indexed = &workloads;
    m_indexedChanges = workloads.GetPathChanges();
}

void
PriorityListScheduler::File(uint32_t id)
{
    m_isFiled[id] = 1;
    ++m_nFiled;
    if (m_filedFixed)
    {
        m_arrivals.push_back(MakeEntry(id, m_priority[id]));
        return;
    }
    const uint32_t path = m_pathOf[id];
    auto& filed = m_filed[path];
    if (!m_isOccupied[path])
    {
        m_isOccupied[path] = 1;
        m_occupied.push_back(path);
    }
    filed.push_back(MakeEntry(id, m_priority[id]));
    std::push_heap(filed.begin(), filed.end());
}

void
PriorityListScheduler::Unfile(uint32_t id)
{
    m_isFiled[id] = 0;
    --m_nFiled;
}

void
PriorityListScheduler::Follow(const SchedulerState& state)
{
    const WorkloadSet& workloads = state.GetWorkloads();
    const auto& log = state.GetReadyLog();
    const bool byPlan = !m_rounds.empty();
    const bool fixed = ArePrioritiesFixed();
    if (m_followed == &state && m_indexed == &workloads &&
        m_indexedChanges == workloads.GetPathChanges() && m_filedByPlan == byPlan &&
        m_filedFixed == fixed && m_logRead <= log.size())
    {
        for (; m_logRead < log.size(); ++m_logRead)
        {
            const uint32_t id = log[m_logRead];
            if (!m_isFiled[id] && state.GetStatus(id) == WorkloadStatus::READY)
            {
                File(id);
            }
        }
        // Filed workloads leave at their start (SelectRound); anything else that took one
        // out of the ready set (the state reset, a workload held back) files anew below.
        if (m_nFiled == state.GetReady().size())
        {
            return;
        }
    }
    m_filedFixed = fixed;
    if (!fixed && (m_indexed != &workloads || m_indexedChanges != workloads.GetPathChanges() ||
                   m_pathOf.size() != workloads.GetN()))
    {
        IndexPaths(workloads);
    }
    m_indexed = &workloads;
    m_indexedChanges = workloads.GetPathChanges();
    m_filed.clear();
    m_occupied.clear();
    m_isOccupied.clear();
    m_order.clear();
    m_ends.clear();
    m_nGone = 0;
    m_arrivals.clear();
    if (!fixed)
    {
        m_filed.resize(m_pathStart.size() - 1);
        m_isOccupied.assign(m_pathStart.size() - 1, 0);
    }
    m_isFiled.assign(workloads.GetN(), 0);
    m_nFiled = 0;
    for (uint32_t id : state.GetReady())
    {
        File(id);
    }
    m_followed = &state;
    m_filedByPlan = byPlan;
    m_logRead = log.size();
}

void
PriorityListScheduler::SelectRound(SchedulerState& state)
{
    if (m_followPlanWhenLate && !m_planning && m_rounds.empty() &&
        !state.GetAwaitingGradient().empty())
    {
        PlanRounds(state);
    }
    UpdatePriorities(state);
    const bool byPlan = !m_rounds.empty();
    m_longest = std::numeric_limits<double>::infinity();
    if (byPlan)
    {
        m_frontier = state.GetFrontier(m_rounds, m_frontier);
        if (m_frontier < m_rounds.size())
        {
            m_longest = m_roundLength[m_frontier];
        }
    }
    // The rule takes the ready workloads in priority order and starts each one the state lets
    // start. The ready workloads stay filed between decisions (Follow), so that a decision
    // does not sort them again: with fixed priorities in one sorted list, read from the front;
    // with priorities that change, by path (SelectByPath).
    Follow(state);
    const uint32_t nLinks = state.GetWorkloads().GetNDirectedLinks();
    // Per directed link, 1 when free; past them, one never free (a workload gone from the
    // list) and one always free (a workload without links).
    m_open.resize(nLinks + 2);
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        m_open[l] = !state.IsLinkBusy(l) && !state.IsLinkDown(l);
    }
    m_open[nLinks] = 0;
    m_open[nLinks + 1] = 1;
    if (m_filedFixed)
    {
        SelectInOrder(state);
    }
    else
    {
        SelectByPath(state);
    }
}

IdSpan
PriorityListScheduler::PathLinks(uint32_t path) const
{
    return IdSpan(m_paths.data() + m_pathStart[path], m_pathStart[path + 1] - m_pathStart[path]);
}

bool
PriorityListScheduler::IsOpen(IdSpan links) const
{
    for (uint32_t l : links)
    {
        if (!m_open[l])
        {
            return false;
        }
    }
    return true;
}

bool
PriorityListScheduler::TryStart(SchedulerState& state, uint32_t id, IdSpan links)
{
    if (!IsOpen(links))
    {
        return false;
    }
    // Ahead of the plan, only what the frontier round's longest transfer covers.
    const bool ahead = !m_rounds.empty() && m_plannedRound[id] > m_frontier;
    if (!state.CanStart(id) || (ahead && state.GetTransferLength(id) > m_longest))
    {
        return false;
    }
    state.Start(id);
    Unfile(id);
    for (uint32_t l : links)
    {
        m_open[l] = 0;
    }
    return true;
}

void
PriorityListScheduler::SelectInOrder(SchedulerState& state)
{
    // Fixed priorities: the list stays sorted; the workloads that became ready since the last
    // decision merge into it, and the gone ones leave, in one pass (when any came, or when
    // more than half are gone). A decision then reads the list from the front and starts every
    // workload that can start, until every server port is taken: an entry whose first or
    // last link is taken costs two reads (PS on fat-tree k=16: a million ready, a thousand
    // start a round).
    const auto& all = state.GetWorkloads().GetAll();
    const auto nLinks = static_cast<uint32_t>(m_open.size() - 2);
    const auto endsOf = [nLinks](const Workload& w) {
        return w.links.empty() ? Ends{nLinks + 1, nLinks + 1} : Ends{w.links.front(), w.links.back()};
    };
    if (!m_arrivals.empty() || 2 * m_nGone > m_order.size())
    {
        std::sort(m_arrivals.begin(), m_arrivals.end(), [](const Entry& a, const Entry& b) {
            return b < a;
        });
        m_mergedOrder.clear();
        m_mergedEnds.clear();
        m_mergedOrder.reserve(m_order.size() - m_nGone + m_arrivals.size());
        m_mergedEnds.reserve(m_mergedOrder.capacity());
        size_t next = 0;
        for (size_t i = 0; i <= m_order.size(); ++i)
        {
            const bool gone = i < m_order.size() && m_ends[i].first == nLinks;
            if (gone)
            {
                continue;
            }
            while (next < m_arrivals.size() && (i == m_order.size() || m_order[i] < m_arrivals[next]))
            {
                m_mergedOrder.push_back(m_arrivals[next]);
                m_mergedEnds.push_back(endsOf(all[m_arrivals[next].id]));
                ++next;
            }
            if (i < m_order.size())
            {
                m_mergedOrder.push_back(m_order[i]);
                m_mergedEnds.push_back(m_ends[i]);
            }
        }
        m_order.swap(m_mergedOrder);
        m_ends.swap(m_mergedEnds);
        m_arrivals.clear();
        m_nGone = 0;
    }
    // Every workload leaves a server: once every server port is taken, nothing fits.
    bool saturated = state.IsSaturated();
    for (size_t i = 0; i < m_order.size() && !saturated; ++i)
    {
        if (!m_open[m_ends[i].first] || !m_open[m_ends[i].last])
        {
            continue;
        }
        const uint32_t id = m_order[i].id;
        if (state.GetStatus(id) != WorkloadStatus::READY)
        {
            Unfile(id); // left the ready set some other way
        }
        else if (TryStart(state, id, all[id].links))
        {
            saturated = state.IsSaturated();
        }
        else
        {
            continue;
        }
        m_ends[i].first = nLinks; // gone from the list
        ++m_nGone;
    }
}

void
PriorityListScheduler::SelectByPath(SchedulerState& state)
{
    // Priorities that change: workloads on one path share its links and keep their order
    // (GetPriority), so the ready workloads are filed by path, each path a heap, and a
    // decision compares the paths' firsts only: a path whose link is taken is passed over
    // whole. A decision costs the paths with ready workloads, not the ready workloads
    // (BCube(8,2): about 100,000 ready on 10,752 paths; at most 1,536 start a round).
    const bool byPlan = !m_rounds.empty();
    const auto& all = state.GetWorkloads().GetAll();
    // The first of a path, with its priority now.
    const auto headOf = [this, byPlan](uint32_t path) {
        Entry head = m_filed[path].front();
        uint64_t& priority = byPlan ? head.second : head.first;
        priority = GetPriority(head.id, priority, PathLinks(path));
        return head;
    };
    // The open paths' firsts, grouped by their first link: a start takes that link, so the
    // other paths of the group are passed over at once instead of one by one (fat-tree k=16:
    // about a thousand paths leave each server; one of them starts in a round).
    const auto nLinks = static_cast<uint32_t>(m_open.size() - 2);
    const auto firstLink = [this, nLinks](uint32_t path) {
        const IdSpan links = PathLinks(path);
        return links.empty() ? nLinks + 1 : links[0];
    };
    m_groupEnd.assign(m_open.size() + 1, 0);
    m_heads.clear();
    size_t kept = 0;
    for (uint32_t path : m_occupied)
    {
        if (m_filed[path].empty())
        {
            m_isOccupied[path] = 0;
            continue;
        }
        m_occupied[kept++] = path;
        if (IsOpen(PathLinks(path)))
        {
            m_heads.push_back(headOf(path));
            ++m_groupEnd[firstLink(path) + 1];
        }
    }
    m_occupied.resize(kept);
    // Counting sort by first link: group g is m_groupHeads[m_groupStart[g], m_groupEnd[g]).
    for (size_t g = 1; g < m_groupEnd.size(); ++g)
    {
        m_groupEnd[g] += m_groupEnd[g - 1];
    }
    m_groupStart.assign(m_groupEnd.begin(), m_groupEnd.end() - 1);
    m_groupHeads.resize(m_heads.size());
    for (const Entry& head : m_heads)
    {
        m_groupHeads[m_groupEnd[firstLink(m_pathOf[head.id])]++] = head;
    }
    // Each group a heap; the groups in a heap of their firsts.
    m_groups.clear();
    for (uint32_t g = 0; g + 1 < m_groupEnd.size(); ++g)
    {
        if (m_groupStart[g] != m_groupEnd[g])
        {
            std::make_heap(m_groupHeads.begin() + m_groupStart[g],
                           m_groupHeads.begin() + m_groupEnd[g]);
            m_groups.push_back({m_groupHeads[m_groupStart[g]], g});
        }
    }
    std::make_heap(m_groups.begin(), m_groups.end());
    m_deferred.clear();
    while (!m_groups.empty())
    {
        // Every workload leaves a server: once every server port is taken, nothing fits.
        if (state.IsSaturated())
        {
            break;
        }
        std::pop_heap(m_groups.begin(), m_groups.end());
        const uint32_t g = m_groups.back().link;
        m_groups.pop_back();
        if (!m_open[g])
        {
            continue; // no path of this group can start this round
        }
        const auto begin = m_groupHeads.begin() + m_groupStart[g];
        std::pop_heap(begin, m_groupHeads.begin() + m_groupEnd[g]);
        const uint32_t id = m_groupHeads[--m_groupEnd[g]].id;
        const uint32_t path = m_pathOf[id];
        if (IsOpen(PathLinks(path)))
        {
            auto& filed = m_filed[path];
            std::pop_heap(filed.begin(), filed.end());
            const Entry entry = filed.back();
            filed.pop_back();
            if (state.GetStatus(id) != WorkloadStatus::READY)
            {
                Unfile(id); // left the ready set some other way
            }
            else if (!TryStart(state, id, all[id].links))
            {
                m_deferred.push_back(entry); // another workload of its path may start
            }
            if (!filed.empty())
            {
                m_groupHeads[m_groupEnd[g]++] = headOf(path);
                std::push_heap(begin, m_groupHeads.begin() + m_groupEnd[g]);
            }
        }
        // else none of this path's workloads can start this round
        if (m_open[g] && m_groupStart[g] != m_groupEnd[g])
        {
            m_groups.push_back({*begin, g});
            std::push_heap(m_groups.begin(), m_groups.end());
        }
    }
    for (const Entry& entry : m_deferred)
    {
        auto& filed = m_filed[m_pathOf[entry.id]];
        filed.push_back(entry);
        std::push_heap(filed.begin(), filed.end());
    }
}

} // namespace ns3
