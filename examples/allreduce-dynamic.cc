/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Decisions inside ns-3 under dynamic conditions: on the seed paper's nine topologies, each
// scheduler's plan replayed as made and decided online by the scheduler inside the simulation,
// packet by packet, with nothing perturbed, one link failing at a random time, two late
// servers, 30% background traffic, and a quarter of the links at half rate; completion time,
// online over replay, decisions taken, every result verified exactly.
//
//   allreduce-dynamic
//   allreduce-dynamic --schedulers=greedy,drl --scenarios=link-down,background --seed=2
//   allreduce-dynamic --topologies="bcube:n=3,k=1" --mode=async --gradient-bytes=256KiB
//
// Says on stderr what runs, n of m, with the time elapsed and an estimate of the time left.
// The experiment itself is DynamicTable (experiment/tables/dynamic-table.h).
//
// Exit status: 0 when every online run (and every replay but those that stall on the failed
// link) ended with the exact sum, 1 for bad input, 2 otherwise.

#include "checked-command-line.h"
#include "dynamic-table.h"
#include "paper-topologies.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string schedulers = std::string("ps,ring,greedy,balanced") +
                             (GetSchedulerUnavailableReason("drl").empty() ? ",drl" : "");
    std::string scenarios = "none,link-down,stragglers,background,slow-links";
    std::string topologies;
    std::string out = "results/allreduce-dynamic";
    DynamicTableConfig config;
    config.run.gradientBytes = 1 << 20;

    CheckedCommandLine cmd(__FILE__,
                           "Each scheduler's plan replayed and decided online inside ns-3, under "
                           "dynamic conditions (a failed link, late servers, background traffic, "
                           "slower links), on the seed paper's nine topologies; every result "
                           "verified exactly.");
    cmd.AddString("schedulers", "comma-separated scheduler names (not optimal: it only replays)",
                  schedulers);
    cmd.AddString("scenarios",
                  "comma-separated scenarios: none, link-down, stragglers, background, slow-links",
                  scenarios);
    cmd.AddString("topologies",
                  "semicolon-separated topology specs (default: the paper's nine, Jellyfish "
                  "seed 1)",
                  topologies);
    cmd.AddChoice("mode", "barrier (round by round) or async (as links free up)", config.run.mode,
                  {"barrier", "async"});
    cmd.AddInteger("seed", "draws the failed link and its time, the late servers, the background "
                   "pairs and the slower links",
                   config.seed, 0, UINT32_MAX);
    cmd.AddBytes("gradient-bytes", "gradient size per server, e.g. 1MiB", config.run.gradientBytes,
                 4, MAX_MEMORY_BYTES);
    AddLinkOptions(cmd, config.run);
    cmd.AddString("out", "output prefix: PREFIX.csv, PREFIX.json, PREFIX.dat/.plt/.png", out);
    try
    {
        cmd.Parse(argc, argv);
        config.schedulers = ParseListValue("schedulers", schedulers, ',');
        config.scenarios = ParseListValue("scenarios", scenarios, ',');
        cmd.RefuseAttributes(GetPacketRunAttributes());
        if (cmd.IsGiven("seed") &&
            std::count(config.scenarios.begin(), config.scenarios.end(), "none") ==
                static_cast<long>(config.scenarios.size()))
        {
            throw std::invalid_argument("--seed has no effect with --scenarios=none (it draws "
                                        "the failed link, the late servers, the background "
                                        "traffic and the slowed links); leave --seed out");
        }
        config.topologies = cmd.IsGiven("topologies") ? ParseListValue("topologies", topologies, ';')
                                                      : PaperTopologySpecs();
        DynamicTable table(config);
        table.RunAndWrite("allreduce-dynamic", out, std::cout, std::cerr);
        if (!table.GetFailure().empty())
        {
            std::cerr << "allreduce-dynamic: " << table.GetFailure() << std::endl;
            return 2;
        }
        return 0;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-dynamic: error: " << DescribeError(e) << std::endl;
        return 1;
    }
}
