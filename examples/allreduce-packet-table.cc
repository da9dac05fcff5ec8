/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Fidelity of the flow-level model: the seed paper's nine topologies x the schedulers, each
// schedule run packet by packet in ns-3 (barrier and async) beside the flow-level prediction
// rounds x T_S (T_S: one piece over one link), with every result verified exactly. Then the
// same topologies and fat-tree k=4 with aggregating switches (every switch, and a seeded half),
// with the schedulers whose workloads merge at switches, against the fastest without.
//
//   allreduce-packet-table
//   allreduce-packet-table --schedulers=ps,ring,balanced --gradient-bytes=4MiB --modes=barrier
//   allreduce-packet-table --aggregation=none          (without the aggregation comparison)
//
// Says on stderr what runs, n of m, with the time elapsed and an estimate of the time left.
// The experiment itself is PacketTable (experiment/tables/packet-table.h).
//
// Exit status: 0 when every run finished and verified, 1 for bad input, 2 otherwise.

#include "allreduce-experiment.h"
#include "checked-command-line.h"
#include "packet-table.h"
#include "paper-topologies.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    // drl (the shipped checkpoints) when this build has LibTorch
    std::string schedulers = std::string("ps,ring,greedy,balanced") +
                             (GetSchedulerUnavailableReason("drl").empty() ? ",drl" : "");
    std::string modes = "barrier,async";
    std::string topologies;
    std::string shares = "all,0.5";
    std::string aggregationTopologies = "fattree:k=4";
    std::string out = "results/allreduce-packet-table";
    PacketTableConfig config;
    config.run.gradientBytes = 1 << 20;
    config.run.warmUps = 1; // the steady state of a training job's iterations

    CheckedCommandLine cmd(__FILE__,
                           "Packet-level completion time of each schedule beside the flow-level "
                           "prediction (rounds x the time of one piece over one link), on the "
                           "seed paper's nine topologies, every result verified exactly. Each "
                           "measured AllReduce follows --warm-ups untimed ones on the same "
                           "connections (default 1; 0 with --connections=per-transfer).");
    cmd.AddString("schedulers", "comma-separated scheduler names", schedulers);
    cmd.AddString("modes", "comma-separated controller modes (barrier, async)", modes);
    cmd.AddString("topologies",
                  "semicolon-separated topology specs (default: the paper's nine, Jellyfish "
                  "seed 1)",
                  topologies);
    cmd.AddString("aggregation",
                  "the ina= shares of aggregating switches also run on every topology (all, or "
                  "fractions in (0, 1]; 'none': no comparison)",
                  shares);
    cmd.AddString("aggregation-topologies",
                  "semicolon-separated topology specs run for the aggregation comparison only, "
                  "with every scheduler but drl ('none': none)",
                  aggregationTopologies);
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB", config.run.gradientBytes,
                 4, MAX_MEMORY_BYTES);
    AddLinkOptions(cmd, config.run);
    AddTransportOptions(cmd, config.run);
    cmd.AddString("out", "output prefix: PREFIX.csv, PREFIX.json, PREFIX.dat/.plt/.png", out);
    try
    {
        cmd.Parse(argc, argv);
        cmd.RefuseAttributes(GetPacketRunAttributes());
        if (config.run.connections == "per-transfer" && !cmd.IsGiven("warm-ups"))
        {
            config.run.warmUps = 0; // nothing carries over from one transfer to the next
        }
        config.schedulers = ParseListValue("schedulers", schedulers, ',');
        config.modes = ParseListValue("modes", modes, ',');
        config.topologies = cmd.IsGiven("topologies") ? ParseListValue("topologies", topologies, ';')
                                                      : PaperTopologySpecs();
        if (shares == "none" && cmd.IsGiven("aggregation-topologies"))
        {
            throw std::invalid_argument("--aggregation-topologies has no effect with "
                                        "--aggregation=none (they run for the aggregation "
                                        "comparison only); give one or the other");
        }
        if (shares != "none")
        {
            config.shares = ParseListValue("aggregation", shares, ',');
            if (aggregationTopologies != "none")
            {
                config.aggregationTopologies =
                    ParseListValue("aggregation-topologies", aggregationTopologies, ';');
            }
        }
        PacketTable table(config);
        table.RunAndWrite("allreduce-packet-table", out, std::cout, std::cerr);
        if (!table.GetFailure().empty())
        {
            std::cerr << "allreduce-packet-table: " << table.GetFailure() << std::endl;
            return 2;
        }
        return 0;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-packet-table: error: " << DescribeError(e) << std::endl;
        return 1;
    }
}
