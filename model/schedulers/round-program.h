/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUND_PROGRAM_H
#define NS3_ALLREDUCE_ROUND_PROGRAM_H

#include "ns3/workload.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * What the exact search may choose among: candidate workload sets on one topology (one per
 * candidate flow-tree set, or the one set of fixed workloads), which of them each root may
 * use, and which workloads enter the program.
 */
struct RoundProgramInstance
{
    const std::vector<WorkloadSet>* sets{nullptr}; //!< the candidates; must outlive the program
    bool treeChoice{false}; //!< whether candidate j's workloads of chunk r are root r's j-th tree
    uint32_t roots{0};      //!< the number of roots (servers)
    /// per root, the distinct candidates offered (the first of each group of equal trees)
    std::vector<std::vector<uint32_t>> options;
    /// per candidate, per workload: whether it is in the program (its root offers the candidate)
    std::vector<std::vector<bool>> active;
    /// per directed link, its class: the workloads in the program on the links of one class
    /// share one round at most one at a time (empty: every link its own class; a symmetric
    /// program, ScheduleSymmetrically: the orbits of the links)
    std::vector<uint32_t> linkClass;
};

/**
 * \ingroup allreduce-schedulers
 * The time-indexed integer program that asks whether the workloads fit in T rounds
 * (doc/allreduce.rst, "The exact scheduler"), solved with COIN-OR CBC.
 *
 * One binary x[w,t] per workload w and round t in w's window (from its depth, the dependency
 * chain before it, to T minus its height, the chain that starts with it); with tree choice,
 * one binary z[r,j] per root r and candidate j it offers. Rows: every workload in exactly one
 * round (or, with tree choice, in one round exactly when its tree is chosen); one tree per
 * root; at most one workload per directed link per round; a workload strictly after each
 * dependency, in the cumulative form sum_{s<=t} x[w,s] <= sum_{s<t} x[d,s].
 *
 * Solve runs CBC in this process under a watchdog thread: at the deadline the watchdog raises
 * a flag that CBC's and Clp's event handlers read, so the root LP, the heuristics and the
 * branch and bound all stop, and the answer is UNKNOWN. An answer of INFEASIBLE is only taken
 * from a solve that the deadline did not stop.
 */
class RoundProgram
{
  public:
    /// What the program said about T rounds.
    enum Answer
    {
        FEASIBLE,   //!< a schedule in at most T rounds was found
        INFEASIBLE, //!< proven: no schedule in T rounds
        UNKNOWN,    //!< the time ran out first
    };

    /// The outcome of Solve.
    struct Outcome
    {
        Answer answer{UNKNOWN};                     //!< see Answer
        std::vector<std::vector<uint32_t>> roundOf; //!< per candidate, per workload (FEASIBLE)
        std::vector<uint32_t> chosen;               //!< per root, its candidate (FEASIBLE)
        uint64_t variables{0};                      //!< binaries
        uint64_t constraints{0};                    //!< rows
        uint64_t nonzeros{0};                       //!< coefficients (an estimate if too large)
        bool tooLarge{false}; //!< not built: more non-zeros than the cap
        double seconds{0};    //!< wall time of the build and the solve
    };

    /// \return true when the module was built with COIN-OR CBC, so that Solve can run
    static bool IsSolverAvailable();

    /**
     * \param instance the choices; must outlive the program
     * \param rounds T, the number of rounds asked about
     */
    RoundProgram(const RoundProgramInstance& instance, uint32_t rounds);

    /**
     * Builds the program (unless it would have more than maxNonzeros coefficients) and solves
     * it.
     * \param seconds the wall time the solve may take
     * \param maxNonzeros the largest program built
     * \return the outcome
     * \throws std::runtime_error when the module was built without CBC
     */
    Outcome Solve(double seconds, uint64_t maxNonzeros);

  private:
    /// The program in compressed row form, as CBC loads it.
    struct Rows
    {
        std::vector<int64_t> start{0}; //!< where each row's coefficients begin
        std::vector<int> index;        //!< column of each coefficient
        std::vector<double> value;     //!< each coefficient
        std::vector<double> lower;     //!< each row's lower bound
        std::vector<double> upper;     //!< each row's upper bound
    };

    /**
     * Rules out the options whose workloads have an empty window.
     * \return false when T rounds are impossible for this reason alone
     */
    bool RuleOutEmptyWindows();
    /**
     * Numbers the variables: z per (root, option) when a root has two options or more, then
     * x per workload and round of its window.
     * \param maxNonzeros the cap
     * \param[out] out the sizes, and tooLarge when the cap is passed
     * \return false when the program is not built (infeasible or too large)
     */
    bool NumberVariables(uint64_t maxNonzeros, Outcome& out);
    /// \return an estimate of the coefficients, before any is built (the precedence rows
    ///         dominate: a dependency with a window of W rounds adds about W^2)
    uint64_t EstimateNonzeros() const;
    /// \return whether workload w of candidate j is in the program
    bool InProgram(uint32_t j, uint32_t w) const;
    /// \return the first round of workload w of candidate j
    uint32_t First(uint32_t j, uint32_t w) const;
    /// \return the last round of workload w of candidate j
    uint32_t Last(uint32_t j, uint32_t w) const;
    /// \return the number of rounds in the window of workload w of candidate j (for a workload
    ///         RuleOutEmptyWindows kept in the program)
    uint64_t Window(uint32_t j, uint32_t w) const;
    /// \return the column of x[w,t] for workload w of candidate j
    int X(uint32_t j, uint32_t w, uint32_t t) const;

    /// Adds the row lower <= sum of the pending coefficients <= upper.
    void AddRow(double lower, double upper);
    /// Every workload in exactly one round (when its tree is chosen).
    void AddAssignmentRows();
    /// One tree per root.
    void AddTreeRows();
    /// At most one workload per directed link per round.
    void AddLinkRows();
    /// Strictly after each dependency.
    void AddPrecedenceRows();
    /// \return the objective: the sum of the workloads' rounds (it steers CBC's heuristics
    ///         toward early, compact rounds; any schedule in T rounds answers the question)
    std::vector<double> MakeObjective() const;
    /**
     * Solves the rows built with CBC, in this thread, stopped by a watchdog at the deadline.
     * \param deadline when the watchdog stops CBC
     * \param[out] ones the columns at 1 (FEASIBLE)
     * \return the answer
     */
    Answer RunCbc(std::chrono::steady_clock::time_point deadline, std::vector<int>& ones) const;
    /**
     * \param ones the columns at 1 in CBC's solution
     * \param[out] out the rounds and chosen trees
     * \return false when a workload of a chosen tree got no round (not a schedule)
     */
    bool ReadSolution(const std::vector<int>& ones, Outcome& out) const;

    const RoundProgramInstance& m_instance; //!< the choices
    const std::vector<WorkloadSet>& m_sets; //!< the candidates
    uint32_t m_rounds;                      //!< T
    std::vector<std::vector<bool>> m_optionOk;   //!< per root, per candidate: still possible
    std::vector<std::vector<int>> m_zColumn;     //!< per root, per candidate: z's column or -1
    std::vector<std::vector<int>> m_xBase;       //!< per candidate, per workload: x[w,First]
    int m_columns{0};                            //!< the number of variables
    Rows m_rows;                                 //!< the rows built
    std::vector<int> m_pendingIndex;             //!< the row being built: columns
    std::vector<double> m_pendingValue;          //!< the row being built: coefficients
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUND_PROGRAM_H */
