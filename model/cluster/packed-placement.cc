/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "packed-placement.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PackedPlacement);

static const PlacementRegistration g_registration(
    "packed",
    PackedPlacement::GetTypeId(),
    "the first run of consecutive free servers, else the lowest free ones",
    10);

TypeId
PackedPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PackedPlacement")
                            .SetParent<PlacementPolicy>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<PackedPlacement>();
    return tid;
}

std::string
PackedPlacement::GetName() const
{
    return "packed";
}

std::vector<uint32_t>
PackedPlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    const uint32_t n = cluster.GetNServers();
    std::vector<uint32_t> placed;
    uint32_t run = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        run = request.free[s] ? run + 1 : 0;
        if (run == request.servers)
        {
            for (uint32_t t = s + 1 - run; t <= s; ++t)
            {
                placed.push_back(t);
            }
            return placed;
        }
    }
    for (uint32_t s = 0; s < n && placed.size() < request.servers; ++s)
    {
        if (request.free[s])
        {
            placed.push_back(s);
        }
    }
    return placed;
}

} // namespace ns3
