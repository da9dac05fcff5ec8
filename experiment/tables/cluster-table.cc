/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-table.h"

#include "cdf-chart.h"
#include "ns3/progress-reporter.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/placement-policy.h"
#include "ns3/scheduler-registry.h"
#include "ns3/topology-generators.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace ns3
{

ClusterTable::ClusterTable(ClusterTableConfig config)
    : m_config(std::move(config))
{
    if (m_config.jobs.empty())
    {
        throw std::invalid_argument("the cluster experiment needs at least one job");
    }
    if (m_config.topologies.empty() || m_config.placements.empty() || m_config.modes.empty() ||
        m_config.schedulers.empty())
    {
        throw std::invalid_argument("give at least one topology, placement, mode and scheduler");
    }
    for (const auto& name : m_config.placements)
    {
        CreatePlacement(name);
    }
    for (const auto& name : m_config.schedulers)
    {
        CreateScheduler(name);
    }
    // Every topology built, and every job checked on it with every placement, before the first
    // run: a refusal comes now, not minutes into the experiment.
    for (const auto& spec : m_config.topologies)
    {
        m_clusters.push_back(BuildTopology(spec));
        const Topology& cluster = m_clusters.back();
        try
        {
            CheckClusterJobs(cluster, m_config.jobs, m_config.pieces);
            for (const auto& name : m_config.placements)
            {
                CheckPlacement(cluster, *CreatePlacement(name), m_config.jobs);
            }
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument("on " + cluster.GetName() + " (--topologies): " +
                                        e.what());
        }
    }
}

uint64_t
ClusterTable::GetNSteps() const
{
    return uint64_t{m_config.topologies.size()} * m_config.placements.size() *
           m_config.modes.size() * m_config.schedulers.size();
}

void
ClusterTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_failed.clear();
    for (const Topology& cluster : m_clusters)
    {
        for (const auto& placement : m_config.placements)
        {
            for (ClusterMode mode : m_config.modes)
            {
                for (const auto& scheduler : m_config.schedulers)
                {
                    ClusterTableRow row;
                    row.topology = cluster.GetName();
                    row.placement = placement;
                    row.mode = GetClusterModeName(mode);
                    row.scheduler = scheduler;
                    if (progress)
                    {
                        progress->Begin(placement + ", " + row.mode + ", " + scheduler + " on " +
                                        cluster.GetName());
                    }
                    Ptr<PlacementPolicy> policy = CreatePlacement(placement);
                    policy->SetAttributeFailSafe("Seed", UintegerValue(m_config.seed));
                    ClusterConfig config;
                    config.scheduler = scheduler;
                    config.mode = mode;
                    config.pieces = m_config.pieces;
                    config.linkRateBps = m_config.linkRateBps;
                    const auto t0 = std::chrono::steady_clock::now();
                    const ClusterResult r = ClusterEngine(cluster, policy, config).Run(m_config.jobs);
                    row.wallS =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    row.meanJctS = r.GetMeanJct();
                    row.p95JctS = r.GetJctQuantile(0.95);
                    row.makespanS = r.makespanS;
                    row.utilisation = r.linkUtilisation;
                    row.decisions = r.decisions;
                    double wait = 0;
                    for (const ClusterJobResult& job : r.jobs)
                    {
                        row.jctS.push_back(job.GetJct());
                        wait += job.startS - job.spec.arrivalS;
                        row.validJobs += job.valid;
                        if (!job.valid && m_failed.empty())
                        {
                            m_failed = "job " + std::to_string(job.id) + " with " + placement +
                                       ", " + row.mode + ", " + scheduler + " on " +
                                       cluster.GetName() + ": " + job.error;
                        }
                    }
                    row.meanWaitS = wait / static_cast<double>(r.jobs.size());
                    m_rows.push_back(std::move(row));
                }
            }
        }
    }
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::pair<std::string, double>>
ClusterTable::Compare(std::string ClusterTableRow::*field,
                      const std::string& value,
                      const std::string& versus) const
{
    // Rows that differ only in `field`: the same topology, and the same placement, mode and
    // scheduler but for the one compared.
    const auto same = [field](const ClusterTableRow& a, const ClusterTableRow& b) {
        for (std::string ClusterTableRow::*key :
             {&ClusterTableRow::placement, &ClusterTableRow::mode, &ClusterTableRow::scheduler})
        {
            if (key != field && a.*key != b.*key)
            {
                return false;
            }
        }
        return a.topology == b.topology;
    };
    std::vector<std::pair<std::string, double>> out;
    for (const auto& topology : GetTopologiesOf(m_rows))
    {
        std::vector<double> ratios;
        for (const auto& a : m_rows)
        {
            if (a.topology != topology || a.*field != value)
            {
                continue;
            }
            for (const auto& b : m_rows)
            {
                if (b.*field == versus && same(a, b) && b.meanJctS > 0)
                {
                    ratios.push_back(a.meanJctS / b.meanJctS);
                }
            }
        }
        if (!ratios.empty())
        {
            out.emplace_back(topology, GeometricMean(ratios));
        }
    }
    return out;
}

void
ClusterTable::Print(std::ostream& os) const
{
    TextColumns table;
    table.AddColumn("topology", TextColumns::LEFT);
    table.AddColumn("placement", TextColumns::LEFT);
    table.AddColumn("mode", TextColumns::LEFT);
    table.AddColumn("scheduler", TextColumns::LEFT);
    for (const char* header :
         {"mean JCT ms", "p95 JCT ms", "mean wait ms", "makespan ms", "link use %", "valid jobs"})
    {
        table.AddColumn(header);
    }
    for (const auto& row : m_rows)
    {
        table.AddRow({ShortLabel(row.topology),
                      row.placement,
                      row.mode,
                      row.scheduler,
                      FormatFixed(row.meanJctS * 1e3, 2),
                      FormatFixed(row.p95JctS * 1e3, 2),
                      FormatFixed(row.meanWaitS * 1e3, 2),
                      FormatFixed(row.makespanS * 1e3, 2),
                      FormatFixed(row.utilisation * 100, 1),
                      std::to_string(row.validJobs) + "/" + std::to_string(row.jctS.size())});
    }
    os << m_config.jobs.size() << " jobs per run, flow level:\n";
    table.Print(os);

    // Each placement against the others, and joint against independent: geometric means of
    // mean-JCT ratios over the runs that differ only in that.
    const auto has = [&](const std::string& placement) {
        return std::find(m_config.placements.begin(), m_config.placements.end(), placement) !=
               m_config.placements.end();
    };
    if (has("topology-aware"))
    {
        for (const auto& versus : m_config.placements)
        {
            if (versus == "topology-aware")
            {
                continue;
            }
            os << "\ntopology-aware over " << versus
               << " placement, mean JCT (geometric mean over schedulers and modes; below 1 is "
                  "better):\n";
            for (const auto& [topology, ratio] :
                 Compare(&ClusterTableRow::placement, "topology-aware", versus))
            {
                os << "  " << ShortLabel(topology) << ": " << FormatFixed(ratio, 3) << "\n";
            }
        }
    }
    if (m_config.modes.size() == 2)
    {
        os << "\njoint over independent scheduling, mean JCT (geometric mean over placements "
              "and schedulers):\n";
        for (const auto& [topology, ratio] :
             Compare(&ClusterTableRow::mode, "joint", "independent"))
        {
            os << "  " << ShortLabel(topology) << ": " << FormatFixed(ratio, 3) << "\n";
        }
    }
    os << "\n" << (m_failed.empty() ? "every job of every run passed the validator"
                                    : "FAILED: " + m_failed)
       << " (" << ProgressReporter::FormatDuration(m_seconds) << ")\n";
}

void
ClusterTable::WriteCsv(std::ostream& os) const
{
    TextColumns table;
    for (const char* header : {"topology",
                               "placement",
                               "mode",
                               "scheduler",
                               "jobs",
                               "mean_jct_s",
                               "p95_jct_s",
                               "mean_wait_s",
                               "makespan_s",
                               "link_utilisation",
                               "decisions",
                               "valid_jobs",
                               "wall_s"})
    {
        table.AddColumn(header);
    }
    for (const auto& row : m_rows)
    {
        table.AddRow({row.topology,
                      row.placement,
                      row.mode,
                      row.scheduler,
                      std::to_string(row.jctS.size()),
                      FormatNumber(row.meanJctS),
                      FormatNumber(row.p95JctS),
                      FormatNumber(row.meanWaitS),
                      FormatNumber(row.makespanS),
                      FormatNumber(row.utilisation),
                      std::to_string(row.decisions),
                      std::to_string(row.validJobs),
                      FormatNumber(row.wallS)});
    }
    table.WriteCsv(os);
}

void
ClusterTable::WriteJson(std::ostream& os) const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m_rows)
    {
        rows.push_back({{"topology", row.topology},
                        {"placement", row.placement},
                        {"mode", row.mode},
                        {"scheduler", row.scheduler},
                        {"mean_jct_s", row.meanJctS},
                        {"p95_jct_s", row.p95JctS},
                        {"mean_wait_s", row.meanWaitS},
                        {"makespan_s", row.makespanS},
                        {"link_utilisation", row.utilisation},
                        {"decisions", row.decisions},
                        {"valid_jobs", row.validJobs},
                        {"jct_s", row.jctS},
                        {"wall_s", row.wallS}});
    }
    // A name in another encoding than UTF-8 (a file name) is written with U+FFFD, not refused
    // with nlohmann's exception text.
    os << nlohmann::json{{"level", "flow"},
                         {"jobs", m_config.jobs.size()},
                         {"seed", m_config.seed},
                         {"pieces", m_config.pieces},
                         {"link_rate_bps", m_config.linkRateBps},
                         {"verified", m_failed.empty()},
                         {"seconds", m_seconds},
                         {"rows", rows}}
              .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << "\n";
}

std::string
ClusterTable::GetFigureScheduler() const
{
    const auto& s = m_config.schedulers;
    return std::find(s.begin(), s.end(), "balanced") != s.end() ? "balanced" : s.front();
}

std::string
ClusterTable::WriteFigure(const std::string& prefix) const
{
    const std::string scheduler = GetFigureScheduler();
    CdfChart chart("job completion time (ms)");
    for (const auto& topology : GetTopologiesOf(m_rows))
    {
        std::vector<std::pair<std::string, std::vector<double>>> series;
        for (const auto& row : m_rows)
        {
            if (row.topology == topology && row.scheduler == scheduler)
            {
                std::vector<double> ms;
                for (double s : row.jctS)
                {
                    ms.push_back(s * 1e3);
                }
                series.emplace_back(row.placement + ", " + row.mode, std::move(ms));
            }
        }
        chart.AddPanel(ShortLabel(topology) + " (" + scheduler + ")", series);
    }
    return chart.Write(prefix);
}

const std::string&
ClusterTable::GetFailure() const
{
    return m_failed;
}

const std::vector<ClusterTableRow>&
ClusterTable::GetRows() const
{
    return m_rows;
}

} // namespace ns3
