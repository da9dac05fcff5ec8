/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_HELPER_H
#define NS3_ALLREDUCE_ALLREDUCE_HELPER_H

#include "ns3/allreduce-application.h"
#include "ns3/allreduce-controller.h"
#include "ns3/application-container.h"
#include "ns3/dcn-topology-helper.h"
#include "ns3/object-factory.h"
#include "ns3/plan.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * Installs a packet-level AllReduce on a network built by DcnTopologyHelper, in the shape of
 * ns-3's application helpers: one AllReduceApplication per server, one AllReduceController,
 * and a flow route per workload so that each transfer takes its workload's path.
 * \code
 *   DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
 *   dcn.Install();
 *   Ptr<AllReduceScheduler> scheduler = CreateScheduler("greedy");
 *   Plan plan = scheduler->MakePlan(dcn.GetTopology(), 1);
 *   AllReduceHelper allreduce(dcn);
 *   allreduce.SetControllerAttribute("Mode", StringValue("async"));
 *   allreduce.SetControllerAttribute("GradientBytes", UintegerValue(1 << 20));
 *   ApplicationContainer apps = allreduce.Install(plan);
 *   Simulator::Run();
 *   AllReduceVerification v = allreduce.GetController()->Verify();
 * \endcode
 * The DcnTopologyHelper must outlive the simulation (the controller asks it which links are
 * up when it reports a stall).
 */
class AllReduceHelper
{
  public:
    /**
     * \param network a network on which Install() has run (nodes, stack, addresses, routes)
     */
    explicit AllReduceHelper(DcnTopologyHelper& network);

    /**
     * Sets an attribute of every AllReduceApplication installed.
     * \param name the attribute name \param value its value
     */
    void SetAttribute(std::string name, const AttributeValue& value);
    /**
     * Sets an attribute of the AllReduceController.
     * \param name the attribute name \param value its value
     */
    void SetControllerAttribute(std::string name, const AttributeValue& value);

    /**
     * Installs the applications and the controller for a plan.
     * \param plan workloads and schedule, for the network's topology
     * \return the applications, server i's at index i
     * \throws std::invalid_argument when the plan's topology is not the network's, its schedule
     *         is not valid, or the gradient cannot be split (see AllReduceController::Setup)
     */
    ApplicationContainer Install(const Plan& plan);
    /**
     * \param workloads the workloads \param schedule their rounds
     * \return the applications, server i's at index i
     * \throws std::invalid_argument as Install(const Plan&)
     */
    ApplicationContainer Install(const WorkloadSet& workloads, const Schedule& schedule);

    /// \return the controller of the last Install
    Ptr<AllReduceController> GetController() const;

  private:
    DcnTopologyHelper& m_network;     //!< the network
    ObjectFactory m_appFactory;       //!< makes the applications
    ObjectFactory m_controllerFactory; //!< makes the controller
    Ptr<AllReduceController> m_controller; //!< the last controller
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_HELPER_H */
