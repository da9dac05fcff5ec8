/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rounds-report.h"

#include "report-format.h"

#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

/// \return "none" or "12, 13 rounds"
std::string
FormatRounds(const std::vector<uint32_t>& v)
{
    std::string s;
    for (uint32_t x : v)
    {
        s += (s.empty() ? "" : ", ") + std::to_string(x);
    }
    return s.empty() ? "none" : s + " rounds";
}

/// \return what the program proved on its candidate trees, or why it did not run
std::string
DescribeCandidates(const OptimalSearch& search)
{
    if (search.treesPerRoot == 0)
    {
        return "the program did not run: the start meets the certified bound";
    }
    return std::to_string(search.treesPerRoot) +
           (search.treesPerRoot == 1 ? " tree set" : " tree sets") +
           " per root in the program: fewest rounds on them " + search.GetCandidateInterval();
}

} // namespace

void
PrintRoundsReport(std::ostream& os,
                  const SchedulerResult& result,
                  bool timed,
                  const OptimalSearch* search,
                  const DrlDecoding* drl)
{
    const WorkloadSet& ws = result.plan.workloads;
    const Topology& topo = ws.GetTopology();
    os << "topology    " << topo.GetName() << ": " << topo.GetNServers() << " servers, "
       << topo.GetNNodes() << " nodes, " << topo.GetNLinks() << " links";
    if (topo.CountAggregators() > 0)
    {
        os << ", " << topo.CountAggregators() << " of " << topo.GetNSwitches()
           << " switches aggregate";
    }
    os << "\n"
       << "scheduler   " << result.plan.schedule.scheduler << " ("
       << ToString(ws.GetSemantics()) << " workloads, " << ws.GetPieces()
       << (ws.GetPieces() == 1 ? " piece" : " pieces") << " per chunk)\n"
       << "workloads   " << ws.GetN() << "\n"
       << "rounds      " << result.plan.schedule.GetNRounds() << "\n"
       << "bounds      bandwidth " << result.bounds.bandwidth << ", links "
       << result.bounds.links << ", critical path " << result.bounds.path << "\n"
       << "ratio       " << FormatFixed(result.GetRatio(), 3) << " x the bandwidth bound\n"
       << "valid       " << (result.check.valid ? "yes" : "NO: " + result.check.error) << "\n";
    if (timed)
    {
        os << "time        " << FormatFixed(result.seconds, 4) << " s\n";
    }
    if (search)
    {
        os << "status      " << search->GetStatusName() << ": fewest rounds "
           << search->GetInterval() << " (started from " << search->heuristicRounds << " by "
           << search->heuristic << ")\n"
           << "started     " << JoinText(search->started, "; ") << " (start plans "
           << FormatFixed(search->startSeconds, 2) << " s)\n"
           << "candidates  " << DescribeCandidates(*search) << "\n"
           << "proven      infeasible for " << FormatRounds(search->infeasible)
           << "; schedules found for " << FormatRounds(search->feasible) << "; left open "
           << FormatRounds(search->unknown) << "\n";
        if (!search->note.empty())
        {
            os << "note        " << search->note << "\n";
        }
    }
    if (drl && drl->source != DrlDecoding::Source::NONE)
    {
        os << "model       " << drl->DescribeModel() << "\n";
        const std::string how = drl->DescribeSearch();
        if (!how.empty())
        {
            os << "search      " << how << "\n";
        }
    }
}

void
WriteRoundsReportJson(std::ostream& os,
                      const SchedulerResult& result,
                      bool timed,
                      const OptimalSearch* search,
                      const DrlDecoding* drl)
{
    const WorkloadSet& ws = result.plan.workloads;
    const Topology& topo = ws.GetTopology();
    nlohmann::json out{
        {"topology", topo.GetName()},
        {"servers", topo.GetNServers()},
        {"nodes", topo.GetNNodes()},
        {"links", topo.GetNLinks()},
        {"aggregating_switches", topo.CountAggregators()},
        {"workloads", ws.GetN()},
        {"pieces", ws.GetPieces()},
        {"semantics", ToString(ws.GetSemantics())},
        {"scheduler", result.plan.schedule.scheduler},
        {"rounds", result.plan.schedule.GetNRounds()},
        {"bound_bandwidth", result.bounds.bandwidth},
        {"bound_links", result.bounds.links},
        {"bound_path", result.bounds.path},
        {"ratio_bandwidth", result.GetRatio()},
        {"valid", result.check.valid},
    };
    if (!result.check.valid)
    {
        out["error"] = result.check.error;
    }
    if (timed)
    {
        out["seconds"] = result.seconds;
    }
    if (search)
    {
        out["status"] = search->GetStatusName();
        out["lower"] = search->lower;
        out["upper"] = search->upper;
        out["candidate_lower"] = search->candidateLower;
        out["heuristic"] = search->heuristic;
        out["heuristic_rounds"] = search->heuristicRounds;
        out["started"] = search->started;
        out["start_seconds"] = search->startSeconds;
        out["rounds_infeasible"] = search->infeasible;
        out["rounds_feasible"] = search->feasible;
        out["rounds_open"] = search->unknown;
        out["trees_per_root"] = search->treesPerRoot;
        if (!search->note.empty())
        {
            out["note"] = search->note;
        }
        out["program"] = {{"binaries", search->variables},
                          {"rows", search->constraints},
                          {"nonzeros", search->nonzeros}};
    }
    if (drl && drl->source != DrlDecoding::Source::NONE)
    {
        out["drl"] = {{"model", drl->model},
                      {"model_source", drl->GetSourceName()},
                      {"model_info", drl->info},
                      {"samples", drl->samples},
                      {"episodes_finished", drl->finished},
                      {"episodes_cut", drl->cut},
                      {"episodes_not_run", drl->skipped},
                      {"search_budget", drl->budget},
                      {"sampled_rounds", drl->sampledRounds},
                      {"rollout",
                       {{"branches", drl->rollout.branches},
                        {"run", drl->rollout.branches > 0 && !drl->rollout.skipped},
                        {"estimate", drl->rollout.estimate},
                        {"rounds_decided", drl->rollout.rounds},
                        {"decisions_tried", drl->rollout.tried},
                        {"workloads_scheduled", drl->rollout.scheduled},
                        {"budget_used_up", drl->rollout.budgetOut},
                        {"rounds", drl->rollout.found}}},
                      {"rescore_share", drl->rescoreShare},
                      {"symmetry", drl->symmetry}};
    }
    os << out.dump(2) << std::endl;
}

} // namespace ns3
