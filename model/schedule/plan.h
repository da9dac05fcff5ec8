/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PLAN_H
#define NS3_ALLREDUCE_PLAN_H

#include "schedule.h"

#include "ns3/flow-tree.h"
#include "ns3/workload.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedule
 * The workloads a scheduler chose to build and the schedule it made for them.
 */
struct Plan
{
    WorkloadSet workloads; //!< the workloads (semantics, trees)
    Schedule schedule;     //!< their rounds
};

/**
 * \ingroup allreduce-schedule
 * \param roundOf per workload, its round (NO_INDEX for none); rounds may have gaps
 * \return the rounds in order, with empty rounds dropped
 */
Schedule CompactRounds(const std::vector<uint32_t>& roundOf);

/**
 * \ingroup allreduce-schedule
 * The inverse of CompactRounds.
 * \param schedule a schedule \param n its workloads
 * \return per workload, its round (NO_INDEX for none)
 * \throws std::invalid_argument when the schedule names a workload id >= n
 */
std::vector<uint32_t> RoundOfEachWorkload(const Schedule& schedule, uint32_t n);

/**
 * \ingroup allreduce-schedule
 * Keeps, in each round, only some workloads, renumbered as a WorkloadSet::Keep of the same ids
 * renumbers them; every round stays, empty or not (a rank of a distributed run keeps its part).
 * \param rounds per round, workload ids \param kept the ids kept, ascending
 */
void KeepInRounds(std::vector<std::vector<uint32_t>>& rounds, const std::vector<uint32_t>& kept);

/**
 * \ingroup allreduce-schedule
 * The plan of a schedule that chose, per root, one of several candidate flow trees: the merge
 * workloads on the chosen trees, and their rounds taken from the candidates' workloads. With
 * aggregating switches, where candidate sets may merge at different switches on equal trees,
 * the chosen set's workloads of every root are taken as they are.
 * \param trees per candidate set, one flow tree per root
 * \param candidates per candidate set, its workloads (WorkloadSet::Build of that set)
 * \param chosen per root, the candidate set whose tree it uses
 * \param roundOf per candidate set, per workload, its round (NO_INDEX when not used)
 * \return the workloads on the chosen trees and their schedule
 * \throws std::logic_error when a workload of a chosen tree has no round
 */
Plan MakeTreeChoicePlan(const std::vector<std::vector<FlowTree>>& trees,
                        const std::vector<WorkloadSet>& candidates,
                        const std::vector<uint32_t>& chosen,
                        const std::vector<std::vector<uint32_t>>& roundOf);

} // namespace ns3

#endif /* NS3_ALLREDUCE_PLAN_H */
