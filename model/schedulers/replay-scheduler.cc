/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "replay-scheduler.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/string.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ReplayScheduler);

TypeId
ReplayScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ReplayScheduler")
            .SetParent<AllReduceScheduler>()
            .SetGroupName("AllReduce")
            .AddConstructor<ReplayScheduler>()
            .AddAttribute("File",
                          "A schedule file to replay (allreduce-rounds --schedule-out writes "
                          "one); empty: the plan given with SetPlan",
                          StringValue(""),
                          MakeStringAccessor(&ReplayScheduler::m_file),
                          MakeStringChecker())
            .AddAttribute("Order",
                          "rounds: start the first planned round not wholly started; list: "
                          "start every ready workload the state lets start, in plan order.",
                          EnumValue(ReplayScheduler::ROUNDS),
                          compat::MakeEnumAccessor<ReplayScheduler::Order>(
                              &ReplayScheduler::m_order),
                          MakeEnumChecker(ReplayScheduler::ROUNDS,
                                          "rounds",
                                          ReplayScheduler::LIST,
                                          "list"))
            .AddAttribute("WorkAhead",
                          "rounds: when the first round not wholly started cannot start whole "
                          "now (a workload of it waits for a late gradient, or a link of its "
                          "is down or held by other traffic), also start ready workloads of "
                          "later rounds, in plan order, whose transfers are no longer (path "
                          "links over the slowest link's relative rate) than that round's "
                          "longest, which a barrier waits for anyway, and that leave the links "
                          "that round still needs free",
                          BooleanValue(false),
                          MakeBooleanAccessor(&ReplayScheduler::m_workAhead),
                          MakeBooleanChecker());
    return tid;
}

std::string
ReplayScheduler::GetName() const
{
    return "replay";
}

void
ReplayScheduler::SetPlan(Plan plan)
{
    m_plan = std::move(plan);
    m_hasPlan = true;
    m_loaded.clear();
}

void
ReplayScheduler::SetSchedule(Schedule schedule)
{
    m_plan.schedule = std::move(schedule);
    m_hasPlan = true;
    m_loaded.clear();
}

void
ReplayScheduler::SetOrder(Order order)
{
    m_order = order;
}

void
ReplayScheduler::SetWorkAhead(bool workAhead)
{
    m_workAhead = workAhead;
}

const Plan&
ReplayScheduler::GetPlan()
{
    if (!m_file.empty() && m_file != m_loaded)
    {
        ScheduleFile file = ReadScheduleFile(m_file);
        m_plan = Plan{std::move(file.workloads), std::move(file.schedule)};
        m_hasPlan = true;
        m_loaded = m_file;
    }
    if (!m_hasPlan)
    {
        throw std::invalid_argument("replay: nothing to replay; give a schedule file "
                                    "(ns3::ReplayScheduler::File, or --schedule-in) or a plan");
    }
    return m_plan;
}

const Plan&
ReplayScheduler::GetPlanFor(const Topology& topology, uint32_t pieces)
{
    const Plan& plan = GetPlan();
    const std::string source = m_loaded.empty() ? "the plan" : "schedule file '" + m_loaded + "'";
    const std::string differs = plan.workloads.GetTopology().DescribeDifference(
        topology,
        (m_loaded.empty() ? "the plan's '" : "the file's '") +
            plan.workloads.GetTopology().GetName() + "'",
        "'" + topology.GetName() + "'");
    if (!differs.empty())
    {
        throw std::invalid_argument("replay: " + source + " is for another topology than " +
                                    topology.GetName() + ": " + differs +
                                    "; give the topology it was written for (or none: a "
                                    "schedule file carries its own)");
    }
    if (plan.workloads.GetPieces() != pieces)
    {
        throw std::invalid_argument("replay: " + source + " has " +
                                    std::to_string(plan.workloads.GetPieces()) +
                                    " pieces per chunk, not the " + std::to_string(pieces) +
                                    " asked for");
    }
    return plan;
}

WorkloadSet
ReplayScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    return GetPlanFor(topology, pieces).workloads.OnTopology(topology);
}

Plan
ReplayScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    // On the topology given, the same graph (checked): its name and its links' rates and
    // delays are what runs, where the file's name may differ and a file has no link rates.
    const Plan& loaded = GetPlanFor(topology, pieces);
    Plan plan{loaded.workloads.OnTopology(topology), loaded.schedule};
    if (plan.schedule.scheduler.empty())
    {
        plan.schedule.scheduler = GetName();
    }
    return plan;
}

void
ReplayScheduler::Prepare(const WorkloadSet& workloads)
{
    const Plan& plan = GetPlan();
    m_position.assign(workloads.GetN(), NO_INDEX);
    m_roundOf.assign(workloads.GetN(), NO_INDEX);
    uint32_t position = 0;
    for (uint32_t r = 0; r < plan.schedule.rounds.size(); ++r)
    {
        for (uint32_t id : plan.schedule.rounds[r])
        {
            if (id >= workloads.GetN())
            {
                throw std::invalid_argument("replay: the plan names workload " +
                                            std::to_string(id) + ", but there are " +
                                            std::to_string(workloads.GetN()));
            }
            m_position[id] = position++;
            m_roundOf[id] = r;
        }
    }
    m_next = 0;
}

uint32_t
ReplayScheduler::GetFrontier(const SchedulerState& state)
{
    m_next = state.GetFrontier(m_plan.schedule.rounds, m_next);
    return m_next;
}

std::vector<uint32_t>
ReplayScheduler::GetReadyInPlanOrder(const SchedulerState& state) const
{
    std::vector<uint32_t> ready = state.GetReady();
    std::sort(ready.begin(), ready.end(), [this](uint32_t a, uint32_t b) {
        return m_position.at(a) < m_position.at(b);
    });
    return ready;
}

void
ReplayScheduler::SelectRound(SchedulerState& state)
{
    if (m_order == LIST)
    {
        for (uint32_t id : GetReadyInPlanOrder(state))
        {
            if (m_position[id] != NO_INDEX && state.CanStart(id))
            {
                state.Start(id);
            }
        }
        return;
    }
    const auto& rounds = m_plan.schedule.rounds;
    const uint32_t frontier = GetFrontier(state);
    if (frontier == rounds.size())
    {
        return;
    }
    bool whole = true;
    double longest = 0;
    for (uint32_t id : rounds[frontier])
    {
        longest = std::max(longest, state.GetTransferLength(id));
        const WorkloadStatus status = state.GetStatus(id);
        if (status == WorkloadStatus::STARTED || status == WorkloadStatus::DONE)
        {
            continue;
        }
        if (state.CanStart(id))
        {
            state.Start(id);
        }
        else
        {
            whole = false;
        }
    }
    if (m_workAhead && !whole)
    {
        StartAhead(state, frontier, longest);
    }
}

void
ReplayScheduler::StartAhead(SchedulerState& state, uint32_t frontier, double longest)
{
    // The links the frontier round still needs stay free for it: what it waits for (a late
    // gradient, a link) then starts the moment it comes, as in the replay.
    const WorkloadSet& workloads = state.GetWorkloads();
    std::vector<uint8_t> reserved(workloads.GetNDirectedLinks(), 0);
    for (uint32_t id : m_plan.schedule.rounds[frontier])
    {
        if (state.GetStatus(id) != WorkloadStatus::STARTED &&
            state.GetStatus(id) != WorkloadStatus::DONE)
        {
            for (uint32_t l : workloads.Get(id).links)
            {
                reserved[l] = 1;
            }
        }
    }
    const auto free = [&](uint32_t id) {
        const auto& links = workloads.Get(id).links;
        return std::none_of(links.begin(), links.end(), [&](uint32_t l) { return reserved[l]; });
    };
    for (uint32_t id : GetReadyInPlanOrder(state))
    {
        if (m_position[id] != NO_INDEX && m_roundOf[id] > frontier &&
            state.GetTransferLength(id) <= longest && free(id) && state.CanStart(id))
        {
            state.Start(id);
        }
    }
}

} // namespace ns3
