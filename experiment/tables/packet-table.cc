/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-table.h"

#include "aggregation-table.h"
#include "bar-chart.h"
#include "ns3/progress-reporter.h"
#include "ns3/quantity.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/boolean.h"
#include "ns3/scheduler-registry.h"
#include "ns3/shared-buffer.h"
#include "ns3/topology-generators.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <nlohmann/json.hpp>
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
    CheckAggregationShares(m_config.shares);
    for (const auto& mode : m_config.modes)
    {
        if (mode != "barrier" && mode != "async")
        {
            throw std::invalid_argument("--modes takes barrier and async, got '" + mode + "'");
        }
    }
    // Every topology is built once now, so that a bad spec is refused before the first run
    // rather than minutes into the table.
    const auto check = [](const std::string& option, const std::string& spec) {
        try
        {
            BuildTopology(spec);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("--" + option + ": " + e.what());
        }
    };
    for (const auto& [option, specs] :
         {std::make_pair("topologies", &m_config.topologies),
          std::make_pair("aggregation-topologies", &m_config.aggregationTopologies)})
    {
        for (const auto& spec : *specs)
        {
            check(option, spec);
            for (const auto& share : m_config.shares)
            {
                check(option, spec + ",ina=" + share);
            }
        }
    }
}

bool
PacketTable::RunsWithAggregation(const std::string& name)
{
    return name != "ring" && name != "drl" && name != "optimal";
}

std::vector<std::string>
PacketTable::GetAggregatingSchedulers() const
{
    std::vector<std::string> names;
    for (const auto& name : m_config.schedulers)
    {
        if (RunsWithAggregation(name))
        {
            names.push_back(name);
        }
    }
    return names;
}

uint64_t
PacketTable::GetNSteps() const
{
    const uint64_t withShares = m_config.shares.size() * GetAggregatingSchedulers().size();
    const uint64_t others = m_config.schedulers.size() - std::count(m_config.schedulers.begin(),
                                                                    m_config.schedulers.end(),
                                                                    "drl");
    return (m_config.topologies.size() * (m_config.schedulers.size() + withShares) +
            m_config.aggregationTopologies.size() * (others + withShares)) *
           m_config.modes.size();
}

void
PacketTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_failed.clear();
    std::vector<std::string> withoutDrl;
    std::copy_if(m_config.schedulers.begin(),
                 m_config.schedulers.end(),
                 std::back_inserter(withoutDrl),
                 [](const std::string& name) { return name != "drl"; });
    std::vector<std::string> specs = m_config.topologies;
    specs.insert(specs.end(),
                 m_config.aggregationTopologies.begin(),
                 m_config.aggregationTopologies.end());
    for (size_t i = 0; i < specs.size(); ++i)
    {
        const std::string& spec = specs[i];
        const bool extra = i >= m_config.topologies.size();
        RunTopology(BuildTopology(spec), "", extra ? withoutDrl : m_config.schedulers, progress);
        for (const auto& share : m_config.shares)
        {
            RunTopology(BuildTopology(spec + ",ina=" + share),
                        share,
                        GetAggregatingSchedulers(),
                        progress);
        }
    }
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void
PacketTable::RunTopology(const Topology& topo,
                         const std::string& share,
                         const std::vector<std::string>& schedulers,
                         ProgressReporter* progress)
{
    PacketRunConfig config = m_config.run;
    config.flowMonitor = false;
    const std::string& topoName = topo.GetName();
    BooleanValue pfcDefault; // the buffers' setting (--ns3::SharedBuffer::PfcEnabled)
    CreateObject<SharedBuffer>()->GetAttribute("PfcEnabled", pfcDefault);
    const bool pfc = pfcDefault.Get();
    for (const auto& name : schedulers)
    {
        const Plan plan = CreateScheduler(name)->MakePlan(topo, 1);
        PacketTableRow row;
        row.topology = topoName;
        row.base = share.empty() ? topoName : topoName.substr(0, topoName.rfind(",ina="));
        row.share = share;
        row.scheduler = name;
        row.servers = topo.GetNServers();
        row.rounds = plan.schedule.GetNRounds();
        for (const auto& mode : m_config.modes)
        {
            if (progress)
            {
                progress->Begin(name + " " + mode + " on " + topoName);
            }
            config.mode = mode;
            const PacketRunReport r = RunPacketAllReduce(plan, config);
            const bool ok = r.result.finished && r.verification.verified;
            if (!ok && m_failed.empty())
            {
                m_failed = name + " " + mode + " on " + topoName + ": " +
                           (r.result.finished ? r.verification.message : r.result.error);
            }
            // Lossless Ethernet loses nothing: a drop with PFC on is a failure.
            if (config.transport == "rdma" && pfc && config.loss == 0 &&
                r.counters.droppedPackets > 0 && m_failed.empty())
            {
                m_failed = name + " " + mode + " on " + topoName + ": " +
                           std::to_string(r.counters.droppedPackets) +
                           " packets dropped on lossless links (PFC on)";
            }
            row.counters[mode] = r.counters;
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
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    table.AddColumn("scheduler", TextColumns::LEFT);
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
    os << "\ngradient " << run.gradientBytes << " bytes per server, " << Quantity::FormatRate(run.dataRate.GetBitRate())
       << " links, " << Quantity::FormatTime(run.delay.GetNanoSeconds())
       << " delay; ratio = packet-level completion time / (rounds x T_S)\n"
       << DescribeTransport(run)
       << (run.warmUps == 0 ? std::string()
                            : "; " + std::to_string(run.warmUps) + " warm-up AllReduce" +
                                  (run.warmUps == 1 ? "" : "s") +
                                  " on them before each measured one")
       << "\n"
       << "every run verified exactly: " << (m_failed.empty() ? "yes" : "NO") << " ("
       << FormatFixed(m_seconds, 1) << " s)\n";
    PrintAggregation(os);
}

const PacketTableRow*
PacketTable::FindFastest(const std::string& base, const std::string& share) const
{
    const std::string& mode = m_config.modes.front();
    const PacketTableRow* best = nullptr;
    for (const auto& row : m_rows)
    {
        if (row.base == base && row.share == share &&
            (!best || row.completionTime.at(mode) < best->completionTime.at(mode)))
        {
            best = &row;
        }
    }
    return best;
}

void
PacketTable::PrintAggregation(std::ostream& os) const
{
    if (m_config.shares.empty() || GetAggregatingSchedulers().empty())
    {
        return;
    }
    const std::string& mode = m_config.modes.front();
    os << "\nAggregation in the network (doc/allreduce.rst): the fastest " << mode
       << " completion without aggregating switches and with them, ms (scheduler)\n\n";
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    table.AddColumn("without");
    for (const auto& share : m_config.shares)
    {
        table.AddColumn("ina=" + share);
        table.AddColumn("x");
    }
    const auto text = [&mode](const PacketTableRow* row) {
        return FormatFixed(row->completionTime.at(mode) * 1e3, 3) + " (" + row->scheduler + ")";
    };
    for (const auto& base : GetTopologiesOf(m_rows))
    {
        const PacketTableRow* without = FindFastest(base, "");
        if (!without)
        {
            continue; // base is a topology with aggregation
        }
        std::vector<std::string> cells{ShortLabel(base), text(without)};
        for (const auto& share : m_config.shares)
        {
            const PacketTableRow* with = FindFastest(base, share);
            cells.push_back(text(with));
            cells.push_back(FormatFixed(with->completionTime.at(mode) /
                                            without->completionTime.at(mode),
                                        2));
        }
        table.AddRow(std::move(cells));
    }
    table.Print(os);
    os << "\nx = the fastest with aggregation / the fastest without; with aggregation:";
    for (const auto& name : GetAggregatingSchedulers())
    {
        os << " " << name;
    }
    os << " (ring is unchanged by it; drl and optimal do not run on it).\nA switch receives a "
          "transfer whole before it sends on (TCP ends at the switch): a programmable switch "
          "adds packet by packet, so it would take at most these times.\n";
}

void
PacketTable::WriteCsv(std::ostream& os) const
{
    TextColumns table;
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
                       {"wall_s", row.wallSeconds.at(mode)},
                       {"pfc_pause_frames", row.counters.at(mode).pfcPauseFrames},
                       {"ecn_marks", row.counters.at(mode).ecnMarks},
                       {"cnps", row.counters.at(mode).cnps},
                       {"dropped_packets", row.counters.at(mode).droppedPackets}};
        }
        rows.push_back(j);
    }
    const PacketRunConfig& run = m_config.run;
    nlohmann::json doc{{"gradient_bytes", run.gradientBytes},
                       {"data_rate", Quantity::FormatRate(run.dataRate.GetBitRate())},
                       {"delay", Quantity::FormatTime(run.delay.GetNanoSeconds())},
                       {"transport", run.transport},
                       {"switching",
                        run.transport != "rdma"   ? "store-and-forward"
                        : run.switching.empty() ? "cut-through"
                                                : run.switching},
                       {"connections", run.connections},
                       {"warm_ups", run.warmUps},
                       {"verified", m_failed.empty()},
                       {"seconds", m_seconds},
                       {"rows", rows}};
    if (run.transport != "rdma") // RDMA has neither TCP nor queue discs
    {
        doc["tcp"] = GetTcp(run);
        doc["queue_disc"] = GetQueueDisc(run);
    }
    os << doc.dump(2) << "\n";
}

std::string
PacketTable::WriteFigure(const std::string& prefix) const
{
    // The rows of m_config.topologies without aggregation come in groups of every scheduler,
    // one group per topology, first.
    std::vector<const PacketTableRow*> plain;
    const size_t perTopology = m_config.schedulers.size() +
                               m_config.shares.size() * GetAggregatingSchedulers().size();
    for (size_t i = 0; i < m_config.topologies.size() * perTopology && i < m_rows.size(); ++i)
    {
        if (m_rows[i].share.empty())
        {
            plain.push_back(&m_rows[i]);
        }
    }
    const size_t nSchedulers = m_config.schedulers.size();
    std::vector<std::string> labels;
    for (size_t i = 0; i < plain.size(); i += nSchedulers)
    {
        labels.push_back(ShortLabel(plain[i]->topology));
    }
    BarChart chart("packet time / (rounds x T_S)", labels, m_config.schedulers);
    for (const auto& mode : m_config.modes)
    {
        std::vector<std::vector<double>> ratios(nSchedulers);
        for (size_t i = 0; i < plain.size(); ++i)
        {
            ratios[i % nSchedulers].push_back(plain[i]->GetRatio(mode));
        }
        chart.AddPanel("Packet level over flow level, " + mode + " mode (" +
                           std::to_string(m_config.run.gradientBytes) + " B gradient, " +
                           Quantity::FormatRate(m_config.run.dataRate.GetBitRate()) + ")",
                       ratios);
    }
    chart.SetReferenceLine(1, "flow level");
    chart.SetSize(1100, 380);
    std::string made = chart.Write(prefix);
    if (m_config.shares.empty() || GetAggregatingSchedulers().empty())
    {
        return made;
    }
    // The fastest with each share over the fastest without, per topology.
    const std::string& mode = m_config.modes.front();
    std::vector<std::string> bases;
    std::vector<std::vector<double>> ratios(m_config.shares.size());
    for (const auto& base : GetTopologiesOf(m_rows))
    {
        const PacketTableRow* without = FindFastest(base, "");
        if (!without)
        {
            continue;
        }
        bases.push_back(ShortLabel(base));
        for (size_t i = 0; i < m_config.shares.size(); ++i)
        {
            ratios[i].push_back(FindFastest(base, m_config.shares[i])->completionTime.at(mode) /
                                without->completionTime.at(mode));
        }
    }
    std::vector<std::string> series;
    for (const auto& share : m_config.shares)
    {
        series.push_back("ina=" + share);
    }
    BarChart aggregation("fastest with / fastest without", bases, series);
    aggregation.AddPanel("Packet-level completion with aggregating switches over without, " +
                             mode + " mode",
                         ratios);
    aggregation.SetReferenceLine(1, "without aggregation");
    return made + "\nfigure: " + aggregation.Write(prefix + "-aggregation");
}

} // namespace ns3
