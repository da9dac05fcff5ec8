/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_CANDIDATE_OBSERVATION_H
#define NS3_ALLREDUCE_DRL_CANDIDATE_OBSERVATION_H

#include "drl-load-tracker.h"
#include "drl-round-candidates.h"
#include "drl-tree-catalogue.h"

#include "ns3/balanced-scheduler.h"
#include "ns3/scheduler-state.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * What the lower level of the DRL scheduler (workload scheduling) sees of each candidate of a
 * round, FEATURES values per candidate whatever the topology: its height (over the largest);
 * the pressure on its links, most and summed (over the largest); whether it is an all-gather;
 * its path's length (over the longest); its tree's workloads left (over its size); whether its
 * root is committed to its tree; its dependents (over the most); how many pickable candidates
 * it blocks (over the pickable); its tree's ready workloads (over its size); whether it ends
 * and whether it starts at an aggregating switch; its chunk piece's place in the order piece by
 * piece, chunk by chunk; the most of its tree's workloads of its phase left on one of its
 * links, and its tree's reduce-scatter and all-gather counts of that kind added (over the
 * bandwidth bound). DrlEnvironment::BASIC_TREE_FEATURES tells which came when.
 *
 * The teacher of the warm start ranks the same candidates by the balanced scheduler's rules
 * (TeacherTies), on the same link pressures.
 */
class DrlCandidateObservation
{
  public:
    /// Features per candidate workload.
    static constexpr uint32_t FEATURES = 15;
    /// Features per candidate before aggregation (DrlEnvironment::BASIC_CANDIDATE_FEATURES).
    static constexpr uint32_t BASIC_FEATURES = 10;
    /// Features per candidate with aggregation, before the rounds a tree needs by itself.
    static constexpr uint32_t AGGREGATION_FEATURES = 13;

    /**
     * \param catalogue the trees (it must outlive this)
     * \param loads what is left of them (it must outlive this)
     * \param candidates the round's candidates (it must outlive this)
     */
    DrlCandidateObservation(const DrlTreeCatalogue& catalogue,
                            const DrlLoadTracker& loads,
                            const DrlRoundCandidates& candidates);

    /**
     * \param which some candidates (indices into DrlRoundCandidates::Get())
     * \param state the state acted on
     * \param committed per root, its tree or NO_INDEX
     * \return per candidate given, in that order, FEATURES values (row-major), at the cost of
     *         these only (and of a pass over the pickable candidates' links)
     * \throws std::out_of_range for an index that is not a candidate
     */
    std::vector<float> Compute(const std::vector<uint32_t>& which,
                               const SchedulerState& state,
                               const std::vector<uint32_t>& committed) const;

    /**
     * The teacher used to warm-start the policies: the rules of the balanced scheduler.
     * \param rule the priority rule (height and link loads as the engine sees them now)
     * \param state the state acted on
     * \return per candidate, 1 when the rule ranks it first among the pickable (ties
     *         included), else 0
     */
    std::vector<uint8_t> TeacherTies(BalancedScheduler::Rule rule,
                                     const SchedulerState& state) const;

  private:
    /**
     * Writes the features of a candidate.
     * \param c the candidate
     * \param users per directed link, how many pickable candidates use it
     *        (DrlRoundCandidates::GetLinkUsers)
     * \param state the state acted on
     * \param committed per root, its tree or NO_INDEX
     * \param f where the FEATURES values go
     */
    void Write(uint32_t c,
               const std::vector<uint32_t>& users,
               const SchedulerState& state,
               const std::vector<uint32_t>& committed,
               float* f) const;

    const DrlTreeCatalogue* m_catalogue;    //!< the trees
    const DrlLoadTracker* m_loads;          //!< what is left of them
    const DrlRoundCandidates* m_candidates; //!< the round's candidates
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_CANDIDATE_OBSERVATION_H */
