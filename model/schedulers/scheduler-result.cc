/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-result.h"

#include "scheduler-registry.h"

#include "ns3/size-limits.h"

#include <chrono>
#include <string>

namespace ns3
{

namespace
{
/// What scheduling and checking a plan holds at its peak per workload, rounded up from 487 bytes
/// (EvaluateScheduler).
constexpr uint64_t BYTES_PER_EVALUATED_WORKLOAD = 512;
} // namespace

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
    // A scheduler's own check counts its workloads; making the plan, bounding and validating
    // it hold about as much again twice over (peak 487 bytes a workload, greedy on
    // bcube(n=10,k=2): /usr/bin/time -f %M allreduce-rounds --topology=bcube:n=10,k=2).
    const uint64_t n = topology.GetNServers();
    const uint64_t workloads =
        SaturatingMultiply(SaturatingMultiply(2 * n, n > 0 ? n - 1 : 0), pieces);
    CheckMemory("scheduling and checking the " + std::to_string(workloads) + " workloads of '" +
                    topology.GetName() + "' (" + std::to_string(pieces) +
                    (pieces == 1 ? " piece" : " pieces") + " per chunk)",
                SaturatingMultiply(workloads, BYTES_PER_EVALUATED_WORKLOAD),
                "give a smaller topology or fewer pieces");
    const auto start = std::chrono::steady_clock::now();
    Plan plan = s->MakePlan(topology, pieces);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    SchedulerResult result = EvaluatePlan(std::move(plan));
    result.seconds = seconds;
    return result;
}

} // namespace ns3
