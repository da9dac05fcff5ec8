/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H
#define NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H

#include "allreduce-scheduler.h"
#include "candidate-trees.h"
#include "replay-scheduler.h"
#include "round-program.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * \return true when the module was built with COIN-OR CBC, so that the `optimal` scheduler
 *         can solve; false when CBC was not found at configure time
 */
bool IsOptimalSchedulerAvailable();

/**
 * \ingroup allreduce-schedulers
 * \return why the `optimal` scheduler cannot run and how to enable it (empty when it can)
 */
std::string GetOptimalSchedulerUnavailableReason();

/**
 * \ingroup allreduce-schedulers
 * What an exact search proved about the fewest rounds of some workloads.
 */
struct OptimalSearch
{
    /// The honest answer.
    enum Status
    {
        OPTIMAL,    //!< the schedule's rounds are proven the fewest possible (lower == upper)
        FEASIBLE,   //!< a schedule better than the heuristic's, not proven optimal
        TIME_LIMIT, //!< no better schedule than the heuristic's found in the time limit
    };

    Status status{TIME_LIMIT};   //!< see Status
    uint32_t lower{0};           //!< proven lower bound on the rounds
    uint32_t upper{0};           //!< rounds of the schedule returned
    RoundBounds bounds;          //!< the combinatorial bounds the search started from
    std::string heuristic;       //!< the heuristic whose schedule was the first upper bound
    uint32_t heuristicRounds{0}; //!< its rounds
    std::vector<uint32_t> infeasible; //!< round counts the integer program proved impossible
    std::vector<uint32_t> feasible;   //!< round counts for which it found a schedule
    std::vector<uint32_t> unknown;    //!< round counts left open when their time ran out
    uint32_t treesPerRoot{1};         //!< candidate flow trees per root offered
    uint32_t treeOptions{0};          //!< distinct (root, tree) choices in the program
    uint64_t variables{0};            //!< binaries of the largest program built
    uint64_t constraints{0};          //!< rows of the largest program built
    uint64_t nonzeros{0};             //!< coefficients of the largest program built
    double seconds{0};                //!< wall time of the whole search
    std::string note;                 //!< why the search stopped early, when not time or proof

    /// \return "optimal", "feasible" or "time-limit"
    std::string GetStatusName() const;
    /// \return "12" when proven, "[18, 21]" otherwise
    std::string GetInterval() const;
};

/**
 * \ingroup allreduce-schedulers
 * `optimal`: the fewest rounds, exactly, for the workloads in use (doc/allreduce.rst, "Rounds, the
 * round engine and bounds"), found with a time-indexed integer program solved by COIN-OR CBC.
 *
 * For a number of rounds T, a RoundProgram asks whether the workloads fit (one binary per
 * workload and round of its window; link, assignment and precedence rows). The search starts from the best heuristic schedule
 * (BalancedScheduler::ScheduleWorkloads on the same workloads) as the upper bound and the
 * bounds of ComputeBounds as the lower bound, and asks the program about the round counts in
 * between (the lower bound first, then by bisection) until they meet or TimeLimit is spent.
 *
 * With TreesPerRoot = K > 1 (merge workloads only), the program also chooses each root's flow
 * tree among K candidates: the shortest-path tree, then the trees of BuildBalancedTrees with
 * and without longer paths and more seeds (duplicates dropped); one binary per (root, tree)
 * choice, and a workload is scheduled exactly when its tree is chosen.
 *
 * It plans offline: MakePlan and Prepare do the search, and SelectRound replays the schedule
 * Prepare found (with a ReplayScheduler), so RunRounds(optimal, workloads) schedules any
 * workloads (ps or ring semantics too) but does not react to a state it did not plan for.
 * GetSearch tells the status and the interval.
 */
class OptimalScheduler : public AllReduceScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;
    void Prepare(const WorkloadSet& workloads) override;
    /// Replays the schedule Prepare found (this scheduler plans offline).
    void SelectRound(SchedulerState& state) override;
    Plan MakePlan(const Topology& topology, uint32_t pieces) override;

    /// \return what the last search proved
    const OptimalSearch& GetSearch() const;

  private:
    /**
     * The search over candidate workload sets (one per candidate tree set, or the one set of
     * fixed workloads).
     * \param candidates workloads per candidate tree set (same topology, semantics, pieces)
     * \param treeChoice whether candidate j's workloads of chunk r stand for root r's j-th
     *        tree (merge workloads, K > 1); otherwise there must be one candidate
     * \param[out] chosen per root, the candidate whose workloads of that chunk are used
     * \return per candidate, per workload, its round (NO_INDEX for workloads not chosen)
     */
    std::vector<std::vector<uint32_t>> Search(const std::vector<WorkloadSet>& candidates,
                                              bool treeChoice,
                                              std::vector<uint32_t>& chosen);
    /**
     * The first upper bound: balanced's list schedule of every candidate, the best kept.
     * \param candidates workloads per candidate tree set
     * \param[out] chosen per root, the candidate of that schedule
     * \return per candidate, per workload, its round in that schedule
     */
    std::vector<std::vector<uint32_t>> StartFromHeuristic(
        const std::vector<WorkloadSet>& candidates,
        std::vector<uint32_t>& chosen);
    /**
     * The choices the program has, and the bounds that hold for all of them.
     * \param candidates workloads per candidate tree set
     * \param treeChoice see Search
     * \return the instance (it points to candidates)
     */
    RoundProgramInstance MakeInstance(const std::vector<WorkloadSet>& candidates,
                                      bool treeChoice);
    /**
     * Asks the integer program about round counts between the bounds until they meet or the
     * time runs out.
     * \param inst the instance
     * \param start when the search started (TimeLimit counts from there)
     * \param[in,out] best per candidate, per workload, the round of the best schedule so far
     * \param[in,out] chosen per root, the candidate of the best schedule so far
     */
    void Bisect(const RoundProgramInstance& inst,
                std::chrono::steady_clock::time_point start,
                std::vector<std::vector<uint32_t>>& best,
                std::vector<uint32_t>& chosen);

    double m_timeLimit{60};     //!< TimeLimit attribute, seconds
    uint32_t m_treesPerRoot{1}; //!< TreesPerRoot attribute
    uint32_t m_seed{1};         //!< Seed attribute (candidate trees)
    uint64_t m_maxNonzeros{50000000}; //!< MaxNonzeros attribute
    OptimalSearch m_search;     //!< what the last search proved
    Ptr<ReplayScheduler> m_replay{CreateObject<ReplayScheduler>()}; //!< replays Prepare's plan
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H */
