/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-layout.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

namespace
{

/// \return per node, its hops to the nearest server (a breadth-first search from all servers)
std::vector<uint32_t>
HopsToServers(const Topology& topology)
{
    std::vector<uint32_t> hops(topology.GetNNodes(), NO_INDEX);
    std::deque<uint32_t> queue;
    for (uint32_t s = 0; s < topology.GetNServers(); ++s)
    {
        hops[s] = 0;
        queue.push_back(s);
    }
    while (!queue.empty())
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        for (uint32_t v : topology.GetNeighbors(u))
        {
            if (hops[v] == NO_INDEX)
            {
                hops[v] = hops[u] + 1;
                queue.push_back(v);
            }
        }
    }
    for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
    {
        if (hops[u] == NO_INDEX)
        {
            throw std::invalid_argument("cannot lay out '" + topology.GetName() + "': " +
                                        topology.GetNodeName(u) + " is connected to no server");
        }
    }
    return hops;
}

} // namespace

TopologyLayout
ComputeTopologyLayout(const Topology& topology, double spacing)
{
    if (!(spacing > 0))
    {
        throw std::invalid_argument("layout spacing must be > 0, got " + std::to_string(spacing));
    }
    TopologyLayout layout;
    layout.row = HopsToServers(topology);
    const uint32_t nRows = *std::max_element(layout.row.begin(), layout.row.end()) + 1;
    std::vector<std::vector<uint32_t>> rows(nRows);
    for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
    {
        rows[layout.row[u]].push_back(u); // in id order
    }
    size_t widest = 0;
    for (const auto& r : rows)
    {
        widest = std::max(widest, r.size());
    }
    layout.width = spacing * static_cast<double>(widest);
    // A row with links inside it (DCell's servers, Jellyfish's switches) bends into an arc of
    // this depth, so that those links are chords that pass through no other node of the row.
    const double depth = std::max(spacing, layout.width / 4);
    std::vector<uint8_t> bends(nRows, 0);
    for (const TopologyLink& link : topology.GetLinks())
    {
        if (layout.row[link.a] == layout.row[link.b])
        {
            bends[layout.row[link.a]] = 1;
        }
    }
    layout.x.assign(topology.GetNNodes(), 0);
    std::vector<double> above(topology.GetNNodes(), 0); // height above the bottom
    double base = spacing / 2;                          // the lowest height of row r
    for (uint32_t r = 0; r < nRows; ++r)
    {
        if (r > 0)
        {
            // Order by the mean x of the neighbours below (every node of row r has one in
            // row r-1), then by id.
            std::vector<std::pair<double, uint32_t>> order;
            for (uint32_t u : rows[r])
            {
                double sum = 0;
                uint32_t below = 0;
                for (uint32_t v : topology.GetNeighbors(u))
                {
                    if (layout.row[v] < r)
                    {
                        sum += layout.x[v];
                        ++below;
                    }
                }
                order.emplace_back(sum / below, u);
            }
            std::sort(order.begin(), order.end());
            for (size_t i = 0; i < order.size(); ++i)
            {
                rows[r][i] = order[i].second;
            }
        }
        const double step = layout.width / static_cast<double>(rows[r].size());
        for (size_t i = 0; i < rows[r].size(); ++i)
        {
            const uint32_t u = rows[r][i];
            layout.x[u] = step * (static_cast<double>(i) + 0.5);
            const double t = 2 * layout.x[u] / layout.width - 1; // -1 to 1 across
            const double arc = bends[r] ? depth * (1 - t * t) : 0;
            // The servers' arc rises in the middle (its chords run below it, where nothing
            // is); the others sag (their chords run above them, toward the row above).
            above[u] = r == 0 ? base + arc : base + (bends[r] ? depth : 0) - arc;
        }
        base += (bends[r] ? depth : 0) + spacing;
    }
    layout.height = base - spacing / 2;
    layout.y.assign(topology.GetNNodes(), 0);
    for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
    {
        layout.y[u] = layout.height - above[u];
    }
    return layout;
}

} // namespace ns3
