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
//
// With a scheduler, the scheduler decides online inside the simulation (--decisions=online,
// the default but for optimal): it sees which workloads are done, in flight and ready, which
// links are busy and down, and routes around links that fail. --decisions=replay replays the
// plan made before the simulation, as a schedule file is.
//
// Exit status: 0 when every server holds the exact sum, 1 for bad input, 2 when the run did
// not finish (stall, failed connection) or a server's vector is wrong.

#include "allreduce-experiment.h"
#include "checked-command-line.h"
#include "packet-report.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <filesystem>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string topology;
    std::string scheduler = "greedy";
    uint32_t pieces = 1;
    std::string scheduleIn;
    std::string ranks;
    bool pcap = false;
    std::string format = "text";
    std::string out = "results/allreduce-packet";
    PacketRunConfig config;
    config.gradientBytes = 1 << 20;
    std::vector<std::string> linkDown;
    std::vector<std::string> linkDownAt;
    std::string decisions;
    std::string slowLinks;
    uint32_t slowSeed = 1;
    Time stallTimeout = Seconds(config.stallTimeout);

    CheckedCommandLine cmd(__FILE__,
                           "Runs an AllReduce packet by packet in ns-3 (TCP over point-to-point "
                           "links), with real gradient values merged at the servers, and "
                           "verifies the result exactly.\n"
                           "Specs: bcube:n=N,k=K  dcell:n=N,k=K  "
                           "jellyfish:switches=S,degree=R[,servers=H][,seed=X]  fattree:k=K  "
                           "random:switches=S[,links=L][,servers=H][,seed=X]  file:PATH");
    cmd.AddString("topology", "topology spec", topology);
    cmd.AddString("scheduler", "scheduler name (see allreduce-rounds --list-schedulers)",
                  scheduler);
    cmd.AddInteger("pieces", "pieces per chunk (k)", pieces, 1, 1000000);
    cmd.AddChoice("mode", "barrier (round by round) or async (as links free up)", config.mode,
                  {"barrier", "async"});
    AddTransportOptions(cmd, config);
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB or 16MB",
                 config.gradientBytes, 4, MAX_MEMORY_BYTES);
    cmd.AddDataRate("data-rate", "rate of every link", config.dataRate);
    cmd.AddString("delay", "propagation delay of every link, e.g. 1us", config.delay);
    cmd.AddString("schedule-in",
                  "replay this schedule file (doc/allreduce.rst, \"Schedule files\") on the "
                  "topology it carries, along its paths; with --topology, the file must be for "
                  "that topology. Or run an MSCCL algorithm (XML) on --topology",
                  scheduleIn);
    cmd.AddString("ranks",
                  "with an MSCCL algorithm in --schedule-in: the server of each rank, e.g. "
                  "0,4,8,12 or 0-7 (default: rank i on server i)",
                  ranks);
    cmd.AddFlag("pcap", "write pcap traces to OUT-<node>-<device>.pcap", pcap);
    cmd.AddChoice("format", "output format", format, {"text", "json"});
    cmd.AddChoice("values", "integer (sums exact) or float gradients", config.values,
                  {"integer", "float"});
    cmd.AddInteger("seed", "gradient seed", config.seed, 0, UINT32_MAX);
    cmd.AddReal("loss", "per-packet loss probability on every link (RateErrorModel)", config.loss,
                0, 1);
    cmd.AddChoice("decisions",
                  "online (the scheduler decides inside the simulation; the default with a "
                  "scheduler) or replay (the plan made beforehand; the default for optimal and "
                  "--schedule-in)",
                  decisions, {"online", "replay"});
    cmd.AddRepeated("link-down", "take this topology link down mid-run (may be repeated)",
                    linkDown);
    cmd.AddRepeated("link-down-at",
                    "when to take the --link-down of the same place down (default 0; give one "
                    "per --link-down)",
                    linkDownAt);
    cmd.AddString("stragglers",
                  "late gradients: K:DELAY (K servers chosen at random, e.g. 2:500us), "
                  "K:exp:MEAN, all:exp:MEAN, list:T0,T1,... or none",
                  config.stragglers);
    cmd.AddInteger("straggler-seed", "which servers are late, and how late", config.stragglerSeed,
                   0, UINT32_MAX);
    cmd.AddReal("background-load",
                "other traffic between random server pairs: each server offers this fraction of "
                "its link rate (onoff), or this fraction of the servers send (bulk); 0: none",
                config.backgroundLoad, 0, 1);
    cmd.AddChoice("background", "the background application: onoff (ns-3 OnOffApplication at a "
                  "constant rate) or bulk (BulkSendApplication)",
                  config.backgroundApplication, {"onoff", "bulk"});
    cmd.AddInteger("background-seed", "who sends background traffic to whom",
                   config.backgroundSeed, 0, UINT32_MAX);
    cmd.AddString("slow-links",
                  "FRACTION[:FACTOR]: a seeded share of the links runs at FACTOR (default 0.5) "
                  "times the rate; the same as the spec options slow=,slowrate=",
                  slowLinks);
    cmd.AddInteger("slow-seed", "which links --slow-links slows", slowSeed, 0, UINT32_MAX);
    cmd.AddTime("stall-timeout", "end the run when no data arrives for this long", stallTimeout,
                NanoSeconds(1), Seconds(1e6));
    cmd.AddString("out", "output prefix of the figure (OUT-rounds.dat/.plt/.png) and pcaps", out);

    try
    {
        cmd.Parse(argc, argv);
        // The delay is checked like every time value, before ns-3 sees it.
        ParseTimeValue("delay", config.delay);
        cmd.RefuseWith("schedule-in", {"scheduler", "pieces"}, "the file holds the schedule");
        if (scheduleIn.empty())
        {
            cmd.RefuseWithout("schedule-in", {"ranks"});
        }
        config.linkDowns = ParseLinkDowns(linkDown, linkDownAt);
        if (config.backgroundLoad == 0)
        {
            cmd.RefuseWithout("background-load", {"background", "background-seed"});
        }
        if (slowLinks.empty())
        {
            cmd.RefuseWithout("slow-links", {"slow-seed"});
        }
        else
        {
            if (topology.empty())
            {
                throw std::invalid_argument("--slow-links needs --topology (with --schedule-in, "
                                            "the spec of the file's topology)");
            }
            topology += SlowLinksSpecOptions(slowLinks, slowSeed);
        }
        config.decisions = ChooseDecisions(decisions, scheduleIn.empty() ? scheduler : "");
        config.stallTimeout = stallTimeout.GetSeconds();
        if (pcap)
        {
            config.pcapPrefix = out;
            std::error_code ignored; // an unwritable place is reported by the pcap writer
            std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ignored);
        }

        Plan plan;
        Ptr<AllReduceScheduler> online;
        if (!scheduleIn.empty())
        {
            std::string note;
            plan = ReadPlanFile(scheduleIn, topology,
                                ranks.empty() ? std::vector<uint32_t>{}
                                              : ParseIdListValue("ranks", ranks),
                                &note);
            if (!note.empty())
            {
                std::cerr << "allreduce-packet: note: " << note << std::endl;
            }
        }
        else
        {
            if (topology.empty())
            {
                throw std::invalid_argument(
                    "give --topology=SPEC (e.g. bcube:n=3,k=1) or --schedule-in=FILE");
            }
            // The plan gives the workloads (the scheduler's flow trees) and, replayed, the rounds.
            online = CreateScheduler(scheduler);
            plan = online->MakePlan(BuildTopology(topology), pieces);
        }
        // An invalid schedule is refused by the controller before the simulation starts.
        const PacketRunReport report =
            RunPacketAllReduce(plan, config, config.decisions == "online" ? online : nullptr);
        for (const std::string& note : report.notes)
        {
            std::cerr << "allreduce-packet: note: " << note << std::endl;
        }
        const std::string figure = WritePacketRoundsFigure(out + "-rounds", plan, config, report);
        if (format == "json")
        {
            WritePacketReportJson(std::cout, plan, config, report, figure);
        }
        else
        {
            PrintPacketReport(std::cout, plan, config, report);
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
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-packet: error: " << e.what() << std::endl;
        return 1;
    }
}
