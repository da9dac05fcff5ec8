/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-helper.h"

#include "ns3/log.h"
#include "ns3/socket-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
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
AllReduceHelper::RefuseMissingProtocol(const std::vector<uint32_t>& servers,
                                       const std::function<bool(uint32_t)>& here) const
{
    const Topology& topo = m_network.GetTopology();
    TypeIdValue protocol;
    m_appFactory.Create<AllReduceApplication>()->GetAttribute("Protocol", protocol);
    for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
    {
        const bool runs = node < topo.GetNServers() ? std::find(servers.begin(), servers.end(),
                                                                node) != servers.end()
                                                    : topo.IsAggregator(node);
        if (runs && here(node) &&
            !m_network.GetNode(node)->GetObject<SocketFactory>(protocol.Get()))
        {
            throw std::invalid_argument(
                "the applications' Protocol " + protocol.Get().GetName() + " is not on " +
                topo.GetNodeName(node) +
                ": for RDMA build the network with DcnTopologyHelper::UseLosslessEthernet, "
                "which installs it (or install it with RdmaHelper)");
        }
    }
}

void
AllReduceHelper::SetControllerAttribute(std::string name, const AttributeValue& value)
{
    m_controllerFactory.Set(name, value);
}

ApplicationContainer
AllReduceHelper::Install(Plan plan)
{
    RefuseWithNetworkRouting("a plan's schedule was made for the plan's own paths; install a "
                             "scheduler instead, which decides on the paths the network's "
                             "routing gives");
    return DoInstall(plan.workloads, nullptr, [&](AllReduceController& c, const auto& apps, const auto& addr) {
        c.Setup(std::move(plan.workloads), std::move(plan.schedule), apps, addr);
    });
}

ApplicationContainer
AllReduceHelper::Install(const WorkloadSet& workloads, const Schedule& schedule)
{
    return Install(Plan{workloads, schedule});
}

ApplicationContainer
AllReduceHelper::Install(Ptr<AllReduceScheduler> scheduler, WorkloadSet workloads)
{
    if (m_network.UsesNetworkRouting())
    {
        // The scheduler decides on the paths the packets take: the network's.
        workloads = m_network.FollowNetworkRouting(workloads);
    }
    return DoInstall(workloads, nullptr, [&](AllReduceController& c, const auto& apps, const auto& addr) {
        c.Setup(std::move(workloads), scheduler, apps, addr);
    });
}

void
AllReduceHelper::RefuseWithNetworkRouting(const std::string& why) const
{
    if (m_network.UsesNetworkRouting())
    {
        throw std::invalid_argument("the network uses its own routing (UseNetworkRouting): " +
                                    why);
    }
}

ApplicationContainer
AllReduceHelper::Install(Ptr<AllReduceScheduler> scheduler, uint32_t pieces)
{
    if (!scheduler)
    {
        throw std::invalid_argument("AllReduceHelper::Install needs a scheduler");
    }
    // Planning may take minutes on a large network: with EnableProgress, a line every 10 s.
    const Topology& topo = m_network.GetTopology();
    if (m_progressOs && Simulator::GetSystemId() == 0)
    {
        return Install(scheduler,
                       RunWithHeartbeat(*m_progressOs,
                                        m_progressProgram,
                                        "planning the AllReduce: " + scheduler->GetName() +
                                            " on " + std::to_string(topo.GetNServers()) +
                                            " servers",
                                        [&] { return scheduler->MakeWorkloads(topo, pieces); }));
    }
    return Install(scheduler, scheduler->MakeWorkloads(topo, pieces));
}

ApplicationContainer
AllReduceHelper::InstallJob(const JobView& view,
                            Ptr<AllReduceScheduler> scheduler,
                            const WorkloadSet& workloads)
{
    RefuseWithNetworkRouting("the jobs of a shared cluster run on the module's routes (use "
                             "InstallWorkloadRoutes)");
    return DoInstall(workloads, &view, [&](AllReduceController& c, const auto& apps, const auto& addr) {
        c.Setup(workloads, scheduler, apps, addr);
    });
}

ApplicationContainer
AllReduceHelper::DoInstall(
    const WorkloadSet& workloads,
    const JobView* view,
    const std::function<void(AllReduceController&,
                             const std::vector<Ptr<AllReduceApplication>>&,
                             const std::vector<Ipv4Address>&)>& setup)
{
    const Topology& topo = m_network.GetTopology();
    const Topology& expected = view ? view->GetTopology() : topo;
    std::string differs = workloads.GetTopology().DescribeDifference(expected);
    if (view && differs.empty() &&
        (expected.GetNNodes() != topo.GetNNodes() || expected.GetNLinks() != topo.GetNLinks()))
    {
        differs = "the job's view has " + std::to_string(expected.GetNNodes()) + " nodes and " +
                  std::to_string(expected.GetNLinks()) + " links, the network " +
                  std::to_string(topo.GetNNodes()) + " and " + std::to_string(topo.GetNLinks());
    }
    if (!differs.empty())
    {
        throw std::invalid_argument("the workloads are for another topology than the network: " +
                                    differs);
    }
    // The job's server i is the network's server servers[i].
    std::vector<uint32_t> servers(expected.GetNServers());
    for (uint32_t s = 0; s < servers.size(); ++s)
    {
        servers[s] = view ? view->ToCluster(s) : s;
    }
    Ptr<AllReduceController> controller = m_controllerFactory.Create<AllReduceController>();
    // Distributed: applications on this rank's nodes only (their ns-3 system id).
    const auto here = [&](uint32_t node) {
        return !controller->IsDistributed() ||
               m_network.GetNode(node)->GetSystemId() == Simulator::GetSystemId();
    };
    ApplicationContainer apps;
    std::vector<Ptr<AllReduceApplication>> list;
    std::vector<Ipv4Address> addresses;
    for (uint32_t s : servers)
    {
        Ptr<AllReduceApplication> app;
        if (here(s))
        {
            app = m_appFactory.Create<AllReduceApplication>();
            apps.Add(app);
        }
        list.push_back(app);
        addresses.push_back(m_network.GetServerAddress(s));
    }
    // Aggregating switches (a job's view has none: JobView refuses them) run the same
    // application, by node id after the servers; the switches that only forward have none.
    if (topo.CountAggregators() > 0)
    {
        for (uint32_t node = topo.GetNServers(); node < topo.GetNNodes(); ++node)
        {
            Ptr<AllReduceApplication> app;
            Ipv4Address address;
            if (topo.IsAggregator(node))
            {
                address = m_network.GetPortAddress(node, 0);
            }
            if (topo.IsAggregator(node) && here(node))
            {
                app = m_appFactory.Create<AllReduceApplication>();
                apps.Add(app);
            }
            list.push_back(app);
            addresses.push_back(address);
        }
    }
    if (m_network.IsReadNetwork() && !m_network.UsesNetworkRouting() &&
        !m_network.HasModuleRouting())
    {
        throw std::invalid_argument("the network you built has no routes chosen for the "
                                    "AllReduce: call InstallWorkloadRoutes() (the module's "
                                    "routes, beside yours) or UseNetworkRouting() (your routing) "
                                    "on its DcnTopologyHelper first");
    }
    RefuseMissingProtocol(servers, here);
    // Distributed, the rank keeps the part of the plan its nodes take part in.
    controller->SetSimulatedNodes(controller->IsDistributed() ? m_network.GetSimulatedNodes()
                                                              : std::vector<bool>{});
    setup(*controller, list, addresses); // throws before anything changes
    if (controller->IsDistributed())
    {
        // Simultaneous arrivals in one order on any number of ranks ("Distributed runs").
        m_network.SequenceArrivals();
    }
    controller->SetLinkStateCallback(MakeCallback(&DcnTopologyHelper::IsLinkUp, &m_network));
    Route(controller, view);
    Ptr<LinkLoadMonitor> monitor;
    if (!view && !controller->IsDistributed()) // distributed, nothing decides online
    {
        // Device counters, so that a scheduler sees other traffic and uneven links.
        monitor = CreateObject<LinkLoadMonitor>();
        monitor->SetAttribute("OwnPort", UintegerValue(list.front()->GetPort()));
        for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
        {
            const NetDeviceContainer devices = m_network.GetLinkDevices(link);
            monitor->AddLink(devices.Get(0), devices.Get(1));
        }
        controller->SetLinkLoadMonitor(monitor);
    }
    for (uint32_t i = 0; i < list.size(); ++i) // the job's servers, then the nodes beyond them
    {
        if (list[i])
        {
            Ptr<Node> node = i < servers.size() ? m_network.GetServer(servers[i])
                                                : m_network.GetNode(i);
            node->AddApplication(list[i]);
        }
    }
    m_controller = controller;
    m_monitor = monitor;
    WatchTransfers();
    return apps;
}

void
AllReduceHelper::Route(Ptr<AllReduceController> controller, const JobView* view)
{
    m_paths = nullptr;
    if (m_network.UsesNetworkRouting())
    {
        // The network routes: the paths the packets take are read from the simulation, one
        // per connection (its 5-tuple). The recorder lives as long as the controller, to which
        // it is aggregated. (With the module's routes a persistent connection carries
        // workloads along different paths, each pinned by its route: nothing to read.)
        const Topology& topo = m_network.GetTopology();
        m_paths = CreateObject<PathRecorder>();
        std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> links;
        for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
        {
            const NetDeviceContainer devices = m_network.GetLinkDevices(link);
            links.emplace_back(devices.Get(0), devices.Get(1));
        }
        m_paths->Watch(topo, links);
        controller->AggregateObject(m_paths);
    }
    if (m_network.UsesNetworkRouting())
    {
        return; // the network routes, and routes around links that go down
    }
    if (controller->IsDistributed())
    {
        RouteDistributed(controller);
        return;
    }
    DcnTopologyHelper* network = &m_network;
    AllReduceController* raw = PeekPointer(controller);
    const auto clusterPath = [view](const std::vector<uint32_t>& path) {
        return view ? view->ToCluster(path) : path;
    };
    controller->SetRouteCallback(Callback<void, uint32_t>([network, raw, clusterPath](uint32_t w) {
        const Workload& wl = raw->GetWorkloads().Get(w);
        network->InstallFlowRoute(clusterPath(wl.path.ToVector()),
                                  raw->GetSourcePort(w),
                                  raw->GetApplication(wl.dst)->GetPort());
    }));
    m_network.AddLinkStateCallback(MakeCallback(&AllReduceController::NotifyLinkState, raw));
}

void
AllReduceHelper::RouteDistributed(Ptr<AllReduceController> controller)
{
    // Every rank installs the routes through its own nodes before the run (its part of the
    // plan holds every workload that passes there): a rank cannot install one on another
    // rank's nodes while the run goes on.
    const WorkloadSet& workloads = controller->GetWorkloads();
    const Topology& topo = workloads.GetTopology();
    std::set<std::pair<uint32_t, uint16_t>> routed;
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const Workload& wl = workloads.Get(w);
        if (routed.emplace(wl.src, controller->GetSourcePort(w)).second)
        {
            m_network.InstallFlowRoute(wl.path.ToVector(),
                                       controller->GetSourcePort(w),
                                       controller->GetPort(wl.dst));
        }
    }
    // Notices take a shortest path (the first neighbour, by id, one hop nearer).
    const uint16_t port = controller->GetNoticePort();
    std::map<uint32_t, std::vector<uint32_t>> hopsTo; // per destination
    for (const auto& [from, to] : controller->GetNoticeChannels())
    {
        auto it = hopsTo.find(to);
        if (it == hopsTo.end())
        {
            it = hopsTo.emplace(to, topo.GetHopDistances(to)).first;
        }
        const std::vector<uint32_t>& hops = it->second;
        if (hops[from] == UINT32_MAX)
        {
            throw std::invalid_argument("no path from " + topo.GetNodeName(from) + " to " +
                                        topo.GetNodeName(to) + " for the run's notices");
        }
        std::vector<uint32_t> path{from};
        while (path.back() != to)
        {
            for (uint32_t next : topo.GetNeighbors(path.back()))
            {
                if (hops[next] + 1 == hops[path.back()])
                {
                    path.push_back(next);
                    break;
                }
            }
        }
        m_network.InstallFlowRoute(path, port, port);
    }
}

void
AllReduceHelper::EnableProgress(std::ostream& os, const std::string& program)
{
    m_progressOs = &os;
    m_progressProgram = program;
    WatchTransfers();
}

void
AllReduceHelper::WatchTransfers()
{
    m_progress = nullptr;
    if (!m_progressOs || !m_controller || Simulator::GetSystemId() != 0)
    {
        return; // not asked for, nothing installed yet, or not rank 0 (which speaks for all)
    }
    const WorkloadSet& workloads = m_controller->GetWorkloads();
    uint64_t here = 0; // the transfers that arrive on this process's nodes
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        here += bool(m_controller->GetApplication(workloads.Get(w).dst));
    }
    UintegerValue warmUps;
    m_controller->GetAttribute("WarmUps", warmUps);
    const uint64_t total = here * (warmUps.Get() + 1);
    m_progress = std::make_shared<ProgressReporter>(*m_progressOs, m_progressProgram, total);
    m_progress->SetQuiet(10);
    m_progress->SetHeartbeat(60);
    std::shared_ptr<ProgressReporter> progress = m_progress;
    auto arrived = std::make_shared<uint64_t>(0);
    m_controller->TraceConnectWithoutContext(
        "TransferFinished",
        Callback<void, uint32_t>([progress, arrived, total](uint32_t) {
            std::ostringstream what;
            what << "transfers arrived, " << std::fixed << std::setprecision(3)
                 << Simulator::Now().GetSeconds() * 1e3 << " ms simulated";
            progress->Begin(what.str());
            if (++*arrived == total)
            {
                progress->SetHeartbeat(0); // the run is over: no more "still running"
            }
        }));
}

Ptr<AllReduceController>
AllReduceHelper::GetController() const
{
    return m_controller;
}

Ptr<LinkLoadMonitor>
AllReduceHelper::GetLinkLoadMonitor() const
{
    return m_monitor;
}

Ptr<PathRecorder>
AllReduceHelper::GetPathRecorder() const
{
    return m_paths;
}

std::vector<uint32_t>
AllReduceHelper::GetTakenPath(uint32_t workload) const
{
    if (!m_controller)
    {
        throw std::logic_error("AllReduceHelper::GetTakenPath needs Install first");
    }
    const Workload& w = m_controller->GetWorkloads().Get(workload);
    if (!m_paths)
    {
        return w.path.ToVector(); // the module's routes pin each transfer to its workload's path
    }
    return m_paths->GetPath({m_controller->GetAddress(w.src),
                             m_controller->GetSourcePort(workload),
                             m_controller->GetAddress(w.dst),
                             m_controller->GetPort(w.dst)});
}

WorkloadSet
AllReduceHelper::GetTakenWorkloads() const
{
    if (!m_controller)
    {
        throw std::logic_error("AllReduceHelper::GetTakenWorkloads needs Install first");
    }
    WorkloadSet taken = m_controller->GetWorkloads();
    for (uint32_t w = 0; w < taken.GetN(); ++w)
    {
        std::vector<uint32_t> path = GetTakenPath(w);
        if (!path.empty() && path.front() == taken.Get(w).src && path.back() == taken.Get(w).dst)
        {
            taken.SetPath(w, std::move(path));
        }
    }
    return taken;
}

} // namespace ns3
