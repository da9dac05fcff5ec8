/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flat-tree-search.h"

#include "ns3/flow-tree.h"
#include "ns3/log.h"
#include "ns3/portable-random.h"
#include "ns3/schedule.h"
#include "ns3/workload.h"

#include <algorithm>
#include <deque>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlatTreeSearch");

namespace
{

/// The most paths offered to one transfer.
constexpr size_t MAX_PATHS = 24;

/// The most (transfer, round, path) choices searched (the tabu list holds 8 bytes each).
constexpr uint64_t MAX_CHOICES = uint64_t{1} << 24;

/// \return per node, the fewest hops to root through switches only (NO_INDEX: none)
std::vector<uint32_t>
SwitchDistances(const Topology& topology, uint32_t root)
{
    std::vector<uint32_t> dist(topology.GetNNodes(), NO_INDEX);
    std::deque<uint32_t> queue{root};
    dist[root] = 0;
    while (!queue.empty())
    {
        const uint32_t u = queue.front();
        queue.pop_front();
        if (u != root && topology.IsServer(u))
        {
            continue; // a server ends a path; it passes nothing on
        }
        for (uint32_t v : topology.GetNeighbors(u))
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

/// One transfer of the reduce: a server's contribution straight to a root.
struct Transfer
{
    uint32_t src{0};                          //!< the sender
    uint32_t root{0};                         //!< the receiver, the chunk's root
    std::vector<std::vector<uint32_t>> nodes; //!< per path, its nodes from src to root
    std::vector<std::vector<uint32_t>> links; //!< per path, its directed links
};

/// \return the switch-only paths from src to root of at most the shortest + slack hops
std::vector<std::vector<uint32_t>>
FindPaths(const Topology& topology,
          uint32_t src,
          uint32_t root,
          const std::vector<uint32_t>& dist,
          uint32_t slack)
{
    const uint32_t longest = dist[src] + slack;
    std::vector<std::vector<uint32_t>> paths;
    std::vector<uint32_t> path{src};
    std::vector<bool> on(topology.GetNNodes(), false);
    on[src] = true;
    // Depth first, neighbours in port order: the same paths in the same order every time.
    const auto walk = [&](const auto& self, uint32_t u) -> void {
        if (paths.size() >= MAX_PATHS)
        {
            return;
        }
        if (u == root)
        {
            paths.push_back(path);
            return;
        }
        for (uint32_t v : topology.GetNeighbors(u))
        {
            const bool passable = v == root || !topology.IsServer(v);
            if (on[v] || !passable || dist[v] == NO_INDEX || path.size() + dist[v] > longest)
            {
                continue;
            }
            on[v] = true;
            path.push_back(v);
            self(self, v);
            path.pop_back();
            on[v] = false;
        }
    };
    walk(walk, src);
    return paths;
}

/// The tabu search over each transfer's round and path.
class FlatSearch
{
  public:
    FlatSearch(const Topology& topology, std::vector<Transfer> transfers, uint32_t rounds)
        : m_topology(topology),
          m_transfers(std::move(transfers)),
          m_rounds(rounds),
          m_use(size_t{2} * topology.GetNLinks() * rounds, 0),
          m_hops(size_t{topology.GetNServers()} * topology.GetNNodes()),
          m_round(m_transfers.size(), 0),
          m_path(m_transfers.size(), 0),
          m_tabu(m_transfers.size() * rounds * MAX_PATHS, 0)
    {
    }

    /// \return true when a conflict-free assignment was found within moves
    bool Run(uint64_t moves, std::mt19937_64& rng)
    {
        for (size_t i = 0; i < m_transfers.size(); ++i)
        {
            m_round[i] = static_cast<uint32_t>(UniformIndex(rng, m_rounds));
            Place(i, +1);
        }
        std::vector<size_t> conflicting;
        for (uint64_t move = 1; move <= moves + 1; ++move) // the last pass only checks
        {
            conflicting.clear();
            for (size_t i = 0; i < m_transfers.size(); ++i)
            {
                if (Cost(i, m_round[i], m_path[i], true) > 0)
                {
                    conflicting.push_back(i);
                }
            }
            if (conflicting.empty())
            {
                NS_LOG_INFO("flat-tree search: " << m_rounds << " reduce rounds after "
                                                 << move - 1 << " moves");
                return true;
            }
            if (move > moves)
            {
                break;
            }
            Move(conflicting[UniformIndex(rng, conflicting.size())], move, rng);
        }
        return false;
    }

    /// \return per transfer, its round
    const std::vector<uint32_t>& GetRounds() const
    {
        return m_round;
    }

    /// \return per transfer, its path's index
    const std::vector<uint32_t>& GetPaths() const
    {
        return m_path;
    }

  private:
    /// Adds (sign +1) or removes (-1) transfer i at its round and path.
    void Place(size_t i, int sign)
    {
        const Transfer& x = m_transfers[i];
        for (uint32_t l : x.links[m_path[i]])
        {
            m_use[size_t{l} * m_rounds + m_round[i]] += sign;
        }
        const auto& nodes = x.nodes[m_path[i]];
        for (size_t k = 1; k + 1 < nodes.size(); ++k)
        {
            auto& hops = m_hops[size_t{x.root} * m_topology.GetNNodes() + nodes[k]];
            auto it = std::find_if(hops.begin(), hops.end(), [&](const auto& h) {
                return h.first == nodes[k + 1];
            });
            if (it == hops.end())
            {
                hops.emplace_back(nodes[k + 1], 0);
                it = hops.end() - 1;
            }
            it->second += sign;
        }
    }

    /// \return the conflicts of transfer i at round t on path p (placed: it is there itself)
    int Cost(size_t i, uint32_t t, uint32_t p, bool placed) const
    {
        const Transfer& x = m_transfers[i];
        int cost = 0;
        for (uint32_t l : x.links[p])
        {
            cost += m_use[size_t{l} * m_rounds + t] - (placed ? 1 : 0);
        }
        // Each switch passes the root's transfers on to one next hop: the root's tree.
        const auto& nodes = x.nodes[p];
        for (size_t k = 1; k + 1 < nodes.size(); ++k)
        {
            for (const auto& [hop, count] :
                 m_hops[size_t{x.root} * m_topology.GetNNodes() + nodes[k]])
            {
                cost += hop == nodes[k + 1] ? 0 : count;
            }
        }
        return cost;
    }

    /// Moves transfer i to the round and path, not tabu, that conflict least.
    void Move(size_t i, uint64_t move, std::mt19937_64& rng)
    {
        Place(i, -1);
        int best = 0;
        std::vector<std::pair<uint32_t, uint32_t>> choices;
        const auto nPaths = static_cast<uint32_t>(m_transfers[i].links.size());
        for (uint32_t t = 0; t < m_rounds; ++t)
        {
            for (uint32_t p = 0; p < nPaths; ++p)
            {
                if ((t == m_round[i] && p == m_path[i]) || m_tabu[Slot(i, t, p)] > move)
                {
                    continue;
                }
                // Among equal conflicts the shorter path: it leaves more links to the others.
                const int cost = Cost(i, t, p, false) * 64 +
                                 static_cast<int>(m_transfers[i].links[p].size());
                if (choices.empty() || cost < best)
                {
                    best = cost;
                    choices.assign(1, {t, p});
                }
                else if (cost == best)
                {
                    choices.emplace_back(t, p);
                }
            }
        }
        if (!choices.empty())
        {
            m_tabu[Slot(i, m_round[i], m_path[i])] = move + 7; // do not come straight back
            const auto [t, p] = choices[UniformIndex(rng, choices.size())];
            m_round[i] = t;
            m_path[i] = p;
        }
        Place(i, +1);
    }

    /// \return the tabu entry of transfer i at round t on path p
    size_t Slot(size_t i, uint32_t t, uint32_t p) const
    {
        return (i * m_rounds + t) * MAX_PATHS + p;
    }

    const Topology& m_topology;       //!< the topology
    std::vector<Transfer> m_transfers; //!< the reduce's transfers
    uint32_t m_rounds;                 //!< reduce rounds
    std::vector<int> m_use;            //!< per directed link and round, transfers there
    /// per root and node, the next hops its transfers take from there, with their counts
    std::vector<std::vector<std::pair<uint32_t, int>>> m_hops;
    std::vector<uint32_t> m_round; //!< per transfer, its round
    std::vector<uint32_t> m_path;  //!< per transfer, its path
    std::vector<uint64_t> m_tabu; //!< per (transfer, round, path), the move it is free again
};

/// \return the plan of a conflict-free assignment: flat trees, reduce, mirrored gather
Plan
MakeFlatPlan(const Topology& topology,
             const std::vector<Transfer>& transfers,
             const std::vector<uint32_t>& round,
             const std::vector<uint32_t>& path,
             uint32_t rounds)
{
    const uint32_t n = topology.GetNServers();
    std::vector<std::vector<uint32_t>> parent(n, std::vector<uint32_t>(topology.GetNNodes(),
                                                                        NO_INDEX));
    std::vector<std::vector<uint32_t>> reduceRound(n, std::vector<uint32_t>(n, NO_INDEX));
    for (size_t i = 0; i < transfers.size(); ++i)
    {
        const auto& nodes = transfers[i].nodes[path[i]];
        for (size_t k = 0; k + 1 < nodes.size(); ++k)
        {
            parent[transfers[i].root][nodes[k]] = nodes[k + 1];
        }
        reduceRound[transfers[i].root][transfers[i].src] = round[i];
    }
    std::vector<FlowTree> trees;
    for (uint32_t r = 0; r < n; ++r)
    {
        trees.emplace_back(topology, r, parent[r]);
    }
    Plan plan;
    plan.workloads = WorkloadSet::Build(topology, trees, WorkloadSemantics::MERGE, 1);
    std::vector<uint32_t> roundOf(plan.workloads.GetN(), NO_INDEX);
    for (const Workload& w : plan.workloads.GetAll())
    {
        const uint32_t root = w.chunk;
        roundOf[w.id] = w.phase == Phase::REDUCE ? reduceRound[root][w.src]
                                                 : rounds - 1 - reduceRound[root][w.dst];
    }
    plan.schedule = CompactRounds(roundOf);
    return plan;
}

} // namespace

bool
FitsFlatSearch(uint32_t servers, uint32_t rounds)
{
    return uint64_t{servers} * (servers - (servers > 0)) * (rounds / 2) * MAX_PATHS <=
           MAX_CHOICES;
}

bool
HasFlatTrees(const Topology& topology)
{
    if (topology.CountAggregators() > 0 || topology.GetNServers() < 2)
    {
        return false;
    }
    for (uint32_t r = 0; r < topology.GetNServers(); ++r)
    {
        const std::vector<uint32_t> dist = SwitchDistances(topology, r);
        for (uint32_t s = 0; s < topology.GetNServers(); ++s)
        {
            if (dist[s] == NO_INDEX)
            {
                return false;
            }
        }
    }
    return true;
}

std::optional<Plan>
SearchFlatSchedule(const Topology& topology, uint32_t rounds, const FlatSearchBudget& budget)
{
    if (rounds == 0 || rounds % 2 != 0 || !HasFlatTrees(topology))
    {
        throw std::invalid_argument("flat-tree search: needs an even number of rounds and a "
                                    "topology whose servers reach each other through switches "
                                    "only, without aggregating switches");
    }
    const uint32_t n = topology.GetNServers();
    if (!FitsFlatSearch(n, rounds))
    {
        throw std::invalid_argument("flat-tree search: " + std::to_string(n) + " servers in " +
                                    std::to_string(rounds) + " rounds are more choices than it "
                                    "searches (" + std::to_string(MAX_CHOICES) + ")");
    }
    std::vector<Transfer> transfers;
    for (uint32_t r = 0; r < n; ++r)
    {
        const std::vector<uint32_t> dist = SwitchDistances(topology, r);
        for (uint32_t s = 0; s < n; ++s)
        {
            if (s == r)
            {
                continue;
            }
            Transfer x;
            x.src = s;
            x.root = r;
            x.nodes = FindPaths(topology, s, r, dist, budget.slack);
            for (const auto& nodes : x.nodes)
            {
                std::vector<uint32_t> links;
                for (size_t k = 0; k + 1 < nodes.size(); ++k)
                {
                    links.push_back(GetDirectedLink(topology, nodes[k], nodes[k + 1]));
                }
                x.links.push_back(std::move(links));
            }
            transfers.push_back(std::move(x));
        }
    }
    std::mt19937_64 rng(budget.seed);
    FlatSearch search(topology, transfers, rounds / 2);
    if (!search.Run(budget.moves, rng))
    {
        return std::nullopt;
    }
    Plan plan = MakeFlatPlan(topology, transfers, search.GetRounds(), search.GetPaths(), rounds);
    const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
    if (!check.valid)
    {
        throw std::logic_error("flat-tree search: its schedule is invalid (" + check.error +
                               "); please report this");
    }
    return plan;
}

} // namespace ns3
