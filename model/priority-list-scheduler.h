/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H
#define NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H

#include "allreduce-scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * List scheduling: at every decision point, takes the ready workloads in priority order
 * (highest first, then lowest id) and starts each one the state lets start (no directed link
 * busy or down). Derived classes set the priorities in ComputePriorities, and may change them
 * as the schedule unfolds in UpdatePriorities.
 *
 * Late gradients (stragglers, at packet level) hold some workloads back while others are
 * ready, which the fixed priorities were not made for: taken greedily, the ready workloads
 * pack into rounds worse than the plan would have, and a late gradient's workloads find their
 * links taken when it arrives. So once a workload waits for a late gradient, the scheduler
 * (attribute FollowPlanWhenLate) takes the ready workloads in the order of its own flow-level
 * plan (the round this rule gives each workload when every gradient is ready, then the
 * priority), and keeps free the links of the earliest planned round's held workloads, so that
 * they start the moment their gradient is ready. Replaying the plan waits for the late
 * gradient instead; this order does at least what replay does in each round, and more while
 * it waits (doc/allreduce.rst, "Decisions inside ns-3").
 */
class PriorityListScheduler : public AllReduceScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    void Prepare(const WorkloadSet& workloads) override;
    void SelectRound(SchedulerState& state) override;

  protected:
    /**
     * \param workloads the workloads to schedule
     * \return one priority per workload (higher goes first)
     */
    virtual std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) = 0;

    /**
     * Called at the start of every SelectRound, for schedulers whose priorities change as
     * the schedule unfolds; the default keeps them fixed.
     * \param state the state
     * \param priority per workload; only the ready workloads' entries are read this round
     */
    virtual void UpdatePriorities(const SchedulerState& state, std::vector<uint64_t>& priority);

  private:
    /**
     * Plans the workloads with this rule at flow level (as MakePlan would), for the round of
     * each, and then prepares for the run in progress again.
     * \param workloads the workloads being run
     */
    void PlanRounds(const WorkloadSet& workloads);

    std::vector<uint64_t> m_priority;     //!< per workload
    bool m_followPlanWhenLate{true};      //!< FollowPlanWhenLate attribute
    std::vector<uint32_t> m_plannedRound; //!< per workload, once a gradient was late; else empty
    bool m_planning{false};               //!< true inside PlanRounds
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H */
