/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-program.h"

#include "ns3/log.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#ifdef ALLREDUCE_HAVE_CBC
#include <coin/CbcEventHandler.hpp>
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/ClpEventHandler.hpp>
#include <coin/ClpSolve.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoundProgram");

namespace
{

#ifdef ALLREDUCE_HAVE_CBC

/// Clp's side of the stop: ends the simplex at its next iteration once the flag is up.
class ClpStop : public ClpEventHandler
{
  public:
    /// \param stop the flag the watchdog raises
    explicit ClpStop(const std::atomic<bool>* stop)
        : m_stop(stop)
    {
    }

    int event(Event whichEvent) override
    {
        const bool loop = whichEvent == endOfIteration || whichEvent == endOfFactorization;
        return loop && m_stop->load(std::memory_order_relaxed) ? 0 : -1;
    }

    ClpEventHandler* clone() const override
    {
        return new ClpStop(*this);
    }

  private:
    const std::atomic<bool>* m_stop; //!< the watchdog's flag
};

/// CBC's side of the stop: ends the search (and its heuristics' small searches) once the flag
/// is up.
class CbcStop : public CbcEventHandler
{
  public:
    /// \param stop the flag the watchdog raises
    explicit CbcStop(const std::atomic<bool>* stop)
        : m_stop(stop)
    {
    }

    CbcAction event(CbcEvent) override
    {
        return m_stop->load(std::memory_order_relaxed) ? stop : noAction;
    }

    CbcEventHandler* clone() const override
    {
        return new CbcStop(*this);
    }

  private:
    const std::atomic<bool>* m_stop; //!< the watchdog's flag
};

/**
 * Raises a flag at a deadline from a thread of its own, unless it is destroyed first (the
 * solve returned). The solve itself stays in the caller's thread.
 */
class Watchdog
{
  public:
    /// \param seconds the time until the flag goes up
    explicit Watchdog(double seconds)
        : m_thread([this, seconds]() {
              std::unique_lock<std::mutex> lock(m_mutex);
              if (!m_done.wait_for(lock,
                                   std::chrono::duration<double>(seconds),
                                   [this]() { return m_finished; }))
              {
                  m_stop.store(true);
              }
          })
    {
    }

    ~Watchdog()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_finished = true;
        }
        m_done.notify_one();
        m_thread.join();
    }

    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    /// \return the flag the handlers read
    const std::atomic<bool>* GetFlag() const
    {
        return &m_stop;
    }

    /// \return whether the deadline passed
    bool HasFired() const
    {
        return m_stop.load();
    }

  private:
    std::atomic<bool> m_stop{false}; //!< up at the deadline
    std::mutex m_mutex;              //!< guards m_finished
    std::condition_variable m_done;  //!< wakes the watchdog when the solve returns
    bool m_finished{false};          //!< the solve returned
    std::thread m_thread;            //!< the watchdog (started last: it uses the members above)
};

#endif // ALLREDUCE_HAVE_CBC

} // namespace

bool
RoundProgram::IsSolverAvailable()
{
#ifdef ALLREDUCE_HAVE_CBC
    return true;
#else
    return false;
#endif
}

RoundProgram::RoundProgram(const RoundProgramInstance& instance, uint32_t rounds)
    : m_instance(instance),
      m_sets(*instance.sets),
      m_rounds(rounds)
{
}

bool
RoundProgram::InProgram(uint32_t j, uint32_t w) const
{
    if (!m_instance.active[j][w])
    {
        return false;
    }
    return !m_instance.treeChoice || m_optionOk[m_sets[j].Get(w).chunk][j];
}

uint32_t
RoundProgram::First(uint32_t j, uint32_t w) const
{
    return m_sets[j].GetDepth(w);
}

uint32_t
RoundProgram::Last(uint32_t j, uint32_t w) const
{
    return m_rounds - m_sets[j].GetHeight(w);
}

uint64_t
RoundProgram::Window(uint32_t j, uint32_t w) const
{
    return Last(j, w) - First(j, w) + 1;
}

int
RoundProgram::X(uint32_t j, uint32_t w, uint32_t t) const
{
    return m_xBase[j][w] + static_cast<int>(t - First(j, w));
}

bool
RoundProgram::RuleOutEmptyWindows()
{
    const auto nSets = static_cast<uint32_t>(m_sets.size());
    m_optionOk.assign(m_instance.roots, std::vector<bool>(nSets, false));
    for (uint32_t r = 0; r < m_instance.roots; ++r)
    {
        for (uint32_t j : m_instance.options[r])
        {
            m_optionOk[r][j] = true;
        }
    }
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            const uint32_t h = m_sets[j].GetHeight(w);
            if (m_instance.active[j][w] && (h > m_rounds || First(j, w) > m_rounds - h))
            {
                if (!m_instance.treeChoice)
                {
                    return false;
                }
                m_optionOk[m_sets[j].Get(w).chunk][j] = false;
            }
        }
    }
    for (uint32_t r = 0; r < m_instance.roots; ++r)
    {
        const auto& options = m_instance.options[r];
        if (std::none_of(options.begin(), options.end(), [&](uint32_t j) {
                return m_optionOk[r][j];
            }))
        {
            return false;
        }
    }
    return true;
}

bool
RoundProgram::NumberVariables(uint64_t maxNonzeros, Outcome& out)
{
    const auto nSets = static_cast<uint32_t>(m_sets.size());
    m_columns = 0;
    m_zColumn.assign(m_instance.roots, std::vector<int>(nSets, -1));
    for (uint32_t r = 0; r < m_instance.roots; ++r)
    {
        if (m_instance.treeChoice && m_instance.options[r].size() > 1)
        {
            for (uint32_t j : m_instance.options[r])
            {
                if (m_optionOk[r][j])
                {
                    m_zColumn[r][j] = m_columns++;
                }
            }
        }
    }
    const uint64_t cap = std::min<uint64_t>(maxNonzeros, std::numeric_limits<int32_t>::max());
    m_xBase.resize(nSets);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        m_xBase[j].assign(m_sets[j].GetN(), -1);
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (!InProgram(j, w))
            {
                continue;
            }
            const uint64_t window = Window(j, w);
            if (static_cast<uint64_t>(m_columns) + window > cap)
            {
                out.variables = static_cast<uint64_t>(m_columns) + window;
                out.nonzeros = out.variables; // at least one per variable
                out.tooLarge = true;
                return false;
            }
            m_xBase[j][w] = m_columns;
            m_columns += static_cast<int>(window);
        }
    }
    out.variables = static_cast<uint64_t>(m_columns);
    const uint64_t estimate = EstimateNonzeros();
    if (estimate > maxNonzeros)
    {
        out.nonzeros = estimate;
        out.tooLarge = true;
        return false;
    }
    return true;
}

uint64_t
RoundProgram::EstimateNonzeros() const
{
    uint64_t estimate = 0;
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (m_xBase[j][w] >= 0)
            {
                const uint64_t window = Window(j, w);
                const Workload& wl = m_sets[j].Get(w);
                estimate += window * (1 + wl.links.size() + m_sets[j].GetDeps(w).size() * window);
            }
        }
    }
    return estimate;
}

void
RoundProgram::AddRow(double lower, double upper)
{
    m_rows.index.insert(m_rows.index.end(), m_pendingIndex.begin(), m_pendingIndex.end());
    m_rows.value.insert(m_rows.value.end(), m_pendingValue.begin(), m_pendingValue.end());
    m_rows.start.push_back(static_cast<int64_t>(m_rows.index.size()));
    m_rows.lower.push_back(lower);
    m_rows.upper.push_back(upper);
    m_pendingIndex.clear();
    m_pendingValue.clear();
}

void
RoundProgram::AddAssignmentRows()
{
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (!InProgram(j, w))
            {
                continue;
            }
            for (uint32_t t = First(j, w); t <= Last(j, w); ++t)
            {
                m_pendingIndex.push_back(X(j, w, t));
                m_pendingValue.push_back(1);
            }
            const int z = m_instance.treeChoice ? m_zColumn[m_sets[j].Get(w).chunk][j] : -1;
            if (z >= 0)
            {
                m_pendingIndex.push_back(z);
                m_pendingValue.push_back(-1);
                AddRow(0, 0);
            }
            else
            {
                AddRow(1, 1);
            }
        }
    }
}

void
RoundProgram::AddTreeRows()
{
    for (uint32_t r = 0; r < m_instance.roots; ++r)
    {
        for (int z : m_zColumn[r])
        {
            if (z >= 0)
            {
                m_pendingIndex.push_back(z);
                m_pendingValue.push_back(1);
            }
        }
        if (!m_pendingIndex.empty())
        {
            AddRow(1, 1);
        }
    }
}

void
RoundProgram::AddLinkRows()
{
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<uint32_t>& classOf = m_instance.linkClass;
    const uint32_t nLinks =
        classOf.empty() ? m_sets.front().GetNDirectedLinks()
                        : *std::max_element(classOf.begin(), classOf.end()) + 1;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> onLink(nLinks);
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (!InProgram(j, w))
            {
                continue;
            }
            std::vector<uint32_t> classes;
            for (uint32_t l : m_sets[j].Get(w).links)
            {
                classes.push_back(classOf.empty() ? l : classOf[l]);
            }
            std::sort(classes.begin(), classes.end());
            classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
            for (uint32_t c : classes)
            {
                onLink[c].emplace_back(j, w);
            }
        }
    }
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        if (onLink[l].size() < 2)
        {
            continue;
        }
        for (uint32_t t = 0; t < m_rounds; ++t)
        {
            for (const auto& [j, w] : onLink[l])
            {
                if (First(j, w) <= t && t <= Last(j, w))
                {
                    m_pendingIndex.push_back(X(j, w, t));
                    m_pendingValue.push_back(1);
                }
            }
            if (m_pendingIndex.size() > 1)
            {
                AddRow(-inf, 1);
            }
            m_pendingIndex.clear();
            m_pendingValue.clear();
        }
    }
}

void
RoundProgram::AddPrecedenceRows()
{
    // By the end of round t, w may be done only if d was done by the end of round t-1.
    const double inf = std::numeric_limits<double>::infinity();
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (!InProgram(j, w))
            {
                continue;
            }
            for (uint32_t d : m_sets[j].GetDeps(w))
            {
                for (uint32_t t = First(j, w); t < Last(j, w); ++t)
                {
                    for (uint32_t s = First(j, w); s <= t; ++s)
                    {
                        m_pendingIndex.push_back(X(j, w, s));
                        m_pendingValue.push_back(1);
                    }
                    for (uint32_t s = First(j, d); s < t && s <= Last(j, d); ++s)
                    {
                        m_pendingIndex.push_back(X(j, d, s));
                        m_pendingValue.push_back(-1);
                    }
                    AddRow(-inf, 0);
                }
            }
        }
    }
}

std::vector<double>
RoundProgram::MakeObjective() const
{
    std::vector<double> objective(m_columns, 0.0);
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (InProgram(j, w))
            {
                for (uint32_t t = First(j, w); t <= Last(j, w); ++t)
                {
                    objective[X(j, w, t)] = t;
                }
            }
        }
    }
    return objective;
}

bool
RoundProgram::ReadSolution(const std::vector<int>& ones, Outcome& out) const
{
    std::vector<bool> one(m_columns, false);
    for (int c : ones)
    {
        one[c] = true;
    }
    out.roundOf.resize(m_sets.size());
    out.chosen.assign(m_instance.roots, NO_INDEX);
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        out.roundOf[j].assign(m_sets[j].GetN(), NO_INDEX);
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            if (!InProgram(j, w))
            {
                continue;
            }
            for (uint32_t t = First(j, w); t <= Last(j, w); ++t)
            {
                if (one[X(j, w, t)])
                {
                    out.roundOf[j][w] = t;
                    out.chosen[m_sets[j].Get(w).chunk] = j;
                }
            }
        }
    }
    for (uint32_t r = 0; r < m_instance.roots; ++r)
    {
        if (out.chosen[r] == NO_INDEX)
        {
            // A root with no workload of its own (one server): any option will do.
            out.chosen[r] = m_instance.options[r].front();
        }
    }
    // Every workload of every chosen tree has its round.
    for (uint32_t j = 0; j < m_sets.size(); ++j)
    {
        for (uint32_t w = 0; w < m_sets[j].GetN(); ++w)
        {
            const bool chosen = out.chosen[m_sets[j].Get(w).chunk] == j;
            if (InProgram(j, w) && chosen && out.roundOf[j][w] == NO_INDEX)
            {
                return false;
            }
        }
    }
    return true;
}

RoundProgram::Outcome
RoundProgram::Solve(double seconds, uint64_t maxNonzeros)
{
    Outcome out;
    if (!IsSolverAvailable())
    {
        throw std::runtime_error("optimal: this build has no COIN-OR CBC to solve the integer "
                                 "program");
    }
    // The time allowed covers building and loading the program too.
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(seconds));
    if (!RuleOutEmptyWindows())
    {
        out.answer = INFEASIBLE;
        return out;
    }
    if (!NumberVariables(maxNonzeros, out))
    {
        return out;
    }
    m_rows = Rows();
    AddAssignmentRows();
    AddTreeRows();
    AddLinkRows();
    AddPrecedenceRows();
    out.constraints = m_rows.lower.size();
    out.nonzeros = m_rows.index.size();
    std::vector<int> ones;
    out.answer = RunCbc(deadline, ones);
    if (out.answer == FEASIBLE && !ReadSolution(ones, out))
    {
        NS_LOG_WARN("round program: T=" << m_rounds << ": CBC's solution leaves a workload "
                                        << "without a round; taken as no answer");
        out.answer = UNKNOWN;
        out.roundOf.clear();
        out.chosen.clear();
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    NS_LOG_INFO("round program: T=" << m_rounds << ", " << m_columns << " binaries, "
                                    << out.constraints << " rows: answer " << out.answer
                                    << " after " << out.seconds << " s of " << seconds);
    return out;
}

RoundProgram::Answer
RoundProgram::RunCbc(std::chrono::steady_clock::time_point deadline, std::vector<int>& ones) const
{
#ifdef ALLREDUCE_HAVE_CBC
    const double seconds =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (seconds <= 0)
    {
        return UNKNOWN;
    }
    Watchdog watchdog(seconds);
    const int rows = static_cast<int>(m_rows.lower.size());
    const std::vector<CoinBigIndex> rowStart(m_rows.start.begin(), m_rows.start.end());
    std::vector<int> rowLength(rows);
    for (int r = 0; r < rows; ++r)
    {
        rowLength[r] = static_cast<int>(m_rows.start[r + 1] - m_rows.start[r]);
    }
    const CoinPackedMatrix matrix(false,
                                  m_columns,
                                  rows,
                                  static_cast<CoinBigIndex>(m_rows.index.size()),
                                  m_rows.value.data(),
                                  m_rows.index.data(),
                                  rowStart.data(),
                                  rowLength.data());
    const std::vector<double> columnLower(m_columns, 0.0);
    const std::vector<double> columnUpper(m_columns, 1.0);
    const std::vector<double> objective = MakeObjective();
    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(matrix,
                       columnLower.data(),
                       columnUpper.data(),
                       objective.data(),
                       m_rows.lower.data(),
                       m_rows.upper.data());
    for (int c = 0; c < m_columns; ++c)
    {
        solver.setInteger(c);
    }
    // The root LP by the dual simplex, which asks the event handler after every iteration
    // (Clp's automatic choice on large programs starts with the "idiot" crash, which does
    // not, and ran for seconds past the deadline).
    ClpSolve rootLp;
    rootLp.setSolveType(ClpSolve::useDual);
    solver.setSolveOptions(rootLp);
    ClpStop clpStop(watchdog.GetFlag());
    solver.getModelPtr()->passInEventHandler(&clpStop);
    CbcModel model(solver);
    model.setLogLevel(0);
    CbcStop cbcStop(watchdog.GetFlag());
    model.passInEventHandler(&cbcStop);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(model, data);
    // CBC's own limit a little before the watchdog's, so that it usually stops by itself.
    std::ostringstream limit;
    limit.precision(6);
    limit << std::fixed << std::max(0.01, 0.9 * seconds);
    const std::string limitText = limit.str();
    // Any schedule answers the question: stop at the first one (maxSolutions 1).
    const char* argv[] = {"allreduce-optimal", "-log", "0", "-timeMode", "elapsed",
                          "-seconds", limitText.c_str(), "-maxSolutions", "1",
                          "-solve", "-quit"};
    CbcMain1(static_cast<int>(sizeof(argv) / sizeof(argv[0])),
             argv,
             model,
             [](CbcModel*, int) { return 0; },
             data);
    // A program settled at the root (by preprocessing) has its solution but counts none.
    const double* solution = model.bestSolution();
    if (solution != nullptr && (model.getSolutionCount() > 0 || model.isProvenOptimal()))
    {
        for (int c = 0; c < m_columns; ++c)
        {
            if (solution[c] > 0.5)
            {
                ones.push_back(c);
            }
        }
        return FEASIBLE;
    }
    // A stopped solve may look infeasible (an LP cut short): only a full one proves it.
    if (model.isProvenInfeasible() && !watchdog.HasFired() && !model.isSecondsLimitReached())
    {
        return INFEASIBLE;
    }
    NS_LOG_INFO("round program: T=" << m_rounds << " open"
                                    << (watchdog.HasFired() ? " (stopped by the watchdog)" : ""));
#endif
    return UNKNOWN;
}

} // namespace ns3
