/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "random-placement.h"

#include "ns3/portable-random.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RandomPlacement);

static const PlacementRegistration g_registration("random",
                                                  RandomPlacement::GetTypeId(),
                                                  "free servers drawn uniformly with a seed",
                                                  20);

TypeId
RandomPlacement::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RandomPlacement")
            .SetParent<PlacementPolicy>()
            .SetGroupName("AllReduce")
            .AddConstructor<RandomPlacement>()
            .AddAttribute("Seed",
                          "Seed of the draws (setting it starts them again)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RandomPlacement::SetSeed,
                                               &RandomPlacement::GetSeed),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

std::string
RandomPlacement::GetName() const
{
    return "random";
}

void
RandomPlacement::SetSeed(uint64_t seed)
{
    m_seed = seed;
    m_rng.seed(seed);
}

uint64_t
RandomPlacement::GetSeed() const
{
    return m_seed;
}

std::vector<uint32_t>
RandomPlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    std::vector<uint32_t> free;
    for (uint32_t s = 0; s < cluster.GetNServers(); ++s)
    {
        if (request.free[s])
        {
            free.push_back(s);
        }
    }
    // A partial Fisher-Yates shuffle draws the job's servers.
    for (uint32_t i = 0; i < request.servers; ++i)
    {
        const auto j = i + static_cast<uint32_t>(UniformIndex(m_rng, free.size() - i));
        std::swap(free[i], free[j]);
    }
    free.resize(request.servers);
    std::sort(free.begin(), free.end());
    return free;
}

} // namespace ns3
