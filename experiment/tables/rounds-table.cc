/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rounds-table.h"

#include "bar-chart.h"
#include "paper-topologies.h"
#include "progress-reporter.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/double.h"
#include "ns3/drl-scheduler.h"
#include "ns3/optimal-scheduler.h"
#include "ns3/scheduler-registry.h"
#include "ns3/scheduler-result.h"
#include "ns3/string.h"
#include "ns3/topology-generators.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

const std::string OPTIMAL = "optimal";
const std::string DRL = "drl";
const std::string BEST_HEURISTIC = "balanced";

/// \return the optimum as a number when every seed was proven, else "[lower, upper]" of means
std::string
OptimumText(const RoundsTableCell& c)
{
    const double lower = Mean(c.lower);
    const double upper = Mean(c.upper);
    if (lower == upper)
    {
        return FormatMeanStd(c.upper, 1);
    }
    const auto num = [](double v) { return FormatFixed(v, v == std::floor(v) ? 0 : 1); };
    return "[" + num(lower) + ", " + num(upper) + "]";
}

/// \return rounds / optimum - 1 in percent, a range when the optimum is an interval
std::string
GapText(double rounds, double lower, double upper)
{
    const double a = 100 * (rounds / upper - 1);
    const double b = 100 * (rounds / lower - 1);
    std::string text = (a >= 0 ? "+" : "") + FormatFixed(a, 0) + "%";
    if (std::lround(a) != std::lround(b))
    {
        text += std::string("..") + (b >= 0 ? "+" : "") + FormatFixed(b, 0) + "%";
    }
    return text;
}

/// \return "12 optimal" / "2 optimal, 3 time-limit": the statuses of a cell's seeds
std::string
StatusText(const RoundsTableCell& c)
{
    std::map<std::string, int> counts;
    for (const auto& s : c.status)
    {
        ++counts[s];
    }
    std::string text;
    for (const auto& [name, count] : counts)
    {
        text += (text.empty() ? "" : ", ") +
                (c.status.size() > 1 ? std::to_string(count) + " " : "") + name;
    }
    return text;
}

} // namespace

RoundsTable::RoundsTable(RoundsTableConfig config)
    : m_config(std::move(config))
{
    if (m_config.schedulers.empty())
    {
        for (const auto& entry : ListSchedulers())
        {
            const std::string why = GetSchedulerUnavailableReason(entry.first);
            if (why.empty())
            {
                m_config.schedulers.push_back(entry.first);
            }
            else
            {
                m_skipped.push_back(entry.first + " skipped: " + why);
            }
        }
    }
    for (const auto& name : m_config.schedulers)
    {
        CreateScheduler(name); // fails early, naming the available ones
    }
    m_withGeneral = Has(DRL) && !m_config.generalization.empty() &&
                    std::ifstream(m_config.generalization).good();
}

bool
RoundsTable::Has(const std::string& name) const
{
    const auto& s = m_config.schedulers;
    return std::find(s.begin(), s.end(), name) != s.end();
}

uint64_t
RoundsTable::GetNSteps() const
{
    uint64_t steps = 0;
    for (const auto& spec : PaperTopologySpecs())
    {
        const uint64_t seeds = SeedsOf(spec, m_config.seeds);
        steps += seeds * m_config.schedulers.size() + (m_withGeneral ? 1 : 0);
    }
    return steps;
}

void
RoundsTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_invalid.clear();
    m_rows = RunOverSeeds<RoundsTableRow>(
        PaperTopologySpecs(),
        m_config.seeds,
        [this, progress](const std::string& spec, uint32_t seed, RoundsTableRow& row) {
            RunTopology(spec, seed, row, progress);
        });
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void
RoundsTable::RunTopology(const std::string& spec,
                         uint32_t seed,
                         RoundsTableRow& row,
                         ProgressReporter* progress)
{
    const Topology topo = BuildTopology(WithSeed(spec, seed));
    const uint32_t pieces = m_config.pieces;
    if (seed == 1)
    {
        row.name = NameOverSeeds(topo.GetName(), row.seeds); // the row averages its seeds
        row.nodes = topo.GetNNodes();
        row.links = topo.GetNLinks();
        row.servers = topo.GetNServers();
        row.workloads = 2 * row.servers * (row.servers - 1) * pieces;
    }
    row.bound.push_back(ComputeBandwidthBound(topo, pieces));
    const auto makeDrl = [this](const std::string& model) {
        Ptr<AllReduceScheduler> s = CreateScheduler(DRL);
        s->SetAttribute("Model", StringValue(model));
        s->SetAttribute("Samples", UintegerValue(m_config.drlSamples));
        return s;
    };
    if (m_withGeneral && seed == 1)
    {
        if (progress)
        {
            progress->Begin("drl (general checkpoint) on " + topo.GetName());
        }
        const SchedulerResult r = EvaluateScheduler(topo, makeDrl(m_config.generalization), pieces);
        row.general = r.check.valid ? r.plan.schedule.GetNRounds() : -1;
    }
    for (const auto& name : m_config.schedulers)
    {
        if (progress)
        {
            progress->Begin(name + " on " + topo.GetName());
        }
        Ptr<AllReduceScheduler> scheduler =
            name == DRL ? makeDrl(m_config.drlModel) : CreateScheduler(name);
        Ptr<OptimalScheduler> optimal = DynamicCast<OptimalScheduler>(scheduler);
        if (optimal)
        {
            optimal->SetAttribute("TimeLimit", DoubleValue(m_config.timeLimit));
            optimal->SetAttribute("TreesPerRoot", UintegerValue(m_config.treesPerRoot));
        }
        const SchedulerResult r = EvaluateScheduler(topo, scheduler, pieces);
        if (!r.check.valid && m_invalid.empty())
        {
            m_invalid = name + " on " + topo.GetName() + ": " + r.check.error;
        }
        RoundsTableCell& cell = row.cells[name];
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

const std::vector<RoundsTableRow>&
RoundsTable::GetRows() const
{
    return m_rows;
}

const std::string&
RoundsTable::GetFailure() const
{
    return m_invalid;
}

void
RoundsTable::Print(std::ostream& os) const
{
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    for (const char* header : {"nodes", "links", "workloads", "bound"})
    {
        table.AddColumn(header);
    }
    for (const auto& name : m_config.schedulers)
    {
        table.AddColumn(name);
        table.AddColumn("x");
    }
    table.AddColumn("paper PS/Ring/RL");
    std::map<std::string, std::vector<double>> ratios;
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{ShortLabel(row.name),
                                       std::to_string(row.nodes),
                                       std::to_string(row.links),
                                       std::to_string(row.workloads),
                                       FormatMeanStd(row.bound, 1)};
        for (const auto& name : m_config.schedulers)
        {
            const RoundsTableCell& c = row.cells.at(name);
            cells.push_back(name == OPTIMAL ? OptimumText(c) : FormatMeanStd(c.rounds, 1));
            cells.push_back(FormatFixed(Mean(c.ratios), 2));
            ratios[name].push_back(Mean(c.ratios));
        }
        const PaperTopology* p = FindPaperTopology(row.spec);
        cells.push_back(p ? FormatNumber(p->ps) + "/" + FormatNumber(p->ring) + "/" +
                                FormatNumber(p->rl)
                          : "-");
        table.AddRow(std::move(cells));
    }
    table.Print(os);
    os << "geometric mean of rounds / bound:";
    for (const auto& name : m_config.schedulers)
    {
        os << " " << name << " " << FormatFixed(GeometricMean(ratios[name]), 3);
    }
    os << "\n\nnotes: rounds as defined in the manual (doc/allreduce.rst): one piece over one "
          "directed link per round, k = "
       << m_config.pieces << "; bound = ceil(2N(N-1)k / server ports); x = rounds / bound.\n"
       << "Jellyfish rows: mean ± std over seeds 1.." << m_config.seeds
       << " (20 switches: 60 links, where the paper has 59).\n"
       << "The paper's PS/Ring/RL columns are its Table 2 as printed; its definitions of rounds "
          "and workloads were looser than ours,\nso ours differ: compare the trend, not digit "
          "by digit.\n"
       << "every schedule validated: " << (m_invalid.empty() ? "yes" : "NO") << "; "
       << FormatFixed(m_seconds, 2) << " s in total\n";
    for (const auto& line : m_skipped)
    {
        os << line << "\n";
    }
    PrintDrlNotes(os);
    PrintOptimalGaps(os);
}

void
RoundsTable::PrintDrlNotes(std::ostream& os) const
{
    if (!Has(DRL))
    {
        return;
    }
    if (Has(BEST_HEURISTIC))
    {
        // Where the learned scheduler stands against the best heuristic, row by row.
        int better = 0;
        int equal = 0;
        std::string worse;
        for (const auto& row : m_rows)
        {
            const double d = Mean(row.cells.at(DRL).rounds);
            const double b = Mean(row.cells.at(BEST_HEURISTIC).rounds);
            better += d < b - 1e-9;
            equal += std::abs(d - b) <= 1e-9;
            if (d > b + 1e-9)
            {
                worse += (worse.empty() ? "" : ", ") + ShortLabel(row.name);
            }
        }
        os << "drl against balanced (the best heuristic): fewer rounds on " << better
           << " rows, as many on " << equal << ", more on " << m_rows.size() - better - equal
           << (worse.empty() ? "" : " (" + worse + ")") << ".\n";
    }
    os << "drl: "
       << (m_config.drlModel.empty() ? "the shipped checkpoint of each topology (checkpoints/)"
                                     : "checkpoint " + m_config.drlModel)
       << ", greedy + " << m_config.drlSamples << " sampled episodes, the fewest rounds.\n";
    if (!m_withGeneral)
    {
        return;
    }
    os << "generalization: " << m_config.generalization << " ("
       << GetDrlCheckpointInfo(m_config.generalization)
       << ")\n  rounds on seed 1, per topology (that checkpoint / the topology's own / bound):\n";
    TextColumns table;
    table.AddColumn("  topology", TextColumns::LEFT);
    for (const char* header : {"general", "own", "bound"})
    {
        table.AddColumn(header);
    }
    for (const auto& row : m_rows)
    {
        const std::string label = ShortLabel(row.name);
        table.AddRow({"  " + label.substr(0, label.rfind(",1..")) + (row.seeds > 1 ? ",1)" : ""),
                      FormatFixed(row.general, 0),
                      FormatFixed(row.cells.at(DRL).rounds.front(), 0),
                      FormatFixed(row.bound.front(), 0)});
    }
    table.Print(os);
}

void
RoundsTable::PrintOptimalGaps(std::ostream& os) const
{
    if (!Has(OPTIMAL))
    {
        return;
    }
    const uint32_t trees = m_config.treesPerRoot;
    os << "\noptimal: the fewest rounds of merge workloads on "
       << (trees == 1 ? std::string("the shortest-path trees (greedy's)")
                      : "a choice of " + std::to_string(trees) +
                            " candidate trees per root (shortest-path, then balanced's)")
       << ", proven with CBC within " << FormatNumber(m_config.timeLimit)
       << " s per instance;\na number is proven, [lower, upper] is what was proven when time "
          "ran out (x there is upper / bound).\n"
       << "Gap = rounds / optimum - 1, a range where the optimum is an interval; a scheduler on "
          "other trees or workloads can be below it\n(balanced chooses its trees): that is what "
          "the choice of trees is worth.\n\n";
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    table.AddColumn("optimum");
    table.AddColumn("status");
    for (const auto& name : m_config.schedulers)
    {
        if (name != OPTIMAL)
        {
            table.AddColumn(name);
        }
    }
    for (const auto& row : m_rows)
    {
        const RoundsTableCell& o = row.cells.at(OPTIMAL);
        std::vector<std::string> cells{ShortLabel(row.name), OptimumText(o), StatusText(o)};
        for (const auto& name : m_config.schedulers)
        {
            if (name != OPTIMAL)
            {
                cells.push_back(
                    GapText(Mean(row.cells.at(name).rounds), Mean(o.lower), Mean(o.upper)));
            }
        }
        table.AddRow(std::move(cells));
    }
    table.Print(os);
}

void
RoundsTable::WriteCsv(std::ostream& os) const
{
    TextColumns table;
    for (const char* header : {"topology", "nodes", "links", "servers", "workloads",
                               "bound_bandwidth"})
    {
        table.AddColumn(header);
    }
    for (const auto& name : m_config.schedulers)
    {
        table.AddColumn(name + "_rounds_mean");
        table.AddColumn(name + "_rounds_std");
        table.AddColumn(name + "_ratio");
    }
    if (Has(OPTIMAL))
    {
        table.AddColumn("optimal_lower_mean");
        table.AddColumn("optimal_upper_mean");
        table.AddColumn("optimal_status");
    }
    for (const char* header : {"paper_ps", "paper_ring", "paper_rl"})
    {
        table.AddColumn(header);
    }
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{row.name,
                                       std::to_string(row.nodes),
                                       std::to_string(row.links),
                                       std::to_string(row.servers),
                                       std::to_string(row.workloads),
                                       FormatNumber(Mean(row.bound))};
        for (const auto& name : m_config.schedulers)
        {
            const RoundsTableCell& c = row.cells.at(name);
            cells.push_back(FormatNumber(Mean(c.rounds)));
            cells.push_back(FormatNumber(StandardDeviation(c.rounds)));
            cells.push_back(FormatNumber(Mean(c.ratios)));
        }
        if (Has(OPTIMAL))
        {
            const RoundsTableCell& o = row.cells.at(OPTIMAL);
            std::string statuses;
            for (const auto& s : o.status)
            {
                statuses += (statuses.empty() ? "" : " ") + s;
            }
            cells.push_back(FormatNumber(Mean(o.lower)));
            cells.push_back(FormatNumber(Mean(o.upper)));
            cells.push_back(statuses);
        }
        const PaperTopology* p = FindPaperTopology(row.spec);
        for (double v : {p ? p->ps : 0.0, p ? p->ring : 0.0, p ? p->rl : 0.0})
        {
            cells.push_back(p ? FormatNumber(v) : "");
        }
        table.AddRow(std::move(cells));
    }
    table.WriteCsv(os);
}

void
RoundsTable::WriteJson(std::ostream& os) const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m_rows)
    {
        nlohmann::json jr{{"topology", row.name},
                          {"nodes", row.nodes},
                          {"links", row.links},
                          {"servers", row.servers},
                          {"workloads", row.workloads},
                          {"seeds", row.seeds},
                          {"bound_bandwidth", Mean(row.bound)}};
        for (const auto& name : m_config.schedulers)
        {
            const RoundsTableCell& c = row.cells.at(name);
            nlohmann::json& js = jr["schedulers"][name];
            js = {{"rounds", c.rounds},
                  {"rounds_mean", Mean(c.rounds)},
                  {"rounds_std", StandardDeviation(c.rounds)},
                  {"ratio", Mean(c.ratios)},
                  {"seconds", c.seconds}};
            if (name == OPTIMAL)
            {
                js["lower"] = c.lower;
                js["upper"] = c.upper;
                js["status"] = c.status;
            }
            if (Has(OPTIMAL))
            {
                const RoundsTableCell& o = row.cells.at(OPTIMAL);
                js["gap_to_optimum"] = {Mean(c.rounds) / Mean(o.upper) - 1,
                                        Mean(c.rounds) / Mean(o.lower) - 1};
            }
        }
        if (const PaperTopology* p = FindPaperTopology(row.spec))
        {
            jr["paper"] = {{"ps", p->ps}, {"ring", p->ring}, {"rl", p->rl}};
        }
        rows.push_back(jr);
    }
    os << nlohmann::json{{"pieces", m_config.pieces},
                         {"seeds", m_config.seeds},
                         {"optimal_time_limit", m_config.timeLimit},
                         {"optimal_trees_per_root", m_config.treesPerRoot},
                         {"valid", m_invalid.empty()},
                         {"seconds", m_seconds},
                         {"rows", rows}}
              .dump(2)
       << "\n";
}

std::string
RoundsTable::WriteFigure(const std::string& prefix) const
{
    std::vector<std::string> labels;
    for (const auto& row : m_rows)
    {
        labels.push_back(ShortLabel(row.name));
    }
    std::vector<std::vector<double>> ratios;
    for (const auto& name : m_config.schedulers)
    {
        ratios.emplace_back();
        for (const auto& row : m_rows)
        {
            ratios.back().push_back(Mean(row.cells.at(name).ratios));
        }
    }
    BarChart chart("rounds / bandwidth bound", labels, m_config.schedulers);
    chart.AddPanel("AllReduce rounds over the bandwidth bound (1 = optimal)", ratios);
    chart.SetReferenceLine(1, "bound");
    return chart.Write(prefix);
}

} // namespace ns3
