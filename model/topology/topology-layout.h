/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_LAYOUT_H
#define NS3_ALLREDUCE_TOPOLOGY_LAYOUT_H

#include "topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * Where each node of a topology is drawn (doc/allreduce.rst, "NetAnim"): in rows, one per hop
 * distance from the servers. Coordinates are in drawing units, x to the right and y downward
 * (as NetAnim and other screen coordinates run).
 */
struct TopologyLayout
{
    std::vector<uint32_t> row; //!< per node, its row: 0 for servers, else its hops to a server
    std::vector<double> x;     //!< per node, its horizontal position
    std::vector<double> y;     //!< per node, its vertical position (servers lowest: largest y)
    double width{0};           //!< the drawing's width (every x is inside [0, width])
    double height{0};          //!< the drawing's height (every y is inside [0, height])
};

/**
 * \ingroup allreduce-topology
 * Lays a topology out in rows, whatever its family (BCube, DCell, fat-tree, Jellyfish, a file):
 * the servers on the bottom row in id order, every switch in the row of its hop distance from
 * the nearest server (fat-tree: edge, aggregation, core), each row spread evenly over the
 * width of the widest, one spacing per node of it, and the rows one spacing apart. Within a
 * row, switches are ordered by the mean position of their neighbours in the rows below (then
 * by id), so that links mostly go straight up. A link joins two nodes of the same row or of
 * neighbouring rows; where a row has links inside it (DCell's servers, Jellyfish's switches),
 * the row bends into an arc a quarter of the width deep (at least one spacing), the servers'
 * rising in the middle and the others' sagging, so that no link passes through a node it does
 * not join. Deterministic: the same topology gives the same layout.
 * \param topology the topology
 * \param spacing the distance between neighbours in the widest row, and between rows (> 0)
 * \return the layout
 * \throws std::invalid_argument when spacing is not positive, or a node is not connected to
 *         any server
 */
TopologyLayout ComputeTopologyLayout(const Topology& topology, double spacing = 10);

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_LAYOUT_H */
