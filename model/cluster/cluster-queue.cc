/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-queue.h"

#include "ns3/scheduler-registry.h"

namespace ns3
{

ClusterQueue::ClusterQueue(const Topology& cluster,
                           PlacementPolicy& placement,
                           std::string scheduler,
                           uint32_t pieces)
    : m_cluster(cluster),
      m_placement(placement),
      m_scheduler(std::move(scheduler)),
      m_pieces(pieces),
      m_free(cluster.GetNServers(), 1),
      m_linkJobs(2 * uint64_t{cluster.GetNLinks()}, 0)
{
}

void
ClusterQueue::Arrive(uint32_t job, uint32_t servers)
{
    m_waiting.emplace_back(job, servers);
    m_changed = true;
}

std::vector<ClusterQueue::Placed>
ClusterQueue::PlaceWaiting()
{
    std::vector<Placed> placed;
    if (!m_changed)
    {
        return placed; // the first waiting job was refused, and nothing has changed since
    }
    m_changed = false;
    while (!m_waiting.empty())
    {
        PlacementRequest request;
        request.servers = m_waiting.front().second;
        request.free = m_free;
        request.linkJobs = m_linkJobs;
        Ptr<AllReduceScheduler> probe = CreateScheduler(m_scheduler);
        const uint32_t pieces = m_pieces;
        request.workloads = [probe, pieces](const Topology& view) {
            return probe->MakeWorkloads(view, pieces);
        };
        std::vector<uint32_t> servers = m_placement.Place(m_cluster, request);
        if (servers.empty())
        {
            break;
        }
        for (uint32_t s : servers)
        {
            m_free[s] = 0;
        }
        placed.emplace_back(m_waiting.front().first, std::move(servers));
        m_waiting.pop_front();
    }
    return placed;
}

std::vector<uint32_t>
ClusterQueue::Run(const WorkloadSet& workloads)
{
    std::vector<uint32_t> footprint;
    std::vector<uint8_t> used(m_linkJobs.size(), 0);
    for (const Workload& w : workloads.GetAll())
    {
        for (uint32_t l : w.links)
        {
            if (!used[l])
            {
                used[l] = 1;
                footprint.push_back(l);
                ++m_linkJobs[l];
            }
        }
    }
    m_changed = true;
    return footprint;
}

void
ClusterQueue::Finish(const std::vector<uint32_t>& servers, const std::vector<uint32_t>& footprint)
{
    for (uint32_t s : servers)
    {
        m_free[s] = 1;
    }
    for (uint32_t l : footprint)
    {
        --m_linkJobs[l];
    }
    m_changed = true;
}

bool
ClusterQueue::HasWaiting() const
{
    return !m_waiting.empty();
}

std::string
ClusterQueue::DescribeStuck() const
{
    if (m_waiting.empty())
    {
        return "";
    }
    return "job " + std::to_string(m_waiting.front().first) + " waits for " +
           std::to_string(m_waiting.front().second) +
           " servers but no job runs that could free them; placement '" + m_placement.GetName() +
           "' placed nothing although every server is free";
}

} // namespace ns3
