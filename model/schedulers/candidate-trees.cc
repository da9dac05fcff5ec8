/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "candidate-trees.h"

#include "ns3/log.h"
#include "ns3/server-translations.h"
#include "ns3/workload.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CandidateTrees");

namespace
{

/// Load state of the local search: flow per (root, node) and load per directed link.
class TreeBalancer
{
  public:
    /**
     * \param topology the topology
     * \param longer allow parents that lengthen the path
     * \param roots the roots whose trees are balanced (empty: every server)
     * \param classOf per directed link, the class its load counts in (empty: its own; the
     *        orbits, for trees that translations copy from their representatives')
     */
    TreeBalancer(const Topology& topology,
                 bool longer,
                 std::vector<uint32_t> roots = {},
                 std::vector<uint32_t> classOf = {})
        : m_topo(topology),
          m_longer(longer),
          m_servers(topology.GetNServers()),
          m_nodes(topology.GetNNodes()),
          m_roots(std::move(roots)),
          m_classOf(std::move(classOf))
    {
        if (m_roots.empty())
        {
            m_roots.resize(m_servers);
            std::iota(m_roots.begin(), m_roots.end(), 0);
        }
        uint32_t classes = 2 * topology.GetNLinks();
        if (!m_classOf.empty())
        {
            classes = *std::max_element(m_classOf.begin(), m_classOf.end()) + 1;
        }
        m_load.assign(classes, 0);
        for (uint32_t r : m_roots)
        {
            m_dist.push_back(topology.GetHopDistances(r));
            m_parent.push_back(FlowTree::ShortestPath(topology, r).GetParents());
            m_flow.emplace_back(m_nodes, 0);
            ComputeFlow(static_cast<uint32_t>(m_flow.size() - 1));
        }
    }

    /// One pass over every (root, node) in a seeded random order (a fixed order lets early
    /// nodes push their load onto later ones for good); \return the improving moves made
    uint32_t Pass(std::mt19937_64& rng)
    {
        std::vector<uint64_t> order;
        for (uint32_t r = 0; r < m_roots.size(); ++r)
        {
            for (uint32_t x = 0; x < m_nodes; ++x)
            {
                if (x != m_roots[r] && m_parent[r][x] != NO_INDEX)
                {
                    order.push_back(uint64_t{r} * m_nodes + x);
                }
            }
        }
        std::shuffle(order.begin(), order.end(), rng);
        uint32_t moves = 0;
        for (uint64_t key : order)
        {
            const auto r = static_cast<uint32_t>(key / m_nodes);
            const auto x = static_cast<uint32_t>(key % m_nodes);
            if (m_flow[r][x] != 0)
            {
                moves += TryMove(r, x);
            }
        }
        return moves;
    }

    /// \return the trees of the roots, in their order
    std::vector<FlowTree> GetTrees() const
    {
        std::vector<FlowTree> trees;
        for (uint32_t r = 0; r < m_roots.size(); ++r)
        {
            trees.emplace_back(m_topo, m_roots[r], m_parent[r]);
        }
        return trees;
    }

  private:
    /// \return the load index of the directed link from a to b
    uint32_t ClassOf(uint32_t a, uint32_t b) const
    {
        const uint32_t l = GetDirectedLink(m_topo, a, b);
        return m_classOf.empty() ? l : m_classOf[l];
    }

    /// Flow of x in tree r (the r-th root): the merge workloads that cross the hop x -> parent(x).
    void ComputeFlow(uint32_t r)
    {
        std::vector<uint32_t> order(m_nodes);
        std::iota(order.begin(), order.end(), 0);
        const auto& dist = m_dist[r];
        std::stable_sort(order.begin(), order.end(), [&dist](uint32_t a, uint32_t b) {
            return dist[a] > dist[b];
        });
        auto& flow = m_flow[r];
        for (uint32_t x : order)
        {
            if (x < m_servers)
            {
                flow[x] = 1; // a server sends one merged workload up, whatever it received
            }
            const uint32_t p = m_parent[r][x];
            if (p == NO_INDEX || flow[x] == 0)
            {
                continue;
            }
            if (p >= m_servers)
            {
                flow[p] += flow[x];
            }
            AddHop(x, p, flow[x]);
        }
    }

    void AddHop(uint32_t a, uint32_t b, int64_t amount)
    {
        m_load[ClassOf(a, b)] += amount;
        m_load[ClassOf(b, a)] += amount;
    }

    /// The hops from x via p up to the first server, as directed links in both directions.
    void Chain(uint32_t r, uint32_t x, uint32_t p, std::vector<uint32_t>& links) const
    {
        uint32_t a = x;
        uint32_t b = p;
        while (true)
        {
            links.push_back(ClassOf(a, b));
            links.push_back(ClassOf(b, a));
            if (b < m_servers)
            {
                return;
            }
            a = b;
            b = m_parent[r][b];
        }
    }

    /// The cost of a link's load: its fourth power, so that the most loaded links dominate.
    static int64_t Cost(int64_t load)
    {
        const int64_t sq = load * load;
        return sq * sq;
    }

    /// \return true when q is x or hangs below x in tree r
    bool IsBelow(uint32_t r, uint32_t q, uint32_t x) const
    {
        for (uint32_t u = q; u != NO_INDEX; u = m_parent[r][u])
        {
            if (u == x)
            {
                return true;
            }
        }
        return false;
    }

    /// Moves x to its best other shortest-path parent in tree r if that lowers the cost.
    uint32_t TryMove(uint32_t r, uint32_t x)
    {
        const uint32_t p = m_parent[r][x];
        const int64_t f = m_flow[r][x];
        m_old.clear();
        Chain(r, x, p, m_old);
        int64_t bestDelta = 0;
        uint32_t best = NO_INDEX;
        for (uint32_t q : m_topo.GetNeighbors(x))
        {
            // Shortest paths only: a parent one hop closer to the root. Longer paths: any
            // neighbour no farther from the root than x itself, unless it hangs below x.
            if (q == p || (m_longer ? m_dist[r][q] > m_dist[r][x] || IsBelow(r, q, x)
                                    : m_dist[r][q] + 1 != m_dist[r][x]))
            {
                continue;
            }
            m_new.clear();
            Chain(r, x, q, m_new);
            // Cost is the sum of squared loads; chains may share links, so apply, measure
            // and undo.
            int64_t delta = 0;
            for (uint32_t l : m_old)
            {
                delta -= Cost(m_load[l]);
                m_load[l] -= f;
                delta += Cost(m_load[l]);
            }
            for (uint32_t l : m_new)
            {
                delta -= Cost(m_load[l]);
                m_load[l] += f;
                delta += Cost(m_load[l]);
            }
            for (uint32_t l : m_new)
            {
                m_load[l] -= f;
            }
            for (uint32_t l : m_old)
            {
                m_load[l] += f;
            }
            if (delta < bestDelta)
            {
                bestDelta = delta;
                best = q;
            }
        }
        if (best == NO_INDEX)
        {
            return 0;
        }
        m_new.clear();
        Chain(r, x, best, m_new);
        for (uint32_t l : m_old)
        {
            m_load[l] -= f;
        }
        for (uint32_t l : m_new)
        {
            m_load[l] += f;
        }
        for (uint32_t u = p; u >= m_servers; u = m_parent[r][u])
        {
            m_flow[r][u] -= f;
        }
        for (uint32_t u = best; u >= m_servers; u = m_parent[r][u])
        {
            m_flow[r][u] += f;
        }
        m_parent[r][x] = best;
        return 1;
    }

    const Topology& m_topo;
    bool m_longer;                                 //!< allow parents that lengthen the path
    uint32_t m_servers;
    uint32_t m_nodes;
    std::vector<uint32_t> m_roots;                 //!< the roots balanced
    std::vector<uint32_t> m_classOf;               //!< per directed link, its load's class
    std::vector<int64_t> m_load;                   //!< per class (directed link or orbit)
    std::vector<std::vector<uint32_t>> m_dist;     //!< per root (of m_roots), hops from it
    std::vector<std::vector<uint32_t>> m_parent;   //!< per root (of m_roots), parent per node
    std::vector<std::vector<int64_t>> m_flow;      //!< per root (of m_roots), flow per node
    std::vector<uint32_t> m_old;                   //!< scratch
    std::vector<uint32_t> m_new;                   //!< scratch
};

} // namespace

std::vector<FlowTree>
BuildBalancedTrees(const Topology& topology,
                   uint32_t maxPasses,
                   bool longerPaths,
                   uint64_t seed)
{
    TreeBalancer balancer(topology, longerPaths);
    std::mt19937_64 rng(seed);
    for (uint32_t pass = 0; pass < maxPasses; ++pass)
    {
        const uint32_t moves = balancer.Pass(rng);
        NS_LOG_DEBUG("tree balancing pass " << pass << ": " << moves << " moves");
        if (moves == 0)
        {
            break;
        }
    }
    return balancer.GetTrees();
}

std::vector<FlowTree>
BuildAggregatorTrees(const Topology& topology)
{
    std::vector<FlowTree> trees = BuildShortestPathTrees(topology);
    if (topology.CountAggregators() == 0)
    {
        return trees;
    }
    for (auto& tree : trees)
    {
        std::vector<uint32_t> parent = tree.GetParents();
        for (uint32_t v = 0; v < topology.GetNNodes(); ++v)
        {
            if (parent[v] == NO_INDEX)
            {
                continue; // the root
            }
            uint32_t best = NO_INDEX;
            for (uint32_t u : topology.GetNeighbors(v))
            {
                if (topology.IsAggregator(u) && tree.GetDepth(u) + 1 == tree.GetDepth(v))
                {
                    best = std::min(best, u);
                }
            }
            if (best != NO_INDEX)
            {
                parent[v] = best;
            }
        }
        tree = FlowTree(topology, tree.GetRoot(), std::move(parent));
    }
    return trees;
}

bool
IsSameTreeSet(const std::vector<FlowTree>& a, const std::vector<FlowTree>& b)
{
    if (a.size() != b.size())
    {
        return false;
    }
    for (size_t r = 0; r < a.size(); ++r)
    {
        if (a[r].GetParents() != b[r].GetParents())
        {
            return false;
        }
    }
    return true;
}

void
AddAggregatorTrees(const Topology& topology, std::vector<std::vector<FlowTree>>& trees)
{
    const uint32_t aggregators = topology.CountAggregators();
    if (aggregators == 0 || aggregators == topology.GetNSwitches())
    {
        return;
    }
    auto toward = BuildAggregatorTrees(topology);
    const bool known = std::any_of(trees.begin(), trees.end(), [&toward](const auto& t) {
        return IsSameTreeSet(t, toward);
    });
    if (!known)
    {
        trees.push_back(std::move(toward));
    }
}

std::vector<std::vector<FlowTree>>
BuildCandidateTrees(const Topology& topology,
                    uint32_t k,
                    uint32_t seed,
                    uint32_t passes,
                    uint32_t tries)
{
    std::vector<std::vector<FlowTree>> out;
    out.push_back(BuildShortestPathTrees(topology));
    // Balanced trees: with longer paths, shortest only, then other seeds. A few more
    // attempts than k, since some come out equal to one we have.
    const uint32_t attempts = tries == 0 ? 4 * k : tries;
    for (uint32_t i = 0; out.size() < k && i < attempts; ++i)
    {
        std::vector<FlowTree> trees =
            BuildBalancedTrees(topology, passes, i % 2 == 0, seed + i / 2);
        bool known = false;
        for (const auto& t : out)
        {
            known = known || IsSameTreeSet(t, trees);
        }
        if (!known)
        {
            out.push_back(std::move(trees));
        }
    }
    return out;
}

std::vector<FlowTree>
TranslateTrees(const Topology& topology,
               const ServerTranslations& translations,
               const std::vector<FlowTree>& representatives)
{
    std::vector<const FlowTree*> of(topology.GetNServers(), nullptr);
    for (const FlowTree& tree : representatives)
    {
        of.at(tree.GetRoot()) = &tree;
    }
    std::vector<FlowTree> trees;
    for (uint32_t r = 0; r < topology.GetNServers(); ++r)
    {
        const FlowTree* tree = of[translations.GetRepresentative(r)];
        if (!tree)
        {
            throw std::invalid_argument("TranslateTrees: no tree of representative " +
                                        std::to_string(translations.GetRepresentative(r)));
        }
        const std::vector<uint32_t>& parent = tree->GetParents();
        std::vector<uint32_t> moved(parent.size(), NO_INDEX);
        for (uint32_t v = 0; v < parent.size(); ++v)
        {
            if (parent[v] != NO_INDEX)
            {
                moved[translations.Map(r, v)] = translations.Map(r, parent[v]);
            }
        }
        trees.emplace_back(topology, r, std::move(moved));
    }
    return trees;
}

std::vector<uint32_t>
GetDirectedLinkOrbits(const Topology& topology, const ServerTranslations& translations)
{
    std::vector<uint32_t> orbit(2 * topology.GetNLinks(), NO_INDEX);
    uint32_t next = 0;
    for (uint32_t l = 0; l < orbit.size(); ++l)
    {
        if (orbit[l] != NO_INDEX)
        {
            continue;
        }
        const TopologyLink& link = topology.GetLink(l / 2);
        const uint32_t a = l % 2 == 0 ? link.a : link.b;
        const uint32_t b = l % 2 == 0 ? link.b : link.a;
        for (uint32_t r = 0; r < translations.GetNServers(); ++r)
        {
            orbit[GetDirectedLink(topology, translations.Map(r, a), translations.Map(r, b))] =
                next;
        }
        ++next;
    }
    return orbit;
}

std::vector<std::vector<FlowTree>>
BuildSymmetricCandidateTrees(const Topology& topology,
                             const ServerTranslations& translations,
                             uint32_t k,
                             uint32_t seed,
                             uint32_t passes,
                             uint32_t tries)
{
    const std::vector<uint32_t> reps = translations.GetRepresentatives();
    std::vector<std::vector<FlowTree>> repTrees(1);
    for (uint32_t r : reps)
    {
        repTrees[0].push_back(FlowTree::ShortestPath(topology, r));
    }
    const std::vector<uint32_t> orbits = GetDirectedLinkOrbits(topology, translations);
    const uint32_t attempts = tries == 0 ? 4 * k : tries;
    for (uint32_t i = 0; repTrees.size() < k && i < attempts; ++i)
    {
        TreeBalancer balancer(topology, i % 2 == 0, reps, orbits);
        std::mt19937_64 rng(seed + i / 2);
        for (uint32_t pass = 0; pass < passes && balancer.Pass(rng) > 0; ++pass)
        {
        }
        std::vector<FlowTree> trees = balancer.GetTrees();
        const bool known =
            std::any_of(repTrees.begin(), repTrees.end(), [&trees](const std::vector<FlowTree>& t) {
                return IsSameTreeSet(t, trees);
            });
        if (!known)
        {
            repTrees.push_back(std::move(trees));
        }
    }
    std::vector<std::vector<FlowTree>> out;
    for (const auto& trees : repTrees)
    {
        out.push_back(TranslateTrees(topology, translations, trees));
    }
    return out;
}

} // namespace ns3
