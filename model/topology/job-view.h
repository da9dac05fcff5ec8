/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_JOB_VIEW_H
#define NS3_ALLREDUCE_JOB_VIEW_H

#include "topology.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * One job's view of a cluster: the same graph, in which the job's servers (its placement) are
 * the servers, numbered 0..m-1 in the order given, and every other node, the other servers
 * included, is a switch (doc/allreduce.rst, "Several jobs"). A server outside the job relays
 * the job's traffic but does not merge it, so next(u) on a path is the first member server:
 * flow trees, workloads, bounds, the validator and every scheduler work on the view as on any
 * topology.
 *
 * Links keep their index and direction (link i joins the images of the cluster link i's ends,
 * in the same order), so a directed link is the same number in the view and in the cluster,
 * and jobs running at once share directed links by number. Link properties are copied.
 */
class JobView
{
  public:
    /**
     * \param cluster the cluster
     * \param members the job's servers in the cluster, each once, in the order they become the
     *        view's servers 0..m-1
     * \throws std::invalid_argument naming the member that is not a server of the cluster or is
     *         given twice, or for no member
     */
    JobView(const Topology& cluster, std::vector<uint32_t> members);

    /// \return the view: the job's servers first, then every other node as a switch
    const Topology& GetTopology() const;
    /// \return the job's servers in the cluster, in view order
    const std::vector<uint32_t>& GetMembers() const;
    /// \param node a node of the view \return the same node in the cluster
    uint32_t ToCluster(uint32_t node) const;
    /// \param node a node of the cluster \return the same node in the view
    uint32_t ToView(uint32_t node) const;
    /**
     * \param path nodes of the view
     * \return the same nodes in the cluster
     */
    std::vector<uint32_t> ToCluster(const std::vector<uint32_t>& path) const;

  private:
    Topology m_view;                  //!< the relabelled graph
    std::vector<uint32_t> m_members;  //!< view server i is cluster server m_members[i]
    std::vector<uint32_t> m_toCluster; //!< per view node, the cluster node
    std::vector<uint32_t> m_toView;    //!< per cluster node, the view node
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_JOB_VIEW_H */
