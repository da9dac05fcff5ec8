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

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <numeric>
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

} // namespace

MscclImport
ImportMscclAlgorithm(const MscclAlgorithm& algorithm,
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
    std::vector<MscclTransfer> transfers = SimulateMscclAlgorithm(algorithm, source);

    MscclImport out;
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
    const Topology view = identity ? topology : JobView(topology, members).GetTopology();
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

    // C chunks of the algorithm onto N chunks x k pieces of the model: lcm(C, N) pieces in all.
    const uint64_t c = algorithm.nchunksperloop;
    const uint64_t total = std::lcm(c, uint64_t{n});
    const uint64_t pieces = total / n;
    const uint64_t per = total / c; // model pieces per MSCCL chunk
    if (pieces > 1000000)
    {
        throw std::invalid_argument("MSCCL algorithm '" + source + "': its " + std::to_string(c) +
                                    " chunks on " + std::to_string(n) + " ranks would need " +
                                    std::to_string(pieces) + " pieces per chunk (lcm(C, N) / N), "
                                    "more than 1000000");
    }
    if (per > 1)
    {
        out.note += std::string(out.note.empty() ? "" : "; ") + "each of the " +
                    std::to_string(c) + " MSCCL chunks is " + std::to_string(per) +
                    " pieces of the model's " + std::to_string(n) + " chunks x " +
                    std::to_string(pieces) + " pieces";
    }
    uint64_t depCount = 0;
    bool hinted = !transfers.empty();
    for (const MscclTransfer& t : transfers)
    {
        depCount += t.deps.size();
        hinted = hinted && t.round >= 0;
    }
    std::vector<int64_t> hint;
    CheckMemory("the " + std::to_string(transfers.size() * per) + " workloads of MSCCL algorithm '" +
                    source + "'",
                SaturatingMultiply(per, SaturatingMultiply(transfers.size(), 256) + depCount * 4),
                "use an algorithm with fewer chunks");

    // Paths: the ones our export wrote where every send has one that walks this topology's
    // links between its servers (and the ranks are the topology's servers); else along trees.
    bool routed = identity && !transfers.empty();
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
    const std::vector<FlowTree> trees = routed ? std::vector<FlowTree>{}
                                               : BuildShortestPathTrees(view);
    std::vector<Workload> workloads;
    workloads.reserve(transfers.size() * per);
    for (size_t i = 0; i < transfers.size(); ++i)
    {
        const MscclTransfer& t = transfers[i];
        for (uint64_t j = 0; j < per; ++j)
        {
            Workload w;
            w.id = static_cast<uint32_t>(workloads.size());
            const uint64_t slice = t.chunk * per + j;
            w.chunk = static_cast<uint32_t>(slice / pieces);
            w.piece = static_cast<uint32_t>(slice % pieces);
            w.phase = t.carries.size() == n ? Phase::GATHER : Phase::REDUCE;
            w.src = t.src;
            w.dst = t.dst;
            w.path = routed ? t.path : RoutePath(trees, w.chunk, t.src, t.dst);
            w.carries = t.carries;
            w.deps.reserve(t.deps.size());
            for (uint32_t d : t.deps)
            {
                w.deps.push_back(static_cast<uint32_t>(d * per + j));
            }
            workloads.push_back(std::move(w));
            if (hinted)
            {
                hint.push_back(t.round);
            }
        }
    }
    transfers.clear();
    WorkloadSet set(view, std::move(workloads), WorkloadSemantics::MSCCL,
                    static_cast<uint32_t>(pieces));

    // List schedules in a few orders, the fewest rounds kept (the first of equals). With round
    // hints on every send (our export), in their order: that gives the exported rounds, or
    // fewer where the schedule held a ready workload back. Else earliest ready first, ties to
    // the longer chain after it; the longer chain first; earliest ready first in the order the
    // algorithm sends.
    const auto byKey = [&set](auto key) {
        std::vector<uint32_t> order(set.GetN());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&key](uint32_t a, uint32_t b) { return key(a) < key(b); });
        return order;
    };
    const std::vector<std::vector<uint32_t>> orders = hinted ? std::vector<std::vector<uint32_t>>{
        byKey([&hint, &set](uint32_t id) { return std::make_pair(hint[id], set.GetDepth(id)); }),
    } : std::vector<std::vector<uint32_t>>{
        byKey([&set](uint32_t id) {
            return std::make_pair(set.GetDepth(id), UINT32_MAX - set.GetHeight(id));
        }),
        byKey([&set](uint32_t id) {
            return std::make_pair(UINT32_MAX - set.GetHeight(id), set.GetDepth(id));
        }),
        byKey([&set](uint32_t id) { return set.GetDepth(id); }),
    };
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
    schedule.scheduler = "msccl" + (algorithm.name.empty() ? "" : ":" + algorithm.name);
    out.plan = Plan{std::move(set), std::move(schedule)};
    return out;
}

namespace
{

/// One side of a workload on one rank: its send or its receive.
struct Event
{
    uint32_t round{0};    //!< the workload's round
    uint32_t kind{0};     //!< 0: the send (reads the chunk), 1: the receive (writes it)
    uint32_t workload{0}; //!< the workload
    uint32_t rank{0};     //!< the rank it happens on
};

/// A step's place: threadblock and step index on its rank.
using StepPlace = std::pair<uint32_t, uint32_t>;

} // namespace

MscclAlgorithm
ExportMscclAlgorithm(const WorkloadSet& workloads, const Schedule& schedule, uint32_t* unpinned)
{
    const Topology& topology = workloads.GetTopology();
    const uint32_t n = topology.GetNServers();
    const uint32_t k = workloads.GetPieces();
    const uint64_t chunks = uint64_t{n} * k;
    if (n > MSCCL_MAX_RANKS || chunks > MSCCL_MAX_CHUNKS)
    {
        throw std::invalid_argument("cannot export to MSCCL: " + std::to_string(n) +
                                    " servers x " + std::to_string(k) + " pieces is beyond an "
                                    "algorithm file's " + std::to_string(MSCCL_MAX_RANKS) +
                                    " ranks and " + std::to_string(MSCCL_MAX_CHUNKS) + " chunks");
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
    std::vector<uint32_t> roundOf(workloads.GetN(), 0);
    for (uint32_t r = 0; r < schedule.rounds.size(); ++r)
    {
        for (uint32_t id : schedule.rounds[r])
        {
            roundOf[id] = r;
        }
    }
    // Channels: the i-th workload between the same two servers in one round takes channel i.
    std::vector<uint32_t> chanOf(workloads.GetN(), 0);
    {
        std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> used;
        for (uint32_t r = 0; r < schedule.rounds.size(); ++r)
        {
            std::vector<uint32_t> ids = schedule.rounds[r];
            std::sort(ids.begin(), ids.end());
            for (uint32_t id : ids)
            {
                const Workload& w = workloads.Get(id);
                chanOf[id] = used[{w.src, w.dst, r}]++;
            }
        }
    }
    // Every send and receive, in the order they run: by round, sends before receives (a sender
    // sends what it holds when the round starts), then by workload.
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

    MscclAlgorithm algo;
    algo.name = (schedule.scheduler.empty() ? "schedule" : schedule.scheduler) + " on " +
                topology.GetName();
    algo.nchunksperloop = static_cast<uint32_t>(chunks);
    algo.inplace = true;
    algo.gpus.resize(n);
    // Threadblocks: one per (peer, channel) a rank sends to or receives from, in that order.
    std::vector<std::map<std::pair<uint32_t, uint32_t>, uint32_t>> tbOf(n);
    for (const Event& e : events)
    {
        const Workload& w = workloads.Get(e.workload);
        tbOf[e.rank].emplace(std::make_pair(e.kind == 0 ? w.dst : w.src, chanOf[w.id]), 0);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        MscclGpu& gpu = algo.gpus[r];
        gpu.iChunks = static_cast<uint32_t>(chunks);
        for (auto& entry : tbOf[r])
        {
            entry.second = static_cast<uint32_t>(gpu.threadblocks.size());
            MscclThreadblock tb;
            tb.chan = entry.first.second;
            algo.nchannels = std::max(algo.nchannels, tb.chan + 1);
            gpu.threadblocks.push_back(tb);
        }
    }

    // Per rank and chunk: the last receive into it and the sends of it since then.
    std::map<std::pair<uint32_t, uint64_t>, StepPlace> lastWrite;
    std::map<std::pair<uint32_t, uint64_t>, std::vector<StepPlace>> readsSince;
    // Per rank, threadblock and step: the round its step ends by (its finish, in rounds), and
    // per rank the latest step that ends by each round.
    std::vector<std::vector<std::vector<uint32_t>>> finish(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        finish[r].resize(algo.gpus[r].threadblocks.size());
    }
    std::vector<std::map<uint32_t, StepPlace>> endsBy(n);
    uint32_t notPinned = 0;
    for (const Event& e : events)
    {
        const Workload& w = workloads.Get(e.workload);
        const uint32_t r = e.rank;
        const uint32_t peer = e.kind == 0 ? w.dst : w.src;
        const uint32_t t = tbOf[r].at({peer, chanOf[w.id]});
        MscclThreadblock& tb = algo.gpus[r].threadblocks[t];
        const uint64_t chunk = uint64_t{w.chunk} * k + w.piece;
        const auto cell = std::make_pair(r, chunk);
        std::vector<StepPlace> deps;
        const auto written = lastWrite.find(cell);
        if (written != lastWrite.end())
        {
            deps.push_back(written->second);
        }
        if (e.kind == 1)
        {
            const auto& reads = readsSince[cell];
            deps.insert(deps.end(), reads.begin(), reads.end());
        }
        const auto finishOf = [&](const StepPlace& p) { return finish[r][p.first][p.second]; };
        uint32_t ready = tb.steps.empty() ? 0 : finish[r][t].back();
        for (const StepPlace& d : deps)
        {
            ready = std::max(ready, finishOf(d));
        }
        if (e.kind == 0 && ready < e.round)
        {
            // Nothing holds it back until its round: wait for a step of this rank that ends
            // in the round before, so that the file keeps the schedule's rounds.
            auto pin = endsBy[r].upper_bound(e.round);
            if (pin != endsBy[r].begin() && finishOf((--pin)->second) > ready)
            {
                // A step that ends in the round before; where the rank idles then (its ports
                // relay others' workloads), in an earlier one, which holds it back less.
                deps.push_back(pin->second);
                ready = finishOf(pin->second);
            }
            if (ready < e.round)
            {
                ++notPinned;
            }
        }
        // Steps of the same threadblock come before it anyway; each other one needs a depid,
        // the extra ones on nop steps first.
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        deps.erase(std::remove_if(deps.begin(), deps.end(),
                                  [t](const StepPlace& d) { return d.first == t; }),
                   deps.end());
        const auto addStep = [&](MscclStep step, const StepPlace* dep, uint32_t end) {
            if (dep)
            {
                step.depid = static_cast<int32_t>(dep->first);
                step.deps = static_cast<int32_t>(dep->second);
                algo.gpus[r].threadblocks[dep->first].steps[dep->second].hasdep = true;
            }
            tb.steps.push_back(step);
            finish[r][t].push_back(end);
            return StepPlace{t, static_cast<uint32_t>(tb.steps.size() - 1)};
        };
        for (size_t d = 1; d < deps.size(); ++d)
        {
            MscclStep nop;
            nop.type = MscclStepType::NOP;
            nop.cnt = 0;
            addStep(nop, &deps[d], std::max(finish[r][t].empty() ? 0 : finish[r][t].back(),
                                            finishOf(deps[d])));
        }
        MscclStep step;
        step.srcbuf = 'i';
        step.srcoff = static_cast<int64_t>(chunk);
        step.dstbuf = 'i';
        step.dstoff = static_cast<int64_t>(chunk);
        StepPlace placed;
        if (e.kind == 0)
        {
            tb.send = static_cast<int32_t>(peer);
            step.type = MscclStepType::SEND;
            step.round = e.round;
            step.path = w.path;
            placed = addStep(step, deps.empty() ? nullptr : &deps[0], ready + 1);
            readsSince[cell].push_back(placed);
        }
        else
        {
            tb.recv = static_cast<int32_t>(peer);
            step.type = w.phase == Phase::GATHER ? MscclStepType::RECV
                                                 : MscclStepType::RECV_REDUCE_COPY;
            placed = addStep(step, deps.empty() ? nullptr : &deps[0],
                             std::max(ready, e.round + 1));
            lastWrite[cell] = placed;
            readsSince[cell].clear();
        }
        // Per round the schedule ends it by, the step estimated to end latest.
        const auto ends = endsBy[r].find(e.round + 1);
        if (ends == endsBy[r].end() || finishOf(placed) >= finishOf(ends->second))
        {
            endsBy[r][e.round + 1] = placed;
        }
    }
    if (unpinned)
    {
        *unpinned = notPinned;
    }
    NS_LOG_INFO("exported " << workloads.GetN() << " workloads; " << notPinned
                            << " could not be pinned to their round");
    return algo;
}

void
WriteMscclFile(const std::string& path, const WorkloadSet& workloads, const Schedule& schedule)
{
    const MscclAlgorithm algo = ExportMscclAlgorithm(workloads, schedule);
    // Never write a file that does not compute the AllReduce.
    SimulateMscclAlgorithm(algo, path);
    std::ofstream os(path);
    if (!os)
    {
        throw std::invalid_argument("cannot write MSCCL algorithm file '" + path + "'");
    }
    WriteMscclXml(os, algo);
    os << "\n";
    if (!os)
    {
        throw std::invalid_argument("error writing MSCCL algorithm file '" + path + "'");
    }
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
