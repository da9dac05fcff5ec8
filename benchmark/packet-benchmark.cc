/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Benchmark (Google Benchmark) of the packet-level AllReduce: BCube(4,1), 16 servers, a
// 16 MB gradient per server (16,000,000 bytes), 10 Gbps links with 1 us delay, greedy schedule,
// barrier and async, its plan replayed and decided online. Reports wall time per run,
// simulated events per wall second, the simulated completion time, the decisions and the
// process's peak memory. Every run is verified exactly.
//
// LargePacketBench: 64 and 128 servers (BCube(8,1), fat-tree k=8), balanced, barrier, decided
// online, 1 MiB and 16 MB per server (default links): wall time in all and in Simulator::Run,
// events per wall second, peak memory; every run verified exactly. The 16 MB fat-tree case
// simulates about 70 M events (tens of minutes here).
//
// BareBulkSendBench: our run beside a bare ns-3 run of the same rounds (BulkSend and PacketSink
// only, the same bytes over the same paths, the same transport), BCube(4,1) 16 MB (greedy) over
// TCP (ours on its persistent connections, and on a connection per transfer as BulkSend opens)
// and over RDMA, and fat-tree k=8 1 MiB (balanced) over TCP, barrier, replayed: wall seconds
// in Simulator::Run each (the median of 5 runs on BCube, 1 on fat-tree; each run in a fresh child
// process, the two alternating), their ratio, events and events per second, simulated time.
//
// DrlOnlineBench: the cost of drl's decisions inside ns-3 (BCube(3,1) and DCell(4,1), 1 MiB,
// barrier), unperturbed (it follows its plan) and with a link down at 0.3 ms, about a third
// of the way through either run (it searches again from the live state): the wall time per
// decision, the longest, and the searches.
//
//   build/benchmark/allreduce-benchmarks --benchmark_filter=Packet
//   build/benchmark/allreduce-benchmarks --benchmark_filter=LargePacket
//   build/benchmark/allreduce-benchmarks --benchmark_filter=BareBulkSend
//   build/benchmark/allreduce-benchmarks --benchmark_filter=DrlOnline

#include "allreduce-experiment.h"
#include "dynamic-table.h"
#include "peak-memory.h"

#include "ns3/allreduce-module.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/tcp-socket-base.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

void
PacketBench(benchmark::State& state)
{
    const std::string mode = state.range(0) == 0 ? "barrier" : "async";
    const bool online = state.range(1) == 1;
    state.SetLabel("bcube:n=4,k=1 greedy 16MB 10Gbps " + mode + (online ? " online" : " replay"));
    const Plan plan = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=4,k=1"), 1);
    PacketRunConfig config;
    config.mode = mode;
    config.gradientBytes = 16000000;
    config.dataRate = DataRate("10Gbps");
    config.delay = MicroSeconds(1);
    config.flowMonitor = false;
    config.decisions = online ? "online" : "replay";
    PacketRunReport report;
    for (auto _ : state)
    {
        report = RunPacketAllReduce(plan, config, online ? CreateScheduler("greedy") : nullptr);
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
    }
    state.counters["events"] = static_cast<double>(report.events);
    state.counters["events_per_s"] = report.events / report.wallSeconds;
    state.counters["sim_ms"] = report.result.completionTime * 1e3;
    state.counters["flow_ms"] = report.predictedTime * 1e3;
    state.counters["decisions"] = report.result.decisions;
    state.counters["peak_rss_MiB"] = PeakRssMiB();
}

const char* const LARGE_SPECS[] = {"bcube:n=8,k=1", "fattree:k=8"};

void
LargePacketBench(benchmark::State& state)
{
    const std::string spec = LARGE_SPECS[state.range(0)];
    const uint64_t bytes = state.range(1) == 0 ? 1048576 : 16000000;
    state.SetLabel(spec + " balanced barrier online " + (bytes == 1048576 ? "1MiB" : "16MB"));
    const auto start = std::chrono::steady_clock::now();
    const Plan plan = CreateScheduler("balanced")->MakePlan(BuildTopology(spec), 1);
    PacketRunConfig config;
    config.gradientBytes = bytes;
    config.decisions = "online";
    config.flowMonitor = false;
    PacketRunReport report;
    for (auto _ : state)
    {
        report = RunPacketAllReduce(plan, config, CreateScheduler("balanced"));
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
    }
    const double all =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.counters["wall_s"] = all;
    state.counters["run_s"] = report.wallSeconds;
    state.counters["outside_run"] = 1 - report.wallSeconds / all;
    state.counters["events"] = static_cast<double>(report.events);
    state.counters["events_per_s"] = report.events / report.wallSeconds;
    state.counters["ratio"] = report.result.completionTime / report.predictedTime;
    state.counters["peak_rss_MiB"] = PeakRssMiB();
}

/**
 * The bare ns-3 run beside ours: the same transfers with ns-3's BulkSend and PacketSink only.
 * Every workload of the schedule is one BulkSend of its piece's bytes, bound to a source port
 * of its own and routed along the workload's path (DcnTopologyHelper::InstallFlowRoute); a
 * round's BulkSends start together once every byte of the round before has arrived, as our
 * barrier rounds do. The network and transport are ours as RunPacketAllReduce sets them up:
 * over TCP, links as PacketRunConfig's defaults, fq_codel, TCP Cubic and the TCP attributes our
 * application sets on its sockets; over RDMA, lossless Ethernet with cut-through switches and
 * the RdmaSocket (BulkSend and PacketSink take any stream socket's factory). What it leaves out
 * is ours: the gradient values in the bytes, the merges, the controller, the persistent
 * connections (a BulkSend opens its own).
 */
class BareRounds
{
  public:
    /**
     * \param schedule the rounds \param workloads their workloads \param bytes a gradient's
     * \param transport "tcp" or "rdma"
     */
    BareRounds(const Schedule& schedule,
               const WorkloadSet& workloads,
               uint64_t bytes,
               const std::string& transport)
        : m_schedule(schedule),
          m_workloads(workloads),
          m_layout(bytes / sizeof(float),
                   workloads.GetTopology().GetNServers(),
                   workloads.GetPieces()),
          m_rdma(transport == "rdma"),
          m_factory(m_rdma ? "ns3::RdmaSocketFactory" : "ns3::TcpSocketFactory")
    {
    }

    /// Builds the network, runs it and destroys it. \return the wall seconds in Simulator::Run
    double Run()
    {
        const Topology& topo = m_workloads.GetTopology();
        const PacketRunConfig ourDefaults;
        DcnTopologyHelper dcn(topo);
        dcn.SetDeviceAttribute("DataRate", DataRateValue(ourDefaults.dataRate));
        dcn.SetChannelAttribute("Delay", TimeValue(ourDefaults.delay));
        if (m_rdma)
        {
            dcn.UseLosslessEthernet();
            dcn.SetCutThrough(true);
        }
        else
        {
            SetOurTcp();
            dcn.SetTcpCongestionControl("ns3::TcpCubic");
        }
        m_dcn = &dcn;
        dcn.Install();
        PacketSinkHelper sinkHelper(m_factory, InetSocketAddress(Ipv4Address::GetAny(), SINK_PORT));
        for (uint32_t s = 0; s < topo.GetNServers(); ++s)
        {
            Ptr<Application> sink = sinkHelper.Install(dcn.GetServer(s)).Get(0);
            sink->TraceConnectWithoutContext("Rx", MakeCallback(&BareRounds::Received, this));
        }
        m_received.assign(m_workloads.GetN(), 0);
        m_round = 0;
        bytes = 0;
        finished = false;
        Simulator::ScheduleNow(&BareRounds::StartRound, this);
        const auto start = std::chrono::steady_clock::now();
        Simulator::Run();
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        events = Simulator::GetEventCount();
        simSeconds = m_end.GetSeconds();
        Simulator::Destroy();
        m_dcn = nullptr;
        Config::Reset(); // SetOurTcp's defaults end with this run: ours sets its own
        return seconds;
    }

    uint64_t events{0};     //!< simulator events executed
    double simSeconds{0};   //!< simulated time of the last round's last byte
    uint64_t bytes{0};      //!< payload bytes delivered
    bool finished{false};   //!< every round delivered

    /// \return where a run that did not finish stopped
    std::string Describe() const
    {
        return "round " + std::to_string(m_round) + " of " +
               std::to_string(m_schedule.GetNRounds()) + ", " + std::to_string(m_left) +
               " transfers in flight, " + std::to_string(bytes) + " bytes delivered";
    }

  private:
    static constexpr uint16_t SINK_PORT = 9;
    static constexpr uint32_t FIRST_PORT = 1024;

    /// Sets the TCP defaults to what AllReduceApplication sets on each of its sockets.
    static void SetOurTcp()
    {
        // What AllReduceApplication sets on each of its sockets, from its attributes.
        const auto ours = [](const std::string& name) {
            TypeId::AttributeInformation info;
            AllReduceApplication::GetTypeId().LookupAttributeByName(name, &info);
            return info.initialValue;
        };
        Config::SetDefault("ns3::TcpSocket::SegmentSize", *ours("SegmentSize"));
        Config::SetDefault("ns3::TcpSocket::ConnTimeout", *ours("ConnTimeout"));
        Config::SetDefault("ns3::TcpSocketBase::MinRto", *ours("MinRto"));
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout", *ours("DelAckTimeout"));
        Config::SetDefault("ns3::TcpSocket::DataRetries", *ours("DataRetries"));
        const Time timeWait = DynamicCast<const TimeValue>(ours("TimeWait"))->Get();
        Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime",
                           DoubleValue(timeWait.GetSeconds() / 2));
    }

    void StartRound()
    {
        if (m_round == m_schedule.GetNRounds())
        {
            finished = true;
            m_end = Simulator::Now();
            Simulator::Stop();
            return;
        }
        m_left = m_schedule.rounds[m_round].size();
        for (uint32_t id : m_schedule.rounds[m_round])
        {
            const Workload& w = m_workloads.Get(id);
            const uint16_t port = static_cast<uint16_t>(FIRST_PORT + id);
            m_dcn->InstallFlowRoute(w.path.ToVector(), port, SINK_PORT);
            BulkSendHelper send(m_factory,
                                InetSocketAddress(m_dcn->GetServerAddress(w.dst), SINK_PORT));
            send.SetAttribute("Local",
                              AddressValue(InetSocketAddress(m_dcn->GetServerAddress(w.src), port)));
            send.SetAttribute("MaxBytes", UintegerValue(PieceBytes(w)));
            send.SetAttribute("SendSize", UintegerValue(65536));
            send.Install(m_dcn->GetServer(w.src));
        }
        ++m_round;
    }

    void Received(Ptr<const Packet> packet, const Address& from)
    {
        const uint32_t id = InetSocketAddress::ConvertFrom(from).GetPort() - FIRST_PORT;
        const Workload& w = m_workloads.Get(id);
        bytes += packet->GetSize();
        m_received[id] += packet->GetSize();
        if (m_received[id] == PieceBytes(w) && --m_left == 0)
        {
            Simulator::ScheduleNow(&BareRounds::StartRound, this);
        }
    }

    uint64_t PieceBytes(const Workload& w) const
    {
        return m_layout.GetSize(w.chunk, w.piece) * sizeof(float);
    }

    const Schedule& m_schedule;          //!< the rounds
    const WorkloadSet& m_workloads;      //!< their workloads
    GradientLayout m_layout;             //!< the pieces' sizes
    const bool m_rdma;                   //!< over RDMA, else TCP
    const std::string m_factory;         //!< the sockets' factory
    DcnTopologyHelper* m_dcn{nullptr};   //!< the network while it runs
    std::vector<uint64_t> m_received;    //!< per workload, bytes arrived
    uint32_t m_round{0};                 //!< the next round to start
    size_t m_left{0};                    //!< transfers of the round in flight not complete
    Time m_end;                          //!< when the last round completed
};

const char* const BARE_SPECS[] = {"bcube:n=4,k=1", "fattree:k=8"};

/// One side's run, as a child process reports it to the benchmark.
struct SideRun
{
    double seconds{0};   //!< wall seconds in Simulator::Run
    double events{0};    //!< simulator events
    double simMs{0};     //!< simulated completion, ms
    double megabytes{0}; //!< payload delivered, MB
    char error[480]{};   //!< why it failed; empty when it did not
};

/**
 * Runs \p run in a child process of its own and returns what it reports: each run starts
 * from the same fresh process (ns-3's packet buffer free list, the heap and the attribute
 * defaults as a user's program has them), not from what the runs before it left.
 */
template <typename Run>
SideRun
RunInChild(Run run)
{
    SideRun result;
    int fds[2];
    if (pipe(fds) != 0)
    {
        std::snprintf(result.error, sizeof result.error, "pipe: %s", std::strerror(errno));
        return result;
    }
    const pid_t pid = fork();
    if (pid == 0)
    {
        close(fds[0]);
        const SideRun mine = run();
        const ssize_t written = write(fds[1], &mine, sizeof mine);
        _exit(written == static_cast<ssize_t>(sizeof mine) ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    while (pid > 0 && got < sizeof result)
    {
        const ssize_t n = read(fds[0], reinterpret_cast<char*>(&result) + got, sizeof result - got);
        if (n <= 0)
        {
            break;
        }
        got += static_cast<size_t>(n);
    }
    close(fds[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || got != sizeof result ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        std::snprintf(result.error, sizeof result.error,
                      "the child process of the run failed (fork, a crash or an exit status)");
    }
    return result;
}

/// The median of \p values (not empty).
double
Median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/**
 * Ours against the bare BulkSend run of the same rounds: wall seconds in Simulator::Run each,
 * over range(3) pairs of runs, each run in a fresh child process (RunInChild). The two
 * alternate and take turns going first (ours, bare, bare, ours, ...), so that a drift of the
 * machine's speed falls on both; the ratio is of their medians.
 */
void
BareBulkSendBench(benchmark::State& state)
{
    const std::string spec = BARE_SPECS[state.range(0)];
    const uint64_t bytes = state.range(1) == 0 ? 1048576 : 16000000;
    const std::string transport = state.range(2) == 0 ? "tcp" : "rdma";
    const auto pairs = static_cast<uint32_t>(state.range(3));
    const std::string connections = state.range(4) == 0 ? "persistent" : "per-transfer";
    const std::string scheduler = spec == "fattree:k=8" ? "balanced" : "greedy";
    state.SetLabel(spec + " " + scheduler + " barrier replay " +
                   (bytes == 1048576 ? "1MiB " : "16MB ") + transport +
                   (transport == "tcp" ? " " + connections : "") + ", median of " +
                   std::to_string(pairs));
    const Plan plan = CreateScheduler(scheduler)->MakePlan(BuildTopology(spec), 1);
    PacketRunConfig config;
    config.gradientBytes = bytes;
    config.decisions = "replay";
    config.flowMonitor = false;
    config.transport = transport;
    config.connections = connections;
    const auto runOurs = [&]() {
        const PacketRunReport report = RunPacketAllReduce(plan, config, nullptr);
        SideRun run{report.wallSeconds,
                    static_cast<double>(report.events),
                    report.result.completionTime * 1e3,
                    report.result.payloadBytes / 1e6};
        if (!report.result.finished || !report.verification.verified)
        {
            std::snprintf(run.error, sizeof run.error, "ours: %s%s",
                          report.result.error.c_str(), report.verification.message.c_str());
        }
        return run;
    };
    const auto runBare = [&]() {
        BareRounds bareRun(plan.schedule, plan.workloads, bytes, transport);
        const double seconds = bareRun.Run();
        SideRun run{seconds, static_cast<double>(bareRun.events), bareRun.simSeconds * 1e3,
                    bareRun.bytes / 1e6};
        if (!bareRun.finished)
        {
            std::snprintf(run.error, sizeof run.error,
                          "the bare run did not deliver every round: %s",
                          bareRun.Describe().c_str());
        }
        return run;
    };
    std::vector<double> ours;
    std::vector<double> bare;
    SideRun lastOurs;
    SideRun lastBare;
    for (auto _ : state)
    {
        for (uint32_t i = 0; i < 2 * pairs; ++i)
        {
            const bool oursNow = (i % 2 == 0) == (i / 2 % 2 == 0); // ours first in even pairs
            const SideRun run = oursNow ? RunInChild(runOurs) : RunInChild(runBare);
            if (run.error[0] != '\0')
            {
                state.SkipWithError(run.error);
                return;
            }
            (oursNow ? ours : bare).push_back(run.seconds);
            (oursNow ? lastOurs : lastBare) = run;
        }
    }
    const double oursMedian = Median(ours);
    const double bareMedian = Median(bare);
    state.counters["ours_s"] = oursMedian;
    state.counters["bare_s"] = bareMedian;
    state.counters["ours_over_bare"] = oursMedian / bareMedian;
    state.counters["ours_min_s"] = *std::min_element(ours.begin(), ours.end());
    state.counters["bare_min_s"] = *std::min_element(bare.begin(), bare.end());
    state.counters["ours_events"] = lastOurs.events;
    state.counters["bare_events"] = lastBare.events;
    state.counters["ours_events_per_s"] = lastOurs.events / oursMedian;
    state.counters["bare_events_per_s"] = lastBare.events / bareMedian;
    state.counters["ours_sim_ms"] = lastOurs.simMs;
    state.counters["bare_sim_ms"] = lastBare.simMs;
    state.counters["ours_MB"] = lastOurs.megabytes;
    state.counters["bare_MB"] = lastBare.megabytes;
}

const char* const DRL_ONLINE_SPECS[] = {"bcube:n=3,k=1", "dcell:n=4,k=1"};

void
DrlOnlineBench(benchmark::State& state)
{
    const std::string spec = DRL_ONLINE_SPECS[state.range(0)];
    const bool linkDown = state.range(1) != 0;
    state.SetLabel(spec + " drl online 1MiB barrier" + (linkDown ? ", a link down" : ""));
    const std::string unavailable = GetSchedulerUnavailableReason("drl");
    if (!unavailable.empty())
    {
        state.SkipWithError(unavailable.c_str());
        return;
    }
    const Topology topology = BuildTopology(spec);
    Ptr<DrlScheduler> drl = DynamicCast<DrlScheduler>(CreateScheduler("drl"));
    const Plan plan = drl->MakePlan(topology, 1);
    PacketRunConfig config;
    config.decisions = "online";
    config.flowMonitor = false;
    config.stallTimeout = MilliSeconds(50);
    if (linkDown)
    {
        // The dynamic table's failing link (its loss leaves the graph connected), at 0.3 ms:
        // about a third of the way through the unperturbed runs (0.83 and 0.96 ms).
        config.linkDowns = {{DynamicTable::DrawFailingLink(topology, 1), 0.3e-3}};
    }
    double decideSeconds = 0;
    double longest = 0;
    uint32_t decisions = 0;
    uint32_t searches = 0;
    for (auto _ : state)
    {
        const PacketRunReport report = RunPacketAllReduce(plan, config, drl);
        if (!report.result.finished || !report.verification.verified)
        {
            state.SkipWithError((report.result.error + report.verification.message).c_str());
            return;
        }
        decideSeconds += report.result.decisionWallS;
        longest = std::max(longest, report.result.decisionWallMaxS);
        decisions += report.result.decisions;
        searches += report.drl ? report.drl->replans : 0;
    }
    state.counters["decisions"] = benchmark::Counter(decisions, benchmark::Counter::kAvgIterations);
    state.counters["searches"] = benchmark::Counter(searches, benchmark::Counter::kAvgIterations);
    state.counters["ms_per_decision"] = decisions ? decideSeconds * 1e3 / decisions : 0;
    state.counters["longest_ms"] = longest * 1e3;
}

} // namespace

BENCHMARK(PacketBench)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(LargePacketBench)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(BareBulkSendBench)
    ->Args({0, 1, 0, 5, 0})
    ->Args({0, 1, 0, 5, 1})
    ->Args({0, 1, 1, 5, 0})
    ->Args({1, 0, 0, 1, 0})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK(DrlOnlineBench)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
