/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "distributed-driver.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/plan.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DistributedDriver");

std::vector<uint8_t>
DistributedNotice::Serialize() const
{
    std::vector<uint8_t> bytes(BYTES);
    const uint64_t words[3] = {static_cast<uint64_t>(kind), from, value};
    for (uint32_t i = 0; i < BYTES; ++i)
    {
        const uint32_t word = i < 8 ? i / 4 : 2;
        const uint32_t shift = 8 * (i < 8 ? i % 4 : i - 8);
        bytes[i] = static_cast<uint8_t>(words[word] >> shift);
    }
    return bytes;
}

bool
DistributedNotice::Deserialize(const std::vector<uint8_t>& bytes, DistributedNotice& notice)
{
    if (bytes.size() != BYTES)
    {
        return false;
    }
    uint64_t words[3] = {0, 0, 0};
    for (uint32_t i = 0; i < BYTES; ++i)
    {
        const uint32_t word = i < 8 ? i / 4 : 2;
        const uint32_t shift = 8 * (i < 8 ? i % 4 : i - 8);
        words[word] |= uint64_t{bytes[i]} << shift;
    }
    if (words[0] < DEPENDENCY_DONE || words[0] > END)
    {
        return false;
    }
    notice.kind = static_cast<Kind>(words[0]);
    notice.from = static_cast<uint32_t>(words[1]);
    notice.value = words[2];
    return true;
}

void
DistributedDriver::SortByPlan(Actions& actions) const
{
    std::sort(actions.start.begin(), actions.start.end(), [this](uint32_t a, uint32_t b) {
        return m_position[a] < m_position[b];
    });
}

uint64_t
DistributedDriver::Key(uint32_t from, uint32_t to)
{
    return (uint64_t{from} << 32) | to;
}

void
DistributedDriver::Setup(const WorkloadSet& workloads,
                         const Schedule& schedule,
                         bool barrier,
                         const std::vector<bool>& local,
                         uint32_t coordinator)
{
    const uint32_t nw = workloads.GetN();
    const uint32_t nodes = workloads.GetTopology().GetNNodes();
    m_workloads = &workloads;
    m_barrier = barrier;
    m_local = local;
    m_local.resize(nodes, false);
    m_coordinator = coordinator;
    // Empty rounds would wait for notices no node sends: the driver skips them.
    Schedule rounds;
    for (const auto& round : schedule.rounds)
    {
        if (!round.empty())
        {
            rounds.rounds.push_back(round);
        }
    }
    m_roundOf = RoundOfEachWorkload(rounds, nw);
    m_rounds = std::move(rounds.rounds);
    m_position.assign(nw, 0);
    uint32_t position = 0;
    for (const auto& round : m_rounds)
    {
        for (uint32_t w : round)
        {
            m_position[w] = position++;
        }
    }
    m_depsLeft.assign(nw, 0);
    m_nodeLeft.assign(nodes, 0);
    m_heard.assign(m_rounds.size(), 0);
    std::set<uint32_t> endpoints;
    m_localReceptions = 0;
    for (uint32_t w = 0; w < nw; ++w)
    {
        const Workload& wl = workloads.Get(w);
        endpoints.insert(wl.src);
        endpoints.insert(wl.dst);
        m_depsLeft[w] = static_cast<uint32_t>(workloads.GetDeps(w).size());
        ++m_nodeLeft[wl.dst];
        m_localReceptions += m_local[wl.dst] ? 1 : 0;
    }
    CountReceptions(workloads);
    m_endpoints.assign(endpoints.begin(), endpoints.end());
    if (nw > 0 && endpoints.count(coordinator) == 0)
    {
        throw std::invalid_argument(
            "the coordinator of a distributed run, " +
            workloads.GetTopology().GetNodeName(coordinator) +
            ", sends and receives nothing in this AllReduce; choose one that does "
            "(AllReduceController's Coordinator)");
    }
    m_localEndpoints.clear();
    m_receiverNodes = 0;
    for (uint32_t node : m_endpoints)
    {
        m_receiverNodes += m_nodeLeft[node] > 0 ? 1 : 0;
        if (m_local[node])
        {
            m_localEndpoints.push_back(node);
        }
    }
    m_nodesDone = 0;
    m_localArrived = 0;
    m_kept.clear();
    IndexGlobal(workloads);
}

void
DistributedDriver::IndexGlobal(const WorkloadSet& workloads)
{
    std::set<std::pair<uint32_t, uint32_t>> channels;
    for (uint32_t node : m_endpoints)
    {
        if (node != m_coordinator)
        {
            channels.emplace(node, m_coordinator); // ROUND_DONE, NODE_DONE
            channels.emplace(m_coordinator, node); // ROUND_GO, END
        }
    }
    for (uint32_t w = 0; !m_barrier && w < workloads.GetN(); ++w)
    {
        const uint32_t at = workloads.Get(w).dst;
        for (uint32_t x : workloads.GetDependents(w))
        {
            if (workloads.Get(x).src != at)
            {
                channels.emplace(at, workloads.Get(x).src);
            }
        }
    }
    m_channels.assign(channels.begin(), channels.end());
    m_senders.clear();
    if (m_barrier && m_local[m_coordinator]) // it starts every round at its senders
    {
        m_senders.resize(m_rounds.size());
        for (uint32_t r = 0; r < m_rounds.size(); ++r)
        {
            for (uint32_t w : m_rounds[r])
            {
                m_senders[r].push_back(workloads.Get(w).src);
            }
            std::sort(m_senders[r].begin(), m_senders[r].end());
            m_senders[r].erase(std::unique(m_senders[r].begin(), m_senders[r].end()),
                               m_senders[r].end());
        }
    }
}

std::vector<uint32_t>
DistributedDriver::FindNeeded(const std::vector<bool>& simulated) const
{
    const WorkloadSet& all = *m_workloads;
    const auto here = [&simulated](uint32_t node) {
        return node < simulated.size() && simulated[node];
    };
    std::vector<uint8_t> needed(all.GetN(), 0);
    for (uint32_t w = 0; w < all.GetN(); ++w)
    {
        const Workload& wl = all.Get(w);
        if (std::none_of(wl.path.begin(), wl.path.end(), here))
        {
            continue;
        }
        needed[w] = 1;
        if (here(wl.src)) // its dependencies arrive here, or are announced by their id
        {
            for (uint32_t d : all.GetDeps(w))
            {
                needed[d] = 1;
            }
        }
        if (here(wl.dst)) // its dependents are started here, or their senders told
        {
            for (uint32_t x : all.GetDependents(w))
            {
                needed[x] = 1;
            }
        }
    }
    std::vector<uint32_t> ids;
    for (uint32_t w = 0; w < all.GetN(); ++w)
    {
        if (needed[w])
        {
            ids.push_back(w);
        }
    }
    return ids;
}

void
DistributedDriver::Adopt(const WorkloadSet& workloads, std::vector<uint32_t> kept)
{
    if (kept.empty())
    {
        NS_ABORT_MSG_IF(workloads.GetN() != m_roundOf.size(),
                        "DistributedDriver::Adopt: a set of another size than Setup's");
        m_workloads = &workloads;
        return;
    }
    NS_ABORT_MSG_IF(workloads.GetN() != kept.size(),
                    "DistributedDriver::Adopt: " << workloads.GetN() << " workloads, "
                                                 << kept.size() << " ids");
    std::vector<uint32_t> roundOf(kept.size());
    std::vector<uint32_t> position(kept.size());
    std::vector<uint32_t> depsLeft(kept.size());
    for (uint32_t i = 0; i < kept.size(); ++i)
    {
        roundOf[i] = m_roundOf[kept[i]];
        position[i] = m_position[kept[i]];
        depsLeft[i] = m_depsLeft[kept[i]];
    }
    KeepInRounds(m_rounds, kept); // a round may be empty here: it still counts
    m_roundOf = std::move(roundOf);
    m_position = std::move(position);
    m_depsLeft = std::move(depsLeft);
    m_kept = std::move(kept);
    m_workloads = &workloads;
}

const std::vector<uint32_t>&
DistributedDriver::GetKept() const
{
    return m_kept;
}

uint32_t
DistributedDriver::GetSetupId(uint32_t workload) const
{
    return m_kept.empty() || workload >= m_kept.size() ? workload : m_kept[workload];
}

uint32_t
DistributedDriver::FindWorkload(uint64_t id) const
{
    if (m_kept.empty())
    {
        return static_cast<uint32_t>(id); // the whole set (or none yet): ids are the same
    }
    const auto it = std::lower_bound(m_kept.begin(), m_kept.end(), id);
    return it != m_kept.end() && *it == id ? static_cast<uint32_t>(it - m_kept.begin()) : NO_INDEX;
}

uint32_t
DistributedDriver::FromSetup(uint64_t id) const
{
    const uint32_t workload = FindWorkload(id);
    NS_ABORT_MSG_IF(workload == NO_INDEX || workload >= m_roundOf.size(),
                    "a notice names workload " << id << ", which this rank does not hold");
    return workload;
}

void
DistributedDriver::CountReceptions(const WorkloadSet& workloads)
{
    std::vector<uint64_t> keys(workloads.GetN()); // (receiver, round) of every workload
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        keys[w] = Key(workloads.Get(w).dst, m_roundOf[w]);
    }
    std::sort(keys.begin(), keys.end());
    m_receivers.assign(m_rounds.size(), 0);
    m_roundLeft.clear();
    for (size_t i = 0; i < keys.size();)
    {
        size_t j = i;
        while (j < keys.size() && keys[j] == keys[i])
        {
            ++j;
        }
        const auto node = static_cast<uint32_t>(keys[i] >> 32);
        ++m_receivers[static_cast<uint32_t>(keys[i])];
        if (m_local[node])
        {
            m_roundLeft.emplace_back(keys[i], static_cast<uint32_t>(j - i));
        }
        i = j;
    }
    m_roundLeft.shrink_to_fit();
}

uint32_t&
DistributedDriver::RoundLeft(uint32_t node, uint32_t round)
{
    const uint64_t key = Key(node, round);
    const auto it = std::lower_bound(m_roundLeft.begin(),
                                     m_roundLeft.end(),
                                     key,
                                     [](const auto& entry, uint64_t k) { return entry.first < k; });
    NS_ABORT_MSG_IF(it == m_roundLeft.end() || it->first != key,
                    "node " << node << " of this rank receives nothing in round " << round);
    return it->second;
}

DistributedDriver::Actions
DistributedDriver::Begin(const std::vector<bool>& late)
{
    Actions actions;
    m_late = late;
    m_late.resize(m_local.size(), false);
    m_heldRounds.assign(m_local.size(), {});
    for (uint32_t w = 0; !m_barrier && w < m_depsLeft.size(); ++w)
    {
        m_depsLeft[w] += m_late[m_workloads->Get(w).src] ? 1 : 0;
    }
    if (m_barrier)
    {
        // Every node knows when the run starts: round 0 needs no message.
        for (uint32_t node : m_localEndpoints)
        {
            StartRound(node, 0, actions);
        }
    }
    else
    {
        for (uint32_t w = 0; w < m_depsLeft.size(); ++w)
        {
            if (m_depsLeft[w] == 0 && m_local[m_workloads->Get(w).src])
            {
                actions.start.push_back(w);
            }
        }
    }
    if (m_endpoints.empty() && m_local[m_coordinator]) // nothing to send at all
    {
        actions.ended.push_back(m_coordinator);
    }
    SortByPlan(actions);
    return actions;
}

DistributedDriver::Actions
DistributedDriver::GradientReady(uint32_t node)
{
    Actions actions;
    if (node >= m_late.size() || !m_late[node])
    {
        return actions;
    }
    m_late[node] = false;
    if (m_barrier)
    {
        for (uint32_t round : m_heldRounds[node])
        {
            StartRound(node, round, actions);
        }
        m_heldRounds[node].clear();
    }
    else
    {
        for (uint32_t w = 0; w < m_depsLeft.size(); ++w)
        {
            if (m_workloads->Get(w).src == node && --m_depsLeft[w] == 0)
            {
                actions.start.push_back(w);
            }
        }
    }
    SortByPlan(actions);
    return actions;
}

DistributedDriver::Actions
DistributedDriver::Finished(uint32_t workload)
{
    Actions actions;
    const Workload& w = m_workloads->Get(workload);
    const uint32_t node = w.dst;
    ++m_localArrived;
    if (!m_barrier)
    {
        // Dependents sent from here go when ready; their other senders hear of it.
        std::set<uint32_t> told;
        for (uint32_t x : m_workloads->GetDependents(workload))
        {
            const uint32_t sender = m_workloads->Get(x).src;
            if (sender == node)
            {
                if (--m_depsLeft[x] == 0)
                {
                    actions.start.push_back(x);
                }
            }
            else if (told.insert(sender).second)
            {
                Send(node,
                     sender,
                     DistributedNotice::DEPENDENCY_DONE,
                     GetSetupId(workload),
                     actions);
            }
        }
    }
    const uint32_t round = m_roundOf[workload];
    if (--RoundLeft(node, round) == 0 && m_barrier)
    {
        Send(node, m_coordinator, DistributedNotice::ROUND_DONE, round, actions);
    }
    if (--m_nodeLeft[node] == 0 && !m_barrier)
    {
        Send(node, m_coordinator, DistributedNotice::NODE_DONE, 0, actions);
    }
    SortByPlan(actions);
    return actions;
}

DistributedDriver::Actions
DistributedDriver::Receive(uint32_t node, const DistributedNotice& notice)
{
    Actions actions;
    switch (notice.kind)
    {
    case DistributedNotice::DEPENDENCY_DONE:
        DependencyDone(node, FromSetup(notice.value), actions);
        break;
    case DistributedNotice::ROUND_GO:
        StartRound(node, static_cast<uint32_t>(notice.value), actions);
        break;
    case DistributedNotice::END:
        actions.ended.push_back(node);
        break;
    default:
        if (node == m_coordinator)
        {
            CoordinatorHeard(notice.kind, static_cast<uint32_t>(notice.value), actions);
        }
        break;
    }
    SortByPlan(actions);
    return actions;
}

void
DistributedDriver::Send(uint32_t from,
                        uint32_t to,
                        DistributedNotice::Kind kind,
                        uint32_t value,
                        Actions& actions)
{
    const DistributedNotice notice{kind, from, value};
    if (to != from)
    {
        actions.send.emplace_back(to, notice); // through the network, even on this rank
        return;
    }
    switch (kind) // the node tells itself: no message
    {
    case DistributedNotice::DEPENDENCY_DONE:
        DependencyDone(to, FromSetup(value), actions);
        break;
    case DistributedNotice::ROUND_GO:
        StartRound(to, value, actions);
        break;
    case DistributedNotice::END:
        actions.ended.push_back(to);
        break;
    default:
        CoordinatorHeard(kind, value, actions);
        break;
    }
}

void
DistributedDriver::DependencyDone(uint32_t node, uint32_t workload, Actions& actions)
{
    for (uint32_t x : m_workloads->GetDependents(workload))
    {
        if (m_workloads->Get(x).src == node && --m_depsLeft[x] == 0)
        {
            actions.start.push_back(x);
        }
    }
}

void
DistributedDriver::CoordinatorHeard(DistributedNotice::Kind kind,
                                    uint32_t round,
                                    Actions& actions)
{
    bool end = false;
    if (kind == DistributedNotice::ROUND_DONE && round < m_heard.size())
    {
        if (++m_heard[round] == m_receivers[round])
        {
            NS_LOG_INFO("round " << round << " done");
            if (round + 1 < m_rounds.size())
            {
                Go(round + 1, actions);
            }
            end = round + 1 == m_rounds.size();
        }
    }
    else if (kind == DistributedNotice::NODE_DONE)
    {
        end = ++m_nodesDone == m_receiverNodes;
    }
    for (uint32_t node : end ? m_endpoints : std::vector<uint32_t>{})
    {
        Send(m_coordinator, node, DistributedNotice::END, 0, actions);
    }
}

void
DistributedDriver::Go(uint32_t round, Actions& actions)
{
    for (uint32_t node : m_senders[round])
    {
        Send(m_coordinator, node, DistributedNotice::ROUND_GO, round, actions);
    }
}

void
DistributedDriver::StartRound(uint32_t node, uint32_t round, Actions& actions)
{
    if (round >= m_rounds.size())
    {
        return;
    }
    if (node < m_late.size() && m_late[node])
    {
        m_heldRounds[node].push_back(round); // started when its gradient is ready
        return;
    }
    for (uint32_t w : m_rounds[round])
    {
        if (m_workloads->Get(w).src == node)
        {
            actions.start.push_back(w);
        }
    }
}

std::vector<std::pair<uint32_t, uint32_t>>
DistributedDriver::GetNoticeChannels() const
{
    return m_channels;
}

const std::vector<uint32_t>&
DistributedDriver::GetLocalEndpoints() const
{
    return m_localEndpoints;
}

uint32_t
DistributedDriver::CountLocalReceptions() const
{
    return m_localReceptions;
}

bool
DistributedDriver::AreLocalReceptionsDone() const
{
    return m_localArrived == m_localReceptions;
}

} // namespace ns3
