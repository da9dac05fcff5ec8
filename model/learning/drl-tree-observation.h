/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_TREE_OBSERVATION_H
#define NS3_ALLREDUCE_DRL_TREE_OBSERVATION_H

#include "drl-load-tracker.h"
#include "drl-tree-catalogue.h"

#include "ns3/scheduler-state.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * What the upper level of the DRL scheduler (flow-tree selection) sees of each flow tree
 * before a round, FEATURES values per tree whatever the topology: its workloads left, ready
 * and sent in the last round (over its size); the pressure on its links, most and mean (over
 * the largest); its height left and ready (over the largest); whether its root is committed
 * to it, or to none; whether it was selected in the last round; then its static features
 * (how loaded its links are when every root uses its set's trees, how its set's busiest link
 * compares with the best set's, its set's place, the share of its workloads that end at an
 * aggregating switch, its size against its root's largest candidate); last, the most of its
 * reduce-scatter and of its all-gather workloads left on one directed link (over the
 * bandwidth bound). DrlEnvironment::BASIC_TREE_FEATURES tells which came when.
 */
class DrlTreeObservation
{
  public:
    /// Features per flow tree.
    static constexpr uint32_t FEATURES = 17;
    /// Features per tree before aggregation (DrlEnvironment::BASIC_TREE_FEATURES).
    static constexpr uint32_t BASIC_FEATURES = 13;
    /// Features per tree with aggregation, before the rounds a tree needs by itself.
    static constexpr uint32_t AGGREGATION_FEATURES = 15;

    /**
     * Computes the static features of every tree.
     * \param catalogue the trees (it must outlive this)
     * \param loads what is left of them (it must outlive this)
     */
    DrlTreeObservation(const DrlTreeCatalogue& catalogue, const DrlLoadTracker& loads);

    /**
     * \param state the state acted on
     * \param committed per root, its tree or NO_INDEX
     * \param sentLast per tree, its workloads sent in the last round
     * \param selectedLast per tree, 1 when it was selected in the last round
     * \return per tree, FEATURES values (row-major)
     */
    std::vector<float> Compute(const SchedulerState& state,
                               const std::vector<uint32_t>& committed,
                               const std::vector<uint32_t>& sentLast,
                               const std::vector<uint8_t>& selectedLast) const;

  private:
    /// Static features per tree, in m_static.
    static constexpr uint32_t STATIC_FEATURES = 5;

    /// The static features of every tree (m_static).
    void ComputeStatic();

    const DrlTreeCatalogue* m_catalogue; //!< the trees
    const DrlLoadTracker* m_loads;       //!< what is left of them
    std::vector<float> m_static;         //!< per tree, its static features (STATIC_FEATURES)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_TREE_OBSERVATION_H */
