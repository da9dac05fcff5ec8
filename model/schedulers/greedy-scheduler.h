/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_GREEDY_SCHEDULER_H
#define NS3_ALLREDUCE_GREEDY_SCHEDULER_H

#include "priority-list-scheduler.h"

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * `greedy`: critical-path list scheduling of the merge workloads on the shortest-path flow
 * trees. A workload's priority is the length of the longest dependency chain it starts (its
 * height), then the length of its path, so that long chains and long paths start early.
 */
class GreedyScheduler : public PriorityListScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) override;
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_GREEDY_SCHEDULER_H */
