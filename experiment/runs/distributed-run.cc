/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "distributed-run.h"

#include "allreduce-experiment.h"
#include "mpi-launch.h"

#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <sys/resource.h>

namespace ns3
{

namespace
{

/// \return the ranks of the distributed simulator (1 when it is not running)
uint32_t
GetSimulatorRanks()
{
#ifdef NS3_MPI
    if (MpiInterface::IsEnabled())
    {
        return MpiInterface::GetSize();
    }
#endif
    return 1;
}

#ifdef NS3_MPI
/// Every rank's values, element by element, combined with op (in place).
template <typename T>
void
Combine(std::vector<T>& values, MPI_Datatype type, MPI_Op op)
{
    MPI_Allreduce(MPI_IN_PLACE,
                  values.data(),
                  static_cast<int>(values.size()),
                  type,
                  op,
                  MpiInterface::GetCommunicator());
}

/// Earliest over the ranks of times where -1 means "not here".
void
CombineStarts(std::vector<double>& times)
{
    const double none = std::numeric_limits<double>::infinity();
    for (double& t : times)
    {
        t = t < 0 ? none : t;
    }
    Combine(times, MPI_DOUBLE, MPI_MIN);
    for (double& t : times)
    {
        t = t == none ? -1 : t;
    }
}

/// \return the text of the lowest rank whose text is not empty (empty when none is)
std::string
FirstText(const std::string& mine)
{
    const uint32_t ranks = MpiInterface::GetSize();
    std::vector<int> who{mine.empty() ? static_cast<int>(ranks)
                                      : static_cast<int>(MpiInterface::GetSystemId())};
    Combine(who, MPI_INT, MPI_MIN);
    if (who[0] == static_cast<int>(ranks))
    {
        return "";
    }
    std::vector<int> length{static_cast<int>(mine.size())};
    MPI_Bcast(length.data(), 1, MPI_INT, who[0], MpiInterface::GetCommunicator());
    std::string text = mine;
    text.resize(length[0]);
    MPI_Bcast(text.data(), length[0], MPI_CHAR, who[0], MpiInterface::GetCommunicator());
    return text;
}

/**
 * Gives rank 0, which reports, every transfer's start and end by the plan's ids: the earliest
 * start and the latest end any rank saw (-1 where none did). Each rank sends only its part's
 * times; the others are left with none (before, every rank expanded its part to the whole
 * plan's size and combined them all: 2 x 16 MiB a rank at fat-tree k=16).
 * \param planIds per workload of this rank's part, its id in the plan
 * \param planned the plan's workloads \param start, end this rank's times, by its part's ids
 */
void
GatherTransferTimes(const std::vector<uint32_t>& planIds,
                    uint64_t planned,
                    std::vector<double>& start,
                    std::vector<double>& end)
{
    const MPI_Comm comm = MpiInterface::GetCommunicator();
    const bool root = MpiInterface::GetSystemId() == 0;
    const auto ranks = static_cast<int>(MpiInterface::GetSize());
    std::vector<uint32_t> whole; // a rank that kept the whole plan names it in order
    if (planIds.empty())
    {
        whole.resize(start.size());
        std::iota(whole.begin(), whole.end(), 0U);
    }
    const std::vector<uint32_t>& local = planIds.empty() ? whole : planIds;
    const uint64_t part = std::min({local.size(), start.size(), end.size()});
    uint64_t total = part;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (total > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    {
        throw std::length_error("the ranks' transfers (" + std::to_string(total) +
                                ") are too many for one MPI message"); // on every rank
    }
    const auto mine = static_cast<int>(part);
    std::vector<int> counts(root ? ranks : 0);
    MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::vector<int> offsets(counts.size(), 0);
    for (size_t i = 1; i < counts.size(); ++i)
    {
        offsets[i] = offsets[i - 1] + counts[i - 1];
    }
    if (!root)
    {
        total = 0; // only the root receives
    }
    std::vector<uint32_t> ids(total);
    MPI_Gatherv(local.data(), mine, MPI_UINT32_T, ids.data(), counts.data(), offsets.data(),
                MPI_UINT32_T, 0, comm);
    for (std::vector<double>* times : {&start, &end})
    {
        std::vector<double> got(total);
        MPI_Gatherv(times->data(), mine, MPI_DOUBLE, got.data(), counts.data(), offsets.data(),
                    MPI_DOUBLE, 0, comm);
        std::vector<double>().swap(*times);
        if (!root)
        {
            continue;
        }
        times->assign(planned, -1);
        for (uint64_t k = 0; k < total; ++k)
        {
            double& t = (*times)[ids[k]];
            if (got[k] >= 0 && (t < 0 || (times == &start ? got[k] < t : got[k] > t)))
            {
                t = got[k];
            }
        }
    }
}

/// Makes this rank's result and verification the whole run's.
void
CombineResults(PacketRunReport& report)
{
    AllReduceRunResult& r = report.result;
    const std::string rank = "rank " + std::to_string(MpiInterface::GetSystemId()) + ": ";
    CombineStarts(r.roundStart);
    Combine(r.roundEnd, MPI_DOUBLE, MPI_MAX);
    std::vector<double> times{r.completionTime, report.verification.maxError, report.wallSeconds};
    Combine(times, MPI_DOUBLE, MPI_MAX);
    std::vector<uint64_t> sums{r.payloadBytes, r.transfersFinished,
                               report.verification.checked, report.events};
    Combine(sums, MPI_UINT64_T, MPI_SUM);
    std::vector<int> all{r.finished, report.verification.verified, report.verification.exact};
    Combine(all, MPI_INT, MPI_MIN);
    std::vector<int> any{r.stalled};
    Combine(any, MPI_INT, MPI_MAX);
    r.error = FirstText(r.error.empty() ? "" : rank + r.error);
    const std::string failed =
        FirstText(report.verification.verified ? "" : rank + report.verification.message);
    r.completionTime = times[0];
    report.verification.maxError = times[1];
    report.wallSeconds = times[2];
    r.payloadBytes = sums[0];
    r.transfersFinished = static_cast<uint32_t>(sums[1]);
    report.verification.checked = static_cast<uint32_t>(sums[2]);
    report.events = sums[3];
    r.finished = all[0] != 0;
    report.verification.verified = all[1] != 0;
    report.verification.exact = all[2] != 0;
    r.stalled = any[0] != 0;
    report.verification.message =
        report.verification.verified
            ? "verified: true (" + std::to_string(report.verification.checked) +
                  " servers, each checked on its own rank, " +
                  (report.verification.exact ? "exact" : "within (N-1)*2^-23*sum|v|") + ")"
            : failed;
}
#endif

} // namespace

bool
HasDistributedSimulator()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

DistributedSession::DistributedSession(const std::string& program, PacketRunConfig& config)
{
    if (config.synchronizer != "granted-time-window" && config.synchronizer != "null-message")
    {
        throw std::invalid_argument("unknown synchronizer '" + config.synchronizer +
                                    "'; give granted-time-window or null-message");
    }
    const uint32_t ranks = GetLaunchRanks();
    if (ranks <= 1)
    {
        return;
    }
    config.distributed = true;
    if (!HasDistributedSimulator())
    {
        throw std::invalid_argument(
            program + " was started on " + std::to_string(ranks) + " ranks (mpirun), but this "
            "build's ns-3 has no MPI module (Debian's binary ns-3 has none): a distributed "
            "run needs the module built inside an ns-3 source tree configured with "
            "--enable-mpi (doc/allreduce.rst, \"Distributed runs\"). On one process, "
            "--distributed runs the same, without MPI");
    }
#ifdef NS3_MPI
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(config.synchronizer == "null-message"
                                      ? "ns3::NullMessageSimulatorImpl"
                                      : "ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(nullptr, nullptr);
    m_enabled = true;
#endif
}

DistributedSession::~DistributedSession()
{
#ifdef NS3_MPI
    if (m_enabled)
    {
        MpiInterface::Disable();
    }
#endif
}

bool
DistributedSession::IsReporter() const
{
    return GetLaunchRank() == 0;
}

void
CheckDistributedConfig(const PacketRunConfig& config, bool online)
{
    const auto refuse = [](const std::string& what, const std::string& instead) {
        throw std::invalid_argument("a distributed run cannot honour " + what + ": " + instead +
                                    " (doc/allreduce.rst, \"Distributed runs\")");
    };
    if (online)
    {
        refuse("decisions online (a scheduler reading the whole network's state)",
               "replay the scheduler's plan with --decisions=replay");
    }
    if (config.loss != 0)
    {
        refuse("--loss", "its notices travel as UDP datagrams, which are not sent again");
    }
    if (!config.linkDowns.empty())
    {
        refuse("--link-down", "nothing routes around a link that fails in it");
    }
    if (config.backgroundLoad != 0)
    {
        refuse("--background-load", "run it without --distributed, on one process");
    }
    const std::string queueDisc = GetQueueDisc(config);
    if (queueDisc != "fq-codel")
    {
        refuse("--queue-disc=" + queueDisc + (config.tcp == "dctcp" ? " (--tcp=dctcp)" : ""),
               "its notices are UDP datagrams, which RED and a full FIFO may drop, and a "
               "lost notice is never sent again; use fq-codel (a notice is a flow of its own)");
    }
    if (config.warmUps != 0)
    {
        refuse("--warm-ups", "give 0");
    }
    if (config.connections != "persistent")
    {
        refuse("--connections=" + config.connections, "use persistent connections");
    }
    if (!config.pcapPrefix.empty() || !config.netanimFile.empty())
    {
        refuse("--pcap or --netanim", "every rank would write the same files");
    }
}

TopologyPartition
MakeRunPartition(const Topology& topology, const PacketRunConfig& config)
{
    TopologyPartition p = TopologyPartition::Make(topology,
                                                  GetSimulatorRanks(),
                                                  TopologyPartition::ParseMethod(config.partition));
    for (uint32_t r = 0; r < p.GetNRanks(); ++r)
    {
        bool endpoint = false;
        for (uint32_t node = 0; node < topology.GetNNodes() && !endpoint; ++node)
        {
            endpoint = p.GetRank(node) == r &&
                       (topology.IsServer(node) || topology.IsAggregator(node));
        }
        if (!endpoint)
        {
            throw std::invalid_argument(
                "partitioning " + topology.GetName() + " into " +
                std::to_string(p.GetNRanks()) + " ranks (" +
                TopologyPartition::GetMethodName(p.GetMethod()) + ") leaves rank " +
                std::to_string(r) + " without a server or aggregating switch, where it would "
                "hear the run's end; use fewer ranks or another --partition");
        }
    }
    return p;
}

void
CheckSameOnEveryRank(const Plan& plan, const TopologyPartition& partition)
{
    // FNV-1a over what every rank must agree on: the workloads' paths, the rounds, the ranks.
    uint64_t hash = 1469598103934665603ULL;
    const auto mix = [&hash](uint64_t v) {
        hash = (hash ^ v) * 1099511628211ULL;
    };
    for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
    {
        for (uint32_t node : plan.workloads.Get(w).path)
        {
            mix(node);
        }
        mix(UINT64_MAX);
    }
    for (const auto& round : plan.schedule.rounds)
    {
        for (uint32_t w : round)
        {
            mix(w);
        }
        mix(UINT64_MAX);
    }
    for (uint32_t r : partition.GetRanks())
    {
        mix(r);
    }
#ifdef NS3_MPI
    if (partition.GetNRanks() > 1)
    {
        std::vector<uint64_t> low{hash};
        std::vector<uint64_t> high{hash};
        Combine(low, MPI_UINT64_T, MPI_MIN);
        Combine(high, MPI_UINT64_T, MPI_MAX);
        if (low[0] != high[0])
        {
            throw std::invalid_argument(
                "the ranks made different plans or partitions (a scheduler stopped by a "
                "wall-clock limit, such as optimal's TimeLimit, or different METIS builds): "
                "write the plan once (allreduce-rounds --schedule-out=FILE) and replay it "
                "with --schedule-in=FILE");
        }
    }
#endif
}

uint64_t
GetPeakResidentBytes()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<uint64_t>(usage.ru_maxrss) * 1024; // KiB on Linux
}

void
MergeDistributedReports(const TopologyPartition& partition,
                        double lookahead,
                        const PacketRunConfig& config,
                        const std::vector<uint32_t>& planIds,
                        PacketRunReport& report)
{
    AllReduceRunResult& r = report.result;
    if (partition.GetNRanks() > 1)
    {
#ifdef NS3_MPI
        GatherTransferTimes(planIds, report.plannedWorkloads, r.transferStart, r.transferEnd);
#endif
    }
    else if (!planIds.empty()) // this rank's part: its transfers' times by the plan's ids
    {
        for (std::vector<double>* times : {&r.transferStart, &r.transferEnd})
        {
            std::vector<double> all(report.plannedWorkloads, -1);
            for (size_t i = 0; i < planIds.size() && i < times->size(); ++i)
            {
                all[planIds[i]] = (*times)[i];
            }
            *times = std::move(all);
        }
    }
    DistributedReport d;
    const uint32_t ranks = partition.GetNRanks();
    d.partition = TopologyPartition::GetMethodName(partition.GetMethod());
    d.synchronizer = ranks > 1 ? config.synchronizer : "none (one process)";
    d.cutLinks = static_cast<uint32_t>(partition.GetCutLinks().size());
    d.lookaheadS = lookahead;
    std::vector<double> mine{static_cast<double>(report.events),
                             report.wallSeconds,
                             static_cast<double>(report.peakBytes)};
    const auto each = static_cast<int>(mine.size());
    std::vector<double> all = mine;
#ifdef NS3_MPI
    if (ranks > 1)
    {
        all.resize(each * ranks);
        MPI_Allgather(mine.data(), each, MPI_DOUBLE, all.data(), each, MPI_DOUBLE,
                      MpiInterface::GetCommunicator());
        CombineResults(report);
    }
#endif
    for (uint32_t r = 0; r < ranks; ++r)
    {
        d.ranks.push_back({partition.CountNodes(r),
                           partition.CountServers(r),
                           static_cast<uint64_t>(all[each * r]),
                           all[each * r + 1],
                           static_cast<uint64_t>(all[each * r + 2])});
    }
    report.distributed = d;
}

} // namespace ns3
