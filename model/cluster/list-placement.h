/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LIST_PLACEMENT_H
#define NS3_ALLREDUCE_LIST_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * `list`: the servers the user gives (attribute Servers, e.g. "0,5,10,15"), in that order; the
 * job waits while any of them is held by another job.
 */
class ListPlacement : public PlacementPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;

  protected:
    std::vector<uint32_t> DoPlace(const Topology& cluster,
                                  const PlacementRequest& request) override;

  private:
    std::string m_servers; //!< Servers attribute
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LIST_PLACEMENT_H */
