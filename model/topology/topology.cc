/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology.h"

#include "ns3/quantity.h"
#include "ns3/size-limits.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// Bytes a node and a link take in a Topology and its flow trees, for the size message.
constexpr uint64_t BYTES_PER_NODE = 96;
constexpr uint64_t BYTES_PER_LINK = 64;

std::string
FormatGiB(double bytes)
{
    std::ostringstream os;
    os << std::setprecision(3) << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return os.str();
}

std::string
FormatCount(uint64_t n)
{
    if (n == std::numeric_limits<uint64_t>::max())
    {
        return "more than 1.8e19";
    }
    return std::to_string(n);
}

} // namespace

Topology::Topology(std::string name, uint32_t servers, uint32_t switches)
    : m_name(std::move(name)),
      m_nServers(servers),
      m_nSwitches(switches)
{
    CheckTopologySize(m_name, servers, switches, 0);
    m_neighbors.resize(GetNNodes());
    m_portLinks.resize(GetNNodes());
}

void
Topology::CheckNode(uint32_t node) const
{
    if (node >= GetNNodes())
    {
        throw std::out_of_range("node " + std::to_string(node) + " is not in topology '" +
                                m_name + "' (nodes are 0.." + std::to_string(GetNNodes()) +
                                " exclusive)");
    }
}

uint64_t
Topology::PairKey(uint32_t a, uint32_t b)
{
    if (a > b)
    {
        std::swap(a, b);
    }
    return (uint64_t{a} << 32) | b;
}

uint32_t
Topology::AddLink(uint32_t a, uint32_t b)
{
    const uint32_t n = GetNNodes();
    if (a >= n || b >= n)
    {
        throw std::invalid_argument("link " + std::to_string(a) + "-" + std::to_string(b) +
                                    " names a node that does not exist (nodes are 0.." +
                                    std::to_string(n == 0 ? 0 : n - 1) + ")");
    }
    if (a == b)
    {
        throw std::invalid_argument("link " + std::to_string(a) + "-" + std::to_string(b) +
                                    " joins a node to itself; links must join two nodes");
    }
    if (m_links.size() >= MAX_LINKS)
    {
        throw std::invalid_argument("topology '" + m_name + "' would have more than " +
                                    std::to_string(MAX_LINKS) + " links, the limit");
    }
    const auto index = static_cast<uint32_t>(m_links.size());
    if (!m_linkIndex.emplace(PairKey(a, b), index).second)
    {
        throw std::invalid_argument("link " + std::to_string(a) + "-" + std::to_string(b) +
                                    " is given twice; parallel links are not supported");
    }
    m_links.push_back({a, b});
    m_linkProperties.emplace_back();
    m_neighbors[a].push_back(b);
    m_neighbors[b].push_back(a);
    m_portLinks[a].push_back(index);
    m_portLinks[b].push_back(index);
    return index;
}

const std::string&
Topology::GetName() const
{
    return m_name;
}

void
Topology::SetName(std::string name)
{
    m_name = std::move(name);
}

uint32_t
Topology::GetNServers() const
{
    return m_nServers;
}

uint32_t
Topology::GetNSwitches() const
{
    return m_nSwitches;
}

uint32_t
Topology::GetNNodes() const
{
    return m_nServers + m_nSwitches;
}

uint32_t
Topology::GetNLinks() const
{
    return static_cast<uint32_t>(m_links.size());
}

bool
Topology::IsServer(uint32_t node) const
{
    CheckNode(node);
    return node < m_nServers;
}

std::string
Topology::GetNodeName(uint32_t node) const
{
    return (IsServer(node) ? "server " : "switch ") + std::to_string(node);
}

NodeKind
Topology::GetKind(uint32_t node) const
{
    return IsServer(node) ? NodeKind::SERVER : NodeKind::SWITCH;
}

const TopologyLink&
Topology::GetLink(uint32_t index) const
{
    if (index >= m_links.size())
    {
        throw std::out_of_range("link " + std::to_string(index) + " is not in topology '" +
                                m_name + "' (" + std::to_string(m_links.size()) + " links)");
    }
    return m_links[index];
}

const std::vector<TopologyLink>&
Topology::GetLinks() const
{
    return m_links;
}

const std::vector<uint32_t>&
Topology::GetNeighbors(uint32_t node) const
{
    CheckNode(node);
    return m_neighbors[node];
}

const std::vector<uint32_t>&
Topology::GetPortLinks(uint32_t node) const
{
    CheckNode(node);
    return m_portLinks[node];
}

uint32_t
Topology::GetNPorts(uint32_t node) const
{
    return static_cast<uint32_t>(GetNeighbors(node).size());
}

uint64_t
Topology::GetNServerPorts() const
{
    uint64_t ports = 0;
    for (uint32_t s = 0; s < m_nServers; ++s)
    {
        ports += GetNPorts(s);
    }
    return ports;
}

int64_t
Topology::FindLink(uint32_t a, uint32_t b) const
{
    auto it = m_linkIndex.find(PairKey(a, b));
    return it == m_linkIndex.end() ? -1 : static_cast<int64_t>(it->second);
}

bool
Topology::HasLink(uint32_t a, uint32_t b) const
{
    return FindLink(a, b) >= 0;
}

std::vector<uint32_t>
Topology::GetHopDistances(uint32_t from) const
{
    CheckNode(from);
    std::vector<uint32_t> dist(GetNNodes(), NO_INDEX);
    std::deque<uint32_t> queue{from};
    dist[from] = 0;
    while (!queue.empty())
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        for (uint32_t v : m_neighbors[u])
        {
            if (dist[v] == NO_INDEX)
            {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return dist;
}

uint32_t
Topology::CountComponents() const
{
    std::vector<bool> seen(GetNNodes(), false);
    uint32_t components = 0;
    std::vector<uint32_t> stack;
    for (uint32_t start = 0; start < GetNNodes(); ++start)
    {
        if (seen[start])
        {
            continue;
        }
        ++components;
        seen[start] = true;
        stack.push_back(start);
        while (!stack.empty())
        {
            const uint32_t u = stack.back();
            stack.pop_back();
            for (uint32_t v : m_neighbors[u])
            {
                if (!seen[v])
                {
                    seen[v] = true;
                    stack.push_back(v);
                }
            }
        }
    }
    return components;
}

bool
Topology::IsConnected() const
{
    return CountComponents() <= 1;
}

uint32_t
Topology::GetServerDiameter() const
{
    return GetServerDiameter(m_nServers);
}

uint32_t
Topology::GetServerDiameter(uint32_t maxSources) const
{
    uint32_t diameter = 0;
    const uint32_t sources = std::max<uint32_t>(1, std::min(maxSources, m_nServers));
    for (uint32_t i = 0; i < sources && m_nServers > 0; ++i)
    {
        const auto s = static_cast<uint32_t>(static_cast<uint64_t>(i) * m_nServers / sources);
        const auto dist = GetHopDistances(s);
        for (uint32_t t = 0; t < m_nServers; ++t)
        {
            if (dist[t] == NO_INDEX)
            {
                throw std::invalid_argument("topology '" + m_name + "' is disconnected: server " +
                                            std::to_string(t) + " cannot be reached from server " +
                                            std::to_string(s));
            }
            diameter = std::max(diameter, dist[t]);
        }
    }
    return diameter;
}

void
Topology::Validate() const
{
    if (m_nServers == 0)
    {
        throw std::invalid_argument("topology '" + m_name +
                                    "' has no servers; it needs at least one");
    }
    for (uint32_t s = 0; s < m_nServers; ++s)
    {
        if (m_neighbors[s].empty())
        {
            throw std::invalid_argument("topology '" + m_name + "': server " + std::to_string(s) +
                                        " has no link; every server needs at least one");
        }
    }
    const uint32_t components = CountComponents();
    if (components > 1)
    {
        const auto dist = GetHopDistances(0);
        uint32_t unreached = 0;
        while (dist[unreached] != NO_INDEX)
        {
            ++unreached;
        }
        throw std::invalid_argument(
            "topology '" + m_name + "' is disconnected: it has " + std::to_string(components) +
            " components, and node " + std::to_string(unreached) +
            " cannot be reached from server 0; every node must be reachable");
    }
}

bool
Topology::operator==(const Topology& other) const
{
    return m_name == other.m_name && DescribeDifference(other).empty();
}

bool
Topology::operator!=(const Topology& other) const
{
    return !(*this == other);
}

std::string
Topology::DescribeDifference(const Topology& other) const
{
    return DescribeDifference(other, "'" + GetName() + "'", "'" + other.GetName() + "'");
}

std::string
Topology::DescribeDifference(const Topology& other,
                             const std::string& mine,
                             const std::string& theirs) const
{
    const auto counts = [](const Topology& t, const std::string& label) {
        return label + " has " + std::to_string(t.GetNServers()) + " servers, " +
               std::to_string(t.GetNSwitches()) + " switches and " +
               std::to_string(t.GetNLinks()) + " links";
    };
    // e.g. "'bcube(n=3,k=1)' has 9 servers, ... links; 'dcell(n=2,k=1)' has 6 servers, ..."

    if (m_nServers != other.m_nServers || m_nSwitches != other.m_nSwitches ||
        m_links.size() != other.m_links.size())
    {
        return counts(*this, mine) + "; " + counts(other, theirs);
    }
    for (size_t i = 0; i < m_links.size(); ++i)
    {
        const TopologyLink& x = m_links[i];
        const TopologyLink& y = other.m_links[i];
        if (!(x == y))
        {
            return "link " + std::to_string(i) + " is " + std::to_string(x.a) + "-" +
                   std::to_string(x.b) + " in " + mine + " but " + std::to_string(y.a) + "-" +
                   std::to_string(y.b) + " in " + theirs;
        }
    }
    for (uint32_t node = m_nServers; node < GetNNodes(); ++node)
    {
        const uint32_t slots = GetAggregatorSlots(node);
        const uint32_t otherSlots = other.GetAggregatorSlots(node);
        if (slots != otherSlots)
        {
            const auto describe = [](uint32_t count) {
                return count == 0                 ? std::string("only forwards")
                       : count == UNLIMITED_SLOTS ? std::string("aggregates (unlimited slots)")
                                                  : "aggregates (" + std::to_string(count) +
                                                        " slots)";
            };
            return "switch " + std::to_string(node) + " " + describe(slots) + " in " + mine +
                   " but " + describe(otherSlots) + " in " + theirs;
        }
    }
    return "";
}

void
Topology::SetAggregatorSlots(uint32_t node, uint32_t slots)
{
    CheckNode(node);
    if (IsServer(node))
    {
        throw std::invalid_argument("node " + std::to_string(node) +
                                    " is a server; servers always aggregate, only switches take "
                                    "aggregator slots");
    }
    if (m_slots.empty())
    {
        if (slots == 0)
        {
            return;
        }
        m_slots.assign(GetNNodes(), 0);
    }
    m_slots[node] = slots;
}

uint32_t
Topology::GetAggregatorSlots(uint32_t node) const
{
    CheckNode(node);
    return m_slots.empty() ? 0 : m_slots[node];
}

bool
Topology::IsAggregator(uint32_t node) const
{
    return GetAggregatorSlots(node) > 0;
}

uint32_t
Topology::CountAggregators() const
{
    return static_cast<uint32_t>(
        std::count_if(m_slots.begin(), m_slots.end(), [](uint32_t s) { return s > 0; }));
}

void
Topology::SetLinkProperties(uint32_t link, const LinkProperties& properties)
{
    if (link >= m_links.size())
    {
        throw std::out_of_range("link " + std::to_string(link) + " does not exist (" +
                                std::to_string(m_links.size()) + " links)");
    }
    if (!(properties.rateFactor > 0 && properties.rateFactor <= 1000))
    {
        throw std::invalid_argument("link " + std::to_string(link) +
                                    ": a rate factor must be in (0, 1000], got " +
                                    std::to_string(properties.rateFactor));
    }
    if (properties.rateBps > MAX_RATE_BPS)
    {
        throw std::invalid_argument("link " + std::to_string(link) + ": a rate must be at most " +
                                    std::to_string(MAX_RATE_BPS) + " bit/s, got " +
                                    std::to_string(properties.rateBps));
    }
    if (properties.delayNs > MAX_DELAY_NS)
    {
        throw std::invalid_argument("link " + std::to_string(link) +
                                    ": a delay must be at most 1000 s, got " +
                                    std::to_string(properties.delayNs) + " ns");
    }
    m_linkProperties[link] = properties;
}

const LinkProperties&
Topology::GetLinkProperties(uint32_t link) const
{
    if (link >= m_linkProperties.size())
    {
        throw std::out_of_range("link " + std::to_string(link) + " does not exist (" +
                                std::to_string(m_links.size()) + " links)");
    }
    return m_linkProperties[link];
}

uint32_t
Topology::CountUnevenLinks() const
{
    return static_cast<uint32_t>(
        std::count_if(m_linkProperties.begin(), m_linkProperties.end(), [](const auto& p) {
            return !p.IsDefault();
        }));
}

std::string
TopologyFamily(const std::string& name)
{
    return name.substr(0, name.find('('));
}

void
CheckTopologySize(const std::string& what, uint64_t servers, uint64_t switches, uint64_t links)
{
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t nodes = (servers > max - switches) ? max : servers + switches;
    if (nodes <= Topology::MAX_NODES && links <= Topology::MAX_LINKS)
    {
        // Within the counts; a process may have lowered the memory limit (GetMemoryLimit).
        CheckMemory(what,
                    SaturatingMultiply(nodes, BYTES_PER_NODE) +
                        SaturatingMultiply(links, BYTES_PER_LINK),
                    "choose smaller parameters");
        return;
    }
    const double bytes = static_cast<double>(nodes) * BYTES_PER_NODE +
                         static_cast<double>(links) * BYTES_PER_LINK;
    const double limitBytes = static_cast<double>(Topology::MAX_NODES) * BYTES_PER_NODE +
                              static_cast<double>(Topology::MAX_LINKS) * BYTES_PER_LINK;
    throw std::invalid_argument(
        what + " is too large to fit in memory: it would have " + FormatCount(servers) +
        " servers, " + FormatCount(switches) + " switches and " + FormatCount(links) +
        " links (about " + FormatGiB(bytes) + "); the limit is " +
        std::to_string(Topology::MAX_NODES) + " nodes and " + std::to_string(Topology::MAX_LINKS) +
        " links (about " + FormatGiB(limitBytes) + "). Choose smaller parameters.");
}

void
WriteTopology(const Topology& topology, std::ostream& os)
{
    os << "# ns3-allreduce topology file, format 1\n";
    os << "# servers are nodes 0.." << (topology.GetNServers() - 1) << ", switches the rest\n";
    if (!topology.GetName().empty())
    {
        os << "topology " << topology.GetName() << "\n";
    }
    os << "servers " << topology.GetNServers() << "\n";
    os << "switches " << topology.GetNSwitches() << "\n";
    for (uint32_t i = 0; i < topology.GetNLinks(); ++i)
    {
        const TopologyLink& link = topology.GetLink(i);
        os << "link " << link.a << " " << link.b;
        const LinkProperties& p = topology.GetLinkProperties(i);
        if (p.rateBps != 0)
        {
            os << " rate=" << Quantity::FormatRate(p.rateBps);
        }
        if (p.rateFactor != 1)
        {
            std::ostringstream factor;
            factor << std::setprecision(17) << p.rateFactor;
            os << " factor=" << factor.str();
        }
        if (p.delayNs >= 0)
        {
            os << " delay=" << Quantity::FormatTime(p.delayNs);
        }
        os << "\n";
    }
    for (uint32_t node = topology.GetNServers(); node < topology.GetNNodes(); ++node)
    {
        const uint32_t slots = topology.GetAggregatorSlots(node);
        if (slots > 0)
        {
            os << "aggregator " << node;
            if (slots != Topology::UNLIMITED_SLOTS)
            {
                os << " slots=" << slots;
            }
            os << "\n";
        }
    }
}

void
WriteTopologyFile(const Topology& topology, const std::string& path)
{
    WriteTextFile(path, "topology file", [&](std::ostream& os) { WriteTopology(topology, os); });
}

void
WriteGraphviz(const Topology& topology, std::ostream& os)
{
    std::string name;
    for (char c : topology.GetName())
    {
        name += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    }
    os << "graph \"" << name << "\" {\n"
       << "  // servers are boxes (s<id>), switches ellipses (w<id>)\n";
    for (uint32_t v = 0; v < topology.GetNNodes(); ++v)
    {
        const bool server = topology.IsServer(v);
        os << "  " << v << " [label=\"" << (server ? "s" : "w") << v
           << "\", shape=" << (server ? "box" : "ellipse") << "];\n";
    }
    for (const auto& link : topology.GetLinks())
    {
        os << "  " << link.a << " -- " << link.b << ";\n";
    }
    os << "}\n";
}

namespace
{

/// Parses a whole non-negative decimal number that fits in uint32_t.
bool
ParseCount(const std::string& text, uint32_t& value)
{
    if (text.empty() || text.size() > 10)
    {
        return false;
    }
    uint64_t v = 0;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    if (v > std::numeric_limits<uint32_t>::max())
    {
        return false;
    }
    value = static_cast<uint32_t>(v);
    return true;
}

/// Reads a topology file line by line (the format is in topology.h, ReadTopology).
class TopologyFileReader
{
  public:
    /// \param source the name errors cite
    explicit TopologyFileReader(const std::string& source)
        : m_source(source)
    {
    }

    /**
     * \param line the next line, as read
     * \throws std::invalid_argument citing the source and the line number
     */
    void Read(std::string line)
    {
        line = LineContent(std::move(line), ++m_lineNo);
        std::istringstream fields(line);
        std::string keyword;
        if (!(fields >> keyword))
        {
            return; // blank or comment-only line
        }
        std::vector<std::string> args;
        for (std::string arg; fields >> arg;)
        {
            args.push_back(arg);
        }
        if (keyword == "topology")
        {
            ReadName(line, args);
        }
        else if (keyword == "servers" || keyword == "switches")
        {
            ReadCount(keyword, line, args);
        }
        else if (keyword == "link")
        {
            ReadLink(line, args);
        }
        else if (keyword == "aggregator")
        {
            ReadAggregator(line, args);
        }
        else
        {
            Fail("unknown keyword '" + Abbreviate(keyword, 40) +
                 "'; expected 'topology', 'servers', 'switches', 'link' or 'aggregator'");
        }
    }

    /// \return the topology read, checked as a whole
    Topology Finish()
    {
        if (!m_haveServers || !m_haveSwitches)
        {
            throw std::invalid_argument(
                m_source + ": missing '" + std::string(m_haveServers ? "switches" : "servers") +
                "' line; a topology file needs 'servers N' and 'switches M'");
        }
        if (!m_created)
        {
            m_topology = Topology(m_name.empty() ? m_source : m_name, m_servers, m_switches);
        }
        for (const auto& [node, slots] : m_aggregators)
        {
            m_topology.SetAggregatorSlots(node, slots);
        }
        try
        {
            m_topology.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(m_source + ": " + e.what());
        }
        return m_topology;
    }

  private:
    /// \return read(), its error prefixed with the file and line
    template <typename Read>
    auto ReadQuantity(Read read) const
    {
        try
        {
            return read();
        }
        catch (const std::invalid_argument& e)
        {
            Fail(e.what());
        }
    }

    /// Throws what, citing the source and the line.
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::invalid_argument(m_source + ":" + std::to_string(m_lineNo) + ": " + what);
    }

    /// 'topology NAME': the rest of the line is the name.
    void ReadName(const std::string& line, const std::vector<std::string>& args)
    {
        if (args.empty())
        {
            Fail("'topology' needs a name, e.g. 'topology my-dcn'");
        }
        if (m_created)
        {
            Fail("'topology' must come before the first 'link'");
        }
        const auto start = line.find_first_not_of(" \t", line.find("topology") + 8);
        m_name = line.substr(start);
        m_name.erase(m_name.find_last_not_of(" \t") + 1);
        if (HasControlCharacter(m_name))
        {
            Fail("the name holds a control character (such as ESC or a tab), got '" +
                 Abbreviate(m_name, 40) + "'; give printable text");
        }
    }

    /// 'servers N' or 'switches M', once each, before the links.
    void ReadCount(const std::string& keyword,
                   const std::string& line,
                   const std::vector<std::string>& args)
    {
        uint32_t value = 0;
        if (args.size() != 1 || !ParseCount(args[0], value))
        {
            Fail("expected '" + keyword + " COUNT' with a whole number COUNT >= 0, got '" +
                 Abbreviate(line) + "'");
        }
        if (m_created)
        {
            Fail("'" + keyword + "' must come before the first 'link'");
        }
        bool& have = (keyword == "servers") ? m_haveServers : m_haveSwitches;
        if (have)
        {
            Fail("'" + keyword + "' is given twice");
        }
        have = true;
        (keyword == "servers" ? m_servers : m_switches) = value;
    }

    /// 'link A B [rate=R] [factor=X] [delay=D]': the first one creates the topology.
    void ReadLink(const std::string& line, const std::vector<std::string>& args)
    {
        uint32_t a = 0;
        uint32_t b = 0;
        if (args.size() < 2 || !ParseCount(args[0], a) || !ParseCount(args[1], b))
        {
            Fail("expected 'link A B' with two node ids, got '" + Abbreviate(line) + "'");
        }
        const LinkProperties properties = ReadLinkProperties(args);
        if (!m_haveServers || !m_haveSwitches)
        {
            Fail("'servers N' and 'switches M' must come before the first 'link'");
        }
        try
        {
            if (!m_created)
            {
                m_topology = Topology(m_name.empty() ? m_source : m_name, m_servers, m_switches);
                m_created = true;
            }
            const uint32_t link = m_topology.AddLink(a, b);
            m_topology.SetLinkProperties(link, properties);
        }
        catch (const std::invalid_argument& e)
        {
            Fail(e.what());
        }
    }

    /// 'aggregator SWITCH [slots=N]': the switch adds gradients in flight (N >= 1 slots,
    /// unlimited when not given).
    void ReadAggregator(const std::string& line, const std::vector<std::string>& args)
    {
        uint32_t node = 0;
        if (args.empty() || args.size() > 2 || !ParseCount(args[0], node))
        {
            Fail("expected 'aggregator SWITCH [slots=N]' with a switch's node id, got '" +
                 Abbreviate(line) + "'");
        }
        if (!m_haveServers || !m_haveSwitches)
        {
            Fail("'servers N' and 'switches M' must come before 'aggregator'");
        }
        if (node < m_servers || node - m_servers >= m_switches)
        {
            Fail("node " + std::to_string(node) + " is not a switch (switches are nodes " +
                 std::to_string(m_servers) + ".." +
                 std::to_string(uint64_t{m_servers} + m_switches - 1) +
                 "); only switches take 'aggregator'");
        }
        uint32_t slots = Topology::UNLIMITED_SLOTS;
        if (args.size() == 2)
        {
            const std::string prefix = "slots=";
            if (args[1].rfind(prefix, 0) != 0 || !ParseCount(args[1].substr(prefix.size()), slots) ||
                slots == 0 || slots == Topology::UNLIMITED_SLOTS)
            {
                Fail("an aggregator takes slots=N with a whole number N from 1 to " +
                     std::to_string(Topology::UNLIMITED_SLOTS - 1) +
                     " (leave it out for unlimited slots), got '" + Abbreviate(args[1], 40) +
                     "'");
            }
        }
        if (!m_aggregators.emplace(node, slots).second)
        {
            Fail("switch " + std::to_string(node) + " is named 'aggregator' twice");
        }
    }

    /// The optional columns of a link line, each at most once.
    LinkProperties ReadLinkProperties(const std::vector<std::string>& args) const
    {
        LinkProperties p;
        std::set<std::string> seen;
        for (size_t i = 2; i < args.size(); ++i)
        {
            const auto eq = args[i].find('=');
            const std::string key = args[i].substr(0, eq);
            const std::string value = eq == std::string::npos ? "" : args[i].substr(eq + 1);
            if (!seen.insert(key).second)
            {
                Fail("'" + Abbreviate(key, 40) + "' is given twice on one link");
            }
            if (key == "rate")
            {
                p.rateBps = ReadQuantity([&] { return Quantity::ParseRate("rate", value); });
            }
            else if (key == "delay")
            {
                p.delayNs = ReadQuantity([&] { return Quantity::ParseTimeNs("delay", value, false); });
                if (p.delayNs > Topology::MAX_DELAY_NS)
                {
                    Fail("delay must be at most 1000s, got '" + Abbreviate(value, 40) + "'");
                }
            }
            else if (key == "factor")
            {
                if (!ParseDecimal(value, p.rateFactor) ||
                    !(p.rateFactor > 0 && p.rateFactor <= 1000))
                {
                    Fail("factor must be a number in (0, 1000] (the link runs at that times its "
                         "rate), got '" +
                         Abbreviate(value, 40) + "'");
                }
            }
            else
            {
                Fail("unknown link column '" + Abbreviate(args[i], 40) +
                     "'; a link takes 'link A B' then optionally rate=R, factor=X, delay=D");
            }
        }
        return p;
    }

    std::string m_source;      //!< the name errors cite
    uint32_t m_lineNo{0};      //!< the line being read
    std::string m_name;        //!< from 'topology'
    bool m_haveServers{false}; //!< 'servers' was read
    bool m_haveSwitches{false}; //!< 'switches' was read
    uint32_t m_servers{0};     //!< from 'servers'
    uint32_t m_switches{0};    //!< from 'switches'
    Topology m_topology;       //!< created at the first link
    bool m_created{false};     //!< whether m_topology was created
    std::map<uint32_t, uint32_t> m_aggregators; //!< from 'aggregator': switch -> slots
};

} // namespace

Topology
ReadTopology(std::istream& is, const std::string& source)
{
    TopologyFileReader reader(source);
    for (std::string line; std::getline(is, line);)
    {
        reader.Read(line);
    }
    if (is.bad())
    {
        throw std::invalid_argument(source + ": read error");
    }
    return reader.Finish();
}

Topology
ReadTopologyFile(const std::string& path)
{
    // A link line takes a dozen bytes and a link about 64 in memory: the file's limit keeps
    // the topology within its MAX_LINKS.
    std::string text;
    try
    {
        text = ReadTextFile(path, "topology file", 64 * Topology::MAX_LINKS);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string(e.what()) +
                                    " (file:PATH takes a path to a topology file, see "
                                    "doc/allreduce.rst)");
    }
    std::istringstream is(text);
    return ReadTopology(is, Abbreviate(path, 200));
}

} // namespace ns3
