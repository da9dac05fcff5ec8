/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "link-load-monitor.h"

#include "ppp-ipv4-flow.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkLoadMonitor");
NS_OBJECT_ENSURE_REGISTERED(LinkLoadMonitor);

TypeId
LinkLoadMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LinkLoadMonitor")
            .SetParent<Object>()
            .SetGroupName("AllReduce")
            .AddConstructor<LinkLoadMonitor>()
            .AddAttribute("OwnPort",
                          "The AllReduce's port: packets from or to it are not foreign.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&LinkLoadMonitor::m_ownPort),
                          MakeUintegerChecker<uint16_t>());
    return tid;
}

LinkLoadMonitor::LinkLoadMonitor() = default;

LinkLoadMonitor::~LinkLoadMonitor() = default;

void
LinkLoadMonitor::DoDispose()
{
    m_devices.clear();
    Object::DoDispose();
}

void
LinkLoadMonitor::AddLink(Ptr<NetDevice> a, Ptr<NetDevice> b)
{
    for (const Ptr<NetDevice>& device : {a, b})
    {
        DataRateValue rate;
        if (!device || !device->GetAttributeFailSafe("DataRate", rate))
        {
            throw std::invalid_argument("LinkLoadMonitor::AddLink: every device needs a DataRate "
                                        "attribute (a point-to-point device)");
        }
        const auto directed = static_cast<uint32_t>(m_devices.size());
        m_devices.push_back(device);
        m_rateBps.push_back(static_cast<double>(rate.Get().GetBitRate()));
        m_foreign.push_back(0);
        m_own.push_back(0);
        m_foreignAtSample.push_back(0);
        m_load.push_back(0);
        device->TraceConnectWithoutContext("PhyTxBegin",
                                           MakeCallback(&LinkLoadMonitor::Count, this)
                                               .Bind(directed));
    }
}

bool
LinkLoadMonitor::IsOwn(Ptr<const Packet> packet, uint16_t ownPort)
{
    PppIpv4Flow flow;
    return ReadPppIpv4Flow(packet, flow) &&
           (flow.sourcePort == ownPort || flow.destinationPort == ownPort);
}

void
LinkLoadMonitor::Count(uint32_t directedLink, Ptr<const Packet> packet)
{
    if (IsOwn(packet, m_ownPort))
    {
        m_own[directedLink] += packet->GetSize();
    }
    else
    {
        m_foreign[directedLink] += packet->GetSize();
    }
}

const std::vector<double>&
LinkLoadMonitor::Sample()
{
    const Time now = Simulator::Now();
    const double seconds = (now - m_lastSample).GetSeconds();
    if (seconds <= 0)
    {
        return m_load;
    }
    for (size_t l = 0; l < m_load.size(); ++l)
    {
        const double bits = 8.0 * double(m_foreign[l] - m_foreignAtSample[l]);
        m_load[l] = m_rateBps[l] > 0 ? std::min(1.0, bits / (m_rateBps[l] * seconds)) : 0.0;
        m_foreignAtSample[l] = m_foreign[l];
    }
    m_lastSample = now;
    return m_load;
}

uint32_t
LinkLoadMonitor::GetNDirectedLinks() const
{
    return static_cast<uint32_t>(m_devices.size());
}

double
LinkLoadMonitor::GetRateBps(uint32_t directedLink) const
{
    return m_rateBps.at(directedLink);
}

std::vector<double>
LinkLoadMonitor::GetRelativeRates() const
{
    const double fastest =
        m_rateBps.empty() ? 1.0 : *std::max_element(m_rateBps.begin(), m_rateBps.end());
    std::vector<double> out(m_rateBps.size(), 1.0);
    for (size_t l = 0; l < out.size() && fastest > 0; ++l)
    {
        out[l] = m_rateBps[l] / fastest;
    }
    return out;
}

uint64_t
LinkLoadMonitor::GetForeignBytes(uint32_t directedLink) const
{
    return m_foreign.at(directedLink);
}

uint64_t
LinkLoadMonitor::GetOwnBytes(uint32_t directedLink) const
{
    return m_own.at(directedLink);
}

} // namespace ns3
