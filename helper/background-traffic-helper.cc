/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "background-traffic-helper.h"

#include "ns3/bulk-send-helper.h"
#include "ns3/data-rate.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/quantity.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BackgroundTrafficHelper");

namespace
{
/// The slowest background sender accepted: one 1448-byte packet every 12 s.
constexpr double MIN_ONOFF_RATE_BPS = 1000;
} // namespace

BackgroundTrafficHelper::BackgroundTrafficHelper(DcnTopologyHelper& network)
    : m_network(network),
      m_random(CreateObject<UniformRandomVariable>())
{
}

void
BackgroundTrafficHelper::SetLoad(double load)
{
    if (!(load > 0 && load <= 1))
    {
        throw std::invalid_argument("background load must be in (0, 1] (a fraction of the link "
                                    "rate), got " +
                                    std::to_string(load));
    }
    m_load = load;
}

void
BackgroundTrafficHelper::SetApplication(const std::string& application)
{
    if (application != "onoff" && application != "bulk")
    {
        throw std::invalid_argument("background application must be onoff or bulk, got '" +
                                    application + "'");
    }
    m_application = application;
}

void
BackgroundTrafficHelper::SetPort(uint16_t port)
{
    if (port == 0)
    {
        throw std::invalid_argument("background port must be 1..65535");
    }
    m_port = port;
}

int64_t
BackgroundTrafficHelper::AssignStreams(int64_t stream)
{
    m_random->SetStream(stream);
    return 1;
}

uint32_t
BackgroundTrafficHelper::DrawReceiver(uint32_t from)
{
    const uint32_t servers = m_network.GetTopology().GetNServers();
    // One of the other servers, uniformly.
    const uint32_t other = m_random->GetInteger(0, servers - 2);
    return other < from ? other : other + 1;
}

ApplicationContainer
BackgroundTrafficHelper::Install(Time start)
{
    const Topology& topo = m_network.GetTopology();
    const uint32_t servers = topo.GetNServers();
    if (servers < 2)
    {
        throw std::invalid_argument("background traffic needs two servers or more; " +
                                    topo.GetName() + " has " + std::to_string(servers));
    }
    std::vector<uint32_t> senders;
    if (m_application == "onoff")
    {
        for (uint32_t s = 0; s < servers; ++s)
        {
            senders.push_back(s);
        }
    }
    else
    {
        // A random subset of round(load × servers) servers (at least one): Fisher-Yates.
        std::vector<uint32_t> order(servers);
        for (uint32_t s = 0; s < servers; ++s)
        {
            order[s] = s;
        }
        const auto count =
            std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(m_load * servers)));
        for (uint32_t i = 0; i < count; ++i)
        {
            std::swap(order[i], order[m_random->GetInteger(i, servers - 1)]);
        }
        senders.assign(order.begin(), order.begin() + count);
    }
    m_pairs.clear();
    ApplicationContainer sendApps;
    std::set<uint32_t> receivers;
    for (uint32_t s : senders)
    {
        const uint32_t to = DrawReceiver(s);
        m_pairs.emplace_back(s, to);
        receivers.insert(to);
        const InetSocketAddress remote(m_network.GetServerAddress(to), m_port);
        if (m_application == "onoff")
        {
            DataRateValue rate;
            const uint32_t link = topo.GetPortLinks(s).front();
            const NetDeviceContainer ends = m_network.GetLinkDevices(link);
            ends.Get(topo.GetLink(link).a == s ? 0 : 1)->GetAttribute("DataRate", rate);
            const double bps = m_load * static_cast<double>(rate.Get().GetBitRate());
            if (bps < MIN_ONOFF_RATE_BPS)
            {
                // ns-3's DataRate counts whole bit/s: below 1 it is 0, and OnOffApplication
                // then reschedules its next packet at the same instant for ever.
                std::ostringstream message;
                message << "--background-load " << m_load << " of server " << s
                        << "'s link rate (" << Quantity::FormatRate(rate.Get().GetBitRate())
                        << ") is " << bps << " bit/s, below the " << MIN_ONOFF_RATE_BPS
                        << " bit/s an onoff sender needs: give a load of at least "
                        << MIN_ONOFF_RATE_BPS / static_cast<double>(rate.Get().GetBitRate())
                        << ", or 0 for none";
                throw std::invalid_argument(message.str());
            }
            OnOffHelper onoff("ns3::TcpSocketFactory", remote);
            onoff.SetConstantRate(DataRate(static_cast<uint64_t>(std::llround(bps))), 1448);
            sendApps.Add(onoff.Install(m_network.GetServer(s)));
        }
        else
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", remote);
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            sendApps.Add(bulk.Install(m_network.GetServer(s)));
        }
        NS_LOG_INFO("background " << m_application << " from server " << s << " to " << to);
    }
    sendApps.Start(start);
    PacketSinkHelper sink("ns3::TcpSocketFactory",
                          InetSocketAddress(Ipv4Address::GetAny(), m_port));
    ApplicationContainer sinkApps;
    for (uint32_t to : receivers)
    {
        sinkApps.Add(sink.Install(m_network.GetServer(to)));
    }
    sinkApps.Start(Seconds(0));
    ApplicationContainer all = sendApps;
    all.Add(sinkApps);
    return all;
}

const std::vector<std::pair<uint32_t, uint32_t>>&
BackgroundTrafficHelper::GetPairs() const
{
    return m_pairs;
}

} // namespace ns3
