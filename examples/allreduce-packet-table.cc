/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Fidelity of the flow-level model: the seed paper's nine topologies x the schedulers, each
// schedule run packet by packet in ns-3 (barrier and async) beside the flow-level prediction
// rounds x T_S (T_S: one piece over one link), with every result verified exactly.
//
//   allreduce-packet-table
//   allreduce-packet-table --schedulers=ps,ring,balanced --gradient-bytes=4MiB --modes=barrier
//
// Exit status: 0 when every run finished and verified, 1 for bad input, 2 otherwise.

#include "example-util.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;
using allreduce_example::RunGnuplot;
using allreduce_example::ShortLabel;
using allreduce_example::ParseList;

int
main(int argc, char* argv[])
{
    // drl (the shipped checkpoints) when this build has LibTorch
    std::string schedulerList =
        std::string("ps,ring,greedy,balanced") + (IsDrlAvailable() ? ",drl" : "");
    std::string modeList = "barrier,async";
    std::string topologyList;
    std::string out = "results/allreduce-packet-table";
    PacketRunConfig config;
    config.gradientBytes = 1 << 20;

    CheckedCommandLine cmd(__FILE__,
                           "Packet-level completion time of each schedule beside the flow-level "
                           "prediction (rounds x the time of one piece over one link), on the "
                           "seed paper's nine topologies, every result verified exactly.");
    cmd.AddString("schedulers", "comma-separated scheduler names", schedulerList);
    cmd.AddString("modes", "comma-separated controller modes (barrier, async)", modeList);
    cmd.AddString("topologies",
                  "semicolon-separated topology specs (default: the paper's nine, Jellyfish "
                  "seed 1)",
                  topologyList);
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB", config.gradientBytes,
                 4, MAX_MEMORY_BYTES);
    cmd.AddDataRate("data-rate", "rate of every link", config.dataRate);
    cmd.AddString("delay", "propagation delay of every link, e.g. 1us", config.delay);
    cmd.AddString("out", "output prefix: PREFIX.csv, PREFIX.json, PREFIX.dat/.plt/.png", out);

    try
    {
        cmd.Parse(argc, argv);
        ParseTimeValue("delay", config.delay);
        const std::vector<std::string> schedulers = ParseList("schedulers", schedulerList, ',');
        const std::vector<std::string> modes = ParseList("modes", modeList, ',');
        const std::vector<std::string> specs = cmd.IsGiven("topologies")
                                                   ? ParseList("topologies", topologyList, ';')
                                                   : PaperTopologySpecs();
        for (const auto& name : schedulers)
        {
            CreateScheduler(name); // fails early, naming the available ones
        }
        for (const auto& mode : modes)
        {
            if (mode != "barrier" && mode != "async")
            {
                throw std::invalid_argument("--modes takes barrier and async, got '" + mode +
                                            "'");
            }
        }
        if (std::filesystem::path(out).has_parent_path())
        {
            std::filesystem::create_directories(std::filesystem::path(out).parent_path());
        }

        const auto start = std::chrono::steady_clock::now();
        nlohmann::json rows = nlohmann::json::array();
        std::string failed;
        std::cout << std::left << std::setw(50) << "topology" << std::setw(10) << "scheduler"
                  << std::right << std::setw(7) << "rounds" << std::setw(12) << "flow ms";
        for (const auto& mode : modes)
        {
            std::cout << std::setw(12) << (mode + " ms") << std::setw(8) << "ratio";
        }
        std::cout << std::setw(10) << "verified" << "\n";
        for (const auto& spec : specs)
        {
            const Topology topo = BuildTopology(spec);
            for (const auto& name : schedulers)
            {
                const Plan plan = CreateScheduler(name)->MakePlan(topo, 1);
                nlohmann::json row{{"topology", topo.GetName()},
                                   {"scheduler", name},
                                   {"servers", topo.GetNServers()},
                                   {"rounds", plan.schedule.GetNRounds()}};
                std::cout << std::left << std::setw(50) << topo.GetName() << std::setw(10)
                          << name << std::right << std::setw(7) << plan.schedule.GetNRounds()
                          << std::flush;
                bool verified = true;
                bool first = true;
                for (const auto& mode : modes)
                {
                    config.mode = mode;
                    config.flowMonitor = false;
                    const PacketRunReport r = RunPacketAllReduce(plan, config);
                    if (first)
                    {
                        row["piece_time_s"] = r.pieceTime;
                        row["predicted_s"] = r.predictedTime;
                        std::cout << std::fixed << std::setprecision(3) << std::setw(12)
                                  << r.predictedTime * 1e3;
                        first = false;
                    }
                    const bool ok = r.result.finished && r.verification.verified;
                    verified = verified && ok;
                    if (!ok && failed.empty())
                    {
                        failed = name + " " + mode + " on " + topo.GetName() + ": " +
                                 (r.result.finished ? r.verification.message : r.result.error);
                    }
                    const double ratio = r.result.completionTime / r.predictedTime;
                    row[mode] = {{"completion_time_s", r.result.completionTime},
                                 {"ratio", ratio},
                                 {"verified", ok},
                                 {"events", r.events},
                                 {"wall_s", r.wallSeconds}};
                    std::cout << std::setw(12) << r.result.completionTime * 1e3 << std::setw(8)
                              << std::setprecision(2) << ratio << std::setprecision(3)
                              << std::flush;
                }
                row["verified"] = verified;
                std::cout << std::setw(10) << (verified ? "yes" : "NO") << "\n";
                rows.push_back(row);
            }
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << "\ngradient " << config.gradientBytes << " bytes per server, "
                  << config.dataRate << " links, " << config.delay
                  << " delay; ratio = packet-level completion time / (rounds x T_S)\n"
                  << "every run verified exactly: " << (failed.empty() ? "yes" : "NO") << " ("
                  << std::setprecision(1) << seconds << " s)\n";

        const std::string csv = out + ".csv";
        {
            std::ofstream c(csv);
            c << "topology,scheduler,servers,rounds,predicted_s";
            for (const auto& mode : modes)
            {
                c << "," << mode << "_s," << mode << "_ratio";
            }
            c << ",verified\n";
            for (const auto& row : rows)
            {
                c << '"' << row["topology"].get<std::string>() << "\","
                  << row["scheduler"].get<std::string>() << "," << row["servers"] << ","
                  << row["rounds"] << "," << row["predicted_s"];
                for (const auto& mode : modes)
                {
                    c << "," << row[mode]["completion_time_s"] << "," << row[mode]["ratio"];
                }
                c << "," << (row["verified"].get<bool>() ? "true" : "false") << "\n";
            }
        }
        const std::string json = out + ".json";
        std::ofstream(json) << nlohmann::json{{"gradient_bytes", config.gradientBytes},
                                              {"data_rate", config.dataRate},
                                              {"delay", config.delay},
                                              {"verified", failed.empty()},
                                              {"seconds", seconds},
                                              {"rows", rows}}
                                   .dump(2)
                            << "\n";

        // The figure: packet-level time over the prediction, per topology and scheduler, one
        // panel per mode.
        const std::string dat = out + ".dat";
        const std::string plt = out + ".plt";
        const std::string png = out + ".png";
        {
            std::ofstream d(dat);
            for (size_t m = 0; m < modes.size(); ++m)
            {
                d << "# mode " << modes[m] << ": topology";
                for (const auto& name : schedulers)
                {
                    d << " " << name;
                }
                d << "\n";
                for (size_t i = 0; i < rows.size(); i += schedulers.size())
                {
                    d << nlohmann::json(ShortLabel(rows[i]["topology"].get<std::string>()))
                             .dump();
                    for (size_t s = 0; s < schedulers.size(); ++s)
                    {
                        d << " " << rows[i + s][modes[m]]["ratio"].get<double>();
                    }
                    d << "\n";
                }
                d << "\n\n";
            }
            std::ofstream p(plt);
            p << "set terminal pngcairo size 1100," << 380 * modes.size() << " noenhanced\n"
              << "set output '" << png << "'\n"
              << "set multiplot layout " << modes.size() << ",1\n"
              << "set style data histograms\n"
              << "set style histogram clustered gap 1\n"
              << "set style fill solid 0.8 border -1\n"
              << "set boxwidth 0.9\n"
              << "set ylabel 'packet time / (rounds x T_S)'\n"
              << "set yrange [0:*]\n"
              << "set xtics rotate by -30 left\n"
              << "set key top left horizontal\n"
              << "set offsets 0, 0, 0.6, 0\n"
              << "set grid ytics\n"
              << "set bmargin 5\n";
            for (size_t m = 0; m < modes.size(); ++m)
            {
                p << "set title 'Packet level over flow level, " << modes[m] << " mode ("
                  << config.gradientBytes << " B gradient, " << config.dataRate << ")'\n"
                  << "plot ";
                for (size_t s = 0; s < schedulers.size(); ++s)
                {
                    p << (s ? ", '' index " : "'" + dat + "' index ") << m << " using " << s + 2
                      << (s ? "" : ":xtic(1)") << " title '" << schedulers[s] << "'";
                }
                p << ", 1 with lines lw 2 lc rgb 'black' title 'flow level'\n";
            }
            p << "unset multiplot\n";
        }
        std::cout << "\nwrote " << csv << "\nwrote " << json << "\nfigure: "
                  << RunGnuplot(plt, png, dat) << "\n";
        if (!failed.empty())
        {
            std::cerr << "allreduce-packet-table: " << failed << std::endl;
            return 2;
        }
        return 0;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-packet-table: error: " << e.what() << std::endl;
        return 1;
    }
}
