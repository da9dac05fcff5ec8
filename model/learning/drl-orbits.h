/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_ORBITS_H
#define NS3_ALLREDUCE_DRL_ORBITS_H

#include "drl-tree-catalogue.h"

#include "ns3/id-span.h"
#include "ns3/server-translations.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * The orbits of symmetric decoding (doc/allreduce.rst, "Symmetric decoding"): for every
 * workload of a representative root (ServerTranslations; root 0 alone where the group acts
 * regularly) in a DrlTreeCatalogue, its images under the topology's translations, one per root
 * of the representative's orbit, which start together when the decision for the
 * representative's workload is taken. Found once, when the environment is told to use the
 * translations; they hold only when every candidate set is a translated copy of the
 * representatives' trees and no orbit uses a directed link twice.
 */
class DrlOrbits
{
  public:
    /**
     * \param catalogue the trees and workloads (without aggregating switches)
     * \param translations the topology's translations
     * \throws std::invalid_argument when they are empty or not the topology's, the topology
     *         has aggregating switches, the candidate sets are not copies by the translations
     *         (BuildSymmetricCandidateTrees), or an orbit's workloads share a directed link
     */
    DrlOrbits(const DrlTreeCatalogue& catalogue, const ServerTranslations& translations);

    /// \return the number of workloads in an orbit (the servers in an orbit of servers)
    uint32_t GetSize() const
    {
        return m_size;
    }

    /**
     * \param root a root (server)
     * \return the representative of its orbit, whose decisions it repeats
     */
    uint32_t GetRepresentative(uint32_t root) const
    {
        return m_representative[root];
    }

    /**
     * \param e the engine id of a workload of a representative root
     * \return the engine ids of its orbit (GetSize() of them, the representative's first)
     */
    IdSpan GetOrbit(uint32_t e) const
    {
        return IdSpan(m_members.data() + uint64_t{m_index[e]} * m_size, m_size);
    }

  private:
    /**
     * Finds the orbits of a candidate set's workloads of the representative roots.
     * \param catalogue the trees and workloads
     * \param set the candidate set
     * \param translations the translations
     * \param stamp per directed link, the last orbit that used it
     * \throws std::invalid_argument when a workload has no image, or an orbit uses a link twice
     */
    void AddOrbitsOf(const DrlTreeCatalogue& catalogue,
                     uint32_t set,
                     const ServerTranslations& translations,
                     std::vector<uint32_t>& stamp);

    /**
     * \param w a workload of a representative root
     * \param image a workload of root r with w's translated ends
     * \param r the root
     * \param translations the translations
     * \param orbit w's orbit
     * \param stamp per directed link, the last orbit that used it (image's links get orbit)
     * \return true when image's path is w's translated by T_r and uses no link the orbit used
     */
    static bool IsImage(const Workload& w,
                        const Workload& image,
                        uint32_t r,
                        const ServerTranslations& translations,
                        uint32_t orbit,
                        std::vector<uint32_t>& stamp);

    uint32_t m_size{0};                     //!< workloads per orbit
    std::vector<uint32_t> m_representative; //!< per root, its orbit's representative
    std::vector<uint32_t> m_index; //!< per engine workload of a representative, its orbit
    std::vector<uint32_t> m_members; //!< per orbit, its engine ids (m_size each, the rep's first)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_ORBITS_H */
