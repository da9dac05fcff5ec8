/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-helper.h"

#include "ns3/dcqcn-rate-control.h"
#include "ns3/ipv4.h"
#include "ns3/rdma-socket-factory.h"

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
RdmaHelper::Validate(DataRate lineRate) const
{
    m_socket.Create<RdmaSocket>()->Validate();
    m_rateControl.Create<DcqcnRateControl>()->Validate(lineRate);
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
            const RdmaSocket::Counters c = factory->GetTotals();
            sum.dataPackets += c.dataPackets;
            sum.retransmitted += c.retransmitted;
            sum.timeouts += c.timeouts;
            sum.acks += c.acks;
            sum.nacks += c.nacks;
            sum.cnpsSent += c.cnpsSent;
            sum.cnpsReceived += c.cnpsReceived;
            sum.marked += c.marked;
        }
    }
    return sum;
}

} // namespace ns3
