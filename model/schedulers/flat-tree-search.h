/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_FLAT_TREE_SEARCH_H
#define NS3_ALLREDUCE_FLAT_TREE_SEARCH_H

#include "ns3/plan.h"
#include "ns3/topology.h"

#include <cstdint>
#include <optional>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * \param topology a topology
 * \return true when every server reaches every other through switches only (no server in
 *         between) and no switch aggregates: then every root may have a flat tree, on which
 *         each server sends its contribution straight to the root
 */
bool HasFlatTrees(const Topology& topology);

/**
 * \ingroup allreduce-schedulers
 * What SearchFlatSchedule may spend.
 */
struct FlatSearchBudget
{
    uint64_t moves{2000000}; //!< moves of the tabu search at most (deterministic, not time)
    uint32_t slack{1};       //!< paths up to this many hops longer than the shortest
    uint32_t seed{1};        //!< seed of the search's random choices
};

/**
 * \ingroup allreduce-schedulers
 * \param servers servers of the topology
 * \param rounds rounds asked for
 * \return whether SearchFlatSchedule searches that size (about 16 M (transfer, round, path)
 *         choices: some 60 servers at the bandwidth bound of one port each)
 */
bool FitsFlatSearch(uint32_t servers, uint32_t rounds);

/**
 * \ingroup allreduce-schedulers
 * Looks for an AllReduce in `rounds` rounds on flat trees (doc/allreduce.rst, "The exact
 * scheduler: optimal", the flat-tree search): every server sends its contribution to each
 * root straight along the root's tree, in the first rounds / 2 rounds; the gather mirrors
 * it, the reduce of round t reversed in round rounds - 1 - t, so it needs no search of its
 * own. A tabu search (min-conflicts: move a conflicting transfer to the round and path that
 * conflict least) chooses each transfer's round and path among the switch-only paths of up
 * to slack extra hops, until no directed link carries two transfers in a round and each root's
 * paths form one tree. On topologies whose servers have one port each (Jellyfish, fat-tree
 * with one server a port) rounds = the bandwidth bound asks for every port busy in every round.
 * \param topology a topology with HasFlatTrees
 * \param rounds the rounds asked for (even; pieces: 1)
 * \param budget what the search may spend
 * \return the plan (merge workloads on the flat trees it chose, validated) when found
 * \throws std::invalid_argument when the topology has no flat trees, rounds is odd or 0, or
 *         the search would be too large (FitsFlatSearch)
 */
std::optional<Plan> SearchFlatSchedule(const Topology& topology,
                                       uint32_t rounds,
                                       const FlatSearchBudget& budget);

} // namespace ns3

#endif /* NS3_ALLREDUCE_FLAT_TREE_SEARCH_H */
