/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BASELINE_SCHEDULERS_H
#define NS3_ALLREDUCE_BASELINE_SCHEDULERS_H

#include "priority-list-scheduler.h"

namespace ns3
{

/**
 * \ingroup allreduce
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

/**
 * \ingroup allreduce
 * `ps`: the Parameter Server baseline. Every server sends its own contribution to each
 * chunk's owner along the owner's shortest-path tree and the owner sends the sum back
 * (no merge; doc/allreduce.rst, "Workloads"), list-scheduled as GreedyScheduler does.
 */
class ParameterServerScheduler : public GreedyScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;
    WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces) override;
};

/**
 * \ingroup allreduce
 * `ring`: the Ring AllReduce baseline over servers 0, 1, ..., N-1 (doc/allreduce.rst, "Workloads"),
 * each step routed along the receiver's shortest-path tree, list-scheduled as GreedyScheduler does
 * (which runs the ring's steps in order).
 */
class RingScheduler : public GreedyScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;
    WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces) override;
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_BASELINE_SCHEDULERS_H */
