/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H
#define NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H

#include "ns3/object.h"
#include "ns3/plan.h"
#include "ns3/ptr.h"
#include "ns3/scheduler-state.h"
#include "ns3/workload.h"

#include <optional>
#include <string>

namespace ns3
{

/**
 * \defgroup allreduce-schedulers Schedulers
 * \ingroup allreduce
 * The scheduler hook (AllReduceScheduler) and the schedulers behind it: ps, ring, greedy, balanced,
 * replay and the exact optimal (doc/allreduce.rst, "Schedulers").
 */

/**
 * \ingroup allreduce-schedulers
 * The scheduler hook (doc/allreduce.rst, "Schedulers"): one interface for every scheduler, flow
 * level and packet level, in the shape of ns-3's TcpCongestionOps. A scheduler
 *  - builds the workloads it schedules (MakeWorkloads: which semantics, which flow trees);
 *  - is told once which workloads it will schedule (Prepare);
 *  - at each decision point sees a SchedulerState (ready workloads, links in use and down,
 *    what is done, round index, time) and starts the workloads it chooses (SelectRound).
 * MakePlan runs the whole thing on a RoundEngine; a scheduler that searches offline (tries
 * several tree sets or episodes, keeps the best) overrides it. A scheduler that can only plan
 * offline (`optimal`) replays its plan in SelectRound with a ReplayScheduler.
 *
 * To add a scheduler: derive from AllReduceScheduler (or PriorityListScheduler), give it a
 * TypeId, and either create it by TypeId name or give it a short name (a SchedulerRegistration
 * in its file, or RegisterScheduler at run time; scheduler-registry.h).
 */
class AllReduceScheduler : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \return the short name (as on the command line)
    virtual std::string GetName() const = 0;

    /**
     * \param topology the topology
     * \param pieces pieces per chunk
     * \return the workloads this scheduler schedules; the default is the merge semantics on
     *         the shortest-path flow trees
     */
    virtual WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces);

    /**
     * Called once before the first round.
     * \param workloads the workloads to schedule (they outlive the run)
     */
    virtual void Prepare(const WorkloadSet& workloads);

    /**
     * Decides at a decision point: starts the workloads it wants now with state.Start, in
     * order, on whatever state it is given (at flow level a round being built, possibly with
     * workloads already started; inside ns-3 the simulation's state). Starting nothing is
     * allowed where the engine can wait (packet level); RunRounds refuses an empty round.
     * \param state what the scheduler sees, and where it starts workloads
     */
    virtual void SelectRound(SchedulerState& state) = 0;

    /**
     * Builds the workloads and schedules them round by round on a RoundEngine.
     * \param topology the topology
     * \param pieces pieces per chunk
     * \return the workloads and the schedule
     * \throws std::runtime_error when the scheduler returns an empty or invalid round
     */
    virtual Plan MakePlan(const Topology& topology, uint32_t pieces);
};

/**
 * \ingroup allreduce-schedulers
 * Runs a scheduler over given workloads on a fresh RoundEngine until every workload is done.
 * \param scheduler the scheduler (Prepare is called first)
 * \param workloads the workloads
 * \return the schedule
 * \throws std::runtime_error naming the scheduler and round when it stalls or breaks a rule
 */
Schedule RunRounds(AllReduceScheduler& scheduler, const WorkloadSet& workloads);

/**
 * \ingroup allreduce-schedulers
 * Runs a scheduler as RunRounds does, but gives up once its schedule cannot have fewer rounds
 * than a given number (the rounds so far and what the servers' ports need for the workloads
 * servers send that have not started): for searches that keep the shortest of several
 * schedules.
 * \param scheduler the scheduler (Prepare is called first)
 * \param workloads the workloads
 * \param beat the rounds to beat
 * \return the schedule, or nothing when it would take beat rounds or more
 * \throws std::runtime_error as RunRounds
 */
std::optional<Schedule> RunRoundsUnder(AllReduceScheduler& scheduler,
                                       const WorkloadSet& workloads,
                                       uint32_t beat);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H */
