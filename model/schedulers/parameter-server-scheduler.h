/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PARAMETER_SERVER_SCHEDULER_H
#define NS3_ALLREDUCE_PARAMETER_SERVER_SCHEDULER_H

#include "greedy-scheduler.h"

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
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

} // namespace ns3

#endif /* NS3_ALLREDUCE_PARAMETER_SERVER_SCHEDULER_H */
