/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-scheduler.h"

#include "scheduler-registry.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingScheduler);

static const SchedulerRegistration g_registration("ring",
                                                   RingScheduler::GetTypeId(),
                                                   "Ring AllReduce baseline over servers 0..N-1",
                                                   20);

TypeId
RingScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingScheduler")
                            .SetParent<GreedyScheduler>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<RingScheduler>();
    return tid;
}

std::string
RingScheduler::GetName() const
{
    return "ring";
}

WorkloadSet
RingScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::RING, pieces); // before the trees
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::RING,
                              pieces);
}

} // namespace ns3
