/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scheduler-registry.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SchedulerRegistry");

namespace
{

struct Entry
{
    std::string name;
    std::string typeId;
    std::string description;
    uint32_t order;
    std::string (*unavailable)();
};

/// The entries in registration order (which, across files, the loader decides).
std::vector<Entry>&
Registry()
{
    static std::vector<Entry> entries;
    return entries;
}

/// \return what is wrong with a new short name, empty when it may be registered
std::string
CheckNewName(const std::string& name)
{
    if (name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
            std::string::npos)
    {
        return "scheduler name must be letters, digits, '-' or '_', got '" + name + "'";
    }
    for (const Entry& e : Registry())
    {
        if (e.name == name)
        {
            return "scheduler name '" + name + "' is already taken by " + e.typeId;
        }
    }
    return "";
}

/// \return the entries in listing order
std::vector<Entry>
Sorted()
{
    std::vector<Entry> out = Registry();
    std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
        return a.order < b.order;
    });
    return out;
}

const Entry*
Find(const std::string& name)
{
    for (const Entry& e : Registry())
    {
        if (e.name == name)
        {
            return &e;
        }
    }
    return nullptr;
}

} // namespace

SchedulerRegistration::SchedulerRegistration(const std::string& name,
                                             TypeId tid,
                                             const std::string& description,
                                             uint32_t order,
                                             std::string (*unavailable)())
{
    const std::string error = CheckNewName(name);
    NS_ABORT_MSG_IF(!error.empty(), error);
    NS_ABORT_MSG_IF(!tid.IsChildOf(AllReduceScheduler::GetTypeId()),
                    tid.GetName() << " is not an AllReduceScheduler");
    Registry().push_back({name, tid.GetName(), description, order, unavailable});
}

void
RegisterScheduler(const std::string& name, const std::string& typeId, const std::string& description)
{
    const std::string error = CheckNewName(name);
    if (!error.empty())
    {
        throw std::invalid_argument(error);
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) || !tid.IsChildOf(AllReduceScheduler::GetTypeId()))
    {
        throw std::invalid_argument("'" + typeId + "' is not the TypeId of an AllReduceScheduler subclass");
    }
    Registry().push_back(
        {name, typeId, description, std::numeric_limits<uint32_t>::max(), nullptr});
    NS_LOG_INFO("registered scheduler '" << name << "' as " << typeId);
}

std::vector<std::pair<std::string, std::string>>
ListSchedulers()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const Entry& e : Sorted())
    {
        out.emplace_back(e.name, e.description);
    }
    return out;
}

std::string
GetSchedulerUnavailableReason(const std::string& name)
{
    const Entry* e = Find(name);
    return e && e->unavailable ? e->unavailable() : "";
}

Ptr<AllReduceScheduler>
CreateScheduler(const std::string& name)
{
    const Entry* entry = Find(name);
    const std::string typeId = entry ? entry->typeId : name;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) || !tid.IsChildOf(AllReduceScheduler::GetTypeId()) ||
        !tid.HasConstructor())
    {
        std::string names;
        for (const Entry& e : Sorted())
        {
            names += (names.empty() ? "" : ", ") + e.name;
        }
        throw std::invalid_argument("unknown scheduler '" + name + "'; available: " + names +
                                    " (or the TypeId name of an AllReduceScheduler subclass)");
    }
    for (const Entry& e : Registry())
    {
        if (e.typeId == tid.GetName() && e.unavailable && !e.unavailable().empty())
        {
            throw std::invalid_argument(e.unavailable());
        }
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return factory.Create<AllReduceScheduler>();
}

} // namespace ns3
