/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H
#define NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H

#include "allreduce-scheduler.h"
#include "candidate-trees.h"
#include "replay-scheduler.h"
#include "round-program.h"

#include "ns3/traced-callback.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
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
        OPTIMAL,    //!< the rounds are proven the fewest of any schedule (lower == upper)
        FEASIBLE,   //!< none fewer on the candidate trees, the optimum in [lower, upper]
        TIME_LIMIT, //!< the time ran out before the program settled its candidate trees
    };

    Status status{TIME_LIMIT}; //!< see Status
    /// proven lower bound on the rounds of every schedule of the instance: for MakePlan, of
    /// any AllReduce on the topology (whatever its trees or semantics); for Prepare, of these
    /// workloads
    uint32_t lower{0};
    uint32_t upper{0};         //!< rounds of the schedule returned
    /// proven lower bound on the rounds on the candidate trees the program chooses among (the
    /// bounds and the counts it proved infeasible); at least lower, and above upper when the
    /// start plan, on other trees, beats every schedule on the candidates
    uint32_t candidateLower{0};
    RoundBounds bounds;          //!< the combinatorial bounds the search started from
    std::string heuristic;       //!< who found the first upper bound (a scheduler's name)
    uint32_t heuristicRounds{0}; //!< its rounds
    std::vector<std::string> started; //!< what each scheduler of StartFrom found ("drl 8")
    std::vector<uint32_t> infeasible; //!< round counts the integer program proved impossible
    std::vector<uint32_t> feasible;   //!< round counts for which it found a schedule
    std::vector<uint32_t> unknown;    //!< round counts left open when their time ran out
    uint32_t treesPerRoot{1}; //!< candidate flow trees per root offered (0: no program ran)
    uint32_t treeOptions{0};          //!< distinct (root, tree) choices in the program
    uint64_t variables{0};            //!< binaries of the largest program built
    uint64_t constraints{0};          //!< rows of the largest program built
    uint64_t nonzeros{0};             //!< coefficients of the largest program built
    double seconds{0};                //!< wall time of the whole search, start plans included
    double startSeconds{0};           //!< wall time of StartFrom's plans (besides balanced)
    std::string note;                 //!< why the search stopped early, when not time or proof

    /// \return "optimal", "feasible" or "time-limit"
    std::string GetStatusName() const;
    /// \return "12" when proven, "[18, 21]" otherwise
    std::string GetInterval() const;
    /// \return what the program proved on its candidate trees: "12" when it settled them,
    ///         "[11, 12]" when not, "at least 40" when the start on other trees beats them
    std::string GetCandidateInterval() const;
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
 * MakePlan starts from the best plan of the schedulers StartFrom names (drl's, for one, on
 * trees of its own), and the search keeps whichever is better: that plan or the program's.
 * Its status is optimal only when the rounds meet a lower bound that holds for every
 * AllReduce on the topology (ComputeCertifiedBound), so that no scheduler can do better;
 * what the program proved on its candidate trees alone is candidateLower.
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

    /**
     * Adds a plan found elsewhere to the start plans of the next MakePlan (which uses it once),
     * for example the best of the other schedulers a table ran on the same topology.
     * \param plan the plan: the same topology and pieces as MakePlan's (checked there, and by
     *        the validator)
     * \param who who found it (the report names it)
     */
    void AddStartPlan(Plan plan, const std::string& who);

    /**
     * TracedCallback signature of a start scheduler about to make its plan.
     * \param scheduler the scheduler StartFrom names, made for this MakePlan: connect to its
     *        own trace sources here (drl's SearchProgress, say) to follow a long start
     */
    typedef void (*StartSchedulerCallback)(Ptr<AllReduceScheduler> scheduler);

  private:
    /**
     * The search over candidate workload sets (one per candidate tree set, or the one set of
     * fixed workloads).
     * \param candidates workloads per candidate tree set (same topology, semantics, pieces)
     * \param treeChoice whether candidate j's workloads of chunk r stand for root r's j-th
     *        tree (merge workloads, K > 1); otherwise there must be one candidate
     * \param[out] chosen per root, the candidate whose workloads of that chunk are used
     * \param start when the search started (TimeLimit counts from there)
     * \param cap rounds of a schedule found elsewhere: the program asks only about fewer
     * \param capName who found it
     * \return per candidate, per workload, its round (NO_INDEX for workloads not chosen);
     *         m_search.upper is the fewer of cap and these rounds
     */
    std::vector<std::vector<uint32_t>> Search(const std::vector<WorkloadSet>& candidates,
                                              bool treeChoice,
                                              std::vector<uint32_t>& chosen,
                                              std::chrono::steady_clock::time_point start,
                                              uint32_t cap,
                                              const std::string& capName);
    /**
     * Runs the schedulers of StartFrom and keeps the best valid plan.
     * \param topology the topology
     * \param pieces pieces per chunk
     * \param[out] best the best plan found (untouched when none)
     * \return its rounds (NO_INDEX when none ran)
     */
    uint32_t RunStartSchedulers(const Topology& topology, uint32_t pieces, Plan& best);
    /**
     * Runs the round logic of StartFrom's schedulers on given workloads (Prepare) and keeps the
     * fewest rounds, so that on any workloads `optimal` is never above them.
     * \param workloads the workloads
     * \param[out] best the best schedule found (untouched when none)
     * \return its rounds (NO_INDEX when none ran)
     */
    uint32_t RunStartRounds(const WorkloadSet& workloads, Schedule& best);
    /**
     * Notes a start's rounds in the search's `started` and, where they are the fewest so far,
     * makes it the start (RunStartSchedulers and RunStartRounds).
     * \param who the start's name \param rounds its rounds
     * \param[in,out] bestRounds the fewest so far, lowered to rounds when fewer
     * \return whether it is the new best (the caller then keeps it)
     */
    bool NoteStart(const std::string& who, uint32_t rounds, uint32_t& bestRounds);
    /**
     * Runs one of StartFrom's schedulers. An error of bad input or an unmet need (drl without
     * its files) is refused under a StartFrom that names it and noted under auto.
     * \param name the scheduler \param run what to do with it
     * \return false when it could not run (auto)
     */
    bool TryStartScheduler(const std::string& name,
                           const std::function<void(AllReduceScheduler&)>& run);
    /**
     * Where servers reach each other through switches only, asks the flat-tree search
     * (SearchFlatSchedule) for fewer rounds than the start's, two fewer at a time, down to
     * the certified bound or the first count it cannot find; without a start plan, for the
     * even counts from the certified bound up, four at most, until one is found.
     * \param topology the topology
     * \param pieces pieces per chunk (the search runs for 1)
     * \param certified the certified bound
     * \param[in,out] best the best plan so far
     * \param[in,out] bestRounds its rounds (NO_INDEX: none)
     */
    void SearchFlatTrees(const Topology& topology,
                         uint32_t pieces,
                         uint32_t certified,
                         Plan& best,
                         uint32_t& bestRounds);
    /**
     * The exact program restricted to symmetric schedules (ScheduleSymmetrically) on the best
     * plan's workloads, where the topology has translations that copy them (a symmetric plan of
     * drl): fewer rounds one at a time, down to the certified bound, until a count is proven
     * infeasible on those trees or SymmetricShare of TimeLimit has passed.
     * \param topology the topology
     * \param certified the certified bound
     * \param[in,out] best the best plan so far
     * \param[in,out] bestRounds its rounds (NO_INDEX: none)
     */
    void SearchSymmetric(const Topology& topology,
                         uint32_t certified,
                         Plan& best,
                         uint32_t& bestRounds);
    /// \return the names StartFrom gives ("auto": every available scheduler but optimal;
    ///         "none": no scheduler, only the plans of AddStartPlan)
    std::vector<std::string> GetStartNames() const;
    /// Sets the status from lower, upper and the start's rounds.
    void SetStatus();
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
    std::string m_startFrom{"auto"};  //!< StartFrom attribute
    uint64_t m_flatMoves{300000};     //!< FlatSearchMoves attribute
    double m_symmetricShare{0.5};     //!< SymmetricShare attribute
    std::vector<std::pair<Plan, std::string>> m_given; //!< AddStartPlan's plans, and who
    TracedCallback<Ptr<AllReduceScheduler>> m_startScheduler; //!< StartScheduler trace source
    OptimalSearch m_search;     //!< what the last search proved
    Ptr<ReplayScheduler> m_replay{CreateObject<ReplayScheduler>()}; //!< replays Prepare's plan
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_OPTIMAL_SCHEDULER_H */
