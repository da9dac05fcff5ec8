/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Builds data-center topologies from spec strings and describes them: servers, switches, nodes,
// links, ports per server and server diameter, as text, a table or JSON; optionally writes
// Graphviz, the topology file, and a Gnuplot figure.
//
//   dcn-topology --topology=bcube:n=3,k=1
//   dcn-topology --topology=dcell:n=4,k=1 --format=json
//   dcn-topology --topology="bcube:n=3,k=1;fattree:k=4" --plot=results/sizes
//   dcn-topology --paper --plot=results/topologies     (the seed paper's nine sizes)
//   dcn-topology --topology=jellyfish:switches=10,degree=4 --dot=jf.dot --write=jf.topo

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include "example-util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

using namespace ns3;
using allreduce_example::RunGnuplot;
using allreduce_example::ShortLabel;
using allreduce_example::ParseList;

namespace
{

/// What one row of output says about a topology.
struct Summary
{
    std::string spec;
    Topology topology;
    uint32_t minPorts{0};
    uint32_t maxPorts{0};
    uint32_t diameter{0};
    uint32_t diameterSources{0}; // servers searched from; fewer than all: a lower bound
    std::string paper; // the seed paper's "(nodes, links)", or empty

    /// \return "6", or "6+" when the diameter is a lower bound from a sample
    std::string Diameter() const
    {
        return std::to_string(diameter) +
               (diameterSources < topology.GetNServers() ? "+" : "");
    }
};

/// Breadth-first searches for the diameter: about 2e8 node and link visits in all (a second
/// or two), so that a large topology is described at once, with a sampled diameter.
constexpr uint64_t DIAMETER_BUDGET = 200000000;

/// The seed paper's Table 2 sizes, "(nodes, links)", by spec.
const std::map<std::string, std::string>&
PaperSizes()
{
    static const std::map<std::string, std::string> sizes{
        {"bcube:n=3,k=1", "(15,18)"},
        {"bcube:n=4,k=1", "(24,32)"},
        {"bcube:n=5,k=1", "(35,50)"},
        {"dcell:n=4,k=1", "(25,30)"},
        {"dcell:n=5,k=1", "(36,45)"},
        {"dcell:n=6,k=1", "(49,63)"},
        {"jellyfish:switches=10,degree=4,servers=1,seed=1", "(20,30)"},
        {"jellyfish:switches=15,degree=4,servers=1,seed=1", "(30,45)"},
        {"jellyfish:switches=20,degree=4,servers=1,seed=1", "(40,59)*"},
    };
    return sizes;
}

Summary
Describe(const std::string& spec)
{
    Summary s{spec, BuildTopology(spec), 0, 0, 0, 0, ""};
    const Topology& t = s.topology;
    s.minPorts = UINT32_MAX;
    for (uint32_t i = 0; i < t.GetNServers(); ++i)
    {
        s.minPorts = std::min(s.minPorts, t.GetNPorts(i));
        s.maxPorts = std::max(s.maxPorts, t.GetNPorts(i));
    }
    const uint64_t perSearch = t.GetNNodes() + 2ULL * t.GetNLinks();
    s.diameterSources = static_cast<uint32_t>(
        std::max<uint64_t>(1, std::min<uint64_t>(t.GetNServers(), DIAMETER_BUDGET / perSearch)));
    s.diameter = t.GetServerDiameter(s.diameterSources);
    const auto it = PaperSizes().find(spec);
    if (it != PaperSizes().end())
    {
        s.paper = it->second;
    }
    return s;
}

std::string
Ports(const Summary& s)
{
    return s.minPorts == s.maxPorts ? std::to_string(s.minPorts)
                                    : std::to_string(s.minPorts) + "-" + std::to_string(s.maxPorts);
}

nlohmann::json
ToJson(const Summary& s)
{
    nlohmann::json j;
    j["topology"] = s.topology.GetName();
    j["spec"] = s.spec;
    j["servers"] = s.topology.GetNServers();
    j["switches"] = s.topology.GetNSwitches();
    j["nodes"] = s.topology.GetNNodes();
    j["links"] = s.topology.GetNLinks();
    j["ports_per_server"] = {{"min", s.minPorts}, {"max", s.maxPorts}};
    j["diameter"] = s.diameter;
    j["diameter_exact"] = s.diameterSources >= s.topology.GetNServers();
    j["diameter_sources"] = s.diameterSources;
    if (!s.paper.empty())
    {
        j["paper_nodes_links"] = s.paper;
    }
    return j;
}

void
PrintOne(const Summary& s)
{
    const Topology& t = s.topology;
    std::cout << "topology        " << t.GetName() << "\n"
              << "servers         " << t.GetNServers() << "\n"
              << "switches        " << t.GetNSwitches() << "\n"
              << "nodes           " << t.GetNNodes() << "\n"
              << "links           " << t.GetNLinks() << "\n"
              << "ports/server    " << Ports(s) << "\n"
              << "diameter        " << s.Diameter() << " (links between the farthest servers"
              << (s.Diameter().back() == '+'
                      ? "; at least, from searches out of " + std::to_string(s.diameterSources) +
                            " of the " + std::to_string(t.GetNServers()) + " servers"
                      : "")
              << ")\n";
    if (!s.paper.empty())
    {
        std::cout << "paper           " << s.paper << " (nodes, links)\n";
    }
}

void
PrintTable(const std::vector<Summary>& rows)
{
    size_t width = 8;
    for (const auto& r : rows)
    {
        width = std::max(width, r.topology.GetName().size());
    }
    std::cout << std::left << std::setw(static_cast<int>(width)) << "topology" << std::right
              << std::setw(9) << "servers" << std::setw(10) << "switches" << std::setw(7)
              << "nodes" << std::setw(7) << "links" << std::setw(14) << "ports/server"
              << std::setw(10) << "diameter" << std::setw(12) << "paper(n,l)"
              << "\n";
    bool footnote = false;
    for (const auto& r : rows)
    {
        const Topology& t = r.topology;
        std::cout << std::left << std::setw(static_cast<int>(width)) << t.GetName() << std::right
                  << std::setw(9) << t.GetNServers() << std::setw(10) << t.GetNSwitches()
                  << std::setw(7) << t.GetNNodes() << std::setw(7) << t.GetNLinks()
                  << std::setw(14) << Ports(r) << std::setw(10) << r.Diameter() << std::setw(12)
                  << (r.paper.empty() ? "-" : r.paper) << "\n";
        footnote = footnote || r.paper.find('*') != std::string::npos;
    }
    if (footnote)
    {
        std::cout << "* the paper reports 59 links; a 4-regular graph on 20 switches has 40 "
                     "switch links, plus 20 server links: 60.\n";
    }
    if (std::any_of(rows.begin(), rows.end(), [](const Summary& r) {
            return r.Diameter().back() == '+';
        }))
    {
        std::cout << "+ at least: searched from a sample of the servers (a large topology)\n";
    }
}

void
WriteDot(const Topology& t, const std::string& path)
{
    std::ofstream os(path);
    if (!os)
    {
        throw std::invalid_argument("cannot write --dot file '" + path + "'");
    }
    os << "graph " << nlohmann::json(t.GetName()).dump() << " {\n"
       << "  // servers are boxes (s<id>), switches ellipses (w<id>)\n";
    for (uint32_t v = 0; v < t.GetNNodes(); ++v)
    {
        const bool server = t.IsServer(v);
        os << "  " << v << " [label=\"" << (server ? "s" : "w") << v
           << "\", shape=" << (server ? "box" : "ellipse") << "];\n";
    }
    for (const auto& link : t.GetLinks())
    {
        os << "  " << link.a << " -- " << link.b << ";\n";
    }
    os << "}\n";
}

/// A short axis label: the name without its keys, e.g. "jellyfish(10,4,1,1)".
/// Writes PREFIX.dat and PREFIX.plt and runs gnuplot to draw PREFIX.png; returns what it made.
std::string
Plot(const std::vector<Summary>& rows, const std::string& prefix)
{
    const std::string dat = prefix + ".dat";
    const std::string plt = prefix + ".plt";
    const std::string png = prefix + ".png";
    {
        std::ofstream os(dat);
        if (!os)
        {
            throw std::invalid_argument("cannot write '" + dat +
                                        "': check that the directory of --plot exists");
        }
        os << "# topology servers switches links diameter\n";
        for (const auto& r : rows)
        {
            os << nlohmann::json(ShortLabel(r.topology.GetName())).dump() << " "
               << r.topology.GetNServers() << " " << r.topology.GetNSwitches() << " "
               << r.topology.GetNLinks() << " " << r.diameter << "\n";
        }
    }
    {
        std::ofstream os(plt);
        os << "set terminal pngcairo size 1100,520 noenhanced\n"
           << "set output '" << png << "'\n"
           << "set title 'Data-center topologies: servers, switches and links'\n"
           << "set style data histograms\n"
           << "set style histogram clustered gap 1\n"
           << "set style fill solid 0.8 border -1\n"
           << "set boxwidth 0.9\n"
           << "set ylabel 'count'\n"
           << "set xtics rotate by -30 left\n"
           << "set key top left\n"
           << "set grid ytics\n"
           << "set bmargin 5\n"
           << "plot '" << dat << "' using 2:xtic(1) title 'servers', "
           << "'' using 3 title 'switches', '' using 4 title 'links'\n";
    }
    return RunGnuplot(plt, png, dat);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topology;
    std::string format = "text";
    std::string dot;
    std::string write;
    std::string plot;
    bool paper = false;

    CheckedCommandLine cmd(__FILE__,
                           "Describes data-center topologies built from spec strings.\n"
                           "Specs: bcube:n=N,k=K  dcell:n=N,k=K  "
                           "jellyfish:switches=S,degree=R[,servers=H][,seed=X]  fattree:k=K  "
                           "file:PATH");
    cmd.AddString("topology", "one spec, or several separated by ';' (printed as a table)",
                  topology);
    cmd.AddFlag("paper", "describe the nine topologies the seed paper evaluates", paper);
    cmd.AddChoice("format", "output format", format, {"text", "json"});
    cmd.AddString("dot", "write the (single) topology as Graphviz to this file", dot);
    cmd.AddString("write", "write the (single) topology in the topology file format", write);
    cmd.AddString("plot", "write PREFIX.dat/.plt and draw PREFIX.png with gnuplot", plot);

    try
    {
        cmd.Parse(argc, argv);
        std::vector<std::string> specs;
        if (cmd.IsGiven("topology"))
        {
            specs = ParseList("topology", topology, ';');
        }
        if (paper)
        {
            const auto nine = PaperTopologySpecs();
            specs.insert(specs.end(), nine.begin(), nine.end());
        }
        if (specs.empty())
        {
            throw std::invalid_argument("give --topology=SPEC (e.g. bcube:n=3,k=1) or --paper");
        }
        if ((!dot.empty() || !write.empty()) && specs.size() != 1)
        {
            throw std::invalid_argument("--dot and --write need exactly one topology, got " +
                                        std::to_string(specs.size()));
        }
        std::vector<Summary> rows;
        for (const auto& spec : specs)
        {
            rows.push_back(Describe(spec));
        }
        if (format == "json")
        {
            nlohmann::json out;
            if (rows.size() == 1)
            {
                out = ToJson(rows.front());
            }
            else
            {
                out = nlohmann::json::array();
                for (const auto& r : rows)
                {
                    out.push_back(ToJson(r));
                }
            }
            std::cout << out.dump(2) << std::endl;
        }
        else if (rows.size() == 1)
        {
            PrintOne(rows.front());
        }
        else
        {
            PrintTable(rows);
        }
        // Messages about files go to stderr so that stdout stays one JSON document.
        if (!dot.empty())
        {
            WriteDot(rows.front().topology, dot);
            std::cerr << "wrote Graphviz to " << dot << "\n";
        }
        if (!write.empty())
        {
            WriteTopologyFile(rows.front().topology, write);
            std::cerr << "wrote topology file " << write << "\n";
        }
        if (!plot.empty())
        {
            std::cerr << "figure: " << Plot(rows, plot) << "\n";
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "dcn-topology: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
