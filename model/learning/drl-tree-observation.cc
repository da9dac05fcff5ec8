/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-tree-observation.h"

#include <algorithm>
#include <limits>

namespace ns3
{

DrlTreeObservation::DrlTreeObservation(const DrlTreeCatalogue& catalogue,
                                       const DrlLoadTracker& loads)
    : m_catalogue(&catalogue),
      m_loads(&loads)
{
    ComputeStatic();
}

void
DrlTreeObservation::ComputeStatic()
{
    // Static features of a tree: how loaded its links are when every root uses its set's
    // trees, and how good that set is as a whole (its busiest link against the best set's).
    const uint32_t sets = m_catalogue->GetNSets();
    std::vector<std::vector<uint32_t>> setLoad;
    std::vector<uint32_t> setMax;
    uint32_t globalMax = 1;
    uint32_t bestSetMax = std::numeric_limits<uint32_t>::max();
    for (uint32_t j = 0; j < sets; ++j)
    {
        setLoad.push_back(m_catalogue->GetSet(j).GetLinkLoads());
        setMax.push_back(
            std::max<uint32_t>(1, *std::max_element(setLoad.back().begin(), setLoad.back().end())));
        globalMax = std::max(globalMax, setMax.back());
        bestSetMax = std::min(bestSetMax, setMax.back());
    }
    // And where its streams meet: the share of its workloads that end at an aggregating
    // switch, and its size against its root's largest candidate (merging saves workloads).
    const Topology& topology = m_catalogue->GetTopology();
    const auto& trees = m_catalogue->GetTrees();
    m_static.assign(trees.size() * STATIC_FEATURES, 0.0f);
    for (uint32_t t = 0; t < trees.size(); ++t)
    {
        const uint32_t j = trees[t].set;
        uint32_t worst = 0;
        uint32_t toSwitch = 0;
        for (uint32_t id : trees[t].workloads)
        {
            const Workload& w = m_catalogue->GetSet(j).Get(id);
            for (uint32_t l : w.links)
            {
                worst = std::max(worst, setLoad[j][l]);
            }
            toSwitch += !topology.IsServer(w.dst);
        }
        size_t largest = 1;
        for (uint32_t other : m_catalogue->GetRootTrees(trees[t].root))
        {
            largest = std::max(largest, trees[other].workloads.size());
        }
        const float size = static_cast<float>(std::max<size_t>(1, trees[t].workloads.size()));
        float* f = &m_static[STATIC_FEATURES * t];
        f[0] = static_cast<float>(worst) / globalMax;
        f[1] = static_cast<float>(bestSetMax) / setMax[j];
        f[2] = sets > 1 ? static_cast<float>(j) / (sets - 1) : 0.0f;
        f[3] = toSwitch / size;
        f[4] = trees[t].workloads.size() / static_cast<float>(largest);
    }
}

std::vector<float>
DrlTreeObservation::Compute(const SchedulerState& state,
                            const std::vector<uint32_t>& committed,
                            const std::vector<uint32_t>& sentLast,
                            const std::vector<uint8_t>& selectedLast) const
{
    const DrlLoadTracker& loads = *m_loads;
    const auto& trees = m_catalogue->GetTrees();
    std::vector<float> out(trees.size() * FEATURES, 0.0f);
    // What is ready, per tree, from the state's ready list (one pass, not a status query per
    // workload left).
    std::vector<uint32_t> ready(trees.size(), 0);
    std::vector<uint32_t> readyHeight(trees.size(), 0);
    for (uint32_t e : state.GetReady())
    {
        const uint32_t t = m_catalogue->GetTreeOfEngineId(e);
        const uint32_t set = trees[t].set;
        ++ready[t];
        readyHeight[t] =
            std::max(readyHeight[t], m_catalogue->GetSet(set).GetHeight(e - m_catalogue->GetOffset(set)));
    }
    const std::vector<Workload>& running = state.GetWorkloads().GetAll(); // as the state runs them
    for (uint32_t t = 0; t < trees.size(); ++t)
    {
        const DrlTreeCatalogue::Tree& tree = trees[t];
        const WorkloadSet& set = m_catalogue->GetSet(tree.set);
        const uint32_t offset = m_catalogue->GetOffset(tree.set);
        const float size = static_cast<float>(std::max<size_t>(1, tree.workloads.size()));
        uint32_t height = 0;
        double maxPressure = 0;
        double sumPressure = 0;
        uint32_t nLinks = 0;
        for (uint32_t id : loads.GetRemaining(t))
        {
            height = std::max(height, set.GetHeight(id));
            for (uint32_t l : running[offset + id].links)
            {
                const double load = loads.GetLoad(l);
                maxPressure = std::max(maxPressure, load);
                sumPressure += load;
                ++nLinks;
            }
        }
        const double maxLoad = loads.GetMaxLoad();
        const uint32_t maxHeight = m_catalogue->GetMaxHeight();
        const uint32_t bound = m_catalogue->GetBound();
        float* f = &out[t * FEATURES];
        f[0] = loads.GetLeft(t) / size;
        f[1] = ready[t] / size;
        f[2] = sentLast[t] / size;
        f[3] = static_cast<float>(maxPressure / maxLoad);
        f[4] = nLinks ? static_cast<float>(sumPressure / nLinks / maxLoad) : 0.0f;
        f[5] = static_cast<float>(height) / maxHeight;
        f[6] = static_cast<float>(readyHeight[t]) / maxHeight;
        f[7] = committed[tree.root] == t ? 1.0f : 0.0f;
        f[8] = committed[tree.root] == NO_INDEX ? 1.0f : 0.0f;
        f[9] = selectedLast[t];
        static_assert(10 + STATIC_FEATURES == AGGREGATION_FEATURES,
                      "the static block ends the features with aggregation");
        std::copy_n(&m_static[STATIC_FEATURES * t], STATIC_FEATURES, &f[10]);
        f[15] = static_cast<float>(loads.GetOwnReduce(t)) / bound;
        f[16] = static_cast<float>(loads.GetOwnGather(t)) / bound;
        static_assert(17 == FEATURES, "every tree feature written");
    }
    return out;
}

} // namespace ns3
