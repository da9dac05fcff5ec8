/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rounds-table.h"

#include "bar-chart.h"
#include "paper-topologies.h"
#include "ns3/progress-reporter.h"
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
#include <limits>
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

/// \return a share as "+12%" (rounded to a whole percent)
std::string
PercentText(double share)
{
    const double percent = std::round(100 * share) + 0.0; // -0.4 % is +0 %, not +-0 %
    return (percent >= 0 ? "+" : "") + FormatFixed(percent, 0) + "%";
}

/// \return what optimal's program proved on its candidate trees: "12", "[11, 12]" (means over
///         seeds), or ">= 40" where the start, on other trees, beats every schedule on them
std::string
CandidateText(const RoundsTableCell& c)
{
    const double lower = Mean(c.candidateLower);
    const double upper = Mean(c.upper);
    const auto num = [](double v) { return FormatFixed(v, v == std::floor(v) ? 0 : 1); };
    if (lower == upper)
    {
        return num(upper);
    }
    return lower > upper ? ">= " + num(lower) : "[" + num(lower) + ", " + num(upper) + "]";
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
    // optimal runs last, starting from the best plan of the others.
    std::vector<std::string> order;
    for (const auto& name : m_config.schedulers)
    {
        if (name != OPTIMAL)
        {
            order.push_back(name);
        }
    }
    if (Has(OPTIMAL))
    {
        order.push_back(OPTIMAL);
    }
    row.lower.push_back(ComputeCertifiedBound(topo, pieces));
    row.best.push_back(std::numeric_limits<double>::infinity());
    row.bestBy.emplace_back();
    Plan best;
    for (const auto& name : order)
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
            // The others ran on this topology already: their best plan is the start.
            optimal->SetAttribute("StartFrom", StringValue("none"));
            if (!row.bestBy.back().empty())
            {
                optimal->AddStartPlan(best, row.bestBy.back());
            }
        }
        SchedulerResult r = EvaluateScheduler(topo, scheduler, pieces);
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
            cell.candidateLower.push_back(search.candidateLower);
            cell.status.push_back(search.GetStatusName());
        }
        const double rounds = r.plan.schedule.GetNRounds();
        cell.rounds.push_back(rounds);
        cell.ratios.push_back(r.GetRatio());
        cell.seconds += r.seconds;
        if (r.check.valid && rounds < row.best.back())
        {
            row.best.back() = rounds;
            row.bestBy.back() = name;
            best = std::move(r.plan); // r is not used after this
        }
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
    PrintCertifiedGaps(os);
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
RoundsTable::PrintCertifiedGaps(std::ostream& os) const
{
    os << "\ncertified interval per row: lower = the best proven lower bound on any AllReduce on "
          "the topology (ComputeCertifiedBound: the bandwidth bound, and 2),\nbest = the "
          "fewest rounds any scheduler found (by: the first in table order), within = best / "
          "lower - 1 (Jellyfish: of the means over seeds).\nEach scheduler: rounds / lower - 1 "
          "/ rounds / best - 1.";
    if (Has(OPTIMAL))
    {
        os << " optimal starts from the best plan of the others (and the flat-tree search) and "
              "then searches "
           << FormatNumber(m_config.timeLimit) << " s on "
           << (m_config.treesPerRoot == 1
                   ? std::string("the shortest-path trees")
                   : std::to_string(m_config.treesPerRoot) + " candidate tree sets per root")
           << ";\nstatus optimal = best meets lower; 'on trees' = what its program proved on "
              "those trees alone.";
    }
    os << "\n\n";
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    for (const char* header : {"lower", "best", "by", "within"})
    {
        table.AddColumn(header);
    }
    if (Has(OPTIMAL))
    {
        table.AddColumn("status");
        table.AddColumn("on trees");
    }
    for (const auto& name : m_config.schedulers)
    {
        table.AddColumn(name);
    }
    for (const auto& row : m_rows)
    {
        const double lower = Mean(row.lower);
        const double best = Mean(row.best);
        std::vector<std::string> by;
        for (const auto& name : row.bestBy)
        {
            if (std::find(by.begin(), by.end(), name) == by.end())
            {
                by.push_back(name);
            }
        }
        std::vector<std::string> cells{ShortLabel(row.name),
                                       FormatMeanStd(row.lower, 1),
                                       FormatMeanStd(row.best, 1),
                                       JoinText(by, ","),
                                       PercentText(best / lower - 1)};
        if (Has(OPTIMAL))
        {
            const RoundsTableCell& o = row.cells.at(OPTIMAL);
            cells.push_back(StatusText(o));
            cells.push_back(CandidateText(o));
        }
        for (const auto& name : m_config.schedulers)
        {
            const double rounds = Mean(row.cells.at(name).rounds);
            cells.push_back(PercentText(rounds / lower - 1) + "/" +
                            PercentText(rounds / best - 1));
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
        table.AddColumn("optimal_candidate_lower_mean");
    }
    for (const char* header : {"certified_lower_mean", "best_known_mean", "best_by"})
    {
        table.AddColumn(header);
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
            cells.push_back(FormatNumber(Mean(o.lower)));
            cells.push_back(FormatNumber(Mean(o.upper)));
            cells.push_back(JoinText(o.status, " "));
            cells.push_back(FormatNumber(Mean(o.candidateLower)));
        }
        cells.push_back(FormatNumber(Mean(row.lower)));
        cells.push_back(FormatNumber(Mean(row.best)));
        cells.push_back(JoinText(row.bestBy, " "));
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
                          {"bound_bandwidth", Mean(row.bound)},
                          {"certified", {{"lower", row.lower},
                                         {"best", row.best},
                                         {"best_by", row.bestBy}}}};
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
                js["candidate_lower"] = c.candidateLower;
            }
            js["gap_to_lower"] = Mean(c.rounds) / Mean(row.lower) - 1;
            js["gap_to_best"] = Mean(c.rounds) / Mean(row.best) - 1;
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
    std::vector<double> low;
    std::vector<double> high;
    for (const auto& row : m_rows)
    {
        low.push_back(Mean(row.lower) / Mean(row.bound));
        high.push_back(Mean(row.best) / Mean(row.bound));
    }
    BarChart chart("rounds / bandwidth bound", labels, m_config.schedulers);
    chart.AddPanel("AllReduce rounds over the bandwidth bound; the optimum lies in the marked "
                   "interval",
                   ratios);
    chart.SetReferenceLine(1, "bound");
    chart.SetIntervals(low, high, "certified [lower bound, best known]");
    return chart.Write(prefix);
}

} // namespace ns3
