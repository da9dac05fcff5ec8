/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "list-placement.h"

#include "ns3/string.h"
#include "ns3/text-file.h"

#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ListPlacement);

static const PlacementRegistration g_registration("list",
                                                  ListPlacement::GetTypeId(),
                                                  "the servers given (attribute Servers)",
                                                  40);

TypeId
ListPlacement::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ListPlacement")
                            .SetParent<PlacementPolicy>()
                            .SetGroupName("AllReduce")
                            .AddConstructor<ListPlacement>()
                            .AddAttribute("Servers",
                                          "The job's servers, comma-separated, e.g. \"0,5,10\"",
                                          StringValue(""),
                                          MakeStringAccessor(&ListPlacement::m_servers),
                                          MakeStringChecker());
    return tid;
}

std::string
ListPlacement::GetName() const
{
    return "list";
}

std::vector<uint32_t>
ListPlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    std::vector<uint32_t> servers;
    std::istringstream in(m_servers);
    for (std::string field; std::getline(in, field, ',');)
    {
        uint64_t s = 0;
        if (!ParseWholeNumber(Trim(field), cluster.GetNServers() - 1, s))
        {
            throw std::invalid_argument("placement list: '" + Abbreviate(Trim(field)) +
                                        "' is not a server of '" + cluster.GetName() +
                                        "' (0.." + std::to_string(cluster.GetNServers() - 1) +
                                        ")");
        }
        servers.push_back(static_cast<uint32_t>(s));
    }
    if (servers.size() != request.servers)
    {
        throw std::invalid_argument("placement list '" + Abbreviate(m_servers) + "' gives " +
                                    std::to_string(servers.size()) + " servers for a job of " +
                                    std::to_string(request.servers));
    }
    for (size_t i = 0; i < servers.size(); ++i)
    {
        for (size_t j = 0; j < i; ++j)
        {
            if (servers[i] == servers[j])
            {
                throw std::invalid_argument("placement list '" + Abbreviate(m_servers) +
                                            "' gives server " + std::to_string(servers[i]) +
                                            " twice");
            }
        }
        if (!request.free[servers[i]])
        {
            return {}; // another job holds it: wait
        }
    }
    return servers;
}

} // namespace ns3
