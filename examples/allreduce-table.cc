/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The headline flow-level experiment: the seed paper's nine topologies (its Table 2) x the
// schedulers. Per topology: nodes, links, workloads, the bandwidth bound, each scheduler's
// rounds (mean ± std over seeds for Jellyfish) and its ratio to the bound, and the paper's
// numbers beside them. Writes PREFIX.csv, PREFIX.json and a Gnuplot figure PREFIX.png; says
// on stderr what runs, n of m, with the time elapsed and an estimate of the time left.
// The experiment itself is RoundsTable (experiment/tables/rounds-table.h).
// With the `optimal` scheduler (COIN-OR CBC) the table also has the optimum: a number where it
// was proven, an interval [lower, upper] where the time limit stopped the search, and a second
// table of every scheduler's gap to it.
// Then aggregation in the network against server-only merge (AggregationTable): the nine
// topologies and fat-tree k=4 and k=8, ps/ring/balanced without aggregating switches and
// ps/balanced with them (every switch, and a seeded half), in PREFIX-aggregation.*.
//
//   allreduce-table                                    (all schedulers, results/allreduce-table.*)
//   allreduce-table --schedulers=ps,ring,greedy --seeds=3 --out=/tmp/table
//   allreduce-table --time-limit=120 --trees-per-root=3   (may also choose balanced's trees)
//   allreduce-table --aggregation=none                     (the first table only)
//
// Exit status: 0 when every schedule is valid, 1 for bad input, 2 when one is invalid.

#include "aggregation-table.h"
#include "checked-command-line.h"
#include "rounds-table.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

using namespace ns3;

/// Refuses the options of drl and optimal when --schedulers does not run them.
void
RefuseOptionsOfSchedulersNotRun(const CheckedCommandLine& cmd,
                                const std::vector<std::string>& schedulers)
{
    for (const auto& [scheduler, options] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"drl", {"drl-model", "drl-samples", "generalization"}},
             {"optimal", {"time-limit", "trees-per-root"}}})
    {
        if (std::find(schedulers.begin(), schedulers.end(), scheduler) != schedulers.end())
        {
            continue;
        }
        for (const std::string& option : options)
        {
            if (cmd.IsGiven(option))
            {
                throw std::invalid_argument("--" + option + " has no effect: --schedulers does "
                                            "not run " + scheduler + "; add " + scheduler +
                                            " to --schedulers, or leave --" + option + " out");
            }
        }
    }
}

/// \return the attributes the table sets on its schedulers, and what to give instead
std::vector<std::pair<std::string, std::string>>
GetAttributesTheTableSets()
{
    return {{"ns3::OptimalScheduler::TimeLimit", "--time-limit"},
            {"ns3::OptimalScheduler::TreesPerRoot", "--trees-per-root"},
            {"ns3::OptimalScheduler::StartFrom",
             "--schedulers (optimal starts from the best plan of the others)"},
            {"ns3::DrlScheduler::Model", "--drl-model"},
            {"ns3::DrlScheduler::Samples", "--drl-samples"}};
}

int
main(int argc, char* argv[])
{
    RoundsTableConfig config;
    AggregationTableConfig aggregation;
    std::string shares = "all,0.5";
    std::string schedulers;
    std::string out = "results/allreduce-table";
    config.generalization = GetDrlGeneralModelPath();

    CheckedCommandLine cmd(__FILE__,
                           "The seed paper's nine topologies x the schedulers, in rounds, with "
                           "the lower bounds and the paper's numbers.");
    cmd.AddString("schedulers", "comma-separated scheduler names (default: every registered one)",
                  schedulers);
    cmd.AddInteger("seeds", "Jellyfish seeds 1..SEEDS averaged (mean ± std)", config.seeds, 1,
                   1000);
    cmd.AddInteger("pieces", "pieces per chunk (k)", config.pieces, 1, 1000);
    cmd.AddString("out", "output prefix: PREFIX.csv, PREFIX.json, PREFIX.dat/.plt/.png", out);
    cmd.AddReal("time-limit", "optimal: seconds per topology (and seed)", config.timeLimit, 0.001,
                1e6);
    cmd.AddInteger("trees-per-root",
                   "optimal: candidate flow trees per root (1: the shortest-path trees of greedy "
                   "and ps; 3 adds balanced's trees, a much harder program)",
                   config.treesPerRoot,
                   1,
                   16);
    cmd.AddString("drl-model",
                  "drl: one checkpoint for every topology (default: the shipped one per topology "
                  "in checkpoints/)",
                  config.drlModel);
    cmd.AddInteger("drl-samples", "drl: sampled episodes besides the greedy one",
                   config.drlSamples, 0, 100000);
    cmd.AddString("generalization",
                  "drl: a checkpoint trained on other topologies, reported in the notes on every "
                  "row (seed 1); none: no such note",
                  config.generalization);
    cmd.AddString("aggregation",
                  "the ina= shares of aggregating switches compared with server-only merge "
                  "(all, or fractions in (0, 1]; 'none' skips the comparison)",
                  shares);
    try
    {
        cmd.Parse(argc, argv);
        cmd.RefuseAttributes(GetAttributesTheTableSets());
        if (cmd.IsGiven("schedulers"))
        {
            config.schedulers = ParseListValue("schedulers", schedulers, ',');
            RefuseOptionsOfSchedulersNotRun(cmd, config.schedulers);
        }
        if (config.generalization == "none")
        {
            config.generalization.clear();
        }
        for (const auto& [option, path] : {std::make_pair("drl-model", config.drlModel),
                                           std::make_pair("generalization", config.generalization)})
        {
            // Before the first run, not when drl's turn comes.
            if (cmd.IsGiven(option) && !path.empty() && !std::ifstream(path).good())
            {
                throw std::invalid_argument(std::string("--") + option + "='" + Abbreviate(path) +
                                            "' cannot be opened; give a checkpoint written by "
                                            "allreduce-train (checkpoints/ has those shipped)");
            }
        }
        RoundsTable table(config);
        std::unique_ptr<AggregationTable> withAggregation;
        if (shares != "none")
        {
            aggregation.shares = ParseListValue("aggregation", shares, ',');
            aggregation.seeds = config.seeds;
            aggregation.pieces = config.pieces;
            withAggregation = std::make_unique<AggregationTable>(aggregation); // checks first
        }
        table.RunAndWrite("allreduce-table", out, std::cout, std::cerr);
        std::string failure = table.GetFailure();
        if (withAggregation)
        {
            withAggregation->RunAndWrite("allreduce-table (aggregation)",
                                         out + "-aggregation",
                                         std::cout,
                                         std::cerr);
            failure = failure.empty() ? withAggregation->GetFailure() : failure;
        }
        if (!failure.empty())
        {
            std::cerr << "allreduce-table: invalid schedule: " << failure << std::endl;
            return 2;
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-table: error: " << DescribeError(e) << std::endl;
        return 1;
    }
    return 0;
}
