/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SERVER_TRANSLATIONS_H
#define NS3_ALLREDUCE_SERVER_TRANSLATIONS_H

#include "topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * A group of automorphisms of a topology that acts freely on its servers (doc/allreduce.rst,
 * "Symmetric decoding"): no map but the identity keeps a server in place, so the servers fall
 * into orbits of the group's size, each with a representative (its smallest server). For every
 * server r, T_r is the one map of the group that takes r's representative to r; it keeps every
 * link (and its properties, every node's kind and aggregation), and T_r after T_s is
 * T_(T_r(s)). With flow trees such that the tree of root r is T_r of the tree of r's
 * representative, every root's AllReduce is a translated copy of its representative's, and a
 * schedule can be too: the representatives' decisions, repeated by the group.
 *
 * Where the group acts regularly (one orbit, server 0 the representative of all): BCube(n,k)
 * (add a server's digits to every server's, digit by digit, mod n) and DCell(n,1) when n+1 is
 * a prime power (the affine maps x -> a x + b of the cells over the field GF(n+1), taking
 * server [c, m] that links cell c to cell m to [a c + b, a m + b]). Other DCell(n,1) have the
 * rotations x -> x + b of the cells, n orbits of n+1 servers (server [c, m] in the orbit of
 * m - c mod n+1), and FatTree(k) the rotations of its pods (core switches kept), k^2/4 orbits
 * of k servers. Found from the topology's name, then checked link by link on the topology
 * itself, so that one changed afterwards (slow links) or read from a file under such a name has
 * none unless they really hold; a topology with aggregating switches has none.
 */
class ServerTranslations
{
  public:
    /// No translations.
    ServerTranslations() = default;

    /**
     * \param topology a topology
     * \return its translations, or none (IsEmpty) when its generator has none known, they do
     *         not hold on it, or the table (servers x nodes) would exceed 64 M entries
     */
    static ServerTranslations Find(const Topology& topology);

    /// \return true when there are none
    bool IsEmpty() const;
    /// \return the number of servers (0 when empty)
    uint32_t GetNServers() const;
    /// \return the number of orbits of servers (1 for a group acting regularly; 0 when empty)
    uint32_t GetNOrbits() const;
    /// \return the servers in an orbit: the group's size (0 when empty)
    uint32_t GetOrbitSize() const;
    /**
     * \param r a server
     * \return the representative of r's orbit (its smallest server; 0 for a regular group)
     */
    uint32_t GetRepresentative(uint32_t r) const;
    /// \return the representatives, in increasing order
    std::vector<uint32_t> GetRepresentatives() const;
    /**
     * \param r a server
     * \param node a node
     * \return T_r(node), T_r the map that takes r's representative to r
     */
    uint32_t Map(uint32_t r, uint32_t node) const;
    /// \return what group it is, for reports (e.g. "Z_3^2: BCube digits")
    const std::string& GetDescription() const;

  private:
    /**
     * Keeps the table if every T_r is an automorphism taking r's representative (a server no
     * larger than r, its own representative) to r, and the group law holds on three servers'
     * images.
     * \param topology the topology
     * \return true when it holds
     */
    bool Check(const Topology& topology) const;
    /**
     * Counts the orbits, checking that the action is free: a representative's map is the
     * identity on the servers, every other map moves every server, every orbit has the same size.
     * \return true when it is
     */
    bool CountOrbits();

    uint32_t m_servers{0};     //!< servers
    uint32_t m_nodes{0};       //!< nodes
    std::vector<uint32_t> m_map; //!< row r: T_r of every node
    std::vector<uint32_t> m_rep; //!< per server, its orbit's representative
    uint32_t m_orbits{0};        //!< orbits
    std::string m_description; //!< the group
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SERVER_TRANSLATIONS_H */
