/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "baseline-schedulers.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GreedyScheduler);
NS_OBJECT_ENSURE_REGISTERED(ParameterServerScheduler);
NS_OBJECT_ENSURE_REGISTERED(RingScheduler);

TypeId
GreedyScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GreedyScheduler")
                            .SetParent<PriorityListScheduler>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<GreedyScheduler>();
    return tid;
}

std::string
GreedyScheduler::GetName() const
{
    return "greedy";
}

std::vector<uint64_t>
GreedyScheduler::ComputePriorities(const WorkloadSet& workloads)
{
    std::vector<uint64_t> priority(workloads.GetN());
    for (uint32_t id = 0; id < workloads.GetN(); ++id)
    {
        const uint64_t links = workloads.Get(id).links.size();
        priority[id] = (uint64_t{workloads.GetHeight(id)} << 32) | std::min<uint64_t>(links, 0xffff);
    }
    return priority;
}

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
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::PARAMETER_SERVER,
                              pieces);
}

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
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::RING,
                              pieces);
}

} // namespace ns3
