/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-partition.h"

#include "ns3/log.h"

#include <metis.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopologyPartition");

namespace
{

/// \return n^e, or 0 past 2^32
uint64_t
Power(uint64_t n, uint64_t e)
{
    uint64_t p = 1;
    for (uint64_t i = 0; i < e; ++i)
    {
        p *= n;
        if (p > UINT32_MAX)
        {
            return 0;
        }
    }
    return p;
}

/**
 * \param topology a topology
 * \return its groups' size in servers and their count, from its name and checked against its
 *         servers; {0, 0} when it has no natural groups
 */
std::pair<uint64_t, uint64_t>
GroupShape(const Topology& topology)
{
    // The name's prefix, e.g. "bcube(n=3,k=1)" (options such as ",ina=all" may follow).
    // sscanf rather than std::regex: std::regex's templates, instantiated here, would be
    // shared with other libraries' (ns-3's topology-read) at load time.
    const char* name = topology.GetName().c_str();
    unsigned long long a = 0;
    unsigned long long b = 0;
    int used = 0;
    uint64_t size = 0;
    uint64_t servers = 0;
    if (std::sscanf(name, "fattree(k=%llu)%n", &a, &used) == 1 && used > 0 && a <= 4096)
    {
        size = a * a / 4;
        servers = a * size;
    }
    else if (std::sscanf(name, "bcube(n=%llu,k=%llu)%n", &a, &b, &used) == 2 && used > 0)
    {
        size = Power(a, b);
        servers = size * a;
    }
    else if (std::sscanf(name, "dcell(n=%llu,k=%llu)%n", &a, &b, &used) == 2 && used > 0)
    {
        size = a; // servers in a DCell_0, then t_l = t_{l-1} (t_{l-1} + 1)
        for (uint64_t l = 1; l < b && size <= UINT32_MAX; ++l)
        {
            size *= size + 1;
        }
        servers = b == 0 ? a : size * (size + 1);
    }
    if (size == 0 || servers != topology.GetNServers() || servers == size)
    {
        return {0, 0};
    }
    return {size, servers / size};
}

/// Per server, its rank: whole groups spread in order over the ranks.
std::vector<uint32_t>
PlaceGroups(const std::vector<uint32_t>& group, uint32_t groups, uint32_t ranks)
{
    std::vector<uint32_t> rank(group.size());
    for (uint32_t s = 0; s < group.size(); ++s)
    {
        rank[s] = static_cast<uint32_t>(uint64_t{group[s]} * ranks / groups);
    }
    return rank;
}

/**
 * Places every switch, nearest the servers first, on the rank of most of its neighbours
 * placed before it; ties to the rank with the fewest nodes so far, then the lowest.
 */
void
PlaceSwitches(const Topology& topology, uint32_t ranks, std::vector<uint32_t>& rank)
{
    const uint32_t nodes = topology.GetNNodes();
    std::vector<uint32_t> hops(nodes, UINT32_MAX);
    std::vector<uint32_t> order;
    for (uint32_t s = 0; s < topology.GetNServers(); ++s)
    {
        hops[s] = 0;
        order.push_back(s);
    }
    for (size_t i = 0; i < order.size(); ++i) // breadth first from every server
    {
        for (uint32_t next : topology.GetNeighbors(order[i]))
        {
            if (hops[next] == UINT32_MAX)
            {
                hops[next] = hops[order[i]] + 1;
                order.push_back(next);
            }
        }
    }
    std::vector<uint32_t> load(ranks, 0);
    for (uint32_t s = 0; s < topology.GetNServers(); ++s)
    {
        ++load[rank[s]];
    }
    const uint32_t unplaced = UINT32_MAX;
    rank.resize(nodes, unplaced);
    for (uint32_t node : order)
    {
        if (topology.IsServer(node))
        {
            continue;
        }
        std::vector<uint32_t> votes(ranks, 0);
        for (uint32_t peer : topology.GetNeighbors(node))
        {
            if (rank[peer] != unplaced)
            {
                ++votes[rank[peer]];
            }
        }
        uint32_t best = 0;
        for (uint32_t r = 1; r < ranks; ++r)
        {
            if (votes[r] > votes[best] || (votes[r] == votes[best] && load[r] < load[best]))
            {
                best = r;
            }
        }
        rank[node] = best;
        ++load[best];
    }
    for (uint32_t node = 0; node < nodes; ++node) // not connected to any server
    {
        if (rank[node] == unplaced)
        {
            rank[node] = static_cast<uint32_t>(
                std::min_element(load.begin(), load.end()) - load.begin());
            ++load[rank[node]];
        }
    }
}

/// METIS k-way on the topology's graph: nodes weighted by ports, parallel links merged.
std::vector<uint32_t>
RunMetis(const Topology& topology, uint32_t ranks, uint32_t seed)
{
    const uint32_t nodes = topology.GetNNodes();
    std::vector<idx_t> xadj{0};
    std::vector<idx_t> adjncy;
    std::vector<idx_t> adjwgt;
    std::vector<idx_t> vwgt(nodes);
    for (uint32_t node = 0; node < nodes; ++node)
    {
        std::map<uint32_t, idx_t> peers;
        for (uint32_t peer : topology.GetNeighbors(node))
        {
            if (peer != node)
            {
                ++peers[peer];
            }
        }
        for (const auto& [peer, count] : peers)
        {
            adjncy.push_back(static_cast<idx_t>(peer));
            adjwgt.push_back(count);
        }
        xadj.push_back(static_cast<idx_t>(adjncy.size()));
        vwgt[node] = std::max<idx_t>(1, static_cast<idx_t>(topology.GetNPorts(node)));
    }
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed);
    options[METIS_OPTION_NUMBERING] = 0;
    idx_t nvtxs = static_cast<idx_t>(nodes);
    idx_t ncon = 1;
    idx_t nparts = static_cast<idx_t>(ranks);
    idx_t cut = 0;
    std::vector<idx_t> part(nodes, 0);
    const int status = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(),
                                           vwgt.data(), nullptr, adjwgt.data(), &nparts,
                                           nullptr, nullptr, options, &cut, part.data());
    if (status != METIS_OK)
    {
        throw std::invalid_argument("METIS could not partition " + topology.GetName() +
                                    " into " + std::to_string(ranks) + " ranks (status " +
                                    std::to_string(status) + ")");
    }
    return std::vector<uint32_t>(part.begin(), part.end());
}

} // namespace

std::vector<uint32_t>
TopologyPartition::GetServerGroups(const Topology& topology)
{
    const auto [size, count] = GroupShape(topology);
    std::vector<uint32_t> group;
    for (uint64_t s = 0; count != 0 && s < topology.GetNServers(); ++s)
    {
        group.push_back(static_cast<uint32_t>(s / size));
    }
    return group;
}

TopologyPartition
TopologyPartition::Make(const Topology& topology, uint32_t ranks, Method method, uint32_t seed)
{
    const uint32_t nodes = topology.GetNNodes();
    if (ranks == 0 || ranks > nodes)
    {
        throw std::invalid_argument(
            std::to_string(ranks) + " ranks for " + topology.GetName() + ", which has " +
            std::to_string(nodes) + " nodes: every rank needs a node of its own; run on 1 to " +
            std::to_string(nodes) + " ranks (mpirun -np N)");
    }
    const std::vector<uint32_t> groups = GetServerGroups(topology);
    const uint32_t nGroups = groups.empty() ? 0 : groups.back() + 1;
    if (method == GROUPS && nGroups < ranks)
    {
        throw std::invalid_argument(
            topology.GetName() +
            (nGroups == 0 ? std::string(" has no natural groups (pods or cells; fat-tree, BCube "
                                        "and DCell have them)")
                          : " has " + std::to_string(nGroups) + " natural groups (pods or "
                                "cells), fewer than the " + std::to_string(ranks) + " ranks") +
            "; partition it with METIS (--partition=metis), or use fewer ranks");
    }
    TopologyPartition p;
    p.m_ranks = ranks;
    if (ranks == 1)
    {
        p.m_method = method == METIS ? METIS : GROUPS;
        p.m_rank.assign(nodes, 0);
    }
    else if (method == METIS || nGroups < ranks)
    {
        p.m_method = METIS;
        p.m_rank = RunMetis(topology, ranks, seed);
    }
    else
    {
        p.m_method = GROUPS;
        p.m_rank = PlaceGroups(groups, nGroups, ranks);
        PlaceSwitches(topology, ranks, p.m_rank);
    }
    p.Complete(topology);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        if (p.m_nodes[r] == 0)
        {
            throw std::invalid_argument(
                "partitioning " + topology.GetName() + " into " + std::to_string(ranks) +
                " ranks (" + GetMethodName(p.m_method) + ") leaves rank " + std::to_string(r) +
                " without a node; use fewer ranks");
        }
    }
    NS_LOG_INFO(topology.GetName() << ": " << ranks << " ranks by " << GetMethodName(p.m_method)
                                   << ", " << p.m_cut.size() << " links cut");
    return p;
}

void
TopologyPartition::Complete(const Topology& topology)
{
    m_cut.clear();
    m_nodes.assign(m_ranks, 0);
    m_servers.assign(m_ranks, 0);
    for (uint32_t node = 0; node < m_rank.size(); ++node)
    {
        ++m_nodes[m_rank[node]];
        m_servers[m_rank[node]] += topology.IsServer(node) ? 1 : 0;
    }
    for (uint32_t i = 0; i < topology.GetNLinks(); ++i)
    {
        const TopologyLink& link = topology.GetLink(i);
        if (m_rank[link.a] != m_rank[link.b])
        {
            m_cut.push_back(i);
        }
    }
}

TopologyPartition::Method
TopologyPartition::ParseMethod(const std::string& text)
{
    for (Method m : {AUTO, GROUPS, METIS})
    {
        if (text == GetMethodName(m))
        {
            return m;
        }
    }
    throw std::invalid_argument("unknown partition method '" + text +
                                "'; give auto, groups or metis");
}

std::string
TopologyPartition::GetMethodName(Method method)
{
    switch (method)
    {
    case GROUPS:
        return "groups";
    case METIS:
        return "metis";
    default:
        return "auto";
    }
}

uint32_t
TopologyPartition::GetNRanks() const
{
    return m_ranks;
}

TopologyPartition::Method
TopologyPartition::GetMethod() const
{
    return m_method;
}

uint32_t
TopologyPartition::GetRank(uint32_t node) const
{
    return node < m_rank.size() ? m_rank[node] : 0;
}

const std::vector<uint32_t>&
TopologyPartition::GetRanks() const
{
    return m_rank;
}

const std::vector<uint32_t>&
TopologyPartition::GetCutLinks() const
{
    return m_cut;
}

uint32_t
TopologyPartition::CountNodes(uint32_t rank) const
{
    return rank < m_nodes.size() ? m_nodes[rank] : 0;
}

uint32_t
TopologyPartition::CountServers(uint32_t rank) const
{
    return rank < m_servers.size() ? m_servers[rank] : 0;
}

} // namespace ns3
