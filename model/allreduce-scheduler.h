/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H
#define NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H

#include "round-engine.h"
#include "scheduler-state.h"
#include "schedule.h"
#include "workload.h"

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * The workloads a scheduler chose to build and the schedule it made for them.
 */
struct Plan
{
    WorkloadSet workloads; //!< the workloads (semantics, trees)
    Schedule schedule;     //!< their rounds
};

/**
 * \ingroup allreduce
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
 * TypeId, and either create it by TypeId name or call RegisterScheduler to give it a short
 * name.
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
 * \ingroup allreduce
 * Runs a scheduler over given workloads on a fresh RoundEngine until every workload is done.
 * \param scheduler the scheduler (Prepare is called first)
 * \param workloads the workloads
 * \return the schedule
 * \throws std::runtime_error naming the scheduler and round when it stalls or breaks a rule
 */
Schedule RunRounds(AllReduceScheduler& scheduler, const WorkloadSet& workloads);

/**
 * \ingroup allreduce
 * Makes a short name known to CreateScheduler and ListSchedulers.
 * \param name short name (letters, digits, '-', '_')
 * \param typeId the TypeId name of an AllReduceScheduler subclass, e.g. "ns3::GreedyScheduler"
 * \param description one line for --list-schedulers
 * \throws std::invalid_argument for a taken name or a TypeId that is not a AllReduceScheduler
 */
void RegisterScheduler(const std::string& name,
                       const std::string& typeId,
                       const std::string& description);

/**
 * \ingroup allreduce
 * \return (name, description) of every registered scheduler, built-ins first
 */
std::vector<std::pair<std::string, std::string>> ListSchedulers();

/**
 * \ingroup allreduce
 * \param name a registered short name ("ps", "ring", "greedy", ...) or a TypeId name of a
 *        AllReduceScheduler subclass
 * \return a new scheduler
 * \throws std::invalid_argument naming the available schedulers when there is no such one
 */
Ptr<AllReduceScheduler> CreateScheduler(const std::string& name);

/**
 * \ingroup allreduce
 * \param roundOf per workload, its round (NO_INDEX for none); rounds may have gaps
 * \return the rounds in order, with empty rounds dropped
 */
Schedule CompactRounds(const std::vector<uint32_t>& roundOf);

/**
 * \ingroup allreduce
 * The plan of a schedule that chose, per root, one of several candidate flow trees: the merge
 * workloads on the chosen trees, and their rounds taken from the candidates' workloads.
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

/**
 * \ingroup allreduce
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
 * \ingroup allreduce
 * Computes a plan's bounds and validates it (for a plan from a scheduler or a file).
 * \param plan the workloads and schedule
 * \return the result (seconds left at 0)
 */
SchedulerResult EvaluatePlan(Plan plan);

/**
 * \ingroup allreduce
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
 * \ingroup allreduce
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

#endif /* NS3_ALLREDUCE_ALLREDUCE_SCHEDULER_H */
