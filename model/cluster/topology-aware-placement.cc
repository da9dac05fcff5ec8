/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "topology-aware-placement.h"

#include "ns3/double.h"
#include "ns3/flow-tree.h"
#include "ns3/job-view.h"
#include "ns3/log.h"
#include "ns3/size-limits.h"
#include "ns3/schedule.h"
#include "ns3/uinteger.h"
#include "ns3/workload.h"

#include <algorithm>
#include <sstream>
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

/**
 * \param cluster the cluster \param linkJobs per directed link, running jobs (may be empty)
 * \param loadWeight what one running job adds to a link's cost of 1
 * \return per undirected link, its cost when groups grow
 */
std::vector<double>
LinkCosts(const Topology& cluster, const std::vector<uint32_t>& linkJobs, double loadWeight)
{
    std::vector<double> cost(cluster.GetNLinks(), 1.0);
    if (!linkJobs.empty())
    {
        for (uint32_t i = 0; i < cluster.GetNLinks(); ++i)
        {
            cost[i] += loadWeight * (linkJobs[2 * i] + linkJobs[2 * i + 1]) / 2.0;
        }
    }
    return cost;
}

/**
 * \param cluster the cluster \param free per server, non-zero when free
 * \param candidates how many anchors at most
 * \return the first free server on each first switch, spread evenly when there are more
 */
std::vector<uint32_t>
ChooseAnchors(const Topology& cluster, const std::vector<uint8_t>& free, uint32_t candidates)
{
    std::vector<uint32_t> anchors;
    std::vector<uint8_t> seen(cluster.GetNNodes(), 0);
    for (uint32_t s = 0; s < cluster.GetNServers(); ++s)
    {
        const uint32_t key =
            cluster.GetNeighbors(s).empty() ? s : cluster.GetNeighbors(s).front();
        if (free[s] && !seen[key])
        {
            seen[key] = 1;
            anchors.push_back(s);
        }
    }
    if (anchors.size() > candidates)
    {
        std::vector<uint32_t> spread;
        for (uint32_t i = 0; i < candidates; ++i)
        {
            spread.push_back(anchors[uint64_t{i} * anchors.size() / candidates]);
        }
        anchors = std::move(spread);
    }
    return anchors;
}

/// A group grown from an anchor.
struct Group
{
    std::vector<uint32_t> members;          //!< in the order they joined, the anchor first
    std::vector<std::vector<double>> costs; //!< per member, its path cost to every node
};

/**
 * Grows a group from the anchor: the free server nearest to all members joins next.
 * \param cluster the cluster \param cost per undirected link
 * \param request the job's request (its size and the free servers) \param anchor a free server
 * \return the group of request.servers servers
 */
Group
GrowGroup(const Topology& cluster,
          const std::vector<double>& cost,
          const PlacementRequest& request,
          uint32_t anchor)
{
    const uint32_t n = cluster.GetNServers();
    Group group;
    std::vector<double> sum(n, 0.0);
    std::vector<uint8_t> in(n, 0);
    auto add = [&](uint32_t s) {
        group.members.push_back(s);
        in[s] = 1;
        group.costs.push_back(PathCosts(cluster, cost, s));
        for (uint32_t t = 0; t < n; ++t)
        {
            sum[t] += group.costs.back()[t];
        }
    };
    add(anchor);
    while (group.members.size() < request.servers)
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
    return group;
}

/// \return the group's servers by nearest neighbours from its lowest server
std::vector<uint32_t>
NearestNeighbourOrder(const Group& group)
{
    const std::vector<uint32_t>& members = group.members;
    const std::vector<std::vector<double>>& costs = group.costs;
    std::vector<uint32_t> order;
    std::vector<uint8_t> placed(members.size(), 0);
    size_t at = std::min_element(members.begin(), members.end()) - members.begin();
    for (size_t k = 0; k < members.size(); ++k)
    {
        placed[at] = 1;
        order.push_back(members[at]);
        size_t nearest = members.size();
        for (size_t j = 0; j < members.size(); ++j)
        {
            if (!placed[j] && (nearest == members.size() ||
                               costs[at][members[j]] < costs[at][members[nearest]] ||
                               (costs[at][members[j]] == costs[at][members[nearest]] &&
                                members[j] < members[nearest])))
            {
                nearest = j;
            }
        }
        at = nearest;
    }
    return order;
}

/**
 * Blocks of consecutive free servers, aligned to the job's size: generators number servers
 * so that such blocks are sub-structures (a BCube sub-cube, a fat-tree pod, a Jellyfish
 * switch's servers), which growing by distance does not always find.
 * \param free per server, non-zero when free \param m the job's size
 * \return the first server of each block
 */
std::vector<uint32_t>
AlignedFreeBlocks(const std::vector<uint8_t>& free, uint32_t m)
{
    const auto n = static_cast<uint32_t>(free.size());
    std::vector<uint32_t> blocks;
    for (uint32_t first = 0; uint64_t{first} + m <= n; first += m)
    {
        if (std::all_of(free.begin() + first, free.begin() + first + m, [](uint8_t f) {
                return f != 0;
            }))
        {
            blocks.push_back(first);
        }
    }
    return blocks;
}

} // namespace

void
TopologyAwarePlacement::CheckJobSize(const Topology& cluster, uint32_t servers) const
{
    const uint64_t perSearch =
        uint64_t{cluster.GetNNodes()} + 2 * uint64_t{cluster.GetNLinks()} + cluster.GetNServers();
    const double steps = double(std::max(m_candidates, 1u)) * servers * double(perSearch);
    const std::string what = "the topology-aware placement of a job of " +
                             std::to_string(servers) + " servers on '" + cluster.GetName() + "'";
    const std::string hint = "give --placement=packed or random, fewer candidates "
                             "(--ns3::TopologyAwarePlacement::Candidates, now " +
                             std::to_string(m_candidates) + ") or smaller jobs";
    if (steps > MAX_STEPS)
    {
        std::ostringstream os;
        os << what << " would take about " << steps << " steps (" << m_candidates
           << " candidates x " << servers << " servers x " << perSearch
           << " nodes, directed links and servers), more than the " << MAX_STEPS
           << " a placement may: " << hint;
        throw std::invalid_argument(os.str());
    }
    // Each group keeps a path cost to every node per member.
    CheckMemory(what, SaturatingMultiply(uint64_t{servers} * 2, uint64_t{cluster.GetNNodes()} * 8),
                hint);
}

std::vector<uint32_t>
TopologyAwarePlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    const std::vector<double> cost = LinkCosts(cluster, request.linkJobs, m_loadWeight);
    const std::vector<uint32_t> anchors = ChooseAnchors(cluster, request.free, m_candidates);
    std::vector<uint32_t> best;
    Estimate bestEstimate;
    for (uint32_t rank = 0; rank < anchors.size(); ++rank)
    {
        std::vector<uint32_t> order =
            NearestNeighbourOrder(GrowGroup(cluster, cost, request, anchors[rank]));
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
    const uint32_t m = request.servers;
    const std::vector<uint32_t> blocks = AlignedFreeBlocks(request.free, m);
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
