/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The headline flow-level experiment: the seed paper's nine topologies (its Table 2) x the
// schedulers. Per topology: nodes, links, workloads, the bandwidth bound, each scheduler's
// rounds (mean ± std over seeds for Jellyfish) and its ratio to the bound, and the paper's
// numbers beside them. Writes PREFIX.csv, PREFIX.json and a Gnuplot figure PREFIX.png.
// With the `optimal` scheduler (COIN-OR CBC) the table also has the optimum: a number where it
// was proven, an interval [lower, upper] where the time limit stopped the search, and a second
// table of every scheduler's gap to it.
//
//   allreduce-table                                    (all schedulers, results/allreduce-table.*)
//   allreduce-table --schedulers=ps,ring,greedy --seeds=3 --out=/tmp/table
//   allreduce-table --time-limit=120 --trees-per-root=3   (may also choose balanced's trees)
//
// Exit status: 0 when every schedule is valid, 1 for bad input, 2 when one is invalid.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include "example-util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

using namespace ns3;
using allreduce_example::RunGnuplot;
using allreduce_example::ShortLabel;
using allreduce_example::ParseList;

namespace
{

/// The seed paper's Table 2 in rounds: PS, Ring, its RL.
struct PaperRow
{
    double ps;
    double ring;
    double rl;
};

const std::map<std::string, PaperRow>&
PaperRounds()
{
    static const std::map<std::string, PaperRow> rows{
        {"bcube:n=3,k=1", {16.8, 18.0, 10.2}},
        {"bcube:n=4,k=1", {31.8, 64.0, 20.8}},
        {"bcube:n=5,k=1", {51.6, 150.0, 34.7}},
        {"dcell:n=4,k=1", {30.0, 47.1, 23.2}},
        {"dcell:n=5,k=1", {48.4, 75.9, 33.8}},
        {"dcell:n=6,k=1", {71.2, 112.3, 48.0}},
        {"jellyfish:switches=10,degree=4,servers=1,seed=1", {23.0, 40.0, 22.7}},
        {"jellyfish:switches=15,degree=4,servers=1,seed=1", {36.0, 69.6, 39.9}},
        {"jellyfish:switches=20,degree=4,servers=1,seed=1", {51.2, 80.0, 62.2}},
    };
    return rows;
}

/// Rounds of one scheduler on one topology (several values for random topologies).
struct Cell
{
    std::vector<double> rounds;
    std::vector<double> ratios;
    double seconds{0};
    // optimal only: the proven interval and status per seed
    std::vector<double> lower;
    std::vector<double> upper;
    std::vector<std::string> status;

    double Mean(const std::vector<double>& v) const
    {
        double s = 0;
        for (double x : v)
        {
            s += x;
        }
        return v.empty() ? 0 : s / v.size();
    }

    double Std(const std::vector<double>& v) const
    {
        const double m = Mean(v);
        double s = 0;
        for (double x : v)
        {
            s += (x - m) * (x - m);
        }
        return v.size() < 2 ? 0 : std::sqrt(s / (v.size() - 1));
    }
};

struct Row
{
    std::string spec;
    std::string name;
    uint32_t nodes{0};
    uint32_t links{0};
    uint32_t servers{0};
    uint32_t workloads{0};
    std::vector<double> bound; // bandwidth bound per seed
    std::map<std::string, Cell> cells;
    uint32_t seeds{1};
    double general{-1}; // drl with the generalization checkpoint, seed 1 (-1: not run)
};

std::string
MeanStd(const Cell& c, const std::vector<double>& v, int precision)
{
    std::ostringstream os;
    const bool constant = c.Std(v) == 0;
    os << std::fixed << std::setprecision(constant ? 0 : precision) << c.Mean(v);
    if (!constant)
    {
        os << "±" << std::setprecision(1) << c.Std(v);
    }
    return os.str();
}

/// \return the optimum as a number when every seed was proven, else "[lower, upper]" of means
std::string
OptimumText(const Cell& c)
{
    if (c.Mean(c.lower) == c.Mean(c.upper))
    {
        return MeanStd(c, c.upper, 1);
    }
    std::ostringstream os;
    const auto num = [&os](double v) {
        os << std::fixed << std::setprecision(v == std::floor(v) ? 0 : 1) << v;
    };
    os << "[";
    num(c.Mean(c.lower));
    os << ", ";
    num(c.Mean(c.upper));
    os << "]";
    return os.str();
}

/// \return rounds / optimum - 1 in percent, a range when the optimum is an interval
std::string
GapText(double rounds, double lower, double upper)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(0);
    const double a = 100 * (rounds / upper - 1);
    const double b = 100 * (rounds / lower - 1);
    os << (a >= 0 ? "+" : "") << a << "%";
    if (std::lround(a) != std::lround(b))
    {
        os << ".." << (b >= 0 ? "+" : "") << b << "%";
    }
    return os.str();
}

const std::string OPTIMAL = "optimal";
const std::string DRL = "drl";

/// A drl scheduler with the table's options.
Ptr<AllReduceScheduler>
MakeDrl(const std::string& model, uint32_t samples)
{
    Ptr<AllReduceScheduler> s = CreateScheduler(DRL);
    s->SetAttribute("Model", StringValue(model));
    s->SetAttribute("Samples", UintegerValue(samples));
    return s;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string schedulerList;
    uint32_t seeds = 5;
    uint32_t pieces = 1;
    std::string out = "results/allreduce-table";
    double timeLimit = 20;
    uint32_t treesPerRoot = 1;
    std::string drlModel;
    uint32_t drlSamples = 32;
    std::string generalization = GetDrlModelDirectory() + "/generalization.pt";

    CheckedCommandLine cmd(__FILE__,
                           "The seed paper's nine topologies x the schedulers, in rounds, with "
                           "the lower bounds and the paper's numbers.");
    cmd.AddString("schedulers", "comma-separated scheduler names (default: every registered one)",
                  schedulerList);
    cmd.AddInteger("seeds", "Jellyfish seeds 1..SEEDS averaged (mean ± std)", seeds, 1, 1000);
    cmd.AddInteger("pieces", "pieces per chunk (k)", pieces, 1, 1000);
    cmd.AddString("out", "output prefix: PREFIX.csv, PREFIX.json, PREFIX.dat/.plt/.png", out);
    cmd.AddReal("time-limit", "optimal: seconds per topology (and seed)", timeLimit, 0.001, 1e6);
    cmd.AddInteger("trees-per-root",
                   "optimal: candidate flow trees per root (1: the shortest-path trees of greedy "
                   "and ps; 3 adds balanced's trees, a much harder program)",
                   treesPerRoot,
                   1,
                   16);
    cmd.AddString("drl-model",
                  "drl: one checkpoint for every topology (default: the shipped one per topology "
                  "in models/)",
                  drlModel);
    cmd.AddInteger("drl-samples", "drl: sampled episodes besides the greedy one", drlSamples, 0,
                   100000);
    cmd.AddString("generalization",
                  "drl: a checkpoint trained on other topologies, reported in the notes on every "
                  "row (seed 1); empty: none",
                  generalization);

    try
    {
        cmd.Parse(argc, argv);
        std::vector<std::string> schedulers;
        if (cmd.IsGiven("schedulers"))
        {
            schedulers = ParseList("schedulers", schedulerList, ',');
        }
        std::string skipped;
        if (schedulers.empty())
        {
            for (const auto& entry : ListSchedulers())
            {
                const std::string why = GetSchedulerUnavailableReason(entry.first);
                if (!why.empty())
                {
                    skipped += entry.first + " skipped: " + why + "\n";
                    continue;
                }
                schedulers.push_back(entry.first);
            }
        }
        const bool withOptimal =
            std::find(schedulers.begin(), schedulers.end(), OPTIMAL) != schedulers.end();
        const bool withDrl = std::find(schedulers.begin(), schedulers.end(), DRL) != schedulers.end();
        const bool withGeneral =
            withDrl && !generalization.empty() && std::ifstream(generalization).good();
        for (const auto& name : schedulers)
        {
            CreateScheduler(name); // fails early, naming the available ones
        }
        const auto start = std::chrono::steady_clock::now();
        std::vector<Row> rows;
        std::string invalid;
        for (const auto& spec : PaperTopologySpecs())
        {
            Row row;
            row.spec = spec;
            const bool random = spec.rfind("jellyfish", 0) == 0;
            row.seeds = random ? seeds : 1;
            for (uint32_t seed = 1; seed <= row.seeds; ++seed)
            {
                std::string s = spec;
                if (random)
                {
                    s = s.substr(0, s.rfind("seed=")) + "seed=" + std::to_string(seed);
                }
                const Topology topo = BuildTopology(s);
                if (seed == 1)
                {
                    row.name = topo.GetName();
                    if (random && row.seeds > 1)
                    {
                        // The row averages seeds 1..S: say so in its name.
                        row.name = row.name.substr(0, row.name.rfind("seed=")) + "seed=1.." +
                                   std::to_string(row.seeds) + ")";
                    }
                    row.nodes = topo.GetNNodes();
                    row.links = topo.GetNLinks();
                    row.servers = topo.GetNServers();
                    row.workloads = 2 * row.servers * (row.servers - 1) * pieces;
                }
                row.bound.push_back(ComputeBandwidthBound(topo, pieces));
                if (withGeneral && seed == 1)
                {
                    const SchedulerResult r =
                        EvaluateScheduler(topo, MakeDrl(generalization, drlSamples), pieces);
                    row.general = r.check.valid ? r.plan.schedule.GetNRounds() : -1;
                }
                for (const auto& name : schedulers)
                {
                    Ptr<AllReduceScheduler> scheduler =
                        name == DRL ? MakeDrl(drlModel, drlSamples) : CreateScheduler(name);
                    Ptr<OptimalScheduler> optimal = DynamicCast<OptimalScheduler>(scheduler);
                    if (optimal)
                    {
                        optimal->SetAttribute("TimeLimit", DoubleValue(timeLimit));
                        optimal->SetAttribute("TreesPerRoot", UintegerValue(treesPerRoot));
                    }
                    const SchedulerResult r = EvaluateScheduler(topo, scheduler, pieces);
                    if (!r.check.valid && invalid.empty())
                    {
                        invalid = name + " on " + topo.GetName() + ": " + r.check.error;
                    }
                    Cell& cell = row.cells[name];
                    if (optimal)
                    {
                        const OptimalSearch& search = optimal->GetSearch();
                        cell.lower.push_back(search.lower);
                        cell.upper.push_back(search.upper);
                        cell.status.push_back(search.GetStatusName());
                    }
                    cell.rounds.push_back(r.plan.schedule.GetNRounds());
                    cell.ratios.push_back(r.GetRatio());
                    cell.seconds += r.seconds;
                }
            }
            rows.push_back(std::move(row));
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        // The table for a person.
        std::cout << std::left << std::setw(24) << "topology" << std::right << std::setw(6)
                  << "nodes" << std::setw(6) << "links" << std::setw(10) << "workloads"
                  << std::setw(7) << "bound";
        for (const auto& name : schedulers)
        {
            std::cout << std::setw(12) << name << std::setw(6) << "x";
        }
        std::cout << "   paper PS/Ring/RL\n";
        std::map<std::string, double> logSum;
        for (const auto& row : rows)
        {
            Cell boundCell;
            std::cout << std::left << std::setw(24) << ShortLabel(row.name)
                      << std::right << std::setw(6) << row.nodes << std::setw(6) << row.links
                      << std::setw(10) << row.workloads << std::setw(7)
                      << MeanStd(boundCell, row.bound, 1);
            for (const auto& name : schedulers)
            {
                const Cell& c = row.cells.at(name);
                std::ostringstream ratio;
                ratio << std::fixed << std::setprecision(2) << c.Mean(c.ratios);
                std::cout << std::setw(13)
                          << (name == OPTIMAL ? OptimumText(c) : MeanStd(c, c.rounds, 1))
                          << std::setw(6) << ratio.str();
                logSum[name] += std::log(c.Mean(c.ratios));
            }
            const PaperRow& p = PaperRounds().at(row.spec);
            std::cout << "   " << p.ps << "/" << p.ring << "/" << p.rl << "\n";
        }
        std::cout << std::left << std::setw(53) << "geometric mean of rounds / bound" << std::right;
        for (const auto& name : schedulers)
        {
            std::ostringstream g;
            g << std::fixed << std::setprecision(3) << std::exp(logSum[name] / rows.size());
            std::cout << std::setw(19) << g.str();
        }
        std::cout << "\n\nnotes: rounds as defined in the manual (doc/allreduce.rst) (one piece over one directed link per "
                     "round, k = "
                  << pieces << "); bound = ceil(2N(N-1)k / server ports); x = rounds / bound.\n"
                  << "Jellyfish rows: mean ± std over seeds 1.." << seeds
                  << " (20 switches: 60 links, where the paper has 59).\n"
                  << "The paper's PS/Ring/RL columns are its Table 2 as printed; its definitions "
                     "of rounds and workloads were looser than ours,\n"
                     "so ours differ: compare the trend, not digit by digit.\n"
                  << "every schedule validated: " << (invalid.empty() ? "yes" : "NO") << "; "
                  << std::fixed << std::setprecision(2) << seconds << " s in total\n";
        std::cout << skipped;
        if (withDrl)
        {
            // Where the learned scheduler stands against the best heuristic, row by row.
            int better = 0;
            int equal = 0;
            std::string worse;
            const std::string best = "balanced";
            for (const auto& row : rows)
            {
                if (!row.cells.count(best))
                {
                    break;
                }
                const double d = row.cells.at(DRL).Mean(row.cells.at(DRL).rounds);
                const double b = row.cells.at(best).Mean(row.cells.at(best).rounds);
                better += d < b - 1e-9;
                equal += std::abs(d - b) <= 1e-9;
                if (d > b + 1e-9)
                {
                    worse += (worse.empty() ? "" : ", ") + ShortLabel(row.name);
                }
            }
            if (rows.front().cells.count(best))
            {
                std::cout << "drl against balanced (the best heuristic): fewer rounds on "
                          << better << " rows, as many on " << equal << ", more on "
                          << rows.size() - better - equal << (worse.empty() ? "" : " (" + worse + ")")
                          << ".\n";
            }
            std::cout << "drl: "
                      << (drlModel.empty() ? "the shipped checkpoint of each topology (models/)"
                                           : "checkpoint " + drlModel)
                      << ", greedy + " << drlSamples << " sampled episodes, the fewest rounds.\n";
        }
        if (withGeneral)
        {
            const std::string info = GetDrlCheckpointInfo(generalization);
            std::cout << "generalization: " << generalization << " (" << info
                      << ")\n  rounds on seed 1, per topology (that checkpoint / the "
                         "topology's own / bound):";
            for (const auto& row : rows)
            {
                const Cell& own = row.cells.at(DRL);
                std::cout << "\n  " << std::left << std::setw(24)
                          << ShortLabel(row.name).substr(0, ShortLabel(row.name).rfind(",1..")) +
                                 (row.seeds > 1 ? ",1)" : "")
                          << std::right << std::setw(5) << static_cast<int>(row.general) << " /"
                          << std::setw(4) << static_cast<int>(own.rounds.front()) << " /"
                          << std::setw(4) << static_cast<int>(row.bound.front());
            }
            std::cout << "\n";
        }
        if (withOptimal)
        {
            // The gap of every scheduler to the optimum.
            std::cout << "\noptimal: the fewest rounds of merge workloads on "
                      << (treesPerRoot == 1
                              ? std::string("the shortest-path trees (greedy's)")
                              : "a choice of " + std::to_string(treesPerRoot) +
                                    " candidate trees per root (shortest-path, then "
                                    "balanced's)")
                      << ", proven with CBC within " << std::setprecision(0) << timeLimit
                      << " s per instance;\na number is proven, [lower, upper] is what was "
                         "proven when time ran out (x there is upper / bound).\n"
                      << "Gap = rounds / optimum - 1, a range where the optimum is an "
                         "interval; a scheduler on other trees or workloads can be below "
                         "it\n(balanced chooses its trees): that is what the choice of trees "
                         "is worth.\n\n"
                      << std::left << std::setw(24) << "topology" << std::right
                      << std::setw(14) << "optimum" << std::setw(16) << "status";
            for (const auto& name : schedulers)
            {
                if (name != OPTIMAL)
                {
                    std::cout << std::setw(14) << name;
                }
            }
            std::cout << "\n";
            for (const auto& row : rows)
            {
                const Cell& o = row.cells.at(OPTIMAL);
                std::map<std::string, int> statuses;
                for (const auto& st : o.status)
                {
                    ++statuses[st];
                }
                std::string st;
                for (const auto& [name, count] : statuses)
                {
                    st += (st.empty() ? "" : ", ") +
                          (o.status.size() > 1 ? std::to_string(count) + " " : "") + name;
                }
                std::cout << std::left << std::setw(24) << ShortLabel(row.name) << std::right
                          << std::setw(14) << OptimumText(o) << std::setw(16) << st;
                for (const auto& name : schedulers)
                {
                    if (name != OPTIMAL)
                    {
                        const Cell& c = row.cells.at(name);
                        std::cout << std::setw(14)
                                  << GapText(c.Mean(c.rounds), o.Mean(o.lower), o.Mean(o.upper));
                    }
                }
                std::cout << "\n";
            }
        }

        // CSV and JSON.
        const std::string csv = out + ".csv";
        std::ofstream c(csv);
        if (!c)
        {
            throw std::invalid_argument("cannot write '" + csv +
                                        "': check that the directory of --out exists");
        }
        c << "topology,nodes,links,servers,workloads,bound_bandwidth";
        for (const auto& name : schedulers)
        {
            c << "," << name << "_rounds_mean," << name << "_rounds_std," << name << "_ratio";
        }
        if (withOptimal)
        {
            c << ",optimal_lower_mean,optimal_upper_mean,optimal_status";
        }
        c << ",paper_ps,paper_ring,paper_rl\n";
        nlohmann::json j = nlohmann::json::array();
        for (const auto& row : rows)
        {
            Cell boundCell;
            c << '"' << row.name << "\"," << row.nodes << "," << row.links << "," << row.servers
              << "," << row.workloads << "," << boundCell.Mean(row.bound);
            nlohmann::json jr{{"topology", row.name},
                              {"nodes", row.nodes},
                              {"links", row.links},
                              {"servers", row.servers},
                              {"workloads", row.workloads},
                              {"seeds", row.seeds},
                              {"bound_bandwidth", boundCell.Mean(row.bound)}};
            for (const auto& name : schedulers)
            {
                const Cell& cell = row.cells.at(name);
                c << "," << cell.Mean(cell.rounds) << "," << cell.Std(cell.rounds) << ","
                  << cell.Mean(cell.ratios);
                jr["schedulers"][name] = {{"rounds", cell.rounds},
                                          {"rounds_mean", cell.Mean(cell.rounds)},
                                          {"rounds_std", cell.Std(cell.rounds)},
                                          {"ratio", cell.Mean(cell.ratios)},
                                          {"seconds", cell.seconds}};
                if (name == OPTIMAL)
                {
                    jr["schedulers"][name]["lower"] = cell.lower;
                    jr["schedulers"][name]["upper"] = cell.upper;
                    jr["schedulers"][name]["status"] = cell.status;
                }
            }
            if (withOptimal)
            {
                const Cell& o = row.cells.at(OPTIMAL);
                std::string st;
                for (const auto& x : o.status)
                {
                    st += (st.empty() ? "" : " ") + x;
                }
                c << "," << o.Mean(o.lower) << "," << o.Mean(o.upper) << "," << st;
                for (const auto& name : schedulers)
                {
                    const Cell& cell = row.cells.at(name);
                    jr["schedulers"][name]["gap_to_optimum"] = {
                        cell.Mean(cell.rounds) / o.Mean(o.upper) - 1,
                        cell.Mean(cell.rounds) / o.Mean(o.lower) - 1};
                }
            }
            const PaperRow& p = PaperRounds().at(row.spec);
            c << "," << p.ps << "," << p.ring << "," << p.rl << "\n";
            jr["paper"] = {{"ps", p.ps}, {"ring", p.ring}, {"rl", p.rl}};
            j.push_back(jr);
        }
        const std::string json = out + ".json";
        std::ofstream(json) << nlohmann::json{{"pieces", pieces},
                                              {"seeds", seeds},
                                              {"optimal_time_limit", timeLimit},
                                              {"optimal_trees_per_root", treesPerRoot},
                                              {"valid", invalid.empty()},
                                              {"seconds", seconds},
                                              {"rows", j}}
                                   .dump(2)
                            << "\n";

        // The figure: rounds over the bandwidth bound, per topology and scheduler.
        const std::string dat = out + ".dat";
        const std::string plt = out + ".plt";
        const std::string png = out + ".png";
        {
            std::ofstream d(dat);
            d << "# topology";
            for (const auto& name : schedulers)
            {
                d << " " << name;
            }
            d << "\n";
            for (const auto& row : rows)
            {
                d << nlohmann::json(ShortLabel(row.name)).dump();
                for (const auto& name : schedulers)
                {
                    d << " " << row.cells.at(name).Mean(row.cells.at(name).ratios);
                }
                d << "\n";
            }
            std::ofstream p(plt);
            p << "set terminal pngcairo size 1100,520 noenhanced\n"
              << "set output '" << png << "'\n"
              << "set title 'AllReduce rounds over the bandwidth bound (1 = optimal)'\n"
              << "set style data histograms\n"
              << "set style histogram clustered gap 1\n"
              << "set style fill solid 0.8 border -1\n"
              << "set boxwidth 0.9\n"
              << "set ylabel 'rounds / bandwidth bound'\n"
              << "set yrange [0:*]\n"
              << "set offsets 0, 0, 0.3, 0\n"
              << "set xtics rotate by -30 left\n"
              << "set key top left\n"
              << "set grid ytics\n"
              << "set bmargin 5\n"
              << "plot ";
            for (size_t i = 0; i < schedulers.size(); ++i)
            {
                p << (i ? ", '' using " : "'" + dat + "' using ") << i + 2
                  << (i ? "" : ":xtic(1)") << " title '" << schedulers[i] << "'";
            }
            p << ", 1 with lines lw 2 lc rgb 'black' title 'bound'\n";
        }
        std::cout << "\nwrote " << csv << "\nwrote " << json << "\nfigure: "
                  << RunGnuplot(plt, png, dat) << "\n";
        if (!invalid.empty())
        {
            std::cerr << "allreduce-table: invalid schedule: " << invalid << std::endl;
            return 2;
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-table: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
