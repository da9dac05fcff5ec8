/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-state.h"

#include <algorithm>

namespace ns3
{

SchedulerState::~SchedulerState() = default;

double
SchedulerState::GetLinkLoad(uint32_t /* directedLink */) const
{
    return 0.0;
}

double
SchedulerState::GetLinkRate(uint32_t /* directedLink */) const
{
    return 1.0;
}

std::vector<uint32_t>
SchedulerState::GetAwaitingGradient() const
{
    return {};
}

bool
SchedulerState::HasBarriers() const
{
    return true;
}

double
SchedulerState::GetTransferLength(uint32_t id) const
{
    double rate = 1;
    const auto& links = GetWorkloads().Get(id).links;
    for (uint32_t l : links)
    {
        rate = std::min(rate, GetLinkRate(l));
    }
    return links.size() / rate;
}

uint32_t
SchedulerState::GetFrontier(const std::vector<std::vector<uint32_t>>& rounds, uint32_t from) const
{
    const auto started = [this](uint32_t id) {
        const WorkloadStatus status = GetStatus(id);
        return status == WorkloadStatus::STARTED || status == WorkloadStatus::DONE;
    };
    while (from < rounds.size() && std::all_of(rounds[from].begin(), rounds[from].end(), started))
    {
        ++from;
    }
    return from;
}

uint32_t
SchedulerState::GetNDone() const
{
    return static_cast<uint32_t>(GetFinished().size());
}

bool
SchedulerState::IsDone() const
{
    return GetNDone() == GetWorkloads().GetN();
}

} // namespace ns3
