/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "plan.h"

#include "ns3/abort.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ns3
{

Schedule
CompactRounds(const std::vector<uint32_t>& roundOf)
{
    uint32_t horizon = 0;
    for (uint32_t t : roundOf)
    {
        if (t != NO_INDEX)
        {
            horizon = std::max(horizon, t + 1);
        }
    }
    Schedule s;
    s.rounds.resize(horizon);
    for (uint32_t w = 0; w < roundOf.size(); ++w)
    {
        if (roundOf[w] != NO_INDEX)
        {
            s.rounds[roundOf[w]].push_back(w);
        }
    }
    s.rounds.erase(std::remove_if(s.rounds.begin(),
                                  s.rounds.end(),
                                  [](const std::vector<uint32_t>& r) { return r.empty(); }),
                   s.rounds.end());
    return s;
}

std::vector<uint32_t>
RoundOfEachWorkload(const Schedule& schedule, uint32_t n)
{
    std::vector<uint32_t> roundOf(n, NO_INDEX);
    for (uint32_t t = 0; t < schedule.rounds.size(); ++t)
    {
        for (uint32_t id : schedule.rounds[t])
        {
            if (id >= n)
            {
                throw std::invalid_argument("the schedule names workload " + std::to_string(id) +
                                            ", but there are " + std::to_string(n));
            }
            roundOf[id] = t;
        }
    }
    return roundOf;
}

void
KeepInRounds(std::vector<std::vector<uint32_t>>& rounds, const std::vector<uint32_t>& kept)
{
    for (auto& round : rounds)
    {
        std::vector<uint32_t> mine;
        for (uint32_t id : round)
        {
            const auto it = std::lower_bound(kept.begin(), kept.end(), id);
            if (it != kept.end() && *it == id)
            {
                mine.push_back(static_cast<uint32_t>(it - kept.begin()));
            }
        }
        round = std::move(mine);
    }
}

namespace
{

/**
 * \param candidates per candidate set, its workloads
 * \param chosen per chunk, the candidate set it takes
 * \param roundOf per candidate set, per workload, its round
 * \return every chunk's workloads from its chosen set, in one pass over the sets
 *         (dependencies renumbered; a chunk's workloads depend on the same chunk's only), and
 *         their rounds
 */
Plan
SelectChunks(const std::vector<WorkloadSet>& candidates,
             const std::vector<uint32_t>& chosen,
             const std::vector<std::vector<uint32_t>>& roundOf)
{
    const WorkloadSet& first = candidates.front();
    std::vector<std::vector<uint32_t>> newId(candidates.size());
    std::vector<Workload> mine;
    std::vector<uint32_t> mineRound;
    for (size_t j = 0; j < candidates.size(); ++j)
    {
        newId[j].assign(candidates[j].GetN(), NO_INDEX);
        for (const Workload& w : candidates[j].GetAll())
        {
            if (chosen.at(w.chunk) != j)
            {
                continue;
            }
            if (roundOf[j][w.id] == NO_INDEX)
            {
                throw std::logic_error("workload " + std::to_string(w.id) + " of set " +
                                       std::to_string(j) + " (a chosen tree) has no round");
            }
            newId[j][w.id] = static_cast<uint32_t>(mine.size());
            mine.push_back(w);
            mine.back().deps = candidates[j].GetDeps(w.id).ToVector();
            mine.back().id = newId[j][w.id];
            mineRound.push_back(roundOf[j][w.id]);
        }
    }
    for (Workload& w : mine)
    {
        const uint32_t j = chosen[w.chunk];
        for (uint32_t& d : w.deps)
        {
            d = newId[j][d];
            NS_ABORT_MSG_IF(d == NO_INDEX, "SelectChunks: a dependency across chunks");
        }
    }
    Plan plan;
    plan.workloads =
        WorkloadSet(first.GetTopology(), std::move(mine), first.GetSemantics(), first.GetPieces());
    plan.schedule = CompactRounds(mineRound);
    return plan;
}

} // namespace

Plan
MakeTreeChoicePlan(const std::vector<std::vector<FlowTree>>& trees,
                   const std::vector<WorkloadSet>& candidates,
                   const std::vector<uint32_t>& chosen,
                   const std::vector<std::vector<uint32_t>>& roundOf)
{
    NS_ABORT_MSG_IF(trees.size() != candidates.size() || roundOf.size() != candidates.size() ||
                        candidates.empty(),
                    "MakeTreeChoicePlan: one tree set, workload set and assignment per candidate");
    const Topology& topology = candidates.front().GetTopology();
    if (topology.CountAggregators() > 0)
    {
        // Candidate sets may merge at different switches on the same trees: take the chosen
        // set's workloads of every chunk as they are.
        return SelectChunks(candidates, chosen, roundOf);
    }
    // The chosen tree of every root, and the workloads on them; their ids differ from the
    // candidates', their keys (chunk, piece, phase, src, dst) do not.
    std::vector<FlowTree> mine;
    for (uint32_t r = 0; r < topology.GetNServers(); ++r)
    {
        mine.push_back(trees.at(chosen.at(r))[r]);
    }
    Plan plan;
    plan.workloads = WorkloadSet::Build(topology,
                                        mine,
                                        WorkloadSemantics::MERGE,
                                        candidates.front().GetPieces());
    std::map<Workload::Key, uint32_t> roundByKey;
    for (size_t j = 0; j < candidates.size(); ++j)
    {
        for (uint32_t w = 0; w < candidates[j].GetN(); ++w)
        {
            const Workload& wl = candidates[j].Get(w);
            if (chosen[wl.chunk] == j && roundOf[j][w] != NO_INDEX)
            {
                roundByKey[wl.GetKey()] = roundOf[j][w];
            }
        }
    }
    std::vector<uint32_t> mineRound(plan.workloads.GetN(), NO_INDEX);
    for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
    {
        const auto it = roundByKey.find(plan.workloads.Get(w).GetKey());
        if (it == roundByKey.end())
        {
            throw std::logic_error("workload " + std::to_string(w) +
                                   " of the chosen trees has no round");
        }
        mineRound[w] = it->second;
    }
    plan.schedule = CompactRounds(mineRound);
    return plan;
}

} // namespace ns3
