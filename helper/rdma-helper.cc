/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-helper.h"

#include "ns3/dcqcn-rate-control.h"
#include "ns3/ipv4.h"
#include "ns3/rdma-socket-factory.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

RdmaHelper::RdmaHelper()
{
    m_socket.SetTypeId(RdmaSocket::GetTypeId());
    m_rateControl.SetTypeId(DcqcnRateControl::GetTypeId());
}

void
RdmaHelper::SetSocketAttribute(const std::string& name, const AttributeValue& value)
{
    m_socket.Set(name, value);
}

void
RdmaHelper::SetRateControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_rateControl.Set(name, value);
}

void
RdmaHelper::Validate(DataRate lineRate, uint16_t mtu) const
{
    Ptr<RdmaSocket> socket = m_socket.Create<RdmaSocket>();
    socket->Validate();
    m_rateControl.Create<DcqcnRateControl>()->Validate(lineRate);
    UintegerValue payload;
    socket->GetAttribute("PayloadSize", payload);
    const uint64_t packet = payload.Get() + RoceHeader().GetSerializedSize() + 20 + 8;
    if (mtu != 0 && packet > mtu)
    {
        throw std::invalid_argument("RDMA: a PayloadSize of " + std::to_string(payload.Get()) +
                                    " bytes makes " + std::to_string(packet) +
                                    "-byte IP packets, more than the links' MTU of " +
                                    std::to_string(mtu) +
                                    " (RoCE does not fragment); raise the devices' Mtu or lower "
                                    "PayloadSize");
    }
}

void
RdmaHelper::Install(const NodeContainer& nodes) const
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Ptr<Node> node = *it;
        if (!node->GetObject<Ipv4>())
        {
            throw std::invalid_argument("RdmaHelper::Install: node " +
                                        std::to_string(node->GetId()) +
                                        " has no internet stack; install it first");
        }
        if (node->GetObject<RdmaSocketFactory>())
        {
            throw std::invalid_argument("RdmaHelper::Install: node " +
                                        std::to_string(node->GetId()) + " has RDMA already");
        }
        // Checked against this node's slowest device and smallest MTU.
        uint64_t slowest = 0;
        uint16_t mtu = 0;
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            DataRateValue rate;
            if (node->GetDevice(i)->GetAttributeFailSafe("DataRate", rate))
            {
                slowest = slowest == 0 ? rate.Get().GetBitRate()
                                       : std::min(slowest, rate.Get().GetBitRate());
                const uint16_t m = node->GetDevice(i)->GetMtu();
                mtu = mtu == 0 ? m : std::min(mtu, m);
            }
        }
        if (slowest != 0)
        {
            Validate(DataRate(slowest), mtu);
        }
        Ptr<RdmaSocketFactory> factory = CreateObject<RdmaSocketFactory>();
        factory->SetSocketFactory(m_socket);
        factory->SetRateControlFactory(m_rateControl);
        node->AggregateObject(factory);
    }
}

RdmaSocket::Counters
RdmaHelper::GetTotals(const NodeContainer& nodes)
{
    RdmaSocket::Counters sum;
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        if (Ptr<RdmaSocketFactory> factory = (*it)->GetObject<RdmaSocketFactory>())
        {
            sum += factory->GetTotals();
        }
    }
    return sum;
}

} // namespace ns3
