/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-aware-placement.h"

#include "ns3/double.h"
#include "ns3/flow-tree.h"
#include "ns3/job-view.h"
#include "ns3/log.h"
#include "ns3/schedule.h"
#include "ns3/uinteger.h"
#include "ns3/workload.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopologyAwarePlacement");

NS_OBJECT_ENSURE_REGISTERED(TopologyAwarePlacement);

static const PlacementRegistration g_registration(
    "topology-aware",
    TopologyAwarePlacement::GetTypeId(),
    "near free servers whose workloads load the busiest link least, running jobs counted",
    30);

TypeId
TopologyAwarePlacement::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TopologyAwarePlacement")
            .SetParent<PlacementPolicy>()
            .SetGroupName("AllReduce")
            .AddConstructor<TopologyAwarePlacement>()
            .AddAttribute("Candidates",
                          "How many anchor servers to grow a group from (on distinct first "
                          "switches, spread over the cluster); more tries more groups",
                          UintegerValue(16),
                          MakeUintegerAccessor(&TopologyAwarePlacement::m_candidates),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LoadWeight",
                          "What one running job on a link adds to the link's cost of 1 when "
                          "groups grow (0: hops only)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TopologyAwarePlacement::m_loadWeight),
                          MakeDoubleChecker<double>(0.0, 1e6));
    return tid;
}

std::string
TopologyAwarePlacement::GetName() const
{
    return "topology-aware";
}

namespace
{

/// How good a group is: smaller is better, compared in this order.
struct Estimate
{
    uint64_t rounds{std::numeric_limits<uint64_t>::max()}; //!< estimated rounds
    uint64_t linkUse{std::numeric_limits<uint64_t>::max()}; //!< Σ workloads × (1 + jobs) per link
    uint32_t anchor{std::numeric_limits<uint32_t>::max()};  //!< the anchor's rank

    /// \param other another estimate \return true when this one is better
    bool operator<(const Estimate& other) const
    {
        return std::tie(rounds, linkUse, anchor) <
               std::tie(other.rounds, other.linkUse, other.anchor);
    }
};

/**
 * \param cluster the cluster \param cost per undirected link \param from a node
 * \return the cheapest path cost from `from` to every node
 */
std::vector<double>
PathCosts(const Topology& cluster, const std::vector<double>& cost, uint32_t from)
{
    std::vector<double> dist(cluster.GetNNodes(), std::numeric_limits<double>::infinity());
    using Item = std::pair<double, uint32_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
    dist[from] = 0;
    queue.emplace(0.0, from);
    while (!queue.empty())
    {
        const auto [d, u] = queue.top();
        queue.pop();
        if (d > dist[u])
        {
            continue;
        }
        const auto& neighbors = cluster.GetNeighbors(u);
        const auto& links = cluster.GetPortLinks(u);
        for (size_t p = 0; p < neighbors.size(); ++p)
        {
            const double next = d + cost[links[p]];
            if (next < dist[neighbors[p]])
            {
                dist[neighbors[p]] = next;
                queue.emplace(next, neighbors[p]);
            }
        }
    }
    return dist;
}

/**
 * \param cluster the cluster \param members a group in view order
 * \param request the job's request: running jobs per directed link, how to build its workloads
 * \return the group's estimate (anchor not set)
 */
Estimate
EstimateGroup(const Topology& cluster,
              const std::vector<uint32_t>& members,
              const PlacementRequest& request)
{
    Estimate e;
    if (members.size() < 2)
    {
        e.rounds = 0;
        e.linkUse = 0;
        return e;
    }
    const JobView view(cluster, members);
    const WorkloadSet workloads =
        request.workloads ? request.workloads(view.GetTopology())
                          : WorkloadSet::Build(view.GetTopology(),
                                               BuildShortestPathTrees(view.GetTopology()),
                                               WorkloadSemantics::MERGE,
                                               1);
    const std::vector<uint32_t>& linkJobs = request.linkJobs;
    const RoundBounds bounds = ComputeBounds(workloads);
    std::vector<uint64_t> load(2 * uint64_t{cluster.GetNLinks()}, 0);
    for (const Workload& w : workloads.GetAll())
    {
        for (uint32_t l : w.links)
        {
            ++load[l];
        }
    }
    uint64_t bottleneck = 0;
    uint64_t use = 0;
    for (size_t l = 0; l < load.size(); ++l)
    {
        const uint64_t shared = load[l] * (1 + (linkJobs.empty() ? 0 : linkJobs[l]));
        bottleneck = std::max(bottleneck, shared);
        use += shared;
    }
    e.rounds = std::max<uint64_t>({bounds.bandwidth, bounds.path, bottleneck});
    e.linkUse = use;
    return e;
}

} // namespace

std::vector<uint32_t>
TopologyAwarePlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    const uint32_t n = cluster.GetNServers();
    std::vector<double> cost(cluster.GetNLinks(), 1.0);
    if (!request.linkJobs.empty())
    {
        for (uint32_t i = 0; i < cluster.GetNLinks(); ++i)
        {
            cost[i] += m_loadWeight * (request.linkJobs[2 * i] + request.linkJobs[2 * i + 1]) / 2.0;
        }
    }
    // Anchors: the first free server on each first switch, spread evenly when there are more.
    std::vector<uint32_t> anchors;
    std::vector<uint8_t> seen(cluster.GetNNodes(), 0);
    for (uint32_t s = 0; s < n; ++s)
    {
        const uint32_t key =
            cluster.GetNeighbors(s).empty() ? s : cluster.GetNeighbors(s).front();
        if (request.free[s] && !seen[key])
        {
            seen[key] = 1;
            anchors.push_back(s);
        }
    }
    if (anchors.size() > m_candidates)
    {
        std::vector<uint32_t> spread;
        for (uint32_t i = 0; i < m_candidates; ++i)
        {
            spread.push_back(anchors[uint64_t{i} * anchors.size() / m_candidates]);
        }
        anchors = std::move(spread);
    }
    std::vector<uint32_t> best;
    Estimate bestEstimate;
    for (uint32_t rank = 0; rank < anchors.size(); ++rank)
    {
        // Grow the group from the anchor: the free server nearest to all members joins next.
        std::vector<uint32_t> group;
        std::vector<std::vector<double>> costs;
        std::vector<double> sum(n, 0.0);
        std::vector<uint8_t> in(n, 0);
        auto add = [&](uint32_t s) {
            group.push_back(s);
            in[s] = 1;
            costs.push_back(PathCosts(cluster, cost, s));
            for (uint32_t t = 0; t < n; ++t)
            {
                sum[t] += costs.back()[t];
            }
        };
        add(anchors[rank]);
        while (group.size() < request.servers)
        {
            uint32_t next = n;
            for (uint32_t s = 0; s < n; ++s)
            {
                if (request.free[s] && !in[s] && (next == n || sum[s] < sum[next]))
                {
                    next = s;
                }
            }
            add(next);
        }
        // Order it by nearest neighbours from its lowest server.
        std::vector<uint32_t> order;
        std::vector<uint8_t> placed(group.size(), 0);
        size_t at = std::min_element(group.begin(), group.end()) - group.begin();
        for (size_t k = 0; k < group.size(); ++k)
        {
            placed[at] = 1;
            order.push_back(group[at]);
            size_t nearest = group.size();
            for (size_t j = 0; j < group.size(); ++j)
            {
                if (!placed[j] && (nearest == group.size() ||
                                   costs[at][group[j]] < costs[at][group[nearest]] ||
                                   (costs[at][group[j]] == costs[at][group[nearest]] &&
                                    group[j] < group[nearest])))
                {
                    nearest = j;
                }
            }
            at = nearest;
        }
        Estimate estimate = EstimateGroup(cluster, order, request);
        estimate.anchor = rank;
        NS_LOG_DEBUG("anchor " << anchors[rank] << ": " << estimate.rounds << " rounds, use "
                               << estimate.linkUse);
        if (estimate < bestEstimate)
        {
            bestEstimate = estimate;
            best = std::move(order);
        }
    }
    // Blocks of consecutive free servers, aligned to the job's size: generators number servers
    // so that such blocks are sub-structures (a BCube sub-cube, a fat-tree pod, a Jellyfish
    // switch's servers), which growing by distance does not always find.
    const uint32_t m = request.servers;
    std::vector<uint32_t> blocks;
    for (uint32_t first = 0; uint64_t{first} + m <= n; first += m)
    {
        if (std::all_of(request.free.begin() + first,
                        request.free.begin() + first + m,
                        [](uint8_t f) { return f != 0; }))
        {
            blocks.push_back(first);
        }
    }
    for (uint32_t i = 0; i < blocks.size() && i < m_candidates; ++i)
    {
        const uint32_t first =
            blocks[blocks.size() <= m_candidates ? i : uint64_t{i} * blocks.size() / m_candidates];
        std::vector<uint32_t> block(m);
        std::iota(block.begin(), block.end(), first);
        Estimate estimate = EstimateGroup(cluster, block, request);
        estimate.anchor = static_cast<uint32_t>(anchors.size()) + i;
        NS_LOG_DEBUG("block from " << first << ": " << estimate.rounds << " rounds, use "
                                   << estimate.linkUse);
        if (estimate < bestEstimate)
        {
            bestEstimate = estimate;
            best = std::move(block);
        }
    }
    return best;
}

} // namespace ns3
