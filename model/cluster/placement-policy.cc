/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "placement-policy.h"

#include "ns3/abort.h"
#include "ns3/short-name-registry.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PlacementPolicy);

namespace
{

/// \return the policies' short names (filled by PlacementRegistration at load time)
ShortNameRegistry&
Registry()
{
    static ShortNameRegistry registry("placement", PlacementPolicy::GetTypeId());
    return registry;
}

} // namespace

TypeId
PlacementPolicy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PlacementPolicy").SetParent<Object>().SetGroupName("AllReduce");
    return tid;
}

std::vector<uint32_t>
PlacementPolicy::Place(const Topology& cluster, const PlacementRequest& request)
{
    const uint32_t n = cluster.GetNServers();
    if (request.free.size() != n)
    {
        throw std::invalid_argument("placement: " + std::to_string(request.free.size()) +
                                    " free marks for the " + std::to_string(n) +
                                    " servers of '" + cluster.GetName() + "'");
    }
    if (request.servers == 0 || request.servers > n)
    {
        throw std::invalid_argument("a job of " + std::to_string(request.servers) +
                                    " servers cannot run on '" + cluster.GetName() + "', which has " +
                                    std::to_string(n) + "; give each job 1 to " +
                                    std::to_string(n) + " servers");
    }
    if (!request.linkJobs.empty() && request.linkJobs.size() != 2 * uint64_t{cluster.GetNLinks()})
    {
        throw std::invalid_argument("placement: link loads for " +
                                    std::to_string(request.linkJobs.size()) +
                                    " directed links, the cluster has " +
                                    std::to_string(2 * uint64_t{cluster.GetNLinks()}));
    }
    const auto freeCount = static_cast<uint32_t>(
        std::count_if(request.free.begin(), request.free.end(), [](uint8_t f) { return f != 0; }));
    if (freeCount < request.servers)
    {
        return {};
    }
    std::vector<uint32_t> placed = DoPlace(cluster, request);
    if (placed.empty())
    {
        return placed;
    }
    std::vector<uint8_t> taken(n, 0);
    for (uint32_t s : placed)
    {
        if (s >= n || !request.free[s] || taken[s])
        {
            throw std::logic_error("placement '" + GetName() + "' chose server " +
                                   std::to_string(s) +
                                   ", which is not a free server or was chosen twice");
        }
        taken[s] = 1;
    }
    if (placed.size() != request.servers)
    {
        throw std::logic_error("placement '" + GetName() + "' chose " +
                               std::to_string(placed.size()) + " servers for a job of " +
                               std::to_string(request.servers));
    }
    return placed;
}

void
PlacementPolicy::CheckJobSize(const Topology& /* cluster */, uint32_t /* servers */) const
{
}

PlacementRegistration::PlacementRegistration(const std::string& name,
                                             TypeId tid,
                                             const std::string& description,
                                             uint32_t order)
{
    try
    {
        Registry().Add({name, tid.GetName(), description, order, nullptr});
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR(e.what());
    }
}

Ptr<PlacementPolicy>
CreatePlacement(const std::string& name)
{
    return DynamicCast<PlacementPolicy>(Registry().Create(name));
}

std::vector<std::pair<std::string, std::string>>
ListPlacements()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const ShortNameRegistry::Entry& e : Registry().List())
    {
        out.emplace_back(e.name, e.description);
    }
    return out;
}

} // namespace ns3
