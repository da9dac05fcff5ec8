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
