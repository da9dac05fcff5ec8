/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregation-table.h"

#include "bar-chart.h"
#include "paper-topologies.h"
#include "ns3/progress-reporter.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/scheduler-registry.h"
#include "ns3/scheduler-result.h"
#include "ns3/text-file.h"
#include "ns3/topology-generators.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

namespace
{

/// \return the column of a scheduler with aggregating switches
std::string
Column(const std::string& scheduler, const std::string& share)
{
    return scheduler + " ina=" + share;
}

} // namespace

void
CheckAggregationShares(const std::vector<std::string>& shares)
{
    std::map<double, std::string> seen; // fraction -> how it was given
    for (const std::string& share : shares)
    {
        double fraction = 1; // all
        const bool number = share != "all" && ParseDecimal(share, fraction);
        if (share != "all" && !(number && fraction > 0 && fraction <= 1))
        {
            throw std::invalid_argument("aggregation share '" + share +
                                        "' is neither 'all' nor a fraction in (0, 1] (e.g. 0.5)");
        }
        const auto [it, added] = seen.emplace(fraction, share);
        if (!added)
        {
            throw std::invalid_argument("aggregation shares '" + it->second + "' and '" + share +
                                        "' are the same share of switches (" +
                                        (fraction == 1 ? std::string("every switch")
                                                       : share) +
                                        "); give each once");
        }
    }
}

AggregationTable::AggregationTable(AggregationTableConfig config)
    : m_config(std::move(config))
{
    if (m_config.specs.empty())
    {
        m_config.specs = DefaultSpecs();
    }
    CheckAggregationShares(m_config.shares);
}

std::vector<std::string>
AggregationTable::DefaultSpecs()
{
    std::vector<std::string> specs = PaperTopologySpecs();
    specs.push_back("fattree:k=4");
    specs.push_back("fattree:k=8");
    return specs;
}

const std::vector<std::string>&
AggregationTable::GetServerOnlySchedulers()
{
    static const std::vector<std::string> names{"ps", "ring", "balanced"};
    return names;
}

const std::vector<std::string>&
AggregationTable::GetAggregatingSchedulers()
{
    static const std::vector<std::string> names{"ps", "balanced"};
    return names;
}

std::vector<std::string>
AggregationTable::GetColumns() const
{
    std::vector<std::string> columns = GetServerOnlySchedulers();
    for (const auto& share : m_config.shares)
    {
        for (const auto& name : GetAggregatingSchedulers())
        {
            columns.push_back(Column(name, share));
        }
    }
    return columns;
}

uint64_t
AggregationTable::GetNSteps() const
{
    uint64_t steps = 0;
    for (const auto& spec : m_config.specs)
    {
        steps += SeedsOf(spec, m_config.seeds) * GetColumns().size();
    }
    return steps;
}

void
AggregationTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_invalid.clear();
    m_rows = RunOverSeeds<AggregationTableRow>(
        m_config.specs,
        m_config.seeds,
        [this, progress](const std::string& spec, uint32_t seed, AggregationTableRow& row) {
            RunTopology(spec, seed, row, progress);
        });
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void
AggregationTable::RunTopology(const std::string& spec,
                              uint32_t seed,
                              AggregationTableRow& row,
                              ProgressReporter* progress)
{
    const std::string seeded = WithSeed(spec, seed);
    const Topology plain = BuildTopology(seeded);
    const uint32_t pieces = m_config.pieces;
    if (seed == 1)
    {
        row.name = NameOverSeeds(plain.GetName(), row.seeds);
        row.servers = plain.GetNServers();
        row.switches = plain.GetNSwitches();
    }
    row.bound.push_back(ComputeBandwidthBound(plain, pieces));
    const auto run = [&](const Topology& topo, const std::string& scheduler,
                         const std::string& column) {
        if (progress)
        {
            progress->Begin(scheduler + " on " + topo.GetName());
        }
        const SchedulerResult r = EvaluateScheduler(topo, CreateScheduler(scheduler), pieces);
        if (!r.check.valid && m_invalid.empty())
        {
            m_invalid = scheduler + " on " + topo.GetName() + ": " + r.check.error;
        }
        row.rounds[column].push_back(r.plan.schedule.GetNRounds());
        row.seconds[column] += r.seconds;
    };
    for (const auto& name : GetServerOnlySchedulers())
    {
        run(plain, name, name);
    }
    for (size_t i = 0; i < m_config.shares.size(); ++i)
    {
        const std::string& share = m_config.shares[i];
        const Topology topo = BuildTopology(seeded + ",ina=" + share);
        if (i == 0)
        {
            row.inaBound.push_back(ComputeBandwidthBound(topo, pieces));
        }
        for (const auto& name : GetAggregatingSchedulers())
        {
            run(topo, name, Column(name, share));
        }
    }
}

const std::vector<AggregationTableRow>&
AggregationTable::GetRows() const
{
    return m_rows;
}

const std::string&
AggregationTable::GetFailure() const
{
    return m_invalid;
}

std::vector<double>
AggregationTable::GetBest(const AggregationTableRow& row, bool aggregating) const
{
    std::vector<double> best(row.seeds, std::numeric_limits<double>::infinity());
    const size_t serverOnly = GetServerOnlySchedulers().size();
    const std::vector<std::string> columns = GetColumns();
    for (size_t c = 0; c < columns.size(); ++c)
    {
        if ((c >= serverOnly) != aggregating)
        {
            continue;
        }
        const std::vector<double>& rounds = row.rounds.at(columns[c]);
        for (uint32_t s = 0; s < row.seeds; ++s)
        {
            best[s] = std::min(best[s], rounds[s]);
        }
    }
    return best;
}

void
AggregationTable::Print(std::ostream& os) const
{
    os << "\nAggregation in the network (doc/allreduce.rst): rounds without aggregating "
          "switches, then with them (ina=all: every switch; ina=FRACTION: a seeded share)\n\n";
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    table.AddColumn("bound");
    const std::vector<std::string> columns = GetColumns();
    const size_t serverOnly = GetServerOnlySchedulers().size();
    for (size_t c = 0; c < columns.size(); ++c)
    {
        if (c == serverOnly)
        {
            table.AddColumn("bound ina");
        }
        table.AddColumn(columns[c]);
    }
    table.AddColumn("best ina / best");
    std::vector<std::string> wins;
    std::vector<std::string> losses;
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{ShortLabel(row.name), FormatMeanStd(row.bound, 1)};
        for (size_t c = 0; c < columns.size(); ++c)
        {
            if (c == serverOnly)
            {
                cells.push_back(FormatMeanStd(row.inaBound, 1));
            }
            cells.push_back(FormatMeanStd(row.rounds.at(columns[c]), 1));
        }
        const double without = Mean(GetBest(row, false));
        const double with = Mean(GetBest(row, true));
        cells.push_back(FormatFixed(with / without, 2));
        table.AddRow(std::move(cells));
        const double ps = Mean(row.rounds.at("ps"));
        (with < without && with < ps ? wins : losses).push_back(ShortLabel(row.name));
    }
    table.Print(os);
    os << "\nbest = the fewest rounds of " << serverOnly
       << " server-only schedulers, per seed; best ina = the fewest with aggregation; bound = "
          "ceil(2N(N-1)k / server ports),\nbound ina = ceil(N N k / server ports) (an aggregator "
          "may merge and replicate in a server's place). ring is unchanged by aggregation;\n"
          "optimal and drl are not run here.\n"
       << "aggregation takes fewer rounds than ps and than the best server-only schedule on "
       << wins.size() << " of " << m_rows.size() << " rows";
    if (!losses.empty())
    {
        os << "; not on:";
        for (const auto& name : losses)
        {
            os << " " << name;
        }
    }
    os << ".\nevery schedule validated: " << (m_invalid.empty() ? "yes" : "NO") << "; "
       << FormatFixed(m_seconds, 2) << " s in total\n";
}

void
AggregationTable::WriteCsv(std::ostream& os) const
{
    TextColumns table;
    for (const char* header : {"topology", "servers", "switches", "bound", "bound_ina"})
    {
        table.AddColumn(header);
    }
    const std::vector<std::string> columns = GetColumns();
    for (const auto& column : columns)
    {
        std::string key = column;
        std::replace(key.begin(), key.end(), ' ', '_');
        table.AddColumn(key + "_rounds_mean");
        table.AddColumn(key + "_rounds_std");
    }
    table.AddColumn("best_rounds_mean");
    table.AddColumn("best_ina_rounds_mean");
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{row.name,
                                       std::to_string(row.servers),
                                       std::to_string(row.switches),
                                       FormatNumber(Mean(row.bound)),
                                       FormatNumber(Mean(row.inaBound))};
        for (const auto& column : columns)
        {
            cells.push_back(FormatNumber(Mean(row.rounds.at(column))));
            cells.push_back(FormatNumber(StandardDeviation(row.rounds.at(column))));
        }
        cells.push_back(FormatNumber(Mean(GetBest(row, false))));
        cells.push_back(FormatNumber(Mean(GetBest(row, true))));
        table.AddRow(std::move(cells));
    }
    table.WriteCsv(os);
}

void
AggregationTable::WriteJson(std::ostream& os) const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m_rows)
    {
        nlohmann::json jr{{"topology", row.name},
                          {"servers", row.servers},
                          {"switches", row.switches},
                          {"seeds", row.seeds},
                          {"bound_bandwidth", Mean(row.bound)},
                          {"bound_bandwidth_ina", Mean(row.inaBound)},
                          {"best_rounds", GetBest(row, false)},
                          {"best_ina_rounds", GetBest(row, true)}};
        for (const auto& column : GetColumns())
        {
            jr["columns"][column] = {{"rounds", row.rounds.at(column)},
                                     {"rounds_mean", Mean(row.rounds.at(column))},
                                     {"seconds", row.seconds.at(column)}};
        }
        rows.push_back(jr);
    }
    os << nlohmann::json{{"pieces", m_config.pieces},
                         {"seeds", m_config.seeds},
                         {"shares", m_config.shares},
                         {"valid", m_invalid.empty()},
                         {"seconds", m_seconds},
                         {"rows", rows}}
              .dump(2)
       << "\n";
}

std::string
AggregationTable::WriteFigure(const std::string& prefix) const
{
    std::vector<std::string> labels;
    for (const auto& row : m_rows)
    {
        labels.push_back(ShortLabel(row.name));
    }
    std::vector<std::string> series{"best without aggregation"};
    std::vector<std::vector<double>> ratios(1);
    for (const auto& row : m_rows)
    {
        ratios[0].push_back(Mean(GetBest(row, false)) / Mean(row.bound));
    }
    const std::vector<std::string> columns = GetColumns();
    for (size_t c = GetServerOnlySchedulers().size(); c < columns.size(); ++c)
    {
        series.push_back(columns[c]);
        ratios.emplace_back();
        for (const auto& row : m_rows)
        {
            ratios.back().push_back(Mean(row.rounds.at(columns[c])) / Mean(row.bound));
        }
    }
    BarChart chart("rounds / server-only bandwidth bound", labels, series);
    chart.AddPanel("AllReduce rounds with aggregating switches, over the server-only bound",
                   ratios);
    chart.SetReferenceLine(1, "server-only bound");
    return chart.Write(prefix);
}

} // namespace ns3
