/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-summary.h"

#include "bar-chart.h"
#include "paper-topologies.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/topology-generators.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

/// Breadth-first searches for the diameter: about 2e8 node and link visits in all.
constexpr uint64_t DIAMETER_BUDGET = 200000000;

nlohmann::json
ToJson(const TopologySummary& s)
{
    nlohmann::json j{{"topology", s.topology.GetName()},
                     {"spec", s.spec},
                     {"servers", s.topology.GetNServers()},
                     {"switches", s.topology.GetNSwitches()},
                     {"nodes", s.topology.GetNNodes()},
                     {"links", s.topology.GetNLinks()},
                     {"ports_per_server", {{"min", s.minPorts}, {"max", s.maxPorts}}},
                     {"diameter", s.diameter},
                     {"diameter_exact", s.diameterSources >= s.topology.GetNServers()},
                     {"diameter_sources", s.diameterSources}};
    if (!s.paper.empty())
    {
        j["paper_nodes_links"] = s.paper;
    }
    return j;
}

} // namespace

std::string
TopologySummary::GetDiameterText() const
{
    return std::to_string(diameter) + (diameterSources < topology.GetNServers() ? "+" : "");
}

std::string
TopologySummary::GetPortsText() const
{
    return minPorts == maxPorts ? std::to_string(minPorts)
                                : std::to_string(minPorts) + "-" + std::to_string(maxPorts);
}

TopologySummary
DescribeTopology(const std::string& spec)
{
    TopologySummary s{spec, BuildTopology(spec), UINT32_MAX, 0, 0, 0, ""};
    const Topology& t = s.topology;
    for (uint32_t i = 0; i < t.GetNServers(); ++i)
    {
        s.minPorts = std::min(s.minPorts, t.GetNPorts(i));
        s.maxPorts = std::max(s.maxPorts, t.GetNPorts(i));
    }
    const uint64_t perSearch = t.GetNNodes() + 2ULL * t.GetNLinks();
    s.diameterSources = static_cast<uint32_t>(
        std::max<uint64_t>(1, std::min<uint64_t>(t.GetNServers(), DIAMETER_BUDGET / perSearch)));
    s.diameter = t.GetServerDiameter(s.diameterSources);
    if (const PaperTopology* paper = FindPaperTopology(spec))
    {
        s.paper = paper->GetSizeText();
    }
    return s;
}

void
PrintTopologySummary(std::ostream& os, const TopologySummary& s)
{
    const Topology& t = s.topology;
    const bool sampled = s.diameterSources < t.GetNServers();
    os << "topology        " << t.GetName() << "\n"
       << "servers         " << t.GetNServers() << "\n"
       << "switches        " << t.GetNSwitches() << "\n"
       << "nodes           " << t.GetNNodes() << "\n"
       << "links           " << t.GetNLinks() << "\n"
       << "ports/server    " << s.GetPortsText() << "\n"
       << "diameter        " << s.GetDiameterText() << " (links between the farthest servers"
       << (sampled ? "; at least, from searches out of " + std::to_string(s.diameterSources) +
                         " of the " + std::to_string(t.GetNServers()) + " servers"
                   : "")
       << ")\n";
    if (!s.paper.empty())
    {
        os << "paper           " << s.paper << " (nodes, links)\n";
    }
}

void
PrintTopologyTable(std::ostream& os, const std::vector<TopologySummary>& rows)
{
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    for (const char* header :
         {"servers", "switches", "nodes", "links", "ports/server", "diameter", "paper(n,l)"})
    {
        table.AddColumn(header);
    }
    bool misprint = false;
    bool sampled = false;
    for (const auto& r : rows)
    {
        const Topology& t = r.topology;
        table.AddRow({t.GetName(),
                      std::to_string(t.GetNServers()),
                      std::to_string(t.GetNSwitches()),
                      std::to_string(t.GetNNodes()),
                      std::to_string(t.GetNLinks()),
                      r.GetPortsText(),
                      r.GetDiameterText(),
                      r.paper.empty() ? "-" : r.paper});
        misprint = misprint || r.paper.find('*') != std::string::npos;
        sampled = sampled || r.diameterSources < t.GetNServers();
    }
    table.Print(os);
    if (misprint)
    {
        os << "* the paper reports 59 links; a 4-regular graph on 20 switches has 40 switch "
              "links, plus 20 server links: 60.\n";
    }
    if (sampled)
    {
        os << "+ at least: searched from a sample of the servers (a large topology)\n";
    }
}

void
WriteTopologyJson(std::ostream& os, const std::vector<TopologySummary>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
    {
        out.push_back(ToJson(r));
    }
    os << (rows.size() == 1 ? out.front() : out).dump(2) << std::endl;
}

std::string
WriteTopologyFigure(const std::vector<TopologySummary>& rows, const std::string& prefix)
{
    std::vector<std::string> labels;
    std::vector<std::vector<double>> counts(3);
    for (const auto& r : rows)
    {
        labels.push_back(ShortLabel(r.topology.GetName()));
        counts[0].push_back(r.topology.GetNServers());
        counts[1].push_back(r.topology.GetNSwitches());
        counts[2].push_back(r.topology.GetNLinks());
    }
    BarChart chart("count", labels, {"servers", "switches", "links"});
    chart.AddPanel("Data-center topologies: servers, switches and links", counts);
    return chart.Write(prefix, "plot");
}

} // namespace ns3
