/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "replay-scheduler.h"

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
                          MakeEnumAccessor(&ReplayScheduler::m_order),
                          MakeEnumChecker(ReplayScheduler::ROUNDS,
                                          "rounds",
                                          ReplayScheduler::LIST,
                                          "list"));
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
    const std::string differs = plan.workloads.GetTopology().DescribeDifference(topology);
    if (!differs.empty())
    {
        throw std::invalid_argument("replay: " + source + " is for another topology than " +
                                    topology.GetName() + ": " + differs);
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
    return GetPlanFor(topology, pieces).workloads;
}

Plan
ReplayScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    Plan plan = GetPlanFor(topology, pieces);
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
    uint32_t position = 0;
    for (const auto& round : plan.schedule.rounds)
    {
        for (uint32_t id : round)
        {
            if (id >= workloads.GetN())
            {
                throw std::invalid_argument("replay: the plan names workload " +
                                            std::to_string(id) + ", but there are " +
                                            std::to_string(workloads.GetN()));
            }
            m_position[id] = position++;
        }
    }
    m_next = 0;
}

uint32_t
ReplayScheduler::GetFrontier(const SchedulerState& state)
{
    const auto& rounds = m_plan.schedule.rounds;
    const auto wholeStarted = [&state](const std::vector<uint32_t>& round) {
        for (uint32_t id : round)
        {
            const WorkloadStatus s = state.GetStatus(id);
            if (s != WorkloadStatus::STARTED && s != WorkloadStatus::DONE)
            {
                return false;
            }
        }
        return true;
    };
    while (m_next < rounds.size() && wholeStarted(rounds[m_next]))
    {
        ++m_next;
    }
    return m_next;
}

void
ReplayScheduler::SelectRound(SchedulerState& state)
{
    if (m_order == LIST)
    {
        std::vector<uint32_t> ready = state.GetReady();
        std::sort(ready.begin(), ready.end(), [this](uint32_t a, uint32_t b) {
            return m_position.at(a) < m_position.at(b);
        });
        for (uint32_t id : ready)
        {
            if (m_position[id] != NO_INDEX && state.CanStart(id))
            {
                state.Start(id);
            }
        }
        return;
    }
    const auto& rounds = m_plan.schedule.rounds;
    if (GetFrontier(state) == rounds.size())
    {
        return;
    }
    for (uint32_t id : rounds[m_next])
    {
        if (state.CanStart(id))
        {
            state.Start(id);
        }
    }
}

} // namespace ns3
