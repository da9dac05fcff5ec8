/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Several training jobs sharing one cluster: each job an AllReduce over the servers a placement
// policy gives it, arriving on a trace, computing between its AllReduces, its rounds sharing the
// cluster's links with the other jobs' (flow level, or packet by packet in one ns-3 simulation
// with real data, every AllReduce verified exactly).
//
// One run, reported per job (with --topology):
//   allreduce-cluster --topology=fattree:k=8 --trace=jobs.csv --placement=topology-aware
//                     --joint=true --scheduler=balanced --format=json
//   allreduce-cluster --topology=fattree:k=8 --jobs=20 --level=packet
// The experiment (without --topology): a seeded trace of 50 jobs on fat-tree k=8, BCube(4,2)
// and Jellyfish(40 switches, 4 servers each), every placement x independent/joint x scheduler:
//   allreduce-cluster
//   allreduce-cluster --jobs=20 --schedulers=greedy --placements=packed,topology-aware
//
// The experiment says on stderr what runs, n of m, with the time elapsed and an estimate of the
// time left; it writes OUT.csv, OUT.json and OUT.png (the JCT distribution per policy). The
// experiment itself is ClusterTable (experiment/tables/cluster-table.h), one run ClusterEngine
// (model/cluster/cluster-engine.h).
//
// Exit status: 0 when every job of every run passed the validator (and at packet level ended
// with the exact sums), 1 for bad input, 2 otherwise.

#include "checked-command-line.h"
#include "cluster-report.h"
#include "cluster-table.h"
#include "packet-cluster.h"
#include "report-format.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/network-module.h"

#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

using namespace ns3;

namespace
{

/// \return the whole numbers of a comma-separated list, each in [1, max]
std::vector<uint32_t>
ParseSizes(const std::string& option, const std::string& text, uint32_t max)
{
    std::vector<uint32_t> sizes;
    for (const std::string& item : ParseListValue(option, text, ',', true))
    {
        uint64_t value = 0;
        if (!ParseWholeNumber(item, max, value) || value == 0)
        {
            throw std::invalid_argument("--" + option + ": '" + Abbreviate(item) +
                                        "' is not a whole number from 1 to " +
                                        std::to_string(max));
        }
        sizes.push_back(static_cast<uint32_t>(value));
    }
    return sizes;
}

/// Called as each job finishes, with how many are done.
using JobDoneCallback = std::function<void(const ClusterJobResult&, uint32_t)>;

/// The program's options, with their defaults.
struct Options
{
    std::string topology;
    std::string topologies = "fattree:k=8;bcube:n=4,k=2;"
                             "jellyfish:switches=40,degree=6,servers=4,seed=1";
    std::string trace;
    std::string writeTrace;
    std::string scheduleOut;
    std::string placement = "topology-aware";
    std::string placements = "packed,random,topology-aware";
    bool joint = false;
    std::string scheduler = "balanced";
    std::string schedulers = "ps,ring,greedy,balanced";
    std::string level = "flow";
    std::string mode = "barrier";
    std::string transport = "tcp";
    Time delay = MicroSeconds(1);
    std::string format = "text";
    DataRate dataRate{"10Gbps"};
    std::string sizes = "4,8,16,32";
    uint32_t pieces = 1;
    uint64_t seed = 1;
    JobTraceConfig generated = [] {
        JobTraceConfig c;
        c.jobs = 50;
        c.gradientBytes = {uint64_t{1} << 20};
        c.iterations = 5;
        c.computeS = 0.5e-3;
        c.meanInterarrivalS = 2e-3;
        return c;
    }();
    Time meanGap = Seconds(generated.meanInterarrivalS);
    Time compute = Seconds(generated.computeS);
    std::string out = "results/allreduce-cluster";
};

/// \return the placements' names, comma-separated
std::string
PlacementNames()
{
    std::string names;
    for (const auto& [name, description] : ListPlacements())
    {
        names += (names.empty() ? "" : ", ") + name;
    }
    return names;
}

void
AddOptions(CheckedCommandLine& cmd, Options& o)
{
    cmd.AddString("topology", "one run on this topology, reported per job", o.topology);
    cmd.AddString("topologies",
                  "the experiment's topologies, semicolon-separated (without --topology)",
                  o.topologies);
    cmd.AddString("trace",
                  "job trace CSV (arrival_s,servers,gradient_bytes,iterations,compute_s); "
                  "default: a generated one",
                  o.trace);
    cmd.AddString("write-trace", "write the jobs run to this CSV file", o.writeTrace);
    cmd.AddString("schedule-out",
                  "one run: write each AllReduce's schedule on its job's view to "
                  "PREFIX-job<id>-<n>.json (check one with allreduce-rounds --schedule-in)",
                  o.scheduleOut);
    cmd.AddString("placement", "placement of the one run (" + PlacementNames() + ")", o.placement);
    cmd.AddString("placements", "the experiment's placements, comma-separated", o.placements);
    cmd.AddFlag("joint", "the one run schedules jointly (jobs with least work left first, "
                         "around the links the others hold) instead of independently",
                o.joint);
    cmd.AddString("scheduler", "every job's scheduler in the one run", o.scheduler);
    cmd.AddString("schedulers", "the experiment's schedulers, comma-separated", o.schedulers);
    cmd.AddChoice("level",
                  "flow (rounds) or packet (one ns-3 simulation, every AllReduce verified "
                  "exactly; one run only)",
                  o.level,
                  {"flow", "packet"});
    cmd.AddChoice("mode", "packet level: each AllReduce in barrier rounds or async", o.mode,
                  {"barrier", "async"});
    cmd.AddChoice("transport",
                  "packet level: tcp, or rdma (RoCEv2 with DCQCN over lossless Ethernet)",
                  o.transport,
                  {"tcp", "rdma"});
    cmd.AddTime("delay",
                "packet level: propagation delay of every link, e.g. 1us",
                o.delay,
                Seconds(0),
                Seconds(1e6));
    cmd.AddChoice("format", "output of the one run", o.format, {"text", "json"});
    cmd.AddInteger("jobs", "jobs in the generated trace", o.generated.jobs, 1, 100000);
    cmd.AddString("sizes", "servers per job, drawn uniformly for the generated trace", o.sizes);
    cmd.AddBytes("gradient-bytes", "gradient size per server in the generated trace, e.g. 1MiB",
                 o.generated.gradientBytes[0], 4, MAX_MEMORY_BYTES);
    cmd.AddInteger("iterations", "AllReduces per job in the generated trace",
                   o.generated.iterations, 1, 1000000);
    cmd.AddTime("compute",
                "computing before each AllReduce in the generated trace (iterations x compute "
                "at most 1e9s)",
                o.compute, Seconds(0), Seconds(1e9));
    cmd.AddTime("mean-gap", "mean time between arrivals in the generated trace (Poisson)",
                o.meanGap, Seconds(0), Seconds(1e9));
    cmd.AddInteger("seed", "draws the generated trace and the random placement", o.seed, 0,
                   UINT64_MAX);
    cmd.AddInteger("pieces", "pieces per chunk (k)", o.pieces, 1, 1000000);
    cmd.AddDataRate("data-rate", "link rate that turns rounds into seconds", o.dataRate);
    cmd.AddString("out", "the experiment's output prefix: OUT.csv, OUT.json, OUT.dat/.plt/.png",
                  o.out);
}

/// \return the text of one of the file-name options
const std::string*
OptionText(const Options& o, const std::string& option)
{
    return option == "topology"       ? &o.topology
           : option == "trace"        ? &o.trace
           : option == "write-trace"  ? &o.writeTrace
           : option == "schedule-out" ? &o.scheduleOut
                                      : &o.out;
}

/// \return whether the placement named runs: --placement in one run, one of --placements in the
///         experiment
bool
PlacementRuns(const CheckedCommandLine& cmd, const Options& o, const std::string& name)
{
    if (cmd.IsGiven("topology"))
    {
        return o.placement == name;
    }
    for (const std::string& p : ParseListValue("placements", o.placements, ','))
    {
        if (p == name)
        {
            return true;
        }
    }
    return false;
}

/// Refuses --seed when nothing it seeds runs: a generated trace with something to draw, the
/// random placement, or packet level's gradient values.
void
CheckSeedApplies(const CheckedCommandLine& cmd, const Options& o)
{
    if (!cmd.IsGiven("seed"))
    {
        return;
    }
    const bool draws = o.trace.empty() &&
                       (o.generated.jobs > 1 || ParseListValue("sizes", o.sizes, ',', true).size() > 1);
    if (!draws && !PlacementRuns(cmd, o, "random") && o.level != "packet")
    {
        throw std::invalid_argument(
            "--seed has no effect here: it draws the generated trace (" +
            std::string(o.trace.empty() ? "one job of one size: nothing to draw"
                                        : "--trace is read instead") +
            "), the random placement (" +
            (cmd.IsGiven("topology") ? "--placement=" + o.placement : "--placements=" + o.placements) +
            ") and packet level's gradient values (--level=flow); leave --seed out");
    }
}

/// Refuses the --ns3:: attributes that the run would ignore or overwrite: a placement's when
/// that placement does not run, the random placement's seed (--seed sets it), the controller's
/// that every job sets from its trace row, and every packet-level one at flow level.
void
CheckAttributeArguments(int argc, char* argv[], const CheckedCommandLine& cmd, const Options& o)
{
    const std::vector<std::pair<std::string, std::string>> placements{
        {"ns3::ListPlacement::", "list"},
        {"ns3::RandomPlacement::", "random"},
        {"ns3::TopologyAwarePlacement::", "topology-aware"}};
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        arg = arg.substr(std::min(arg.find_first_not_of('-'), arg.size()));
        const std::string name = arg.substr(0, arg.find('='));
        if (name.rfind("ns3::", 0) != 0)
        {
            continue;
        }
        const std::string option = "--" + Abbreviate(name);
        if (name == "ns3::RandomPlacement::Seed")
        {
            throw std::invalid_argument(option + " has no effect: --seed sets the random "
                                        "placement's seed; give --seed instead");
        }
        bool placementAttribute = false;
        for (const auto& [prefix, placement] : placements)
        {
            if (name.rfind(prefix, 0) == 0)
            {
                placementAttribute = true;
                if (!PlacementRuns(cmd, o, placement))
                {
                    const bool single = cmd.IsGiven("topology");
                    throw std::invalid_argument(
                        option + " has no effect with " +
                        (single ? "--placement=" + o.placement : "--placements=" + o.placements) +
                        " (it only applies to the " + placement + " placement); give " +
                        (single ? "--placement=" : "--placements=...,") + placement +
                        ", or leave " + option + " out");
                }
            }
        }
        for (const char* set : {"GradientBytes", "StartTime", "Mode", "FirstSourcePort",
                                "StopWhenFinished", "SharedLinks"})
        {
            if (name == std::string("ns3::AllReduceController::") + set)
            {
                throw std::invalid_argument(
                    option + " has no effect: every job sets it (gradient_bytes and compute_s "
                    "of its trace row or --gradient-bytes and --compute, --mode, the ports of "
                    "its AllReduces); give the option or trace field instead");
            }
        }
        TypeId tid;
        const bool scheduler =
            TypeId::LookupByNameFailSafe(name.substr(0, name.rfind("::")), &tid) &&
            tid.IsChildOf(TypeId::LookupByName("ns3::AllReduceScheduler"));
        if (o.level == "flow" && !placementAttribute && !scheduler)
        {
            throw std::invalid_argument(option + " has no effect without --level=packet (the "
                                        "flow level simulates no packets); give "
                                        "--level=packet --topology=SPEC, or leave it out");
        }
    }
}

/// Refuses options that the run asked for (one run or the experiment, flow or packet level)
/// would ignore.
void
CheckOptionsApply(const CheckedCommandLine& cmd, const Options& o)
{
    const bool single = cmd.IsGiven("topology");
    if (o.level == "packet" && !single)
    {
        throw std::invalid_argument("the experiment runs at flow level; give --topology=SPEC "
                                    "for one packet-level run");
    }
    for (const char* option : {"mode", "delay", "transport"})
    {
        if (o.level == "flow" && cmd.IsGiven(option))
        {
            throw std::invalid_argument(std::string("--") + option +
                                        " has no effect without --level=packet; give "
                                        "--level=packet too, or leave --" + option + " out");
        }
    }
    for (const char* option : single ? std::vector<const char*>{"topologies", "placements",
                                                                "schedulers", "out"}
                                     : std::vector<const char*>{"placement", "joint",
                                                                "scheduler", "format",
                                                                "schedule-out"})
    {
        if (cmd.IsGiven(option))
        {
            throw std::invalid_argument(
                std::string("--") + option +
                (single ? " is an option of the experiment; drop --topology to run it"
                        : " is an option of one run; give --topology=SPEC as well"));
        }
    }
    for (const char* option : {"topology", "trace", "write-trace", "schedule-out", "out"})
    {
        if (cmd.IsGiven(option) && Trim(*OptionText(o, option)).empty())
        {
            throw std::invalid_argument(std::string("--") + option + "= is empty; give " +
                                        (std::string(option) == "topology"
                                             ? "a topology such as fattree:k=8"
                                             : std::string("a file name")) +
                                        ", or leave it out");
        }
    }
    cmd.RefuseWith("trace",
                   {"jobs", "sizes", "gradient-bytes", "iterations", "compute", "mean-gap"},
                   "the jobs are read from the trace, not drawn");
    if (!o.trace.empty() && o.trace == o.writeTrace)
    {
        throw std::invalid_argument("--write-trace=" + o.writeTrace +
                                    " would overwrite --trace, the file read; give another file");
    }
    // However the paths are spelled (./, .., links).
    cmd.RefuseSameFile({"trace", "topology"}, {"write-trace", "schedule-out"});
    cmd.CheckWritable({"write-trace", "schedule-out"});
    if (cmd.IsGiven("mean-gap") && o.generated.jobs == 1)
    {
        throw std::invalid_argument("--mean-gap has no effect with --jobs=1 (the only job "
                                    "arrives at 0); give more jobs, or leave --mean-gap out");
    }
    CheckSeedApplies(cmd, o);
}

/// \return the jobs: read from --trace or generated (\p traceName says which), written to
///         --write-trace when given
std::vector<JobSpec>
LoadJobs(Options& o, std::string& traceName)
{
    std::vector<JobSpec> jobs;
    if (!o.trace.empty())
    {
        jobs = ReadJobTrace(o.trace);
        traceName = o.trace;
    }
    else
    {
        o.generated.servers = ParseSizes("sizes", o.sizes, 1u << 24);
        if (o.generated.gradientBytes[0] % 4 != 0)
        {
            throw std::invalid_argument("--gradient-bytes " +
                                        std::to_string(o.generated.gradientBytes[0]) +
                                        " is not a multiple of 4 bytes (float32 values); give "
                                        "e.g. 1MiB");
        }
        const int64_t computeNs = o.compute.GetNanoSeconds();
        if (static_cast<double>(computeNs) * o.generated.iterations > 1e18)
        {
            throw std::invalid_argument("--iterations=" + std::to_string(o.generated.iterations) +
                                        " x --compute=" + Quantity::FormatTime(computeNs) +
                                        " is beyond 1e9 s, more than a simulation can reach; "
                                        "give fewer iterations or less computing");
        }
        o.generated.meanInterarrivalS = static_cast<double>(o.meanGap.GetNanoSeconds()) / 1e9;
        o.generated.computeS = static_cast<double>(computeNs) / 1e9;
        o.generated.seed = o.seed;
        try
        {
            jobs = GenerateJobTrace(o.generated);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("the generated trace (--jobs, --mean-gap, "
                                                    "--iterations, --compute): ") + e.what());
        }
        traceName = "generated, seed " + std::to_string(o.seed);
    }
    if (!o.writeTrace.empty())
    {
        WriteOutputFile(o.writeTrace, "write-trace", [&jobs](std::ostream& os) {
            os << FormatJobTrace(jobs);
        });
    }
    return jobs;
}

/// The experiment: every topology x placement x independent/joint x scheduler.
/// \return the exit status
int
RunExperiment(const Options& o, const std::vector<JobSpec>& jobs, double rateBps)
{
    ClusterTableConfig config;
    config.topologies = ParseListValue("topologies", o.topologies, ';');
    config.placements = ParseListValue("placements", o.placements, ',');
    config.schedulers = ParseListValue("schedulers", o.schedulers, ',');
    config.modes = {ClusterMode::INDEPENDENT, ClusterMode::JOINT};
    config.jobs = jobs;
    config.seed = o.seed;
    config.pieces = o.pieces;
    config.linkRateBps = rateBps;
    ClusterTable table(config);
    table.RunAndWrite("allreduce-cluster", o.out, std::cout, std::cerr);
    if (!table.GetFailure().empty())
    {
        std::cerr << "allreduce-cluster: " << table.GetFailure() << std::endl;
        return 2;
    }
    return 0;
}

/// \return a progress line on stderr every 2 s and at the end, for \p jobs jobs
JobDoneCallback
MakeProgress(size_t jobs)
{
    const auto began = std::chrono::steady_clock::now();
    auto lastLine = std::make_shared<std::chrono::steady_clock::time_point>(began);
    return [began, lastLine, jobs](const ClusterJobResult& job, uint32_t done) {
        const auto now = std::chrono::steady_clock::now();
        if (now - *lastLine > std::chrono::seconds(2) || done == jobs)
        {
            const double elapsed = std::chrono::duration<double>(now - began).count();
            std::cerr << "allreduce-cluster: " << done << " of " << jobs << " jobs done (job "
                      << job.id << " at " << FormatFixed(job.finishS * 1e3, 3)
                      << " ms simulated), " << ProgressReporter::FormatDuration(elapsed)
                      << " elapsed, about "
                      << ProgressReporter::FormatDuration(elapsed * (jobs - done) / done)
                      << " left" << std::endl;
            *lastLine = now;
        }
    };
}

/// Writes every AllReduce's schedule on its job's view to PREFIX-job<id>-<n>.json.
void
WriteJobSchedules(const std::string& prefix, const ClusterResult& result)
{
    uint32_t files = 0;
    for (const ClusterJobResult& job : result.jobs)
    {
        for (size_t n = 0; n < job.schedules.size() && job.workloads; ++n)
        {
            WriteScheduleFile(prefix + "-job" + std::to_string(job.id) + "-" +
                                  std::to_string(n) + ".json",
                              *job.workloads,
                              job.schedules[n]);
            ++files;
        }
    }
    std::cerr << "allreduce-cluster: wrote " << files << " schedule files (" << prefix
              << "-job<id>-<n>.json)" << std::endl;
}

/// One run on --topology, reported per job. \return the exit status
int
RunOne(const Options& o,
       const std::vector<JobSpec>& jobs,
       const std::string& traceName,
       double rateBps)
{
    const Topology cluster = RunWithHeartbeat(std::cerr,
                                              "allreduce-cluster",
                                              "building " + o.topology,
                                              [&] { return BuildTopology(o.topology); });
    Ptr<PlacementPolicy> policy = CreatePlacement(o.placement);
    policy->SetAttributeFailSafe("Seed", UintegerValue(o.seed));
    try
    {
        CheckClusterJobs(cluster, jobs, o.pieces);
        CheckPlacement(cluster, *policy, jobs);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument((o.trace.empty() ? std::string("the generated trace")
                                                     : "--trace=" + o.trace) +
                                    ": " + e.what());
    }
    ClusterRunInfo info;
    info.topology = cluster.GetName();
    info.trace = traceName;
    info.placement = o.placement;
    info.level = o.level;
    info.config.scheduler = o.scheduler;
    info.config.mode = o.joint ? ClusterMode::JOINT : ClusterMode::INDEPENDENT;
    info.config.pieces = o.pieces;
    info.config.linkRateBps = rateBps;
    const auto start = std::chrono::steady_clock::now();
    const JobDoneCallback progress = MakeProgress(jobs.size());
    ClusterResult result;
    if (o.level == "packet")
    {
        PacketClusterConfig packet;
        packet.cluster = info.config;
        packet.mode = o.mode;
        packet.transport = o.transport;
        packet.dataRate = o.dataRate;
        packet.delay = o.delay;
        packet.seed = static_cast<uint32_t>(o.seed);
        result = RunPacketCluster(cluster, policy, packet, jobs, progress);
    }
    else
    {
        ClusterEngine engine(cluster, policy, info.config);
        engine.SetJobDoneCallback(progress);
        result = engine.Run(jobs);
    }
    info.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.scheduleOut.empty())
    {
        WriteJobSchedules(o.scheduleOut, result);
    }
    if (o.format == "json")
    {
        WriteClusterRunJson(std::cout, info, result);
    }
    else
    {
        PrintClusterRun(std::cout, info, result);
    }
    for (const ClusterJobResult& job : result.jobs)
    {
        if (!job.valid || (o.level == "packet" && !job.verified))
        {
            return 2;
        }
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    CheckedCommandLine cmd(__FILE__,
                           "Several AllReduce jobs sharing one cluster: placement, arrivals, "
                           "links shared by the jobs' rounds, independent or joint scheduling; "
                           "job completion times, every job's schedules validated.");
    AddOptions(cmd, o);
    try
    {
        cmd.Parse(argc, argv);
        CheckOptionsApply(cmd, o);
        CheckAttributeArguments(argc, argv, cmd, o);
        std::string traceName;
        const std::vector<JobSpec> jobs = LoadJobs(o, traceName);
        const double rateBps = static_cast<double>(o.dataRate.GetBitRate());
        return cmd.IsGiven("topology") ? RunOne(o, jobs, traceName, rateBps)
                                       : RunExperiment(o, jobs, rateBps);
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-cluster: error: " << DescribeError(e) << std::endl;
        return 1;
    }
}
