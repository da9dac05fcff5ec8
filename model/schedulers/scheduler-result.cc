/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-result.h"

#include "scheduler-registry.h"

#include <chrono>

namespace ns3
{

double
SchedulerResult::GetRatio() const
{
    return bounds.bandwidth == 0 ? 0.0
                                 : static_cast<double>(plan.schedule.GetNRounds()) /
                                       bounds.bandwidth;
}

SchedulerResult
EvaluatePlan(Plan plan)
{
    SchedulerResult result;
    result.plan = std::move(plan);
    result.bounds = ComputeBounds(result.plan.workloads);
    result.check = ValidateSchedule(result.plan.workloads, result.plan.schedule);
    return result;
}

SchedulerResult
EvaluateScheduler(const Topology& topology, const std::string& scheduler, uint32_t pieces)
{
    return EvaluateScheduler(topology, CreateScheduler(scheduler), pieces);
}

SchedulerResult
EvaluateScheduler(const Topology& topology, Ptr<AllReduceScheduler> s, uint32_t pieces)
{
    const auto start = std::chrono::steady_clock::now();
    Plan plan = s->MakePlan(topology, pieces);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SchedulerResult result = EvaluatePlan(std::move(plan));
    result.seconds = seconds;
    return result;
}

} // namespace ns3
