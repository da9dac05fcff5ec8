/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_AWARE_PLACEMENT_H
#define NS3_ALLREDUCE_TOPOLOGY_AWARE_PLACEMENT_H

#include "placement-policy.h"

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * `topology-aware`: GADGET's idea (INFOCOM'22) for the merge AllReduce (doc/allreduce.rst,
 * "Several jobs"). From each of up to `Candidates` anchor servers (free servers on distinct
 * first switches, spread over the cluster), it grows a group: it adds the free server nearest
 * to the group, distance being the sum over the group of path costs, where a link costs 1 plus
 * `LoadWeight` times the running jobs that use it. It then builds each group's workloads on its
 * view and estimates its rounds: the largest of the bandwidth and path bounds and of the busiest
 * directed link's workloads times one plus the running jobs on that link. The group with the
 * smallest estimate (then the least link use, then the first anchor) is placed, its servers in
 * a nearest-neighbour order from its lowest server, so that a ring follows short hops.
 */
class TopologyAwarePlacement : public PlacementPolicy
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetName() const override;
    /// Refuses a job whose groups would take more than MAX_STEPS steps to grow or more memory
    /// than the limit (a shortest-path search per member and candidate).
    void CheckJobSize(const Topology& cluster, uint32_t servers) const override;

    /// The most steps (candidates x members x (nodes + directed links + servers)) a placement
    /// may take: about a minute.
    static constexpr double MAX_STEPS = 2e9;

  protected:
    std::vector<uint32_t> DoPlace(const Topology& cluster,
                                  const PlacementRequest& request) override;

  private:
    uint32_t m_candidates{16}; //!< Candidates attribute: anchors tried
    double m_loadWeight{1.0};  //!< LoadWeight attribute: a running job's cost on a link
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_AWARE_PLACEMENT_H */
