/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-candidate-observation.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

DrlCandidateObservation::DrlCandidateObservation(const DrlTreeCatalogue& catalogue,
                                                 const DrlLoadTracker& loads,
                                                 const DrlRoundCandidates& candidates)
    : m_catalogue(&catalogue),
      m_loads(&loads),
      m_candidates(&candidates)
{
}

void
DrlCandidateObservation::Write(uint32_t c,
                               const std::vector<uint32_t>& users,
                               const SchedulerState& state,
                               const std::vector<uint32_t>& committed,
                               float* f) const
{
    const DrlTreeCatalogue& catalogue = *m_catalogue;
    const DrlLoadTracker& loads = *m_loads;
    const auto [set, id] = m_candidates->Get()[c];
    const WorkloadSet& ws = catalogue.GetSet(set);
    const Workload& w = catalogue.GetWorkloadIn(state, set, id);
    const uint32_t t = catalogue.GetTreeOf(set, id);
    double maxLoad = 0;
    double sumLoad = 0;
    uint32_t blocked = 0;
    for (uint32_t l : w.links)
    {
        maxLoad = std::max(maxLoad, loads.GetLoad(l));
        sumLoad += loads.GetLoad(l);
        blocked += users[l] > 0 ? users[l] - 1 : 0;
    }
    const uint32_t ready = m_candidates->GetNReady(t);
    const uint32_t roots = catalogue.GetNRoots();
    const uint32_t bound = catalogue.GetBound();
    const float size =
        static_cast<float>(std::max<size_t>(1, catalogue.GetTree(t).workloads.size()));
    f[0] = static_cast<float>(ws.GetHeight(id)) / catalogue.GetMaxHeight();
    f[1] = static_cast<float>(maxLoad / loads.GetMaxLoad());
    f[2] = static_cast<float>(sumLoad / (loads.GetMaxLoad() * catalogue.GetMaxPath()));
    f[3] = w.phase == Phase::GATHER ? 1.0f : 0.0f;
    f[4] = static_cast<float>(w.links.size()) / catalogue.GetMaxPath();
    f[5] = loads.GetLeft(t) / size;
    f[6] = committed[catalogue.GetTree(t).root] == t ? 1.0f : 0.0f;
    f[7] = static_cast<float>(ws.GetDependents(id).size()) / catalogue.GetMaxDependents();
    f[8] = static_cast<float>(blocked) / std::max<uint32_t>(1, m_candidates->GetNPickable());
    f[9] = ready / size;
    f[10] = ws.GetTopology().IsServer(w.dst) ? 0.0f : 1.0f;
    f[11] = ws.GetTopology().IsServer(w.src) ? 0.0f : 1.0f;
    f[12] = static_cast<float>(w.piece * roots + w.chunk) /
            std::max<uint32_t>(1, ws.GetPieces() * roots - 1);
    f[13] = static_cast<float>(loads.GetOwnLink(catalogue.GetEngineId(set, id))) / bound;
    f[14] = static_cast<float>(loads.GetOwnReduce(t) + loads.GetOwnGather(t)) / bound;
    static_assert(15 == FEATURES, "every candidate feature written");
}

std::vector<float>
DrlCandidateObservation::Compute(const std::vector<uint32_t>& which,
                                 const SchedulerState& state,
                                 const std::vector<uint32_t>& committed) const
{
    const size_t n = m_candidates->Get().size();
    std::vector<float> out(which.size() * FEATURES, 0.0f);
    // How many pickable candidates use each link: a candidate that blocks many others is
    // costly to pick.
    const std::vector<uint32_t>& users = m_candidates->GetLinkUsers();
    for (size_t i = 0; i < which.size(); ++i)
    {
        if (which[i] >= n)
        {
            throw std::out_of_range("GetCandidateFeatures: candidate " + std::to_string(which[i]) +
                                    " of " + std::to_string(n));
        }
        Write(which[i], users, state, committed, &out[i * FEATURES]);
    }
    return out;
}

std::vector<uint8_t>
DrlCandidateObservation::TeacherTies(BalancedScheduler::Rule rule,
                                     const SchedulerState& state) const
{
    const auto& candidates = m_candidates->Get();
    const auto& mask = m_candidates->GetMask();
    std::vector<std::tuple<double, double>> key(candidates.size());
    const double lowest = -std::numeric_limits<double>::infinity();
    std::tuple<double, double> best{lowest, lowest};
    for (uint32_t c = 0; c < candidates.size(); ++c)
    {
        if (!mask[c])
        {
            continue;
        }
        const auto [set, id] = candidates[c];
        const Workload& w = m_catalogue->GetWorkloadIn(state, set, id);
        double maxLoad = 0;
        double sumLoad = 0;
        for (uint32_t l : w.links)
        {
            maxLoad = std::max(maxLoad, m_loads->GetLoad(l));
            sumLoad += m_loads->GetLoad(l);
        }
        const double h = m_catalogue->GetSet(set).GetHeight(id);
        switch (rule)
        {
        case BalancedScheduler::Rule::LOAD_THEN_HEIGHT:
            key[c] = {maxLoad, h};
            break;
        case BalancedScheduler::Rule::SUM_THEN_HEIGHT:
            key[c] = {sumLoad, h};
            break;
        case BalancedScheduler::Rule::HEIGHT_ONLY:
            key[c] = {h, 0};
            break;
        case BalancedScheduler::Rule::HEIGHT_THEN_LOAD:
            key[c] = {h, maxLoad};
            break;
        case BalancedScheduler::Rule::CHUNK_THEN_HEIGHT: {
            const uint64_t servers = m_catalogue->GetSet(set).GetTopology().GetNServers();
            key[c] = {-static_cast<double>(w.piece * servers + w.chunk), h};
            break;
        }
        }
        best = std::max(best, key[c]);
    }
    std::vector<uint8_t> ties(candidates.size(), 0);
    for (uint32_t c = 0; c < candidates.size(); ++c)
    {
        ties[c] = mask[c] && key[c] == best;
    }
    return ties;
}

} // namespace ns3
