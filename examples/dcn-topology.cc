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

#include "checked-command-line.h"
#include "paper-topologies.h"
#include "report-format.h"
#include "topology-summary.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <fstream>
#include <iostream>

using namespace ns3;

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
                           "Describes data-center topologies built from spec strings.\n" +
                               TOPOLOGY_SPECS_HELP);
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
            specs = ParseListValue("topology", topology, ';');
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
        cmd.RefuseSameFile({"topology"}, {"write", "dot"});
        cmd.CheckWritable({"write", "dot"});
        if ((!dot.empty() || !write.empty()) && specs.size() != 1)
        {
            throw std::invalid_argument("--dot and --write need exactly one topology, got " +
                                        std::to_string(specs.size()));
        }
        std::vector<TopologySummary> rows;
        for (const auto& spec : specs)
        {
            rows.push_back(RunWithHeartbeat(std::cerr,
                                            "dcn-topology",
                                            "building and measuring " + spec,
                                            [&] { return DescribeTopology(spec); }));
        }
        if (format == "json")
        {
            WriteTopologyJson(std::cout, rows);
        }
        else if (rows.size() == 1)
        {
            PrintTopologySummary(std::cout, rows.front());
        }
        else
        {
            PrintTopologyTable(std::cout, rows);
        }
        // Messages about files go to stderr so that stdout stays one JSON document.
        if (!dot.empty())
        {
            WriteOutputFile(dot, "dot", [&rows](std::ostream& os) {
                WriteGraphviz(rows.front().topology, os);
            });
            std::cerr << "wrote Graphviz to " << dot << "\n";
        }
        if (!write.empty())
        {
            WriteTopologyFile(rows.front().topology, write);
            std::cerr << "wrote topology file " << write << "\n";
        }
        if (!plot.empty())
        {
            const std::string figure = WriteTopologyFigure(rows, plot); // may refuse: first
            std::cerr << "figure: " << figure << "\n";
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "dcn-topology: error: " << DescribeError(e) << std::endl;
        return 1;
    }
    return 0;
}
