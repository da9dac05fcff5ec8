/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-table.h"

#include "bar-chart.h"
#include "progress-reporter.h"
#include "report-format.h"
#include "report-table.h"

#include "ns3/scheduler-registry.h"
#include "ns3/topology-generators.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>

namespace ns3
{

double
PacketTableRow::GetRatio(const std::string& mode) const
{
    return completionTime.at(mode) / predictedTime;
}

bool
PacketTableRow::IsVerified() const
{
    for (const auto& [mode, ok] : verified)
    {
        if (!ok)
        {
            return false;
        }
    }
    return true;
}

PacketTable::PacketTable(PacketTableConfig config)
    : m_config(std::move(config))
{
    for (const auto& name : m_config.schedulers)
    {
        CreateScheduler(name); // fails early, naming the available ones
    }
    for (const auto& mode : m_config.modes)
    {
        if (mode != "barrier" && mode != "async")
        {
            throw std::invalid_argument("--modes takes barrier and async, got '" + mode + "'");
        }
    }
}

uint64_t
PacketTable::GetNSteps() const
{
    return m_config.topologies.size() * m_config.schedulers.size() * m_config.modes.size();
}

void
PacketTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_failed.clear();
    PacketRunConfig config = m_config.run;
    config.flowMonitor = false;
    for (const auto& spec : m_config.topologies)
    {
        const Topology topo = BuildTopology(spec);
        for (const auto& name : m_config.schedulers)
        {
            const Plan plan = CreateScheduler(name)->MakePlan(topo, 1);
            PacketTableRow row;
            row.topology = topo.GetName();
            row.scheduler = name;
            row.servers = topo.GetNServers();
            row.rounds = plan.schedule.GetNRounds();
            for (const auto& mode : m_config.modes)
            {
                if (progress)
                {
                    progress->Begin(name + " " + mode + " on " + topo.GetName());
                }
                config.mode = mode;
                const PacketRunReport r = RunPacketAllReduce(plan, config);
                const bool ok = r.result.finished && r.verification.verified;
                if (!ok && m_failed.empty())
                {
                    m_failed = name + " " + mode + " on " + topo.GetName() + ": " +
                               (r.result.finished ? r.verification.message : r.result.error);
                }
                row.pieceTime = r.pieceTime;
                row.predictedTime = r.predictedTime;
                row.completionTime[mode] = r.result.completionTime;
                row.verified[mode] = ok;
                row.events[mode] = r.events;
                row.wallSeconds[mode] = r.wallSeconds;
            }
            m_rows.push_back(std::move(row));
        }
    }
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const std::vector<PacketTableRow>&
PacketTable::GetRows() const
{
    return m_rows;
}

const std::string&
PacketTable::GetFailure() const
{
    return m_failed;
}

void
PacketTable::Print(std::ostream& os) const
{
    ReportTable table;
    table.AddColumn("topology", ReportTable::LEFT);
    table.AddColumn("scheduler", ReportTable::LEFT);
    table.AddColumn("rounds");
    table.AddColumn("flow ms");
    for (const auto& mode : m_config.modes)
    {
        table.AddColumn(mode + " ms");
        table.AddColumn("ratio");
    }
    table.AddColumn("verified");
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{ShortLabel(row.topology),
                                       row.scheduler,
                                       std::to_string(row.rounds),
                                       FormatFixed(row.predictedTime * 1e3, 3)};
        for (const auto& mode : m_config.modes)
        {
            cells.push_back(FormatFixed(row.completionTime.at(mode) * 1e3, 3));
            cells.push_back(FormatFixed(row.GetRatio(mode), 2));
        }
        cells.push_back(row.IsVerified() ? "yes" : "NO");
        table.AddRow(std::move(cells));
    }
    table.Print(os);
    const PacketRunConfig& run = m_config.run;
    os << "\ngradient " << run.gradientBytes << " bytes per server, " << run.dataRate
       << " links, " << run.delay
       << " delay; ratio = packet-level completion time / (rounds x T_S)\n"
       << "every run verified exactly: " << (m_failed.empty() ? "yes" : "NO") << " ("
       << FormatFixed(m_seconds, 1) << " s)\n";
}

void
PacketTable::WriteCsv(std::ostream& os) const
{
    ReportTable table;
    for (const char* header : {"topology", "scheduler", "servers", "rounds", "predicted_time_s"})
    {
        table.AddColumn(header);
    }
    for (const auto& mode : m_config.modes)
    {
        table.AddColumn(mode + "_s");
        table.AddColumn(mode + "_ratio");
    }
    table.AddColumn("verified");
    for (const auto& row : m_rows)
    {
        std::vector<std::string> cells{row.topology,
                                       row.scheduler,
                                       std::to_string(row.servers),
                                       std::to_string(row.rounds),
                                       FormatNumber(row.predictedTime)};
        for (const auto& mode : m_config.modes)
        {
            cells.push_back(FormatNumber(row.completionTime.at(mode)));
            cells.push_back(FormatNumber(row.GetRatio(mode)));
        }
        cells.push_back(row.IsVerified() ? "true" : "false");
        table.AddRow(std::move(cells));
    }
    table.WriteCsv(os);
}

void
PacketTable::WriteJson(std::ostream& os) const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m_rows)
    {
        // The keys of allreduce-packet's report where they say the same.
        nlohmann::json j{{"topology", row.topology},
                         {"scheduler", row.scheduler},
                         {"servers", row.servers},
                         {"rounds", row.rounds},
                         {"piece_time_s", row.pieceTime},
                         {"predicted_time_s", row.predictedTime},
                         {"verified", row.IsVerified()}};
        for (const auto& mode : m_config.modes)
        {
            j[mode] = {{"completion_time_s", row.completionTime.at(mode)},
                       {"ratio", row.GetRatio(mode)},
                       {"verified", row.verified.at(mode)},
                       {"events", row.events.at(mode)},
                       {"wall_s", row.wallSeconds.at(mode)}};
        }
        rows.push_back(j);
    }
    const PacketRunConfig& run = m_config.run;
    os << nlohmann::json{{"gradient_bytes", run.gradientBytes},
                         {"data_rate", run.dataRate},
                         {"delay", run.delay},
                         {"verified", m_failed.empty()},
                         {"seconds", m_seconds},
                         {"rows", rows}}
              .dump(2)
       << "\n";
}

std::string
PacketTable::WriteFigure(const std::string& prefix) const
{
    const size_t nSchedulers = m_config.schedulers.size();
    std::vector<std::string> labels;
    for (size_t i = 0; i < m_rows.size(); i += nSchedulers)
    {
        labels.push_back(ShortLabel(m_rows[i].topology));
    }
    BarChart chart("packet time / (rounds x T_S)", labels, m_config.schedulers);
    for (const auto& mode : m_config.modes)
    {
        std::vector<std::vector<double>> ratios(nSchedulers);
        for (size_t i = 0; i < m_rows.size(); ++i)
        {
            ratios[i % nSchedulers].push_back(m_rows[i].GetRatio(mode));
        }
        chart.AddPanel("Packet level over flow level, " + mode + " mode (" +
                           std::to_string(m_config.run.gradientBytes) + " B gradient, " +
                           m_config.run.dataRate + ")",
                       ratios);
    }
    chart.SetReferenceLine(1, "flow level");
    chart.SetSize(1100, 380);
    return chart.Write(prefix);
}

} // namespace ns3
