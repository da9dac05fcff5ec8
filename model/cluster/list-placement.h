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
    /// Refuses a list that does not give `servers` distinct servers of the cluster.
    void CheckJobSize(const Topology& cluster, uint32_t servers) const override;

  protected:
    std::vector<uint32_t> DoPlace(const Topology& cluster,
                                  const PlacementRequest& request) override;

  private:
    /**
     * \param cluster the cluster \param servers the job's size
     * \return the servers of the list \throws std::invalid_argument naming the option
     *         (--ns3::ListPlacement::Servers) when they are not `servers` distinct servers
     */
    std::vector<uint32_t> ParseServers(const Topology& cluster, uint32_t servers) const;

    std::string m_servers; //!< Servers attribute
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LIST_PLACEMENT_H */
