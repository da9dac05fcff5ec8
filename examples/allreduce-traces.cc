/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Watching an AllReduce through its trace sources, using the module alone: user callbacks
// connected to the controller's trace sources (a transfer starts, a transfer finishes, a round
// finishes, the run ends) and to every server application's (a transfer arrives), plus a
// periodic look at the link byte counters (LinkLoadMonitor), record what each directed link did.
// The example draws that with ns-3's own Gnuplot classes and prints a summary:
//  - OUT-timeline.png: one line per directed link, drawn while a transfer crosses it;
//  - OUT-load.png: the AllReduce's bytes per interval on the busiest link and on the mean link.
// Each figure is written as OUT-NAME.plt (the gnuplot script) and OUT-NAME.dat (its data), and
// drawn when gnuplot runs.
//
//   allreduce-traces
//   allreduce-traces --topology=fattree:k=4 --scheduler=greedy --out=/tmp/fattree
//   NS_LOG=AllReduceTraces=info allreduce-traces      (a log line per round)
//
// Exit status: 0 when every server ends with the exact sum, 1 for bad input, 2 otherwise.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/gnuplot.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("AllReduceTraces");

#ifdef ALLREDUCE_GNUPLOT
const std::string GNUPLOT = ALLREDUCE_GNUPLOT; // the gnuplot CMake found
#else
const std::string GNUPLOT = "gnuplot";
#endif

/// What the callbacks record: per directed link, when it was busy and how many bytes it sent.
class LinkTimeline
{
  public:
    /// Busy intervals of a directed link (seconds), and the phase of the transfer in each.
    struct Busy
    {
        double start, end;
        Phase phase;
    };

    LinkTimeline(Ptr<AllReduceController> controller, Ptr<LinkLoadMonitor> monitor, Time interval)
        : m_controller(controller),
          m_monitor(monitor),
          m_interval(interval),
          m_busy(monitor->GetNDirectedLinks()),
          m_bytes(monitor->GetNDirectedLinks()),
          m_counted(monitor->GetNDirectedLinks(), 0),
          m_received(controller->GetWorkloads().GetTopology().GetNServers(), 0)
    {
    }

    // The controller's "TransferStarted": a workload's transfer starts now.
    void TransferStarted(uint32_t workload)
    {
        m_start[workload] = Simulator::Now().GetSeconds();
    }

    // The controller's "TransferFinished": every directed link of its path (as it is now)
    // was busy with it since it started.
    void TransferFinished(uint32_t workload)
    {
        const Workload& w = m_controller->GetWorkloads().Get(workload);
        for (uint32_t link : w.links)
        {
            m_busy[link].push_back({m_start[workload], Simulator::Now().GetSeconds(), w.phase});
        }
        ++m_finished;
    }

    // The controller's "RoundFinished": every transfer of a round is done.
    void RoundFinished(uint32_t round, Time duration)
    {
        NS_LOG_INFO("round " << round << " took " << duration.As(Time::US));
        ++m_rounds;
    }

    // A server application's "TransferFinished", bound to the server with MakeBoundCallback:
    // a workload arrived there whole and was added in.
    static void Received(LinkTimeline* timeline, uint32_t server, uint32_t /* workload */)
    {
        ++timeline->m_received[server];
    }

    // The controller's "RunEnded": stop sampling (reason is empty when the run finished).
    void RunEnded(std::string /* reason */)
    {
        m_ended = true;
    }

    // Every interval, and once at the end: the AllReduce's bytes each directed link sent since
    // the last sample.
    void SampleBytes()
    {
        const double now = Simulator::Now().GetSeconds();
        const bool again = !m_sampled.empty() && m_sampled.back() == now; // the end, at a sample
        if (!again)
        {
            m_sampled.push_back(now);
        }
        for (uint32_t link = 0; link < m_bytes.size(); ++link)
        {
            const uint64_t total = m_monitor->GetOwnBytes(link);
            if (!again)
            {
                m_bytes[link].push_back(0);
            }
            m_bytes[link].back() += total - m_counted[link];
            m_counted[link] = total;
        }
        if (!m_ended)
        {
            Simulator::Schedule(m_interval, &LinkTimeline::SampleBytes, this);
        }
    }

    Ptr<AllReduceController> m_controller;
    Ptr<LinkLoadMonitor> m_monitor;
    Time m_interval;                            // between byte samples
    std::map<uint32_t, double> m_start;         // per workload in flight, its start
    std::vector<std::vector<Busy>> m_busy;      // per directed link
    std::vector<std::vector<uint64_t>> m_bytes; // per directed link, per interval
    std::vector<uint64_t> m_counted;            // per directed link, bytes sampled so far
    std::vector<double> m_sampled;              // when each sample was taken
    std::vector<uint32_t> m_received;           // per server, transfers that arrived
    uint32_t m_finished{0};                     // transfers finished
    uint32_t m_rounds{0};                       // rounds finished
    bool m_ended{false};                        // the run ended
};

/// \return "a>b", the two ends of a directed link (link i: 2i from a to b, 2i+1 back)
std::string
LinkName(const Topology& topology, uint32_t directedLink)
{
    const TopologyLink& link = topology.GetLink(directedLink / 2);
    const bool forward = directedLink % 2 == 0;
    return std::to_string(forward ? link.a : link.b) + ">" +
           std::to_string(forward ? link.b : link.a);
}

/// Writes PREFIX.plt and PREFIX.dat, and runs gnuplot. \return what was written, for the summary
std::string
WriteFigure(Gnuplot& plot, const std::string& prefix)
{
    // Each file checked whole once written (a full disk is an error, not half a figure).
    std::ostringstream plt;
    std::ostringstream dat;
    plot.GenerateOutput(plt, dat, prefix + ".dat");
    WriteTextFile(prefix + ".dat", "figure data", [&dat](std::ostream& os) { os << dat.str(); });
    WriteTextFile(prefix + ".plt", "gnuplot script", [&plt](std::ostream& os) { os << plt.str(); });
    const std::string files = " (data " + prefix + ".dat, script " + prefix + ".plt)";
    if (std::system((GNUPLOT + " '" + prefix + ".plt' 2>/dev/null").c_str()) != 0)
    {
        return "no PNG: gnuplot did not run" + files;
    }
    return prefix + ".png" + files;
}

/// The timeline: one line per directed link, drawn while a transfer crosses it.
std::string
WriteTimeline(const LinkTimeline& timeline, const Topology& topology, const std::string& prefix)
{
    Gnuplot plot(prefix + ".png", "directed links busy with AllReduce transfers");
    const size_t height = std::max<size_t>(600, 200 + 12 * timeline.m_busy.size()); // pixels
    plot.SetTerminal("pngcairo size 1000," + std::to_string(height) + " noenhanced");
    plot.SetLegend("time (us)", "directed link");
    Gnuplot2dDataset reduce("reduce-scatter");
    Gnuplot2dDataset gather("all-gather");
    std::string tics;
    for (uint32_t link = 0; link < timeline.m_busy.size(); ++link)
    {
        tics += (tics.empty() ? "" : ", ") + ("\"" + LinkName(topology, link) + "\" ") +
                std::to_string(link);
        for (const LinkTimeline::Busy& b : timeline.m_busy[link])
        {
            Gnuplot2dDataset& d = b.phase == Phase::REDUCE ? reduce : gather;
            d.Add(b.start * 1e6, link); // a segment from start to end at height link
            d.Add(b.end * 1e6, link);
            d.AddEmptyLine();
        }
    }
    for (Gnuplot2dDataset* d : {&reduce, &gather})
    {
        d->SetStyle(Gnuplot2dDataset::LINES);
        d->SetExtra("lw 4");
        plot.AddDataset(*d);
    }
    plot.AppendExtra("set ytics (" + tics + ") font ',7'\nset yrange [-1:" +
                     std::to_string(timeline.m_busy.size()) + "]\nset key below");
    return WriteFigure(plot, prefix);
}

/// The load: the AllReduce's rate on the busiest directed link and on the mean one.
std::string
WriteLoad(const LinkTimeline& timeline,
          uint32_t busiest,
          const std::string& name,
          const std::string& prefix)
{
    Gnuplot plot(prefix + ".png", "AllReduce bytes on the wire (LinkLoadMonitor)");
    plot.SetTerminal("pngcairo size 1000,500 noenhanced");
    plot.SetLegend("time (us)", "Gbit/s over the interval");
    Gnuplot2dDataset top("busiest directed link, " + name);
    Gnuplot2dDataset mean("mean over the directed links");
    for (size_t i = 0; i < timeline.m_sampled.size(); ++i)
    {
        const double from = i ? timeline.m_sampled[i - 1] : 0;
        const double bitsToGbps = 8 / (timeline.m_sampled[i] - from) / 1e9;
        double sum = 0;
        for (const auto& bytes : timeline.m_bytes)
        {
            sum += bytes[i];
        }
        // A step per interval: its rate from its start to its end.
        for (double t : {from, timeline.m_sampled[i]})
        {
            top.Add(t * 1e6, timeline.m_bytes[busiest][i] * bitsToGbps);
            mean.Add(t * 1e6, sum / timeline.m_bytes.size() * bitsToGbps);
        }
    }
    for (Gnuplot2dDataset* d : {&top, &mean})
    {
        d->SetStyle(Gnuplot2dDataset::LINES);
        plot.AddDataset(*d);
    }
    plot.AppendExtra("set key below\nset yrange [0:*]");
    return WriteFigure(plot, prefix);
}

/// Prints what the callbacks saw, writes the figures, prints the verification.
/// \return the exit status: 0 when the run finished and every sum is exact, else 2
int
PrintSummary(const LinkTimeline& timeline,
             const AllReduceHelper& allreduce,
             const Topology& topology,
             const std::string& scheduler,
             const std::string& out)
{
    Ptr<AllReduceController> controller = allreduce.GetController();
    const AllReduceRunResult& result = controller->GetResult();
    const AllReduceVerification verification = controller->Verify();
    Ptr<LinkLoadMonitor> monitor = allreduce.GetLinkLoadMonitor();
    uint32_t busiest = 0; // the directed link that sent the most of the AllReduce's bytes
    for (uint32_t link = 0; link < monitor->GetNDirectedLinks(); ++link)
    {
        busiest = monitor->GetOwnBytes(link) > monitor->GetOwnBytes(busiest) ? link : busiest;
    }
    // The figures before the summary: a refusal does not land in the middle of it.
    const std::string timelineFigure = WriteTimeline(timeline, topology, out + "-timeline");
    double busy = 0;
    for (const LinkTimeline::Busy& b : timeline.m_busy[busiest])
    {
        busy += b.end - b.start;
    }
    const auto most = std::max_element(timeline.m_received.begin(), timeline.m_received.end());
    const std::string name = LinkName(topology, busiest);
    const std::string loadFigure = WriteLoad(timeline, busiest, name, out + "-load");
    std::cout << topology.GetName() << ", " << scheduler << ", barrier, 1 MiB\n"
              << "rounds         " << timeline.m_rounds << " (RoundFinished)\n"
              << "transfers      " << timeline.m_finished << " of "
              << controller->GetWorkloads().GetN() << " (TransferFinished); the most at one "
              << "server: " << *most << ", at server " << most - timeline.m_received.begin()
              << " (its application's TransferFinished)\n"
              << "busiest link   " << name << ": " << monitor->GetOwnBytes(busiest)
              << " bytes on the wire (LinkLoadMonitor), busy with transfers "
              << static_cast<int>(100 * busy / result.completionTime + 0.5) << "% of the "
              << result.completionTime * 1e3 << " ms\n"
              << "timeline       " << timelineFigure << "\n"
              << "load           " << loadFigure << "\n"
              << verification.message << "\n";
    return result.finished && verification.verified ? 0 : 2;
}

int
main(int argc, char* argv[])
{
    std::string topology = "bcube:n=3,k=1";
    std::string scheduler = "balanced";
    std::string out = "allreduce-traces";
    std::string intervalText = "20us";
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology spec, e.g. bcube:n=3,k=1 or fattree:k=4", topology);
    cmd.AddValue("scheduler", "ps, ring, greedy, balanced, drl (with LibTorch), ...", scheduler);
    cmd.AddValue("interval",
                 "how often the link byte counters are read: a time with its unit, 100ns to 1s",
                 intervalText);
    cmd.AddValue("out", "prefix of the figures: OUT-timeline.*, OUT-load.*", out);

    try
    {
        ParseCheckedCommandLine(cmd,
                                argc,
                                argv,
                                {"ns3::PointToPointNetDevice::DataRate",
                                 "ns3::PointToPointChannel::Delay",
                                 "ns3::AllReduceController::Mode",
                                 "ns3::AllReduceController::GradientBytes"});
        // Read once, here, with its unit (1ms is a millisecond, never 1 of something else).
        const Time interval =
            NanoSeconds(Quantity::ParseTimeNs("--interval", intervalText, false));
        if (interval < NanoSeconds(100) || interval > Seconds(1))
        {
            throw std::invalid_argument("--interval must be from 100ns to 1s (a sample per "
                                        "interval: shorter ones flood the figures, longer ones "
                                        "show nothing), got '" + intervalText + "'");
        }
        if (!std::ofstream(out + "-timeline.plt"))
        {
            throw std::invalid_argument("cannot write " + out + "-timeline.plt (--out=" + out +
                                        ": is its directory there and writable?)");
        }
        // 1. The network and the AllReduce, as in allreduce-simple.
        DcnTopologyHelper dcn(RunWithHeartbeat(std::cerr, "allreduce-traces", "building " + topology,
                                               [&topology] { return BuildTopology(topology); }));
        dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("1us"));
        dcn.Install();
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(1 << 20));
        // A long run says how far it got on stderr (a line per 10 s at most).
        allreduce.EnableProgress(std::cerr, "allreduce-traces");
        ApplicationContainer apps = allreduce.Install(CreateScheduler(scheduler));
        Ptr<AllReduceController> controller = allreduce.GetController();

        // 2. Connect the callbacks: member functions of the timeline to the controller's trace
        //    sources, and a function bound to each server's index to its application's.
        LinkTimeline timeline(controller, allreduce.GetLinkLoadMonitor(), interval);
        controller->TraceConnectWithoutContext(
            "TransferStarted",
            MakeCallback(&LinkTimeline::TransferStarted, &timeline));
        controller->TraceConnectWithoutContext(
            "TransferFinished",
            MakeCallback(&LinkTimeline::TransferFinished, &timeline));
        controller->TraceConnectWithoutContext(
            "RoundFinished",
            MakeCallback(&LinkTimeline::RoundFinished, &timeline));
        controller->TraceConnectWithoutContext("RunEnded",
                                               MakeCallback(&LinkTimeline::RunEnded, &timeline));
        for (uint32_t server = 0; server < dcn.GetTopology().GetNServers(); ++server)
        {
            apps.Get(server)->TraceConnectWithoutContext(
                "TransferFinished",
                MakeBoundCallback(&LinkTimeline::Received, &timeline, server));
        }
        // The byte counters have no trace source: read them every interval.
        Simulator::Schedule(interval, &LinkTimeline::SampleBytes, &timeline);

        // 3. Run, read the counters a last time, and report.
        Simulator::Run();
        timeline.SampleBytes();
        const int status = PrintSummary(timeline, allreduce, dcn.GetTopology(), scheduler, out);
        Simulator::Destroy();
        return status;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-traces: error: " << DescribeError(e) << "\n";
        Simulator::Destroy();
        return 1;
    }
}
