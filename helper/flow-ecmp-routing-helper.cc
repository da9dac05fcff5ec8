/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-ecmp-routing-helper.h"

namespace ns3
{

FlowEcmpRoutingHelper::FlowEcmpRoutingHelper()
{
    m_factory.SetTypeId(FlowEcmpRouting::GetTypeId());
}

void
FlowEcmpRoutingHelper::Set(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

FlowEcmpRoutingHelper*
FlowEcmpRoutingHelper::Copy() const
{
    return new FlowEcmpRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
FlowEcmpRoutingHelper::Create(Ptr<Node> /* node */) const
{
    return m_factory.Create<FlowEcmpRouting>();
}

} // namespace ns3
