/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Schedules one AllReduce at flow level (rounds) and reports it against the lower bounds; or
// validates a schedule file. The schedule is always checked by the validator.
//
//   allreduce-rounds --topology=bcube:n=3,k=1 --scheduler=balanced
//   allreduce-rounds --topology=dcell:n=4,k=1 --scheduler=ring --pieces=2 --format=json
//   allreduce-rounds --topology=bcube:n=3,k=1 --schedule-out=bcube.json
//   allreduce-rounds --schedule-in=bcube.json             (validate a file, from anywhere)
//   allreduce-rounds --topology=dcell:n=4,k=1 --scheduler=balanced --schedule-out=dcell.xml
//   allreduce-rounds --topology=bcube:n=3,k=1 --schedule-in=ring8.xml   (an MSCCL algorithm)
//   allreduce-rounds --topology=fattree:k=4 --schedule-in=ring8.xml --ranks=0,4,8,12,1,5,9,13
//   allreduce-rounds --list-schedulers
//   allreduce-rounds --topology=bcube:n=4,k=1 --scheduler=balanced --ns3::BalancedScheduler::Seed=7
//   allreduce-rounds --topology=bcube:n=3,k=1 --scheduler=optimal --time-limit=300
//   allreduce-rounds --topology=bcube:n=3,k=1 --scheduler=optimal --trees-per-root=3
//   allreduce-rounds --topology=bcube:n=3,k=1 --scheduler=optimal --start-from=greedy
//   allreduce-rounds --topology=bcube:n=4,k=1 --scheduler=drl        (the shipped checkpoint)
//   allreduce-rounds --topology=bcube:n=4,k=1 --scheduler=drl --model=/tmp/run/policy.pt --samples=0
//
// With --scheduler=optimal the output also says what was proven: "status" (optimal, feasible
// or time-limit) and the interval ["lower", "upper"] of the fewest rounds of any AllReduce on
// the topology, and what the program proved on its candidate trees ("candidate_lower").
//
// Exit status: 0 when the schedule is valid, 1 for bad input, 2 when the schedule is invalid.

#include "checked-command-line.h"
#include "drl-search-reporter.h"
#include "rounds-report.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

namespace
{

/// The program's options, with their defaults.
struct Options
{
    std::string topology;
    std::string scheduler = "greedy";
    uint32_t pieces = 1;
    std::string scheduleOut;
    std::string scheduleIn;
    std::string ranks;
    std::string format = "text";
    bool listSchedulers = false;
    double timeLimit = 60;
    uint32_t treesPerRoot = 1;
    std::string startFrom = "auto";
    std::string model;
    uint32_t samples = 32;
    uint32_t rollout = 16;
    uint64_t searchBudget = 100000000;
};

void
AddOptions(CheckedCommandLine& cmd, Options& o)
{
    cmd.AddString("topology", "topology spec", o.topology);
    cmd.AddString("scheduler",
                  "scheduler name (see --list-schedulers) or TypeId name",
                  o.scheduler);
    cmd.AddInteger("pieces", "pieces per chunk (k)", o.pieces, 1, 1000000);
    cmd.AddString("schedule-out",
                  "write the schedule to this file: FILE.xml as an MSCCL algorithm "
                  "(doc/allreduce.rst, \"MSCCL algorithm files\"), else as JSON (\"Schedule "
                  "files\")",
                  o.scheduleOut);
    cmd.AddString("schedule-in",
                  "validate this schedule file instead of scheduling (with --topology, the "
                  "file's topology must be that one); or import an MSCCL algorithm (XML) onto "
                  "--topology and schedule its transfers in rounds",
                  o.scheduleIn);
    cmd.AddString("ranks",
                  "with an MSCCL algorithm in --schedule-in: the server of each rank, e.g. "
                  "0,4,8,12 or 0-7 (default: rank i on server i)",
                  o.ranks);
    cmd.AddChoice("format", "output format", o.format, {"text", "json"});
    cmd.AddFlag("list-schedulers", "print the available scheduler names, one a line",
                o.listSchedulers);
    cmd.AddReal("time-limit",
                "optimal: wall-time limit of the search in seconds (after the start plans)",
                o.timeLimit,
                0.001,
                1e6);
    cmd.AddInteger("trees-per-root",
                   "optimal: candidate flow trees per root the program may choose among "
                   "(1: the shortest-path trees)",
                   o.treesPerRoot,
                   1,
                   16);
    cmd.AddString("start-from",
                  "optimal: schedulers whose best plan is the start, e.g. balanced,drl (auto: "
                  "every one that can plan on the topology)",
                  o.startFrom);
    cmd.AddString("model",
                  "drl: the checkpoint (allreduce-train's DIR/policy.pt; default: the shipped one "
                  "for the topology in checkpoints/)",
                  o.model);
    cmd.AddInteger("samples",
                   "drl: sampled episodes besides the greedy one, the fewest rounds win "
                   "(0: greedy only)",
                   o.samples,
                   0,
                   100000);
    cmd.AddInteger("rollout",
                   "drl: then a rollout search trying this many decisions a round, each "
                   "finished greedily (0: none; doc/allreduce.rst, \"Search at decode time\")",
                   o.rollout,
                   0,
                   4096);
    cmd.AddInteger("search-budget",
                   "drl: what the samples and the rollout may spend besides the greedy "
                   "episode, in workloads scheduled times the greedy episode's rounds (large "
                   "topologies get fewer samples and no rollout)",
                   o.searchBudget,
                   0,
                   std::numeric_limits<uint64_t>::max());
}

/// \return the schedule of --schedule-in, evaluated
SchedulerResult
ReadSchedule(const Options& o)
{
    std::string note;
    SchedulerResult result = EvaluatePlan(ReadPlanFile(o.scheduleIn,
                                                       o.topology,
                                                       o.ranks.empty()
                                                           ? std::vector<uint32_t>{}
                                                           : ParseRanksValue("ranks", o.ranks),
                                                       &note));
    if (!note.empty())
    {
        std::cerr << "allreduce-rounds: note: " << note << std::endl;
    }
    return result;
}

/// \return the schedule --scheduler makes on --topology, evaluated; \p optimal and \p drl
///         are set to the scheduler when it is one of them (their reports say more)
SchedulerResult
MakeSchedule(const CheckedCommandLine& cmd,
             const Options& o,
             Ptr<OptimalScheduler>& optimal,
             Ptr<DrlScheduler>& drl)
{
    if (o.topology.empty())
    {
        throw std::invalid_argument(
            "give --topology=SPEC (e.g. bcube:n=3,k=1) or --schedule-in=FILE");
    }
    Ptr<AllReduceScheduler> s = CreateScheduler(o.scheduler);
    optimal = DynamicCast<OptimalScheduler>(s);
    cmd.SetAttributes(PeekPointer(optimal),
                      {{"time-limit", "TimeLimit"},
                       {"trees-per-root", "TreesPerRoot"},
                       {"start-from", "StartFrom"}},
                      "--scheduler=optimal");
    drl = DynamicCast<DrlScheduler>(s);
    cmd.SetAttributes(PeekPointer(drl),
                      {{"model", "Model"},
                       {"samples", "Samples"},
                       {"rollout", "RolloutBranches"},
                       {"search-budget", "SearchBudget"}},
                      "--scheduler=drl");
    const Topology topo = RunWithHeartbeat(std::cerr,
                                           "allreduce-rounds",
                                           "building " + o.topology,
                                           [&] { return BuildTopology(o.topology); });
    DrlSearchReporter progress(std::cerr, "allreduce-rounds"); // long searches only
    if (drl)
    {
        progress.Connect(drl, topo.GetName());
    }
    if (optimal)
    {
        progress.ConnectStarts(optimal, topo.GetName()); // drl among its start schedulers
    }
    if (drl || optimal)
    {
        return EvaluateScheduler(topo, s, o.pieces);
    }
    return RunWithHeartbeat(std::cerr, "allreduce-rounds", "scheduling: " + s->GetName(), [&] {
        return EvaluateScheduler(topo, s, o.pieces);
    });
}

/// Writes the schedule to --schedule-out, if given: MSCCL XML or our JSON.
void
WriteScheduleOut(const Options& o, const SchedulerResult& result)
{
    if (!o.scheduleOut.empty() && IsMscclPath(o.scheduleOut))
    {
        WriteMscclFile(o.scheduleOut, result.plan.workloads, result.plan.schedule);
        std::cerr << "wrote MSCCL algorithm to " << o.scheduleOut << "\n";
    }
    else if (!o.scheduleOut.empty())
    {
        WriteScheduleFile(o.scheduleOut, result.plan.workloads, result.plan.schedule);
        std::cerr << "wrote schedule to " << o.scheduleOut << "\n";
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CheckedCommandLine cmd(__FILE__,
                           "Schedules an AllReduce in rounds on a data-center topology and "
                           "compares the rounds with the lower bounds.\n" +
                               TOPOLOGY_SPECS_HELP);
    AddOptions(cmd, o);
    try
    {
        cmd.Parse(argc, argv);
        if (o.listSchedulers)
        {
            if (argc > 2)
            {
                throw std::invalid_argument("--list-schedulers only lists the schedulers; give "
                                            "it alone");
            }
            for (const auto& entry : ListSchedulers())
            {
                std::cout << entry.first << "\n";
            }
            return 0;
        }
        cmd.RefuseWith("schedule-in",
                       {"scheduler",
                        "pieces",
                        "time-limit",
                        "trees-per-root",
                        "start-from",
                        "model",
                        "samples",
                        "rollout",
                        "search-budget"},
                       "the file holds the schedule");
        if (o.scheduleIn.empty())
        {
            cmd.RefuseWithout("schedule-in", {"ranks"});
        }
        cmd.RefuseSameFile({"schedule-in", "topology", "model"}, {"schedule-out"});
        cmd.CheckWritable({"schedule-out"});
        Ptr<OptimalScheduler> optimal;
        Ptr<DrlScheduler> drl;
        const SchedulerResult result =
            o.scheduleIn.empty() ? MakeSchedule(cmd, o, optimal, drl) : ReadSchedule(o);
        const OptimalSearch* search = optimal ? &optimal->GetSearch() : nullptr;
        const DrlDecoding* decoding = drl ? &drl->GetDecoding() : nullptr;
        if (o.format == "json")
        {
            WriteRoundsReportJson(std::cout, result, o.scheduleIn.empty(), search, decoding);
        }
        else
        {
            PrintRoundsReport(std::cout, result, o.scheduleIn.empty(), search, decoding);
        }
        WriteScheduleOut(o, result);
        return result.check.valid ? 0 : 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-rounds: error: " << DescribeError(e) << std::endl;
        return 1;
    }
}
