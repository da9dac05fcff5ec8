/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SYMMETRIC_PROGRAM_H
#define NS3_ALLREDUCE_SYMMETRIC_PROGRAM_H

#include "round-program.h"

#include "ns3/plan.h"
#include "ns3/server-translations.h"
#include "ns3/topology.h"

#include <optional>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * What ScheduleSymmetrically found.
 */
struct SymmetricProgramResult
{
    RoundProgram::Answer answer{RoundProgram::UNKNOWN}; //!< the program's answer for the rounds
    std::optional<Plan> plan; //!< the schedule when FEASIBLE (validated)
    uint64_t variables{0};    //!< binaries of the program
    double seconds{0};        //!< wall time
};

/**
 * \ingroup allreduce-schedulers
 * The exact program restricted to schedules that the topology's translations copy
 * (doc/allreduce.rst, "The exact scheduler: optimal"): on the workloads of a plan whose trees
 * the translations copy (a symmetric plan of drl), one binary per workload of a representative
 * root and round, at most one workload per orbit of directed links and round (a workload's
 * images under the group use every link of the orbit), the dependencies as in RoundProgram.
 * A schedule of the representatives' workloads, copied by the group, is a schedule of all.
 * The program is the group's size times smaller than RoundProgram on the same workloads; an
 * INFEASIBLE answer is about symmetric schedules on these trees only.
 * \param topology the topology
 * \param translations its translations (not empty)
 * \param plan a plan whose workloads are closed under the translations
 * \param rounds T, the rounds asked about
 * \param seconds the wall time the solve may take
 * \return the answer, and the expanded plan (validated) when FEASIBLE
 * \throws std::invalid_argument when the plan's workloads are not copies by the translations
 */
SymmetricProgramResult ScheduleSymmetrically(const Topology& topology,
                                             const ServerTranslations& translations,
                                             const Plan& plan,
                                             uint32_t rounds,
                                             double seconds);

} // namespace ns3

#endif /* NS3_ALLREDUCE_SYMMETRIC_PROGRAM_H */
