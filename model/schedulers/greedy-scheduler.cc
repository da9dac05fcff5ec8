/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "greedy-scheduler.h"

#include "scheduler-registry.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(GreedyScheduler);

static const SchedulerRegistration g_registration("greedy",
                                                   GreedyScheduler::GetTypeId(),
                                                   "critical-path list scheduling of merge workloads on shortest-path trees",
                                                   30);

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

} // namespace ns3
