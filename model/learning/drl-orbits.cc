/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-orbits.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

DrlOrbits::DrlOrbits(const DrlTreeCatalogue& catalogue, const ServerTranslations& translations)
{
    const Topology& topology = catalogue.GetTopology();
    if (translations.IsEmpty() || translations.GetNServers() != topology.GetNServers() ||
        topology.CountAggregators() > 0)
    {
        throw std::invalid_argument("DrlEnvironment::UseTranslations: " +
                                    std::string(translations.IsEmpty()
                                                    ? "no translations"
                                                    : "not this topology's translations, or "
                                                      "it has aggregating switches"));
    }
    m_size = translations.GetOrbitSize();
    for (uint32_t r = 0; r < translations.GetNServers(); ++r)
    {
        m_representative.push_back(translations.GetRepresentative(r));
    }
    m_index.assign(catalogue.GetEngineWorkloads().GetN(), NO_INDEX);
    std::vector<uint32_t> stamp(catalogue.GetNDirectedLinks(), NO_INDEX);
    for (uint32_t j = 0; j < catalogue.GetNSets(); ++j)
    {
        AddOrbitsOf(catalogue, j, translations, stamp);
    }
}

void
DrlOrbits::AddOrbitsOf(const DrlTreeCatalogue& catalogue,
                       uint32_t set,
                       const ServerTranslations& translations,
                       std::vector<uint32_t>& stamp)
{
    const WorkloadSet& ws = catalogue.GetSet(set);
    // A workload is known by its chunk, phase, piece and ends.
    std::map<std::tuple<uint32_t, int, uint32_t, uint32_t, uint32_t>, uint32_t> byKey;
    for (const Workload& w : ws.GetAll())
    {
        byKey[{w.chunk, static_cast<int>(w.phase), w.piece, w.src, w.dst}] = w.id;
    }
    std::vector<uint8_t> covered(ws.GetN(), 0);
    for (const Workload& w : ws.GetAll())
    {
        if (m_representative.at(w.chunk) != w.chunk)
        {
            continue;
        }
        const auto orbit = static_cast<uint32_t>(m_members.size() / m_size);
        for (uint32_t r = w.chunk; r < m_representative.size(); ++r)
        {
            if (m_representative[r] != w.chunk)
            {
                continue; // another orbit's root
            }
            const auto it = byKey.find({r,
                                        static_cast<int>(w.phase),
                                        w.piece,
                                        translations.Map(r, w.src),
                                        translations.Map(r, w.dst)});
            const Workload* image = it != byKey.end() ? &ws.Get(it->second) : nullptr;
            if (!image || covered[image->id] || !IsImage(w, *image, r, translations, orbit, stamp))
            {
                throw std::invalid_argument(
                    "DrlEnvironment::UseTranslations: candidate set " + std::to_string(set) +
                    "'s workloads are not copies of their representatives' by the "
                    "translations (workload " +
                    std::to_string(w.id) + " and root " + std::to_string(r) +
                    "), or an orbit uses a link twice; build the trees with "
                    "BuildSymmetricCandidateTrees");
            }
            covered[image->id] = 1;
            m_members.push_back(catalogue.GetEngineId(set, image->id));
        }
        m_index[catalogue.GetEngineId(set, w.id)] = orbit;
    }
    if (std::count(covered.begin(), covered.end(), 1) != static_cast<long>(ws.GetN()))
    {
        throw std::invalid_argument("DrlEnvironment::UseTranslations: candidate set " +
                                    std::to_string(set) +
                                    " has workloads in no orbit of a representative's");
    }
}

bool
DrlOrbits::IsImage(const Workload& w,
                   const Workload& image,
                   uint32_t r,
                   const ServerTranslations& translations,
                   uint32_t orbit,
                   std::vector<uint32_t>& stamp)
{
    if (image.path.size() != w.path.size())
    {
        return false;
    }
    for (size_t i = 0; i < w.path.size(); ++i)
    {
        if (image.path[i] != translations.Map(r, w.path[i]))
        {
            return false;
        }
    }
    for (uint32_t l : image.links)
    {
        if (stamp[l] == orbit)
        {
            return false; // no link twice in an orbit
        }
        stamp[l] = orbit;
    }
    return true;
}

} // namespace ns3
