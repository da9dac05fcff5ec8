/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Runs one AllReduce packet by packet in ns-3: every server's AllReduceApplication sends real
// gradient bytes over TCP along its workloads' paths, merges what it receives, and at the end
// every server's vector is checked against the exact sum.
//
//   allreduce-packet --topology=bcube:n=3,k=1 --scheduler=greedy --mode=barrier
//   allreduce-packet --topology=dcell:n=4,k=1 --scheduler=ring --mode=async --format=json
//   allreduce-packet --topology=bcube:n=3,k=1 --scheduler=drl --ns3::DrlScheduler::Model=DIR/policy.pt
//   allreduce-packet --topology=bcube:n=4,k=1 --gradient-bytes=16MB --data-rate=10Gbps
//   allreduce-rounds --topology=bcube:n=3,k=1 --schedule-out=s.json
//   allreduce-packet --schedule-in=s.json           (replay a schedule file, any numbering)
//   allreduce-packet --topology=bcube:n=3,k=1 --schedule-in=ring8.xml   (an MSCCL algorithm)
//   allreduce-packet --topology=bcube:n=3,k=1 --loss=0.01   (1% loss on every link)
//   allreduce-packet --topology=bcube:n=3,k=1 --link-down=0 --link-down-at=20us
//   allreduce-packet --topology=bcube:n=3,k=1 --scheduler=drl --stragglers=2:500us
//   allreduce-packet --topology=bcube:n=3,k=1 --decisions=replay --link-down=4 --link-down=9
//   allreduce-packet --topology=bcube:n=3,k=1 --background-load=0.3 --slow-links=0.25:0.5
//   allreduce-packet --topology=bcube:n=3,k=1 --netanim=bcube.xml   (an animation for NetAnim)
//   mpirun -np 2 allreduce-packet --topology=fattree:k=8 --scheduler=ring --mode=async
//   allreduce-packet --topology=fattree:k=8 --scheduler=ring --mode=async --distributed
//                     (the same protocol on one process; doc/allreduce.rst, "Distributed runs")
//
// With a scheduler, the scheduler decides online inside the simulation (--decisions=online,
// the default but for optimal): it sees which workloads are done, in flight and ready, which
// links are busy and down, and routes around links that fail. --decisions=replay replays the
// plan made before the simulation, as a schedule file is.
//
// Under mpirun with more than one rank (an ns-3 built with MPI: the in-tree build), the run is
// distributed: each rank simulates its part of the network, and rank 0 prints the report.
//
// Exit status: 0 when every server holds the exact sum, 1 for bad input, 2 when the run did
// not finish (stall, failed connection) or a server's vector is wrong.

#include "allreduce-experiment.h"
#include "checked-command-line.h"
#include "distributed-run.h"
#include "packet-report.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{

/// The program's options, with their defaults.
struct Options
{
    std::string topology;
    std::string scheduler = "greedy";
    uint32_t pieces = 1;
    std::string scheduleIn;
    std::string ranks;
    bool pcap = false;
    std::string format = "text";
    std::string out = "results/allreduce-packet";
    PacketRunConfig config = [] {
        PacketRunConfig c;
        c.gradientBytes = 1 << 20;
        return c;
    }();
    std::vector<std::string> linkDown;
    std::vector<std::string> linkDownAt;
    std::string decisions;
    std::string slowLinks;
    uint32_t slowSeed = 1;
};

void
AddOptions(CheckedCommandLine& cmd, Options& o)
{
    cmd.AddString("topology", "topology spec", o.topology);
    cmd.AddString("scheduler", "scheduler name (see allreduce-rounds --list-schedulers)",
                  o.scheduler);
    cmd.AddInteger("pieces", "pieces per chunk (k)", o.pieces, 1, 1000000);
    cmd.AddChoice("mode", "barrier (round by round) or async (as links free up)", o.config.mode,
                  {"barrier", "async"});
    AddTransportOptions(cmd, o.config);
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB or 16MB",
                 o.config.gradientBytes, 4, MAX_MEMORY_BYTES);
    AddLinkOptions(cmd, o.config);
    cmd.AddString("schedule-in",
                  "replay this schedule file (doc/allreduce.rst, \"Schedule files\") on the "
                  "topology it carries, along its paths; with --topology (the same graph), on "
                  "that topology, its link rates included. Or run an MSCCL algorithm (XML) on "
                  "--topology",
                  o.scheduleIn);
    cmd.AddString("ranks",
                  "with an MSCCL algorithm in --schedule-in: the server of each rank, e.g. "
                  "0,4,8,12 or 0-7 (default: rank i on server i)",
                  o.ranks);
    cmd.AddFlag("pcap", "write pcap traces to OUT-<node>-<device>.pcap", o.pcap);
    cmd.AddString("netanim",
                  "write a NetAnim animation trace (XML) to this file; small topologies only",
                  o.config.netanimFile);
    cmd.AddChoice("format", "output format", o.format, {"text", "json"});
    cmd.AddChoice("values", "integer (sums exact) or float gradients", o.config.values,
                  {"integer", "float"});
    cmd.AddInteger("seed", "gradient seed", o.config.seed, 0, UINT32_MAX);
    cmd.AddReal("loss", "per-packet loss probability on every link (RateErrorModel)", o.config.loss,
                0, 1);
    cmd.AddChoice("decisions",
                  "online (the scheduler decides inside the simulation; the default with a "
                  "scheduler) or replay (the plan made beforehand; the default for optimal and "
                  "--schedule-in)",
                  o.decisions, {"online", "replay"});
    cmd.AddRepeated("link-down", "take this topology link down mid-run (may be repeated)",
                    o.linkDown);
    cmd.AddRepeated("link-down-at",
                    "when to take the --link-down of the same place down (default 0; give one "
                    "per --link-down)",
                    o.linkDownAt);
    cmd.AddString("stragglers",
                  "late gradients: K:DELAY (K servers chosen at random, e.g. 2:500us), "
                  "K:exp:MEAN, all:exp:MEAN, list:T0,T1,... or none",
                  o.config.stragglers);
    cmd.AddInteger("straggler-seed", "which servers are late, and how late", o.config.stragglerSeed,
                   0, UINT32_MAX);
    cmd.AddReal("background-load",
                "other traffic between random server pairs: each server offers this fraction of "
                "its link rate (onoff), or this fraction of the servers send (bulk); 0: none",
                o.config.backgroundLoad, 0, 1);
    cmd.AddChoice("background", "the background application: onoff (ns-3 OnOffApplication at a "
                  "constant rate) or bulk (BulkSendApplication)",
                  o.config.backgroundApplication, {"onoff", "bulk"});
    cmd.AddInteger("background-seed", "who sends background traffic to whom",
                   o.config.backgroundSeed, 0, UINT32_MAX);
    cmd.AddString("slow-links",
                  "FRACTION[:FACTOR]: a seeded share of the links runs at FACTOR (default 0.5) "
                  "times the rate; the same as the spec options slow=,slowrate=",
                  o.slowLinks);
    cmd.AddInteger("slow-seed", "which links --slow-links slows", o.slowSeed, 0, UINT32_MAX);
    cmd.AddTime("stall-timeout", "end the run when no data arrives for this long", o.config.stallTimeout,
                NanoSeconds(1), Seconds(1e6));
    cmd.AddString("out", "output prefix of the figure (OUT-rounds.dat/.plt/.png) and pcaps", o.out);
    cmd.AddFlag("distributed",
                "run as a distributed simulation on one process: the protocol of a run under "
                "mpirun, with the same completion time (on several ranks it is on anyway)",
                o.config.distributed);
    cmd.AddChoice("partition", "distributed: how nodes are shared out over the ranks: auto "
                  "(groups where the topology has enough, else metis), groups (pods, cells) "
                  "or metis",
                  o.config.partition, {"auto", "groups", "metis"});
    cmd.AddChoice("synchronizer", "distributed, on several ranks: ns-3's granted-time-window "
                  "(DistributedSimulatorImpl) or null-message (NullMessageSimulatorImpl)",
                  o.config.synchronizer, {"granted-time-window", "null-message"});
}

/// \param spec a topology spec \return true when it has slow=, slowrate= or slowseed=
bool
SpecHasSlowLinks(const std::string& spec)
{
    std::istringstream options(spec.substr(spec.find(':') + 1));
    for (std::string item; std::getline(options, item, ',');)
    {
        const std::string key = item.substr(0, item.find('='));
        const size_t first = key.find_first_not_of(' ');
        const std::string trimmed =
            first == std::string::npos
                ? ""
                : key.substr(first, key.find_last_not_of(' ') - first + 1);
        if (item.find('=') != std::string::npos &&
            (trimmed == "slow" || trimmed == "slowrate" || trimmed == "slowseed"))
        {
            return true;
        }
    }
    return false;
}

/// Checks the options together and completes the run's configuration from them.
void
CheckOptions(const CheckedCommandLine& cmd, Options& o)
{
    cmd.RefuseWith("schedule-in", {"scheduler", "pieces"}, "the file holds the schedule");
    if (o.scheduleIn.empty())
    {
        cmd.RefuseWithout("schedule-in", {"ranks"});
    }
    o.config.linkDowns = ParseLinkDowns(o.linkDown, o.linkDownAt);
    if (o.config.stragglers == "none" || !cmd.IsGiven("stragglers"))
    {
        cmd.RefuseWithout("stragglers", {"straggler-seed"});
    }
    else if (o.config.stragglers.rfind("list:", 0) == 0 && cmd.IsGiven("straggler-seed"))
    {
        throw std::invalid_argument("--straggler-seed chooses late servers and delays at "
                                    "random; --stragglers=list: gives them all: drop "
                                    "--straggler-seed");
    }
    cmd.RefuseSameFile({"schedule-in", "topology"}, {"netanim"});
    cmd.RefuseAttributes(GetPacketRunAttributes());
    cmd.CheckWritable({"netanim"});
    if (o.config.backgroundLoad == 0)
    {
        cmd.RefuseWithout("background-load", {"background", "background-seed"});
    }
    if (o.slowLinks.empty())
    {
        cmd.RefuseWithout("slow-links", {"slow-seed"});
    }
    else
    {
        if (o.topology.empty())
        {
            throw std::invalid_argument("--slow-links needs --topology (with --schedule-in, "
                                        "the spec of the file's topology)");
        }
        if (SpecHasSlowLinks(o.topology))
        {
            throw std::invalid_argument("--slow-links and the spec's slow= options both slow "
                                        "links: give one of them (--topology='" +
                                        o.topology + "')");
        }
        o.topology += SlowLinksSpecOptions(o.slowLinks, o.slowSeed);
    }
    if (!o.config.distributed)
    {
        cmd.RefuseWithout("distributed", {"partition", "synchronizer"});
    }
    // Distributed, the plan is replayed unless online is asked for (which is then refused).
    o.config.decisions = ChooseDecisions(
        o.decisions.empty() && o.config.distributed ? "replay" : o.decisions,
        o.scheduleIn.empty() ? o.scheduler : "");
    if (o.pcap)
    {
        o.config.pcapPrefix = o.out;
        std::error_code ignored; // an unwritable place is reported by the pcap writer
        std::filesystem::create_directories(std::filesystem::path(o.out).parent_path(), ignored);
    }
}

/// \return the plan to run: from --schedule-in, or the scheduler's on --topology (which then
///         decides online when \p online is set to it)
Plan
MakeRunPlan(const Options& o, Ptr<AllReduceScheduler>& online)
{
    if (!o.scheduleIn.empty())
    {
        std::string note;
        Plan plan = ReadPlanFile(o.scheduleIn,
                                 o.topology,
                                 o.ranks.empty() ? std::vector<uint32_t>{}
                                                 : ParseRanksValue("ranks", o.ranks),
                                 &note);
        if (!note.empty())
        {
            std::cerr << "allreduce-packet: note: " << note << std::endl;
        }
        return plan;
    }
    if (o.topology.empty())
    {
        throw std::invalid_argument(
            "give --topology=SPEC (e.g. bcube:n=3,k=1) or --schedule-in=FILE");
    }
    // The plan gives the workloads (the scheduler's flow trees) and, replayed, the rounds.
    const Topology topo = RunWithHeartbeat(std::cerr,
                                           "allreduce-packet",
                                           "building " + o.topology,
                                           [&] { return BuildTopology(o.topology); });
    // Before planning: a million pieces of a small gradient would build millions of workloads.
    const uint64_t values = o.config.gradientBytes / 4;
    if (values < uint64_t{topo.GetNServers()} * o.pieces)
    {
        throw std::invalid_argument(
            "--pieces=" + std::to_string(o.pieces) + " leaves pieces of no value: the gradient "
            "(--gradient-bytes, " + std::to_string(values) + " 4-byte values) is cut into " +
            std::to_string(topo.GetNServers()) + " chunks (one per server) of " +
            std::to_string(o.pieces) + " pieces; give --pieces at most " +
            std::to_string(std::max<uint64_t>(1, values / topo.GetNServers())) +
            ", or a larger --gradient-bytes");
    }
    online = CreateScheduler(o.scheduler);
    return online->MakePlan(topo, o.pieces);
}

/// \return the exit status of a run (2: not finished or not verified)
int
Status(const PacketRunReport& report)
{
    return report.result.finished && report.verification.verified ? 0 : 2;
}

/// Prints the report and its figure. \return the exit status (2: not finished or not verified)
int
Report(const Options& o, const Plan& plan, const PacketRunReport& report)
{
    for (const std::string& note : report.notes)
    {
        std::cerr << "allreduce-packet: note: " << note << std::endl;
    }
    const std::string figure = WritePacketRoundsFigure(o.out + "-rounds", plan, o.config, report);
    if (o.format == "json")
    {
        WritePacketReportJson(std::cout, plan, o.config, report, figure);
    }
    else
    {
        PrintPacketReport(std::cout, plan, o.config, report);
        std::cout << "figure: " << figure << "\n";
    }
    const AllReduceRunResult& r = report.result;
    if (!r.finished)
    {
        std::cerr << "allreduce-packet: " << r.error << std::endl;
        return 2;
    }
    if (!report.verification.verified)
    {
        std::cerr << "allreduce-packet: " << report.verification.message << std::endl;
        return 2;
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CheckedCommandLine cmd(__FILE__,
                           "Runs an AllReduce packet by packet in ns-3 (TCP over point-to-point "
                           "links), with real gradient values merged at the servers, and "
                           "verifies the result exactly.\n" +
                               TOPOLOGY_SPECS_HELP);
    AddOptions(cmd, o);
    cmd.AcceptDistributedLaunch();
    try
    {
        cmd.Parse(argc, argv);
        o.config.distributed = o.config.distributed || GetLaunchRanks() > 1;
        o.config.progress = "allreduce-packet"; // long runs say how far they are
        CheckOptions(cmd, o);
        DistributedSession session("allreduce-packet", o.config); // MPI, on several ranks
        Ptr<AllReduceScheduler> online;
        Plan plan = MakeRunPlan(o, online);
        if (o.config.decisions != "online")
        {
            online = nullptr; // what it kept to decide (its priorities of the whole plan) goes
        }
        // An invalid schedule is refused by the controller before the simulation starts. The
        // run keeps the plan (held once) and hands it back as the report's run.
        const PacketRunReport report = RunPacketAllReduce(std::move(plan), o.config, online);
        return session.IsReporter() ? Report(o, report.run, report) : Status(report);
    }
    catch (const std::exception& e)
    {
        if (GetLaunchRank() == 0) // every rank meets the same bad input: one says so
        {
            std::cerr << "allreduce-packet: error: " << DescribeError(e) << std::endl;
        }
        return 1;
    }
}
