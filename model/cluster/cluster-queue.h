/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CLUSTER_QUEUE_H
#define NS3_ALLREDUCE_CLUSTER_QUEUE_H

#include "placement-policy.h"

#include "ns3/topology.h"
#include "ns3/workload.h"

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * Who waits for servers on a cluster, and what the running jobs hold (doc/allreduce.rst,
 * "Several jobs"): the free servers, and per directed link how many placed jobs' workloads use
 * it. Jobs are placed first come, first served: one that must wait keeps the ones behind it
 * waiting. The flow-level ClusterEngine and the packet-level cluster run both place with it.
 */
class ClusterQueue
{
  public:
    /// A placed job: its id and its servers (in the order they become its servers 0..m-1).
    using Placed = std::pair<uint32_t, std::vector<uint32_t>>;

    /**
     * \param cluster the cluster (must outlive the queue)
     * \param placement the policy (must outlive the queue)
     * \param scheduler the jobs' scheduler, whose workloads the policy may weigh
     * \param pieces pieces per chunk
     */
    ClusterQueue(const Topology& cluster,
                 PlacementPolicy& placement,
                 std::string scheduler,
                 uint32_t pieces);

    /**
     * \param job a job that arrives \param servers how many it needs
     */
    void Arrive(uint32_t job, uint32_t servers);

    /**
     * \return the jobs placed now, in arrival order, up to the first that must wait (nothing,
     *         without asking the policy again, when no job arrived, started or finished since
     *         the last call: the request would be the same)
     */
    std::vector<Placed> PlaceWaiting();

    /**
     * Counts a placed job's workloads on the links (for later placements).
     * \param workloads its workloads, on its view (link numbers are the cluster's)
     * \return the directed links they use, each once (for Finish)
     */
    std::vector<uint32_t> Run(const WorkloadSet& workloads);

    /**
     * A job ended: its servers are free, its links no longer count.
     * \param servers its servers \param footprint what Run returned
     */
    void Finish(const std::vector<uint32_t>& servers, const std::vector<uint32_t>& footprint);

    /// \return true when a job waits
    bool HasWaiting() const;

    /**
     * \return why the first waiting job can never be placed when nothing runs: "job 3 waits
     *         for 8 servers but ..."
     */
    std::string DescribeStuck() const;

  private:
    const Topology& m_cluster;        //!< the cluster
    PlacementPolicy& m_placement;     //!< the policy
    std::string m_scheduler;          //!< the jobs' scheduler
    uint32_t m_pieces;                //!< pieces per chunk
    std::deque<std::pair<uint32_t, uint32_t>> m_waiting; //!< (job, servers), in arrival order
    std::vector<uint8_t> m_free;      //!< per server
    std::vector<uint32_t> m_linkJobs; //!< per directed link, placed jobs that use it
    bool m_changed{false};            //!< a job arrived, started or finished since then
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_CLUSTER_QUEUE_H */
