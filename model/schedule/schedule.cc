/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule.h"

#include "ns3/round-engine.h"
#include "ns3/size-limits.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace ns3
{

const char* const SCHEDULE_FORMAT = "ns3-allreduce-schedule/2";

namespace
{
/// The format before aggregating switches (version 1), still read.
const char* const SCHEDULE_FORMAT_1 = "ns3-allreduce-schedule/1";
/// Deepest nesting a schedule file may have (it has five levels).
constexpr int MAX_SCHEDULE_DEPTH = 16;
} // namespace

namespace
{

std::string
Name(uint32_t id)
{
    return "workload " + std::to_string(id);
}

std::string
Where(const Workload& w)
{
    return "chunk " + std::to_string(w.chunk) + " piece " + std::to_string(w.piece);
}

/// \return "round T: what"
std::string
AtRound(uint32_t round, const std::string& what)
{
    return "round " + std::to_string(round) + ": " + what;
}

/**
 * The nodes that hold data: servers first (their own ids as indices), then aggregating
 * switches in id order.
 */
struct Holders
{
    explicit Holders(const Topology& topology)
        : indexOf(topology.GetNNodes(), NO_INDEX)
    {
        for (uint32_t v = 0; v < topology.GetNNodes(); ++v)
        {
            if (topology.IsServer(v) || topology.IsAggregator(v))
            {
                indexOf[v] = static_cast<uint32_t>(nodeOf.size());
                nodeOf.push_back(v);
            }
        }
    }

    std::vector<uint32_t> indexOf; //!< per node, its index (NO_INDEX: a forwarding switch)
    std::vector<uint32_t> nodeOf;  //!< per index, its node
};

/**
 * Per cell (holder, piece) of one chunk, the set of servers whose contributions the holder (a
 * server or an aggregating switch, by Holders) holds for that chunk piece, as bits. Chunks do
 * not mix, so they are simulated one at a time: holders x pieces x servers bits, not that many
 * times the servers (128 MiB at 1,024 servers). Servers start with their own contributions,
 * switches with nothing.
 */
class HeldData
{
  public:
    HeldData(uint32_t holders, uint32_t servers, uint32_t pieces)
        : m_servers(servers),
          m_pieces(pieces),
          m_words((servers + 63) / 64),
          m_bits(static_cast<size_t>(holders) * pieces * m_words, 0)
    {
    }

    /// \return the bytes a HeldData of these sizes takes
    static uint64_t EstimateBytes(uint64_t holders, uint64_t servers, uint64_t pieces)
    {
        return SaturatingMultiply(holders, SaturatingMultiply(pieces, (servers + 63) / 64 * 8));
    }

    /// Starts chunk \p chunk: every server holds its own contribution, switches nothing.
    void Reset(uint32_t chunk)
    {
        std::fill(m_bits.begin(), m_bits.end(), 0);
        for (uint32_t s = 0; s < m_servers; ++s)
        {
            for (uint32_t p = 0; p < m_pieces; ++p)
            {
                Set(s, chunk, p, s);
            }
        }
    }

    bool Has(uint32_t server, uint32_t chunk, uint32_t piece, uint32_t who) const
    {
        return (Word(server, chunk, piece)[who / 64] >> (who % 64)) & 1;
    }

    void Set(uint32_t server, uint32_t chunk, uint32_t piece, uint32_t who)
    {
        Word(server, chunk, piece)[who / 64] |= uint64_t{1} << (who % 64);
    }

    void SetAll(uint32_t server, uint32_t chunk, uint32_t piece)
    {
        for (uint32_t who = 0; who < m_servers; ++who)
        {
            Set(server, chunk, piece, who);
        }
    }

    /// \return how many servers' contributions the cell holds
    uint32_t Count(uint32_t server, uint32_t chunk, uint32_t piece) const
    {
        const uint64_t* word = Word(server, chunk, piece);
        uint32_t count = 0;
        for (uint32_t i = 0; i < m_words; ++i)
        {
            count += static_cast<uint32_t>(__builtin_popcountll(word[i]));
        }
        return count;
    }

    /// \return the first server whose contribution is missing, or m_servers
    uint32_t FirstMissing(uint32_t server, uint32_t chunk, uint32_t piece) const
    {
        for (uint32_t who = 0; who < m_servers; ++who)
        {
            if (!Has(server, chunk, piece, who))
            {
                return who;
            }
        }
        return m_servers;
    }

    /// \return the servers whose contributions the cell holds, as "1, 4, 7" (at most 8 named)
    std::string Describe(uint32_t server, uint32_t chunk, uint32_t piece) const
    {
        std::string out;
        uint32_t named = 0;
        for (uint32_t who = 0; who < m_servers; ++who)
        {
            if (Has(server, chunk, piece, who))
            {
                if (named++ == 8)
                {
                    return out + ", ...";
                }
                out += (out.empty() ? "" : ", ") + std::to_string(who);
            }
        }
        return out;
    }

  private:
    /// \param chunk the chunk of the last Reset (the only one held, so not needed)
    uint64_t* Word(uint32_t server, [[maybe_unused]] uint32_t chunk, uint32_t piece)
    {
        return &m_bits[(static_cast<size_t>(server) * m_pieces + piece) * m_words];
    }

    const uint64_t* Word(uint32_t server, uint32_t chunk, uint32_t piece) const
    {
        return const_cast<HeldData*>(this)->Word(server, chunk, piece);
    }

    uint32_t m_servers;
    uint32_t m_pieces;
    uint32_t m_words;
    std::vector<uint64_t> m_bits;
};

/**
 * The scheduled workloads grouped by chunk, each chunk's in schedule order (chunks do not mix:
 * the data checks run one chunk at a time).
 */
struct ByChunk
{
    ByChunk(const WorkloadSet& workloads, const Schedule& schedule)
        : start(workloads.GetTopology().GetNServers() + 1, 0),
          position(workloads.GetN(), 0)
    {
        const auto& all = workloads.GetAll();
        uint32_t at = 0;
        for (const auto& round : schedule.rounds)
        {
            for (uint32_t id : round)
            {
                ++start[all[id].chunk + 1];
                position[id] = at++;
            }
        }
        for (size_t c = 1; c < start.size(); ++c)
        {
            start[c] += start[c - 1];
        }
        ids.resize(at);
        std::vector<uint32_t> next(start.begin(), start.end() - 1);
        for (const auto& round : schedule.rounds)
        {
            for (uint32_t id : round)
            {
                ids[next[all[id].chunk]++] = id;
            }
        }
    }

    std::vector<uint32_t> start;    //!< per chunk and one more, its first entry in ids
    std::vector<uint32_t> ids;      //!< the workloads, chunk by chunk, in schedule order
    std::vector<uint32_t> position; //!< per workload, its place in the schedule
};

/**
 * Places every workload in its round: ids exist, each is scheduled once, no directed link is
 * used twice in a round, and every dependency finished in an earlier round.
 * \param roundOf filled with each workload's round
 * \return the first broken rule, or empty
 */
std::string
CheckRounds(const WorkloadSet& workloads,
            const Schedule& schedule,
            std::vector<uint32_t>& roundOf)
{
    const uint32_t n = workloads.GetN();
    RoundEngine engine(workloads);
    for (uint32_t t = 0; t < schedule.rounds.size(); ++t)
    {
        const auto& round = schedule.rounds[t];
        if (round.empty())
        {
            return AtRound(t, "is empty");
        }
        try
        {
            engine.StepRound(round);
        }
        catch (const std::invalid_argument& e)
        {
            return AtRound(t, e.what());
        }
    }
    roundOf.assign(n, NO_INDEX);
    for (uint32_t id = 0; id < n; ++id)
    {
        roundOf[id] = engine.GetRoundOf(id);
        if (roundOf[id] == NO_INDEX)
        {
            return Name(id) + " is never scheduled";
        }
    }
    return "";
}

/// The first broken rule the data check met: by (round, pass, place in the schedule).
struct DataError
{
    std::tuple<uint32_t, uint32_t, uint32_t> at{UINT32_MAX, UINT32_MAX, UINT32_MAX}; //!< when
    std::string what; //!< the error (empty: none)

    /// Keeps \p other's error when it comes first.
    void Keep(std::tuple<uint32_t, uint32_t, uint32_t> when, const std::function<std::string()>& say)
    {
        if (when < at)
        {
            at = when;
            what = say();
        }
    }
};

/**
 * One chunk's part of CheckData, over its workloads in schedule order.
 * \param first error so far (round checks), kept if this chunk's comes earlier
 * \param last error so far of the final check, by (server, chunk, piece)
 */
void
CheckChunkData(const WorkloadSet& workloads,
               const Holders& holders,
               const std::vector<uint32_t>& roundOf,
               const ByChunk& byChunk,
               uint32_t chunk,
               HeldData& held,
               DataError& first,
               DataError& last)
{
    const Topology& topology = workloads.GetTopology();
    const uint32_t servers = topology.GetNServers();
    const auto& all = workloads.GetAll();
    const std::vector<uint32_t>& holder = holders.indexOf;
    held.Reset(chunk);
    for (uint32_t i = byChunk.start[chunk]; i < byChunk.start[chunk + 1];)
    {
        const uint32_t t = roundOf[byChunk.ids[i]];
        uint32_t end = i;
        while (end < byChunk.start[chunk + 1] && roundOf[byChunk.ids[end]] == t)
        {
            ++end;
        }
        for (uint32_t e = i; e < end; ++e) // the senders, at the start of the round
        {
            const uint32_t id = byChunk.ids[e];
            const Workload& w = all[id];
            const uint32_t src = holder[w.src];
            const auto when = std::make_tuple(t, 0u, byChunk.position[id]);
            if (w.phase == Phase::GATHER)
            {
                const uint32_t missing = held.FirstMissing(src, w.chunk, w.piece);
                if (missing < servers)
                {
                    return first.Keep(when, [&] {
                        return AtRound(t, Name(id) + " gathers " + Where(w) + " from " +
                                              topology.GetNodeName(w.src) +
                                              ", which does not hold the complete sum yet "
                                              "(server " + std::to_string(missing) +
                                              "'s contribution is missing)");
                    });
                }
                continue;
            }
            for (uint32_t c : w.carries)
            {
                if (!held.Has(src, w.chunk, w.piece, c))
                {
                    return first.Keep(when, [&] {
                        return AtRound(t, Name(id) + " carries server " + std::to_string(c) +
                                              "'s contribution to " + Where(w) + ", which " +
                                              topology.GetNodeName(w.src) + " does not hold");
                    });
                }
            }
            if (held.Count(src, w.chunk, w.piece) != w.carries.size())
            {
                return first.Keep(when, [&] {
                    return AtRound(t, Name(id) + " says it carries " +
                                          std::to_string(w.carries.size()) +
                                          " contributions to " + Where(w) + ", but " +
                                          topology.GetNodeName(w.src) + " holds those of servers " +
                                          held.Describe(src, w.chunk, w.piece) +
                                          " and sends all it holds; its carries must list them "
                                          "all");
                });
            }
        }
        for (uint32_t e = i; e < end; ++e) // the receivers, at its end
        {
            const uint32_t id = byChunk.ids[e];
            const Workload& w = all[id];
            const uint32_t dst = holder[w.dst];
            if (w.phase == Phase::GATHER)
            {
                held.SetAll(dst, w.chunk, w.piece);
                continue;
            }
            for (uint32_t c : w.carries)
            {
                if (held.Has(dst, w.chunk, w.piece, c))
                {
                    return first.Keep(std::make_tuple(t, 1u, byChunk.position[id]), [&] {
                        return AtRound(t, Name(id) + " adds server " + std::to_string(c) +
                                              "'s contribution to " + Where(w) + " at " +
                                              topology.GetNodeName(w.dst) + " a second time");
                    });
                }
                held.Set(dst, w.chunk, w.piece, c);
            }
        }
        i = end;
    }
    for (uint32_t s = 0; s < servers; ++s)
    {
        for (uint32_t p = 0; p < workloads.GetPieces(); ++p)
        {
            const uint32_t missing = held.FirstMissing(s, chunk, p);
            if (missing < servers)
            {
                return last.Keep(std::make_tuple(s, chunk, p), [&] {
                    return "server " + std::to_string(s) +
                           " does not hold the full sum of chunk " + std::to_string(chunk) +
                           " piece " + std::to_string(p) + " (server " + std::to_string(missing) +
                           "'s contribution is missing)";
                });
            }
        }
    }
}

/**
 * Simulates the data round by round, as barrier replay runs it: a sender sends everything it
 * holds of the chunk piece at the start of the round, which must be exactly what the workload
 * carries (the complete sum for a gather); receivers add (reduce) or take (gather) at its end,
 * never adding a contribution twice; at the end every server holds the full sum of every
 * chunk piece. Chunk by chunk (they do not mix), reporting what a simulation of all of them at
 * once would meet first.
 * \return the first broken rule, or empty
 */
std::string
CheckData(const WorkloadSet& workloads,
          const Holders& holders,
          const Schedule& schedule,
          const std::vector<uint32_t>& roundOf,
          const ByChunk& byChunk)
{
    const uint32_t servers = workloads.GetTopology().GetNServers();
    HeldData held(static_cast<uint32_t>(holders.nodeOf.size()), servers, workloads.GetPieces());
    DataError first;
    DataError last;
    for (uint32_t chunk = 0; chunk < servers; ++chunk)
    {
        CheckChunkData(workloads, holders, roundOf, byChunk, chunk, held, first, last);
    }
    if (!first.what.empty())
    {
        return first.what;
    }
    const auto end = static_cast<uint32_t>(schedule.rounds.size());
    return last.what.empty()
               ? ""
               : "after round " + std::to_string(end > 0 ? end - 1 : 0) + ": " + last.what;
}

/// How a workload touches a cell (server, chunk, piece) of the data.
enum CellAccess : uint8_t
{
    CELL_READ,    //!< its sender sends what the cell holds
    CELL_ADD,     //!< a reduce workload's receiver adds to the cell
    CELL_REPLACE, //!< a gather workload's receiver replaces the cell with the complete sum
};

/// One workload's access to one cell.
struct CellEvent
{
    uint64_t cell;     //!< (server * N + chunk) * k + piece
    uint32_t round;    //!< the workload's round
    CellAccess access; //!< read, add or replace
    uint32_t workload; //!< the workload
};

/// "reads", "adds to", "replaces"
const char*
Verb(CellAccess access)
{
    return access == CELL_READ ? "reads" : access == CELL_ADD ? "adds to" : "replaces";
}

/**
 * Two accesses to one cell that do not commute, an earlier one and a later one, that the
 * dependencies must order: every workload of the earlier run must be an ancestor of the later
 * workload.
 */
struct OrderQuery
{
    uint32_t later; //!< index of the later access in the sorted events
    uint32_t first; //!< index of the earlier run's first access in the sorted events
    uint32_t count; //!< accesses in the earlier run
};

/**
 * Answers "is every workload of run A an ancestor of b?" for queries whose (chunk, piece)
 * group is the same, by propagating ancestor bitsets forward in round order from the runs'
 * workloads, at most 4096 of them at a time (fewer on a large region).
 * \return the first pair left unordered, as (earlier, later) indices into events, or
 *         {NO_INDEX, NO_INDEX}
 */
std::pair<uint32_t, uint32_t>
FindUnordered(const WorkloadSet& workloads,
              const std::vector<uint32_t>& roundOf,
              const std::vector<CellEvent>& events,
              const std::vector<OrderQuery>& queries)
{
    constexpr uint32_t BATCH = 4096;
    // The sources: the accesses of every earlier run (indices into events), each run once, as a
    // contiguous range of bits.
    std::vector<uint32_t> sources;
    std::unordered_map<uint32_t, uint32_t> runBit; // first event of a run -> its first bit
    uint32_t lastRound = 0;
    for (const OrderQuery& q : queries)
    {
        if (runBit.emplace(q.first, static_cast<uint32_t>(sources.size())).second)
        {
            for (uint32_t e = q.first; e < q.first + q.count; ++e)
            {
                sources.push_back(e);
            }
        }
        lastRound = std::max(lastRound, events[q.later].round);
    }
    // Every path from a source to a later workload stays within the sources' descendants up
    // to the last round asked about: that region, in round order.
    std::vector<uint32_t> region;
    std::unordered_map<uint32_t, uint32_t> index;
    for (uint32_t s : sources)
    {
        if (index.emplace(events[s].workload, 0).second)
        {
            region.push_back(events[s].workload);
        }
    }
    for (size_t head = 0; head < region.size(); ++head)
    {
        for (uint32_t d : workloads.GetDependents(region[head]))
        {
            if (roundOf[d] <= lastRound && index.emplace(d, 0).second)
            {
                region.push_back(d);
            }
        }
    }
    std::sort(region.begin(), region.end(), [&roundOf](uint32_t a, uint32_t b) {
        return roundOf[a] < roundOf[b];
    });
    for (uint32_t i = 0; i < region.size(); ++i)
    {
        index[region[i]] = i;
    }
    // Sources per pass: at most 4096, and fewer where the region is large, so that the bitsets
    // stay within about 256 MiB.
    const size_t batch =
        std::clamp<size_t>((size_t{256} << 23) / std::max<size_t>(region.size(), 1), 64, BATCH);
    for (size_t lo = 0; lo < sources.size(); lo += batch)
    {
        const size_t hi = std::min(sources.size(), lo + batch);
        const size_t words = (hi - lo + 63) / 64;
        std::vector<uint64_t> ancestors(region.size() * words, 0);
        std::unordered_multimap<uint32_t, uint32_t> bitsOf;
        for (size_t b = lo; b < hi; ++b)
        {
            bitsOf.emplace(events[sources[b]].workload, static_cast<uint32_t>(b - lo));
        }
        // A workload's ancestors: its dependencies' ancestors and the dependencies themselves.
        for (uint32_t node : region)
        {
            uint64_t* mine = &ancestors[index.at(node) * words];
            for (uint32_t d : workloads.GetDeps(node))
            {
                const auto it = index.find(d);
                if (it == index.end())
                {
                    continue;
                }
                const uint64_t* theirs = &ancestors[it->second * words];
                for (size_t i = 0; i < words; ++i)
                {
                    mine[i] |= theirs[i];
                }
                const auto range = bitsOf.equal_range(d);
                for (auto b = range.first; b != range.second; ++b)
                {
                    mine[b->second / 64] |= uint64_t{1} << (b->second % 64);
                }
            }
        }
        for (const OrderQuery& q : queries)
        {
            // A later workload outside the region descends from no source.
            const auto it = index.find(events[q.later].workload);
            const uint64_t* later = it == index.end() ? nullptr : &ancestors[it->second * words];
            const size_t first = runBit.at(q.first);
            for (size_t bit = std::max(first, lo); bit < std::min(first + q.count, hi); ++bit)
            {
                const size_t local = bit - lo;
                if (!later || !((later[local / 64] >> (local % 64)) & 1))
                {
                    return {sources[bit], q.later};
                }
            }
        }
    }
    return {NO_INDEX, NO_INDEX};
}

/**
 * CheckOrder's work for the cells of one chunk.
 * \param runStamp per workload, scratch (NO_INDEX between calls)
 * \param counted per workload, scratch, with \p tick
 * \return the first pair left unordered, or empty
 */
std::string
CheckChunkOrder(const WorkloadSet& workloads,
                const Holders& holders,
                const std::vector<uint32_t>& roundOf,
                const ByChunk& byChunk,
                uint32_t chunk,
                std::vector<uint32_t>& runStamp,
                std::vector<uint32_t>& counted,
                uint32_t& tick)
{
    const Topology& topology = workloads.GetTopology();
    const uint64_t servers = topology.GetNServers();
    const uint64_t pieces = workloads.GetPieces();
    const auto& all = workloads.GetAll();
    const std::vector<uint32_t>& holder = holders.indexOf;
    std::vector<CellEvent> events;
    events.reserve(2 * (byChunk.start[chunk + 1] - byChunk.start[chunk]));
    for (uint32_t e = byChunk.start[chunk]; e < byChunk.start[chunk + 1]; ++e)
    {
        const Workload& w = all[byChunk.ids[e]];
        const uint64_t part = static_cast<uint64_t>(w.chunk) * pieces + w.piece;
        events.push_back({holder[w.src] * servers * pieces + part, roundOf[w.id], CELL_READ, w.id});
        events.push_back({holder[w.dst] * servers * pieces + part, roundOf[w.id],
                          w.phase == Phase::REDUCE ? CELL_ADD : CELL_REPLACE, w.id});
    }
    std::sort(events.begin(), events.end(), [](const CellEvent& a, const CellEvent& b) {
        return std::tie(a.cell, a.round, a.access, a.workload) <
               std::tie(b.cell, b.round, b.access, b.workload);
    });
    // Per later workload, whether every access of the run before is one of its direct
    // dependencies; the others become queries, grouped by chunk piece.
    std::map<uint64_t, std::vector<OrderQuery>> queries; // chunk * k + piece -> queries
    uint32_t previous = NO_INDEX; // first event of the run before, in this cell
    uint32_t previousCount = 0;
    for (uint32_t e = 0; e < events.size();)
    {
        uint32_t end = e + 1;
        while (end < events.size() && events[end].cell == events[e].cell &&
               events[end].access == events[e].access)
        {
            ++end;
        }
        if (e == 0 || events[e - 1].cell != events[e].cell)
        {
            previous = NO_INDEX;
        }
        if (previous != NO_INDEX)
        {
            for (uint32_t i = previous; i < previous + previousCount; ++i)
            {
                runStamp[events[i].workload] = previous;
            }
            for (uint32_t i = e; i < end; ++i)
            {
                const uint32_t later = events[i].workload;
                uint32_t direct = 0;
                ++tick;
                for (uint32_t d : workloads.GetDeps(later))
                {
                    if (runStamp[d] == previous && counted[d] != tick)
                    {
                        counted[d] = tick;
                        ++direct;
                    }
                }
                if (direct < previousCount)
                {
                    queries[events[e].cell % (servers * pieces)].push_back(
                        {i, previous, previousCount});
                }
            }
            for (uint32_t i = previous; i < previous + previousCount; ++i)
            {
                runStamp[events[i].workload] = NO_INDEX;
            }
        }
        previous = e;
        previousCount = end - e;
        e = end;
    }
    for (const auto& [group, list] : queries)
    {
        const auto [first, second] = FindUnordered(workloads, roundOf, events, list);
        if (first == NO_INDEX)
        {
            continue;
        }
        const CellEvent& earlier = events[first];
        const CellEvent& later = events[second];
        const uint32_t a = earlier.workload;
        const uint32_t b = later.workload;
        return Name(b) + " (round " + std::to_string(later.round) + ") " + Verb(later.access) +
               " " + topology.GetNodeName(holders.nodeOf[earlier.cell / (servers * pieces)]) +
               "'s " +
               Where(all[a]) + " after " + Name(a) + " (round " + std::to_string(earlier.round) +
               ") " + Verb(earlier.access) +
               " it, but does not depend on it, directly or through other workloads: run as "
               "soon as dependencies allow (async replay), it may go first and the data differ; "
               "add the dependency";
    }
    return "";
}


/**
 * Checks that the data does not depend on the order in which workloads run, as long as every
 * workload runs after its dependencies (as async replay runs them). Per cell, accesses that do
 * not commute (a read and a write, an add and a replace) must be ordered by the dependencies:
 * the later one must descend from the earlier one. Reads commute with reads, adds with adds
 * and replaces with replaces, so per cell it is enough that every access of a run of equal
 * accesses (in round order) descends from every access of the run before.
 * \return the first pair left unordered, or empty
 */
std::string
CheckOrder(const WorkloadSet& workloads,
           const Holders& holders,
           const std::vector<uint32_t>& roundOf,
           const ByChunk& byChunk)
{
    std::vector<uint32_t> runStamp(workloads.GetN(), NO_INDEX);
    std::vector<uint32_t> counted(workloads.GetN(), NO_INDEX); // a dependency counted, per check
    uint32_t tick = 0;
    // Chunk by chunk (cells of different chunks never meet), in the order of their groups.
    for (uint32_t chunk = 0; chunk + 1 < byChunk.start.size(); ++chunk)
    {
        const std::string error = CheckChunkOrder(workloads,
                                                  holders,
                                                  roundOf,
                                                  byChunk,
                                                  chunk,
                                                  runStamp,
                                                  counted,
                                                  tick);
        if (!error.empty())
        {
            return error;
        }
    }
    return "";
}
} // namespace

ScheduleCheck
ValidateSchedule(const WorkloadSet& workloads, const Schedule& schedule)
{
    ScheduleCheck check;
    const Topology& topology = workloads.GetTopology();
    const Holders holders(topology);
    try
    {
        const uint64_t count = holders.nodeOf.size();
        CheckMemory("simulating the data of " + std::to_string(count) + " servers and "
                        "aggregating switches x " + std::to_string(workloads.GetPieces()) +
                        " pieces, a chunk at a time",
                    HeldData::EstimateBytes(count, topology.GetNServers(), workloads.GetPieces()),
                    "validate a smaller schedule");
    }
    catch (const std::invalid_argument& e)
    {
        check.error = std::string("cannot validate: ") + e.what();
        return check;
    }
    std::vector<uint32_t> roundOf;
    check.error = CheckRounds(workloads, schedule, roundOf);
    if (!check.error.empty())
    {
        check.valid = false;
        return check;
    }
    const ByChunk byChunk(workloads, schedule);
    check.error = CheckData(workloads, holders, schedule, roundOf, byChunk);
    if (check.error.empty())
    {
        check.error = CheckOrder(workloads, holders, roundOf, byChunk);
    }
    check.valid = check.error.empty();
    return check;
}

uint32_t
RoundBounds::GetMax() const
{
    return std::max({bandwidth, links, path});
}

uint32_t
ComputeBandwidthBound(const Topology& topology, uint32_t pieces)
{
    const uint64_t n = topology.GetNServers();
    const uint64_t ports = topology.GetNServerPorts();
    if (n < 2 || ports == 0)
    {
        return 0;
    }
    // Every workload leaves a server through one of its ports, one per port per round. Without
    // aggregating switches every server sends its part of each other chunk piece and passes on
    // each complete one it needs: 2·N·(N−1)·k. With them (doc/allreduce.rst, "Aggregation in the
    // network") a switch may merge and replicate in its place, but each server still sends its
    // own contribution to each chunk piece out once (N·N·k, its own chunk's included as part
    // or as the complete sum).
    const uint64_t total =
        topology.CountAggregators() > 0 ? n * n * pieces : 2 * n * (n - 1) * pieces;
    return static_cast<uint32_t>((total + ports - 1) / ports);
}

uint32_t
ComputeCertifiedBound(const Topology& topology, uint32_t pieces)
{
    if (topology.GetNServers() < 2)
    {
        return 0;
    }
    return std::max<uint32_t>(ComputeBandwidthBound(topology, pieces), 2);
}

RoundBounds
ComputeBounds(const WorkloadSet& workloads)
{
    RoundBounds b;
    b.bandwidth = ComputeBandwidthBound(workloads.GetTopology(), workloads.GetPieces());
    for (uint32_t load : workloads.GetLinkLoads())
    {
        b.links = std::max(b.links, load);
    }
    for (uint32_t id = 0; id < workloads.GetN(); ++id)
    {
        b.path = std::max(b.path, workloads.GetHeight(id));
    }
    return b;
}

namespace
{

void
WriteList(std::ostream& os, const std::vector<uint32_t>& v)
{
    os << '[';
    for (size_t i = 0; i < v.size(); ++i)
    {
        os << (i ? "," : "") << v[i];
    }
    os << ']';
}

} // namespace

void
WriteScheduleJson(std::ostream& os, const WorkloadSet& workloads, const Schedule& schedule)
{
    const Topology& topo = workloads.GetTopology();
    // Streamed by hand rather than through a JSON tree: a 512-server schedule has half a
    // million workloads, and a tree of them would take gigabytes.
    os << "{\"format\": " << nlohmann::json(SCHEDULE_FORMAT).dump() << ",\n";
    os << " \"topology\": {\"name\": " << nlohmann::json(topo.GetName()).dump()
       << ", \"servers\": " << topo.GetNServers() << ",\n  \"nodes\": [";
    for (uint32_t i = 0; i < topo.GetNNodes(); ++i)
    {
        os << (i ? ", " : "") << "{\"id\": " << i << ", \"kind\": \""
           << (topo.IsServer(i) ? "server" : "switch") << '"';
        const uint32_t slots = topo.GetAggregatorSlots(i);
        if (slots == Topology::UNLIMITED_SLOTS)
        {
            os << ", \"slots\": \"unlimited\"";
        }
        else if (slots > 0)
        {
            os << ", \"slots\": " << slots;
        }
        os << '}';
    }
    os << "],\n  \"links\": [";
    for (uint32_t i = 0; i < topo.GetNLinks(); ++i)
    {
        os << (i ? ", " : "") << '[' << topo.GetLink(i).a << ", " << topo.GetLink(i).b << ']';
    }
    os << "]},\n";
    os << " \"gradient_pieces\": " << workloads.GetPieces() << ", \"merge\": "
       << (workloads.GetSemantics() == WorkloadSemantics::PARAMETER_SERVER ? "false" : "true")
       << ", \"semantics\": \"" << ToString(workloads.GetSemantics())
       << "\", \"scheduler\": " << nlohmann::json(schedule.scheduler).dump() << ",\n";
    os << " \"workloads\": [";
    std::vector<uint32_t> everyone(topo.GetNServers());
    for (uint32_t s = 0; s < topo.GetNServers(); ++s)
    {
        everyone[s] = s;
    }
    for (const Workload& w : workloads.GetAll())
    {
        os << (w.id ? ",\n  " : "\n  ") << "{\"id\": " << w.id << ", \"chunk\": " << w.chunk
           << ", \"piece\": " << w.piece << ", \"phase\": \"" << ToString(w.phase)
           << "\", \"src\": " << w.src << ", \"dst\": " << w.dst << ", \"path\": ";
        WriteList(os, w.path.ToVector());
        os << ", \"deps\": ";
        WriteList(os, workloads.GetDeps(w.id).ToVector());
        os << ", \"carries\": ";
        WriteList(os, w.phase == Phase::GATHER ? everyone : w.carries.ToVector());
        os << '}';
    }
    os << "],\n \"rounds\": [";
    for (size_t t = 0; t < schedule.rounds.size(); ++t)
    {
        os << (t ? ",\n  " : "\n  ");
        WriteList(os, schedule.rounds[t]);
    }
    os << "]}\n";
}

void
WriteScheduleFile(const std::string& path, const WorkloadSet& workloads, const Schedule& schedule)
{
    WriteTextFile(path, "schedule file", [&](std::ostream& os) {
        WriteScheduleJson(os, workloads, schedule);
    });
}

namespace
{

using nlohmann::json;

/// Reads fields of a JSON document with errors that name the source and the field.
class Fields
{
  public:
    explicit Fields(std::string source)
        : m_source(std::move(source))
    {
    }

    [[noreturn]] void Fail(const std::string& field, const std::string& what) const
    {
        // The document itself has no field name: it is the file's top level.
        throw std::invalid_argument("schedule file " + m_source + ": " +
                                    (field.empty() ? "the top level (the whole file)"
                                                   : "field '" + field + "'") +
                                    " " + what);
    }

    const json& Member(const json& object, const std::string& key, const std::string& field) const
    {
        if (!object.is_object())
        {
            Fail(field, "must be a JSON object");
        }
        auto it = object.find(key);
        if (it == object.end())
        {
            Fail(field + (field.empty() ? "" : ".") + key, "is missing");
        }
        return *it;
    }

    uint32_t Uint(const json& v, const std::string& field) const
    {
        if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xfffffffeULL)
        {
            Fail(field, "must be a non-negative integer, got " + Short(v));
        }
        return v.get<uint32_t>();
    }

    std::vector<uint32_t> UintList(const json& v, const std::string& field) const
    {
        if (!v.is_array())
        {
            Fail(field, "must be an array of non-negative integers, got " + Short(v));
        }
        std::vector<uint32_t> out;
        out.reserve(v.size());
        for (size_t i = 0; i < v.size(); ++i)
        {
            out.push_back(Uint(v[i], field + "[" + std::to_string(i) + "]"));
        }
        return out;
    }

    std::string String(const json& v, const std::string& field) const
    {
        if (!v.is_string())
        {
            Fail(field, "must be a string, got " + Short(v));
        }
        if (HasControlCharacter(v.get<std::string>()))
        {
            Fail(field, "holds a control character (such as ESC or a newline), got \"" +
                            Abbreviate(v.get<std::string>(), 40) + "\"; give printable text");
        }
        return v.get<std::string>();
    }

    const json& Array(const json& v, const std::string& field) const
    {
        if (!v.is_array())
        {
            Fail(field, "must be an array, got " + Short(v));
        }
        return v;
    }

    /// \return v as the user wrote it when short, else its kind and size (never a deep dump)
    static std::string Short(const json& v)
    {
        if (v.is_array())
        {
            return v.empty() ? "[]" : "an array of " + std::to_string(v.size()) + " items";
        }
        if (v.is_object())
        {
            return v.empty() ? "{}" : "an object of " + std::to_string(v.size()) + " fields";
        }
        if (v.is_string())
        {
            return "\"" + Abbreviate(v.get<std::string>(), 40) + "\"";
        }
        return v.dump();
    }

  private:
    std::string m_source;
};

/// A file's topology, renumbered: servers first (by file id), then switches (by file id).
struct FileTopology
{
    Topology topology;                      //!< in model ids
    std::vector<uint32_t> fileIds;          //!< model id -> file id
    std::unordered_map<uint32_t, uint32_t> modelIds; //!< file id -> model id
};

FileTopology
ReadTopologyField(const Fields& f, const json& t, bool withSlots)
{
    const std::string name = f.String(f.Member(t, "name", "topology"), "topology.name");
    const uint32_t servers = f.Uint(f.Member(t, "servers", "topology"), "topology.servers");
    const json& nodes = f.Array(f.Member(t, "nodes", "topology"), "topology.nodes");
    // Other tools number nodes their own way: any distinct ids, servers and switches mixed.
    std::map<uint32_t, bool> kinds; // file id -> is a server, in id order
    std::map<uint32_t, uint32_t> slots; // file id -> aggregator slots, for aggregating switches
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const std::string field = "topology.nodes[" + std::to_string(i) + "]";
        const uint32_t id = f.Uint(f.Member(nodes[i], "id", field), field + ".id");
        const std::string kind = f.String(f.Member(nodes[i], "kind", field), field + ".kind");
        if (kind != "server" && kind != "switch")
        {
            f.Fail(field + ".kind",
                   "must be \"server\" or \"switch\", got \"" + Abbreviate(kind, 40) + "\"");
        }
        if (!kinds.emplace(id, kind == "server").second)
        {
            f.Fail(field + ".id", "repeats node id " + std::to_string(id));
        }
        const auto it = nodes[i].is_object() ? nodes[i].find("slots") : nodes[i].end();
        if (it == nodes[i].end())
        {
            continue;
        }
        if (!withSlots)
        {
            f.Fail(field + ".slots", "needs format \"" + std::string(SCHEDULE_FORMAT) +
                                         "\" (aggregating switches came with version 2)");
        }
        if (kind != "switch")
        {
            f.Fail(field + ".slots", "is for switches that aggregate; servers always merge");
        }
        if (it->is_string() && it->get<std::string>() == "unlimited")
        {
            slots[id] = Topology::UNLIMITED_SLOTS;
            continue;
        }
        const uint32_t value = f.Uint(*it, field + ".slots");
        if (value == 0)
        {
            f.Fail(field + ".slots", "must be at least 1 or \"unlimited\" (a switch that only "
                                     "forwards has no slots field)");
        }
        slots[id] = value;
    }
    FileTopology out;
    for (const bool wantServer : {true, false})
    {
        for (const auto& [id, isServer] : kinds)
        {
            if (isServer == wantServer)
            {
                out.modelIds[id] = static_cast<uint32_t>(out.fileIds.size());
                out.fileIds.push_back(id);
            }
        }
    }
    const auto seenServers = static_cast<uint32_t>(
        std::count_if(kinds.begin(), kinds.end(), [](const auto& k) { return k.second; }));
    if (seenServers != servers)
    {
        f.Fail("topology.servers", "says " + std::to_string(servers) + " but the nodes list " +
                                       std::to_string(seenServers) + " servers");
    }
    out.topology = Topology(name, servers, static_cast<uint32_t>(nodes.size() - servers));
    const json& links = f.Array(f.Member(t, "links", "topology"), "topology.links");
    for (size_t i = 0; i < links.size(); ++i)
    {
        const std::string field = "topology.links[" + std::to_string(i) + "]";
        const auto ends = f.UintList(links[i], field);
        if (ends.size() != 2)
        {
            f.Fail(field, "must be a pair [a, b] of node ids");
        }
        for (const uint32_t end : ends)
        {
            if (!out.modelIds.count(end))
            {
                f.Fail(field, "names node " + std::to_string(end) + ", which is not in "
                                                                    "topology.nodes");
            }
        }
        try
        {
            out.topology.AddLink(out.modelIds.at(ends[0]), out.modelIds.at(ends[1]));
        }
        catch (const std::exception& e)
        {
            f.Fail(field, std::string("is not a valid link: ") + e.what());
        }
    }
    for (const auto& [id, count] : slots)
    {
        out.topology.SetAggregatorSlots(out.modelIds.at(id), count);
    }
    return out;
}

} // namespace

ScheduleFile
ReadScheduleJson(std::istream& is, const std::string& source)
{
    std::string text;
    {
        std::ostringstream all;
        all << is.rdbuf();
        text = all.str();
    }
    return ParseScheduleJson(text, source);
}

namespace
{

/**
 * \return the JSON document of a schedule file: nested at most MAX_SCHEDULE_DEPTH levels, no key
 *         twice in one object (nlohmann keeps the last value and drops the first silently)
 * \throws std::invalid_argument naming the source, without nlohmann's exception tag
 */
json
ParseScheduleDocument(const std::string& text, const std::string& source)
{
    std::vector<std::set<std::string>> keys; // of every object open
    const auto check = [&source, &keys](int depth, json::parse_event_t event, json& parsed) {
        // A schedule file nests five levels deep; refuse deeper ones before they take the
        // stack (every later step on a JSON value recurses).
        if (depth > MAX_SCHEDULE_DEPTH)
        {
            throw std::invalid_argument("schedule file " + source + " nests values more than " +
                                        std::to_string(MAX_SCHEDULE_DEPTH) +
                                        " levels deep; a schedule file has five");
        }
        if (event == json::parse_event_t::object_start)
        {
            keys.emplace_back();
        }
        else if (event == json::parse_event_t::object_end && !keys.empty())
        {
            keys.pop_back();
        }
        else if (event == json::parse_event_t::key && !keys.empty() &&
                 !keys.back().insert(parsed.get<std::string>()).second)
        {
            throw std::invalid_argument("schedule file " + source + " gives the key \"" +
                                        Abbreviate(parsed.get<std::string>(), 40) +
                                        "\" twice in one object; give each key once");
        }
        return true;
    };
    try
    {
        return json::parse(text, check);
    }
    catch (const json::exception& e)
    {
        // parse_error, and out_of_range for a number no double holds (2E2252): nlohmann's text
        // without its "[json.exception.parse_error.101] " tag.
        std::string why = e.what();
        why.erase(0, why.find(']') == std::string::npos ? 0 : why.find(']') + 2);
        throw std::invalid_argument("schedule file " + source + " is not valid JSON: " + why);
    }
}

} // namespace

ScheduleFile
ParseScheduleJson(std::string text, const std::string& source)
{
    const Fields f(source);
    StripByteOrderMark(text);
    const json doc = ParseScheduleDocument(text, source);
    const std::string format = f.String(f.Member(doc, "format", ""), "format");
    if (format != SCHEDULE_FORMAT && format != SCHEDULE_FORMAT_1)
    {
        f.Fail("format", "must be \"" + std::string(SCHEDULE_FORMAT) + "\" (or the older \"" +
                             SCHEDULE_FORMAT_1 + "\"), got \"" + Abbreviate(format, 40) + "\"");
    }
    const FileTopology file =
        ReadTopologyField(f, f.Member(doc, "topology", ""), format == SCHEDULE_FORMAT);
    const Topology& topo = file.topology;
    // Node ids in workloads are the file's: one the file's topology does not have is named as
    // the file gives it.
    const auto toModel = [&file, &f](uint32_t id, const std::string& field,
                                     const std::string& what = "node ") {
        const auto it = file.modelIds.find(id);
        if (it == file.modelIds.end())
        {
            f.Fail(field, "names " + what + std::to_string(id) + ", which the file's topology "
                          "does not have (its nodes are 0 to " +
                          std::to_string(file.topology.GetNNodes() - 1) + ")");
        }
        return it->second;
    };
    const auto toModelList = [&toModel](std::vector<uint32_t> ids, const std::string& field) {
        for (auto& id : ids)
        {
            id = toModel(id, field);
        }
        return ids;
    };
    const uint32_t pieces = f.Uint(f.Member(doc, "gradient_pieces", ""), "gradient_pieces");
    if (pieces == 0)
    {
        f.Fail("gradient_pieces", "must be >= 1, got 0");
    }
    const json& merge = f.Member(doc, "merge", "");
    if (!merge.is_boolean())
    {
        f.Fail("merge", "must be true or false, got " + Fields::Short(merge));
    }
    WorkloadSemantics semantics =
        merge.get<bool>() ? WorkloadSemantics::MERGE : WorkloadSemantics::PARAMETER_SERVER;
    if (doc.contains("semantics"))
    {
        try
        {
            semantics = ParseWorkloadSemantics(f.String(doc["semantics"], "semantics"));
        }
        catch (const std::invalid_argument& e)
        {
            f.Fail("semantics", e.what());
        }
        // Servers merge under merge and ring, and only relay under ps.
        if (merge.get<bool>() != (semantics != WorkloadSemantics::PARAMETER_SERVER))
        {
            f.Fail("merge", std::string("is ") + (merge.get<bool>() ? "true" : "false") +
                                " but 'semantics' is \"" + ToString(semantics) +
                                "\"; merge is true for merge and ring, false for ps");
        }
    }
    ScheduleFile out;
    out.nodeIds = file.fileIds;
    out.schedule.scheduler = f.String(f.Member(doc, "scheduler", ""), "scheduler");
    const json& list = f.Array(f.Member(doc, "workloads", ""), "workloads");
    std::vector<Workload> workloads(list.size());
    for (size_t i = 0; i < list.size(); ++i)
    {
        const std::string field = "workloads[" + std::to_string(i) + "]";
        const json& j = list[i];
        Workload& w = workloads[i];
        w.id = f.Uint(f.Member(j, "id", field), field + ".id");
        w.chunk = toModel(f.Uint(f.Member(j, "chunk", field), field + ".chunk"),
                          field + ".chunk",
                          "the chunk of node "); // a chunk is its parameter server's
        w.piece = f.Uint(f.Member(j, "piece", field), field + ".piece");
        const std::string phase = f.String(f.Member(j, "phase", field), field + ".phase");
        if (phase != "reduce" && phase != "gather")
        {
            f.Fail(field + ".phase",
                   "must be \"reduce\" or \"gather\", got \"" + Abbreviate(phase, 40) + "\"");
        }
        w.phase = phase == "reduce" ? Phase::REDUCE : Phase::GATHER;
        w.src = toModel(f.Uint(f.Member(j, "src", field), field + ".src"), field + ".src");
        w.dst = toModel(f.Uint(f.Member(j, "dst", field), field + ".dst"), field + ".dst");
        w.path = toModelList(f.UintList(f.Member(j, "path", field), field + ".path"),
                             field + ".path");
        w.deps = f.UintList(f.Member(j, "deps", field), field + ".deps");
        const std::vector<uint32_t> carries =
            toModelList(f.UintList(f.Member(j, "carries", field), field + ".carries"),
                        field + ".carries");
        try
        {
            w.carries = ServerSet(carries); // in any order
        }
        catch (const std::invalid_argument& e)
        {
            f.Fail(field + ".carries", e.what());
        }
    }
    try
    {
        out.workloads = WorkloadSet(topo, std::move(workloads), semantics, pieces);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("schedule file " + source + ": " + e.what());
    }
    const json& rounds = f.Array(f.Member(doc, "rounds", ""), "rounds");
    for (size_t t = 0; t < rounds.size(); ++t)
    {
        out.schedule.rounds.push_back(
            f.UintList(rounds[t], "rounds[" + std::to_string(t) + "]"));
    }
    return out;
}

ScheduleFile
ReadScheduleFile(const std::string& path)
{
    // A JSON document takes about 16 times its text in memory.
    return ParseScheduleJson(ReadTextFile(path, "schedule file", GetMemoryLimit() / 16),
                             "'" + Abbreviate(path, 200) + "'");
}

} // namespace ns3
