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
 * A group of automorphisms of a topology that acts regularly on its servers (doc/allreduce.rst,
 * "Symmetric decoding"): for every server r exactly one map T_r of the nodes onto themselves
 * that keeps every link (and its properties, every node's kind and aggregation) and takes
 * server 0 to r; T_r after T_s is T_(T_r(s)). With flow trees such that the tree of root r is
 * T_r of the tree of root 0, every root's AllReduce is a translated copy of root 0's, and a
 * schedule can be too: root 0's decisions, repeated by every T_r.
 *
 * Known for BCube(n,k) (add a server's digits to every server's, digit by digit, mod n) and
 * DCell(n,1) when n+1 is prime (the affine maps x -> a x + b of the cells, taking server
 * [c, m] that links cell c to cell m to [a c + b, a m + b]). Found from the topology's name,
 * then checked link by link on the topology itself, so that one changed afterwards (slow links,
 * aggregating switches) or read from a file under such a name has none unless they really hold.
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
    /**
     * \param r a server
     * \param node a node
     * \return T_r(node)
     */
    uint32_t Map(uint32_t r, uint32_t node) const;
    /// \return what group it is, for reports (e.g. "Z_3^2: BCube digits")
    const std::string& GetDescription() const;

  private:
    /**
     * Keeps the table if every T_r is an automorphism taking server 0 to r, and the group law
     * holds on server 0's images.
     * \param topology the topology
     * \return true when it holds
     */
    bool Check(const Topology& topology) const;

    uint32_t m_servers{0};     //!< servers
    uint32_t m_nodes{0};       //!< nodes
    std::vector<uint32_t> m_map; //!< row r: T_r of every node
    std::string m_description; //!< the group
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SERVER_TRANSLATIONS_H */
