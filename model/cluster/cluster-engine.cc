/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-engine.h"

#include "cluster-queue.h"

#include "ns3/gradient-layout.h"
#include "ns3/job-view.h"
#include "ns3/log.h"
#include "ns3/quantity.h"
#include "ns3/size-limits.h"
#include "ns3/round-engine.h"
#include "ns3/scheduler-registry.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterEngine");

std::string
GetClusterModeName(ClusterMode mode)
{
    return mode == ClusterMode::JOINT ? "joint" : "independent";
}

double
ClusterResult::GetMeanJct() const
{
    double sum = 0;
    for (const ClusterJobResult& job : jobs)
    {
        sum += job.GetJct();
    }
    return jobs.empty() ? 0.0 : sum / static_cast<double>(jobs.size());
}

double
ClusterResult::GetJctQuantile(double q) const
{
    if (jobs.empty())
    {
        return 0.0;
    }
    std::vector<double> jct;
    jct.reserve(jobs.size());
    for (const ClusterJobResult& job : jobs)
    {
        jct.push_back(job.GetJct());
    }
    std::sort(jct.begin(), jct.end());
    // Nearest rank: the smallest value with at least q of the values at or below it.
    const auto rank = static_cast<size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * jct.size()));
    return jct[rank == 0 ? 0 : rank - 1];
}

namespace
{

/// What a placed job is doing.
enum class JobPhase : uint8_t
{
    COMPUTING, //!< between AllReduces (or before the first)
    DECIDING,  //!< its AllReduce runs and no round of it is in flight
    IN_ROUND,  //!< a round of it is in flight
};

/// A placed job's run state.
struct RunningJob
{
    std::unique_ptr<JobView> view;             //!< the cluster as the job sees it
    Ptr<AllReduceScheduler> scheduler;         //!< its own scheduler
    std::shared_ptr<WorkloadSet> workloads;    //!< its workloads, on the view
    std::unique_ptr<RoundEngine> engine;       //!< its current AllReduce
    JobPhase phase{JobPhase::COMPUTING};       //!< what it does now
    uint32_t iteration{0};                     //!< AllReduces finished
    std::vector<uint32_t> footprint;           //!< directed links its workloads use
    std::vector<uint32_t> roundLinks;          //!< directed links its round in flight holds
};

/// Something that happens at a time.
struct Event
{
    /// What happens.
    enum Kind : uint8_t
    {
        ARRIVE,    //!< the job arrives
        READY,     //!< the job's servers finished computing: its next AllReduce starts
        ROUND_END, //!< the job's round in flight ends
    };

    double time;  //!< when
    uint64_t seq; //!< order among events at the same time
    Kind kind;    //!< what
    uint32_t job; //!< whose

    /// \param other another event \return true when this one comes later
    bool operator>(const Event& other) const
    {
        return time != other.time ? time > other.time : seq > other.seq;
    }
};

/// One run of ClusterEngine::Run: the event loop and its state.
class ClusterRun
{
  public:
    ClusterRun(const Topology& cluster,
               PlacementPolicy& placement,
               const ClusterConfig& config,
               const std::function<void(const ClusterJobResult&, uint32_t)>& jobDone,
               const std::vector<JobSpec>& jobs)
        : m_cluster(cluster),
          m_queue(cluster, placement, config.scheduler, config.pieces),
          m_config(config),
          m_jobDone(jobDone),
          m_running(jobs.size()),
          m_holder(2 * uint64_t{cluster.GetNLinks()}, NO_HOLDER)
    {
        m_result.jobs = MakeClusterJobResults(jobs, config.pieces, config.linkRateBps);
        for (uint32_t i = 0; i < jobs.size(); ++i)
        {
            Push(jobs[i].arrivalS, Event::ARRIVE, i);
        }
    }

    ClusterResult Run()
    {
        while (!m_events.empty() || m_queue.HasWaiting())
        {
            if (m_events.empty())
            {
                throw std::runtime_error(m_queue.DescribeStuck());
            }
            const double now = m_events.top().time;
            while (!m_events.empty() && m_events.top().time == now)
            {
                const Event event = m_events.top();
                m_events.pop();
                Handle(event, now);
            }
            PlaceWaiting(now);
            if (!m_events.empty() && m_events.top().time == now)
            {
                continue; // a job placed with no computing starts now: handle that first
            }
            Decide(now);
        }
        const double busy = m_busyLinkSeconds;
        m_result.linkUtilisation =
            m_result.makespanS > 0 && !m_holder.empty()
                ? busy / (static_cast<double>(m_holder.size()) * m_result.makespanS)
                : 0.0;
        return std::move(m_result);
    }

  private:
    static constexpr uint32_t NO_HOLDER = UINT32_MAX; //!< a directed link no round holds

    void Push(double time, Event::Kind kind, uint32_t job)
    {
        m_events.push(Event{time, m_seq++, kind, job});
    }

    void Handle(const Event& event, double now)
    {
        RunningJob& run = m_running[event.job];
        switch (event.kind)
        {
        case Event::ARRIVE:
            m_queue.Arrive(event.job, m_result.jobs[event.job].spec.servers);
            break;
        case Event::READY:
            run.engine->Reset();
            run.scheduler->Prepare(*run.workloads);
            run.phase = JobPhase::DECIDING;
            if (run.engine->IsDone())
            {
                EndAllReduce(event.job, now); // one server: nothing to exchange
            }
            break;
        case Event::ROUND_END:
            for (uint32_t l : run.roundLinks)
            {
                m_holder[l] = NO_HOLDER;
            }
            run.roundLinks.clear();
            run.engine->CloseRound();
            ++m_result.jobs[event.job].rounds;
            --m_inFlight;
            run.phase = JobPhase::DECIDING;
            if (run.engine->IsDone())
            {
                EndAllReduce(event.job, now);
            }
            break;
        }
    }

    /// The job's current AllReduce has ended: validate it, then compute again or finish.
    void EndAllReduce(uint32_t id, double now)
    {
        RunningJob& run = m_running[id];
        ClusterJobResult& job = m_result.jobs[id];
        Schedule schedule;
        schedule.scheduler = run.scheduler->GetName();
        schedule.rounds = run.engine->GetRounds();
        const ScheduleCheck check = ValidateSchedule(*run.workloads, schedule);
        if (!check.valid && job.error.empty())
        {
            job.error = "AllReduce " + std::to_string(run.iteration) + ": " + check.error;
        }
        job.valid = job.error.empty();
        job.schedules.push_back(std::move(schedule));
        ++run.iteration;
        if (run.iteration < job.spec.iterations)
        {
            run.phase = JobPhase::COMPUTING;
            Push(now + job.spec.computeS, Event::READY, id);
            return;
        }
        job.finishS = now;
        m_result.makespanS = std::max(m_result.makespanS, now);
        m_queue.Finish(job.servers, run.footprint);
        job.workloads = run.workloads;
        m_running[id] = RunningJob{};
        ++m_finished;
        NS_LOG_INFO("job " << id << " finished at " << now << " s after " << job.rounds
                           << " rounds");
        if (m_jobDone)
        {
            m_jobDone(job, m_finished);
        }
    }

    /// Places waiting jobs in arrival order until one must wait.
    void PlaceWaiting(double now)
    {
        for (auto& [id, servers] : m_queue.PlaceWaiting())
        {
            Start(id, std::move(servers), now);
        }
    }

    void Start(uint32_t id, std::vector<uint32_t> servers, double now)
    {
        ClusterJobResult& job = m_result.jobs[id];
        RunningJob& run = m_running[id];
        job.servers = servers;
        job.startS = now;
        run.view = std::make_unique<JobView>(m_cluster, std::move(servers));
        run.scheduler = CreateScheduler(m_config.scheduler);
        run.workloads = std::make_shared<WorkloadSet>(
            run.scheduler->MakeWorkloads(run.view->GetTopology(), m_config.pieces));
        run.engine = std::make_unique<RoundEngine>(*run.workloads);
        job.boundRounds = ComputeBandwidthBound(run.view->GetTopology(), m_config.pieces);
        run.footprint = m_queue.Run(*run.workloads);
        run.phase = JobPhase::COMPUTING;
        Push(now + job.spec.computeS, Event::READY, id);
        NS_LOG_INFO("job " << id << " placed at " << now << " s on " << job.servers.size()
                           << " servers");
    }

    /// \return the job's remaining work in seconds, as its bound estimates it
    double RemainingWork(uint32_t id) const
    {
        const ClusterJobResult& job = m_result.jobs[id];
        const RunningJob& run = m_running[id];
        const double total = std::max<double>(1, run.workloads->GetN());
        const double undone = (total - run.engine->GetNDone()) / total;
        return job.roundS * job.boundRounds * (job.spec.iterations - run.iteration - 1 + undone);
    }

    /// Every job with no round in flight decides its next round.
    void Decide(double now)
    {
        std::vector<uint32_t> deciding;
        for (uint32_t id = 0; id < m_running.size(); ++id)
        {
            if (m_running[id].phase == JobPhase::DECIDING && m_running[id].engine)
            {
                deciding.push_back(id);
            }
        }
        if (m_config.mode == ClusterMode::JOINT)
        {
            std::vector<double> remaining(m_running.size(), 0);
            for (uint32_t id : deciding)
            {
                remaining[id] = RemainingWork(id);
            }
            std::stable_sort(deciding.begin(), deciding.end(), [&](uint32_t a, uint32_t b) {
                return remaining[a] < remaining[b];
            });
        }
        for (uint32_t id : deciding)
        {
            DecideJob(id, now);
        }
    }

    void DecideJob(uint32_t id, double now)
    {
        RunningJob& run = m_running[id];
        RoundEngine& engine = *run.engine;
        const bool joint = m_config.mode == ClusterMode::JOINT;
        std::vector<uint32_t> held;
        if (joint)
        {
            for (uint32_t l : run.footprint)
            {
                if (m_holder[l] != NO_HOLDER)
                {
                    engine.SetLinkHeld(l, true);
                    held.push_back(l);
                }
            }
        }
        try
        {
            run.scheduler->SelectRound(engine);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error("job " + std::to_string(id) + ", scheduler '" +
                                     run.scheduler->GetName() + "' in round " +
                                     std::to_string(engine.GetRound()) + ": " + e.what());
        }
        ++m_result.decisions;
        for (uint32_t l : held)
        {
            engine.SetLinkHeld(l, false);
        }
        if (!joint)
        {
            // First come, first served: what crosses a link another job's round holds waits.
            const std::vector<uint32_t> proposed = engine.GetStarted();
            for (uint32_t w : proposed)
            {
                const auto& links = run.workloads->GetAll()[w].links;
                if (std::any_of(links.begin(), links.end(), [&](uint32_t l) {
                        return m_holder[l] != NO_HOLDER;
                    }))
                {
                    engine.Withdraw(w);
                }
            }
        }
        if (engine.GetStarted().empty())
        {
            if (m_inFlight == 0)
            {
                throw std::runtime_error(
                    "job " + std::to_string(id) + ", scheduler '" + run.scheduler->GetName() +
                    "' in round " + std::to_string(engine.GetRound()) +
                    ": started no workload although every link is free and " +
                    std::to_string(engine.GetReady().size()) + " are ready");
            }
            return; // blocked by the others: try again at the next event
        }
        for (uint32_t w : engine.GetStarted())
        {
            for (uint32_t l : run.workloads->GetAll()[w].links)
            {
                m_holder[l] = id;
                run.roundLinks.push_back(l);
            }
        }
        const double roundS = m_result.jobs[id].roundS;
        m_busyLinkSeconds += static_cast<double>(run.roundLinks.size()) * roundS;
        run.phase = JobPhase::IN_ROUND;
        ++m_inFlight;
        Push(now + roundS, Event::ROUND_END, id);
    }

    const Topology& m_cluster;                                          //!< the cluster
    ClusterQueue m_queue;                                               //!< placement
    const ClusterConfig& m_config;                                      //!< the settings
    const std::function<void(const ClusterJobResult&, uint32_t)>& m_jobDone; //!< progress
    ClusterResult m_result;                                             //!< what is measured
    std::vector<RunningJob> m_running;                                  //!< per job
    std::vector<uint32_t> m_holder;     //!< per directed link, the job whose round holds it
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events; //!< the future
    uint64_t m_seq{0};                  //!< events pushed
    uint32_t m_inFlight{0};             //!< rounds in flight
    uint32_t m_finished{0};             //!< jobs finished
    double m_busyLinkSeconds{0};        //!< Σ directed links held × seconds
};

} // namespace

ClusterEngine::ClusterEngine(const Topology& cluster,
                             Ptr<PlacementPolicy> placement,
                             ClusterConfig config)
    : m_cluster(cluster),
      m_placement(placement),
      m_config(std::move(config))
{
    if (!m_placement)
    {
        throw std::invalid_argument("a cluster run needs a placement policy");
    }
    if (m_config.pieces == 0)
    {
        throw std::invalid_argument("pieces per chunk must be at least 1");
    }
    if (!(m_config.linkRateBps > 0) || !std::isfinite(m_config.linkRateBps))
    {
        throw std::invalid_argument("the link rate must be a positive number of bit/s");
    }
    CreateScheduler(m_config.scheduler); // refuses an unknown or unavailable name now
}

void
ClusterEngine::SetJobDoneCallback(std::function<void(const ClusterJobResult&, uint32_t)> callback)
{
    m_jobDone = std::move(callback);
}

namespace
{

/// Refuses a job whose gradient cannot be cut into pieces values of at least one value each.
void
CheckPieces(const std::string& name, const JobSpec& job, uint32_t pieces)
{
    const uint64_t values = job.gradientBytes / 4;
    const uint64_t most = values / job.servers; // pieces per chunk of one value each
    if (job.gradientBytes % 4 != 0 || job.gradientBytes == 0 || pieces == 0 || pieces > most)
    {
        throw std::invalid_argument(
            name + ": its gradient of " + std::to_string(job.gradientBytes) + " bytes (" +
            std::to_string(values) + " float32 values) over its " +
            std::to_string(job.servers) + " servers " +
            (most == 0 || job.gradientBytes % 4 != 0
                 ? std::string("cannot give each server one value: give a gradient of a "
                               "multiple of 4 bytes, at least ") +
                       std::to_string(uint64_t{job.servers} * 4 * pieces) + " bytes"
                 : "holds at most " + std::to_string(most) +
                       " pieces per chunk (a piece of 0 values is meaningless), and --pieces is " +
                       std::to_string(pieces) + ": give --pieces=" +
                       std::to_string(std::min<uint64_t>(most, 1000000)) +
                       " or less, or a larger gradient"));
    }
    // Every piece is at least one workload of the job's scheduler: a lower bound, checked before
    // any scheduler builds anything for the job.
    CheckMemory(name + "'s " + std::to_string(job.servers) + " servers x --pieces=" +
                    std::to_string(pieces) + " (" +
                    std::to_string(uint64_t{job.servers} * pieces) + " pieces, a workload each)",
                SaturatingMultiply(uint64_t{job.servers} * pieces, sizeof(Workload)),
                "give fewer --pieces or smaller jobs");
}

/// Refuses job times that are not finite, negative or beyond MAX_CLUSTER_SECONDS.
void
CheckTimes(const std::string& name, const JobSpec& job)
{
    const auto seconds = [](double s) { return Quantity::FormatSeconds(s); };
    for (const auto& [field, value] : {std::pair<const char*, double>{"arrival_s", job.arrivalS},
                                       std::pair<const char*, double>{"compute_s", job.computeS}})
    {
        if (!std::isfinite(value) || value < 0 || value > MAX_CLUSTER_SECONDS)
        {
            throw std::invalid_argument(name + ": " + field + " " + seconds(value) +
                                        " is not from 0 to 1e9 s, what a simulation can reach");
        }
    }
    if (job.arrivalS + job.computeS * job.iterations > MAX_CLUSTER_SECONDS * (1 + 1e-12))
    {
        throw std::invalid_argument(name + ": arrival_s " + seconds(job.arrivalS) +
                                    " + iterations " + std::to_string(job.iterations) +
                                    " x compute_s " + seconds(job.computeS) +
                                    " is beyond 1e9 s, more than a simulation can reach");
    }
}

} // namespace

void
CheckClusterJobs(const Topology& cluster, const std::vector<JobSpec>& jobs, uint32_t pieces)
{
    const uint32_t n = cluster.GetNServers();
    double computing = 0;
    uint64_t allReduces = 0;
    for (uint32_t i = 0; i < jobs.size(); ++i)
    {
        const JobSpec& job = jobs[i];
        const std::string name = "job " + std::to_string(i);
        if (job.servers == 0 || job.servers > n)
        {
            throw std::invalid_argument(name + " asks for " + std::to_string(job.servers) +
                                        " servers; '" + cluster.GetName() + "' has " +
                                        std::to_string(n) + ", so give each job 1 to " +
                                        std::to_string(n));
        }
        if (job.iterations == 0)
        {
            throw std::invalid_argument(name + " needs at least one iteration");
        }
        CheckTimes(name, job);
        if (i > 0 && job.arrivalS < jobs[i - 1].arrivalS)
        {
            throw std::invalid_argument(name + " arrives at " +
                                        Quantity::FormatSeconds(job.arrivalS) + ", before job " +
                                        std::to_string(i - 1) + ": list jobs in arrival order");
        }
        CheckPieces(name, job, pieces);
        computing += job.computeS * job.iterations;
        allReduces += job.iterations;
    }
    if (allReduces > MAX_CLUSTER_ALLREDUCES)
    {
        throw std::invalid_argument(
            "the " + std::to_string(jobs.size()) + " jobs run " + std::to_string(allReduces) +
            " AllReduces in all (their iterations), more than the " +
            std::to_string(MAX_CLUSTER_ALLREDUCES) + " a cluster run holds; give fewer jobs "
            "or iterations");
    }
    if (!jobs.empty() && jobs.back().arrivalS + computing > MAX_CLUSTER_SECONDS * (1 + 1e-12))
    {
        throw std::invalid_argument(
            "the last job arrives at " + Quantity::FormatSeconds(jobs.back().arrivalS) +
            " and the jobs compute for " + Quantity::FormatSeconds(computing) +
            " in all; when they wait for each other's servers the run lasts beyond 1e9 s, more "
            "than a simulation can reach: give less computing or fewer jobs");
    }
}

void
CheckPlacement(const Topology& cluster,
               const PlacementPolicy& placement,
               const std::vector<JobSpec>& jobs)
{
    std::set<uint32_t> sizes;
    for (const JobSpec& job : jobs)
    {
        sizes.insert(job.servers);
    }
    for (uint32_t servers : sizes)
    {
        placement.CheckJobSize(cluster, servers);
    }
}

std::vector<ClusterJobResult>
MakeClusterJobResults(const std::vector<JobSpec>& jobs, uint32_t pieces, double linkRateBps)
{
    std::vector<ClusterJobResult> results(jobs.size());
    for (uint32_t i = 0; i < jobs.size(); ++i)
    {
        results[i].id = i;
        results[i].spec = jobs[i];
        const GradientLayout layout(jobs[i].gradientBytes / 4, jobs[i].servers, pieces);
        results[i].roundS = static_cast<double>(layout.GetMaxPieceSize()) * 4 * 8 / linkRateBps;
    }
    return results;
}

ClusterResult
ClusterEngine::Run(const std::vector<JobSpec>& jobs)
{
    CheckClusterJobs(m_cluster, jobs, m_config.pieces);
    CheckPlacement(m_cluster, *m_placement, jobs);
    ClusterRun run(m_cluster, *m_placement, m_config, m_jobDone, jobs);
    return run.Run();
}

} // namespace ns3
