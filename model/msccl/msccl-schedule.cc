/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msccl-schedule.h"

#include "msccl-simulator.h"

#include "ns3/allreduce-scheduler.h"
#include "ns3/enum.h"
#include "ns3/job-view.h"
#include "ns3/log.h"
#include "ns3/replay-scheduler.h"
#include "ns3/size-limits.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MscclSchedule");

namespace
{

/**
 * \return the path of a transfer from a to b of one chunk: along the chunk's flow tree where
 *         it joins them (a partial sum up toward the chunk's server, the sum down from it), as
 *         the model's workloads go; else along b's tree (both are shortest paths)
 */
std::vector<uint32_t>
RoutePath(const std::vector<FlowTree>& trees, uint32_t chunk, uint32_t a, uint32_t b)
{
    const FlowTree& tree = trees[chunk];
    std::vector<uint32_t> up = tree.GetPathToRoot(a);
    auto at = std::find(up.begin(), up.end(), b);
    if (at != up.end())
    {
        up.erase(at + 1, up.end());
        return up;
    }
    std::vector<uint32_t> down = tree.GetPathToRoot(b);
    at = std::find(down.begin(), down.end(), a);
    if (at != down.end())
    {
        down.erase(at + 1, down.end());
        std::reverse(down.begin(), down.end());
        return down;
    }
    return trees[b].GetPathToRoot(a);
}

/**
 * \throws std::invalid_argument when the ranks cannot run on the topology: it has aggregating
 *         switches, --ranks does not list one server per rank, or it has too few servers
 */
void
CheckRanksFit(const MscclAlgorithm& algorithm,
              const std::string& source,
              const Topology& topology,
              const std::vector<uint32_t>& ranks)
{
    const uint32_t n = algorithm.GetNRanks();
    if (topology.CountAggregators() > 0)
    {
        throw std::invalid_argument(
            "MSCCL algorithm '" + source + "': the topology '" + topology.GetName() +
            "' has aggregating switches, which have no part in an MSCCL algorithm (it moves "
            "data between GPUs); use the topology without ina=");
    }
    if (!ranks.empty() && ranks.size() != n)
    {
        throw std::invalid_argument("MSCCL algorithm '" + source + "' has " + std::to_string(n) +
                                    " ranks, but --ranks lists " + std::to_string(ranks.size()) +
                                    " servers; give one server per rank");
    }
    if (ranks.empty() && n > topology.GetNServers())
    {
        throw std::invalid_argument("MSCCL algorithm '" + source + "' has " + std::to_string(n) +
                                    " ranks, but topology '" + topology.GetName() + "' has " +
                                    std::to_string(topology.GetNServers()) +
                                    " servers; use a larger topology");
    }
}

/// Where the ranks of an algorithm run.
struct RankPlacement
{
    Topology view;     //!< the topology or the JobView of the ranks' servers (rank i: server i)
    bool identity;     //!< rank i runs on server i of the whole topology, for every server
    std::string note;  //!< how the ranks map to servers, for the user (empty for the identity)
};

/**
 * \param topology the topology \param ranks per rank, its server (empty: rank i on server i)
 * \param n the ranks
 * \return where the ranks run
 */
RankPlacement
PlaceRanks(const Topology& topology, const std::vector<uint32_t>& ranks, uint32_t n)
{
    std::vector<uint32_t> members = ranks;
    if (members.empty())
    {
        members.resize(n);
        std::iota(members.begin(), members.end(), 0);
    }
    bool identity = n == topology.GetNServers();
    for (uint32_t r = 0; identity && r < n; ++r)
    {
        identity = members[r] == r;
    }
    // The view checks the members (servers, each once) and relabels them 0..n-1.
    RankPlacement out{identity ? topology : JobView(topology, members).GetTopology(),
                      identity,
                      ""};
    if (!identity)
    {
        std::string list;
        for (uint32_t r = 0; r < n; ++r)
        {
            list += (r ? "," : "") + std::to_string(members[r]);
        }
        out.note = "ranks 0.." + std::to_string(n - 1) + " run on servers " + list + " of " +
                   topology.GetName() + " (" + std::to_string(topology.GetNServers()) +
                   " servers; those without a rank relay)";
    }
    return out;
}

/// The algorithm's C chunks as the model's N chunks x k pieces: lcm(C, N) pieces in all.
struct ChunkMapping
{
    uint64_t pieces; //!< k, the model's pieces per chunk: lcm(C, N) / N
    uint64_t per;    //!< model pieces per MSCCL chunk: lcm(C, N) / C
};

/**
 * \param algorithm the algorithm \param source its file, for errors
 * \param[in,out] note the mapping's note, to which this adds the chunks' when they are cut
 * \return how its chunks map to the model's
 * \throws std::invalid_argument when that takes more than 1000000 pieces per chunk
 */
ChunkMapping
MapChunks(const MscclAlgorithm& algorithm, const std::string& source, std::string& note)
{
    const uint64_t n = algorithm.GetNRanks();
    const uint64_t c = algorithm.nchunksperloop;
    const uint64_t total = std::lcm(c, n);
    const uint64_t pieces = total / n;
    const uint64_t per = total / c;
    if (pieces > 1000000)
    {
        throw std::invalid_argument("MSCCL algorithm '" + source + "': its " + std::to_string(c) +
                                    " chunks on " + std::to_string(n) + " ranks would need " +
                                    std::to_string(pieces) + " pieces per chunk (lcm(C, N) / N), "
                                    "more than 1000000");
    }
    if (per > 1)
    {
        note += std::string(note.empty() ? "" : "; ") + "each of the " + std::to_string(c) +
                " MSCCL chunks is " + std::to_string(per) + " pieces of the model's " +
                std::to_string(n) + " chunks x " + std::to_string(pieces) + " pieces";
    }
    return ChunkMapping{pieces, per};
}

/// \throws std::invalid_argument when the transfers' workloads would not fit in memory
void
CheckWorkloadMemory(const std::vector<MscclTransfer>& transfers,
                    const ChunkMapping& chunks,
                    const std::string& source)
{
    uint64_t depCount = 0;
    for (const MscclTransfer& t : transfers)
    {
        depCount += t.deps.size();
    }
    CheckMemory("the " + std::to_string(transfers.size() * chunks.per) +
                    " workloads of MSCCL algorithm '" + source + "'",
                SaturatingMultiply(chunks.per,
                                   SaturatingMultiply(transfers.size(), 256) + depCount * 4),
                "use an algorithm with fewer chunks");
}

/// \return true when every transfer has a round hint (as our export writes)
bool
HasRoundHints(const std::vector<MscclTransfer>& transfers)
{
    bool hinted = !transfers.empty();
    for (const MscclTransfer& t : transfers)
    {
        hinted = hinted && t.round >= 0;
    }
    return hinted;
}

/**
 * \return true when every transfer has a path (as our export writes) that walks the view's
 *         links between its servers
 */
bool
HasPathsOn(const std::vector<MscclTransfer>& transfers, const Topology& view)
{
    bool routed = !transfers.empty();
    for (size_t i = 0; routed && i < transfers.size(); ++i)
    {
        const auto& path = transfers[i].path;
        routed = path.size() >= 2 && path.front() == transfers[i].src &&
                 path.back() == transfers[i].dst;
        for (size_t h = 0; routed && h + 1 < path.size(); ++h)
        {
            routed = path[h] < view.GetNNodes() && path[h + 1] < view.GetNNodes() &&
                     view.HasLink(path[h], path[h + 1]);
        }
    }
    return routed;
}

/**
 * Turns every transfer into a workload per model piece of its chunk.
 * \param transfers the algorithm's transfers \param chunks how its chunks map to the model's
 * \param view the topology the ranks run on \param routed true: along the transfers' paths;
 *        else along the shortest-path trees of the view (RoutePath)
 * \param[out] hint per workload, its transfer's round hint, when every transfer has one
 * \return the workloads
 */
std::vector<Workload>
BuildWorkloads(const std::vector<MscclTransfer>& transfers,
               const ChunkMapping& chunks,
               const Topology& view,
               bool routed,
               std::vector<int64_t>& hint)
{
    const uint32_t n = view.GetNServers();
    const bool hinted = HasRoundHints(transfers);
    const std::vector<FlowTree> trees = routed ? std::vector<FlowTree>{}
                                               : BuildShortestPathTrees(view);
    std::vector<Workload> workloads;
    workloads.reserve(transfers.size() * chunks.per);
    for (const MscclTransfer& t : transfers)
    {
        for (uint64_t j = 0; j < chunks.per; ++j)
        {
            Workload w;
            w.id = static_cast<uint32_t>(workloads.size());
            const uint64_t slice = t.chunk * chunks.per + j;
            w.chunk = static_cast<uint32_t>(slice / chunks.pieces);
            w.piece = static_cast<uint32_t>(slice % chunks.pieces);
            w.phase = t.carries.size() == n ? Phase::GATHER : Phase::REDUCE;
            w.src = t.src;
            w.dst = t.dst;
            w.path = routed ? t.path : RoutePath(trees, w.chunk, t.src, t.dst);
            w.carries = ServerSet(t.carries);
            w.deps.reserve(t.deps.size());
            for (uint32_t d : t.deps)
            {
                w.deps.push_back(static_cast<uint32_t>(d * chunks.per + j));
            }
            workloads.push_back(std::move(w));
            if (hinted)
            {
                hint.push_back(t.round);
            }
        }
    }
    return workloads;
}

/**
 * The orders to list-schedule the workloads in. With round hints on every send (our export),
 * in their order: that gives the exported rounds, or fewer where the schedule held a ready
 * workload back. Else earliest ready first, ties to the longer chain after it; the longer
 * chain first; earliest ready first in the order the algorithm sends.
 * \param set the workloads \param hint per workload, its round hint (empty: none)
 * \return the orders
 */
std::vector<std::vector<uint32_t>>
ListOrders(const WorkloadSet& set, const std::vector<int64_t>& hint)
{
    const auto byKey = [&set](auto key) {
        std::vector<uint32_t> order(set.GetN());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&key](uint32_t a, uint32_t b) { return key(a) < key(b); });
        return order;
    };
    if (!hint.empty())
    {
        return {
            byKey([&hint, &set](uint32_t id) {
                return std::make_pair(hint[id], set.GetDepth(id));
            }),
        };
    }
    return {
        byKey([&set](uint32_t id) {
            return std::make_pair(set.GetDepth(id), UINT32_MAX - set.GetHeight(id));
        }),
        byKey([&set](uint32_t id) {
            return std::make_pair(UINT32_MAX - set.GetHeight(id), set.GetDepth(id));
        }),
        byKey([&set](uint32_t id) { return set.GetDepth(id); }),
    };
}

/// \return the list schedule of the workloads in each order with the fewest rounds (the
///         first of equals)
Schedule
FewestRounds(const WorkloadSet& set, const std::vector<std::vector<uint32_t>>& orders)
{
    Schedule schedule;
    for (const std::vector<uint32_t>& order : orders)
    {
        Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
        replay->SetAttribute("Order", EnumValue(ReplayScheduler::LIST));
        Schedule listed;
        listed.rounds.push_back(order);
        replay->SetSchedule(std::move(listed)); // over the workloads RunRounds prepares it with
        Schedule tried = RunRounds(*replay, set);
        if (schedule.rounds.empty() || tried.GetNRounds() < schedule.GetNRounds())
        {
            schedule = std::move(tried);
        }
    }
    return schedule;
}

} // namespace

MscclImport
ImportMscclAlgorithm(const MscclAlgorithm& algorithm,
                     const std::string& source,
                     const Topology& topology,
                     const std::vector<uint32_t>& ranks)
{
    CheckRanksFit(algorithm, source, topology, ranks);
    std::vector<MscclTransfer> transfers = SimulateMscclAlgorithm(algorithm, source);
    const RankPlacement placement = PlaceRanks(topology, ranks, algorithm.GetNRanks());
    MscclImport out;
    out.note = placement.note;
    const ChunkMapping chunks = MapChunks(algorithm, source, out.note);
    CheckWorkloadMemory(transfers, chunks, source);
    // Paths: the ones our export wrote where every send has one that walks this topology's
    // links between its servers (and the ranks are the topology's servers); else along trees.
    const bool routed = placement.identity && HasPathsOn(transfers, placement.view);
    std::vector<int64_t> hint;
    std::vector<Workload> workloads =
        BuildWorkloads(transfers, chunks, placement.view, routed, hint);
    transfers.clear();
    WorkloadSet set(placement.view, std::move(workloads), WorkloadSemantics::MSCCL,
                    static_cast<uint32_t>(chunks.pieces));
    // List schedules in a few orders, the fewest rounds kept.
    Schedule schedule = FewestRounds(set, ListOrders(set, hint));
    schedule.scheduler = "msccl" + (algorithm.name.empty() ? "" : ":" + algorithm.name);
    out.plan = Plan{std::move(set), std::move(schedule)};
    return out;
}

namespace
{

/**
 * \throws std::invalid_argument when the schedule cannot be an MSCCL algorithm: sizes beyond
 *         an algorithm file's, a workload to or from a switch, or an invalid schedule
 */
void
CheckExportable(const WorkloadSet& workloads, const Schedule& schedule)
{
    const Topology& topology = workloads.GetTopology();
    const uint32_t n = topology.GetNServers();
    const uint32_t k = workloads.GetPieces();
    if (n > MSCCL_MAX_RANKS || uint64_t{n} * k > MSCCL_MAX_CHUNKS)
    {
        throw std::invalid_argument(
            "cannot export to MSCCL: " + std::to_string(n) + " servers x " + std::to_string(k) +
            " pieces is beyond the MSCCL executor's " + std::to_string(MSCCL_MAX_RANKS) +
            " ranks and " + std::to_string(MSCCL_MAX_CHUNKS) + " chunks (servers x pieces); "
            "use fewer pieces");
    }
    for (const Workload& w : workloads.GetAll())
    {
        if (w.src >= n || w.dst >= n)
        {
            throw std::invalid_argument(
                "cannot export to MSCCL: workload " + std::to_string(w.id) + " goes from " +
                topology.GetNodeName(w.src) + " to " + topology.GetNodeName(w.dst) +
                "; an MSCCL algorithm moves data between GPUs only, and switches do not "
                "aggregate in it (schedule without ina=)");
        }
    }
    const ScheduleCheck check = ValidateSchedule(workloads, schedule);
    if (!check.valid)
    {
        throw std::invalid_argument("cannot export an invalid schedule to MSCCL: " + check.error);
    }
}

/// Per (server, peer), the most sends to and receives from the peer that one threadblock of
/// the server takes (absent: MSCCL_MAX_STEPS); lowered where nop steps would overfill one.
using StepCaps = std::map<std::pair<uint32_t, uint32_t>, uint32_t>;

/**
 * \param caps per (server, peer), the steps its threadblocks on the peer take
 * \return per workload, its channel: the lowest one that no other workload between the same two
 *         servers takes in its round (the i-th takes channel i), on which neither server
 *         already has the MSCCL executor's 32 threadblocks (one per peer and channel) and whose
 *         threadblock for the peer still has room on both servers (its cap), so that each
 *         (peer, channel) of a server stays one threadblock, as the executor needs
 * \throws std::invalid_argument when no channel is left for a workload
 */
std::vector<uint32_t>
ChannelOf(const WorkloadSet& workloads, const Schedule& schedule, const StepCaps& caps)
{
    std::vector<uint32_t> chanOf(workloads.GetN(), 0);
    // Per (sender, receiver, round), the channels its workloads took.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::set<uint32_t>> used;
    // Per (server, channel), the peers it has a threadblock for on the channel.
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> peersOn;
    // Per (server, peer, channel), the sends and receives of its threadblock.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> steps;
    const auto fits = [&](uint32_t server, uint32_t chan, uint32_t peer) {
        const auto& peers = peersOn[{server, chan}];
        const auto cap = caps.find({server, peer});
        return (peers.count(peer) || peers.size() < MSCCL_MAX_THREADBLOCKS_PER_CHANNEL) &&
               steps[{server, peer, chan}] < (cap == caps.end() ? MSCCL_MAX_STEPS : cap->second);
    };
    for (uint32_t r = 0; r < schedule.rounds.size(); ++r)
    {
        std::vector<uint32_t> ids = schedule.rounds[r];
        std::sort(ids.begin(), ids.end());
        for (uint32_t id : ids)
        {
            const Workload& w = workloads.Get(id);
            auto& taken = used[{w.src, w.dst, r}];
            uint32_t c = 0;
            while (c < MSCCL_MAX_CHANNELS &&
                   (taken.count(c) || !fits(w.src, c, w.dst) || !fits(w.dst, c, w.src)))
            {
                ++c;
            }
            if (c == MSCCL_MAX_CHANNELS)
            {
                const Topology& topology = workloads.GetTopology();
                throw std::invalid_argument(
                    "cannot export to MSCCL: workload " + std::to_string(id) + " from " +
                    topology.GetNodeName(w.src) + " to " + topology.GetNodeName(w.dst) +
                    " in round " + std::to_string(r) + " finds no channel: each workload between "
                    "two servers in a round takes a channel of its own, and the MSCCL executor has " +
                    std::to_string(MSCCL_MAX_CHANNELS) + " channels of " +
                    std::to_string(MSCCL_MAX_THREADBLOCKS_PER_CHANNEL) + " peers per server and " +
                    std::to_string(MSCCL_MAX_STEPS) + " steps per threadblock (use fewer pieces or "
                    "servers)");
            }
            taken.insert(c);
            peersOn[{w.src, c}].insert(w.dst);
            peersOn[{w.dst, c}].insert(w.src);
            ++steps[{w.src, w.dst, c}];
            ++steps[{w.dst, w.src, c}];
            chanOf[id] = c;
        }
    }
    return chanOf;
}

/// One side of a workload on one rank: its send or its receive.
struct Event
{
    uint32_t round{0};    //!< the workload's round
    uint32_t kind{0};     //!< 0: the send (reads the chunk), 1: the receive (writes it)
    uint32_t workload{0}; //!< the workload
    uint32_t rank{0};     //!< the rank it happens on
};

/// \return every send and receive, in the order they run: by round, sends before receives (a
///         sender sends what it holds when the round starts), then by workload
std::vector<Event>
OrderEvents(const WorkloadSet& workloads, const Schedule& schedule)
{
    const std::vector<uint32_t> roundOf = RoundOfEachWorkload(schedule, workloads.GetN());
    std::vector<Event> events;
    events.reserve(2 * uint64_t{workloads.GetN()});
    for (const Workload& w : workloads.GetAll())
    {
        events.push_back({roundOf[w.id], 0, w.id, w.src});
        events.push_back({roundOf[w.id], 1, w.id, w.dst});
    }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return std::tie(a.round, a.kind, a.workload, a.rank) <
               std::tie(b.round, b.kind, b.workload, b.rank);
    });
    return events;
}

/// \return the algorithm's header and its GPUs, one per server, with their buffers (in place,
///         a chunk per piece of every chunk); no threadblocks yet
MscclAlgorithm
MakeGpus(const WorkloadSet& workloads, const Schedule& schedule)
{
    const Topology& topology = workloads.GetTopology();
    const uint32_t n = topology.GetNServers();
    const uint64_t chunks = uint64_t{n} * workloads.GetPieces();
    MscclAlgorithm algo;
    algo.name = (schedule.scheduler.empty() ? "schedule" : schedule.scheduler) + " on " +
                topology.GetName();
    algo.nchunksperloop = static_cast<uint32_t>(chunks);
    algo.inplace = true;
    algo.gpus.resize(n);
    for (MscclGpu& gpu : algo.gpus)
    {
        gpu.iChunks = static_cast<uint32_t>(chunks);
    }
    return algo;
}

/// Per rank, its threadblocks by (peer, channel).
using ThreadblockIds = std::vector<std::map<std::pair<uint32_t, uint32_t>, uint32_t>>;

/**
 * Adds the threadblocks: one per (peer, channel) a rank sends to or receives from, in that
 * order, and sets nchannels.
 * \param algo the algorithm with its GPUs \param workloads the workloads
 * \param events their sends and receives \param chanOf per workload, its channel
 * \return per rank, the threadblock of each (peer, channel)
 */
ThreadblockIds
AddThreadblocks(MscclAlgorithm& algo,
                const WorkloadSet& workloads,
                const std::vector<Event>& events,
                const std::vector<uint32_t>& chanOf)
{
    ThreadblockIds tbOf(algo.GetNRanks());
    for (const Event& e : events)
    {
        const Workload& w = workloads.Get(e.workload);
        tbOf[e.rank].emplace(std::make_pair(e.kind == 0 ? w.dst : w.src, chanOf[w.id]), 0);
    }
    for (uint32_t r = 0; r < algo.GetNRanks(); ++r)
    {
        MscclGpu& gpu = algo.gpus[r];
        for (auto& entry : tbOf[r])
        {
            entry.second = static_cast<uint32_t>(gpu.threadblocks.size());
            MscclThreadblock tb;
            tb.chan = entry.first.second;
            algo.nchannels = std::max(algo.nchannels, tb.chan + 1);
            gpu.threadblocks.push_back(tb);
        }
    }
    return tbOf;
}

/// A step's place: threadblock and step index on its rank.
using StepPlace = std::pair<uint32_t, uint32_t>;

/**
 * Writes the steps of the threadblocks, one send or receive at a time in the order they run,
 * with the dependencies that keep them in order (ExportMscclAlgorithm): a send on the last
 * receive into its chunk, a receive on that and the sends of its chunk since then, and a send
 * nothing else holds back until its round on a step that ends in the round before.
 */
class StepWriter
{
  public:
    /**
     * \param algo the algorithm with its threadblocks \param workloads the workloads
     * \param chanOf per workload, its channel \param tbOf per rank, its threadblocks
     */
    StepWriter(MscclAlgorithm& algo,
               const WorkloadSet& workloads,
               const std::vector<uint32_t>& chanOf,
               ThreadblockIds tbOf);

    /// Where a threadblock had no room for a step: its rank, peer and steps.
    struct Full
    {
        uint32_t rank{0};   //!< the rank
        uint32_t peer{0};   //!< the threadblock's peer
        uint32_t events{0}; //!< the sends and receives it holds (those that fitted)
        uint32_t waits{0};  //!< the steps of other threadblocks the next one waits for
    };

    /**
     * Writes the step of one send or receive (and the nop steps before it), after the
     * steps of every event before it.
     * \param e the event
     * \return false when its threadblock has no room left for it and its nops (GetFull says
     *         where; the export then puts fewer steps on that peer's threadblocks)
     */
    bool Add(const Event& e);

    /// \return the sends whose round their dependencies could not pin
    uint32_t GetNotPinned() const;

    /// \return where Add found no room
    const Full& GetFull() const;

  private:
    /// A rank and a chunk (piece) of its buffer.
    using Cell = std::pair<uint32_t, uint64_t>;

    /// \return the round a step of rank r ends by (its finish, in rounds)
    uint32_t Finish(uint32_t r, const StepPlace& p) const;
    /// \return the finish of the last step of threadblock t of rank r (0: none yet)
    uint32_t LastFinish(uint32_t r, uint32_t t) const;
    /// \return the steps of the cell's rank that an event on it must wait for: the last
    ///         receive into the chunk and, for a receive, the sends of it since then
    std::vector<StepPlace> DataDeps(uint32_t kind, const Cell& cell);
    /**
     * Pins a send that nothing holds back until its round: it waits for a step of its rank
     * that ends in the round before, so that the file keeps the schedule's rounds.
     * \param e the send \param[in,out] deps its dependencies \param[in,out] ready its round
     *        when it may start
     */
    void Pin(const Event& e, std::vector<StepPlace>& deps, uint32_t& ready);
    /**
     * Appends a step to threadblock t of rank r.
     * \param step the step \param dep the step of another threadblock it waits for, or null
     * \param end the round it ends by \return its place
     */
    StepPlace AddStep(uint32_t r, uint32_t t, MscclStep step, const StepPlace* dep, uint32_t end);
    /// Records, per round the schedule ends a step by, the step estimated to end latest.
    void RecordEnd(uint32_t r, uint32_t round, const StepPlace& placed);
    /**
     * Checks that threadblock t of rank r holds a step that waits for deps, and its nops,
     * within MSCCL_MAX_STEPS: the executor cannot run a second threadblock on the same peer
     * and channel (CheckMscclExecutorRules), so a full one ends the export's attempt.
     * \param r the rank \param t its threadblock \param peer the threadblock's peer
     * \param[in,out] deps the step's dependencies; on return those on other threadblocks,
     *        sorted, each once
     * \return true when it fits; else false, with m_full set
     */
    bool Fits(uint32_t r, uint32_t t, uint32_t peer, std::vector<StepPlace>& deps);

    MscclAlgorithm& m_algo;               //!< the algorithm
    const WorkloadSet& m_workloads;       //!< the workloads
    const std::vector<uint32_t>& m_chanOf; //!< per workload, its channel
    const ThreadblockIds m_tbOf; //!< per rank, its threadblock by (peer, channel)
    std::map<Cell, StepPlace> m_lastWrite;              //!< the last receive into each cell
    std::map<Cell, std::vector<StepPlace>> m_readsSince; //!< the sends of each cell since then
    /// Per rank, threadblock and step: the round its step ends by.
    std::vector<std::vector<std::vector<uint32_t>>> m_finish;
    /// Per rank, the latest step that ends by each round.
    std::vector<std::map<uint32_t, StepPlace>> m_endsBy;
    uint32_t m_notPinned{0}; //!< sends their dependencies could not pin to their round
    Full m_full;             //!< where Add found no room
};

StepWriter::StepWriter(MscclAlgorithm& algo,
                       const WorkloadSet& workloads,
                       const std::vector<uint32_t>& chanOf,
                       ThreadblockIds tbOf)
    : m_algo(algo),
      m_workloads(workloads),
      m_chanOf(chanOf),
      m_tbOf(std::move(tbOf)),
      m_finish(algo.GetNRanks()),
      m_endsBy(algo.GetNRanks())
{
    for (uint32_t r = 0; r < algo.GetNRanks(); ++r)
    {
        m_finish[r].resize(algo.gpus[r].threadblocks.size());
    }
}

uint32_t
StepWriter::GetNotPinned() const
{
    return m_notPinned;
}

const StepWriter::Full&
StepWriter::GetFull() const
{
    return m_full;
}

uint32_t
StepWriter::Finish(uint32_t r, const StepPlace& p) const
{
    return m_finish[r][p.first][p.second];
}

uint32_t
StepWriter::LastFinish(uint32_t r, uint32_t t) const
{
    return m_finish[r][t].empty() ? 0 : m_finish[r][t].back();
}

std::vector<StepPlace>
StepWriter::DataDeps(uint32_t kind, const Cell& cell)
{
    std::vector<StepPlace> deps;
    const auto written = m_lastWrite.find(cell);
    if (written != m_lastWrite.end())
    {
        deps.push_back(written->second);
    }
    if (kind == 1)
    {
        const auto& reads = m_readsSince[cell];
        deps.insert(deps.end(), reads.begin(), reads.end());
    }
    return deps;
}

void
StepWriter::Pin(const Event& e, std::vector<StepPlace>& deps, uint32_t& ready)
{
    const uint32_t r = e.rank;
    auto pin = m_endsBy[r].upper_bound(e.round);
    if (pin != m_endsBy[r].begin() && Finish(r, (--pin)->second) > ready)
    {
        // A step that ends in the round before; where the rank idles then (its ports
        // relay others' workloads), in an earlier one, which holds it back less.
        deps.push_back(pin->second);
        ready = Finish(r, pin->second);
    }
    if (ready < e.round)
    {
        ++m_notPinned;
    }
}

StepPlace
StepWriter::AddStep(uint32_t r, uint32_t t, MscclStep step, const StepPlace* dep, uint32_t end)
{
    MscclGpu& gpu = m_algo.gpus[r];
    if (dep)
    {
        step.depid = static_cast<int32_t>(dep->first);
        step.deps = static_cast<int32_t>(dep->second);
        gpu.threadblocks[dep->first].steps[dep->second].hasdep = true;
    }
    MscclThreadblock& tb = gpu.threadblocks[t];
    tb.steps.push_back(step);
    m_finish[r][t].push_back(end);
    return StepPlace{t, static_cast<uint32_t>(tb.steps.size() - 1)};
}

void
StepWriter::RecordEnd(uint32_t r, uint32_t round, const StepPlace& placed)
{
    const auto ends = m_endsBy[r].find(round);
    if (ends == m_endsBy[r].end() || Finish(r, placed) >= Finish(r, ends->second))
    {
        m_endsBy[r][round] = placed;
    }
}

/// \return deps without those on threadblock t, sorted, each once
std::vector<StepPlace>
OnOtherThreadblocks(std::vector<StepPlace> deps, uint32_t t)
{
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    deps.erase(std::remove_if(deps.begin(), deps.end(),
                              [t](const StepPlace& d) { return d.first == t; }),
               deps.end());
    return deps;
}

bool
StepWriter::Fits(uint32_t r, uint32_t t, uint32_t peer, std::vector<StepPlace>& deps)
{
    deps = OnOtherThreadblocks(deps, t);
    const auto& steps = m_algo.gpus[r].threadblocks[t].steps;
    // The step and a nop before it for each dependency but one.
    if (steps.size() + std::max<size_t>(deps.size(), 1) <= MSCCL_MAX_STEPS)
    {
        return true;
    }
    m_full.rank = r;
    m_full.peer = peer;
    m_full.events = static_cast<uint32_t>(
        std::count_if(steps.begin(), steps.end(),
                      [](const MscclStep& step) { return step.type != MscclStepType::NOP; }));
    m_full.waits = static_cast<uint32_t>(deps.size());
    return false;
}

bool
StepWriter::Add(const Event& e)
{
    const Workload& w = m_workloads.Get(e.workload);
    const uint32_t r = e.rank;
    const uint32_t peer = e.kind == 0 ? w.dst : w.src;
    const std::pair<uint32_t, uint32_t> key{peer, m_chanOf[w.id]};
    const uint32_t t = m_tbOf[r].at(key);
    const uint64_t chunk = uint64_t{w.chunk} * m_workloads.GetPieces() + w.piece;
    const Cell cell{r, chunk};
    std::vector<StepPlace> deps = DataDeps(e.kind, cell);
    uint32_t ready = LastFinish(r, t);
    for (const StepPlace& d : deps)
    {
        ready = std::max(ready, Finish(r, d));
    }
    if (e.kind == 0 && ready < e.round)
    {
        Pin(e, deps, ready);
    }
    // Steps of the same threadblock come before it anyway; each other one needs a depid,
    // the extra ones on nop steps first.
    if (!Fits(r, t, peer, deps))
    {
        return false;
    }
    MscclThreadblock& tb = m_algo.gpus[r].threadblocks[t];
    for (size_t d = 1; d < deps.size(); ++d)
    {
        MscclStep nop;
        nop.type = MscclStepType::NOP;
        nop.cnt = 0;
        AddStep(r, t, nop, &deps[d], std::max(LastFinish(r, t), Finish(r, deps[d])));
    }
    MscclStep step;
    step.srcbuf = 'i';
    step.srcoff = static_cast<int64_t>(chunk);
    step.dstbuf = 'i';
    step.dstoff = static_cast<int64_t>(chunk);
    const StepPlace* first = deps.empty() ? nullptr : &deps[0];
    StepPlace placed;
    if (e.kind == 0)
    {
        tb.send = static_cast<int32_t>(peer);
        step.type = MscclStepType::SEND;
        step.round = e.round;
        step.path = w.path.ToVector();
        placed = AddStep(r, t, step, first, ready + 1);
        m_readsSince[cell].push_back(placed);
    }
    else
    {
        tb.recv = static_cast<int32_t>(peer);
        step.type = w.phase == Phase::GATHER ? MscclStepType::RECV
                                             : MscclStepType::RECV_REDUCE_COPY;
        placed = AddStep(r, t, step, first, std::max(ready, e.round + 1));
        m_lastWrite[cell] = placed;
        m_readsSince[cell].clear();
    }
    RecordEnd(r, e.round + 1, placed);
    return true;
}

} // namespace

MscclAlgorithm
ExportMscclAlgorithm(const WorkloadSet& workloads, const Schedule& schedule, uint32_t* unpinned)
{
    CheckExportable(workloads, schedule);
    const std::vector<Event> events = OrderEvents(workloads, schedule);
    // A threadblock per (peer, channel) that nop steps overfill caps that peer's threadblocks
    // at the sends and receives that fitted, and the channels are chosen again; caps only
    // fall, so this ends.
    StepCaps caps;
    for (;;)
    {
        const std::vector<uint32_t> chanOf = ChannelOf(workloads, schedule, caps);
        MscclAlgorithm algo = MakeGpus(workloads, schedule);
        const ThreadblockIds tbOf = AddThreadblocks(algo, workloads, events, chanOf);
        StepWriter steps(algo, workloads, chanOf, tbOf);
        const bool written = std::all_of(events.begin(), events.end(), [&steps](const Event& e) {
            return steps.Add(e);
        });
        if (!written)
        {
            const StepWriter::Full& full = steps.GetFull();
            if (full.events == 0)
            {
                throw std::invalid_argument(
                    "cannot export to MSCCL: a step of rank " + std::to_string(full.rank) +
                    " waits for " + std::to_string(full.waits) + " steps of other threadblocks, "
                    "and a threadblock of the MSCCL executor holds " +
                    std::to_string(MSCCL_MAX_STEPS) + " steps (use fewer pieces)");
            }
            caps[{full.rank, full.peer}] = full.events;
            continue;
        }
        // Whatever the sizes above did not foresee (threadblocks per rank or channel, elements).
        CheckMscclExecutorRules(algo, "cannot export to MSCCL: the algorithm would not run on "
                                      "the MSCCL executor");
        if (unpinned)
        {
            *unpinned = steps.GetNotPinned();
        }
        NS_LOG_INFO("exported " << workloads.GetN() << " workloads; " << steps.GetNotPinned()
                                << " could not be pinned to their round");
        return algo;
    }
}

void
WriteMscclFile(const std::string& path, const WorkloadSet& workloads, const Schedule& schedule)
{
    const MscclAlgorithm algo = ExportMscclAlgorithm(workloads, schedule);
    // Never write a file that does not compute the AllReduce.
    SimulateMscclAlgorithm(algo, path);
    WriteTextFile(path, "MSCCL algorithm file", [&](std::ostream& os) {
        WriteMscclXml(os, algo);
        os << "\n";
    });
}

bool
IsMscclPath(const std::string& path)
{
    if (path.size() < 4)
    {
        return false;
    }
    std::string end = path.substr(path.size() - 4);
    std::transform(end.begin(), end.end(), end.begin(), [](unsigned char ch) {
        return static_cast<char>(std::tolower(ch));
    });
    return end == ".xml";
}

bool
IsMscclFile(const std::string& path)
{
    std::ifstream is(path, std::ios::binary);
    char head[4096];
    is.read(head, sizeof(head));
    const auto got = static_cast<size_t>(is.gcount());
    size_t i = got >= 3 && head[0] == '\xEF' && head[1] == '\xBB' && head[2] == '\xBF' ? 3 : 0;
    while (i < got && std::isspace(static_cast<unsigned char>(head[i])))
    {
        ++i;
    }
    return i < got && head[i] == '<';
}

} // namespace ns3
