/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "server-translations.h"

#include "ns3/log.h"

#include <cstdio>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ServerTranslations");

namespace
{

/// The most table entries (servers x nodes) kept: 256 MB.
constexpr uint64_t MAX_ENTRIES = 64ULL << 20;

bool
IsPrime(uint64_t p)
{
    if (p < 2)
    {
        return false;
    }
    for (uint64_t d = 2; d * d <= p; ++d)
    {
        if (p % d == 0)
        {
            return false;
        }
    }
    return true;
}

} // namespace

ServerTranslations
ServerTranslations::Find(const Topology& topology)
{
    ServerTranslations t;
    const uint32_t servers = topology.GetNServers();
    const uint32_t nodes = topology.GetNNodes();
    if (servers < 2 || uint64_t{servers} * nodes > MAX_ENTRIES)
    {
        return t;
    }
    const std::string& name = topology.GetName();
    long n = 0;
    long k = 0;
    char end = 0;
    t.m_servers = servers;
    t.m_nodes = nodes;
    if (std::sscanf(name.c_str(), "bcube(n=%ld,k=%ld%c", &n, &k, &end) == 3 && end == ')' &&
        name.back() == ')')
    {
        // Digit d of a server is (s / n^d) % n; a level-l switch's index is its servers' number
        // with digit l removed.
        const uint64_t un = n;
        const uint64_t levels = k + 1;
        uint64_t perLevel = 1;
        for (long i = 0; i < k; ++i)
        {
            perLevel *= un;
        }
        if (uint64_t{servers} != perLevel * un || nodes != servers + levels * perLevel)
        {
            return ServerTranslations();
        }
        const auto add = [un, levels](uint64_t a, uint64_t b) {
            uint64_t sum = 0;
            uint64_t weight = 1;
            for (uint64_t d = 0; d < levels; ++d, weight *= un)
            {
                sum += ((a / weight + b / weight) % un) * weight;
            }
            return sum;
        };
        t.m_map.resize(uint64_t{servers} * nodes);
        for (uint32_t r = 0; r < servers; ++r)
        {
            uint32_t* row = &t.m_map[uint64_t{r} * nodes];
            for (uint32_t s = 0; s < servers; ++s)
            {
                row[s] = static_cast<uint32_t>(add(s, r));
            }
            uint64_t weight = 1;
            for (uint64_t l = 0; l < levels; ++l, weight *= un)
            {
                for (uint64_t index = 0; index < perLevel; ++index)
                {
                    // A server of that switch (digit l = 0), moved, gives the switch moved.
                    const uint64_t s = (index / weight) * weight * un + index % weight;
                    const uint64_t moved = add(s, r);
                    const uint64_t movedIndex = (moved / (weight * un)) * weight + moved % weight;
                    row[servers + l * perLevel + index] =
                        static_cast<uint32_t>(servers + l * perLevel + movedIndex);
                }
            }
        }
        t.m_description = "Z_" + std::to_string(n) + "^" + std::to_string(levels) +
                          " (BCube digits added)";
    }
    else if (std::sscanf(name.c_str(), "dcell(n=%ld,k=%ld%c", &n, &k, &end) == 3 && end == ')' &&
             k == 1 && name.back() == ')' && IsPrime(n + 1))
    {
        // Server s is [c, x], c = s / n, linking cell c to cell m = x + 1 (x >= c) or x.
        const uint64_t p = n + 1;
        if (uint64_t{servers} != p * n || nodes != servers + p)
        {
            return ServerTranslations();
        }
        const auto server = [n](uint64_t c, uint64_t m) {
            return static_cast<uint32_t>(c * n + (m > c ? m - 1 : m));
        };
        t.m_map.resize(uint64_t{servers} * nodes);
        for (uint32_t r = 0; r < servers; ++r)
        {
            // T_r: y -> a y + b with [b, a + b] = r's cells (server 0 links cell 0 to cell 1).
            const uint64_t cr = r / n;
            const uint64_t xr = r % n;
            const uint64_t mr = xr >= cr ? xr + 1 : xr;
            const uint64_t b = cr;
            const uint64_t a = (mr + p - cr) % p;
            const auto g = [a, b, p](uint64_t y) { return (a * y + b) % p; };
            uint32_t* row = &t.m_map[uint64_t{r} * nodes];
            for (uint32_t s = 0; s < servers; ++s)
            {
                const uint64_t c = s / n;
                const uint64_t x = s % n;
                const uint64_t m = x >= c ? x + 1 : x;
                row[s] = server(g(c), g(m));
            }
            for (uint64_t c = 0; c < p; ++c)
            {
                row[servers + c] = static_cast<uint32_t>(servers + g(c));
            }
        }
        t.m_description = "AGL(1," + std::to_string(p) + ") (affine maps of the DCell cells)";
    }
    else
    {
        return ServerTranslations();
    }
    if (!t.Check(topology))
    {
        NS_LOG_INFO("translations of " << name << " do not hold on this topology");
        return ServerTranslations();
    }
    return t;
}

bool
ServerTranslations::Check(const Topology& topology) const
{
    for (uint32_t r = 0; r < m_servers; ++r)
    {
        const uint32_t* row = &m_map[uint64_t{r} * m_nodes];
        if (row[0] != r)
        {
            return false;
        }
        std::vector<uint8_t> seen(m_nodes, 0);
        for (uint32_t v = 0; v < m_nodes; ++v)
        {
            if (row[v] >= m_nodes || seen[row[v]] || topology.GetKind(row[v]) != topology.GetKind(v) ||
                topology.IsAggregator(row[v]) != topology.IsAggregator(v) ||
                topology.GetAggregatorSlots(row[v]) != topology.GetAggregatorSlots(v))
            {
                return false;
            }
            seen[row[v]] = 1;
        }
        for (uint32_t i = 0; i < topology.GetNLinks(); ++i)
        {
            const TopologyLink& l = topology.GetLink(i);
            const int64_t j = topology.FindLink(row[l.a], row[l.b]);
            if (j < 0)
            {
                return false;
            }
            const LinkProperties& a = topology.GetLinkProperties(i);
            const LinkProperties& b = topology.GetLinkProperties(static_cast<uint32_t>(j));
            if (a.rateBps != b.rateBps || a.rateFactor != b.rateFactor || a.delayNs != b.delayNs)
            {
                return false;
            }
        }
        // The group law: T_r after T_s is T_(T_r(s)), checked on three servers (all of them
        // would cost servers^3; the tests check every one on small topologies).
        for (uint32_t s = 0; s < m_servers; ++s)
        {
            const uint32_t* sRow = &m_map[uint64_t{s} * m_nodes];
            const uint32_t* rsRow = &m_map[uint64_t{row[s]} * m_nodes];
            for (uint32_t v : {0u, 1u, m_servers - 1})
            {
                if (row[sRow[v]] != rsRow[v])
                {
                    return false;
                }
            }
        }
    }
    return true;
}

bool
ServerTranslations::IsEmpty() const
{
    return m_map.empty();
}

uint32_t
ServerTranslations::GetNServers() const
{
    return m_servers;
}

uint32_t
ServerTranslations::Map(uint32_t r, uint32_t node) const
{
    return m_map[uint64_t{r} * m_nodes + node];
}

const std::string&
ServerTranslations::GetDescription() const
{
    return m_description;
}

} // namespace ns3
