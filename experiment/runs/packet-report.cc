/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-report.h"

#include "bar-chart.h"
#include "report-format.h"

#include "ns3/quantity.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

/// What the report's text and JSON both say about the links and flows.
struct Totals
{
    double meanUtilization{0};
    double maxUtilization{0};
    uint64_t wireBytes{0};
    uint64_t lostPackets{0};
};

Totals
Sum(const PacketRunReport& report)
{
    Totals t;
    const std::vector<double> utilization = report.GetLinkUtilization();
    for (size_t i = 0; i < utilization.size(); ++i)
    {
        t.meanUtilization += utilization[i] / utilization.size();
        t.maxUtilization = std::max(t.maxUtilization, utilization[i]);
        t.wireBytes += report.linkBytes[i];
    }
    for (const auto& f : report.flows)
    {
        t.lostPackets += f.lostPackets;
    }
    return t;
}

/// \return round t's packet-level duration, -1 when it did not finish
double
RoundDuration(const AllReduceRunResult& r, uint32_t t)
{
    return r.roundEnd[t] >= 0 ? r.roundEnd[t] - r.roundStart[t] : -1.0;
}

/// \return per rank, what it held and cost (one process: one rank, the whole network)
nlohmann::json
RanksJson(const PacketRunReport& report, const Topology& topo)
{
    std::vector<RankReport> ranks{{topo.GetNNodes(), topo.GetNServers(), report.events,
                                   report.wallSeconds, report.peakBytes}};
    if (report.distributed)
    {
        ranks = report.distributed->ranks;
    }
    nlohmann::json list = nlohmann::json::array();
    for (uint32_t rank = 0; rank < ranks.size(); ++rank)
    {
        const RankReport& k = ranks[rank];
        list.push_back({{"rank", rank},
                        {"nodes", k.nodes},
                        {"servers", k.servers},
                        {"events", k.events},
                        {"wall_s", k.wallSeconds},
                        {"events_per_s", k.wallSeconds > 0 ? k.events / k.wallSeconds : 0.0},
                        {"peak_rss_bytes", k.peakBytes}});
    }
    return list;
}

/// \return how a distributed run was spread, or null
nlohmann::json
DistributedJson(const PacketRunReport& report)
{
    if (!report.distributed)
    {
        return nullptr;
    }
    const DistributedReport& d = *report.distributed;
    return {{"partition", d.partition},
            {"synchronizer", d.synchronizer},
            {"cut_links", d.cutLinks},
            {"lookahead_s", d.lookaheadS}};
}

} // namespace

void
PrintPacketReport(std::ostream& os,
                  const Plan& plan,
                  const PacketRunConfig& config,
                  const PacketRunReport& report)
{
    const AllReduceRunResult& r = report.result;
    const Topology& topo = plan.workloads.GetTopology();
    const uint32_t rounds = report.plannedRounds;
    const Totals totals = Sum(report);
    const auto flags = os.flags();
    const auto precision = os.precision(4);
    os << "topology    " << topo.GetName() << ": " << topo.GetNServers() << " servers, "
       << topo.GetNLinks() << " links, " << Quantity::FormatRate(config.dataRate.GetBitRate()) << ", "
       << Quantity::FormatTime(config.delay.GetNanoSeconds())
       << (config.loss > 0 ? ", loss " + FormatNumber(config.loss) : "") << "\n"
       << "schedule    " << plan.schedule.scheduler << ", " << rounds << " rounds, "
       << report.plannedWorkloads << " workloads, mode " << config.mode << "\n"
       << "transport   " << DescribeTransport(config) << "\n";
    if (!r.warmUpTimes.empty())
    {
        os << "warm-up     " << r.warmUpTimes.size() << " AllReduce"
           << (r.warmUpTimes.size() == 1 ? "" : "s") << " first, untimed, on the same "
           << "connections (the first took " << r.warmUpTimes.front() * 1e3 << " ms)\n";
    }
    os
       << "decisions   " << config.decisions << ": " << r.decisions << " decision points, "
       << report.run.schedule.GetNRounds() << " rounds run, " << r.rerouted
       << " workloads re-routed"
       << (config.decisions == "online"
               ? "; " + FormatNumber(r.decisionWallS * 1e3) + " ms deciding (wall clock; " +
                     "longest decision " + FormatNumber(r.decisionWallMaxS * 1e3) + " ms)"
               : std::string())
       << "\n"
       << "gradient    " << config.gradientBytes << " bytes per server, " << config.values
       << " values\n";
    if (report.drl)
    {
        os << "drl online  " << report.drl->DescribeOnline() << "\n";
    }
    if (topo.CountUnevenLinks() != 0 || config.backgroundLoad != 0)
    {
        os << "conditions  " << topo.CountUnevenLinks() << " links with their own rate or delay";
        if (config.backgroundLoad != 0)
        {
            os << ", background " << config.backgroundApplication << " at load "
               << FormatNumber(config.backgroundLoad) << " (" << report.foreignBytes
               << " bytes on the links)";
        }
        os << "\n";
    }
    if (r.finished)
    {
        os << "completion  " << r.completionTime * 1e3 << " ms (flow level: " << rounds
           << " rounds x T_S " << report.pieceTime * 1e6 << " us = " << report.predictedTime * 1e3
           << " ms, ratio " << r.completionTime / report.predictedTime << ")\n";
    }
    else
    {
        os << "NOT FINISHED: " << r.error << "\n";
    }
    os << "traffic     " << r.payloadBytes << " gradient bytes sent, ";
    if (report.distributed)
    {
        os << "bytes on the wire, flows and losses not counted (a distributed run has no "
              "global view)\n";
    }
    else
    {
        os << totals.wireBytes << " bytes on the wire, " << report.flows.size()
           << " data flows, " << totals.lostPackets << " packets lost\n";
    }
    os << "counted     " << report.counters.pfcPauseFrames
       << " PFC pause frames, " << report.counters.ecnMarks << " ECN marks, "
       << report.counters.cnps << " CNPs, " << report.counters.droppedPackets
       << " packets dropped\n"
       << (report.counters.pfcPortDrops == 0
               ? std::string()
               : "warning     " + std::to_string(report.counters.pfcPortDrops) +
                     " packets dropped at ports with PFC on: a SharedBuffer Headroom below what "
                     "the link needs (two propagation delays at line rate and three frames) "
                     "lets frames in flight overflow; give Headroom=0, what the link needs\n")
       << "links       "
       << (report.linkBytes.empty()
               ? std::string("utilization not counted (a distributed run has no global view)")
               : "utilization mean " + FormatNumber(totals.meanUtilization) + ", max " +
                     FormatNumber(totals.maxUtilization))
       << "\n"
       << "simulation  " << report.events << " events in " << report.wallSeconds << " s wall\n";
    if (report.distributed)
    {
        const DistributedReport& d = *report.distributed;
        os << "distributed " << d.ranks.size() << " rank" << (d.ranks.size() == 1 ? "" : "s")
           << " (partition " << d.partition << ", synchronizer " << d.synchronizer << "), "
           << d.cutLinks << " links cut, lookahead " << d.lookaheadS * 1e6 << " us\n";
        for (uint32_t rank = 0; rank < d.ranks.size(); ++rank)
        {
            const RankReport& k = d.ranks[rank];
            os << "  rank " << rank << "    " << k.nodes << " nodes (" << k.servers
               << " servers), " << k.events << " events in " << k.wallSeconds
               << " s wall, peak memory " << k.peakBytes / 1048576 << " MiB\n";
        }
    }
    if (!report.animation.empty())
    {
        os << "animation   " << report.animation << "\n";
    }
    os << report.verification.message << "\n";
    os.flags(flags);
    os.precision(precision);
}

namespace
{

/// \param report a run's report \return its data flows, as the JSON report lists them
nlohmann::json
FlowsJson(const PacketRunReport& report)
{
    nlohmann::json flows = nlohmann::json::array();
    for (const auto& f : report.flows)
    {
        flows.push_back({{"workloads", f.workloads},
                         {"src", f.src},
                         {"dst", f.dst},
                         {"tx_bytes", f.txBytes},
                         {"rx_bytes", f.rxBytes},
                         {"tx_packets", f.txPackets},
                         {"rx_packets", f.rxPackets},
                         {"lost_packets", f.lostPackets},
                         {"mean_delay_s", f.meanDelay},
                         {"duration_s", f.duration}});
    }
    return flows;
}

/// A top-level key of a JSON report whose numbers are written straight to the stream
struct StreamedArray
{
    const char* key;                   //!< its key
    const std::vector<double>* values; //!< its numbers
};

/**
 * Writes \p doc as `os << std::setw(2) << doc` would with \p arrays among its keys, but
 * writes each array's numbers straight to \p os, in the place and format (nlohmann's, one
 * number a line) the document would give them: held in the document they would take 16
 * bytes a number and more (64 MiB for fat-tree k=16's 4.2 M per-transfer times).
 */
void
WriteJsonStreamingArrays(std::ostream& os, nlohmann::json doc, std::vector<StreamedArray> arrays)
{
    // Each array's place is marked by a string value no report holds (its JSON text found
    // below); the document without the numbers is small.
    std::vector<std::string> marks;
    for (const StreamedArray& a : arrays)
    {
        const std::string mark = std::string("\x01streamed array ") + a.key;
        doc[a.key] = mark;
        marks.push_back(nlohmann::json(mark).dump());
    }
    std::ostringstream rest;
    rest.fill(' ');
    rest << std::setw(2) << doc;
    const std::string text = rest.str();
    std::vector<std::pair<size_t, size_t>> places; // (where its mark is, which array)
    for (size_t i = 0; i < arrays.size(); ++i)
    {
        places.emplace_back(text.find(marks[i]), i);
    }
    std::sort(places.begin(), places.end());
    size_t at = 0;
    for (const auto& [where, i] : places)
    {
        os.write(text.data() + at, static_cast<std::streamsize>(where - at));
        const std::vector<double>& values = *arrays[i].values;
        os << (values.empty() ? "[]" : "[\n");
        for (size_t v = 0; v < values.size(); ++v)
        {
            os << "    " << nlohmann::json(values[v]).dump()
               << (v + 1 < values.size() ? ",\n" : "\n  ]");
        }
        at = where + marks[i].size();
    }
    os.write(text.data() + at, static_cast<std::streamsize>(text.size() - at));
}

} // namespace

void
WritePacketReportJson(std::ostream& os,
                      const Plan& plan,
                      const PacketRunConfig& config,
                      const PacketRunReport& report,
                      const std::string& figure)
{
    const AllReduceRunResult& r = report.result;
    const Topology& topo = plan.workloads.GetTopology();
    const Totals totals = Sum(report);
    nlohmann::json roundDurations = nlohmann::json::array();
    for (uint32_t t = 0; t < report.run.schedule.GetNRounds(); ++t)
    {
        roundDurations.push_back(RoundDuration(r, t));
    }
    nlohmann::json doc{
        {"topology", topo.GetName()},
        {"scheduler", plan.schedule.scheduler},
        {"mode", config.mode},
        {"connections", config.connections},
        {"warm_up_times_s", r.warmUpTimes},
        {"servers", topo.GetNServers()},
        {"workloads", report.plannedWorkloads},
        {"pieces", plan.workloads.GetPieces()},
        {"gradient_bytes", config.gradientBytes},
        {"data_rate", Quantity::FormatRate(config.dataRate.GetBitRate())},
        {"delay", Quantity::FormatTime(config.delay.GetNanoSeconds())},
        {"loss", config.loss},
        {"finished", r.finished},
        {"completion_time_s", r.completionTime},
        {"rounds", report.plannedRounds},
        {"decision_mode", config.decisions},
        {"decisions", r.decisions},
        {"decision_wall_s", r.decisionWallS},
        {"decision_wall_max_s", r.decisionWallMaxS},
        {"rounds_run", report.run.schedule.GetNRounds()},
        {"rerouted", r.rerouted},
        {"uneven_links", topo.CountUnevenLinks()},
        {"background_load", config.backgroundLoad},
        {"background_application", config.backgroundApplication},
        {"background_bytes", report.foreignBytes},
        {"round_durations_s", roundDurations},
        {"piece_time_s", report.pieceTime},
        {"predicted_time_s", report.predictedTime},
        {"verified", report.verification.verified},
        {"verification", report.verification.message},
        {"flows", FlowsJson(report)},
        {"lost_packets", totals.lostPackets},
        {"transport", report.transport},
        {"pfc_pause_frames", report.counters.pfcPauseFrames},
        {"ecn_marks", report.counters.ecnMarks},
        {"cnps", report.counters.cnps},
        {"dropped_packets", report.counters.droppedPackets},
        {"pfc_port_drops", report.counters.pfcPortDrops},
        {"bytes_sent", r.payloadBytes},
        {"wire_bytes", totals.wireBytes},
        {"link_utilization_mean", totals.meanUtilization},
        {"link_utilization_max", totals.maxUtilization},
        {"events", report.events},
        {"wall_s", report.wallSeconds},
        {"ranks", RanksJson(report, topo)},
        {"distributed", DistributedJson(report)},
    };
    // What ran, in its transport's terms: TCP's congestion control and queues, or RDMA's
    // switching (an RDMA run has neither TCP nor queue discs).
    if (config.transport == "rdma")
    {
        doc["switching"] =
            config.switching == "store-and-forward" ? "store-and-forward" : "cut-through";
    }
    else
    {
        doc["tcp"] = GetTcp(config);
        doc["queue_disc"] = GetQueueDisc(config);
        doc["queue_size"] = config.queueSize ? FormatQueueSize(*config.queueSize) : "";
    }
    if (report.distributed)
    {
        // No global view: not counted, rather than counted as 0.
        for (const char* key : {"flows", "wire_bytes", "lost_packets", "link_utilization_mean",
                                "link_utilization_max"})
        {
            doc[key] = nullptr;
        }
    }
    if (!figure.empty())
    {
        doc["figure"] = figure;
    }
    if (report.drl)
    {
        doc["drl_online"] = {{"follows_plan", report.drl->followsPlan},
                             {"decisions", report.drl->decisions},
                             {"replans", report.drl->replans},
                             {"replan_workloads", report.drl->replanScheduled},
                             {"replans_kept_plan", report.drl->kept},
                             {"waits_unplannable", report.drl->unplannable},
                             {"last_replan", report.drl->lastReplan}};
    }
    if (!report.animation.empty())
    {
        doc["animation"] = report.animation;
    }
    if (!r.error.empty())
    {
        doc["error"] = r.error;
    }
    // Streamed: dump(2) would first make one string of it all (130 MB at fat-tree k=16,
    // whose per-transfer times are 4.2 M lines), and the times are not copied into it.
    WriteJsonStreamingArrays(os,
                             std::move(doc),
                             {{"transfer_start_s", &r.transferStart},
                              {"transfer_end_s", &r.transferEnd}});
    os << std::endl;
}

std::string
WritePacketRoundsFigure(const std::string& prefix,
                        const Plan& plan,
                        const PacketRunConfig& config,
                        const PacketRunReport& report)
{
    const uint32_t rounds = report.run.schedule.GetNRounds();
    std::vector<std::string> labels;
    std::vector<double> durations;
    for (uint32_t t = 0; t < rounds; ++t)
    {
        labels.push_back(std::to_string(t));
        durations.push_back(std::max(0.0, RoundDuration(report.result, t)) * 1e6);
    }
    BarChart chart("duration (us)", labels, {"round duration (packet level)"});
    chart.AddPanel(plan.workloads.GetTopology().GetName() + ", " + plan.schedule.scheduler + ", " +
                       config.mode + ", " + config.decisions + ": " +
                       FormatNumber(report.result.completionTime * 1e3) + " ms, " +
                       std::to_string(rounds) + " rounds run",
                   {durations});
    chart.SetReferenceLine(report.pieceTime * 1e6, "T_S: one piece over one link");
    chart.SetSize(900, 480);
    chart.SetLabelStep((rounds + 19) / 20);
    return chart.Write(prefix);
}

} // namespace ns3
