/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "parameter-server-scheduler.h"

#include "scheduler-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ParameterServerScheduler);

static const SchedulerRegistration g_registration("ps",
                                                   ParameterServerScheduler::GetTypeId(),
                                                   "Parameter Server baseline: every server sends to the chunk owner and back, no merge",
                                                   10);

TypeId
ParameterServerScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ParameterServerScheduler")
                            .SetParent<GreedyScheduler>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<ParameterServerScheduler>();
    return tid;
}

std::string
ParameterServerScheduler::GetName() const
{
    return "ps";
}

WorkloadSet
ParameterServerScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::PARAMETER_SERVER, pieces);
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::PARAMETER_SERVER,
                              pieces);
}

} // namespace ns3
