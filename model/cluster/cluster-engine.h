/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CLUSTER_ENGINE_H
#define NS3_ALLREDUCE_CLUSTER_ENGINE_H

#include "job-trace.h"
#include "placement-policy.h"

#include "ns3/ptr.h"
#include "ns3/schedule.h"
#include "ns3/topology.h"
#include "ns3/workload.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-cluster Several jobs
 * \ingroup allreduce
 * Several training jobs on one cluster: job traces, placement policies and the flow-level cluster
 * engine (doc/allreduce.rst, "Several jobs").
 */

/**
 * \ingroup allreduce-cluster
 * How the jobs running at once share the directed links (doc/allreduce.rst, "Several jobs").
 */
enum class ClusterMode : uint8_t
{
    INDEPENDENT, //!< each job's scheduler proposes a round blind to the others; a workload on a
                 //!< link another job holds is dropped from it (first come, first served)
    JOINT,       //!< the jobs that decide at once do so in order of least remaining work, each
                 //!< seeing the links the others hold, so it schedules around them
};

/**
 * \ingroup allreduce-cluster
 * \param mode a mode \return its name: "independent" or "joint"
 */
std::string GetClusterModeName(ClusterMode mode);

/**
 * \ingroup allreduce-cluster
 * A cluster run at flow level: what is run and how.
 */
struct ClusterConfig
{
    std::string scheduler{"greedy"};         //!< each job's scheduler (a short name)
    ClusterMode mode{ClusterMode::INDEPENDENT}; //!< how jobs share links
    uint32_t pieces{1};                      //!< pieces per chunk
    double linkRateBps{10e9};                //!< link rate that turns a piece into seconds
};

/**
 * \ingroup allreduce-cluster
 * One job of a cluster run, as it went.
 */
struct ClusterJobResult
{
    uint32_t id{0};                     //!< its row in the trace, from 0
    JobSpec spec;                       //!< what the trace asked for
    std::vector<uint32_t> servers;      //!< its placement (cluster servers, in view order)
    double startS{0};                   //!< when it was placed (its wait ends)
    double finishS{0};                  //!< when its last AllReduce ended
    double roundS{0};                   //!< seconds of one round: a piece over one link
    uint32_t rounds{0};                 //!< rounds over all its AllReduces
    uint32_t boundRounds{0};            //!< bandwidth bound of one AllReduce on its view
    std::vector<Schedule> schedules;    //!< per AllReduce, the rounds it ran
    std::shared_ptr<const WorkloadSet> workloads; //!< its workloads (on its view)
    bool valid{false};                  //!< every AllReduce passed the validator
    bool verified{false};               //!< packet level: every AllReduce ended with the exact
                                        //!< sum on every server (flow level: false)
    std::string error;                  //!< the first complaint (validator, stall, sums)

    /// \return the job completion time: finish minus arrival (its wait included)
    double GetJct() const
    {
        return finishS - spec.arrivalS;
    }
};

/**
 * \ingroup allreduce-cluster
 * A whole cluster run.
 */
struct ClusterResult
{
    std::vector<ClusterJobResult> jobs; //!< in trace order
    double makespanS{0};                //!< when the last job finished
    double linkUtilisation{0};          //!< busy directed-link time over (directed links × makespan)
    uint64_t decisions{0};              //!< scheduler calls

    /// \return the mean job completion time
    double GetMeanJct() const;
    /// \param q a quantile in [0, 1] \return that quantile of the completion times (nearest rank)
    double GetJctQuantile(double q) const;
};

/// The most AllReduces (iterations of every job) one cluster run may hold: the work of a run
/// is bounded before it starts.
constexpr uint64_t MAX_CLUSTER_ALLREDUCES = 1000000;

/// The latest time a cluster run may reach, in seconds (Quantity::MAX_TIME_NS): arrivals and
/// computing, even when every job waits for the one before it, end by then.
constexpr double MAX_CLUSTER_SECONDS = 1e9;

/**
 * \ingroup allreduce-cluster
 * \param cluster the cluster \param jobs a trace \param pieces pieces per chunk (--pieces)
 * \throws std::invalid_argument for a job larger than the cluster, a gradient too small for
 *         its servers and pieces (saying the most pieces that fit), no iterations, a time that
 *         is negative or not finite, jobs out of arrival order, an arrival plus computing
 *         beyond MAX_CLUSTER_SECONDS (also when the jobs run one after another), or more than
 *         MAX_CLUSTER_ALLREDUCES AllReduces in all
 */
void CheckClusterJobs(const Topology& cluster, const std::vector<JobSpec>& jobs, uint32_t pieces);

/**
 * \ingroup allreduce-cluster
 * Asks the placement, before a run, whether it can place every job size of the trace
 * (PlacementPolicy::CheckJobSize).
 * \param cluster the cluster \param placement the policy \param jobs a checked trace
 * \throws std::invalid_argument what the policy refuses
 */
void CheckPlacement(const Topology& cluster,
                    const PlacementPolicy& placement,
                    const std::vector<JobSpec>& jobs);

/**
 * \ingroup allreduce-cluster
 * \param jobs a checked trace (CheckClusterJobs) \param pieces pieces per chunk
 * \param linkRateBps the links' rate
 * \return per job its id, spec and round length (one piece over one link), the rest unset
 */
std::vector<ClusterJobResult> MakeClusterJobResults(const std::vector<JobSpec>& jobs,
                                                    uint32_t pieces,
                                                    double linkRateBps);

/**
 * \ingroup allreduce-cluster
 * Runs a trace of jobs on one cluster at flow level (doc/allreduce.rst, "Several jobs").
 *
 * Jobs are placed first come, first served: an arriving job waits while the one before it
 * waits, and while the placement policy finds too few free servers; a job ending frees its
 * servers. A placed job runs `iterations` AllReduces, each after `compute_s` seconds of
 * computing, on its view of the cluster (JobView), with its own instance of the scheduler.
 * Each AllReduce runs in rounds of the job's own length (one piece of its gradient over one
 * link at the configured rate); a round holds its directed links until it ends, and the rounds
 * of all running jobs share the cluster's directed links. A job decides its next round when
 * its last one ends, and again at every later event while it could start nothing.
 */
class ClusterEngine
{
  public:
    /**
     * \param cluster the cluster (copied)
     * \param placement the placement policy
     * \param config the scheduler, the mode, pieces and the link rate
     * \throws std::invalid_argument for an unknown scheduler, no placement, 0 pieces or a link
     *         rate that is not positive
     */
    ClusterEngine(const Topology& cluster, Ptr<PlacementPolicy> placement, ClusterConfig config);

    /**
     * \param callback called as each job finishes, with the job and how many have finished
     */
    void SetJobDoneCallback(std::function<void(const ClusterJobResult&, uint32_t)> callback);

    /**
     * Runs the jobs to their end.
     * \param jobs the trace, in arrival order
     * \return per job its placement, times, rounds and validation, and the cluster's summary
     * \throws std::invalid_argument for a job larger than the cluster, a gradient too small
     *         for its servers and pieces, or jobs out of arrival order
     * \throws std::runtime_error when a scheduler fails, or a job waits for servers that no
     *         running job will free
     */
    ClusterResult Run(const std::vector<JobSpec>& jobs);

  private:
    Topology m_cluster;                //!< the cluster
    Ptr<PlacementPolicy> m_placement;  //!< chooses the servers
    ClusterConfig m_config;            //!< what runs and how
    std::function<void(const ClusterJobResult&, uint32_t)> m_jobDone; //!< progress
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_CLUSTER_ENGINE_H */
