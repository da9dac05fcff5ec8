/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUNDS_REPORT_H
#define NS3_ALLREDUCE_ROUNDS_REPORT_H

#include "ns3/drl-scheduler.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/scheduler-result.h"

#include <ostream>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * Prints one flow-level result for a person (allreduce-rounds): topology, scheduler,
 * workloads, rounds, bounds, ratio, validity, time, what `optimal` proved and which
 * checkpoint `drl` used.
 * \param os where to print
 * \param result the result
 * \param timed whether result.seconds is a scheduling time (not for a schedule file)
 * \param search what `optimal` proved, or nullptr for another scheduler
 * \param drl which checkpoint `drl` used and how it searched, or nullptr for another scheduler
 */
void PrintRoundsReport(std::ostream& os,
                       const SchedulerResult& result,
                       bool timed,
                       const OptimalSearch* search,
                       const DrlDecoding* drl = nullptr);

/**
 * \ingroup allreduce-experiment
 * Writes the same as one JSON object.
 * \param os where to write
 * \param result the result
 * \param timed whether result.seconds is a scheduling time
 * \param search what `optimal` proved, or nullptr
 * \param drl which checkpoint `drl` used and how it searched, or nullptr
 */
void WriteRoundsReportJson(std::ostream& os,
                           const SchedulerResult& result,
                           bool timed,
                           const OptimalSearch* search,
                           const DrlDecoding* drl = nullptr);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUNDS_REPORT_H */
