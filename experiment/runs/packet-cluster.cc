/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packet-cluster.h"

#include "ns3/allreduce-helper.h"
#include "ns3/boolean.h"
#include "ns3/cluster-queue.h"
#include "ns3/dcn-topology-helper.h"
#include "ns3/job-view.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/rdma-socket-factory.h"
#include "ns3/scheduler-registry.h"
#include "ns3/shared-links.h"
#include "ns3/simulator.h"
#include "ns3/size-limits.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PacketCluster");

namespace
{

/// The listening ports of the jobs' AllReduces: below the controllers' source ports.
constexpr uint32_t FIRST_JOB_PORT = 5000;

/// \return a job's time in whole nanoseconds, never before the time given (times read from a
///         trace or generated are whole nanoseconds already, and come back exactly)
int64_t
ToNanoSeconds(double seconds)
{
    auto ns = static_cast<int64_t>(std::llround(seconds * 1e9));
    if (static_cast<double>(ns) / 1e9 < seconds)
    {
        ++ns;
    }
    return ns;
}

/// Refuses, before the simulation starts, what it could not finish: more AllReduces than it
/// has listening ports, or gradients (with their verification copies) beyond the memory limit
/// when the jobs run together.
void
CheckPacketJobs(const Topology& cluster, const std::vector<JobSpec>& jobs)
{
    const uint64_t ports = AllReduceController::FIRST_SOURCE_PORT - FIRST_JOB_PORT;
    uint64_t allReduces = 0;
    uint64_t largest = 0;
    uint64_t all = 0; // every job's servers' gradients at once
    for (uint32_t i = 0; i < jobs.size(); ++i)
    {
        const JobSpec& job = jobs[i];
        allReduces += job.iterations;
        CheckMemory("job " + std::to_string(i) + "'s gradient_bytes " +
                        std::to_string(job.gradientBytes) + " on each of its " +
                        std::to_string(job.servers) + " servers (and the exact sums)",
                    SaturatingMultiply(job.gradientBytes, uint64_t{job.servers} + 2),
                    "give a smaller gradient");
        largest = std::max(largest, job.gradientBytes);
        const uint64_t bytes = SaturatingMultiply(job.gradientBytes, uint64_t{job.servers} + 2);
        all = all > UINT64_MAX - bytes ? UINT64_MAX : all + bytes;
    }
    if (allReduces > ports)
    {
        throw std::invalid_argument(
            "at packet level the jobs run " + std::to_string(allReduces) +
            " AllReduces in all (their iterations), one listening port each, and a simulation "
            "has " + std::to_string(ports) + ": give fewer jobs or iterations");
    }
    // At most every server of the cluster runs a job at once, each job with two copies more.
    const uint64_t together = std::min<uint64_t>(jobs.size(), cluster.GetNServers());
    CheckMemory("the jobs' gradients when they run together (up to " +
                    std::to_string(together) + " jobs on the " +
                    std::to_string(cluster.GetNServers()) + " servers, the largest gradient " +
                    std::to_string(largest) + " bytes)",
                std::min(all, SaturatingMultiply(largest, cluster.GetNServers() + 2 * together)),
                "give smaller gradients or fewer jobs");
}

/// \return the simulation's time in seconds, the double nearest to its whole nanoseconds (as
///         a job's arrival is: a job that starts when it arrives has startS == arrivalS)
double
NowSeconds()
{
    return static_cast<double>(Simulator::Now().GetNanoSeconds()) / 1e9;
}

/// A placed job's run state.
struct PacketJob
{
    std::unique_ptr<JobView> view;                   //!< the cluster as the job sees it
    Ptr<AllReduceScheduler> scheduler;               //!< its own scheduler
    std::shared_ptr<WorkloadSet> workloads;          //!< its workloads, on the view
    std::vector<uint32_t> footprint;                 //!< directed links they use
    uint32_t iteration{0};                           //!< AllReduces ended
    Ptr<AllReduceController> controller;             //!< the AllReduce running
    std::vector<Ptr<AllReduceController>> finished;  //!< the ones that ended (kept alive)
};

/// One RunPacketCluster: the jobs' life in the simulation.
class PacketClusterRun
{
  public:
    PacketClusterRun(const Topology& cluster,
                     PlacementPolicy& placement,
                     const PacketClusterConfig& config,
                     const std::function<void(const ClusterJobResult&, uint32_t)>& jobDone,
                     const std::vector<JobSpec>& jobs)
        : m_cluster(cluster),
          m_config(config),
          m_jobDone(jobDone),
          m_queue(cluster, placement, config.cluster.scheduler, config.cluster.pieces),
          m_network(cluster),
          m_jobs(jobs.size()),
          m_nextSourcePort(cluster.GetNServers(), AllReduceController::FIRST_SOURCE_PORT)
    {
        m_result.jobs = MakeClusterJobResults(jobs,
                                              config.cluster.pieces,
                                              static_cast<double>(config.dataRate.GetBitRate()));
        for (ClusterJobResult& job : m_result.jobs)
        {
            job.valid = true; // until an AllReduce says otherwise
            job.verified = true;
        }
    }

    ClusterResult Run()
    {
        try
        {
            m_network.SetDeviceAttribute("DataRate", DataRateValue(m_config.dataRate));
            m_network.SetChannelAttribute("Delay", TimeValue(m_config.delay));
            if (m_config.transport == "rdma")
            {
                m_network.UseLosslessEthernet();
            }
            m_network.Install();
            if (m_config.cluster.mode == ClusterMode::JOINT)
            {
                m_shared = CreateObject<SharedLinks>();
                m_shared->SetNDirectedLinks(2 * m_cluster.GetNLinks());
            }
            for (uint32_t i = 0; i < m_result.jobs.size(); ++i)
            {
                Simulator::Schedule(NanoSeconds(ToNanoSeconds(m_result.jobs[i].spec.arrivalS)),
                                    &PacketClusterRun::Arrive,
                                    this,
                                    i);
            }
            Simulator::Run();
        }
        catch (...)
        {
            Simulator::Destroy();
            throw;
        }
        m_result.decisions = m_decisions;
        Simulator::Destroy();
        if (m_finished < m_result.jobs.size())
        {
            throw std::runtime_error(m_queue.HasWaiting()
                                         ? m_queue.DescribeStuck()
                                         : "the simulation ended with " +
                                               std::to_string(m_result.jobs.size() - m_finished) +
                                               " jobs unfinished");
        }
        return std::move(m_result);
    }

  private:
    void Arrive(uint32_t id)
    {
        m_queue.Arrive(id, m_result.jobs[id].spec.servers);
        Place();
    }

    void Place()
    {
        for (auto& [id, servers] : m_queue.PlaceWaiting())
        {
            Start(id, std::move(servers));
        }
    }

    void Start(uint32_t id, std::vector<uint32_t> servers)
    {
        ClusterJobResult& job = m_result.jobs[id];
        PacketJob& run = m_jobs[id];
        job.servers = servers;
        job.startS = NowSeconds();
        run.view = std::make_unique<JobView>(m_cluster, std::move(servers));
        run.scheduler = CreateScheduler(m_config.cluster.scheduler);
        run.workloads = std::make_shared<WorkloadSet>(
            run.scheduler->MakeWorkloads(run.view->GetTopology(), m_config.cluster.pieces));
        run.footprint = m_queue.Run(*run.workloads);
        job.boundRounds = ComputeBandwidthBound(run.view->GetTopology(), m_config.cluster.pieces);
        job.workloads = run.workloads;
        NS_LOG_INFO("job " << id << " placed at " << job.startS << " s on "
                           << job.servers.size() << " servers");
        StartAllReduce(id);
    }

    /// Installs the job's next AllReduce: it starts after the job's computing time.
    void StartAllReduce(uint32_t id)
    {
        ClusterJobResult& job = m_result.jobs[id];
        PacketJob& run = m_jobs[id];
        if (m_nextPort >= AllReduceController::FIRST_SOURCE_PORT)
        {
            throw std::runtime_error(
                "more than " +
                std::to_string(AllReduceController::FIRST_SOURCE_PORT - FIRST_JOB_PORT) +
                " AllReduces in one cluster run, one listening port each: run fewer jobs or "
                "iterations");
        }
        // Source ports above every port an earlier AllReduce used on these servers: TCP may
        // still hold those (TIME_WAIT).
        uint32_t firstSource = AllReduceController::FIRST_SOURCE_PORT;
        for (uint32_t s : job.servers)
        {
            firstSource = std::max(firstSource, m_nextSourcePort[s]);
        }
        std::vector<uint32_t> sends(job.servers.size(), 0);
        for (const Workload& w : run.workloads->GetAll())
        {
            ++sends[w.src];
        }
        const uint32_t most = *std::max_element(sends.begin(), sends.end());
        if (firstSource + most > 65536)
        {
            throw std::runtime_error("the servers of job " + std::to_string(id) +
                                     " have used up their source ports (one per workload sent, "
                                     "from " +
                                     std::to_string(AllReduceController::FIRST_SOURCE_PORT) +
                                     "): run fewer jobs or iterations, or fewer pieces");
        }
        for (uint32_t i = 0; i < job.servers.size(); ++i)
        {
            m_nextSourcePort[job.servers[i]] = firstSource + sends[i];
        }
        AllReduceHelper helper(m_network);
        helper.SetControllerAttribute("FirstSourcePort", UintegerValue(firstSource));
        helper.SetAttribute("Port", UintegerValue(m_nextPort++));
        helper.SetAttribute("Seed", UintegerValue(m_config.seed + 7919 * id));
        helper.SetAttribute("Values", StringValue(m_config.values));
        if (m_config.transport == "rdma")
        {
            helper.SetAttribute("Protocol", TypeIdValue(RdmaSocketFactory::GetTypeId()));
        }
        helper.SetControllerAttribute("Mode", StringValue(m_config.mode));
        helper.SetControllerAttribute("GradientBytes", UintegerValue(job.spec.gradientBytes));
        helper.SetControllerAttribute("StallTimeout", TimeValue(m_config.stallTimeout));
        helper.SetControllerAttribute("StartTime", TimeValue(NanoSeconds(ToNanoSeconds(job.spec.computeS))));
        helper.SetControllerAttribute("StopWhenFinished", BooleanValue(false));
        helper.SetControllerAttribute("SharedLinks", PointerValue(m_shared));
        helper.InstallJob(*run.view, run.scheduler, *run.workloads);
        run.controller = helper.GetController();
        run.controller->TraceConnectWithoutContext(
            "RunEnded",
            Callback<void, std::string>([this, id](std::string) {
                // Not from inside the controller's End: the next AllReduce is installed after.
                Simulator::ScheduleNow(&PacketClusterRun::EndAllReduce, this, id);
            }));
    }

    /// The job's AllReduce ended: judge it, then compute again or finish.
    void EndAllReduce(uint32_t id)
    {
        ClusterJobResult& job = m_result.jobs[id];
        PacketJob& run = m_jobs[id];
        Ptr<AllReduceController> c = run.controller;
        run.finished.push_back(c);
        run.controller = nullptr;
        const AllReduceRunResult& r = c->GetResult();
        job.rounds += c->GetSchedule().GetNRounds();
        m_decisions += r.decisions;
        const std::string which = "AllReduce " + std::to_string(run.iteration) + ": ";
        std::string error;
        if (!r.finished)
        {
            error = which + r.error;
            job.verified = false;
            job.valid = false;
        }
        else
        {
            const AllReduceVerification v = c->Verify();
            if (!v.verified)
            {
                job.verified = false;
                error = which + "server " + std::to_string(v.server) +
                        " does not hold the exact sum";
            }
            const ScheduleCheck check = ValidateSchedule(c->GetWorkloads(), c->GetSchedule());
            if (!check.valid)
            {
                job.valid = false;
                error = error.empty() ? which + check.error : error;
            }
        }
        if (job.error.empty())
        {
            job.error = error;
        }
        job.schedules.push_back(c->GetSchedule());
        ++run.iteration;
        if (r.finished && run.iteration < job.spec.iterations)
        {
            StartAllReduce(id);
            return;
        }
        const double now = NowSeconds();
        job.finishS = now;
        m_result.makespanS = std::max(m_result.makespanS, now);
        m_queue.Finish(job.servers, run.footprint);
        ++m_finished;
        NS_LOG_INFO("job " << id << " finished at " << now << " s, " << job.rounds << " rounds"
                           << (job.verified ? "" : ", NOT verified"));
        if (m_jobDone)
        {
            m_jobDone(job, m_finished);
        }
        if (m_finished == m_result.jobs.size())
        {
            Simulator::Stop();
            return;
        }
        Place();
    }

    const Topology& m_cluster;              //!< the cluster
    const PacketClusterConfig& m_config;    //!< what runs
    const std::function<void(const ClusterJobResult&, uint32_t)>& m_jobDone; //!< progress
    ClusterQueue m_queue;                   //!< placement
    DcnTopologyHelper m_network;            //!< the cluster in ns-3
    Ptr<SharedLinks> m_shared;              //!< joint: the links the controllers share
    std::vector<PacketJob> m_jobs;          //!< per job
    ClusterResult m_result;                 //!< what is measured
    uint32_t m_nextPort{FIRST_JOB_PORT};    //!< the next AllReduce's listening port
    std::vector<uint32_t> m_nextSourcePort; //!< per server, above the source ports used
    uint32_t m_finished{0};                 //!< jobs finished
    uint64_t m_decisions{0};                //!< scheduler calls of every controller
};

} // namespace

ClusterResult
RunPacketCluster(const Topology& cluster,
                 Ptr<PlacementPolicy> placement,
                 const PacketClusterConfig& config,
                 const std::vector<JobSpec>& jobs,
                 const std::function<void(const ClusterJobResult&, uint32_t)>& jobDone)
{
    if (!placement)
    {
        throw std::invalid_argument("a cluster run needs a placement policy");
    }
    if (config.mode != "barrier" && config.mode != "async")
    {
        throw std::invalid_argument("mode must be barrier or async, got '" + config.mode + "'");
    }
    if (config.values != "integer" && config.values != "float")
    {
        throw std::invalid_argument("values must be integer or float, got '" + config.values +
                                    "'");
    }
    if (config.dataRate.GetBitRate() == 0 || config.delay.IsStrictlyNegative() ||
        !config.stallTimeout.IsStrictlyPositive())
    {
        throw std::invalid_argument("the data rate and the stall timeout must be above 0 and the "
                                    "delay not negative");
    }
    if (config.cluster.pieces == 0)
    {
        throw std::invalid_argument("pieces per chunk must be at least 1");
    }
    CreateScheduler(config.cluster.scheduler); // refuses an unknown or unavailable name now
    CheckClusterJobs(cluster, jobs, config.cluster.pieces);
    CheckPlacement(cluster, *placement, jobs);
    CheckPacketJobs(cluster, jobs);
    PacketClusterRun run(cluster, *placement, config, jobDone, jobs);
    return run.Run();
}

} // namespace ns3
