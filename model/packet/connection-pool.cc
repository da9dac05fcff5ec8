/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "connection-pool.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

void
ConnectionPool::Reset(const WorkloadSet& workloads,
                      uint32_t nodes,
                      uint16_t firstPort,
                      bool perTransfer)
{
    // Per transfer, every workload has a port of its own; persistent connections take theirs
    // as they open, never more than the workloads their server sends.
    std::vector<uint16_t> sourcePort(workloads.GetN(), 0);
    if (perTransfer)
    {
        std::vector<uint32_t> nextPort(nodes, firstPort);
        for (uint32_t id = 0; id < workloads.GetN(); ++id)
        {
            const uint32_t src = workloads.Get(id).src;
            if (nextPort[src] > std::numeric_limits<uint16_t>::max())
            {
                throw std::invalid_argument(
                    workloads.GetTopology().GetNodeName(src) + " sends more than " +
                    std::to_string(65536 - firstPort) +
                    " workloads, one port each; use fewer pieces, a smaller topology or "
                    "persistent connections");
            }
            sourcePort[id] = static_cast<uint16_t>(nextPort[src]++);
        }
    }
    m_nextPort.assign(nodes, firstPort);
    m_open.clear();
    m_openBetween.clear();
    m_connectionOf.assign(workloads.GetN(), NO_INDEX);
    m_sourcePort = std::move(sourcePort);
}

ConnectionPool::Pick
ConnectionPool::Take(const Workload& w, Callback<bool, uint16_t> timedOut)
{
    std::vector<uint32_t>& between = m_openBetween[{w.src, w.dst}];
    Pick pick;
    pick.connection = NO_INDEX;
    for (uint32_t c : between)
    {
        // A connection that went through a retransmission timeout carries a one-segment
        // window and a backed-off timer: it finishes what it carries, later transfers go on
        // another.
        if (!m_open[c].retired && timedOut(m_open[c].port))
        {
            m_open[c].retired = true;
        }
        if (m_open[c].retired)
        {
            continue;
        }
        if (m_open[c].path == w.path)
        {
            pick.connection = c; // on the workload's path already: the usual case
            break;
        }
        if (m_open[c].inFlight == 0 && pick.connection == NO_INDEX)
        {
            pick.connection = c; // idle: it can take another path
        }
    }
    if (pick.connection == NO_INDEX)
    {
        if (!HasFreePort(w.src))
        {
            return pick;
        }
        pick.connection = static_cast<uint32_t>(m_open.size());
        pick.opened = true;
        m_open.push_back(Connection{static_cast<uint16_t>(m_nextPort[w.src]++), {}, 0});
        between.push_back(pick.connection);
    }
    Connection& c = m_open[pick.connection];
    ++c.inFlight;
    m_connectionOf[w.id] = pick.connection;
    m_sourcePort[w.id] = c.port;
    pick.pathChanged = c.path != w.path;
    c.path = w.path.ToVector();
    pick.picked = true;
    return pick;
}

void
ConnectionPool::Finish(uint32_t workload)
{
    if (m_connectionOf[workload] != NO_INDEX)
    {
        --m_open[m_connectionOf[workload]].inFlight;
    }
}

void
ConnectionPool::Move(uint32_t workload, const std::vector<uint32_t>& path)
{
    // All in flight on one connection share its path, so they all move the same way.
    if (m_connectionOf[workload] != NO_INDEX)
    {
        m_open[m_connectionOf[workload]].path = path;
    }
}

void
ConnectionPool::RetireOver(const Topology& topo, uint32_t link)
{
    // A connection over the link may be left with segments TCP retransmits with backed-off
    // timeouts: it finishes the transfers it carries (routed around online), then rests.
    for (Connection& c : m_open)
    {
        for (size_t i = 0; !c.retired && i + 1 < c.path.size(); ++i)
        {
            c.retired = topo.FindLink(c.path[i], c.path[i + 1]) == int64_t{link};
        }
    }
}

void
ConnectionPool::Retire(uint32_t node, uint16_t port)
{
    for (const auto& [ends, connections] : m_openBetween)
    {
        for (uint32_t c : connections)
        {
            if (ends.first == node && m_open[c].port == port)
            {
                m_open[c].retired = true;
            }
        }
    }
}

uint16_t
ConnectionPool::GetSourcePort(uint32_t workload) const
{
    return m_sourcePort.at(workload);
}

bool
ConnectionPool::HasFreePort(uint32_t node) const
{
    return m_nextPort[node] <= std::numeric_limits<uint16_t>::max();
}

uint16_t
ConnectionPool::GetPort(uint32_t connection) const
{
    return m_open.at(connection).port;
}

} // namespace ns3
