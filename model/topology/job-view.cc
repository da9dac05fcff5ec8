/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-view.h"

#include <stdexcept>
#include <string>

namespace ns3
{

JobView::JobView(const Topology& cluster, std::vector<uint32_t> members)
    : m_members(std::move(members))
{
    const uint32_t nodes = cluster.GetNNodes();
    if (cluster.CountAggregators() > 0)
    {
        throw std::invalid_argument(
            "'" + cluster.GetName() + "' has aggregating switches; how several jobs share their "
            "slots is not modelled yet, so jobs run on clusters without ina= for now");
    }
    if (m_members.empty())
    {
        throw std::invalid_argument("a job needs at least one server; its placement is empty");
    }
    m_toView.assign(nodes, NO_INDEX);
    m_toCluster.reserve(nodes);
    for (uint32_t s : m_members)
    {
        if (s >= cluster.GetNServers())
        {
            throw std::invalid_argument("server " + std::to_string(s) + " (of --ranks, or of a "
                                        "job's placement) is not a server of '" +
                                        cluster.GetName() + "' (servers are 0.." +
                                        std::to_string(cluster.GetNServers() - 1) + ")");
        }
        if (m_toView[s] != NO_INDEX)
        {
            throw std::invalid_argument("a job's placement gives server " + std::to_string(s) +
                                        " twice");
        }
        m_toView[s] = static_cast<uint32_t>(m_toCluster.size());
        m_toCluster.push_back(s);
    }
    // The other servers, then the switches, in cluster order.
    for (uint32_t node = 0; node < nodes; ++node)
    {
        if (m_toView[node] == NO_INDEX)
        {
            m_toView[node] = static_cast<uint32_t>(m_toCluster.size());
            m_toCluster.push_back(node);
        }
    }
    const auto m = static_cast<uint32_t>(m_members.size());
    m_view = Topology(cluster.GetName() + " job of " + std::to_string(m) +
                          (m == 1 ? " server" : " servers"),
                      m,
                      nodes - m);
    for (uint32_t i = 0; i < cluster.GetNLinks(); ++i)
    {
        const TopologyLink& link = cluster.GetLink(i);
        m_view.AddLink(m_toView[link.a], m_toView[link.b]);
        m_view.SetLinkProperties(i, cluster.GetLinkProperties(i));
    }
}

const Topology&
JobView::GetTopology() const
{
    return m_view;
}

const std::vector<uint32_t>&
JobView::GetMembers() const
{
    return m_members;
}

uint32_t
JobView::ToCluster(uint32_t node) const
{
    return m_toCluster.at(node);
}

uint32_t
JobView::ToView(uint32_t node) const
{
    return m_toView.at(node);
}

std::vector<uint32_t>
JobView::ToCluster(const std::vector<uint32_t>& path) const
{
    std::vector<uint32_t> out;
    out.reserve(path.size());
    for (uint32_t node : path)
    {
        out.push_back(ToCluster(node));
    }
    return out;
}

} // namespace ns3
