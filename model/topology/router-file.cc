/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "router-file.h"

#include "topology.h"

#include "ns3/text-file.h"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace ns3
{

namespace
{

/// The lines of a file, each without a leading byte-order mark or a trailing carriage return.
std::vector<std::string>
SplitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream is(text);
    std::string line;
    while (std::getline(is, line))
    {
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        lines.push_back(std::move(line));
    }
    return lines;
}

/// The blank-separated fields of a line.
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> fields;
    std::istringstream is(line);
    std::string field;
    while (is >> field)
    {
        fields.push_back(field);
    }
    return fields;
}

/// Builds a RouterGraph and words its errors: "FILE line N: ...".
class GraphBuilder
{
  public:
    GraphBuilder(const std::string& source, const std::string& format)
        : m_source(source),
          m_format(format)
    {
    }

    [[noreturn]] void Fail(uint64_t line, const std::string& what) const
    {
        throw std::invalid_argument(m_format + " file '" + m_source + "' line " +
                                    std::to_string(line) + ": " + what);
    }

    [[noreturn]] void FailFile(const std::string& what) const
    {
        throw std::invalid_argument(m_format + " file '" + m_source + "': " + what);
    }

    /// \return the router's index, added on first mention
    uint32_t Router(const std::string& name, uint64_t line)
    {
        if (HasControlCharacter(name))
        {
            Fail(line, "the router name '" + Abbreviate(name) + "' holds a control character");
        }
        auto [it, added] = m_index.emplace(name, uint32_t(m_graph.names.size()));
        if (added)
        {
            if (m_graph.names.size() >= Topology::MAX_NODES / 2)
            {
                Fail(line, "more than " + std::to_string(Topology::MAX_NODES / 2) +
                               " routers (each gets a server)");
            }
            m_graph.names.push_back(name);
        }
        return it->second;
    }

    /**
     * Adds the link from a to b. With directed, the file gives each direction once: the
     * second direction is the same link, the same direction twice is an error; otherwise
     * either direction twice is.
     */
    void Link(const std::string& a, const std::string& b, uint64_t line, bool directed)
    {
        if (a == b)
        {
            Fail(line, "a link from router '" + Abbreviate(a) +
                           "' to itself; remove the line (a link joins two routers)");
        }
        const uint32_t from = Router(a, line);
        const uint32_t to = Router(b, line);
        const auto pair = std::minmax(from, to);
        const auto [it, added] = m_links.emplace(std::pair(pair.first, pair.second), line);
        if (added)
        {
            if (m_graph.links.size() >= Topology::MAX_LINKS / 2)
            {
                Fail(line, "more than " + std::to_string(Topology::MAX_LINKS / 2) + " links");
            }
            m_graph.links.emplace_back(from, to);
            m_graph.lines.push_back(line);
            m_directions.emplace(from, to);
            return;
        }
        if (directed && m_directions.emplace(from, to).second)
        {
            return; // the link's other direction
        }
        Fail(line, "the link between '" + Abbreviate(a) + "' and '" + Abbreviate(b) +
                       "' was already given on line " + std::to_string(it->second) +
                       (directed ? " in this direction" : "") + "; remove one of the two lines");
    }

    void Note(const std::string& note)
    {
        m_graph.notes.push_back(note);
    }

    /// \return the graph, once checked to have links and to be connected
    RouterGraph Finish()
    {
        if (m_graph.links.empty())
        {
            FailFile("no link in it; is it in the " + m_format + " format?");
        }
        std::vector<std::vector<uint32_t>> adjacent(m_graph.names.size());
        for (const auto& [a, b] : m_graph.links)
        {
            adjacent[a].push_back(b);
            adjacent[b].push_back(a);
        }
        std::vector<bool> seen(adjacent.size(), false);
        std::vector<uint32_t> stack{0};
        seen[0] = true;
        while (!stack.empty())
        {
            const uint32_t r = stack.back();
            stack.pop_back();
            for (uint32_t n : adjacent[r])
            {
                if (!seen[n])
                {
                    seen[n] = true;
                    stack.push_back(n);
                }
            }
        }
        for (uint32_t r = 0; r < seen.size(); ++r)
        {
            if (!seen[r])
            {
                FailFile("router '" + Abbreviate(m_graph.names[r]) + "' cannot be reached from '" +
                         Abbreviate(m_graph.names[0]) +
                         "': the network is in parts, and an AllReduce needs every server "
                         "to reach every other");
            }
        }
        return std::move(m_graph);
    }

  private:
    std::string m_source;
    std::string m_format;
    RouterGraph m_graph;
    std::unordered_map<std::string, uint32_t> m_index;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> m_links; // link -> its first line
    std::set<std::pair<uint32_t, uint32_t>> m_directions;     // directions given
};

RouterGraph
ParseInet(const std::vector<std::string>& lines, GraphBuilder& graph)
{
    const std::string header = "NODES LINKS";
    size_t i = 0;
    while (i < lines.size() && Fields(lines[i]).empty())
    {
        ++i;
    }
    const std::vector<std::string> head =
        i < lines.size() ? Fields(lines[i]) : std::vector<std::string>{};
    uint64_t nodes = 0;
    uint64_t links = 0;
    if (head.size() != 2 || !ParseWholeNumber(head[0], Topology::MAX_NODES / 2, nodes) ||
        !ParseWholeNumber(head[1], Topology::MAX_LINKS / 2, links))
    {
        graph.Fail(i + 1, "an Inet file starts with the line '" + header + "' (two whole numbers, "
                          "at most " + std::to_string(Topology::MAX_NODES / 2) + " and " +
                          std::to_string(Topology::MAX_LINKS / 2) + ")");
    }
    std::map<std::string, uint64_t> declared; // id -> its line
    std::set<std::string> linked;
    uint64_t nodesRead = 0;
    uint64_t linksRead = 0;
    for (++i; i < lines.size(); ++i)
    {
        const std::vector<std::string> f = Fields(lines[i]);
        const uint64_t line = i + 1;
        double coordinate = 0;
        uint64_t id = 0;
        if (f.empty())
        {
            continue;
        }
        if (nodesRead < nodes)
        {
            if (f.size() != 3 || !ParseWholeNumber(f[0], UINT32_MAX, id) ||
                !ParseDecimal(f[1], coordinate) || !ParseDecimal(f[2], coordinate))
            {
                graph.Fail(line, "expected a router 'ID X Y' (" + std::to_string(nodesRead) +
                                     " of the header's " + std::to_string(nodes) +
                                     " routers read), got '" + Abbreviate(lines[i]) + "'");
            }
            const auto [it, added] = declared.emplace(f[0], line);
            if (!added)
            {
                graph.Fail(line, "router " + f[0] + " was already declared on line " +
                                     std::to_string(it->second));
            }
            ++nodesRead;
            continue;
        }
        if (linksRead == links)
        {
            graph.Fail(line, "a line past the header's " + std::to_string(links) +
                                 " links; correct the header or remove the line");
        }
        if ((f.size() != 2 && f.size() != 3) || (f.size() == 3 && !ParseDecimal(f[2], coordinate)))
        {
            graph.Fail(line, "expected a link 'FROM TO [WEIGHT]' (" + std::to_string(linksRead) +
                                 " of the header's " + std::to_string(links) +
                                 " links read), got '" + Abbreviate(lines[i]) + "'");
        }
        for (const std::string& end : {f[0], f[1]})
        {
            if (declared.count(end) == 0)
            {
                graph.Fail(line, "router '" + Abbreviate(end) +
                                     "' is not among the routers declared after the header");
            }
            linked.insert(end);
        }
        graph.Link(f[0], f[1], line, false);
        ++linksRead;
    }
    if (nodesRead < nodes || linksRead < links)
    {
        graph.FailFile("the header promises " + std::to_string(nodes) + " routers and " +
                       std::to_string(links) + " links, the file has " +
                       std::to_string(nodesRead) + " and " + std::to_string(linksRead) +
                       "; correct the header");
    }
    for (const auto& [id, line] : declared)
    {
        if (linked.count(id) == 0)
        {
            graph.Fail(line, "router " + id + " has no link; its server could reach no other");
        }
    }
    return graph.Finish();
}

RouterGraph
ParseOrbis(const std::vector<std::string>& lines, GraphBuilder& graph)
{
    for (size_t i = 0; i < lines.size(); ++i)
    {
        const std::vector<std::string> f = Fields(lines[i]);
        if (f.empty())
        {
            continue;
        }
        if (f.size() != 2)
        {
            graph.Fail(i + 1, "an Orbis line is a link 'FROM TO', got '" + Abbreviate(lines[i]) +
                                  "'");
        }
        graph.Link(f[0], f[1], i + 1, false);
    }
    return graph.Finish();
}

/// A router's line of a Rocketfuel maps file.
struct MapsLine
{
    std::string uid;
    std::vector<std::string> neighbours;
    bool inside = true; //!< radius 0: a router of the ISP
};

/// Reads "UID @LOC [+] [bb] (N) [&EXT] -> <NUID> ... {-EUID} ... =NAME[!] rR"; "" when it fits.
std::string
ReadMapsLine(const std::vector<std::string>& f, MapsLine& out)
{
    const auto digits = [](const std::string& s, size_t from, size_t to) {
        return to > from && s.find_first_not_of("0123456789", from) >= to;
    };
    size_t k = 0;
    if (f.empty() || !digits(f[0], f[0].find_first_not_of('-'), f[0].size()))
    {
        return "the line starts with the router's UID (digits)";
    }
    out.uid = f[k++];
    if (k == f.size() || f[k][0] != '@')
    {
        return "its location '@LOC' follows the UID";
    }
    ++k;
    k += k < f.size() && f[k] == "+";
    k += k < f.size() && f[k] == "bb";
    if (k == f.size() || f[k].size() < 3 || f[k].front() != '(' || f[k].back() != ')' ||
        !digits(f[k], 1, f[k].size() - 1))
    {
        return "the neighbour count '(N)' follows the location and the '+' and 'bb' flags";
    }
    ++k;
    k += k < f.size() && f[k][0] == '&' && digits(f[k], 1, f[k].size());
    if (k == f.size() || f[k] != "->")
    {
        return "'->' follows the neighbour count (and '&EXT')";
    }
    for (++k; k < f.size() && f[k][0] == '<'; ++k)
    {
        if (f[k].size() < 3 || f[k].back() != '>' || !digits(f[k], 1, f[k].size() - 1))
        {
            return "a neighbour is '<UID>', got '" + Abbreviate(f[k]) + "'";
        }
        out.neighbours.push_back(f[k].substr(1, f[k].size() - 2));
    }
    while (k < f.size() && f[k].size() > 3 && f[k].compare(0, 2, "{-") == 0 &&
           f[k].back() == '}' && digits(f[k], 2, f[k].size() - 1))
    {
        ++k; // an external neighbour
    }
    if (k == f.size() || f[k].size() < 2 || f[k][0] != '=')
    {
        return "the name '=NAME' follows the neighbours '<UID>' and '{-EUID}'";
    }
    ++k;
    if (k + 1 != f.size() || f[k].size() != 2 || f[k][0] != 'r' || !digits(f[k], 1, 2))
    {
        return "the line ends with the radius 'rN' after the name";
    }
    out.inside = f[k] == "r0";
    return "";
}

RouterGraph
ParseRocketfuelMaps(const std::vector<std::string>& lines, GraphBuilder& graph)
{
    std::vector<std::pair<uint64_t, MapsLine>> routers;
    std::map<std::string, uint64_t> declared;
    for (size_t i = 0; i < lines.size(); ++i)
    {
        const std::vector<std::string> f = Fields(lines[i]);
        if (f.empty())
        {
            continue;
        }
        MapsLine router;
        const std::string wrong = ReadMapsLine(f, router);
        if (!wrong.empty())
        {
            graph.Fail(i + 1, "not a Rocketfuel maps line ('UID @LOC [+] [bb] (N) [&EXT] -> "
                              "<NUID> ... {-EUID} ... =NAME rR'): " + wrong);
        }
        const auto [it, added] = declared.emplace(router.uid, i + 1);
        if (!added)
        {
            graph.Fail(i + 1, "router " + router.uid + " already has line " +
                                  std::to_string(it->second));
        }
        routers.emplace_back(i + 1, std::move(router));
    }
    std::set<std::string> linked;
    uint64_t outside = 0;
    for (const auto& [line, router] : routers)
    {
        outside += !router.inside;
        for (const std::string& neighbour : router.inside ? router.neighbours
                                                          : std::vector<std::string>{})
        {
            if (declared.count(neighbour) == 0)
            {
                graph.Fail(line, "neighbour <" + neighbour + "> of router " + router.uid +
                                     " has no line of its own in the map");
            }
            graph.Link(router.uid, neighbour, line, true);
            linked.insert(router.uid);
            linked.insert(neighbour);
        }
    }
    if (outside > 0)
    {
        graph.Note(std::to_string(outside) + " routers of radius r1 or more (outside the ISP) "
                   "add no links of their own, as in ns-3's reader");
    }
    for (const auto& [line, router] : routers)
    {
        if (linked.count(router.uid) == 0)
        {
            graph.Note("router " + router.uid + " (line " + std::to_string(line) +
                       ") is left out: it has no neighbour inside the map");
        }
    }
    return graph.Finish();
}

RouterGraph
ParseRocketfuelWeights(const std::vector<std::string>& lines, GraphBuilder& graph)
{
    for (size_t i = 0; i < lines.size(); ++i)
    {
        const std::vector<std::string> f = Fields(lines[i]);
        double weight = 0;
        if (f.empty())
        {
            continue;
        }
        if (f.size() != 3 || !ParseDecimal(f[2], weight) || weight < 0)
        {
            graph.Fail(i + 1, "a Rocketfuel weights line is 'FROM TO WEIGHT' (a number "
                              ">= 0), got '" + Abbreviate(lines[i]) + "'");
        }
        graph.Link(f[0], f[1], i + 1, true);
    }
    return graph.Finish();
}

} // namespace

RouterGraph
ParseRouterFile(const std::string& text, const std::string& format, const std::string& source)
{
    std::string body = text;
    StripByteOrderMark(body);
    const std::vector<std::string> lines = SplitLines(body);
    if (format == "inet")
    {
        GraphBuilder graph(source, "Inet");
        return ParseInet(lines, graph);
    }
    if (format == "orbis")
    {
        GraphBuilder graph(source, "Orbis");
        return ParseOrbis(lines, graph);
    }
    if (format != "rocketfuel")
    {
        throw std::invalid_argument("unknown router file format '" + Abbreviate(format) +
                                    "': give inet, orbis or rocketfuel");
    }
    // Told apart by the first line, as ns-3's reader does: a router's line with "->", or a
    // weighted link.
    size_t first = 0;
    while (first < lines.size() && Fields(lines[first]).empty())
    {
        ++first;
    }
    const std::vector<std::string> f =
        first < lines.size() ? Fields(lines[first]) : std::vector<std::string>{};
    if (f.size() == 3)
    {
        GraphBuilder graph(source, "Rocketfuel weights");
        return ParseRocketfuelWeights(lines, graph);
    }
    GraphBuilder graph(source, "Rocketfuel maps");
    return ParseRocketfuelMaps(lines, graph);
}

RouterGraph
ReadRouterFile(const std::string& path, const std::string& format)
{
    return ParseRouterFile(ReadTextFile(path, format + " router file", MAX_ROUTER_FILE_BYTES),
                           format,
                           Abbreviate(path, 200));
}

} // namespace ns3
