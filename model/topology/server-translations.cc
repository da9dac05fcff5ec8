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

/// What a group's table is made of: per server its row of node images, and its representative.
struct Table
{
    std::vector<uint32_t> map; //!< row r: T_r of every node
    std::vector<uint32_t> rep; //!< per server, its orbit's representative
    std::string description;   //!< the group
};

/// BCube(n,k): add the servers' digits mod n; \return false when the sizes are not BCube's
bool
FillBCube(uint32_t servers, uint32_t nodes, uint64_t un, uint64_t k, Table& t)
{
    // Digit d of a server is (s / n^d) % n; a level-l switch's index is its servers' number
    // with digit l removed.
    const uint64_t levels = k + 1;
    uint64_t perLevel = 1;
    for (uint64_t i = 0; i < k; ++i)
    {
        perLevel *= un;
    }
    if (uint64_t{servers} != perLevel * un || nodes != servers + levels * perLevel)
    {
        return false;
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
    t.map.resize(uint64_t{servers} * nodes);
    t.rep.assign(servers, 0);
    for (uint32_t r = 0; r < servers; ++r)
    {
        uint32_t* row = &t.map[uint64_t{r} * nodes];
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
    t.description = "Z_" + std::to_string(un) + "^" + std::to_string(levels) +
                    " (BCube digits added)";
    return true;
}

/**
 * Arithmetic on q cell labels 0..q-1: the field GF(q) when q is a prime power (labels are the
 * coefficients of polynomials over GF(p), base p, multiplied modulo an irreducible polynomial
 * found by trial), else only the additive group Z_q.
 */
struct CellArithmetic
{
    uint64_t q{0};              //!< labels
    bool field{false};          //!< true when mul makes a field
    std::vector<uint32_t> sum;  //!< q x q: a + b
    std::vector<uint32_t> prod; //!< q x q: a b (field only)

    /// \return a + b
    uint64_t Add(uint64_t a, uint64_t b) const
    {
        return sum[a * q + b];
    }

    /// \return a - b
    uint64_t Sub(uint64_t a, uint64_t b) const
    {
        for (uint64_t d = 0; d < q; ++d)
        {
            if (Add(b, d) == a)
            {
                return d;
            }
        }
        return 0; // not reached: the labels form a group under Add
    }

    /// \return a b (field only)
    uint64_t Mul(uint64_t a, uint64_t b) const
    {
        return prod[a * q + b];
    }
};

/// \return the arithmetic of q cell labels (q >= 2)
CellArithmetic
MakeCellArithmetic(uint64_t q)
{
    CellArithmetic c;
    c.q = q;
    uint64_t p = 2;
    while (q % p != 0)
    {
        ++p;
    }
    uint64_t m = 0;
    uint64_t power = 1;
    while (power < q)
    {
        power *= p;
        ++m;
    }
    const bool primePower = power == q;
    // Digits base p: addition digit by digit; with one digit, the integers mod q.
    const auto digits = [p, m](uint64_t a) {
        std::vector<uint64_t> d(m);
        for (auto& x : d)
        {
            x = a % p;
            a /= p;
        }
        return d;
    };
    const auto number = [p](const std::vector<uint64_t>& d) {
        uint64_t a = 0;
        for (auto it = d.rbegin(); it != d.rend(); ++it)
        {
            a = a * p + *it;
        }
        return a;
    };
    c.sum.resize(q * q);
    for (uint64_t a = 0; a < q; ++a)
    {
        for (uint64_t b = 0; b < q; ++b)
        {
            if (!primePower)
            {
                c.sum[a * q + b] = static_cast<uint32_t>((a + b) % q);
                continue;
            }
            std::vector<uint64_t> da = digits(a);
            const std::vector<uint64_t> db = digits(b);
            for (uint64_t i = 0; i < m; ++i)
            {
                da[i] = (da[i] + db[i]) % p;
            }
            c.sum[a * q + b] = static_cast<uint32_t>(number(da));
        }
    }
    if (!primePower)
    {
        return c;
    }
    // x^m = -(f_0 + f_1 x + ... ): try every f until the product has no zero divisors.
    for (uint64_t f = 0; f < q && !c.field; ++f)
    {
        const std::vector<uint64_t> low = digits(f);
        c.prod.assign(q * q, 0);
        for (uint64_t a = 0; a < q; ++a)
        {
            for (uint64_t b = 0; b < q; ++b)
            {
                const std::vector<uint64_t> da = digits(a);
                const std::vector<uint64_t> db = digits(b);
                std::vector<uint64_t> r(2 * m, 0);
                for (uint64_t i = 0; i < m; ++i)
                {
                    for (uint64_t j = 0; j < m; ++j)
                    {
                        r[i + j] = (r[i + j] + da[i] * db[j]) % p;
                    }
                }
                for (uint64_t k = 2 * m - 1; k >= m; --k)
                {
                    for (uint64_t i = 0; i < m; ++i)
                    {
                        r[k - m + i] = (r[k - m + i] + (p - low[i]) * r[k]) % p;
                    }
                    r[k] = 0;
                }
                r.resize(m);
                c.prod[a * q + b] = static_cast<uint32_t>(number(r));
            }
        }
        c.field = true;
        for (uint64_t a = 1; a < q && c.field; ++a)
        {
            for (uint64_t b = 1; b < q && c.field; ++b)
            {
                c.field = c.prod[a * q + b] != 0;
            }
        }
    }
    return c;
}

/**
 * DCell(n,1): the affine maps y -> a y + b of the n+1 cells over the field GF(n+1) when n+1 is
 * a prime power (regular), else their rotations y -> y + b mod n+1 (n orbits);
 * \return false when the sizes are not DCell(n,1)'s
 */
bool
FillDCell(uint32_t servers, uint32_t nodes, uint64_t n, Table& t)
{
    // Server s is [c, x], c = s / n, linking cell c to cell m = x + 1 (x >= c) or x.
    const uint64_t q = n + 1;
    if (uint64_t{servers} != q * n || nodes != servers + q)
    {
        return false;
    }
    const CellArithmetic cells = MakeCellArithmetic(q);
    const auto server = [n](uint64_t c, uint64_t m) {
        return static_cast<uint32_t>(c * n + (m > c ? m - 1 : m));
    };
    t.map.resize(uint64_t{servers} * nodes);
    t.rep.resize(servers);
    for (uint32_t r = 0; r < servers; ++r)
    {
        // T_r: y -> a y + b with [b, a + b] = r's cells (server 0 links cell 0 to cell 1); a
        // rotation (a = 1) takes [0, m - c] to r = [c, m].
        const uint64_t cr = r / n;
        const uint64_t xr = r % n;
        const uint64_t mr = xr >= cr ? xr + 1 : xr;
        const uint64_t b = cr;
        const uint64_t a = cells.Sub(mr, cr);
        t.rep[r] = cells.field ? 0 : server(0, a);
        const auto g = [&cells, a, b](uint64_t y) {
            return cells.Add(cells.field ? cells.Mul(a, y) : y, b);
        };
        uint32_t* row = &t.map[uint64_t{r} * nodes];
        for (uint32_t s = 0; s < servers; ++s)
        {
            const uint64_t c = s / n;
            const uint64_t x = s % n;
            const uint64_t m = x >= c ? x + 1 : x;
            row[s] = server(g(c), g(m));
        }
        for (uint64_t c = 0; c < q; ++c)
        {
            row[servers + c] = static_cast<uint32_t>(servers + g(c));
        }
    }
    t.description = cells.field
                        ? "AGL(1," + std::to_string(q) + ") (affine maps of the DCell cells)"
                        : "Z_" + std::to_string(q) + " (rotations of the DCell cells, " +
                              std::to_string(n) + " orbits)";
    return true;
}

/**
 * FatTree(k): the rotations of the pods (pod p to p + b mod k, each pod's servers, edge and
 * aggregation switches in order, the core switches kept), k^2/4 orbits of k servers;
 * \return false when the sizes are not FatTree(k)'s
 */
bool
FillFatTree(uint32_t servers, uint32_t nodes, uint64_t k, Table& t)
{
    const uint64_t half = k / 2;
    const uint64_t perPod = half * half;
    if (k < 2 || k % 2 != 0 || uint64_t{servers} != k * perPod ||
        nodes != servers + 2 * k * half + perPod)
    {
        return false;
    }
    const uint64_t edgeBase = servers;
    const uint64_t aggBase = edgeBase + k * half;
    const uint64_t coreBase = aggBase + k * half;
    t.map.resize(uint64_t{servers} * nodes);
    t.rep.resize(servers);
    for (uint32_t r = 0; r < servers; ++r)
    {
        const uint64_t b = r / perPod;
        t.rep[r] = static_cast<uint32_t>(r % perPod);
        uint32_t* row = &t.map[uint64_t{r} * nodes];
        // A block of `size` nodes per pod, starting at `base`, moved b pods on.
        const auto rotate = [&row, b, k](uint64_t base, uint64_t size) {
            for (uint64_t v = 0; v < k * size; ++v)
            {
                const uint64_t pod = (v / size + b) % k;
                row[base + v] = static_cast<uint32_t>(base + pod * size + v % size);
            }
        };
        rotate(0, perPod);
        rotate(edgeBase, half);
        rotate(aggBase, half);
        for (uint64_t c = coreBase; c < nodes; ++c)
        {
            row[c] = static_cast<uint32_t>(c);
        }
    }
    t.description = "Z_" + std::to_string(k) + " (rotations of the fat-tree pods, " +
                    std::to_string(perPod) + " orbits)";
    return true;
}

} // namespace

ServerTranslations
ServerTranslations::Find(const Topology& topology)
{
    const uint32_t servers = topology.GetNServers();
    const uint32_t nodes = topology.GetNNodes();
    if (servers < 2 || uint64_t{servers} * nodes > MAX_ENTRIES || topology.CountAggregators() > 0)
    {
        return ServerTranslations(); // symmetric decoding does not hold aggregation's slots
    }
    const std::string& name = topology.GetName();
    long n = 0;
    long k = 0;
    char end = 0;
    Table table;
    const bool parsed = std::sscanf(name.c_str(), "%*[a-z](n=%ld,k=%ld%c", &n, &k, &end) == 3 &&
                        end == ')' && name.back() == ')' && n >= 2 && k >= 0;
    bool filled = false;
    if (parsed && name.rfind("bcube(", 0) == 0)
    {
        filled = FillBCube(servers, nodes, n, k, table);
    }
    else if (parsed && name.rfind("dcell(", 0) == 0 && k == 1)
    {
        filled = FillDCell(servers, nodes, n, table);
    }
    else if (std::sscanf(name.c_str(), "fattree(k=%ld%c", &k, &end) == 2 && end == ')' &&
             name.back() == ')' && k >= 2)
    {
        filled = FillFatTree(servers, nodes, k, table);
    }
    if (!filled)
    {
        return ServerTranslations();
    }
    ServerTranslations t;
    t.m_servers = servers;
    t.m_nodes = nodes;
    t.m_map = std::move(table.map);
    t.m_rep = std::move(table.rep);
    t.m_description = std::move(table.description);
    if (!t.Check(topology) || !t.CountOrbits())
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
        if (m_rep[r] > r || m_rep[m_rep[r]] != m_rep[r] || row[m_rep[r]] != r)
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
ServerTranslations::CountOrbits()
{
    // Every orbit as large as the group: its representative's row is the identity on servers
    // and the others' rows move every server (a free action), one row per orbit member.
    std::vector<uint32_t> size(m_servers, 0);
    for (uint32_t r = 0; r < m_servers; ++r)
    {
        ++size[m_rep[r]];
    }
    m_orbits = 0;
    for (uint32_t r = 0; r < m_servers; ++r)
    {
        if (m_rep[r] == r)
        {
            ++m_orbits;
        }
    }
    if (m_orbits == 0 || m_servers % m_orbits != 0)
    {
        return false;
    }
    const uint32_t group = m_servers / m_orbits;
    for (uint32_t r = 0; r < m_servers; ++r)
    {
        const uint32_t* row = &m_map[uint64_t{r} * m_nodes];
        if (m_rep[r] == r && size[r] != group)
        {
            return false;
        }
        for (uint32_t s = 0; s < m_servers; ++s)
        {
            if ((row[s] == s) != (m_rep[r] == r))
            {
                return false; // the identity fixes all, any other map none
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
ServerTranslations::GetNOrbits() const
{
    return m_orbits;
}

uint32_t
ServerTranslations::GetOrbitSize() const
{
    return m_orbits == 0 ? 0 : m_servers / m_orbits;
}

uint32_t
ServerTranslations::GetRepresentative(uint32_t r) const
{
    return m_rep[r];
}

std::vector<uint32_t>
ServerTranslations::GetRepresentatives() const
{
    std::vector<uint32_t> reps;
    for (uint32_t r = 0; r < m_servers; ++r)
    {
        if (m_rep[r] == r)
        {
            reps.push_back(r);
        }
    }
    return reps;
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
