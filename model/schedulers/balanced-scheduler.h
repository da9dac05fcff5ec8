/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BALANCED_SCHEDULER_H
#define NS3_ALLREDUCE_BALANCED_SCHEDULER_H

#include "candidate-trees.h"
#include "priority-list-scheduler.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * `balanced`: our heuristic. It balances the link load of the merge workloads by choosing the
 * flow trees (BuildBalancedTrees), then list-schedules with a dynamic priority: a workload on a
 * link that still has much to carry goes first (most-loaded-link first), combined with its
 * critical path. It runs several priority rules and seeded random tie-breaks, on both the
 * balanced and the default trees, and keeps the schedule with the fewest rounds. Every choice
 * is seeded: the same Seed gives the same schedule.
 */
class BalancedScheduler : public PriorityListScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;
    WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces) override;
    Plan MakePlan(const Topology& topology, uint32_t pieces) override;

    /// The priority rules tried; keys compare lexicographically, highest first.
    enum class Rule : uint8_t
    {
        HEIGHT_THEN_LOAD, //!< critical path, then the most loaded link it uses, then random
        LOAD_THEN_HEIGHT, //!< the most loaded link it uses, then critical path, then random
        SUM_THEN_HEIGHT,  //!< the summed remaining load of its links, then critical path
        HEIGHT_ONLY,      //!< critical path, then random
        CHUNK_THEN_HEIGHT, //!< lower chunk piece first, then critical path, then random; tried
                           //!< with aggregating switches only (doc/allreduce.rst, "Aggregation
                           //!< in the network")
    };
    static constexpr uint32_t RULE_COUNT = 4; //!< the rules tried on every topology

    /**
     * \param topology a topology
     * \return the rules tried on it: the RULE_COUNT rules, and CHUNK_THEN_HEIGHT where some
     *         switches aggregate
     */
    static std::vector<Rule> GetRules(const Topology& topology);

    /**
     * Sets the rule and the random tie-break used from the next Prepare on (MakePlan leaves
     * the best one set, so that SelectRound repeats the best schedule).
     * \param rule the priority rule
     * \param tieSeed seed of the random tie-break order (0: by id)
     */
    void SetRule(Rule rule, uint64_t tieSeed);

    /**
     * List-schedules given workloads (any semantics, any trees) with every priority rule and
     * tie-break this scheduler tries, and keeps the shortest schedule; the rule that made it
     * stays set. Used for the schedules of MakePlan, and by other schedulers that want the
     * best heuristic schedule of their own workloads (e.g. as a starting upper bound).
     * \param workloads the workloads
     * \return the schedule with the fewest rounds (the first found among equals)
     */
    Schedule ScheduleWorkloads(const WorkloadSet& workloads);
    /**
     * ScheduleWorkloads, giving up on every try as soon as it cannot beat a number of rounds.
     * \param workloads the workloads
     * \param beat the rounds to beat
     * \return the schedule with the fewest rounds, or nothing when none has fewer than beat
     *         (the rule set is then the first tried)
     */
    std::optional<Schedule> ScheduleWorkloadsUnder(const WorkloadSet& workloads, uint32_t beat);

  protected:
    std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) override;
    void UpdatePriorities(const SchedulerState& state) override;
    uint64_t GetPriority(uint32_t id, uint64_t pathOrder, IdSpan links) const override;
    bool ArePrioritiesFixed() const override;

  private:
    uint32_t m_seed{1};                //!< Seed attribute
    uint32_t m_tries{32};              //!< Tries attribute
    uint32_t m_passes{50};             //!< TreePasses attribute
    Rule m_rule{Rule::HEIGHT_THEN_LOAD}; //!< rule in use
    uint64_t m_tieSeed{0};             //!< tie-break seed in use

    const WorkloadSet* m_workloads{nullptr}; //!< the workloads being scheduled
    std::vector<uint32_t> m_remaining;       //!< per directed link, load not yet done
    uint32_t m_seenFinished{0};              //!< finished workloads already subtracted
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_BALANCED_SCHEDULER_H */
