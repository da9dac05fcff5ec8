/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-registry.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/short-name-registry.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SchedulerRegistry");

namespace
{

/// \return the schedulers' short names (filled by SchedulerRegistration at load time)
ShortNameRegistry&
Registry()
{
    static ShortNameRegistry registry("scheduler", AllReduceScheduler::GetTypeId());
    return registry;
}

} // namespace

SchedulerRegistration::SchedulerRegistration(const std::string& name,
                                             TypeId tid,
                                             const std::string& description,
                                             uint32_t order,
                                             std::string (*unavailable)())
{
    try
    {
        Registry().Add({name, tid.GetName(), description, order, unavailable});
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR(e.what());
    }
}

void
RegisterScheduler(const std::string& name, const std::string& typeId, const std::string& description)
{
    Registry().Add({name, typeId, description, std::numeric_limits<uint32_t>::max(), nullptr});
    NS_LOG_INFO("registered scheduler '" << name << "' as " << typeId);
}

std::vector<std::pair<std::string, std::string>>
ListSchedulers()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const ShortNameRegistry::Entry& e : Registry().List())
    {
        out.emplace_back(e.name, e.description);
    }
    return out;
}

std::string
GetSchedulerUnavailableReason(const std::string& name)
{
    const ShortNameRegistry::Entry* e = Registry().Find(name);
    return e && e->unavailable ? e->unavailable() : "";
}

Ptr<AllReduceScheduler>
CreateScheduler(const std::string& name)
{
    return DynamicCast<AllReduceScheduler>(Registry().Create(name));
}

} // namespace ns3
