/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PLACEMENT_POLICY_H
#define NS3_ALLREDUCE_PLACEMENT_POLICY_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/topology.h"
#include "ns3/type-id.h"
#include "ns3/workload.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * What a placement policy is asked: how many servers a job needs, which are free, and how
 * busy the links are with the jobs already running.
 */
struct PlacementRequest
{
    uint32_t servers{0};            //!< how many servers the job needs
    std::vector<uint8_t> free;      //!< per cluster server, non-zero when no running job holds it
    std::vector<uint32_t> linkJobs; //!< per directed link, running jobs that use it (may be empty)
    /// Builds the job's workloads on a view of the cluster (the job's scheduler's
    /// MakeWorkloads), for policies that weigh a placement by them; empty: merge workloads on
    /// shortest-path trees.
    std::function<WorkloadSet(const Topology& view)> workloads;
};

/**
 * \ingroup allreduce-cluster
 * Chooses the servers of an arriving job (doc/allreduce.rst, "Several jobs"). Place checks
 * the request and the answer around DoPlace, so that a policy can only give `servers` distinct
 * free servers, or none: the job then waits until a job ends.
 */
class PlacementPolicy : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \return the short name, e.g. "packed"
    virtual std::string GetName() const = 0;

    /**
     * \param cluster the cluster
     * \param request the job's size and the cluster's state
     * \return the job's servers in the order they become its servers 0..m-1, or empty when it
     *         must wait
     * \throws std::invalid_argument for a request that does not fit the cluster (free servers
     *         of another size, a job of 0 servers or more than the cluster has), or what the
     *         policy refuses (named)
     * \throws std::logic_error when the policy answers something other than `servers`
     *         distinct free servers or nothing
     */
    std::vector<uint32_t> Place(const Topology& cluster, const PlacementRequest& request);

    /**
     * Refuses, before a run starts, a job the policy could not place in reasonable time or
     * memory on this cluster (by default: none).
     * \param cluster the cluster \param servers the job's size, from 1 to the cluster's servers
     * \throws std::invalid_argument naming the policy, the job's size and what would fit
     */
    virtual void CheckJobSize(const Topology& cluster, uint32_t servers) const;

  protected:
    /**
     * \param cluster the cluster
     * \param request a checked request, with at least `servers` free servers
     * \return the job's servers, or empty for "wait"
     */
    virtual std::vector<uint32_t> DoPlace(const Topology& cluster,
                                          const PlacementRequest& request) = 0;
};

/**
 * \ingroup allreduce-cluster
 * Gives a placement policy its short name when the module is loaded; each policy's .cc file
 * holds one after its NS_OBJECT_ENSURE_REGISTERED.
 */
class PlacementRegistration
{
  public:
    /**
     * \param name short name
     * \param tid the policy's TypeId
     * \param description one line for a listing
     * \param order place in ListPlacements (ascending)
     */
    PlacementRegistration(const std::string& name,
                          TypeId tid,
                          const std::string& description,
                          uint32_t order);
};

/**
 * \ingroup allreduce-cluster
 * \param name a short name ("packed", "random", ...)
 * \return a new policy with its default attributes
 * \throws std::invalid_argument for an unknown name, listing the known ones
 */
Ptr<PlacementPolicy> CreatePlacement(const std::string& name);

/**
 * \ingroup allreduce-cluster
 * \return (name, description) of every placement policy, in listing order
 */
std::vector<std::pair<std::string, std::string>> ListPlacements();

} // namespace ns3

#endif /* NS3_ALLREDUCE_PLACEMENT_POLICY_H */
