/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-helper.h"

#include "ns3/log.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceHelper");

AllReduceHelper::AllReduceHelper(DcnTopologyHelper& network)
    : m_network(network)
{
    m_appFactory.SetTypeId(AllReduceApplication::GetTypeId());
    m_controllerFactory.SetTypeId(AllReduceController::GetTypeId());
}

void
AllReduceHelper::SetAttribute(std::string name, const AttributeValue& value)
{
    m_appFactory.Set(name, value);
}

void
AllReduceHelper::SetControllerAttribute(std::string name, const AttributeValue& value)
{
    m_controllerFactory.Set(name, value);
}

ApplicationContainer
AllReduceHelper::Install(const Plan& plan)
{
    return Install(plan.workloads, plan.schedule);
}

ApplicationContainer
AllReduceHelper::Install(const WorkloadSet& workloads, const Schedule& schedule)
{
    const Topology& topo = m_network.GetTopology();
    const std::string differs = workloads.GetTopology().DescribeDifference(topo);
    if (!differs.empty())
    {
        throw std::invalid_argument("the workloads are for another topology than the network: " +
                                    differs);
    }
    ApplicationContainer apps;
    std::vector<Ptr<AllReduceApplication>> list;
    std::vector<Ipv4Address> addresses;
    for (uint32_t s = 0; s < topo.GetNServers(); ++s)
    {
        Ptr<AllReduceApplication> app = m_appFactory.Create<AllReduceApplication>();
        list.push_back(app);
        addresses.push_back(m_network.GetServerAddress(s));
        apps.Add(app);
    }
    Ptr<AllReduceController> controller = m_controllerFactory.Create<AllReduceController>();
    controller->Setup(workloads, schedule, list, addresses); // throws before anything changes
    controller->SetLinkStateCallback(MakeCallback(&DcnTopologyHelper::IsLinkUp, &m_network));
    for (uint32_t s = 0; s < topo.GetNServers(); ++s)
    {
        m_network.GetServer(s)->AddApplication(list[s]);
    }
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const Workload& wl = workloads.Get(w);
        m_network.InstallFlowRoute(wl.path,
                                   controller->GetSourcePort(w),
                                   list[wl.dst]->GetPort());
    }
    m_controller = controller;
    return apps;
}

Ptr<AllReduceController>
AllReduceHelper::GetController() const
{
    return m_controller;
}

} // namespace ns3
