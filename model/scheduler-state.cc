/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-state.h"

namespace ns3
{

SchedulerState::~SchedulerState() = default;

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
