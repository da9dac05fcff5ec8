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
    std::vector<uint64_t> m_priority; //!< per workload
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PRIORITY_LIST_SCHEDULER_H */
