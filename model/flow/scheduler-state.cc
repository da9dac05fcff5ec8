/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-state.h"

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
