/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RING_SCHEDULER_H
#define NS3_ALLREDUCE_RING_SCHEDULER_H

#include "greedy-scheduler.h"

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
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

#endif /* NS3_ALLREDUCE_RING_SCHEDULER_H */
