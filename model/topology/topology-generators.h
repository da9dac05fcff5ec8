/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_GENERATORS_H
#define NS3_ALLREDUCE_TOPOLOGY_GENERATORS_H

#include "topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * BCube(n,k) (Guo et al., SIGCOMM 2009): n^(k+1) servers, k+1 levels of n^k n-port switches.
 *
 * Server s has base-n digits a_k..a_0; its port i links to the level-i switch whose index is
 * s with digit i removed. Switch j of level i is node n^(k+1) + i*n^k + j.
 * \param n switch ports, >= 2
 * \param k levels above 0, >= 0
 * \return the topology, named "bcube(n=N,k=K)"
 * \throws std::invalid_argument for a bad parameter or a size that does not fit in memory
 */
Topology MakeBCube(int64_t n, int64_t k);

/**
 * \ingroup allreduce-topology
 * DCell(n,k) (Guo et al., SIGCOMM 2008): t_k servers with t_0 = n and
 * t_k = t_{k-1} * (t_{k-1} + 1); one n-port switch per DCell_0.
 *
 * Server uid u is in DCell_0 number u / n, whose switch is node t_k + u / n. At level l, in each
 * DCell_l, server [i, j-1] links to server [j, i] for every i < j, where [a, b] is server b of
 * sub-DCell_{l-1} a.
 * \param n servers per DCell_0, >= 2
 * \param k level, >= 0
 * \return the topology, named "dcell(n=N,k=K)"
 * \throws std::invalid_argument for a bad parameter or a size that does not fit in memory
 */
Topology MakeDCell(int64_t n, int64_t k);

/**
 * \ingroup allreduce-topology
 * Jellyfish (Singla et al., NSDI 2012): a random regular graph of switches with servers
 * attached.
 *
 * Switch-switch links are added between random pairs of switches that have free ports and are
 * not yet adjacent. When no such pair is left but a switch still has two free ports, a random
 * existing link (x, y) is removed and the switch is linked to x and y (the paper's fix-up); two
 * adjacent switches with one free port each are completed the same way. Every switch ends with
 * exactly `degree` switch links; switches*degree must be even (an odd product has no regular
 * graph, and is refused).
 * Server i attaches to switch i / serversPerSwitch; servers come first, switches after.
 * \param switches number of switches, >= 2
 * \param degree switch-to-switch ports per switch, 1..switches-1
 * \param serversPerSwitch servers on each switch, >= 1
 * \param seed the random seed; the same seed gives the same graph
 * \return the topology, named "jellyfish(switches=S,degree=R,servers=H,seed=X)"
 * \throws std::invalid_argument for a bad parameter, an odd switches*degree, a size that does
 *         not fit in memory, or a graph that comes out disconnected (say which seed, and that
 *         another may work)
 */
Topology MakeJellyfish(int64_t switches, int64_t degree, int64_t serversPerSwitch, uint64_t seed);

/**
 * \ingroup allreduce-topology
 * A random switch-centric graph with no structure at all, for trying a scheduler on networks
 * nobody designed (doc/allreduce.rst, "Topologies").
 *
 * The switches are first joined by a random tree (each switch, in a seeded random order, links
 * to a uniformly chosen switch before it), so the graph is always connected; the other
 * links - switchLinks - (switches - 1) - join uniformly chosen pairs of switches not yet
 * linked. Each server attaches to a uniformly chosen switch, so switches carry uneven numbers
 * of servers and some carry none. Servers come first, switches after.
 * \param switches number of switches, >= 1
 * \param switchLinks switch-to-switch links, from switches - 1 (a tree) to
 *        switches x (switches - 1) / 2 (every pair)
 * \param servers number of servers, >= 1
 * \param seed the random seed; the same seed gives the same graph with every library
 * \return the topology, named "random(switches=S,links=L,servers=H,seed=X)"
 * \throws std::invalid_argument for a bad parameter, a link count out of range or a size that
 *         does not fit in memory
 */
Topology MakeRandomGraph(int64_t switches, int64_t switchLinks, int64_t servers, uint64_t seed);

/**
 * \ingroup allreduce-topology
 * FatTree(k) (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 core switches, k/2 servers per edge switch.
 *
 * Nodes: servers (pod-major), then edge switches, aggregation switches and core switches, each
 * pod-major. Aggregation switch j of each pod links to core switches j*k/2 .. j*k/2 + k/2 - 1.
 * \param k switch ports, even and >= 2
 * \return the topology, named "fattree(k=K)"
 * \throws std::invalid_argument for a bad parameter or a size that does not fit in memory
 */
Topology MakeFatTree(int64_t k);

/**
 * \ingroup allreduce-topology
 * Slows a seeded share of the links (doc/allreduce.rst, "Uneven links"): their rate factor
 * (LinkProperties) is multiplied by factor. The spec options slow=FRACTION, slowrate=X and
 * slowseed=S do the same.
 * \param topology the topology to change
 * \param fraction the share of links, in (0, 1]: round(fraction x links), at least one
 * \param factor their rate factor, in (0, 1)
 * \param seed chooses the links; the same seed gives the same links with every library
 * \throws std::invalid_argument for a fraction or a factor out of range
 */
void SlowDownLinks(Topology& topology, double fraction, double factor, uint64_t seed);

/**
 * \ingroup allreduce-topology
 * Makes a seeded share of the switches aggregate (doc/allreduce.rst, "Aggregation in the
 * network"), each with the same slots. The spec options ina=all|FRACTION, slots=N and
 * inaseed=S do the same.
 * \param topology the topology to change
 * \param fraction the share of switches, in (0, 1]: round(fraction x switches), at least one
 * \param slots aggregator slots of each (Topology::UNLIMITED_SLOTS for unlimited)
 * \param seed chooses the switches; the same seed gives the same switches with every library
 * \throws std::invalid_argument for a fraction out of range, no slots or no switches
 */
void ChooseAggregators(Topology& topology, double fraction, uint32_t slots, uint64_t seed);

/**
 * \ingroup allreduce-topology
 * Builds a topology from a spec string, the one argument every example takes:
 * `bcube:n=3,k=1`, `dcell:n=4,k=1`, `jellyfish:switches=10,degree=4,servers=1,seed=1`,
 * `fattree:k=4`, `random:switches=12,links=20,servers=16,seed=1` (MakeRandomGraph) or
 * `file:PATH`. Jellyfish's `servers` and `seed` default to 1; a random graph's `links` default
 * to twice its switches (or every pair, when fewer), `servers` to its switches and `seed` to 1. Any spec may
 * end with link options: `slow=FRACTION` (a seeded share of the links is slower, SlowDownLinks),
 * `slowrate=X` (their rate factor, default 0.5) and `slowseed=S` (default 1); and with
 * aggregation options: `ina=all` or `ina=FRACTION` (which switches add gradients in flight,
 * ChooseAggregators), `slots=N` (their aggregator slots, unlimited when absent) and
 * `inaseed=S` (default 1). The name of a topology with aggregators ends with those options.
 * \param spec the spec
 * \return the validated topology
 * \throws std::invalid_argument naming the kind, key or value that is wrong and what is accepted
 */
Topology BuildTopology(const std::string& spec);

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_GENERATORS_H */
