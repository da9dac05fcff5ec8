/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dynamic-table.h"

#include "bar-chart.h"
#include "ns3/progress-reporter.h"
#include "report-format.h"
#include "text-columns.h"

#include "ns3/portable-random.h"
#include "ns3/quantity.h"
#include "ns3/scheduler-registry.h"
#include "ns3/topology-generators.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The share of its link rate every server offers in "background".
constexpr double BACKGROUND_LOAD = 0.3;
/// The share of the links "slow-links" slows, and their rate factor.
constexpr double SLOW_SHARE = 0.25;
constexpr double SLOW_FACTOR = 0.5;
/// Late servers in "stragglers", and how late, as a share of the unperturbed time.
constexpr uint32_t STRAGGLERS = 2;
constexpr double STRAGGLER_DELAY = 0.3;

} // namespace

const std::vector<std::string> DynamicTable::SCENARIOS{"none",
                                                       "link-down",
                                                       "stragglers",
                                                       "background",
                                                       "slow-links"};

double
DynamicTableRow::GetRatio() const
{
    return replayFinished && onlineFinished && replayTime > 0 ? onlineTime / replayTime : 0.0;
}

DynamicTable::DynamicTable(DynamicTableConfig config)
    : m_config(std::move(config))
{
    for (const auto& name : m_config.schedulers)
    {
        CreateScheduler(name); // fails early, naming the available ones
        if (name == "optimal")
        {
            throw std::invalid_argument("--schedulers: optimal plans offline and only replays "
                                        "its plan, and this table runs every scheduler both "
                                        "replayed and online; leave optimal out");
        }
    }
    for (const auto& scenario : m_config.scenarios)
    {
        if (std::find(SCENARIOS.begin(), SCENARIOS.end(), scenario) == SCENARIOS.end())
        {
            throw std::invalid_argument("unknown scenario '" + scenario +
                                        "'; accepted: none, link-down, stragglers, background, "
                                        "slow-links");
        }
    }
    const bool slowLinks = std::find(m_config.scenarios.begin(), m_config.scenarios.end(),
                                     "slow-links") != m_config.scenarios.end();
    if (slowLinks && m_config.run.dataRate.GetBitRate() * SLOW_FACTOR < MIN_PACKET_RATE_BPS)
    {
        // Checked here, not when the scenario's turn comes after the others have run.
        throw std::invalid_argument(
            "the slow-links scenario runs links at " + FormatNumber(SLOW_FACTOR) +
            "x --data-rate, below the 1Mbps packet level needs at --data-rate=" +
            Quantity::FormatRate(m_config.run.dataRate.GetBitRate()) +
            ": give --data-rate of at least " +
            Quantity::FormatRate(
                static_cast<uint64_t>(std::ceil(MIN_PACKET_RATE_BPS / SLOW_FACTOR))) +
            ", or leave slow-links out of --scenarios");
    }
    if (m_config.run.mode != "barrier" && m_config.run.mode != "async")
    {
        throw std::invalid_argument("mode must be barrier or async, got '" + m_config.run.mode +
                                    "'");
    }
    for (const auto& spec : m_config.topologies)
    {
        try
        {
            BuildTopology(spec); // a bad spec is refused before the first run
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("--topologies: ") + e.what());
        }
    }
}

uint64_t
DynamicTable::GetNSteps() const
{
    const bool none = std::count(m_config.scenarios.begin(), m_config.scenarios.end(), "none");
    // The unperturbed replay runs once; every other scenario twice.
    return m_config.topologies.size() * m_config.schedulers.size() *
           (1 + 2 * m_config.scenarios.size() - (none ? 1 : 0));
}

uint32_t
DynamicTable::DrawFailingLink(const Topology& topology, uint32_t seed)
{
    const uint32_t links = topology.GetNLinks();
    std::vector<uint32_t> order(links);
    for (uint32_t l = 0; l < links; ++l)
    {
        order[l] = l;
    }
    std::mt19937_64 rng(seed);
    for (uint32_t i = 0; i < links; ++i)
    {
        // Fisher-Yates, drawn link by link until one is not a bridge.
        const auto j = i + static_cast<uint32_t>(UniformUnit(rng) * (links - i));
        std::swap(order[i], order[std::min(j, links - 1)]);
        Topology without(topology.GetName(), topology.GetNServers(), topology.GetNSwitches());
        for (uint32_t l = 0; l < links; ++l)
        {
            if (l != order[i])
            {
                without.AddLink(topology.GetLink(l).a, topology.GetLink(l).b);
            }
        }
        if (without.IsConnected())
        {
            return order[i];
        }
    }
    return NO_INDEX;
}

void
DynamicTable::Run(ProgressReporter* progress)
{
    const auto start = std::chrono::steady_clock::now();
    m_rows.clear();
    m_failed.clear();
    for (const auto& spec : m_config.topologies)
    {
        const Topology topo = BuildTopology(spec);
        for (const auto& name : m_config.schedulers)
        {
            RunScheduler(topo, name, progress);
        }
    }
    m_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void
DynamicTable::RunScheduler(const Topology& topo,
                           const std::string& name,
                           ProgressReporter* progress)
{
    // The scheduler that planned decides online too: balanced keeps the rule and ties that
    // made its best plan.
    Ptr<AllReduceScheduler> scheduler = CreateScheduler(name);
    const Plan plan = scheduler->MakePlan(topo, 1);
    const auto run = [&](const Plan& p,
                         PacketRunConfig config,
                         bool online,
                         const std::string& scenario) {
        if (progress)
        {
            progress->Begin(name + " " + scenario + (online ? " online" : " replay") + " on " +
                            topo.GetName());
        }
        config.decisions = online ? "online" : "replay";
        config.flowMonitor = false;
        return RunPacketAllReduce(p, config, online ? scheduler : nullptr);
    };
    const PacketRunReport unperturbed = run(plan, m_config.run, false, "none");
    const double t0 = unperturbed.result.completionTime;
    std::mt19937_64 rng(m_config.seed);
    const double failAt = (0.1 + 0.8 * UniformUnit(rng)) * t0;
    const uint32_t failing = DrawFailingLink(topo, m_config.seed);

    for (const auto& scenario : m_config.scenarios)
    {
        DynamicTableRow row;
        row.topology = topo.GetName();
        row.scheduler = name;
        row.scenario = scenario;
        row.planRounds = plan.schedule.GetNRounds();
        PacketRunConfig config = m_config.run;
        Plan runs = plan;
        if (scenario == "link-down" && failing != NO_INDEX)
        {
            config.linkDowns = {{failing, failAt}};
            row.conditions = "link " + std::to_string(failing) + " down at " +
                             FormatFixed(failAt * 1e3, 3) + " ms";
        }
        else if (scenario == "link-down")
        {
            row.conditions = "every link is a bridge: none failed";
        }
        else if (scenario == "stragglers")
        {
            const auto delayNs = std::llround(STRAGGLER_DELAY * t0 * 1e9);
            config.stragglers = std::to_string(STRAGGLERS) + ":" + std::to_string(delayNs) + "ns";
            config.stragglerSeed = m_config.seed;
            row.conditions = std::to_string(STRAGGLERS) + " servers late by " +
                             FormatFixed(delayNs * 1e-6, 3) + " ms";
        }
        else if (scenario == "background")
        {
            config.backgroundLoad = BACKGROUND_LOAD;
            config.backgroundSeed = m_config.seed;
            row.conditions = "onoff at " + FormatNumber(BACKGROUND_LOAD) + " of the link rate";
        }
        else if (scenario == "slow-links")
        {
            Topology slow = topo;
            SlowDownLinks(slow, SLOW_SHARE, SLOW_FACTOR, m_config.seed);
            // The same workloads and rounds on the slowed network (the plan's own topology
            // would run every link at full rate).
            runs.workloads = plan.workloads.OnTopology(slow);
            row.conditions = std::to_string(slow.CountUnevenLinks()) + " links at " +
                             FormatNumber(SLOW_FACTOR) + "x rate";
        }
        const PacketRunReport replay =
            scenario == "none" ? unperturbed : run(runs, config, false, scenario);
        const PacketRunReport online = run(runs, config, true, scenario);
        row.replayFinished = replay.result.finished && replay.verification.verified;
        row.onlineFinished = online.result.finished && online.verification.verified;
        row.replayTime = replay.result.completionTime;
        row.onlineTime = online.result.completionTime;
        row.replayError = replay.result.finished ? (row.replayFinished ? "" : replay.verification.message)
                                                 : replay.result.error;
        row.onlineError = online.result.finished ? (row.onlineFinished ? "" : online.verification.message)
                                                 : online.result.error;
        row.decisions = online.result.decisions;
        row.onlineRounds = online.run.schedule.GetNRounds();
        row.rerouted = online.result.rerouted;
        row.decisionWallS = online.result.decisionWallS;
        row.decisionWallMaxS = online.result.decisionWallMaxS;
        row.replans = online.drl ? online.drl->replans : 0;
        // A replayed plan may stall, or a connection time out, on the failed link.
        Check(row, scenario == "link-down" && !replay.result.finished);
        m_rows.push_back(std::move(row));
    }
}

void
DynamicTable::Check(const DynamicTableRow& row, bool replayMayStall)
{
    if (!m_failed.empty())
    {
        return;
    }
    const std::string where = row.scheduler + " " + row.scenario + " on " + row.topology;
    if (!row.onlineFinished)
    {
        m_failed = where + ", online: " + row.onlineError;
    }
    else if (!row.replayFinished && !replayMayStall)
    {
        m_failed = where + ", replay: " + row.replayError;
    }
}

const std::vector<DynamicTableRow>&
DynamicTable::GetRows() const
{
    return m_rows;
}

const std::string&
DynamicTable::GetFailure() const
{
    return m_failed;
}

void
DynamicTable::Print(std::ostream& os) const
{
    // Online over replay, the geometric mean over a group's runs where both finished; replays
    // that stalled on the failed link are counted apart.
    const auto print = [&](const std::string& by, const std::vector<std::string>& keys,
                           bool byTopology) {
        TextColumns table;
        table.AddColumn(by, TextColumns::LEFT);
        for (const auto& scenario : m_config.scenarios)
        {
            table.AddColumn(scenario);
        }
        for (const auto& key : keys)
        {
            std::vector<std::string> cells{byTopology ? ShortLabel(key) : key};
            for (const auto& scenario : m_config.scenarios)
            {
                std::vector<double> ratios;
                uint32_t stalls = 0;
                for (const auto& row : m_rows)
                {
                    if ((byTopology ? row.topology : row.scheduler) != key ||
                        row.scenario != scenario)
                    {
                        continue;
                    }
                    if (row.GetRatio() > 0)
                    {
                        ratios.push_back(row.GetRatio());
                    }
                    stalls += !row.replayFinished;
                }
                std::string cell = ratios.empty() ? "-" : FormatFixed(GeometricMean(ratios), 2);
                if (stalls)
                {
                    cell += " (" + std::to_string(stalls) + " replay stall" +
                            (stalls > 1 ? "s" : "") + ")";
                }
                cells.push_back(cell);
            }
            table.AddRow(std::move(cells));
        }
        table.Print(os);
    };
    const std::vector<std::string> topologies = GetTopologiesOf(m_rows);
    os << "online / replay completion time (" << m_config.run.mode
       << " mode), geometric mean over the schedulers:\n";
    print("topology", topologies, true);
    os << "\nthe same over the topologies:\n";
    print("scheduler", m_config.schedulers, false);
    std::map<std::string, std::pair<uint32_t, uint32_t>> noSlower; // scenario -> (yes, of)
    for (const auto& row : m_rows)
    {
        auto& [yes, of] = noSlower[row.scenario];
        of += row.onlineFinished;
        yes += row.onlineFinished && (!row.replayFinished || row.onlineTime <= row.replayTime);
    }
    os << "\n";
    PrintTimes(os);
    os << "\n";
    PrintDecisionTimes(os);
    os << "\nonline no slower than replay (a stalled replay counts as slower):";
    for (const auto& scenario : m_config.scenarios)
    {
        os << " " << scenario << " " << noSlower[scenario].first << "/"
           << noSlower[scenario].second << ";";
    }
    const PacketRunConfig& run = m_config.run;
    os << "\ngradient " << run.gradientBytes << " bytes per server, " << Quantity::FormatRate(run.dataRate.GetBitRate())
       << " links, " << Quantity::FormatTime(run.delay.GetNanoSeconds()) << " delay, seed " << m_config.seed << "\n"
       << "every online run verified exactly: " << (m_failed.empty() ? "yes" : "NO") << " ("
       << FormatFixed(m_seconds, 1) << " s)\n";
}

void
DynamicTable::PrintTimes(std::ostream& os) const
{
    TextColumns table;
    table.AddColumn("scheduler", TextColumns::LEFT);
    for (const auto& scenario : m_config.scenarios)
    {
        table.AddColumn(scenario);
    }
    for (const auto& name : m_config.schedulers)
    {
        for (const bool online : {false, true})
        {
            std::vector<std::string> cells{name + (online ? " online" : " replay")};
            for (const auto& scenario : m_config.scenarios)
            {
                std::vector<double> times;
                uint32_t unfinished = 0;
                for (const auto& row : m_rows)
                {
                    if (row.scheduler != name || row.scenario != scenario)
                    {
                        continue;
                    }
                    const bool finished = online ? row.onlineFinished : row.replayFinished;
                    unfinished += !finished;
                    if (finished)
                    {
                        times.push_back((online ? row.onlineTime : row.replayTime) * 1e3);
                    }
                }
                std::string cell = times.empty() ? "-" : FormatFixed(GeometricMean(times), 3);
                if (unfinished)
                {
                    cell += " (" + std::to_string(unfinished) + " stalled)";
                }
                cells.push_back(cell);
            }
            table.AddRow(std::move(cells));
        }
    }
    os << "completion time, ms, geometric mean over the topologies where the run finished:\n";
    table.Print(os);
}

void
DynamicTable::PrintDecisionTimes(std::ostream& os) const
{
    TextColumns table;
    table.AddColumn("scheduler", TextColumns::LEFT);
    for (const char* header : {"decisions", "ms each", "longest ms", "searches"})
    {
        table.AddColumn(header);
    }
    for (const auto& name : m_config.schedulers)
    {
        uint64_t decisions = 0;
        uint64_t replans = 0;
        double wall = 0;
        double longest = 0;
        for (const auto& row : m_rows)
        {
            if (row.scheduler == name)
            {
                decisions += row.decisions;
                replans += row.replans;
                wall += row.decisionWallS;
                longest = std::max(longest, row.decisionWallMaxS);
            }
        }
        table.AddRow({name,
                      std::to_string(decisions),
                      FormatFixed(decisions ? wall * 1e3 / decisions : 0, 3),
                      FormatFixed(longest * 1e3, 1),
                      std::to_string(replans)});
    }
    os << "online decisions, wall clock (every scenario; drl's searches from the live state):\n";
    table.Print(os);
}

void
DynamicTable::WriteCsv(std::ostream& os) const
{
    TextColumns table;
    for (const char* header : {"topology",
                               "scheduler",
                               "scenario",
                               "conditions",
                               "plan_rounds",
                               "replay_s",
                               "online_s",
                               "online_over_replay",
                               "replay_finished",
                               "online_finished",
                               "decisions",
                               "online_rounds",
                               "rerouted",
                               "decision_wall_s",
                               "decision_wall_max_s",
                               "replans"})
    {
        table.AddColumn(header);
    }
    for (const auto& row : m_rows)
    {
        table.AddRow({row.topology,
                      row.scheduler,
                      row.scenario,
                      row.conditions,
                      std::to_string(row.planRounds),
                      row.replayFinished ? FormatNumber(row.replayTime) : "",
                      row.onlineFinished ? FormatNumber(row.onlineTime) : "",
                      row.GetRatio() > 0 ? FormatNumber(row.GetRatio()) : "",
                      row.replayFinished ? "true" : "false",
                      row.onlineFinished ? "true" : "false",
                      std::to_string(row.decisions),
                      std::to_string(row.onlineRounds),
                      std::to_string(row.rerouted),
                      FormatNumber(row.decisionWallS),
                      FormatNumber(row.decisionWallMaxS),
                      std::to_string(row.replans)});
    }
    table.WriteCsv(os);
}

void
DynamicTable::WriteJson(std::ostream& os) const
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : m_rows)
    {
        nlohmann::json j{{"topology", row.topology},
                         {"scheduler", row.scheduler},
                         {"scenario", row.scenario},
                         {"conditions", row.conditions},
                         {"plan_rounds", row.planRounds},
                         {"replay", {{"finished", row.replayFinished},
                                     {"completion_time_s", row.replayTime}}},
                         {"online", {{"finished", row.onlineFinished},
                                     {"completion_time_s", row.onlineTime},
                                     {"decisions", row.decisions},
                                     {"rounds_run", row.onlineRounds},
                                     {"rerouted", row.rerouted},
                                     {"decision_wall_s", row.decisionWallS},
                                     {"decision_wall_max_s", row.decisionWallMaxS},
                                     {"replans", row.replans}}},
                         {"online_over_replay", row.GetRatio()}};
        if (!row.replayError.empty())
        {
            j["replay"]["error"] = row.replayError;
        }
        if (!row.onlineError.empty())
        {
            j["online"]["error"] = row.onlineError;
        }
        rows.push_back(j);
    }
    const PacketRunConfig& run = m_config.run;
    os << nlohmann::json{{"mode", run.mode},
                         {"gradient_bytes", run.gradientBytes},
                         {"data_rate", Quantity::FormatRate(run.dataRate.GetBitRate())},
                         {"delay", Quantity::FormatTime(run.delay.GetNanoSeconds())},
                         {"seed", m_config.seed},
                         {"verified", m_failed.empty()},
                         {"seconds", m_seconds},
                         {"rows", rows}}
              .dump(2)
       << "\n";
}

std::string
DynamicTable::WriteFigure(const std::string& prefix) const
{
    const std::vector<std::string> topologies = GetTopologiesOf(m_rows);
    std::vector<std::string> labels;
    for (const auto& name : topologies)
    {
        labels.push_back(ShortLabel(name));
    }
    BarChart chart("online / replay", labels, m_config.schedulers);
    for (const auto& scenario : m_config.scenarios)
    {
        std::vector<std::vector<double>> ratios(m_config.schedulers.size(),
                                                std::vector<double>(topologies.size(), 0.0));
        for (const auto& row : m_rows)
        {
            if (row.scenario != scenario)
            {
                continue;
            }
            const auto s = std::find(m_config.schedulers.begin(),
                                     m_config.schedulers.end(),
                                     row.scheduler) -
                           m_config.schedulers.begin();
            const auto t = std::find(topologies.begin(), topologies.end(), row.topology) -
                           topologies.begin();
            ratios[s][t] = row.GetRatio();
        }
        chart.AddPanel("Online over replay: " + scenario + " (" + m_config.run.mode +
                           " mode; no bar: replay stalled)",
                       ratios);
    }
    chart.SetReferenceLine(1, "replay");
    chart.SetSize(1100, 300);
    return chart.Write(prefix);
}

} // namespace ns3
