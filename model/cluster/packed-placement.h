/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PACKED_PLACEMENT_H
#define NS3_ALLREDUCE_PACKED_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * `packed`: the first run of consecutive free servers long enough for the job (servers that
 * are numbered together sit together in BCube, DCell and fat-tree); when no run is long
 * enough, the lowest-numbered free servers, so a job never waits while enough servers are
 * free.
 */
class PackedPlacement : public PlacementPolicy
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
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PACKED_PLACEMENT_H */
