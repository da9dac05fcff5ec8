/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "optimal-scheduler.h"

#include "balanced-scheduler.h"
#include "scheduler-registry.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#ifdef ALLREDUCE_HAVE_CBC
#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <functional>
#include <iostream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OptimalScheduler");

NS_OBJECT_ENSURE_REGISTERED(OptimalScheduler);

static const SchedulerRegistration g_registration(
    "optimal",
    OptimalScheduler::GetTypeId(),
    "the fewest rounds for the flow trees in use, proven with an integer program (COIN-OR "
    "CBC); status and interval when the time limit stops it",
    50,
    &GetOptimalSchedulerUnavailableReason);

namespace
{

using Clock = std::chrono::steady_clock;

double
SecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// What one integer program said about one number of rounds.
enum class Answer
{
    Feasible,   //!< a schedule in at most T rounds was found
    Infeasible, //!< proven: no schedule in T rounds
    Unknown,    //!< the time ran out first
};

/**
 * The choice structure shared by every T: the candidate workload sets, which (root, candidate)
 * pairs are real options, and per workload its earliest round.
 */
struct Instance
{
    const std::vector<WorkloadSet>* sets{nullptr};
    bool treeChoice{false};
    uint32_t roots{0};
    /// per root, the distinct candidates offered (the first of each group of equal trees)
    std::vector<std::vector<uint32_t>> options;
    /// per candidate, per workload: whether it is in the program (its (root, candidate) is
    /// an option)
    std::vector<std::vector<bool>> active;
    /// per candidate, per workload: the earliest round (dependency chain before it)
    std::vector<std::vector<uint32_t>> earliest;
};

/// \return per workload, the number of workloads in the longest chain of dependencies before it
std::vector<uint32_t>
EarliestRounds(const WorkloadSet& ws)
{
    const uint32_t n = ws.GetN();
    std::vector<uint32_t> est(n, 0);
    std::vector<uint32_t> indeg(n);
    std::vector<uint32_t> order;
    order.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        indeg[i] = static_cast<uint32_t>(ws.Get(i).deps.size());
        if (indeg[i] == 0)
        {
            order.push_back(i);
        }
    }
    for (size_t q = 0; q < order.size(); ++q)
    {
        const uint32_t w = order[q];
        for (uint32_t d : ws.GetDependents(w))
        {
            est[d] = std::max(est[d], est[w] + 1);
            if (--indeg[d] == 0)
            {
                order.push_back(d);
            }
        }
    }
    return est;
}

#ifdef ALLREDUCE_HAVE_CBC

/**
 * Runs work in a child process and returns its message, or gives up at the deadline.
 * \param work what the child computes (it must not touch the parent's state)
 * \param seconds wall time allowed
 * \param[out] message what work returned
 * \return false when the child ran out of time or failed (it is killed and reaped)
 */
bool
RunWithDeadline(const std::function<std::vector<uint32_t>()>& work,
                double seconds,
                std::vector<uint32_t>& message)
{
    int fds[2];
    if (pipe(fds) != 0)
    {
        throw std::runtime_error("optimal: cannot create a pipe for the solver process");
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = fork();
    if (child < 0)
    {
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error("optimal: cannot start the solver process (fork failed)");
    }
    if (child == 0)
    {
        close(fds[0]);
        int code = 0;
        try
        {
            const std::vector<uint32_t> m = work();
            const uint64_t n = m.size();
            const char* p = reinterpret_cast<const char*>(&n);
            size_t left = sizeof(n);
            std::vector<char> bytes(p, p + left);
            bytes.insert(bytes.end(),
                         reinterpret_cast<const char*>(m.data()),
                         reinterpret_cast<const char*>(m.data()) + m.size() * sizeof(uint32_t));
            size_t off = 0;
            while (off < bytes.size())
            {
                const ssize_t k = write(fds[1], bytes.data() + off, bytes.size() - off);
                if (k <= 0)
                {
                    code = 1;
                    break;
                }
                off += static_cast<size_t>(k);
            }
        }
        catch (...)
        {
            code = 1;
        }
        close(fds[1]);
        _exit(code); // no destructors or atexit handlers of the parent's objects
    }
    close(fds[1]);
    const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    std::vector<char> bytes;
    bool ok = true;
    char buffer[65536];
    while (true)
    {
        const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
        if (left <= 0)
        {
            ok = false;
            break;
        }
        pollfd pfd{fds[0], POLLIN, 0};
        const int ready = poll(&pfd, 1, static_cast<int>(std::min(left * 1000.0, 1000.0)) + 1);
        if (ready < 0 && errno != EINTR)
        {
            ok = false;
            break;
        }
        if (ready <= 0)
        {
            continue;
        }
        const ssize_t k = read(fds[0], buffer, sizeof(buffer));
        if (k < 0 && errno == EINTR)
        {
            continue;
        }
        if (k <= 0)
        {
            break; // the child closed its end
        }
        bytes.insert(bytes.end(), buffer, buffer + k);
    }
    close(fds[0]);
    if (!ok)
    {
        kill(child, SIGKILL);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    {
    }
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.size() < sizeof(uint64_t))
    {
        return false;
    }
    uint64_t n = 0;
    std::memcpy(&n, bytes.data(), sizeof(n));
    if (bytes.size() != sizeof(n) + n * sizeof(uint32_t))
    {
        return false;
    }
    message.resize(n);
    std::memcpy(message.data(), bytes.data() + sizeof(n), n * sizeof(uint32_t));
    return true;
}

/// The outcome of one program.
struct Outcome
{
    Answer answer{Answer::Unknown};
    std::vector<std::vector<uint32_t>> roundOf; //!< per candidate, per workload (Feasible)
    std::vector<uint32_t> chosen;               //!< per root (Feasible)
    uint64_t variables{0};
    uint64_t constraints{0};
    uint64_t nonzeros{0};
    bool tooLarge{false}; //!< not built: more non-zeros than the cap
};

/**
 * Builds the time-indexed program for T rounds and solves it with CBC.
 * \param inst the instance
 * \param T the number of rounds asked about
 * \param seconds the wall time it may take
 * \return the outcome
 */
Outcome
SolveRounds(const Instance& inst, uint32_t T, double seconds, uint64_t maxNonzeros)
{
    Outcome out;
    const auto& sets = *inst.sets;
    const uint32_t nSets = static_cast<uint32_t>(sets.size());
    // Windows [est, lst]; a workload whose window is empty rules its option out, or rules
    // out T when the workload is not optional.
    std::vector<std::vector<int>> base(nSets);
    std::vector<std::vector<bool>> optionOk(inst.roots, std::vector<bool>(nSets, false));
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        for (uint32_t j : inst.options[r])
        {
            optionOk[r][j] = true;
        }
    }
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (!inst.active[j][w])
            {
                continue;
            }
            const uint32_t h = sets[j].GetHeight(w);
            if (h > T || inst.earliest[j][w] > T - h)
            {
                if (!inst.treeChoice)
                {
                    out.answer = Answer::Infeasible;
                    return out;
                }
                optionOk[sets[j].Get(w).chunk][j] = false;
            }
        }
    }
    // Variables: z per (root, option) when a root has two options or more, then x.
    int nv = 0;
    std::vector<std::vector<int>> zVar(inst.roots, std::vector<int>(nSets, -1));
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        uint32_t ok = 0;
        for (uint32_t j : inst.options[r])
        {
            ok += optionOk[r][j] ? 1 : 0;
        }
        if (ok == 0)
        {
            out.answer = Answer::Infeasible;
            return out;
        }
        if (inst.treeChoice && inst.options[r].size() > 1)
        {
            for (uint32_t j : inst.options[r])
            {
                if (optionOk[r][j])
                {
                    zVar[r][j] = nv++;
                }
            }
        }
    }
    const auto inProgram = [&](uint32_t j, uint32_t w) {
        if (!inst.active[j][w])
        {
            return false;
        }
        return !inst.treeChoice || optionOk[sets[j].Get(w).chunk][j];
    };
    for (uint32_t j = 0; j < nSets; ++j)
    {
        base[j].assign(sets[j].GetN(), -1);
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (inProgram(j, w))
            {
                const uint64_t window = T - sets[j].GetHeight(w) - inst.earliest[j][w] + 1;
                if (static_cast<uint64_t>(nv) + window > std::min<uint64_t>(maxNonzeros, INT32_MAX))
                {
                    out.variables = static_cast<uint64_t>(nv) + window;
                    out.nonzeros = out.variables; // at least one per variable
                    out.tooLarge = true;
                    return out;
                }
                base[j][w] = nv;
                nv += static_cast<int>(window);
            }
        }
    }
    // The size, before anything is built: the precedence rows dominate (a dependency of a
    // workload with a window of W rounds adds about W^2 coefficients).
    {
        uint64_t estimate = 0;
        for (uint32_t j = 0; j < nSets; ++j)
        {
            for (uint32_t w = 0; w < sets[j].GetN(); ++w)
            {
                if (base[j][w] >= 0)
                {
                    const uint64_t window = T - sets[j].GetHeight(w) - inst.earliest[j][w] + 1;
                    const Workload& wl = sets[j].Get(w);
                    estimate += window * (1 + wl.links.size() + wl.deps.size() * window);
                }
            }
        }
        if (estimate > maxNonzeros)
        {
            out.variables = static_cast<uint64_t>(nv);
            out.nonzeros = estimate;
            out.tooLarge = true;
            return out;
        }
    }
    const auto x = [&](uint32_t j, uint32_t w, uint32_t t) {
        return base[j][w] + static_cast<int>(t - inst.earliest[j][w]);
    };
    const auto last = [&](uint32_t j, uint32_t w) { return T - sets[j].GetHeight(w); };

    // Rows in compressed form (appending rows to a CoinPackedMatrix one by one copies it
    // again and again).
    std::vector<CoinBigIndex> rowStart{0};
    std::vector<int> rowIndex;
    std::vector<double> rowValue;
    std::vector<double> rowLo;
    std::vector<double> rowUp;
    std::vector<int> idx;
    std::vector<double> val;
    const auto addRow = [&](double lo, double up) {
        rowIndex.insert(rowIndex.end(), idx.begin(), idx.end());
        rowValue.insert(rowValue.end(), val.begin(), val.end());
        rowStart.push_back(static_cast<CoinBigIndex>(rowIndex.size()));
        rowLo.push_back(lo);
        rowUp.push_back(up);
        idx.clear();
        val.clear();
    };
    const double inf = std::numeric_limits<double>::infinity();
    // Every workload in exactly one round (or in none when its tree is not chosen).
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (!inProgram(j, w))
            {
                continue;
            }
            for (uint32_t t = inst.earliest[j][w]; t <= last(j, w); ++t)
            {
                idx.push_back(x(j, w, t));
                val.push_back(1);
            }
            const int z = inst.treeChoice ? zVar[sets[j].Get(w).chunk][j] : -1;
            if (z >= 0)
            {
                idx.push_back(z);
                val.push_back(-1);
                addRow(0, 0);
            }
            else
            {
                addRow(1, 1);
            }
        }
    }
    // One tree per root.
    for (uint32_t r = 0; r < inst.roots; ++r)
    {
        for (uint32_t j = 0; j < nSets; ++j)
        {
            if (zVar[r][j] >= 0)
            {
                idx.push_back(zVar[r][j]);
                val.push_back(1);
            }
        }
        if (!idx.empty())
        {
            addRow(1, 1);
        }
    }
    // At most one workload per directed link per round.
    const uint32_t nLinks = sets.front().GetNDirectedLinks();
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> onLink(nLinks);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (inProgram(j, w))
            {
                for (uint32_t l : sets[j].Get(w).links)
                {
                    onLink[l].emplace_back(j, w);
                }
            }
        }
    }
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        if (onLink[l].size() < 2)
        {
            continue;
        }
        for (uint32_t t = 0; t < T; ++t)
        {
            for (const auto& [j, w] : onLink[l])
            {
                if (inst.earliest[j][w] <= t && t <= last(j, w))
                {
                    idx.push_back(x(j, w, t));
                    val.push_back(1);
                }
            }
            if (idx.size() > 1)
            {
                addRow(-inf, 1);
            }
            idx.clear();
            val.clear();
        }
    }
    // Strictly after each dependency: by the end of round t, w may be done only if d was
    // done by the end of round t-1.
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (!inProgram(j, w))
            {
                continue;
            }
            for (uint32_t d : sets[j].Get(w).deps)
            {
                for (uint32_t t = inst.earliest[j][w]; t < last(j, w); ++t)
                {
                    for (uint32_t s = inst.earliest[j][w]; s <= t; ++s)
                    {
                        idx.push_back(x(j, w, s));
                        val.push_back(1);
                    }
                    for (uint32_t s = inst.earliest[j][d]; s < t && s <= last(j, d); ++s)
                    {
                        idx.push_back(x(j, d, s));
                        val.push_back(-1);
                    }
                    addRow(-inf, 0);
                }
            }
        }
    }
    out.variables = static_cast<uint64_t>(nv);
    out.constraints = rowLo.size();
    out.nonzeros = rowIndex.size();
    std::vector<int> rowLength(rowLo.size());
    for (size_t r = 0; r < rowLo.size(); ++r)
    {
        rowLength[r] = static_cast<int>(rowStart[r + 1] - rowStart[r]);
    }
    const CoinPackedMatrix matrix(false,
                                  nv,
                                  static_cast<int>(rowLo.size()),
                                  static_cast<CoinBigIndex>(rowIndex.size()),
                                  rowValue.data(),
                                  rowIndex.data(),
                                  rowStart.data(),
                                  rowLength.data());

    // Objective: the sum of the workloads' rounds. Any schedule in T rounds answers the
    // question; this objective steers CBC's heuristics toward early, compact rounds (it
    // found schedules much sooner than a zero objective in our measurements).
    std::vector<double> colLo(nv, 0.0);
    std::vector<double> colUp(nv, 1.0);
    std::vector<double> obj(nv, 0.0);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        for (uint32_t w = 0; w < sets[j].GetN(); ++w)
        {
            if (inProgram(j, w))
            {
                for (uint32_t t = inst.earliest[j][w]; t <= last(j, w); ++t)
                {
                    obj[x(j, w, t)] = t;
                }
            }
        }
    }
    // CBC does not check its time limit everywhere (the root LP and some heuristics run
    // past it by minutes on the larger programs), so it runs in a child process that is
    // killed at the deadline: the time limit holds, and the answer is then "unknown".
    const auto solve = [&]() {
        OsiClpSolverInterface solver;
        solver.messageHandler()->setLogLevel(0);
        solver.loadProblem(matrix,
                           colLo.data(),
                           colUp.data(),
                           obj.data(),
                           rowLo.data(),
                           rowUp.data());
        for (int c = 0; c < nv; ++c)
        {
            solver.setInteger(c);
        }
        CbcModel model(solver);
        model.setLogLevel(0);
        CbcSolverUsefulData data;
        data.noPrinting_ = true;
        data.useSignalHandler_ = false;
        CbcMain0(model, data);
        std::ostringstream limit;
        limit.precision(6);
        limit << std::fixed << std::max(0.01, 0.9 * seconds); // then killed at `seconds`
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
        // The message: the answer, then the variables at 1.
        std::vector<uint32_t> message{static_cast<uint32_t>(Answer::Unknown)};
        const double* sol = model.bestSolution();
        if (sol != nullptr && model.getSolutionCount() > 0)
        {
            message[0] = static_cast<uint32_t>(Answer::Feasible);
            for (int c = 0; c < nv; ++c)
            {
                if (sol[c] > 0.5)
                {
                    message.push_back(static_cast<uint32_t>(c));
                }
            }
        }
        else if (model.isProvenInfeasible())
        {
            message[0] = static_cast<uint32_t>(Answer::Infeasible);
        }
        return message;
    };
    std::vector<uint32_t> message;
    if (!RunWithDeadline(solve, seconds, message) || message.empty() ||
        message[0] > static_cast<uint32_t>(Answer::Unknown))
    {
        return out; // unknown: out of time (or the child failed)
    }
    out.answer = static_cast<Answer>(message[0]);
    if (out.answer == Answer::Feasible)
    {
        std::vector<bool> one(nv, false);
        for (size_t i = 1; i < message.size(); ++i)
        {
            if (message[i] < static_cast<uint32_t>(nv))
            {
                one[message[i]] = true;
            }
        }
        out.roundOf.resize(nSets);
        out.chosen.assign(inst.roots, NO_INDEX);
        for (uint32_t j = 0; j < nSets; ++j)
        {
            out.roundOf[j].assign(sets[j].GetN(), NO_INDEX);
            for (uint32_t w = 0; w < sets[j].GetN(); ++w)
            {
                if (!inProgram(j, w))
                {
                    continue;
                }
                for (uint32_t t = inst.earliest[j][w]; t <= last(j, w); ++t)
                {
                    if (one[x(j, w, t)])
                    {
                        out.roundOf[j][w] = t;
                        out.chosen[sets[j].Get(w).chunk] = j;
                    }
                }
            }
        }
        for (uint32_t r = 0; r < inst.roots; ++r)
        {
            if (out.chosen[r] == NO_INDEX)
            {
                // A root with no workload of its own (one server): any option will do.
                out.chosen[r] = inst.options[r].front();
            }
        }
    }
    return out;
}

#endif // ALLREDUCE_HAVE_CBC

#ifdef ALLREDUCE_HAVE_CBC
/// \return the number of distinct rounds used by a roundOf assignment over candidates
uint32_t
CountRounds(const std::vector<std::vector<uint32_t>>& roundOf)
{
    std::vector<bool> used;
    for (const auto& v : roundOf)
    {
        for (uint32_t t : v)
        {
            if (t != NO_INDEX)
            {
                if (t >= used.size())
                {
                    used.resize(t + 1, false);
                }
                used[t] = true;
            }
        }
    }
    return static_cast<uint32_t>(std::count(used.begin(), used.end(), true));
}
#endif

} // namespace

bool
IsOptimalSchedulerAvailable()
{
#ifdef ALLREDUCE_HAVE_CBC
    return true;
#else
    return false;
#endif
}

std::string
GetOptimalSchedulerUnavailableReason()
{
    if (IsOptimalSchedulerAvailable())
    {
        return "";
    }
    return "the 'optimal' scheduler needs COIN-OR CBC, which was not found when this module "
           "was configured; install it (Debian: apt-get install coinor-libcbc-dev) and "
           "configure the module again";
}

std::string
OptimalSearch::GetStatusName() const
{
    switch (status)
    {
    case OPTIMAL:
        return "optimal";
    case FEASIBLE:
        return "feasible";
    case TIME_LIMIT:
        return "time-limit";
    }
    return "?";
}

std::string
OptimalSearch::GetInterval() const
{
    if (lower == upper)
    {
        return std::to_string(upper);
    }
    return "[" + std::to_string(lower) + ", " + std::to_string(upper) + "]";
}

TypeId
OptimalScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OptimalScheduler")
            .SetParent<AllReduceScheduler>()
            .SetGroupName("AllReduce")
            .AddConstructor<OptimalScheduler>()
            .AddAttribute("TimeLimit",
                          "Wall-time limit of the whole search in seconds (heuristic start, "
                          "every integer program); when it runs out the best schedule found "
                          "is returned with its status and proven interval",
                          DoubleValue(60.0),
                          MakeDoubleAccessor(&OptimalScheduler::m_timeLimit),
                          MakeDoubleChecker<double>(0.001))
            .AddAttribute("TreesPerRoot",
                          "Candidate flow trees per root the program may choose among (1: the "
                          "shortest-path trees only; more: also load-balanced trees)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&OptimalScheduler::m_treesPerRoot),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("MaxNonzeros",
                          "Largest integer program built, in non-zero coefficients (about 40 "
                          "bytes each in CBC); larger instances get the heuristic's schedule "
                          "and the bounds, with a note saying so",
                          UintegerValue(50000000),
                          MakeUintegerAccessor(&OptimalScheduler::m_maxNonzeros),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Seed",
                          "Seed of the load-balanced candidate trees (TreesPerRoot > 1)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&OptimalScheduler::m_seed),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

std::string
OptimalScheduler::GetName() const
{
    return "optimal";
}

const OptimalSearch&
OptimalScheduler::GetSearch() const
{
    return m_search;
}

void
OptimalScheduler::Prepare(const WorkloadSet& workloads)
{
    std::vector<WorkloadSet> candidates{workloads};
    std::vector<uint32_t> chosen;
    const auto roundOf = Search(candidates, false, chosen);
    Schedule schedule = CompactRounds(roundOf.front());
    schedule.scheduler = GetName();
    m_replay->SetSchedule(std::move(schedule));
    m_replay->Prepare(workloads);
}

void
OptimalScheduler::SelectRound(SchedulerState& state)
{
    m_replay->SelectRound(state);
}

Plan
OptimalScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    if (!IsOptimalSchedulerAvailable())
    {
        throw std::runtime_error(GetOptimalSchedulerUnavailableReason());
    }
    const auto trees = BuildCandidateTrees(topology, m_treesPerRoot, m_seed);
    std::vector<WorkloadSet> candidates;
    for (const auto& t : trees)
    {
        candidates.push_back(WorkloadSet::Build(topology, t, WorkloadSemantics::MERGE, pieces));
    }
    std::vector<uint32_t> chosen;
    const auto roundOf = Search(candidates, candidates.size() > 1, chosen);
    Plan plan;
    if (candidates.size() == 1)
    {
        plan.workloads = std::move(candidates.front());
        plan.schedule = CompactRounds(roundOf.front());
    }
    else
    {
        plan = MakeTreeChoicePlan(trees, candidates, chosen, roundOf);
    }
    plan.schedule.scheduler = GetName();
    const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
    if (!check.valid)
    {
        throw std::logic_error("optimal: the solver's schedule is invalid (" + check.error +
                               "); please report this");
    }
    return plan;
}

std::vector<std::vector<uint32_t>>
OptimalScheduler::Search(const std::vector<WorkloadSet>& candidates,
                         bool treeChoice,
                         std::vector<uint32_t>& chosen)
{
    if (!IsOptimalSchedulerAvailable())
    {
        throw std::runtime_error(GetOptimalSchedulerUnavailableReason());
    }
    NS_ABORT_MSG_IF(candidates.empty() || (!treeChoice && candidates.size() != 1),
                    "optimal: one candidate without tree choice");
    const auto start = Clock::now();
    m_search = OptimalSearch();
    m_search.treesPerRoot = static_cast<uint32_t>(candidates.size());
    const Topology& topology = candidates.front().GetTopology();
    const uint32_t roots = topology.GetNServers();
    const uint32_t nSets = static_cast<uint32_t>(candidates.size());

    // The start: the best list schedule of every candidate tree set.
    Ptr<BalancedScheduler> heuristic = CreateObject<BalancedScheduler>();
    Schedule start0;
    uint32_t bestSet = 0;
    for (uint32_t j = 0; j < nSets; ++j)
    {
        Schedule s = heuristic->ScheduleWorkloads(candidates[j]);
        if (j == 0 || s.GetNRounds() < start0.GetNRounds())
        {
            start0 = std::move(s);
            bestSet = j;
        }
    }
    std::vector<std::vector<uint32_t>> best(nSets);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        best[j].assign(candidates[j].GetN(), NO_INDEX);
    }
    for (uint32_t t = 0; t < start0.rounds.size(); ++t)
    {
        for (uint32_t w : start0.rounds[t])
        {
            best[bestSet][w] = t;
        }
    }
    const uint32_t bestRounds = start0.GetNRounds();
    chosen.assign(roots, bestSet);
    m_search.heuristic = "balanced's list scheduling";
    m_search.heuristicRounds = bestRounds;
    m_search.upper = bestRounds;

    // The instance: options per root, and the bounds.
    Instance inst;
    inst.sets = &candidates;
    inst.treeChoice = treeChoice;
    inst.roots = roots;
    inst.options.assign(roots, {});
    inst.active.resize(nSets);
    inst.earliest.resize(nSets);
    for (uint32_t j = 0; j < nSets; ++j)
    {
        inst.earliest[j] = EarliestRounds(candidates[j]);
        inst.active[j].assign(candidates[j].GetN(), true);
    }
    if (treeChoice)
    {
        // Per root, keep the first of every group of candidates with the same tree (the same
        // workloads of that chunk); the others leave the program.
        using Signature = std::vector<std::pair<Workload::Key, std::vector<uint32_t>>>;
        std::vector<std::map<Signature, uint32_t>> seen(roots);
        std::vector<std::vector<Signature>> keys(nSets, std::vector<Signature>(roots));
        for (uint32_t j = 0; j < nSets; ++j)
        {
            for (const Workload& w : candidates[j].GetAll())
            {
                keys[j][w.chunk].emplace_back(w.GetKey(), w.path);
            }
        }
        std::vector<std::vector<bool>> rootActive(nSets, std::vector<bool>(roots, false));
        for (uint32_t r = 0; r < roots; ++r)
        {
            for (uint32_t j = 0; j < nSets; ++j)
            {
                if (seen[r].emplace(keys[j][r], j).second)
                {
                    inst.options[r].push_back(j);
                    rootActive[j][r] = true;
                }
            }
        }
        for (uint32_t j = 0; j < nSets; ++j)
        {
            for (const Workload& w : candidates[j].GetAll())
            {
                inst.active[j][w.id] = rootActive[j][w.chunk];
            }
        }
        // Bounds valid for every choice: per link, the least load each root can put on it;
        // the least critical path each root can have.
        RoundBounds b;
        b.bandwidth = ComputeBandwidthBound(topology, candidates.front().GetPieces());
        const uint32_t nLinks = candidates.front().GetNDirectedLinks();
        std::vector<uint32_t> linkLoad(nLinks, 0);
        for (uint32_t r = 0; r < roots; ++r)
        {
            std::vector<uint32_t> least(nLinks, NO_INDEX);
            uint32_t leastPath = NO_INDEX;
            for (uint32_t j : inst.options[r])
            {
                std::vector<uint32_t> load(nLinks, 0);
                uint32_t path = 0;
                for (const Workload& w : candidates[j].GetAll())
                {
                    if (w.chunk == r)
                    {
                        for (uint32_t l : w.links)
                        {
                            ++load[l];
                        }
                        path = std::max(path, candidates[j].GetHeight(w.id) + inst.earliest[j][w.id]);
                    }
                }
                for (uint32_t l = 0; l < nLinks; ++l)
                {
                    least[l] = std::min(least[l], load[l]);
                }
                leastPath = std::min(leastPath, path);
            }
            for (uint32_t l = 0; l < nLinks; ++l)
            {
                linkLoad[l] += least[l] == NO_INDEX ? 0 : least[l];
            }
            b.path = std::max(b.path, leastPath == NO_INDEX ? 0 : leastPath);
        }
        b.links = nLinks == 0 ? 0 : *std::max_element(linkLoad.begin(), linkLoad.end());
        m_search.bounds = b;
    }
    else
    {
        for (uint32_t r = 0; r < roots; ++r)
        {
            inst.options[r].push_back(0);
        }
        m_search.bounds = ComputeBounds(candidates.front());
    }
    for (uint32_t r = 0; r < roots; ++r)
    {
        m_search.treeOptions += static_cast<uint32_t>(inst.options[r].size());
    }
    m_search.lower = std::min(m_search.bounds.GetMax(), m_search.upper);

#ifdef ALLREDUCE_HAVE_CBC
    // Ask about round counts between the bounds: the lower bound first (often tight), then
    // by bisection. A count whose time ran out is left open and the search looks above it.
    uint32_t open = 0; // the highest count left open so far (0: none)
    bool first = true;
    while (m_search.lower < m_search.upper)
    {
        const double left = m_timeLimit - SecondsSince(start);
        const uint32_t floorT = std::max(m_search.lower, open + 1);
        if (left <= 0.05 || floorT >= m_search.upper)
        {
            break;
        }
        const uint32_t T = first ? floorT : floorT + (m_search.upper - 1 - floorT) / 2;
        first = false;
        // The last count to settle gets all the time left; otherwise half of it, so that a
        // hard proof cannot starve the counts above it.
        const bool lastOne = T == floorT && T + 1 == m_search.upper;
        const double budget = lastOne ? left : left / 2;
        Outcome o = SolveRounds(inst, T, budget, m_maxNonzeros);
        if (o.tooLarge)
        {
            m_search.note = "the integer program for " + std::to_string(T) +
                            " rounds would have about " + std::to_string(o.nonzeros) +
                            " non-zeros, more than MaxNonzeros (" +
                            std::to_string(m_maxNonzeros) +
                            "); the heuristic's schedule is returned with the bounds";
            NS_LOG_INFO("optimal: " << m_search.note);
            break;
        }
        m_search.variables = std::max(m_search.variables, o.variables);
        m_search.constraints = std::max(m_search.constraints, o.constraints);
        m_search.nonzeros = std::max(m_search.nonzeros, o.nonzeros);
        NS_LOG_INFO("optimal: T=" << T << " -> "
                                  << (o.answer == Answer::Feasible     ? "feasible"
                                      : o.answer == Answer::Infeasible ? "infeasible"
                                                                       : "unknown")
                                  << " (" << o.variables << " binaries, " << o.constraints
                                  << " rows) after " << SecondsSince(start) << " s");
        switch (o.answer)
        {
        case Answer::Feasible: {
            const uint32_t rounds = CountRounds(o.roundOf);
            m_search.feasible.push_back(T);
            if (rounds < m_search.upper)
            {
                m_search.upper = rounds;
                best = std::move(o.roundOf);
                chosen = std::move(o.chosen);
            }
            break;
        }
        case Answer::Infeasible:
            m_search.infeasible.push_back(T);
            m_search.lower = std::max(m_search.lower, T + 1);
            break;
        case Answer::Unknown:
            m_search.unknown.push_back(T);
            open = std::max(open, T);
            break;
        }
    }
#endif
    m_search.lower = std::min(m_search.lower, m_search.upper);
    if (m_search.lower == m_search.upper)
    {
        m_search.status = OptimalSearch::OPTIMAL;
    }
    else if (m_search.upper < m_search.heuristicRounds)
    {
        m_search.status = OptimalSearch::FEASIBLE;
    }
    else
    {
        m_search.status = OptimalSearch::TIME_LIMIT;
    }
    m_search.seconds = SecondsSince(start);
    NS_LOG_INFO("optimal: " << m_search.GetStatusName() << " " << m_search.GetInterval()
                            << " in " << m_search.seconds << " s");
    return best;
}

} // namespace ns3
