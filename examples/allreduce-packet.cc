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
//   allreduce-packet --topology=bcube:n=3,k=1 --loss=0.01   (1% loss on every link)
//   allreduce-packet --topology=bcube:n=3,k=1 --link-down=0 --link-down-at=20us
//
// Exit status: 0 when every server holds the exact sum, 1 for bad input, 2 when the run did
// not finish (stall, failed connection) or a server's vector is wrong.

#include "example-util.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;
using allreduce_example::ReadPlanFile;
using allreduce_example::RunGnuplot;

int
main(int argc, char* argv[])
{
    std::string topology;
    std::string scheduler = "greedy";
    uint32_t pieces = 1;
    std::string scheduleIn;
    bool pcap = false;
    std::string format = "text";
    std::string out = "results/allreduce-packet";
    PacketRunConfig config;
    config.gradientBytes = 1 << 20;
    Time linkDownAt = Seconds(0);
    Time stallTimeout = Seconds(config.stallTimeout);

    CheckedCommandLine cmd(__FILE__,
                           "Runs an AllReduce packet by packet in ns-3 (TCP over point-to-point "
                           "links), with real gradient values merged at the servers, and "
                           "verifies the result exactly.\n"
                           "Specs: bcube:n=N,k=K  dcell:n=N,k=K  "
                           "jellyfish:switches=S,degree=R[,servers=H][,seed=X]  fattree:k=K  "
                           "file:PATH");
    cmd.AddString("topology", "topology spec", topology);
    cmd.AddString("scheduler", "scheduler name (see allreduce-rounds --list-schedulers)",
                  scheduler);
    cmd.AddInteger("pieces", "pieces per chunk (k)", pieces, 1, 1000000);
    cmd.AddChoice("mode", "barrier (round by round) or async (as links free up)", config.mode,
                  {"barrier", "async"});
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB or 16MB",
                 config.gradientBytes, 4, MAX_MEMORY_BYTES);
    cmd.AddDataRate("data-rate", "rate of every link", config.dataRate);
    cmd.AddString("delay", "propagation delay of every link, e.g. 1us", config.delay);
    cmd.AddString("schedule-in",
                  "replay this schedule file (doc/allreduce.rst, \"Schedule files\") on the "
                  "topology it carries, along its paths; with --topology, the file must be for "
                  "that topology",
                  scheduleIn);
    cmd.AddFlag("pcap", "write pcap traces to OUT-<node>-<device>.pcap", pcap);
    cmd.AddChoice("format", "output format", format, {"text", "json"});
    cmd.AddChoice("values", "integer (sums exact) or float gradients", config.values,
                  {"integer", "float"});
    cmd.AddInteger("seed", "gradient seed", config.seed, 0, UINT32_MAX);
    cmd.AddReal("loss", "per-packet loss probability on every link (RateErrorModel)", config.loss,
                0, 1);
    cmd.AddInteger("link-down", "take this topology link down mid-run (-1: none)",
                   config.linkDown, -1, INT64_MAX);
    cmd.AddTime("link-down-at", "when to take --link-down down", linkDownAt, Seconds(0),
                Seconds(1e6));
    cmd.AddTime("stall-timeout", "end the run when no data arrives for this long", stallTimeout,
                NanoSeconds(1), Seconds(1e6));
    cmd.AddString("out", "output prefix of the figure (OUT-rounds.dat/.plt/.png) and pcaps", out);

    try
    {
        cmd.Parse(argc, argv);
        // The delay is checked like every time value, before ns-3 sees it.
        ParseTimeValue("delay", config.delay);
        cmd.RefuseWith("schedule-in", {"scheduler", "pieces"}, "the file holds the schedule");
        if (cmd.IsGiven("link-down-at") && config.linkDown < 0)
        {
            throw std::invalid_argument("--link-down-at needs --link-down=LINK");
        }
        config.linkDownAt = linkDownAt.GetSeconds();
        config.stallTimeout = stallTimeout.GetSeconds();
        if (!out.empty() && std::filesystem::path(out).has_parent_path())
        {
            std::filesystem::create_directories(std::filesystem::path(out).parent_path());
        }
        if (pcap)
        {
            config.pcapPrefix = out;
        }

        Plan plan;
        if (!scheduleIn.empty())
        {
            plan = ReadPlanFile(scheduleIn, topology);
        }
        else
        {
            if (topology.empty())
            {
                throw std::invalid_argument(
                    "give --topology=SPEC (e.g. bcube:n=3,k=1) or --schedule-in=FILE");
            }
            plan = CreateScheduler(scheduler)->MakePlan(BuildTopology(topology), pieces);
        }
        // An invalid schedule is refused by the controller before the simulation starts.
        const PacketRunReport report = RunPacketAllReduce(plan, config);
        for (const std::string& note : report.notes)
        {
            std::cerr << "allreduce-packet: note: " << note << std::endl;
        }
        const AllReduceRunResult& r = report.result;
        const Topology& topo = plan.workloads.GetTopology();
        const uint32_t rounds = plan.schedule.GetNRounds();

        // The figure: each round's duration (first start to last finish) beside T_S.
        const std::string dat = out + "-rounds.dat";
        const std::string plt = out + "-rounds.plt";
        const std::string png = out + "-rounds.png";
        {
            std::ofstream d(dat);
            d << "# round start_us end_us duration_us\n";
            for (uint32_t t = 0; t < rounds; ++t)
            {
                const bool done = r.roundEnd[t] >= 0;
                d << t << " " << r.roundStart[t] * 1e6 << " "
                  << (done ? r.roundEnd[t] * 1e6 : 0) << " "
                  << (done ? (r.roundEnd[t] - r.roundStart[t]) * 1e6 : 0) << "\n";
            }
            std::ofstream p(plt);
            p << "set terminal pngcairo size 900,480 noenhanced\n"
              << "set output '" << png << "'\n"
              << "set title '" << topo.GetName() << ", " << plan.schedule.scheduler << ", "
              << config.mode << ": " << r.completionTime * 1e3 << " ms, " << rounds
              << " rounds'\n"
              << "set style fill solid 0.7 border -1\n"
              << "set boxwidth 0.8\n"
              << "set xlabel 'round'\n"
              << "set ylabel 'duration (us)'\n"
              << "set yrange [0:*]\n"
              << "set grid ytics\n"
              << "set key below\n"
              << "set xrange [-0.5:" << rounds << "-0.5]\n"
              << "plot '" << dat << "' using 1:4 with boxes title 'round duration (packet level)', "
              << report.pieceTime * 1e6
              << " with lines lw 2 lc rgb 'black' title 'T_S: one piece over one link'\n";
        }
        const std::string figure = RunGnuplot(plt, png, dat);

        const std::vector<double> utilization = report.GetLinkUtilization();
        double meanUtil = 0;
        double maxUtil = 0;
        uint64_t wireBytes = 0;
        for (size_t i = 0; i < utilization.size(); ++i)
        {
            meanUtil += utilization[i] / utilization.size();
            maxUtil = std::max(maxUtil, utilization[i]);
            wireBytes += report.linkBytes[i];
        }
        uint64_t lost = 0;
        for (const auto& f : report.flows)
        {
            lost += f.lostPackets;
        }

        if (format == "json")
        {
            nlohmann::json flows = nlohmann::json::array();
            for (const auto& f : report.flows)
            {
                flows.push_back({{"workload", f.workload},
                                 {"src", f.src},
                                 {"dst", f.dst},
                                 {"tx_bytes", f.txBytes},
                                 {"rx_bytes", f.rxBytes},
                                 {"tx_packets", f.txPackets},
                                 {"rx_packets", f.rxPackets},
                                 {"lost_packets", f.lostPackets},
                                 {"mean_delay_s", f.meanDelay},
                                 {"duration_s", f.duration}});
            }
            nlohmann::json roundDurations = nlohmann::json::array();
            for (uint32_t t = 0; t < rounds; ++t)
            {
                roundDurations.push_back(r.roundEnd[t] >= 0 ? r.roundEnd[t] - r.roundStart[t]
                                                            : -1.0);
            }
            nlohmann::json doc{
                {"topology", topo.GetName()},
                {"scheduler", plan.schedule.scheduler},
                {"mode", config.mode},
                {"servers", topo.GetNServers()},
                {"workloads", plan.workloads.GetN()},
                {"pieces", plan.workloads.GetPieces()},
                {"gradient_bytes", config.gradientBytes},
                {"data_rate", config.dataRate},
                {"delay", config.delay},
                {"loss", config.loss},
                {"finished", r.finished},
                {"completion_time_s", r.completionTime},
                {"rounds", rounds},
                {"round_durations_s", roundDurations},
                {"piece_time_s", report.pieceTime},
                {"predicted_time_s", report.predictedTime},
                {"verified", report.verification.verified},
                {"verification", report.verification.message},
                {"flows", flows},
                {"lost_packets", lost},
                {"bytes_sent", r.payloadBytes},
                {"wire_bytes", wireBytes},
                {"link_utilization_mean", meanUtil},
                {"link_utilization_max", maxUtil},
                {"events", report.events},
                {"wall_s", report.wallSeconds},
                {"figure", png},
            };
            if (!r.error.empty())
            {
                doc["error"] = r.error;
            }
            std::cout << doc.dump(2) << std::endl;
        }
        else
        {
            std::cout << std::setprecision(4) << "topology    " << topo.GetName() << ": "
                      << topo.GetNServers() << " servers, " << topo.GetNLinks() << " links, "
                      << config.dataRate << ", " << config.delay
                      << (config.loss > 0 ? ", loss " : "")
                      << (config.loss > 0 ? std::to_string(config.loss) : "") << "\n"
                      << "schedule    " << plan.schedule.scheduler << ", " << rounds
                      << " rounds, " << plan.workloads.GetN() << " workloads, mode "
                      << config.mode
                      << "\n"
                      << "gradient    " << config.gradientBytes << " bytes per server, "
                      << config.values << " values\n";
            if (r.finished)
            {
                std::cout << "completion  " << r.completionTime * 1e3 << " ms (flow level: "
                          << rounds << " rounds x T_S " << report.pieceTime * 1e6 << " us = "
                          << report.predictedTime * 1e3 << " ms, ratio "
                          << r.completionTime / report.predictedTime << ")\n";
            }
            else
            {
                std::cout << "NOT FINISHED: " << r.error << "\n";
            }
            std::cout << "traffic     " << r.payloadBytes << " gradient bytes sent, " << wireBytes
                      << " bytes on the wire, " << report.flows.size() << " data flows, "
                      << lost << " packets lost\n"
                      << "links       utilization mean " << meanUtil << ", max " << maxUtil
                      << "\n"
                      << "simulation  " << report.events << " events in " << report.wallSeconds
                      << " s wall\n"
                      << report.verification.message << "\n"
                      << "figure: " << figure << "\n";
        }
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
