/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_REPLAY_SCHEDULER_H
#define NS3_ALLREDUCE_REPLAY_SCHEDULER_H

#include "allreduce-scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * `replay`: runs a plan made beforehand, a schedule file's or an offline planner's (the
 * `optimal` scheduler replays its solution with one). It decides nothing. At each decision
 * point, in the order of Order:
 *  - ROUNDS: it starts the workloads of the first planned round not yet wholly started that
 *    the state lets start. On a RoundEngine driven from the start this is the plan, round for
 *    round; the packet-level controller replays barrier runs so. With WorkAhead, when that
 *    round cannot start whole now, it also starts what of later rounds a barrier waits for
 *    anyway (as PriorityListScheduler's FollowPlanWhenLate does; `drl` follows its plans so).
 *  - LIST: it starts every ready workload the state lets start, in plan order (round by round,
 *    then in the order within the round), whatever its round: the packet-level controller
 *    replays async runs so.
 *
 * Attribute File: a schedule file (doc/allreduce.rst, "Validator and schedule files") whose
 * plan MakePlan returns, after checking that its topology and pieces are the ones asked for, on
 * the topology asked for (its name, and its links' rates and delays, which a file does not hold).
 * SetPlan and SetSchedule give the plan directly.
 */
class ReplayScheduler : public AllReduceScheduler
{
  public:
    /// In which order the plan is replayed.
    enum Order
    {
        ROUNDS, //!< the first round not wholly started
        LIST,   //!< every ready workload, in plan order
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    std::string GetName() const override;
    WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces) override;
    void Prepare(const WorkloadSet& workloads) override;
    void SelectRound(SchedulerState& state) override;
    Plan MakePlan(const Topology& topology, uint32_t pieces) override;

    /**
     * \param plan the workloads and the rounds to replay
     */
    void SetPlan(Plan plan);
    /// \param order the order of the replay (the Order attribute)
    void SetOrder(Order order);
    /// \param workAhead the WorkAhead attribute
    void SetWorkAhead(bool workAhead);
    /**
     * The rounds to replay over the workloads Prepare will be given.
     * \param schedule the rounds
     */
    void SetSchedule(Schedule schedule);
    /// \return the plan (read from File on first use)
    const Plan& GetPlan();
    /**
     * \param state the state the plan is replayed on
     * \return the frontier: the first planned round not wholly started or done in the state,
     *         the one ROUNDS replays next (the number of rounds once every one is)
     */
    uint32_t GetFrontier(const SchedulerState& state);

  private:
    /**
     * \param topology the topology asked for
     * \param pieces the pieces asked for
     * \return the plan, read from File when not given
     * \throws std::invalid_argument when there is no plan or it is for another topology or
     *         another number of pieces
     */
    const Plan& GetPlanFor(const Topology& topology, uint32_t pieces);
    /**
     * WorkAhead: starts ready workloads planned after the frontier, in plan order, that are
     * no longer than its longest.
     * \param state the state \param frontier the frontier round \param longest its longest
     *        transfer (SchedulerState::GetTransferLength)
     */
    void StartAhead(SchedulerState& state, uint32_t frontier, double longest);
    /// \param state the state \return its ready workloads, in plan order (those the plan
    ///        does not name last)
    std::vector<uint32_t> GetReadyInPlanOrder(const SchedulerState& state) const;

    std::string m_file;     //!< File attribute
    std::string m_loaded;   //!< the file m_plan was read from
    Plan m_plan;            //!< what is replayed
    bool m_hasPlan{false};  //!< whether m_plan was set or read
    uint32_t m_next{0};     //!< first planned round not wholly started
    Order m_order{ROUNDS};  //!< Order attribute
    bool m_workAhead{false}; //!< WorkAhead attribute
    std::vector<uint32_t> m_position; //!< per workload, its place in plan order (Prepare)
    std::vector<uint32_t> m_roundOf;  //!< per workload, its planned round (Prepare)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_REPLAY_SCHEDULER_H */
