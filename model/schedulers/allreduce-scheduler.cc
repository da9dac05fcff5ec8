/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-scheduler.h"

#include "ns3/log.h"
#include "ns3/round-engine.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceScheduler");

NS_OBJECT_ENSURE_REGISTERED(AllReduceScheduler);

TypeId
AllReduceScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AllReduceScheduler").SetParent<Object>().SetGroupName("AllReduce");
    return tid;
}

WorkloadSet
AllReduceScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::MERGE, pieces); // before the trees
    return WorkloadSet::Build(topology,
                              BuildShortestPathTrees(topology),
                              WorkloadSemantics::MERGE,
                              pieces);
}

void
AllReduceScheduler::Prepare(const WorkloadSet& /* workloads */)
{
}

Plan
AllReduceScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    Plan plan;
    plan.workloads = MakeWorkloads(topology, pieces);
    plan.schedule = RunRounds(*this, plan.workloads);
    return plan;
}

Schedule
RunRounds(AllReduceScheduler& scheduler, const WorkloadSet& workloads)
{
    return *RunRoundsUnder(scheduler, workloads, std::numeric_limits<uint32_t>::max());
}

std::optional<Schedule>
RunRoundsUnder(AllReduceScheduler& scheduler, const WorkloadSet& workloads, uint32_t beat)
{
    scheduler.Prepare(workloads);
    RoundEngine engine(workloads);
    // Every workload a server sends leaves through one of the servers' ports, one a round
    // each: with u of them still to start, at least ceil(u / ports) rounds are left.
    const Topology& topology = workloads.GetTopology();
    const uint64_t ports = topology.GetNServerPorts();
    uint64_t unstarted = 0;
    for (const Workload& w : workloads.GetAll())
    {
        unstarted += topology.IsServer(w.src) ? 1 : 0;
    }
    while (!engine.IsDone())
    {
        const uint64_t left = ports == 0 ? 1 : std::max<uint64_t>(1, (unstarted + ports - 1) / ports);
        if (engine.GetRound() + left >= beat)
        {
            return std::nullopt; // the last round would be the beat-th at least
        }
        const std::string where = "scheduler '" + scheduler.GetName() + "' in round " +
                                  std::to_string(engine.GetRound()) + ": ";
        if (engine.GetReady().empty())
        {
            throw std::runtime_error(where + "no workload is ready but " +
                                     std::to_string(workloads.GetN() - engine.GetNDone()) +
                                     " are not done");
        }
        try
        {
            scheduler.SelectRound(engine);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::runtime_error(where + e.what());
        }
        const size_t started = engine.GetStarted().size();
        for (uint32_t id : engine.GetStarted())
        {
            unstarted -= topology.IsServer(workloads.Get(id).src) ? 1 : 0;
        }
        if (started == 0)
        {
            throw std::runtime_error(where + "started no workload although " +
                                     std::to_string(engine.GetReady().size()) + " are ready");
        }
        engine.CloseRound();
        NS_LOG_DEBUG(scheduler.GetName() << " round " << engine.GetRound() - 1 << ": " << started
                                         << " workloads");
    }
    Schedule schedule;
    schedule.scheduler = scheduler.GetName();
    schedule.rounds = engine.GetRounds();
    return schedule;
}

} // namespace ns3
