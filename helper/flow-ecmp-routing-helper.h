/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_FLOW_ECMP_ROUTING_HELPER_H
#define NS3_ALLREDUCE_FLOW_ECMP_ROUTING_HELPER_H

#include "ns3/flow-ecmp-routing.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup allreduce
 * Puts FlowEcmpRouting (per-flow ECMP over global routing) on the nodes an InternetStackHelper
 * installs, as a member of an Ipv4ListRoutingHelper:
 * \code
 *   Ipv4ListRoutingHelper list;
 *   list.Add(Ipv4StaticRoutingHelper(), 0);
 *   list.Add(FlowEcmpRoutingHelper(), -5);
 *   list.Add(Ipv4GlobalRoutingHelper(), -10);
 *   InternetStackHelper stack;
 *   stack.SetRoutingHelper(list);
 *   ... // links, addresses
 *   Ipv4GlobalRoutingHelper::PopulateRoutingTables();
 * \endcode
 */
class FlowEcmpRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FlowEcmpRoutingHelper();

    /**
     * Sets an attribute of every FlowEcmpRouting created (e.g. "Salt").
     * \param name the attribute name \param value its value
     */
    void Set(std::string name, const AttributeValue& value);

    // Inherited from Ipv4RoutingHelper
    FlowEcmpRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;

  private:
    ObjectFactory m_factory; //!< makes the protocols
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_FLOW_ECMP_ROUTING_HELPER_H */
