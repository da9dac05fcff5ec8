/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CANDIDATE_TREES_H
#define NS3_ALLREDUCE_CANDIDATE_TREES_H

#include "ns3/flow-tree.h"
#include "ns3/server-translations.h"
#include "ns3/topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * Chooses, for every root, a shortest-path flow tree that balances the load of the directed
 * links: starting from the shortest-path trees, local search over each node's parent,
 * minimizing the sum of squared directed-link loads of the merge workloads (doc/allreduce.rst,
 * "Workloads") over all roots. A parent is a neighbour one hop closer to the root; with longerPaths
 * also any neighbour no farther from the root than the node (paths may then grow, never loop).
 * \param topology a connected topology
 * \param maxPasses passes over all (root, node) choices; stops early when a pass improves
 *        nothing
 * \param longerPaths allow parents that are not on a shortest path
 * \param seed seed of the order in which choices are visited
 * \return one flow tree per root, indexed by root
 */
std::vector<FlowTree> BuildBalancedTrees(const Topology& topology,
                                         uint32_t maxPasses,
                                         bool longerPaths,
                                         uint64_t seed);

/**
 * \ingroup allreduce-schedulers
 * Shortest-path flow trees that route toward aggregating switches (doc/allreduce.rst,
 * "Aggregation in the network"): every node takes, among its neighbours one hop nearer the
 * root, an aggregating switch when there is one (the lowest id, so that the nodes of a level
 * choose the same one and their streams meet there), else the neighbour the default trees take.
 * \param topology the topology
 * \return one flow tree per root, indexed by root; the default trees when no switch aggregates
 */
std::vector<FlowTree> BuildAggregatorTrees(const Topology& topology);

/**
 * \ingroup allreduce-schedulers
 * Where only some switches aggregate (doc/allreduce.rst, "Aggregation in the network"), adds
 * the trees toward them (BuildAggregatorTrees) as one more candidate tree set, unless a set
 * already equals it; elsewhere (every switch aggregates, or none) changes nothing.
 * \param topology the topology
 * \param trees the candidate tree sets so far
 */
void AddAggregatorTrees(const Topology& topology, std::vector<std::vector<FlowTree>>& trees);

/**
 * \ingroup allreduce-schedulers
 * \param a a tree set \param b another, for the same topology
 * \return whether every root's tree is the same in both
 */
bool IsSameTreeSet(const std::vector<FlowTree>& a, const std::vector<FlowTree>& b);

/**
 * \ingroup allreduce-schedulers
 * The candidate flow-tree sets every scheduler that chooses routing draws from (`balanced`,
 * `optimal` with TreesPerRoot > 1, `drl`'s upper policy): candidate 0 is the shortest-path
 * trees, then the trees of BuildBalancedTrees with longer paths allowed and shortest only,
 * alternately, with seed, seed + 1, ...; a set equal to one already found is dropped.
 * \param topology the topology
 * \param k tree sets wanted
 * \param seed seed of the balanced trees
 * \param passes passes of the balancing local search
 * \param tries balanced tree sets built at most (0: 4 k, so that duplicates are made up for)
 * \return per candidate, one flow tree per root; at most k candidates, fewer when the search
 *         finds no more distinct trees
 */
std::vector<std::vector<FlowTree>> BuildCandidateTrees(const Topology& topology,
                                                       uint32_t k,
                                                       uint32_t seed,
                                                       uint32_t passes = 50,
                                                       uint32_t tries = 0);

/**
 * \ingroup allreduce-schedulers
 * \param topology the topology
 * \param translations its translations (not empty)
 * \param representatives a flow tree of every representative of the translations' orbits
 * \return per root r, T_r of the tree of r's representative (a flow tree of root r)
 * \throws std::invalid_argument when a representative has no tree
 */
std::vector<FlowTree> TranslateTrees(const Topology& topology,
                                     const ServerTranslations& translations,
                                     const std::vector<FlowTree>& representatives);

/**
 * \ingroup allreduce-schedulers
 * \param topology the topology
 * \param translations its translations (not empty)
 * \return per directed link (GetDirectedLink's numbering), its orbit under the translations,
 *         numbered 0, 1, ... in the order of their first link
 */
std::vector<uint32_t> GetDirectedLinkOrbits(const Topology& topology,
                                            const ServerTranslations& translations);

/**
 * \ingroup allreduce-schedulers
 * Candidate flow-tree sets that the translations copy (doc/allreduce.rst, "Symmetric
 * decoding"): in every set, the tree of root r is T_r of the set's tree of r's representative
 * (root 0 where the group acts regularly), so that a schedule may be the representatives'
 * decisions repeated by the group. The representatives' trees: the shortest-path trees, then
 * trees balanced as BuildBalancedTrees balances, on the representatives' trees alone with their
 * loads counted per orbit of directed links (with the copies, every link of an orbit carries
 * what the representatives' trees put on the orbit), longer paths allowed and shortest only
 * alternately, seeds seed, seed + 1, ...; a set equal to one already found is dropped.
 * \param topology the topology
 * \param translations its translations (not empty)
 * \param k tree sets wanted
 * \param seed seed of the balanced trees
 * \param passes passes of the balancing local search
 * \param tries balanced trees built at most (0: 4 k)
 * \return per candidate, one flow tree per root; at most k candidates
 */
std::vector<std::vector<FlowTree>> BuildSymmetricCandidateTrees(
    const Topology& topology,
    const ServerTranslations& translations,
    uint32_t k,
    uint32_t seed,
    uint32_t passes = 50,
    uint32_t tries = 0);

} // namespace ns3

#endif /* NS3_ALLREDUCE_CANDIDATE_TREES_H */
