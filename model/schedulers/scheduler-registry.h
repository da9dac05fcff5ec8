/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SCHEDULER_REGISTRY_H
#define NS3_ALLREDUCE_SCHEDULER_REGISTRY_H

#include "allreduce-scheduler.h"

#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-schedulers
 * Gives a scheduler its short name when the module is loaded. Each scheduler's .cc file holds
 * one, after its NS_OBJECT_ENSURE_REGISTERED, so that no base file needs to know the
 * schedulers there are:
 * \code
 *   static const SchedulerRegistration g_greedy("greedy", GreedyScheduler::GetTypeId(),
 *                                                "critical-path list scheduling ...", 30);
 * \endcode
 * A scheduler added at run time calls RegisterScheduler instead.
 */
class SchedulerRegistration
{
  public:
    /**
     * \param name short name (letters, digits, '-', '_')
     * \param tid the scheduler's TypeId
     * \param description one line for --list-schedulers
     * \param order place in ListSchedulers (ascending; the built-ins use 10, 20, ...)
     * \param unavailable for a scheduler that needs an optional library: returns why it cannot
     *        run and how to enable it, empty when it can (nullptr: always available)
     */
    SchedulerRegistration(const std::string& name,
                          TypeId tid,
                          const std::string& description,
                          uint32_t order,
                          std::string (*unavailable)() = nullptr);
};

/**
 * \ingroup allreduce-schedulers
 * Makes a short name known to CreateScheduler and ListSchedulers, after the built-ins.
 * \param name short name (letters, digits, '-', '_')
 * \param typeId the TypeId name of an AllReduceScheduler subclass, e.g. "ns3::GreedyScheduler"
 * \param description one line for --list-schedulers
 * \throws std::invalid_argument for a taken name or a TypeId that is not an AllReduceScheduler
 */
void RegisterScheduler(const std::string& name,
                       const std::string& typeId,
                       const std::string& description);

/**
 * \ingroup allreduce-schedulers
 * \return (name, description) of every registered scheduler, built-ins first
 */
std::vector<std::pair<std::string, std::string>> ListSchedulers();

/**
 * \ingroup allreduce-schedulers
 * \param name a registered short name
 * \return why that scheduler cannot run in this build and how to enable it; empty when it can
 *         (and for a name that is not registered: CreateScheduler says what is wrong with it)
 */
std::string GetSchedulerUnavailableReason(const std::string& name);

/**
 * \ingroup allreduce-schedulers
 * \param name a registered short name ("ps", "ring", "greedy", ...) or a TypeId name of an
 *        AllReduceScheduler subclass
 * \return a new scheduler
 * \throws std::invalid_argument naming the available schedulers when there is no such one, or
 *         saying what to install when this build cannot run it
 */
Ptr<AllReduceScheduler> CreateScheduler(const std::string& name);

} // namespace ns3

#endif /* NS3_ALLREDUCE_SCHEDULER_REGISTRY_H */
