/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-tree.h"

#include "ns3/size-limits.h"

#include <deque>
#include <stdexcept>
#include <string>

namespace ns3
{

FlowTree::Ties
FlowTree::GetDefaultTies(const Topology& topology)
{
    return TopologyFamily(topology.GetName()) == "fattree" ? Ties::SPREAD : Ties::FIRST_FOUND;
}

FlowTree
FlowTree::ShortestPath(const Topology& topology, uint32_t root)
{
    return ShortestPath(topology, root, GetDefaultTies(topology));
}

FlowTree
FlowTree::ShortestPath(const Topology& topology, uint32_t root, Ties ties)
{
    if (root >= topology.GetNServers())
    {
        throw std::invalid_argument("flow tree root must be a server 0.." +
                                    std::to_string(topology.GetNServers()) + " exclusive, got " +
                                    std::to_string(root));
    }
    FlowTree tree;
    tree.m_root = root;
    tree.m_nServers = topology.GetNServers();
    tree.m_parent.assign(topology.GetNNodes(), NO_INDEX);
    tree.m_depth.assign(topology.GetNNodes(), NO_INDEX);
    tree.m_depth[root] = 0;
    std::deque<uint32_t> queue{root};
    while (!queue.empty())
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        for (uint32_t v : topology.GetNeighbors(u))
        {
            if (tree.m_depth[v] == NO_INDEX)
            {
                tree.m_depth[v] = tree.m_depth[u] + 1;
                tree.m_parent[v] = u;
                queue.push_back(v);
            }
        }
    }
    if (ties == Ties::SPREAD)
    {
        tree.SpreadTies(topology);
    }
    for (uint32_t s = 0; s < topology.GetNServers(); ++s)
    {
        if (tree.m_depth[s] == NO_INDEX)
        {
            throw std::invalid_argument("server " + std::to_string(s) +
                                        " cannot reach server " + std::to_string(root) +
                                        " in topology '" + topology.GetName() +
                                        "': the topology is disconnected");
        }
    }
    return tree;
}

FlowTree::FlowTree(const Topology& topology, uint32_t root, std::vector<uint32_t> parent)
    : m_root(root),
      m_nServers(topology.GetNServers()),
      m_parent(std::move(parent))
{
    Check(topology);
}

void
FlowTree::Check(const Topology& topology)
{
    const uint32_t nodes = topology.GetNNodes();
    if (m_root >= topology.GetNServers())
    {
        throw std::invalid_argument("flow tree root must be a server 0.." +
                                    std::to_string(topology.GetNServers()) + " exclusive, got " +
                                    std::to_string(m_root));
    }
    if (m_parent.size() != nodes)
    {
        throw std::invalid_argument("flow tree of root " + std::to_string(m_root) + " has " +
                                    std::to_string(m_parent.size()) +
                                    " parent entries; the topology has " + std::to_string(nodes) +
                                    " nodes");
    }
    if (m_parent[m_root] != NO_INDEX)
    {
        throw std::invalid_argument("flow tree of root " + std::to_string(m_root) +
                                    ": the root must have no parent");
    }
    for (uint32_t v = 0; v < nodes; ++v)
    {
        if (m_parent[v] != NO_INDEX && !topology.HasLink(v, m_parent[v]))
        {
            throw std::invalid_argument("flow tree of root " + std::to_string(m_root) +
                                        ": parent " + std::to_string(m_parent[v]) + " of node " +
                                        std::to_string(v) + " is not its neighbour");
        }
    }
    // Depths by walking up with memoisation; a walk longer than the node count is a cycle.
    m_depth.assign(nodes, NO_INDEX);
    m_depth[m_root] = 0;
    std::vector<uint32_t> walk;
    for (uint32_t v = 0; v < nodes; ++v)
    {
        walk.clear();
        uint32_t u = v;
        while (m_depth[u] == NO_INDEX && m_parent[u] != NO_INDEX && walk.size() <= nodes)
        {
            walk.push_back(u);
            u = m_parent[u];
        }
        if (walk.size() > nodes)
        {
            throw std::invalid_argument("flow tree of root " + std::to_string(m_root) +
                                        ": node " + std::to_string(v) +
                                        " is on a cycle of parents");
        }
        if (m_depth[u] == NO_INDEX)
        {
            continue; // the walk left the tree: these nodes are outside it
        }
        for (auto it = walk.rbegin(); it != walk.rend(); ++it)
        {
            m_depth[*it] = m_depth[m_parent[*it]] + 1;
        }
    }
    for (uint32_t s = 0; s < m_nServers; ++s)
    {
        if (m_depth[s] == NO_INDEX)
        {
            throw std::invalid_argument("flow tree of root " + std::to_string(m_root) +
                                        ": server " + std::to_string(s) +
                                        " does not reach the root");
        }
    }
}

uint32_t
FlowTree::GetRoot() const
{
    return m_root;
}

uint32_t
FlowTree::GetParent(uint32_t node) const
{
    return m_parent.at(node);
}

uint32_t
FlowTree::GetDepth(uint32_t node) const
{
    return m_depth.at(node);
}

bool
FlowTree::Contains(uint32_t node) const
{
    return node < m_depth.size() && m_depth[node] != NO_INDEX;
}

std::vector<uint32_t>
FlowTree::GetPathToRoot(uint32_t node) const
{
    if (!Contains(node))
    {
        throw std::invalid_argument("node " + std::to_string(node) +
                                    " is not in the flow tree of root " + std::to_string(m_root));
    }
    std::vector<uint32_t> path;
    path.reserve(m_depth[node] + 1);
    for (uint32_t u = node; u != NO_INDEX; u = m_parent[u])
    {
        path.push_back(u);
    }
    return path;
}

uint32_t
FlowTree::GetNextServer(uint32_t server) const
{
    if (server >= m_nServers || server == m_root)
    {
        throw std::invalid_argument("GetNextServer needs a server other than the root " +
                                    std::to_string(m_root) + ", got node " +
                                    std::to_string(server));
    }
    uint32_t u = m_parent[server];
    while (u >= m_nServers)
    {
        u = m_parent[u];
    }
    return u;
}

void
FlowTree::SpreadTies(const Topology& topology)
{
    for (uint32_t node = 0; node < topology.GetNNodes(); ++node)
    {
        const uint32_t depth = m_depth[node];
        if (node == m_root || depth == NO_INDEX)
        {
            continue;
        }
        uint32_t count = 0;
        for (uint32_t v : topology.GetNeighbors(node))
        {
            count += m_depth[v] + 1 == depth ? 1 : 0;
        }
        uint32_t pick = (m_root + node) % count;
        for (uint32_t v : topology.GetNeighbors(node))
        {
            if (m_depth[v] + 1 == depth && pick-- == 0)
            {
                m_parent[node] = v;
                break;
            }
        }
    }
}

const std::vector<uint32_t>&
FlowTree::GetParents() const
{
    return m_parent;
}

std::vector<FlowTree>
BuildShortestPathTrees(const Topology& topology)
{
    // Each tree holds a parent and a depth per node.
    CheckMemory("the " + std::to_string(topology.GetNServers()) + " flow trees of '" +
                    topology.GetName() + "' (one per server, each over " +
                    std::to_string(topology.GetNNodes()) + " nodes)",
                SaturatingMultiply(topology.GetNServers(),
                                   SaturatingMultiply(topology.GetNNodes(), 2 * sizeof(uint32_t))),
                "use a smaller topology");
    std::vector<FlowTree> trees;
    trees.reserve(topology.GetNServers());
    for (uint32_t root = 0; root < topology.GetNServers(); ++root)
    {
        trees.push_back(FlowTree::ShortestPath(topology, root));
    }
    return trees;
}

} // namespace ns3
