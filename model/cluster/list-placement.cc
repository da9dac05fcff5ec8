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
ListPlacement::ParseServers(const Topology& cluster, uint32_t servers) const
{
    const uint32_t n = cluster.GetNServers();
    const std::string option = "--ns3::ListPlacement::Servers='" + Abbreviate(m_servers) + "'";
    const std::string accepted = "give " + std::to_string(servers) + " distinct servers of '" +
                                 cluster.GetName() + "' (0 to " + std::to_string(n - 1) +
                                 "), comma-separated, one per server of the job";
    if (Trim(m_servers).empty())
    {
        throw std::invalid_argument("--placement=list places each job on the servers of "
                                    "--ns3::ListPlacement::Servers, which is not given: " +
                                    accepted);
    }
    std::vector<uint32_t> list;
    std::vector<uint8_t> seen(n, 0);
    std::istringstream in(m_servers);
    for (std::string field; std::getline(in, field, ',');)
    {
        uint64_t s = 0;
        if (!ParseWholeNumber(Trim(field), n - 1, s))
        {
            throw std::invalid_argument(option + ": '" + Abbreviate(Trim(field)) +
                                        "' is not a server; " + accepted);
        }
        if (seen[s])
        {
            throw std::invalid_argument(option + " gives server " + std::to_string(s) +
                                        " twice; " + accepted);
        }
        seen[s] = 1;
        list.push_back(static_cast<uint32_t>(s));
    }
    if (!m_servers.empty() && m_servers.back() == ',')
    {
        throw std::invalid_argument(option + " ends with a comma; " + accepted);
    }
    if (list.size() != servers)
    {
        throw std::invalid_argument(option + " gives " + std::to_string(list.size()) +
                                    " servers for a job of " + std::to_string(servers) + "; " +
                                    accepted + " (every job of the trace gets these servers)");
    }
    return list;
}

void
ListPlacement::CheckJobSize(const Topology& cluster, uint32_t servers) const
{
    ParseServers(cluster, servers);
}

std::vector<uint32_t>
ListPlacement::DoPlace(const Topology& cluster, const PlacementRequest& request)
{
    std::vector<uint32_t> servers = ParseServers(cluster, request.servers);
    for (uint32_t s : servers)
    {
        if (!request.free[s])
        {
            return {}; // another job holds it: wait
        }
    }
    return servers;
}

} // namespace ns3
