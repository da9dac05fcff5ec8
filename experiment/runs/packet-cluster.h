/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PACKET_CLUSTER_H
#define NS3_ALLREDUCE_PACKET_CLUSTER_H

#include "ns3/cluster-engine.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * A cluster run packet by packet: what runs and how.
 */
struct PacketClusterConfig
{
    ClusterConfig cluster;              //!< scheduler, independent or joint, pieces
    std::string mode{"barrier"};        //!< each controller's mode: "barrier" or "async"
    std::string transport{"tcp"};       //!< "tcp", or "rdma" (RoCEv2 over lossless Ethernet)
    DataRate dataRate{"10Gbps"};        //!< every link's rate
    Time delay{MicroSeconds(1)};        //!< every link's propagation delay
    std::string values{"integer"};      //!< "integer" (exact sums) or "float" gradients
    uint32_t seed{1};                   //!< gradient seed (each job and server mixed in)
    Time stallTimeout{Seconds(1)};      //!< an AllReduce without progress this long fails
};

/**
 * \ingroup allreduce-experiment
 * Runs a trace of jobs on one cluster in one ns-3 simulation (doc/allreduce.rst, "Several
 * jobs"). The cluster is built once (DcnTopologyHelper); jobs are placed first come, first
 * served (ClusterQueue) as they arrive in simulated time; each AllReduce of a job, after its
 * computing time, gets its own applications on the job's servers (a port of its own) and its
 * own AllReduceController, whose scheduler decides online on the job's view. Independent jobs'
 * transfers share links as TCP shares them; joint jobs' controllers share a SharedLinks, so
 * that each sees the links the others' transfers use as busy and decides again when they free
 * up, least work left first. Every AllReduce's result is compared with the exact sum
 * (`verified`) and its rounds as decided pass the validator (`valid`); an AllReduce that
 * stalls fails its job, and the others go on.
 * \param cluster the cluster
 * \param placement the placement policy
 * \param config what runs and how
 * \param jobs the trace, in arrival order
 * \param jobDone called as each job finishes, with how many have
 * \return per job its placement, times, rounds and verdicts; the summary (link utilisation:
 *         0, not measured at packet level)
 * \throws std::invalid_argument for bad jobs or settings (nothing runs then)
 */
ClusterResult RunPacketCluster(const Topology& cluster,
                               Ptr<PlacementPolicy> placement,
                               const PacketClusterConfig& config,
                               const std::vector<JobSpec>& jobs,
                               const std::function<void(const ClusterJobResult&, uint32_t)>&
                                   jobDone = {});

} // namespace ns3

#endif /* NS3_ALLREDUCE_PACKET_CLUSTER_H */
