/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-report.h"

#include "report-format.h"
#include "text-columns.h"

#include "ns3/text-file.h"

#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

/// \param result a run \param verdict a verdict of a job \return how many jobs have it
uint32_t
Count(const ClusterResult& result, bool ClusterJobResult::*verdict)
{
    uint32_t n = 0;
    for (const ClusterJobResult& job : result.jobs)
    {
        n += job.*verdict;
    }
    return n;
}

/// \param servers cluster servers \return them as "0,5,10"
std::string
JoinServers(const std::vector<uint32_t>& servers)
{
    std::string out;
    for (uint32_t s : servers)
    {
        out += (out.empty() ? "" : ",") + std::to_string(s);
    }
    return out;
}

} // namespace

void
PrintClusterRun(std::ostream& os, const ClusterRunInfo& info, const ClusterResult& result)
{
    os << info.topology << ", " << result.jobs.size() << " jobs (" << info.trace
       << "), placement " << info.placement << ", " << GetClusterModeName(info.config.mode)
       << " scheduling with " << info.config.scheduler << ", " << info.level << " level\n";
    TextColumns table;
    table.AddColumn("job");
    table.AddColumn("servers", TextColumns::LEFT);
    const bool packet = info.level == "packet";
    for (const char* header : {"arrival ms", "start ms", "finish ms", "JCT ms", "rounds", "bound",
                               "valid"})
    {
        table.AddColumn(header);
    }
    if (packet)
    {
        table.AddColumn("exact sums");
    }
    for (const ClusterJobResult& job : result.jobs)
    {
        std::string servers = JoinServers(job.servers);
        std::vector<std::string> row{std::to_string(job.id),
                                     Abbreviate(servers, 40),
                                     FormatFixed(job.spec.arrivalS * 1e3, 3),
                                     FormatFixed(job.startS * 1e3, 3),
                                     FormatFixed(job.finishS * 1e3, 3),
                                     FormatFixed(job.GetJct() * 1e3, 3),
                                     std::to_string(job.rounds),
                                     std::to_string(job.boundRounds * job.spec.iterations),
                                     job.valid ? "yes" : "NO"};
        if (packet)
        {
            row.emplace_back(job.verified ? "yes" : "NO");
        }
        table.AddRow(std::move(row));
    }
    table.Print(os);
    os << "mean JCT " << FormatFixed(result.GetMeanJct() * 1e3, 3) << " ms, p95 JCT "
       << FormatFixed(result.GetJctQuantile(0.95) * 1e3, 3) << " ms, makespan "
       << FormatFixed(result.makespanS * 1e3, 3) << " ms, ";
    if (!packet)
    {
        os << "link utilisation " << FormatFixed(result.linkUtilisation * 100, 1) << "%, ";
    }
    os << result.decisions << " decisions, " << Count(result, &ClusterJobResult::valid) << "/"
       << result.jobs.size() << " jobs valid";
    if (packet)
    {
        os << ", " << Count(result, &ClusterJobResult::verified) << "/" << result.jobs.size()
           << " with the exact sums";
    }
    os << " (" << FormatFixed(info.wallS, 2) << " s)\n";
    for (const ClusterJobResult& job : result.jobs)
    {
        if (!job.error.empty())
        {
            os << "job " << job.id << " FAILED: " << job.error << "\n";
        }
    }
}

void
WriteClusterRunJson(std::ostream& os, const ClusterRunInfo& info, const ClusterResult& result)
{
    nlohmann::json jobs = nlohmann::json::array();
    for (const ClusterJobResult& job : result.jobs)
    {
        nlohmann::json j{{"id", job.id},
                         {"servers", job.servers},
                         {"gradient_bytes", job.spec.gradientBytes},
                         {"iterations", job.spec.iterations},
                         {"arrival_s", job.spec.arrivalS},
                         {"start_s", job.startS},
                         {"finish_s", job.finishS},
                         {"jct_s", job.GetJct()},
                         {"rounds", job.rounds},
                         {"bound_rounds", job.boundRounds * job.spec.iterations},
                         {"valid", job.valid}};
        if (info.level == "packet")
        {
            j["verified"] = job.verified;
        }
        if (!job.error.empty())
        {
            j["error"] = job.error;
        }
        jobs.push_back(j);
    }
    // A name in another encoding than UTF-8 (a file name) is written with U+FFFD, not refused
    // with nlohmann's exception text.
    os << nlohmann::json{{"topology", info.topology},
                         {"trace", info.trace},
                         {"placement", info.placement},
                         {"joint", info.config.mode == ClusterMode::JOINT},
                         {"scheduler", info.config.scheduler},
                         {"level", info.level},
                         {"pieces", info.config.pieces},
                         {"link_rate_bps", info.config.linkRateBps},
                         {"jobs", jobs},
                         {"summary",
                          {{"jobs", result.jobs.size()},
                           {"valid_jobs", Count(result, &ClusterJobResult::valid)},
                           {"verified_jobs", Count(result, &ClusterJobResult::verified)},
                           {"mean_jct_s", result.GetMeanJct()},
                           {"p95_jct_s", result.GetJctQuantile(0.95)},
                           {"makespan_s", result.makespanS},
                           {"link_utilisation", result.linkUtilisation},
                           {"decisions", result.decisions},
                           {"wall_s", info.wallS}}}}
              .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
       << "\n";
}

} // namespace ns3
