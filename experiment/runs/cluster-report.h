/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CLUSTER_REPORT_H
#define NS3_ALLREDUCE_CLUSTER_REPORT_H

#include "ns3/cluster-engine.h"

#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * What a single cluster run was, for its report.
 */
struct ClusterRunInfo
{
    std::string topology;  //!< topology name
    std::string trace;     //!< where the jobs came from (a file, or "generated, seed 1")
    std::string placement; //!< placement name
    std::string level;     //!< "flow" or "packet"
    ClusterConfig config;  //!< scheduler, mode, pieces, link rate
    double wallS{0};       //!< wall time of the run
};

/**
 * \ingroup allreduce-experiment
 * Prints one cluster run for a person: per job its servers, arrival, start, finish, completion
 * time, rounds against the bound, validation and (packet level) exact sums; then the
 * summary.
 * \param os where \param info what ran \param result how it went
 */
void PrintClusterRun(std::ostream& os, const ClusterRunInfo& info, const ClusterResult& result);

/**
 * \ingroup allreduce-experiment
 * Writes one cluster run as JSON: the settings, per job `id`, `servers`, `arrival_s`,
 * `start_s`, `finish_s`, `jct_s`, `rounds`, `bound_rounds`, `valid` (every AllReduce passed
 * the validator) and at packet level `verified` (every AllReduce ended with the exact sums),
 * then the summary.
 * \param os where \param info what ran \param result how it went
 */
void WriteClusterRunJson(std::ostream& os, const ClusterRunInfo& info, const ClusterResult& result);

} // namespace ns3

#endif /* NS3_ALLREDUCE_CLUSTER_REPORT_H */
