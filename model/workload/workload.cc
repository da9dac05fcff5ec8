/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "workload.h"

#include "ns3/size-limits.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

std::string
ToString(WorkloadSemantics semantics)
{
    switch (semantics)
    {
    case WorkloadSemantics::MERGE:
        return "merge";
    case WorkloadSemantics::PARAMETER_SERVER:
        return "ps";
    case WorkloadSemantics::RING:
        return "ring";
    case WorkloadSemantics::MSCCL:
        return "msccl";
    }
    return "?";
}

WorkloadSemantics
ParseWorkloadSemantics(const std::string& name)
{
    if (name == "merge")
    {
        return WorkloadSemantics::MERGE;
    }
    if (name == "ps")
    {
        return WorkloadSemantics::PARAMETER_SERVER;
    }
    if (name == "ring")
    {
        return WorkloadSemantics::RING;
    }
    if (name == "msccl")
    {
        return WorkloadSemantics::MSCCL;
    }
    throw std::invalid_argument("workload semantics must be merge, ps, ring or msccl, got '" +
                                name + "'");
}

std::string
ToString(Phase phase)
{
    return phase == Phase::REDUCE ? "reduce" : "gather";
}

uint32_t
GetDirectedLink(const Topology& topology, uint32_t a, uint32_t b)
{
    const int64_t link = topology.FindLink(a, b);
    if (link < 0)
    {
        throw std::invalid_argument("no link between nodes " + std::to_string(a) + " and " +
                                    std::to_string(b));
    }
    const auto i = static_cast<uint32_t>(link);
    return topology.GetLink(i).a == a ? 2 * i : 2 * i + 1;
}

std::vector<uint8_t>
MarkSenderPorts(const Topology& topology)
{
    std::vector<uint8_t> out(2 * uint64_t{topology.GetNLinks()}, 0);
    const auto sends = [&topology](uint32_t node) {
        return topology.IsServer(node) || topology.IsAggregator(node);
    };
    for (uint32_t i = 0; i < topology.GetNLinks(); ++i)
    {
        out[2 * i] = sends(topology.GetLink(i).a);
        out[2 * i + 1] = sends(topology.GetLink(i).b);
    }
    return out;
}

namespace
{

/// The nodes from server u along the tree up to the first server after it, both included.
std::vector<uint32_t>
PathToNextServer(const FlowTree& tree, uint32_t u, uint32_t nServers)
{
    std::vector<uint32_t> path{u};
    uint32_t v = tree.GetParent(u);
    path.push_back(v);
    while (v >= nServers)
    {
        v = tree.GetParent(v);
        path.push_back(v);
    }
    return path;
}

/**
 * Fills the carries of reduce workloads: a server sender's own contribution and everything
 * merged into it (what its dependencies carry), ascending.
 * \param out the workloads
 * \param reduces reduce workload ids, each after every workload it depends on
 * \param nServers N
 */
void
FillCarries(std::vector<Workload>& out, const std::vector<uint32_t>& reduces, uint32_t nServers)
{
    for (uint32_t id : reduces)
    {
        Workload& r = out[id];
        if (r.src < nServers)
        {
            r.carries.Add(r.src);
        }
        for (uint32_t d : r.deps)
        {
            r.carries.Add(out[d].carries);
        }
    }
}

/// Appends the workloads of one chunk piece under merge semantics (doc/allreduce.rst, "Workloads").
void
AddMergeChunk(std::vector<Workload>& out,
              std::vector<uint32_t>& sameDepsAs,
              const FlowTree& tree,
              uint32_t nServers,
              uint32_t piece)
{
    const uint32_t root = tree.GetRoot();
    const auto base = static_cast<uint32_t>(out.size());
    // Servers other than the root, in id order, get reduce ids base+i and gather ids
    // base+(N-1)+i.
    std::vector<uint32_t> index(nServers, NO_INDEX);
    std::vector<uint32_t> next(nServers, NO_INDEX);
    uint32_t i = 0;
    for (uint32_t u = 0; u < nServers; ++u)
    {
        if (u != root)
        {
            index[u] = i++;
            next[u] = tree.GetNextServer(u);
        }
    }
    const uint32_t others = nServers - 1;
    out.resize(base + 2 * others);
    sameDepsAs.resize(out.size(), NO_INDEX);
    std::vector<uint32_t> intoRoot;
    for (uint32_t u = 0; u < nServers; ++u)
    {
        if (u == root)
        {
            continue;
        }
        Workload& r = out[base + index[u]];
        r.id = base + index[u];
        r.chunk = root;
        r.piece = piece;
        r.phase = Phase::REDUCE;
        r.src = u;
        r.dst = next[u];
        r.path = PathToNextServer(tree, u, nServers);
        if (next[u] == root)
        {
            intoRoot.push_back(r.id);
        }
        else
        {
            out[base + index[next[u]]].deps.push_back(r.id);
        }
        Workload& g = out[base + others + index[u]];
        g.id = base + others + index[u];
        g.chunk = root;
        g.piece = piece;
        g.phase = Phase::GATHER;
        g.src = next[u];
        g.dst = u;
        g.path.assign(r.path.rbegin(), r.path.rend());
        if (next[u] != root)
        {
            g.deps.push_back(base + others + index[next[u]]);
        }
    }
    // The gathers leaving the root all wait for the reduces into it: one list, shared.
    uint32_t first = NO_INDEX;
    for (uint32_t u = 0; u < nServers; ++u)
    {
        if (u != root && next[u] == root)
        {
            const uint32_t g = base + others + index[u];
            if (first == NO_INDEX)
            {
                out[g].deps = intoRoot;
                first = g;
            }
            else
            {
                sameDepsAs[g] = first;
            }
        }
    }
    // Deeper servers first, so that every child is complete before its parent takes it.
    std::vector<uint32_t> order;
    for (uint32_t u = 0; u < nServers; ++u)
    {
        if (u != root)
        {
            order.push_back(u);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&tree](uint32_t a, uint32_t b) {
        return tree.GetDepth(a) > tree.GetDepth(b);
    });
    for (uint32_t& u : order)
    {
        u = base + index[u];
    }
    FillCarries(out, order, nServers);
}

/// Appends the workloads of one chunk piece of the Parameter Server baseline.
void
AddParameterServerChunk(std::vector<Workload>& out,
                        std::vector<uint32_t>& sameDepsAs,
                        const FlowTree& tree,
                        uint32_t nServers,
                        uint32_t piece)
{
    const uint32_t root = tree.GetRoot();
    const auto base = static_cast<uint32_t>(out.size());
    const uint32_t others = nServers - 1;
    std::vector<uint32_t> reduces;
    for (uint32_t u = 0; u < nServers; ++u)
    {
        if (u == root)
        {
            continue;
        }
        Workload w;
        w.id = static_cast<uint32_t>(out.size());
        w.chunk = root;
        w.piece = piece;
        w.phase = Phase::REDUCE;
        w.src = u;
        w.dst = root;
        w.path = tree.GetPathToRoot(u);
        w.carries = {u};
        reduces.push_back(w.id);
        out.push_back(std::move(w));
    }
    for (uint32_t i = 0; i < others; ++i)
    {
        Workload g;
        g.id = base + others + i;
        g.chunk = root;
        g.piece = piece;
        g.phase = Phase::GATHER;
        g.src = root;
        g.dst = out[base + i].src;
        g.path.assign(out[base + i].path.rbegin(), out[base + i].path.rend());
        // Every gather waits for every reduce: one list, shared.
        if (i == 0)
        {
            g.deps = reduces;
        }
        out.push_back(std::move(g));
    }
    sameDepsAs.resize(out.size(), NO_INDEX);
    for (uint32_t i = 1; i < others; ++i)
    {
        sameDepsAs[base + others + i] = base + others;
    }
}

/// \return the nodes of the tree but its root, deeper ones first (by id within a depth)
std::vector<uint32_t>
DeeperFirst(const FlowTree& tree, uint32_t nodes)
{
    std::vector<uint32_t> order;
    for (uint32_t v = 0; v < nodes; ++v)
    {
        if (tree.Contains(v) && v != tree.GetRoot())
        {
            order.push_back(v);
        }
    }
    std::stable_sort(order.begin(), order.end(), [&tree](uint32_t a, uint32_t b) {
        return tree.GetDepth(a) > tree.GetDepth(b);
    });
    return order;
}

/// The streams of one chunk piece up its tree when switches aggregate.
struct Streams
{
    std::vector<uint32_t> receiver; //!< per sender, the node its stream ends at (else NO_INDEX)
    std::vector<uint8_t> sends;     //!< per node, 1 when it sends a stream
};

/**
 * Follows every stream up the tree to the first node that merges it (AddAggregatingChunk).
 * \param deeperFirst the tree's nodes but its root, deeper ones first
 * \param tree the chunk's tree \param topology the topology
 * \param merging per node, non-zero for the aggregating switches that merge
 * \param semantics merge or parameter server
 * \return who sends, and where each stream ends
 */
Streams
FollowStreams(const std::vector<uint32_t>& deeperFirst,
              const FlowTree& tree,
              const Topology& topology,
              const std::vector<uint8_t>& merging,
              WorkloadSemantics semantics)
{
    const uint32_t nodes = topology.GetNNodes();
    const uint32_t n = topology.GetNServers();
    Streams streams;
    streams.receiver.assign(nodes, NO_INDEX);
    streams.sends.assign(nodes, 0);
    // Per node, the senders whose streams arrive at it from below and are not merged yet.
    std::vector<std::vector<uint32_t>> arriving(nodes);
    const auto end = [&](uint32_t at) {
        for (uint32_t sender : arriving[at])
        {
            streams.receiver[sender] = at;
        }
    };
    for (uint32_t v : deeperFirst)
    {
        std::vector<uint32_t> up;
        const bool server = v < n;
        const bool merges = (server && semantics == WorkloadSemantics::MERGE) ||
                            (!server && merging[v] && arriving[v].size() >= 2);
        if (merges)
        {
            end(v);
        }
        else
        {
            up = arriving[v];
        }
        if (server || merges)
        {
            up.push_back(v);
            streams.sends[v] = 1;
        }
        auto& above = arriving[tree.GetParent(v)];
        above.insert(above.end(), up.begin(), up.end());
    }
    end(tree.GetRoot());
    return streams;
}

/// The workloads of one chunk piece's streams: a reduce per sender, then its gather mirror.
struct StreamWorkloads
{
    uint32_t base{0};               //!< id of the first reduce workload
    /// The senders by id: sender i's reduce is base + i, its gather base + senders.size() + i.
    std::vector<uint32_t> senders;
    std::vector<uint32_t> reduceOf; //!< per node, its reduce workload's id (else NO_INDEX)
    std::vector<std::vector<uint32_t>> into; //!< per node, the reduce workloads ending there
};

/**
 * Appends the reduce workloads of one chunk piece's streams, by sender id, and makes room for
 * their gathers after them.
 * \param out the workloads \param streams the piece's streams \param tree the chunk's tree
 * \param piece the piece
 * \return where they are
 */
StreamWorkloads
AddStreamReduces(std::vector<Workload>& out,
                 const Streams& streams,
                 const FlowTree& tree,
                 uint32_t piece)
{
    const auto nodes = static_cast<uint32_t>(streams.sends.size());
    StreamWorkloads at;
    for (uint32_t v = 0; v < nodes; ++v)
    {
        if (streams.sends[v])
        {
            at.senders.push_back(v);
        }
    }
    at.base = static_cast<uint32_t>(out.size());
    const auto count = static_cast<uint32_t>(at.senders.size());
    at.reduceOf.assign(nodes, NO_INDEX);
    for (uint32_t i = 0; i < count; ++i)
    {
        at.reduceOf[at.senders[i]] = at.base + i;
    }
    out.resize(at.base + 2 * count);
    at.into.resize(nodes);
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t v = at.senders[i];
        Workload& r = out[at.base + i];
        r.id = at.base + i;
        r.chunk = tree.GetRoot();
        r.piece = piece;
        r.phase = Phase::REDUCE;
        r.src = v;
        r.dst = streams.receiver[v];
        r.path.push_back(v);
        for (uint32_t u = v; u != r.dst;)
        {
            u = tree.GetParent(u);
            r.path.push_back(u);
        }
        at.into[r.dst].push_back(r.id);
    }
    return at;
}

/**
 * Fills the gathers of one chunk piece's streams, each the mirror of its reduce, and the
 * dependencies of both: a merging sender's reduce waits for what ends at it, a gather for the
 * gather into its source (or, from the root, for every reduce into the root).
 * \param out the workloads \param sameDepsAs per workload, an earlier one whose deps it shares
 * \param at where the piece's workloads are \param root the tree's root, the chunk
 * \param n the servers \param semantics merge or parameter server \param piece the piece
 */
void
AddStreamGathers(std::vector<Workload>& out,
                 std::vector<uint32_t>& sameDepsAs,
                 const StreamWorkloads& at,
                 uint32_t root,
                 uint32_t n,
                 WorkloadSemantics semantics,
                 uint32_t piece)
{
    const auto count = static_cast<uint32_t>(at.senders.size());
    uint32_t firstFromRoot = NO_INDEX; // the gathers leaving the root share one list
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t v = at.senders[i];
        Workload& r = out[at.base + i];
        const bool merged = v >= n || semantics == WorkloadSemantics::MERGE;
        if (merged)
        {
            r.deps = at.into[v];
        }
        Workload& g = out[at.base + count + i];
        g.id = at.base + count + i;
        g.chunk = root;
        g.piece = piece;
        g.phase = Phase::GATHER;
        g.src = r.dst;
        g.dst = v;
        g.path.assign(r.path.rbegin(), r.path.rend());
        if (r.dst == root && firstFromRoot != NO_INDEX)
        {
            sameDepsAs[g.id] = firstFromRoot;
        }
        else if (r.dst == root)
        {
            g.deps = at.into[root];
            firstFromRoot = g.id;
        }
        else
        {
            g.deps.push_back(at.reduceOf[r.dst] + count);
        }
    }
}

/**
 * Appends the workloads of one chunk piece when switches aggregate (doc/allreduce.rst,
 * "Aggregation in the network"), for merge or parameter-server semantics; `merging` marks the
 * aggregating switches that merge. Every stream goes up
 * the tree to the first node that merges it: the root; under merge every server; and an
 * aggregating switch where at least two streams meet (one stream alone passes through, since
 * stopping it would only cost a round). A merging node sends one stream on, carrying all it
 * received (and its own contribution when it is a server). All-gather mirrors every stream.
 */
void
AddAggregatingChunk(std::vector<Workload>& out,
                    std::vector<uint32_t>& sameDepsAs,
                    const Topology& topology,
                    const std::vector<uint8_t>& merging,
                    const FlowTree& tree,
                    WorkloadSemantics semantics,
                    uint32_t piece)
{
    // Deeper nodes first, so that every stream below a node is known when the node is.
    const std::vector<uint32_t> order = DeeperFirst(tree, topology.GetNNodes());
    const Streams streams = FollowStreams(order, tree, topology, merging, semantics);
    // Reduce workloads by sender id, then their mirrors in the same order.
    const StreamWorkloads at = AddStreamReduces(out, streams, tree, piece);
    sameDepsAs.resize(out.size(), NO_INDEX);
    AddStreamGathers(out, sameDepsAs, at, tree.GetRoot(), topology.GetNServers(), semantics, piece);
    std::vector<uint32_t> deeperFirst;
    for (uint32_t v : order)
    {
        if (at.reduceOf[v] != NO_INDEX)
        {
            deeperFirst.push_back(at.reduceOf[v]);
        }
    }
    FillCarries(out, deeperFirst, topology.GetNServers());
}

/// Appends the workloads of the Ring baseline for one piece of every chunk.
void
AddRingPiece(std::vector<Workload>& out,
             const std::vector<FlowTree>& trees,
             uint32_t nServers,
             uint32_t piece)
{
    const uint32_t n = nServers;
    const auto base = static_cast<uint32_t>(out.size());
    // Ids are step-major: reduce step t of chunk c is base + t*n + c; gather step t of chunk c
    // is base + (n-1)*n + t*n + c.
    const auto id = [base, n](uint32_t phase, uint32_t t, uint32_t c) {
        return base + phase * (n - 1) * n + t * n + c;
    };
    for (uint32_t phase = 0; phase < 2; ++phase)
    {
        for (uint32_t t = 0; t + 1 < n; ++t)
        {
            for (uint32_t c = 0; c < n; ++c)
            {
                Workload w;
                w.id = id(phase, t, c);
                w.chunk = c;
                w.piece = piece;
                w.phase = phase == 0 ? Phase::REDUCE : Phase::GATHER;
                // Reduce step t: server c+t sends chunk c, carrying c..c+t, to c+t+1. The
                // complete sum lands on c-1, which starts the gather.
                w.src = phase == 0 ? (c + t) % n : (c + n - 1 + t) % n;
                w.dst = (w.src + 1) % n;
                w.path = trees[w.dst].GetPathToRoot(w.src);
                if (phase == 0)
                {
                    // c..c+t around the ring: one run, or two where it wraps past N-1.
                    if (c + t < n)
                    {
                        w.carries.AddRun(c, c + t);
                    }
                    else
                    {
                        w.carries.AddRun(0, c + t - n);
                        w.carries.AddRun(c, n - 1);
                    }
                    if (t > 0)
                    {
                        w.deps.push_back(id(0, t - 1, c));
                    }
                }
                else
                {
                    w.deps.push_back(t > 0 ? id(1, t - 1, c) : id(0, n - 2, c));
                }
                out.push_back(std::move(w));
            }
        }
    }
}

/**
 * \return why w breaks the rules of its semantics (doc/allreduce.rst, "Workloads"), or empty:
 *  - merge: servers merge, so no server lies inside a workload's path (it would be the
 *    receiver);
 *  - ps: a reduce workload goes to the chunk's owner carrying its sender's contribution
 *    alone, a gather workload leaves the owner;
 *  - ring: every workload goes from a server s to server (s + 1) mod N.
 */
std::string
CheckSemantics(const Workload& w, WorkloadSemantics semantics, uint32_t n)
{
    switch (semantics)
    {
    case WorkloadSemantics::MERGE:
        for (size_t h = 1; h + 1 < w.path.size(); ++h)
        {
            if (w.path[h] < n)
            {
                return "its path passes server " + std::to_string(w.path[h]) +
                       ", which would merge (a merge workload ends at the first server on its "
                       "way)";
            }
        }
        return "";
    case WorkloadSemantics::PARAMETER_SERVER:
        // Servers do not merge; aggregating switches may (doc/allreduce.rst, "Aggregation in
        // the network").
        if (w.phase == Phase::REDUCE && w.dst != w.chunk && w.dst < n)
        {
            return "its receiver is server " + std::to_string(w.dst) +
                   ", not the chunk's owner " + std::to_string(w.chunk);
        }
        if (w.phase == Phase::REDUCE && w.src < n &&
            (w.carries.size() != 1 || w.carries.front() != w.src))
        {
            return "it must carry its sender " + std::to_string(w.src) +
                   "'s contribution alone (no merge)";
        }
        if (w.phase == Phase::GATHER && w.src != w.chunk && w.src < n)
        {
            return "its sender is server " + std::to_string(w.src) +
                   ", not the chunk's owner " + std::to_string(w.chunk);
        }
        return "";
    case WorkloadSemantics::RING:
        if (w.dst != (w.src + 1) % n)
        {
            return "it goes from server " + std::to_string(w.src) + " to " +
                   std::to_string(w.dst) + ", not to the next server on the ring " +
                   std::to_string((w.src + 1) % n);
        }
        return "";
    case WorkloadSemantics::MSCCL:
        return ""; // any sender and receiver; servers on the way relay
    }
    return "";
}

/**
 * \return the memory of `total` workloads: the struct, which holds a path of a few hops, its
 *         links and a reduce's carries (a run or two of consecutive servers) inside itself;
 *         the dependency groups and indexes (a chunk's gathers share one list); and 32 bytes
 *         for the longer lists some keep on the heap
 */
uint64_t
EstimateWorkloadBytes(uint64_t total)
{
    const uint64_t each = sizeof(Workload) + 6 * 4 + 32;
    return SaturatingMultiply(total, each);
}

} // namespace

std::vector<uint8_t>
ChooseMergePoints(const Topology& topology, MergePoints points)
{
    std::vector<uint8_t> merging(topology.GetNNodes(), 0);
    for (uint32_t v = topology.GetNServers(); v < topology.GetNNodes(); ++v)
    {
        if (!topology.IsAggregator(v) || points == MergePoints::NONE)
        {
            continue;
        }
        const auto& around = topology.GetNeighbors(v);
        merging[v] = points == MergePoints::ALL ||
                     std::any_of(around.begin(), around.end(), [&topology](uint32_t u) {
                         return topology.IsServer(u);
                     });
    }
    return merging;
}

std::vector<std::vector<uint8_t>>
ChooseMergeChoices(const Topology& topology)
{
    std::vector<std::vector<uint8_t>> choices;
    for (MergePoints points : {MergePoints::ALL, MergePoints::ACCESS, MergePoints::NONE})
    {
        auto merging = ChooseMergePoints(topology, points);
        if (std::find(choices.begin(), choices.end(), merging) == choices.end())
        {
            choices.push_back(std::move(merging));
        }
    }
    return choices;
}

WorkloadSet
WorkloadSet::Build(const Topology& topology,
                   const std::vector<FlowTree>& trees,
                   WorkloadSemantics semantics,
                   uint32_t pieces)
{
    return Build(topology,
                 trees,
                 semantics,
                 pieces,
                 ChooseMergePoints(topology, MergePoints::ALL));
}

uint64_t
WorkloadSet::CheckSize(const Topology& topology,
                       WorkloadSemantics semantics,
                       uint32_t pieces,
                       uint64_t aggregators)
{
    const uint64_t n = topology.GetNServers();
    const uint64_t senders = (n > 0 ? n - 1 : 0) + aggregators;
    const uint64_t total = SaturatingMultiply(SaturatingMultiply(2 * n, senders), pieces);
    if (total > (1ULL << 31))
    {
        throw std::invalid_argument(std::string(aggregators > 0 ? "up to 2*N*(N-1+A)*k = "
                                                                : "2*N*(N-1)*k = ") +
                                    (total == UINT64_MAX ? std::string("more than 2^64")
                                                         : std::to_string(total)) +
                                    " workloads is more than the limit of 2^31; use fewer "
                                    "pieces or a smaller topology");
    }
    CheckMemory(std::to_string(total) + " " + ToString(semantics) + " workloads on '" +
                    topology.GetName() + "' with " + std::to_string(pieces) + " pieces per chunk",
                EstimateWorkloadBytes(total),
                "use fewer pieces or a smaller topology");
    return total;
}

WorkloadSet
WorkloadSet::Build(const Topology& topology,
                   const std::vector<FlowTree>& trees,
                   WorkloadSemantics semantics,
                   uint32_t pieces,
                   const std::vector<uint8_t>& merging)
{
    const uint32_t n = topology.GetNServers();
    if (merging.size() != topology.GetNNodes())
    {
        throw std::invalid_argument("merge points: need one mark per node (" +
                                    std::to_string(topology.GetNNodes()) + "), got " +
                                    std::to_string(merging.size()));
    }
    for (uint32_t v = 0; v < merging.size(); ++v)
    {
        if (merging[v] && (v < n || !topology.IsAggregator(v)))
        {
            throw std::invalid_argument("merge points: node " + std::to_string(v) +
                                        " is not an aggregating switch");
        }
    }
    if (pieces == 0)
    {
        throw std::invalid_argument("pieces per chunk must be >= 1, got 0");
    }
    if (semantics == WorkloadSemantics::MSCCL)
    {
        throw std::invalid_argument("msccl workloads come from an MSCCL algorithm file "
                                    "(ImportMscclAlgorithm), not from flow trees");
    }
    if (trees.size() != n)
    {
        throw std::invalid_argument("need one flow tree per server (" + std::to_string(n) +
                                    "), got " + std::to_string(trees.size()));
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        if (trees[r].GetRoot() != r || trees[r].GetParents().size() != topology.GetNNodes())
        {
            throw std::invalid_argument("flow tree " + std::to_string(r) +
                                        " is not the tree of root " + std::to_string(r) +
                                        " in topology '" + topology.GetName() + "'");
        }
    }
    // With aggregating switches, each may send one more stream per chunk piece and phase.
    const uint64_t aggregators =
        static_cast<uint64_t>(std::count(merging.begin(), merging.end(), 1));
    const uint64_t total = CheckSize(topology, semantics, pieces, aggregators);
    WorkloadSet set;
    set.m_topology = topology;
    set.m_semantics = semantics;
    set.m_pieces = pieces;
    set.m_workloads.reserve(total);
    std::vector<uint32_t> sameDepsAs;
    for (uint32_t p = 0; p < pieces; ++p)
    {
        if (semantics == WorkloadSemantics::RING)
        {
            if (n > 1)
            {
                AddRingPiece(set.m_workloads, trees, n, p);
            }
            continue;
        }
        for (uint32_t r = 0; r < n && n > 1; ++r)
        {
            if (aggregators > 0)
            {
                AddAggregatingChunk(set.m_workloads,
                                    sameDepsAs,
                                    topology,
                                    merging,
                                    trees[r],
                                    semantics,
                                    p);
            }
            else if (semantics == WorkloadSemantics::MERGE)
            {
                AddMergeChunk(set.m_workloads, sameDepsAs, trees[r], n, p);
            }
            else
            {
                AddParameterServerChunk(set.m_workloads, sameDepsAs, trees[r], n, p);
            }
        }
    }
    sameDepsAs.resize(set.m_workloads.size(), NO_INDEX);
    set.Index(sameDepsAs);
    return set;
}

WorkloadSet
WorkloadSet::Concatenate(const std::vector<WorkloadSet>& sets, std::vector<uint32_t>* offsets)
{
    if (sets.empty())
    {
        throw std::invalid_argument("WorkloadSet::Concatenate: no sets");
    }
    WorkloadSet out;
    out.m_topology = sets.front().m_topology;
    out.m_semantics = sets.front().m_semantics;
    out.m_pieces = sets.front().m_pieces;
    uint64_t total = 0;
    for (const WorkloadSet& set : sets)
    {
        if (!set.m_topology.DescribeDifference(out.m_topology).empty())
        {
            throw std::invalid_argument("WorkloadSet::Concatenate: the sets are on different "
                                        "topologies");
        }
        total += set.GetN();
    }
    if (total >= NO_INDEX)
    {
        throw std::invalid_argument("WorkloadSet::Concatenate: " + std::to_string(total) +
                                    " workloads are more than ids can number");
    }
    out.m_workloads.reserve(total);
    if (offsets != nullptr)
    {
        offsets->clear();
    }
    // Each set's groups stay shared: a group's first user lists it, the others refer to it.
    std::vector<uint32_t> sameDepsAs;
    sameDepsAs.reserve(total);
    for (const WorkloadSet& set : sets)
    {
        const auto offset = static_cast<uint32_t>(out.m_workloads.size());
        if (offsets != nullptr)
        {
            offsets->push_back(offset);
        }
        for (Workload w : set.m_workloads)
        {
            const uint32_t group = set.GetDepGroup(w.id);
            const uint32_t first = set.GetGroupUsers(group)[0];
            sameDepsAs.push_back(NO_INDEX);
            if (group != 0 && first != w.id)
            {
                sameDepsAs.back() = first + offset;
            }
            else
            {
                for (uint32_t d : set.GetDeps(w.id))
                {
                    w.deps.push_back(d + offset);
                }
            }
            w.id += offset;
            out.m_workloads.push_back(std::move(w));
        }
    }
    out.Index(sameDepsAs);
    return out;
}

WorkloadSet::WorkloadSet(const Topology& topology,
                         std::vector<Workload> workloads,
                         WorkloadSemantics semantics,
                         uint32_t pieces)
    : m_topology(topology),
      m_semantics(semantics),
      m_pieces(pieces),
      m_workloads(std::move(workloads))
{
    if (pieces == 0)
    {
        throw std::invalid_argument("gradient pieces must be >= 1, got 0");
    }
    const uint32_t n = topology.GetNServers();
    for (size_t i = 0; i < m_workloads.size(); ++i)
    {
        const Workload& w = m_workloads[i];
        const std::string name = "workload " + std::to_string(i);
        const auto fail = [&name](const std::string& what) {
            throw std::invalid_argument(name + ": " + what);
        };
        if (w.id != i)
        {
            fail("id must be " + std::to_string(i) + " (ids count from 0 in order), got " +
                 std::to_string(w.id));
        }
        if (w.chunk >= n)
        {
            fail("chunk must be a server 0.." + std::to_string(n - 1) + ", got " +
                 std::to_string(w.chunk));
        }
        if (w.piece >= pieces)
        {
            fail("piece must be 0.." + std::to_string(pieces - 1) + ", got " +
                 std::to_string(w.piece));
        }
        for (uint32_t end : {w.src, w.dst})
        {
            if (end >= topology.GetNNodes() || (end >= n && !topology.IsAggregator(end)))
            {
                fail("src and dst must be servers 0.." + std::to_string(n - 1) +
                     " or aggregating switches, got src " + std::to_string(w.src) + " dst " +
                     std::to_string(w.dst));
            }
        }
        if (w.src == w.dst)
        {
            fail("src and dst are the same node " + std::to_string(w.src));
        }
        if (w.path.size() < 2 || w.path.front() != w.src || w.path.back() != w.dst)
        {
            fail("path must run from src " + std::to_string(w.src) + " to dst " +
                 std::to_string(w.dst));
        }
        for (size_t h = 0; h + 1 < w.path.size(); ++h)
        {
            if (w.path[h] >= topology.GetNNodes() || w.path[h + 1] >= topology.GetNNodes() ||
                !topology.HasLink(w.path[h], w.path[h + 1]))
            {
                fail("path step " + std::to_string(w.path[h]) + " -> " +
                     std::to_string(w.path[h + 1]) + " is not a link of topology '" +
                     topology.GetName() + "'");
            }
        }
        for (size_t k = 0; k < w.deps.size(); ++k)
        {
            const uint32_t d = w.deps[k];
            if (d >= m_workloads.size() || d == i)
            {
                fail("dependency " + std::to_string(d) + " is not another workload 0.." +
                     std::to_string(m_workloads.size() - 1));
            }
            if (std::find(w.deps.begin(), w.deps.begin() + k, d) != w.deps.begin() + k)
            {
                fail("dependency " + std::to_string(d) + " is listed twice");
            }
        }
        if (w.phase == Phase::REDUCE && w.carries.empty())
        {
            fail("a reduce workload must carry at least one server's contribution");
        }
        if (!w.carries.empty() && w.carries.back() >= n)
        {
            fail("carries must list servers 0.." + std::to_string(n - 1) + ", got " +
                 std::to_string(w.carries.back()));
        }
        if (w.phase == Phase::GATHER && !w.carries.empty() && w.carries.size() != n)
        {
            fail("a gather workload carries the complete sum, i.e. all " + std::to_string(n) +
                 " servers, got " + std::to_string(w.carries.size()));
        }
        const std::string broken = CheckSemantics(w, semantics, n);
        if (!broken.empty())
        {
            fail("is not a " + ToString(semantics) + " workload: " + broken);
        }
    }
    for (Workload& w : m_workloads)
    {
        if (w.phase == Phase::GATHER)
        {
            w.carries.clear();
        }
    }
    Index();
}

void
WorkloadSet::Index(const std::vector<uint32_t>& sameDepsAs)
{
    IndexLinksAndGroups(sameDepsAs);
    IndexGroupMembers();
    IndexHeightsAndDepths(OrderByDependencies());
}

void
WorkloadSet::IndexLinksAndGroups(const std::vector<uint32_t>& sameDepsAs)
{
    const auto count = static_cast<uint32_t>(m_workloads.size());
    // Groups: 0 is the empty one; a workload with deps of its own opens the next.
    m_groupOf.assign(count, 0);
    m_groupDepsStart.assign(1, 0);
    m_groupDepsStart.push_back(0);
    m_groupDeps.clear();
    for (Workload& w : m_workloads)
    {
        w.links.clear();
        w.links.reserve(w.path.size() - 1);
        for (size_t h = 0; h + 1 < w.path.size(); ++h)
        {
            w.links.push_back(GetDirectedLink(m_topology, w.path[h], w.path[h + 1]));
        }
        const uint32_t like = sameDepsAs.empty() ? NO_INDEX : sameDepsAs[w.id];
        if (like != NO_INDEX)
        {
            if (like >= w.id || !w.deps.empty())
            {
                throw std::logic_error("workload " + std::to_string(w.id) +
                                       ": sameDepsAs must name an earlier workload");
            }
            m_groupOf[w.id] = m_groupOf[like];
        }
        else if (!w.deps.empty())
        {
            m_groupOf[w.id] = static_cast<uint32_t>(m_groupDepsStart.size() - 1);
            m_groupDeps.insert(m_groupDeps.end(), w.deps.begin(), w.deps.end());
            m_groupDepsStart.push_back(m_groupDeps.size());
        }
        w.deps = decltype(w.deps)();
    }
}

void
WorkloadSet::IndexGroupMembers()
{
    const auto count = static_cast<uint32_t>(m_workloads.size());
    const auto groups = static_cast<uint32_t>(m_groupDepsStart.size() - 1);
    // Users per group and groups per member, by counting (both come out ascending).
    m_usersStart.assign(groups + 1, 0);
    for (uint32_t g : m_groupOf)
    {
        ++m_usersStart[g + 1];
    }
    std::partial_sum(m_usersStart.begin(), m_usersStart.end(), m_usersStart.begin());
    m_users.resize(count);
    {
        std::vector<uint32_t> next(m_usersStart.begin(), m_usersStart.end() - 1);
        for (uint32_t id = 0; id < count; ++id)
        {
            m_users[next[m_groupOf[id]]++] = id;
        }
    }
    m_groupsOfStart.assign(uint64_t{count} + 1, 0);
    for (uint32_t d : m_groupDeps)
    {
        ++m_groupsOfStart[d + 1];
    }
    std::partial_sum(m_groupsOfStart.begin(), m_groupsOfStart.end(), m_groupsOfStart.begin());
    m_groupsOf.resize(m_groupDeps.size());
    {
        std::vector<uint64_t> next(m_groupsOfStart.begin(), m_groupsOfStart.end() - 1);
        for (uint32_t g = 1; g < groups; ++g)
        {
            for (uint32_t d : GetGroupDeps(g))
            {
                m_groupsOf[next[d]++] = g;
            }
        }
    }
}

std::vector<uint32_t>
WorkloadSet::OrderByDependencies() const
{
    const auto count = static_cast<uint32_t>(m_workloads.size());
    const auto groups = static_cast<uint32_t>(m_groupDepsStart.size() - 1);
    // Kahn's order over groups: a group is done once all its members are.
    std::vector<uint32_t> pending(groups);
    for (uint32_t g = 0; g < groups; ++g)
    {
        pending[g] = static_cast<uint32_t>(GetGroupDeps(g).size());
    }
    std::vector<uint32_t> order;
    order.reserve(count);
    for (uint32_t id : GetGroupUsers(0))
    {
        order.push_back(id);
    }
    for (size_t head = 0; head < order.size(); ++head)
    {
        for (uint32_t g : GetGroupsOf(order[head]))
        {
            if (--pending[g] == 0)
            {
                for (uint32_t u : GetGroupUsers(g))
                {
                    order.push_back(u);
                }
            }
        }
    }
    if (order.size() != count)
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            if (pending[m_groupOf[i]] > 0)
            {
                throw std::invalid_argument("workload " + std::to_string(i) +
                                            ": its dependencies form a cycle, so it can never "
                                            "be scheduled");
            }
        }
    }
    return order;
}

void
WorkloadSet::IndexHeightsAndDepths(const std::vector<uint32_t>& order)
{
    const auto count = static_cast<uint32_t>(m_workloads.size());
    const auto groups = static_cast<uint32_t>(m_groupDepsStart.size() - 1);
    // Depths along the order, heights in reverse of it: a group's users all come after its
    // members in the order.
    std::vector<uint32_t> groupHeight(groups, 0);
    m_height.assign(count, 1);
    for (auto it = order.rbegin(); it != order.rend(); ++it)
    {
        for (uint32_t g : GetGroupsOf(*it))
        {
            m_height[*it] = std::max(m_height[*it], groupHeight[g] + 1);
        }
        groupHeight[m_groupOf[*it]] = std::max(groupHeight[m_groupOf[*it]], m_height[*it]);
    }
    std::vector<uint32_t> groupDepth(groups, 0);
    m_depth.assign(count, 0);
    for (uint32_t w : order)
    {
        m_depth[w] = groupDepth[m_groupOf[w]];
        for (uint32_t g : GetGroupsOf(w))
        {
            groupDepth[g] = std::max(groupDepth[g], m_depth[w] + 1);
        }
    }
}

uint32_t
WorkloadSet::GetN() const
{
    return static_cast<uint32_t>(m_workloads.size());
}

const Workload&
WorkloadSet::Get(uint32_t id) const
{
    if (id >= m_workloads.size())
    {
        throw std::invalid_argument("no workload " + std::to_string(id) + "; there are " +
                                    std::to_string(m_workloads.size()));
    }
    return m_workloads[id];
}

void
WorkloadSet::SetPath(uint32_t id, std::vector<uint32_t> path)
{
    Workload& w = m_workloads.at(id);
    if (path.size() < 2 || path.front() != w.src || path.back() != w.dst)
    {
        throw std::invalid_argument("workload " + std::to_string(id) + " goes from node " +
                                    std::to_string(w.src) + " to node " +
                                    std::to_string(w.dst) +
                                    "; a new path must start and end there");
    }
    std::vector<uint32_t> links;
    links.reserve(path.size() - 1);
    for (size_t h = 0; h + 1 < path.size(); ++h)
    {
        links.push_back(GetDirectedLink(m_topology, path[h], path[h + 1])); // throws
    }
    w.path = std::move(path);
    w.links = std::move(links);
    ++m_pathChanges;
}

uint64_t
WorkloadSet::GetPathChanges() const
{
    return m_pathChanges;
}

const std::vector<Workload>&
WorkloadSet::GetAll() const
{
    return m_workloads;
}

std::vector<Workload>
WorkloadSet::GetList() const
{
    std::vector<Workload> list = m_workloads;
    for (Workload& w : list)
    {
        w.deps = GetDeps(w.id).ToVector();
    }
    return list;
}

IdSpan
WorkloadSet::GetDeps(uint32_t id) const
{
    return GetGroupDeps(m_groupOf.at(id));
}

WorkloadSet::Dependents
WorkloadSet::GetDependents(uint32_t id) const
{
    return Dependents(this, GetGroupsOf(id));
}

uint32_t
WorkloadSet::GetNDepGroups() const
{
    return static_cast<uint32_t>(m_usersStart.empty() ? 0 : m_usersStart.size() - 1);
}

uint32_t
WorkloadSet::GetDepGroup(uint32_t id) const
{
    return m_groupOf.at(id);
}

IdSpan
WorkloadSet::GetGroupDeps(uint32_t group) const
{
    const uint64_t begin = m_groupDepsStart.at(group);
    return IdSpan(m_groupDeps.data() + begin, m_groupDepsStart.at(group + 1) - begin);
}

IdSpan
WorkloadSet::GetGroupUsers(uint32_t group) const
{
    const uint32_t begin = m_usersStart.at(group);
    return IdSpan(m_users.data() + begin, m_usersStart.at(group + 1) - begin);
}

IdSpan
WorkloadSet::GetGroupsOf(uint32_t id) const
{
    const uint64_t begin = m_groupsOfStart.at(id);
    return IdSpan(m_groupsOf.data() + begin, m_groupsOfStart.at(id + 1) - begin);
}

WorkloadSet::Dependents::Dependents(const WorkloadSet* set, IdSpan groups)
    : m_set(set),
      m_groups(groups)
{
}

WorkloadSet::Dependents::Iterator
WorkloadSet::Dependents::begin() const
{
    return Iterator(m_set, m_groups.begin(), m_groups.end());
}

WorkloadSet::Dependents::Iterator
WorkloadSet::Dependents::end() const
{
    return Iterator(m_set, m_groups.end(), m_groups.end());
}

size_t
WorkloadSet::Dependents::size() const
{
    size_t n = 0;
    for (uint32_t g : m_groups)
    {
        n += m_set->GetGroupUsers(g).size();
    }
    return n;
}

bool
WorkloadSet::Dependents::empty() const
{
    return size() == 0;
}

WorkloadSet::Dependents::Iterator::Iterator(const WorkloadSet* set,
                                            const uint32_t* group,
                                            const uint32_t* groupEnd)
    : m_set(set),
      m_group(group),
      m_groupEnd(groupEnd)
{
    if (m_group != m_groupEnd)
    {
        const IdSpan users = m_set->GetGroupUsers(*m_group);
        m_user = users.begin();
        m_userEnd = users.end();
        Settle();
    }
}

void
WorkloadSet::Dependents::Iterator::Settle()
{
    while (m_user == m_userEnd && m_group != m_groupEnd)
    {
        if (++m_group == m_groupEnd)
        {
            m_user = m_userEnd = nullptr;
            return;
        }
        const IdSpan users = m_set->GetGroupUsers(*m_group);
        m_user = users.begin();
        m_userEnd = users.end();
    }
}

uint32_t
WorkloadSet::Dependents::Iterator::operator*() const
{
    return *m_user;
}

WorkloadSet::Dependents::Iterator&
WorkloadSet::Dependents::Iterator::operator++()
{
    ++m_user;
    Settle();
    return *this;
}

bool
WorkloadSet::Dependents::Iterator::operator!=(const Iterator& other) const
{
    return m_group != other.m_group || m_user != other.m_user;
}

uint32_t
WorkloadSet::GetHeight(uint32_t id) const
{
    return m_height.at(id);
}

uint32_t
WorkloadSet::GetDepth(uint32_t id) const
{
    return m_depth.at(id);
}

std::vector<uint32_t>
WorkloadSet::GetCarries(uint32_t id) const
{
    const Workload& w = Get(id);
    if (w.phase == Phase::REDUCE)
    {
        return w.carries.ToVector();
    }
    std::vector<uint32_t> all(m_topology.GetNServers());
    std::iota(all.begin(), all.end(), 0);
    return all;
}

const Topology&
WorkloadSet::GetTopology() const
{
    return m_topology;
}

std::string
WorkloadSet::Describe(uint32_t id) const
{
    const Workload& w = Get(id);
    std::ostringstream os;
    os << "workload " << w.id << " (" << ToString(w.phase) << ", chunk " << w.chunk << ", piece "
       << w.piece << ", " << m_topology.GetNodeName(w.src) << " -> "
       << m_topology.GetNodeName(w.dst) << ", path";
    for (size_t i = 0; i < w.path.size(); ++i)
    {
        os << (i ? "-" : " ") << w.path[i];
    }
    os << ")";
    return os.str();
}

WorkloadSet
WorkloadSet::OnTopology(const Topology& topology) const
{
    const std::string differs = m_topology.DescribeDifference(topology);
    if (!differs.empty())
    {
        throw std::invalid_argument("the workloads are on another graph: " + differs);
    }
    WorkloadSet moved = *this;
    moved.m_topology = topology;
    return moved;
}

void
WorkloadSet::Keep(const std::vector<uint32_t>& ids)
{
    std::vector<uint32_t> local(m_workloads.size(), NO_INDEX);
    for (size_t i = 0; i < ids.size(); ++i)
    {
        if (ids[i] >= m_workloads.size() || (i > 0 && ids[i] <= ids[i - 1]))
        {
            throw std::invalid_argument(
                "WorkloadSet::Keep: workload ids must be ascending and below " +
                std::to_string(m_workloads.size()) + ", got " + std::to_string(ids[i]) +
                " at position " + std::to_string(i));
        }
        local[ids[i]] = static_cast<uint32_t>(i);
    }
    // Ascending ids: workload i comes from ids[i] >= i, which nothing before overwrote. The
    // dependency indexes still describe the whole set until Index below.
    for (size_t i = 0; i < ids.size(); ++i)
    {
        std::vector<uint32_t> deps;
        for (uint32_t d : GetDeps(ids[i]))
        {
            if (local[d] != NO_INDEX)
            {
                deps.push_back(local[d]);
            }
        }
        if (ids[i] != i)
        {
            m_workloads[i] = std::move(m_workloads[ids[i]]);
        }
        m_workloads[i].id = static_cast<uint32_t>(i);
        m_workloads[i].deps = std::move(deps);
    }
    std::vector<uint32_t>().swap(local);
    // The whole set's indexes go first: the smaller list is then made where they were.
    for (std::vector<uint32_t>* index :
         {&m_groupOf, &m_groupDeps, &m_usersStart, &m_users, &m_groupsOf, &m_height, &m_depth})
    {
        std::vector<uint32_t>().swap(*index);
    }
    std::vector<uint64_t>().swap(m_groupDepsStart);
    std::vector<uint64_t>().swap(m_groupsOfStart);
    m_workloads.resize(ids.size());
    m_workloads.shrink_to_fit();
    Index();
}

WorkloadSemantics
WorkloadSet::GetSemantics() const
{
    return m_semantics;
}

uint32_t
WorkloadSet::GetPieces() const
{
    return m_pieces;
}

uint32_t
WorkloadSet::GetNDirectedLinks() const
{
    return 2 * m_topology.GetNLinks();
}

std::vector<uint32_t>
WorkloadSet::GetLinkLoads() const
{
    std::vector<uint32_t> load(GetNDirectedLinks(), 0);
    for (const Workload& w : m_workloads)
    {
        for (uint32_t l : w.links)
        {
            ++load[l];
        }
    }
    return load;
}

} // namespace ns3
