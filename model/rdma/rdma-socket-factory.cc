/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rdma-socket-factory.h"

#include "ns3/log.h"
#include "ns3/node.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaSocketFactory");
NS_OBJECT_ENSURE_REGISTERED(RdmaSocketFactory);

TypeId
RdmaSocketFactory::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaSocketFactory")
                            .SetParent<SocketFactory>()
                            .SetGroupName("Allreduce")
                            .AddConstructor<RdmaSocketFactory>();
    return tid;
}

RdmaSocketFactory::RdmaSocketFactory()
{
    m_sockets.SetTypeId(RdmaSocket::GetTypeId());
    m_rateControl.SetTypeId(DcqcnRateControl::GetTypeId());
}

RdmaSocketFactory::~RdmaSocketFactory() = default;

void
RdmaSocketFactory::SetSocketFactory(const ObjectFactory& sockets)
{
    m_sockets = sockets;
}

void
RdmaSocketFactory::SetRateControlFactory(const ObjectFactory& rateControl)
{
    m_rateControl = rateControl;
}

Ptr<Socket>
RdmaSocketFactory::CreateSocket()
{
    NS_ASSERT_MSG(m_node, "RdmaSocketFactory: aggregate it to a node before making sockets");
    Ptr<RdmaSocket> socket = m_sockets.Create<RdmaSocket>();
    socket->Setup(m_node, this, m_rateControl.Create<DcqcnRateControl>());
    m_made.push_back(socket);
    return socket;
}

const std::vector<Ptr<RdmaSocket>>&
RdmaSocketFactory::GetSockets() const
{
    return m_made;
}

RdmaSocket::Counters
RdmaSocketFactory::GetTotals() const
{
    RdmaSocket::Counters sum;
    for (const auto& socket : m_made)
    {
        sum += socket->GetCounters();
    }
    return sum;
}

void
RdmaSocketFactory::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    SocketFactory::NotifyNewAggregate();
}

void
RdmaSocketFactory::DoDispose()
{
    m_made.clear();
    m_node = nullptr;
    SocketFactory::DoDispose();
}

} // namespace ns3
