/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-generators.h"

#include "ns3/portable-random.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace ns3
{

namespace
{

/// \return a number as the user would write it: "0.5", "1e-07", not "0.000000"
std::string
ShortNumber(double value)
{
    std::ostringstream os;
    os << value;
    return os.str();
}

constexpr uint64_t SATURATED = std::numeric_limits<uint64_t>::max();

/// a * b, saturated at UINT64_MAX so that size checks can run before anything overflows.
uint64_t
SatMul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > SATURATED / a)
    {
        return SATURATED;
    }
    return a * b;
}

uint64_t
SatAdd(uint64_t a, uint64_t b)
{
    return (a > SATURATED - b) ? SATURATED : a + b;
}

uint64_t
SatPow(uint64_t base, uint64_t exp)
{
    uint64_t result = 1;
    for (uint64_t i = 0; i < exp && result != SATURATED; ++i)
    {
        result = SatMul(result, base);
    }
    return result;
}

void
RequireAtLeast(const std::string& kind,
               const std::string& param,
               int64_t value,
               int64_t min,
               const std::string& why = "")
{
    if (value < min)
    {
        throw std::invalid_argument(kind + " " + param + " must be >= " + std::to_string(min) +
                                    ", got " + std::to_string(value) + why);
    }
}

/// The switch-to-switch graph of a Jellyfish under construction.
class SwitchGraph
{
  public:
    SwitchGraph(uint32_t switches, uint32_t degree)
        : m_free(switches, degree)
    {
    }

    static uint64_t Key(uint32_t a, uint32_t b)
    {
        return a < b ? (uint64_t{a} << 32 | b) : (uint64_t{b} << 32 | a);
    }

    bool Adjacent(uint32_t a, uint32_t b) const
    {
        return m_edgeIndex.count(Key(a, b)) != 0;
    }

    void Add(uint32_t a, uint32_t b)
    {
        m_edgeIndex[Key(a, b)] = m_edges.size();
        m_edges.emplace_back(std::min(a, b), std::max(a, b));
        --m_free[a];
        --m_free[b];
    }

    void Remove(size_t index)
    {
        const auto [a, b] = m_edges[index];
        m_edgeIndex.erase(Key(a, b));
        if (index + 1 != m_edges.size())
        {
            m_edges[index] = m_edges.back();
            m_edgeIndex[Key(m_edges[index].first, m_edges[index].second)] = index;
        }
        m_edges.pop_back();
        ++m_free[a];
        ++m_free[b];
    }

    std::vector<uint32_t> SwitchesWithFreePorts() const
    {
        std::vector<uint32_t> result;
        for (uint32_t s = 0; s < m_free.size(); ++s)
        {
            if (m_free[s] > 0)
            {
                result.push_back(s);
            }
        }
        return result;
    }

    std::vector<uint32_t> m_free;                     //!< free switch ports per switch
    std::vector<std::pair<uint32_t, uint32_t>> m_edges; //!< links, a < b
    std::unordered_map<uint64_t, size_t> m_edgeIndex;   //!< pair key -> index in m_edges
};

/// Links random non-adjacent pairs of switches with free ports until no such pair is left.
void
LinkRandomPairs(SwitchGraph& g, std::mt19937_64& rng)
{
    // The switches with free ports, kept up to date as ports fill so no pick scans them all.
    std::vector<uint32_t> open = g.SwitchesWithFreePorts();
    auto link = [&g, &open](size_t i, size_t j) {
        g.Add(open[i], open[j]);
        // Drop full switches, the larger index first so that the smaller one stays valid.
        for (size_t k : {std::max(i, j), std::min(i, j)})
        {
            if (g.m_free[open[k]] == 0)
            {
                open[k] = open.back();
                open.pop_back();
            }
        }
    };
    while (open.size() >= 2)
    {
        // Random tries first; when they keep failing, look at every pair to know for sure.
        bool linked = false;
        for (size_t attempt = 0; attempt < 2 * open.size() + 16 && !linked; ++attempt)
        {
            const size_t i = UniformIndex(rng, open.size());
            const size_t j = UniformIndex(rng, open.size());
            if (i != j && !g.Adjacent(open[i], open[j]))
            {
                link(i, j);
                linked = true;
            }
        }
        if (linked)
        {
            continue;
        }
        std::vector<std::pair<size_t, size_t>> pairs;
        for (size_t i = 0; i < open.size(); ++i)
        {
            for (size_t j = i + 1; j < open.size(); ++j)
            {
                if (!g.Adjacent(open[i], open[j]))
                {
                    pairs.emplace_back(i, j);
                }
            }
        }
        if (pairs.empty())
        {
            return;
        }
        const auto [i, j] = pairs[UniformIndex(rng, pairs.size())];
        link(i, j);
    }
}

/// One step of the fix-up: frees a port pair by removing a random link. Returns false when
/// nothing more can be done.
bool
FixUpOnce(SwitchGraph& g, std::mt19937_64& rng)
{
    const auto open = g.SwitchesWithFreePorts();
    for (uint32_t s : open)
    {
        if (g.m_free[s] < 2)
        {
            continue;
        }
        // A switch with two free ports: remove (x, y) and link s-x and s-y.
        std::vector<size_t> candidates;
        for (size_t e = 0; e < g.m_edges.size(); ++e)
        {
            const auto [x, y] = g.m_edges[e];
            if (x != s && y != s && !g.Adjacent(s, x) && !g.Adjacent(s, y))
            {
                candidates.push_back(e);
            }
        }
        if (candidates.empty())
        {
            continue;
        }
        const size_t e = candidates[UniformIndex(rng, candidates.size())];
        const auto [x, y] = g.m_edges[e];
        g.Remove(e);
        g.Add(s, x);
        g.Add(s, y);
        return true;
    }
    if (open.size() >= 2)
    {
        // Switches with one free port each, all adjacent to one another: take the first two,
        // a and b, remove a link (x, y) and link a-x and b-y.
        const uint32_t a = open[0];
        const uint32_t b = open[1];
        std::vector<std::pair<size_t, bool>> candidates; // (edge, swap ends)
        for (size_t e = 0; e < g.m_edges.size(); ++e)
        {
            const auto [x, y] = g.m_edges[e];
            if (x == a || x == b || y == a || y == b)
            {
                continue;
            }
            if (!g.Adjacent(a, x) && !g.Adjacent(b, y))
            {
                candidates.emplace_back(e, false);
            }
            if (!g.Adjacent(a, y) && !g.Adjacent(b, x))
            {
                candidates.emplace_back(e, true);
            }
        }
        if (!candidates.empty())
        {
            const auto [e, swapEnds] = candidates[UniformIndex(rng, candidates.size())];
            auto [x, y] = g.m_edges[e];
            if (swapEnds)
            {
                std::swap(x, y);
            }
            g.Remove(e);
            g.Add(a, x);
            g.Add(b, y);
            return true;
        }
    }
    return false;
}

/// The keys every spec takes, after its kind's own: which links are slower (SlowDownLinks) and
/// which switches aggregate (ChooseAggregators).
const std::vector<std::string> LINK_OPTIONS{"slow", "slowrate", "slowseed",
                                            "ina",  "slots",    "inaseed"};
/// How they read in an error message.
const char* const LINK_OPTIONS_HELP =
    "; and on any kind slow=FRACTION[,slowrate=X][,slowseed=S] and "
    "ina=all|FRACTION[,slots=N][,inaseed=S]";

/// Parses "kind:key=value,..." into its kind and an ordered key->value map.
struct Spec
{
    std::string kind;
    std::map<std::string, std::string> values;
};

Spec
ParseSpec(const std::string& spec)
{
    const auto colon = spec.find(':');
    Spec result;
    result.kind = Trim(spec.substr(0, colon));
    if (result.kind == "file" || colon == std::string::npos)
    {
        if (colon != std::string::npos)
        {
            // A path may hold commas: only trailing items that are link options are options.
            std::string path = spec.substr(colon + 1);
            for (auto comma = path.rfind(','); comma != std::string::npos;
                 comma = path.rfind(','))
            {
                const std::string item = Trim(path.substr(comma + 1));
                const auto eq = item.find('=');
                const std::string key = item.substr(0, std::min(eq, item.size()));
                if (eq == std::string::npos ||
                    std::find(LINK_OPTIONS.begin(), LINK_OPTIONS.end(), key) ==
                        LINK_OPTIONS.end() ||
                    !result.values.emplace(key, Trim(item.substr(eq + 1))).second)
                {
                    break;
                }
                path.erase(comma);
            }
            result.values["path"] = path;
        }
        return result;
    }
    const std::string rest = spec.substr(colon + 1);
    size_t pos = 0;
    while (pos <= rest.size())
    {
        const auto comma = std::min(rest.find(',', pos), rest.size());
        const std::string item = Trim(rest.substr(pos, comma - pos));
        pos = comma + 1;
        if (item.empty())
        {
            throw std::invalid_argument("topology spec '" + Abbreviate(spec) +
                                        "' has an empty item (two commas in a row, or a comma "
                                        "at an end); write key=value items separated by single "
                                        "commas");
        }
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        {
            throw std::invalid_argument("topology spec '" + Abbreviate(spec) +
                                        "': expected key=value, got '" + Abbreviate(item) + "'");
        }
        const std::string key = Trim(item.substr(0, eq));
        if (!result.values.emplace(key, Trim(item.substr(eq + 1))).second)
        {
            throw std::invalid_argument("topology spec '" + Abbreviate(spec) + "': key '" +
                                        Abbreviate(key) + "' is given twice");
        }
    }
    return result;
}

/// Takes the integer value of `key` out of the spec, or `fallback` when absent and allowed.
int64_t
TakeInteger(Spec& spec, const std::string& key, const int64_t* fallback)
{
    const auto it = spec.values.find(key);
    if (it == spec.values.end())
    {
        if (fallback)
        {
            return *fallback;
        }
        throw std::invalid_argument(spec.kind + " needs '" + key + "', e.g. " + spec.kind + ":" +
                                    key + "=...");
    }
    const std::string text = it->second;
    spec.values.erase(it);
    size_t used = 0;
    int64_t value = 0;
    try
    {
        value = std::stoll(text, &used, 10);
    }
    catch (const std::out_of_range&)
    {
        throw std::invalid_argument(spec.kind + " " + key + " = '" + Abbreviate(text) +
                                    "' is out of range for a 64-bit integer");
    }
    catch (const std::invalid_argument&)
    {
        used = 0;
    }
    if (used != text.size() || text.empty())
    {
        throw std::invalid_argument(spec.kind + " " + key + " must be a whole number, got '" +
                                    Abbreviate(text) + "'");
    }
    return value;
}

void
RejectUnknownKeys(const Spec& spec, const std::string& accepted)
{
    if (!spec.values.empty())
    {
        throw std::invalid_argument("unknown key '" + Abbreviate(spec.values.begin()->first) +
                                    "' for " + spec.kind + "; accepted keys: " + accepted +
                                    LINK_OPTIONS_HELP);
    }
}

/// Takes the real value of `key` out of the spec, or `fallback` when absent.
double
TakeReal(Spec& spec, const std::string& key, double fallback)
{
    const auto it = spec.values.find(key);
    if (it == spec.values.end())
    {
        return fallback;
    }
    const std::string text = it->second;
    spec.values.erase(it);
    double value = 0;
    if (!ParseDecimal(text, value))
    {
        throw std::invalid_argument("topology " + key + " must be a number, got '" +
                                    Abbreviate(text) + "'");
    }
    return value;
}

/**
 * Refuses options given without the one they refine.
 * \param spec the spec's options
 * \param keys the refining options
 * \param needs what they need, e.g. "slow=FRACTION (which share of the links is slower)"
 */
void
RejectWithout(const Spec& spec, std::initializer_list<const char*> keys, const std::string& needs)
{
    for (const char* key : keys)
    {
        if (spec.values.count(key))
        {
            throw std::invalid_argument(std::string("topology option ") + key + " needs " + needs);
        }
    }
}

/// Takes the link options out of a spec and applies them to the topology built from the rest.
void
ApplyLinkOptions(Spec& spec, Topology& t)
{
    if (spec.values.count("slow") == 0)
    {
        RejectWithout(spec,
                      {"slowrate", "slowseed"},
                      "slow=FRACTION (which share of the links is slower)");
        return;
    }
    const double fraction = TakeReal(spec, "slow", 0);
    const double factor = TakeReal(spec, "slowrate", 0.5);
    const int64_t one = 1;
    const int64_t seed = TakeInteger(spec, "slowseed", &one);
    if (seed < 0)
    {
        throw std::invalid_argument("topology slowseed must be >= 0, got " + std::to_string(seed));
    }
    SlowDownLinks(t, fraction, factor, static_cast<uint64_t>(seed));
}

/// Takes the aggregation options out of a spec and applies them (ChooseAggregators); the
/// topology's name says which were given.
void
ApplyAggregationOptions(Spec& spec, Topology& t)
{
    if (spec.values.count("ina") == 0)
    {
        RejectWithout(spec,
                      {"slots", "inaseed"},
                      "ina=all or ina=FRACTION (which switches aggregate)");
        return;
    }
    if (t.CountAggregators() > 0)
    {
        throw std::invalid_argument("the topology file already names its aggregators ('aggregator' "
                                    "lines); drop ina= from the spec or those lines from the "
                                    "file");
    }
    const std::string ina = spec.values.at("ina");
    std::string name = t.GetName() + ",ina=" + ina;
    double fraction = 1;
    if (ina == "all")
    {
        spec.values.erase("ina");
    }
    else
    {
        double share = 0;
        if (!ParseDecimal(ina, share))
        {
            throw std::invalid_argument("topology ina= takes all (lower-case) or the share of "
                                        "switches that aggregate, in (0, 1], got '" +
                                        Abbreviate(ina) + "'");
        }
        fraction = TakeReal(spec, "ina", 0);
        if (!(fraction > 0 && fraction <= 1))
        {
            throw std::invalid_argument("topology ina= takes all or the share of switches that "
                                        "aggregate, in (0, 1], got '" +
                                        Abbreviate(ina) + "'");
        }
    }
    uint32_t slots = Topology::UNLIMITED_SLOTS;
    if (spec.values.count("slots"))
    {
        const int64_t value = TakeInteger(spec, "slots", nullptr);
        if (value < 1 || value >= int64_t{Topology::UNLIMITED_SLOTS})
        {
            throw std::invalid_argument("topology slots= must be a whole number from 1 to " +
                                        std::to_string(Topology::UNLIMITED_SLOTS - 1) +
                                        " (leave it out for unlimited slots), got " +
                                        std::to_string(value));
        }
        slots = static_cast<uint32_t>(value);
        name += ",slots=" + std::to_string(slots);
    }
    const int64_t one = 1;
    const bool seeded = spec.values.count("inaseed") > 0;
    const int64_t seed = TakeInteger(spec, "inaseed", &one);
    if (seed < 0)
    {
        throw std::invalid_argument("topology inaseed must be >= 0, got " + std::to_string(seed));
    }
    if (seeded)
    {
        if (ina == "all")
        {
            throw std::invalid_argument("topology option inaseed chooses a share of the switches; "
                                        "with ina=all every switch aggregates, so drop it");
        }
        name += ",inaseed=" + std::to_string(seed);
    }
    ChooseAggregators(t, fraction, slots, static_cast<uint64_t>(seed));
    t.SetName(name);
}

} // namespace

Topology
MakeBCube(int64_t n, int64_t k)
{
    RequireAtLeast("BCube", "n", n, 2);
    RequireAtLeast("BCube", "k", k, 0);
    const std::string name = "bcube(n=" + std::to_string(n) + ",k=" + std::to_string(k) + ")";
    const uint64_t perLevel = SatPow(n, k);
    const uint64_t servers = SatMul(perLevel, n);
    const uint64_t levels = static_cast<uint64_t>(k) + 1;
    CheckTopologySize(name, servers, SatMul(levels, perLevel), SatMul(levels, servers));

    Topology t(name,
               static_cast<uint32_t>(servers),
               static_cast<uint32_t>(levels * perLevel));
    const auto un = static_cast<uint64_t>(n);
    for (uint64_t s = 0; s < servers; ++s)
    {
        uint64_t weight = 1; // n^level
        for (uint64_t level = 0; level < levels; ++level, weight *= un)
        {
            // The switch index is s with digit `level` removed.
            const uint64_t low = s % weight;
            const uint64_t high = s / (weight * un);
            const uint64_t index = high * weight + low;
            t.AddLink(static_cast<uint32_t>(s),
                      static_cast<uint32_t>(servers + level * perLevel + index));
        }
    }
    return t;
}

Topology
MakeDCell(int64_t n, int64_t k)
{
    RequireAtLeast("DCell", "n", n, 2);
    RequireAtLeast("DCell", "k", k, 0);
    const std::string name = "dcell(n=" + std::to_string(n) + ",k=" + std::to_string(k) + ")";
    std::vector<uint64_t> t{static_cast<uint64_t>(n)}; // t[l] = servers in a DCell_l
    for (int64_t l = 1; l <= k && t.back() != SATURATED; ++l)
    {
        t.push_back(SatMul(t.back(), SatAdd(t.back(), 1)));
    }
    const uint64_t servers = t.back();
    const uint64_t links = SatMul(servers / 2, static_cast<uint64_t>(k) + 2) +
                           ((servers % 2) * (static_cast<uint64_t>(k) + 2)) / 2;
    CheckTopologySize(name, servers, servers == SATURATED ? SATURATED : servers / n, links);

    const auto un = static_cast<uint64_t>(n);
    Topology topo(name, static_cast<uint32_t>(servers), static_cast<uint32_t>(servers / un));
    // Level 0: each server links to the switch of its DCell_0.
    for (uint64_t s = 0; s < servers; ++s)
    {
        topo.AddLink(static_cast<uint32_t>(s), static_cast<uint32_t>(servers + s / un));
    }
    // Level l: in each DCell_l, sub-DCell i links to sub-DCell j through [i, j-1] - [j, i].
    for (size_t l = 1; l < t.size(); ++l)
    {
        const uint64_t sub = t[l - 1];
        const uint64_t groups = sub + 1;
        for (uint64_t base = 0; base < servers; base += t[l])
        {
            for (uint64_t i = 0; i < groups; ++i)
            {
                for (uint64_t j = i + 1; j < groups; ++j)
                {
                    topo.AddLink(static_cast<uint32_t>(base + i * sub + (j - 1)),
                                 static_cast<uint32_t>(base + j * sub + i));
                }
            }
        }
    }
    return topo;
}

Topology
MakeJellyfish(int64_t switches, int64_t degree, int64_t serversPerSwitch, uint64_t seed)
{
    RequireAtLeast("Jellyfish", "switches", switches, 2);
    RequireAtLeast("Jellyfish", "servers", serversPerSwitch, 1, " (servers per switch)");
    RequireAtLeast("Jellyfish", "degree", degree, 1, " (switch-to-switch ports per switch)");
    const std::string name = "jellyfish(switches=" + std::to_string(switches) +
                             ",degree=" + std::to_string(degree) +
                             ",servers=" + std::to_string(serversPerSwitch) +
                             ",seed=" + std::to_string(seed) + ")";
    if (degree > switches - 1)
    {
        throw std::invalid_argument("Jellyfish degree must be between 1 and switches-1 = " +
                                    std::to_string(switches - 1) + ", got " +
                                    std::to_string(degree) +
                                    ": a switch cannot have more switch neighbours than there "
                                    "are other switches");
    }
    if ((switches % 2 == 1) && (degree % 2 == 1))
    {
        // The product only for the message, and only where it fits (both are >= 1 here).
        const uint64_t ports =
            SatMul(static_cast<uint64_t>(switches), static_cast<uint64_t>(degree));
        throw std::invalid_argument(
            "Jellyfish with " + std::to_string(switches) + " switches of degree " +
            std::to_string(degree) + " cannot be " + std::to_string(degree) +
            "-regular: every link takes two ports, and switches x degree" +
            (ports == std::numeric_limits<uint64_t>::max() ? "" : " = " + std::to_string(ports)) +
            " is odd; make the number of switches or the degree even");
    }
    const auto us = static_cast<uint64_t>(switches);
    const auto ur = static_cast<uint64_t>(degree);
    const uint64_t servers = SatMul(us, static_cast<uint64_t>(serversPerSwitch));
    CheckTopologySize(name, servers, us, SatAdd(servers, SatMul(us, ur) / 2));

    std::mt19937_64 rng(seed);
    SwitchGraph g(static_cast<uint32_t>(switches), static_cast<uint32_t>(degree));
    LinkRandomPairs(g, rng);
    while (FixUpOnce(g, rng))
    {
        LinkRandomPairs(g, rng);
    }

    Topology t(name, static_cast<uint32_t>(servers), static_cast<uint32_t>(switches));
    for (uint64_t s = 0; s < servers; ++s)
    {
        t.AddLink(static_cast<uint32_t>(s),
                  static_cast<uint32_t>(servers + s / static_cast<uint64_t>(serversPerSwitch)));
    }
    auto edges = g.m_edges;
    std::sort(edges.begin(), edges.end());
    for (const auto& [a, b] : edges)
    {
        t.AddLink(static_cast<uint32_t>(servers + a), static_cast<uint32_t>(servers + b));
    }
    if (!t.IsConnected())
    {
        throw std::invalid_argument(name + " came out disconnected (" +
                                    std::to_string(t.CountComponents()) +
                                    " components); try another seed or a larger degree");
    }
    return t;
}

namespace
{

/**
 * The pairs of switches a random graph has linked: a bit per ordered pair when that takes no
 * more memory than a hash set of the links would (about 32 bytes a link), else the hash set.
 * At tens of millions of links the set's lookups took most of the generation's time.
 */
class LinkedPairs
{
  public:
    LinkedPairs(uint64_t switches, uint64_t links)
        : m_switches(switches)
    {
        if (switches * switches / 8 <= SatMul(links, 32))
        {
            m_bits.assign((switches * switches + 63) / 64, 0);
        }
        else
        {
            m_set.reserve(links);
        }
    }

    void Insert(uint32_t a, uint32_t b)
    {
        if (m_bits.empty())
        {
            m_set.insert(SwitchGraph::Key(a, b));
            return;
        }
        const uint64_t bit = Bit(a, b);
        m_bits[bit / 64] |= uint64_t{1} << (bit % 64);
    }

    bool Contains(uint32_t a, uint32_t b) const
    {
        if (m_bits.empty())
        {
            return m_set.count(SwitchGraph::Key(a, b)) > 0;
        }
        const uint64_t bit = Bit(a, b);
        return (m_bits[bit / 64] >> (bit % 64)) & 1;
    }

  private:
    uint64_t Bit(uint32_t a, uint32_t b) const
    {
        return a < b ? a * m_switches + b : b * m_switches + a;
    }

    uint64_t m_switches;
    std::vector<uint64_t> m_bits;
    std::unordered_set<uint64_t> m_set;
};

} // namespace

Topology
MakeRandomGraph(int64_t switches, int64_t switchLinks, int64_t servers, uint64_t seed)
{
    RequireAtLeast("random graph", "switches", switches, 1);
    RequireAtLeast("random graph", "servers", servers, 1);
    const std::string name = "random(switches=" + std::to_string(switches) +
                             ",links=" + std::to_string(switchLinks) +
                             ",servers=" + std::to_string(servers) +
                             ",seed=" + std::to_string(seed) + ")";
    const auto us = static_cast<uint64_t>(switches);
    // Every pair of switches, saturated: only compared with, never allocated.
    const uint64_t pairs = (us % 2 == 0) ? SatMul(us / 2, us - 1) : SatMul(us, (us - 1) / 2);
    if (switchLinks < switches - 1 || static_cast<uint64_t>(switchLinks) > pairs)
    {
        throw std::invalid_argument(
            "random graph links must be between switches-1 = " + std::to_string(switches - 1) +
            " (a tree, the fewest that connect them) and " +
            (pairs == SATURATED ? std::string("every pair") : std::to_string(pairs)) +
            " (every pair of switches), got " + std::to_string(switchLinks));
    }
    const auto ul = static_cast<uint64_t>(switchLinks);
    const auto uh = static_cast<uint64_t>(servers);
    CheckTopologySize(name, uh, us, SatAdd(uh, ul));

    std::mt19937_64 rng(seed);
    std::vector<uint32_t> order(us);
    for (uint32_t i = 0; i < us; ++i)
    {
        order[i] = i;
    }
    for (uint64_t i = us; i > 1; --i)
    {
        std::swap(order[i - 1], order[UniformIndex(rng, i)]);
    }
    LinkedPairs linked(us, ul);
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    edges.reserve(ul);
    auto link = [&linked, &edges](uint32_t a, uint32_t b) {
        linked.Insert(a, b);
        edges.emplace_back(std::min(a, b), std::max(a, b));
    };
    for (uint64_t i = 1; i < us; ++i)
    {
        link(order[i], order[UniformIndex(rng, i)]);
    }
    const uint64_t extra = ul - (us - 1);
    if (2 * extra <= pairs - (us - 1))
    {
        // Sparse: draw pairs and skip the ones already linked (at most half are, so a draw
        // succeeds at least every other time on average).
        while (edges.size() < ul)
        {
            const auto a = static_cast<uint32_t>(UniformIndex(rng, us));
            const auto b = static_cast<uint32_t>(UniformIndex(rng, us));
            if (a != b && !linked.Contains(a, b))
            {
                link(a, b);
            }
        }
    }
    else
    {
        // Dense: every pair not linked (fewer than 2 x links of them), then a seeded choice.
        std::vector<std::pair<uint32_t, uint32_t>> open;
        for (uint32_t a = 0; a < us; ++a)
        {
            for (uint32_t b = a + 1; b < us; ++b)
            {
                if (!linked.Contains(a, b))
                {
                    open.emplace_back(a, b);
                }
            }
        }
        for (uint64_t i = 0; i < extra; ++i)
        {
            std::swap(open[i], open[i + UniformIndex(rng, open.size() - i)]);
            link(open[i].first, open[i].second);
        }
    }

    Topology t(name, static_cast<uint32_t>(uh), static_cast<uint32_t>(us));
    for (uint64_t s = 0; s < uh; ++s)
    {
        t.AddLink(static_cast<uint32_t>(s), static_cast<uint32_t>(uh + UniformIndex(rng, us)));
    }
    std::sort(edges.begin(), edges.end());
    for (const auto& [a, b] : edges)
    {
        t.AddLink(static_cast<uint32_t>(uh + a), static_cast<uint32_t>(uh + b));
    }
    return t;
}

Topology
MakeFatTree(int64_t k)
{
    if (k < 2 || k % 2 != 0)
    {
        throw std::invalid_argument("FatTree k must be even and >= 2, got " + std::to_string(k));
    }
    const std::string name = "fattree(k=" + std::to_string(k) + ")";
    const auto uk = static_cast<uint64_t>(k);
    const uint64_t half = uk / 2;
    const uint64_t servers = SatMul(SatMul(uk, uk), uk) / 4;
    CheckTopologySize(name, servers, SatMul(SatMul(uk, uk), 5) / 4, SatMul(servers, 3));

    const uint64_t edgeBase = servers;
    const uint64_t aggBase = edgeBase + uk * half;
    const uint64_t coreBase = aggBase + uk * half;
    Topology t(name, static_cast<uint32_t>(servers), static_cast<uint32_t>(5 * uk * uk / 4));
    auto link = [&t](uint64_t a, uint64_t b) {
        t.AddLink(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
    };
    for (uint64_t s = 0; s < servers; ++s)
    {
        link(s, edgeBase + s / half); // server s sits under edge switch s / (k/2)
    }
    for (uint64_t pod = 0; pod < uk; ++pod)
    {
        for (uint64_t e = 0; e < half; ++e)
        {
            for (uint64_t a = 0; a < half; ++a)
            {
                link(edgeBase + pod * half + e, aggBase + pod * half + a);
            }
        }
    }
    for (uint64_t pod = 0; pod < uk; ++pod)
    {
        for (uint64_t a = 0; a < half; ++a)
        {
            for (uint64_t c = 0; c < half; ++c)
            {
                link(aggBase + pod * half + a, coreBase + a * half + c);
            }
        }
    }
    return t;
}

namespace
{

/// Builds the topology a spec names, without its link options.
Topology
BuildBaseTopology(Spec& spec, const std::string& specText)
{
    const int64_t one = 1;
    Topology t;
    if (spec.kind == "bcube" || spec.kind == "dcell")
    {
        const int64_t n = TakeInteger(spec, "n", nullptr);
        const int64_t k = TakeInteger(spec, "k", nullptr);
        RejectUnknownKeys(spec, "n, k");
        t = (spec.kind == "bcube") ? MakeBCube(n, k) : MakeDCell(n, k);
    }
    else if (spec.kind == "jellyfish")
    {
        const int64_t switches = TakeInteger(spec, "switches", nullptr);
        const int64_t degree = TakeInteger(spec, "degree", nullptr);
        const int64_t servers = TakeInteger(spec, "servers", &one);
        const int64_t seed = TakeInteger(spec, "seed", &one);
        RejectUnknownKeys(spec, "switches, degree, servers (default 1), seed (default 1)");
        if (seed < 0)
        {
            throw std::invalid_argument("Jellyfish seed must be >= 0, got " +
                                        std::to_string(seed));
        }
        t = MakeJellyfish(switches, degree, servers, static_cast<uint64_t>(seed));
    }
    else if (spec.kind == "fattree")
    {
        const int64_t k = TakeInteger(spec, "k", nullptr);
        RejectUnknownKeys(spec, "k");
        t = MakeFatTree(k);
    }
    else if (spec.kind == "random")
    {
        const int64_t switches = TakeInteger(spec, "switches", nullptr);
        // Twice the switches, or every pair where there are fewer; a tree where the product
        // would overflow (too large anyway, which MakeRandomGraph says).
        const bool small = switches > 0 && switches < 3'000'000'000;
        const int64_t links0 = small ? std::min(2 * switches, switches * (switches - 1) / 2)
                                     : std::max<int64_t>(switches - 1, 0);
        const int64_t links = TakeInteger(spec, "links", &links0);
        const int64_t servers = TakeInteger(spec, "servers", &switches);
        const int64_t seed = TakeInteger(spec, "seed", &one);
        RejectUnknownKeys(spec,
                          "switches, links (default 2 x switches), servers (default switches), "
                          "seed (default 1)");
        if (seed < 0)
        {
            throw std::invalid_argument("random graph seed must be >= 0, got " +
                                        std::to_string(seed));
        }
        t = MakeRandomGraph(switches, links, servers, static_cast<uint64_t>(seed));
    }
    else if (spec.kind == "file")
    {
        const auto it = spec.values.find("path");
        if (it == spec.values.end() || it->second.empty())
        {
            throw std::invalid_argument("topology spec 'file:' needs a path, e.g. file:my.topo");
        }
        const std::string path = it->second;
        spec.values.erase(it);
        return ReadTopologyFile(path);
    }
    else
    {
        throw std::invalid_argument(
            "unknown topology kind '" + Abbreviate(spec.kind) + "' in spec '" +
            Abbreviate(specText) +
            "'; accepted kinds: bcube:n=N,k=K  dcell:n=N,k=K  "
            "jellyfish:switches=S,degree=R[,servers=H][,seed=X]  fattree:k=K  "
            "random:switches=S[,links=L][,servers=H][,seed=X]  file:PATH");
    }
    t.Validate();
    return t;
}

/**
 * \return the first round(fraction x total) (at least one, at most total) of a seeded shuffle
 *         (Fisher-Yates) of 0..total-1, the same with every library
 */
std::vector<uint32_t>
ChooseSeededShare(uint32_t total, double fraction, uint64_t seed)
{
    const auto count = std::min<uint32_t>(
        total,
        std::max<uint32_t>(
            1, static_cast<uint32_t>(std::llround(fraction * static_cast<double>(total)))));
    std::vector<uint32_t> order(total);
    for (uint32_t i = 0; i < total; ++i)
    {
        order[i] = i;
    }
    std::mt19937_64 rng(seed);
    for (uint32_t i = 0; i < count; ++i)
    {
        std::swap(order[i], order[i + UniformIndex(rng, total - i)]);
    }
    order.resize(count);
    return order;
}

} // namespace

void
SlowDownLinks(Topology& topology, double fraction, double factor, uint64_t seed)
{
    if (!(fraction > 0 && fraction <= 1))
    {
        throw std::invalid_argument("the share of slower links (slow=, or --slow-links' "
                                    "FRACTION) must be in (0, 1], got " +
                                    ShortNumber(fraction));
    }
    if (!(factor > 0 && factor < 1))
    {
        throw std::invalid_argument("a slower link's rate factor (slowrate=, or --slow-links' "
                                    "FACTOR) must be in (0, 1) (1 would leave the links as they "
                                    "are), got " +
                                    ShortNumber(factor));
    }
    for (uint32_t link : ChooseSeededShare(topology.GetNLinks(), fraction, seed))
    {
        LinkProperties p = topology.GetLinkProperties(link);
        p.rateFactor *= factor;
        topology.SetLinkProperties(link, p);
    }
}

void
ChooseAggregators(Topology& topology, double fraction, uint32_t slots, uint64_t seed)
{
    if (!(fraction > 0 && fraction <= 1))
    {
        throw std::invalid_argument("the share of aggregating switches must be in (0, 1], got " +
                                    std::to_string(fraction));
    }
    if (slots == 0)
    {
        throw std::invalid_argument("an aggregating switch needs at least one slot");
    }
    const uint32_t switches = topology.GetNSwitches();
    if (switches == 0)
    {
        throw std::invalid_argument("topology '" + topology.GetName() +
                                    "' has no switches to aggregate (ina= asks switches to add "
                                    "gradients in flight; its servers merge already)");
    }
    for (uint32_t i : ChooseSeededShare(switches, fraction, seed))
    {
        topology.SetAggregatorSlots(topology.GetNServers() + i, slots);
    }
}

Topology
BuildTopology(const std::string& specText)
{
    Spec spec = ParseSpec(specText);
    Spec linkOptions{spec.kind, {}};
    for (const std::string& key : LINK_OPTIONS)
    {
        const auto it = spec.values.find(key);
        if (it != spec.values.end())
        {
            linkOptions.values.insert(*it);
            spec.values.erase(it);
        }
    }
    Topology t = BuildBaseTopology(spec, specText);
    ApplyAggregationOptions(linkOptions, t);
    ApplyLinkOptions(linkOptions, t);
    return t;
}

} // namespace ns3
