/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CLUSTER_TABLE_H
#define NS3_ALLREDUCE_CLUSTER_TABLE_H

#include "table-experiment.h"

#include "ns3/cluster-engine.h"
#include "ns3/job-trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * What the cluster experiment runs (allreduce-cluster's table options).
 */
struct ClusterTableConfig
{
    std::vector<std::string> topologies;  //!< topology specs
    std::vector<std::string> placements;  //!< placement names
    std::vector<ClusterMode> modes;       //!< independent and/or joint
    std::vector<std::string> schedulers;  //!< scheduler names
    std::vector<JobSpec> jobs;            //!< the trace, run on every topology
    uint64_t seed{1};                     //!< the random placement's seed
    uint32_t pieces{1};                   //!< pieces per chunk
    double linkRateBps{10e9};             //!< link rate at flow level
};

/**
 * \ingroup allreduce-experiment
 * One trace on one topology with one placement, mode and scheduler.
 */
struct ClusterTableRow
{
    std::string topology;     //!< topology name
    std::string placement;    //!< placement name
    std::string mode;         //!< "independent" or "joint"
    std::string scheduler;    //!< scheduler name
    double meanJctS{0};       //!< mean job completion time
    double p95JctS{0};        //!< 95th percentile (nearest rank)
    double makespanS{0};      //!< when the last job ended
    double utilisation{0};    //!< busy directed-link time over all of it
    double meanWaitS{0};      //!< mean time from arrival to placement
    uint64_t decisions{0};    //!< scheduler calls
    uint32_t validJobs{0};    //!< jobs whose every AllReduce passed the validator
    std::vector<double> jctS; //!< per job, in trace order
    double wallS{0};          //!< wall time of the run
};

/**
 * \ingroup allreduce-experiment
 * Several jobs sharing a cluster at flow level (doc/allreduce.rst, "Several jobs"): one trace
 * on each topology, with each placement, each way of sharing links (independent, joint) and
 * each scheduler. It reports the mean and 95th-percentile job completion time, the makespan
 * and the link utilisation per run, topology-aware placement against the others and joint
 * against independent scheduling, and draws the completion time distribution per policy.
 * A job that fails the validator fails the experiment.
 */
class ClusterTable : public TableExperiment
{
  public:
    /**
     * \param config what to run
     * \throws std::invalid_argument for an unknown placement or scheduler, no jobs, or a job
     *         larger than a topology
     */
    explicit ClusterTable(ClusterTableConfig config);

    uint64_t GetNSteps() const override;
    void Run(ProgressReporter* progress) override;
    /// Prints every run, then topology-aware against the other placements and joint against
    /// independent, per topology.
    void Print(std::ostream& os) const override;
    void WriteCsv(std::ostream& os) const override;
    void WriteJson(std::ostream& os) const override;
    /// Draws the completion time distribution per placement and mode, a panel per topology.
    std::string WriteFigure(const std::string& prefix) const override;
    const std::string& GetFailure() const override;

    /// \return the rows, after Run
    const std::vector<ClusterTableRow>& GetRows() const;

    /**
     * \param field what is compared: &ClusterTableRow::placement, ::mode or ::scheduler
     * \param value one value of it ("topology-aware", "joint") \param versus another
     * \return per topology (in run order), the geometric mean of value's mean JCT over
     *         versus's, over the runs that differ only in that field
     */
    std::vector<std::pair<std::string, double>> Compare(std::string ClusterTableRow::*field,
                                                        const std::string& value,
                                                        const std::string& versus) const;

  private:
    /// \return the scheduler the figure shows (balanced when run, else the first)
    std::string GetFigureScheduler() const;

    ClusterTableConfig m_config;         //!< what runs
    std::vector<Topology> m_clusters;    //!< the topologies, built and checked up front
    std::vector<ClusterTableRow> m_rows; //!< the results
    std::string m_failed;                //!< the first invalid job
    double m_seconds{0};                 //!< wall time of Run
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_CLUSTER_TABLE_H */
