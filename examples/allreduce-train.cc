/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Trains the hierarchical DRL scheduler (flow-tree selection above, workload scheduling below)
// with PPO by the iterative scheme, on one or more topologies, and writes what the `drl`
// scheduler loads.
//
//   allreduce-train --topology=bcube:n=3,k=1 --iterations=12 --out=/tmp/bcube
//   allreduce-train --topology='bcube:n=3,k=1;dcell:n=4,k=1' --iterations=12 --out=/tmp/mix
//   allreduce-train --topology=bcube:n=3,k=1 --iterations=24 --out=/tmp/bcube --resume
//   allreduce-rounds --topology=bcube:n=3,k=1 --scheduler=drl --model=/tmp/bcube/policy.pt
//
// DIR receives policy.pt (the best policies so far by their decoded rounds), last.pt and
// trainer.pt (the latest state, for --resume), curve.csv and the learning curve curve.png,
// curve-topologies.csv (each topology's decoded rounds per iteration) and curve-families.png
// (one line per topology family: BCube, DCell, fat-tree, Jellyfish, random graphs).
// One progress line per iteration: the level trained, the mean and best rounds of its sampled
// episodes, the decoded rounds and their ratio to the bandwidth bound, the entropy and the time.
// The same seed gives the same curve, with any number of --threads (episodes run in parallel,
// each from its own generator).
//
// Exit status: 0 when done, 1 for bad input (or a build without LibTorch).

#include "bar-chart.h"
#include "checked-command-line.h"
#include "learning-curve-chart.h"
#include "report-format.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/drl-trainer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <thread>

using namespace ns3;

namespace
{

#ifdef ALLREDUCE_HAVE_TORCH

/// Draws DIR/curve-families.png: the decoded rounds over the bound per topology family and
/// iteration (LearningCurveChart); returns what it made.
std::string
WriteFamilyCurveFigure(const std::string& dir, const DrlTrainer& trainer)
{
    std::vector<std::string> names;
    for (const Topology& t : trainer.GetTopologies())
    {
        names.push_back(t.GetName());
    }
    LearningCurveChart chart(names, trainer.GetBounds());
    for (const DrlCurveRow& row : trainer.GetCurve())
    {
        chart.Add(row.iteration, row.decoded);
    }
    std::string families;
    for (const std::string& f : chart.GetFamilies())
    {
        families += (families.empty() ? "" : ", ") + f;
    }
    return chart.Write(dir + "/curve-families",
                       "allreduce-train: decoded rounds per topology family (" + families + ")");
}

/// Draws DIR/curve.png from DIR/curve.csv (the trainer's learning curve); returns what it made.
std::string
WriteCurveFigure(const std::string& dir, const std::string& topologies)
{
    const std::string plt = dir + "/curve.plt";
    WriteOutputFile(plt, "out", [&](std::ostream& p) {
        p << "set terminal pngcairo size 800,480\n"
          << "set output '" << dir << "/curve.png'\n"
          << "set datafile separator ','\n"
          << "set key top right\n"
          << "set xlabel 'iteration'\n"
          << "set ylabel 'rounds / bandwidth bound'\n"
          << "set title 'allreduce-train: " << topologies << "'\n"
          << "plot '" << dir << "/curve.csv' every ::1 using 1:6 with linespoints title "
          << "'decoded (greedy + samples)', '' every ::1 using 1:($3/($5/$6)) with lines "
          << "title 'mean of sampled episodes'\n";
    });
    return RunGnuplot(plt, dir + "/curve.png", dir + "/curve.csv");
}

#endif

/// The program's options, with their defaults.
struct Options
{
    std::string topologies;
    uint32_t iterations = 12;
    uint32_t seed = 1;
    std::string out;
    bool resume = false;
    DrlHyperParams params;
    // One per core, where the BLAS under LibTorch may be called from several threads.
    uint32_t threads = IsDrlBlasThreadSafe() ? std::max(1u, std::thread::hardware_concurrency()) : 1;
};

void
AddOptions(CheckedCommandLine& cmd, Options& o)
{
    cmd.AddString("topology", "training topology specs, ';'-separated", o.topologies);
    cmd.AddInteger("iterations", "PPO iterations in all (after the warm start)", o.iterations, 0,
                   1000000);
    cmd.AddInteger("seed", "seed of the weights, samples and minibatches", o.seed, 0, UINT32_MAX);
    cmd.AddString("out", "output directory", o.out);
    cmd.AddFlag("resume", "continue the run in --out up to --iterations", o.resume);
    cmd.AddInteger("trees-per-root", "candidate flow trees per root (the upper level chooses)",
                   o.params.treesPerRoot, 1, 16);
    cmd.AddInteger("hidden", "hidden width of both networks", o.params.hidden, 1, 4096);
    cmd.AddInteger("episodes", "sampled episodes per topology per iteration", o.params.episodes, 1,
                   100000);
    cmd.AddInteger("upper-iterations", "J: upper iterations per cycle", o.params.upperIterations, 0,
                   1000000);
    cmd.AddInteger("lower-iterations", "K: lower iterations per cycle", o.params.lowerIterations, 0,
                   1000000);
    cmd.AddInteger("imitation-steps",
                   "warm start: gradient steps per level imitating the balanced scheduler's "
                   "rules (0: none)",
                   o.params.imitationSteps,
                   0,
                   10000000);
    cmd.AddInteger("imitation-eval-every",
                   "warm start: evaluate every this many imitation steps and keep the weights "
                   "that decode best (0: keep the last)",
                   o.params.imitationEvalEvery,
                   0,
                   10000000);
    cmd.AddInteger("imitation-correct-every",
                   "warm start: every this many imitation steps the network runs an episode "
                   "per topology and the teacher labels the states it met, which are imitated "
                   "too (corrections, DAgger; 0: none)",
                   o.params.imitationCorrectEvery,
                   0,
                   10000000);
    cmd.AddInteger("flat-teacher-moves",
                   "warm start: moves of the flat-tree search per round count on each training "
                   "topology with flat trees; its trees replace the candidate sets and its plan "
                   "is imitated where it beats the balanced rules (0: none)",
                   o.params.flatTeacherMoves,
                   0,
                   1000000000);
    cmd.AddReal("learning-rate", "PPO's Adam step size", o.params.learningRate, 1e-12, 1);
    cmd.AddInteger("minibatch", "PPO: steps per gradient step", o.params.minibatch, 1, 10000000);
    cmd.AddInteger("epochs", "PPO: passes over the collected steps", o.params.epochs, 1, 10000);
    cmd.AddReal("target-kl", "PPO: stop an update past 1.5 x this KL divergence (0: never)",
                o.params.targetKl, 0, 1000);
    cmd.AddReal("entropy", "PPO: entropy bonus coefficient", o.params.entropy, 0, 1000);
    cmd.AddInteger("eval-samples", "sampled episodes besides the greedy one when evaluating",
                   o.params.evalSamples, 0, 100000);
    cmd.AddInteger("threads",
                   "worker threads for the episodes and evaluations (default: one per core; "
                   "one on a BLAS that is not safe from several threads); any number gives "
                   "the same curve and weights",
                   o.threads,
                   1,
                   256);
}

/// Refuses options that would be ignored given the others (call after Parse).
void
RefuseIgnoredOptions(const CheckedCommandLine& cmd, const Options& o)
{
    cmd.RefuseWith("resume",
                   {"imitation-steps",
                    "flat-teacher-moves",
                    "imitation-eval-every",
                    "imitation-correct-every"},
                   "the warm start ran at the start of the run in --out, and a resumed run goes "
                   "on with PPO iterations");
    if (o.params.imitationSteps == 0)
    {
        for (const char* warm :
             {"flat-teacher-moves", "imitation-eval-every", "imitation-correct-every"})
        {
            if (cmd.IsGiven(warm))
            {
                throw std::invalid_argument(std::string("--") + warm + " acts on the warm start, "
                                            "and --imitation-steps=0 leaves it out; give "
                                            "--imitation-steps=N with N >= 1, or leave --" +
                                            warm + " out");
            }
        }
    }
    if (o.iterations == 0)
    {
        // Only the warm start and its evaluation run: PPO's options act on nothing.
        for (const char* ppo : {"upper-iterations", "lower-iterations", "learning-rate",
                                "minibatch", "epochs", "target-kl", "entropy"})
        {
            if (cmd.IsGiven(ppo))
            {
                throw std::invalid_argument(
                    std::string("--") + ppo + " has no effect with --iterations=0 (only the "
                    "warm start runs, no PPO iteration); give --iterations=N with N >= 1, or "
                    "leave --" + ppo + " out");
            }
        }
    }
}

#ifdef ALLREDUCE_HAVE_TORCH
/// Refuses an --out directory that cannot be made or written, before any training.
void
CheckOutDirectory(const std::string& dir)
{
    std::error_code error;
    if (std::filesystem::exists(dir, error) && !std::filesystem::is_directory(dir, error))
    {
        throw std::invalid_argument("cannot write to '" + dir + "' (from --out): it is a file, "
                                    "and --out names the directory of the checkpoints and "
                                    "curves; give a directory (made when missing)");
    }
    if (!std::filesystem::is_directory(dir, error))
    {
        error.clear();
        std::filesystem::create_directories(dir, error);
    }
    const std::string probe = dir + "/.allreduce-train-write-check";
    std::ofstream os;
    if (!error && std::filesystem::is_directory(dir, error))
    {
        errno = 0;
        os.open(probe);
    }
    const int why = errno;
    if (!os.is_open() || !os)
    {
        throw std::invalid_argument(
            "cannot write to '" + dir + "' (from --out)" +
            (why != 0 ? std::string(": ") + std::strerror(why) : std::string()) +
            "; check that the directory can be created and written");
    }
    os.close();
    std::filesystem::remove(probe, error);
}

/// Prints a line of the learning curve (and, first, the teacher's rounds).
void
PrintCurveRow(const Options& o, const DrlTrainer& trainer, const DrlCurveRow& r)
{
    std::cout << "iter " << std::setw(3) << r.iteration << "/" << o.iterations << " "
              << std::setw(5) << r.level << "  mean " << std::fixed << std::setprecision(2)
              << r.meanRounds << "  best " << r.bestRounds << "  decoded " << r.evalRounds
              << " (x" << std::setprecision(3) << r.evalRatio << " bound)  entropy "
              << r.entropy << "  " << std::setprecision(1) << r.seconds << " s" << std::endl;
    if (r.iteration == 0 && !trainer.GetTeacherRounds().empty())
    {
        std::cout << "warm start: the teacher (" <<
            (o.params.flatTeacherMoves > 0 ? "the flat-tree search's plan or balanced's rules"
                                           : "balanced's rules")
                  << ") took";
        for (uint32_t t : trainer.GetTeacherRounds())
        {
            std::cout << " " << t;
        }
        std::cout << " rounds" << std::endl;
    }
}

/// Trains as the options say and prints where the policy and the curves are.
void
Train(const Options& o)
{
    if (o.topologies.empty())
    {
        throw std::invalid_argument(
            "give --topology=SPEC[;SPEC...] (e.g. 'bcube:n=3,k=1;dcell:n=4,k=1')");
    }
    const std::vector<std::string> specs = ParseListValue("topology", o.topologies, ';');
    if (o.out.empty())
    {
        throw std::invalid_argument("give --out=DIR for the checkpoints and the curve");
    }
    CheckOutDirectory(o.out);
    // Parallel episodes, not parallel matrix products: the networks are small, and one
    // LibTorch thread keeps every product's sums in one order.
    torch::set_num_threads(1);
    std::vector<Topology> topos;
    for (const auto& spec : specs)
    {
        topos.push_back(BuildTopology(spec));
    }
    DrlTrainer trainer(topos, o.params, o.seed);
    trainer.SetThreads(o.threads);
    std::string info = "trained by allreduce-train on " + o.topologies + ", seed " +
                       std::to_string(o.seed) + ", " +
                       (o.params.flatTeacherMoves > 0
                            ? "the flat-tree search's trees where it has them (teacher: its "
                              "plan, " + std::to_string(o.params.flatTeacherMoves) +
                                  " moves), else "
                            : std::string()) +
                       "trees per root " + std::to_string(o.params.treesPerRoot) +
                       (o.params.imitationCorrectEvery > 0
                            ? ", corrections every " +
                                  std::to_string(o.params.imitationCorrectEvery) +
                                  " imitation steps"
                            : std::string());
    std::cout << "training on " << topos.size() << " topolog" << (topos.size() == 1 ? "y" : "ies")
              << " (" << o.topologies << "), " << o.iterations << " iterations, J="
              << o.params.upperIterations << " K=" << o.params.lowerIterations
              << (o.resume ? ", resuming" : "") << std::endl;
    trainer.GetPolicy().SetInfo(info);
    trainer.Train(o.iterations, o.out, o.resume, [&](const DrlCurveRow& r) {
        PrintCurveRow(o, trainer, r);
    });
    double best = 1e300;
    for (const auto& r : trainer.GetCurve())
    {
        best = std::min(best, r.evalRatio);
    }
    // The figures first: a refusal does not land in the middle of a line.
    const std::string curve = WriteCurveFigure(o.out, o.topologies);
    const std::string perFamily = WriteFamilyCurveFigure(o.out, trainer);
    std::cout << "policy: " << o.out << "/policy.pt (best decoded x" << std::setprecision(3)
              << best << " bound)\n"
              << "curve: " << curve << "\n"
              << "per family: " << perFamily << std::endl;
}
#endif

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CheckedCommandLine cmd(__FILE__,
                           "Trains the hierarchical DRL AllReduce scheduler (LibTorch, PPO, the "
                           "iterative scheme: J upper iterations, then K lower ones, again) and "
                           "writes DIR/policy.pt for --scheduler=drl --model=DIR/policy.pt.");
    AddOptions(cmd, o);
    try
    {
        cmd.Parse(argc, argv);
        RefuseIgnoredOptions(cmd, o);
        if (!IsDrlAvailable())
        {
            throw std::runtime_error(GetDrlUnavailableReason());
        }
#ifdef ALLREDUCE_HAVE_TORCH
        Train(o);
#endif
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-train: error: " << DescribeError(e) << std::endl;
        return 1;
    }
    return 0;
}
