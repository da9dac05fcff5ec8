/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SCHEDULER_RESULT_H
#define NS3_ALLREDUCE_SCHEDULER_RESULT_H

#include "allreduce-scheduler.h"

#include "ns3/plan.h"
#include "ns3/ptr.h"
#include "ns3/schedule.h"

#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * A scheduler's plan with what a user compares: bounds, validity and the time it took.
 */
struct SchedulerResult
{
    Plan plan;             //!< workloads and schedule
    RoundBounds bounds;    //!< lower bounds for these workloads
    ScheduleCheck check;   //!< the validator's verdict
    double seconds{0};     //!< wall time of building and scheduling (not validating)

    /// \return rounds divided by the bandwidth bound (0 when the bound is 0)
    double GetRatio() const;
};

/**
 * \ingroup allreduce-schedulers
 * Computes a plan's bounds and validates it (for a plan from a scheduler or a file).
 * \param plan the workloads and schedule
 * \return the result (seconds left at 0)
 */
SchedulerResult EvaluatePlan(Plan plan);

/**
 * \ingroup allreduce-schedulers
 * Creates a scheduler by name, plans the AllReduce, computes its bounds and validates it.
 * \param topology the topology
 * \param scheduler a name for CreateScheduler
 * \param pieces pieces per chunk
 * \return the result
 */
SchedulerResult EvaluateScheduler(const Topology& topology,
                                  const std::string& scheduler,
                                  uint32_t pieces);

/**
 * \ingroup allreduce-schedulers
 * As above, with a scheduler the caller made (and keeps, e.g. to read what it reports).
 * \param topology the topology
 * \param scheduler the scheduler
 * \param pieces pieces per chunk
 * \return the result
 */
SchedulerResult EvaluateScheduler(const Topology& topology,
                                  Ptr<AllReduceScheduler> scheduler,
                                  uint32_t pieces);

} // namespace ns3

#endif /* NS3_ALLREDUCE_SCHEDULER_RESULT_H */
