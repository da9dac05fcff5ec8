/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_SUMMARY_H
#define NS3_ALLREDUCE_TOPOLOGY_SUMMARY_H

#include "ns3/topology.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * What dcn-topology says about a topology: its counts, ports per server, server diameter, and
 * the seed paper's printed size where the paper evaluates it.
 */
struct TopologySummary
{
    std::string spec;            //!< the spec it was built from
    Topology topology;           //!< the topology
    uint32_t minPorts{0};        //!< fewest ports of a server
    uint32_t maxPorts{0};        //!< most ports of a server
    uint32_t diameter{0};        //!< links between the farthest servers (at least)
    uint32_t diameterSources{0}; //!< servers searched from; fewer than all: a lower bound
    std::string paper;           //!< the paper's "(nodes,links)", or empty

    /// \return "6", or "6+" when the diameter is a lower bound from a sample of servers
    std::string GetDiameterText() const;
    /// \return "2", or "1-3" when servers differ
    std::string GetPortsText() const;
};

/**
 * \ingroup allreduce-experiment
 * Builds a topology and describes it. The diameter is searched from every server while that
 * costs at most about 2e8 node and link visits (a second or two), from a sample beyond.
 * \param spec a topology spec
 * \return the summary
 * \throws std::invalid_argument for a bad spec (BuildTopology's)
 */
TopologySummary DescribeTopology(const std::string& spec);

/**
 * \ingroup allreduce-experiment
 * \param os where to print one topology, one line per fact
 * \param s the summary
 */
void PrintTopologySummary(std::ostream& os, const TopologySummary& s);

/**
 * \ingroup allreduce-experiment
 * \param os where to print several topologies as a table, with its footnotes
 * \param rows the summaries
 */
void PrintTopologyTable(std::ostream& os, const std::vector<TopologySummary>& rows);

/**
 * \ingroup allreduce-experiment
 * \param os where to write the summaries as JSON: an object for one, an array for several
 * \param rows the summaries
 */
void WriteTopologyJson(std::ostream& os, const std::vector<TopologySummary>& rows);

/**
 * \ingroup allreduce-experiment
 * Draws servers, switches and links per topology.
 * \param rows the summaries
 * \param prefix output prefix (PREFIX.dat, .plt, .png), from dcn-topology's --plot
 * \return what was made (BarChart::Write)
 */
std::string WriteTopologyFigure(const std::vector<TopologySummary>& rows,
                                const std::string& prefix);

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_SUMMARY_H */
