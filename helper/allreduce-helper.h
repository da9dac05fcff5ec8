/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_HELPER_H
#define NS3_ALLREDUCE_ALLREDUCE_HELPER_H

#include "dcn-topology-helper.h"

#include "ns3/allreduce-application.h"
#include "ns3/allreduce-controller.h"
#include "ns3/allreduce-scheduler.h"
#include "ns3/application-container.h"
#include "ns3/job-view.h"
#include "ns3/link-load-monitor.h"
#include "ns3/object-factory.h"
#include "ns3/path-recorder.h"
#include "ns3/plan.h"
#include "ns3/progress-reporter.h"

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce AllReduce
 * AllReduce in data-center networks (doc/allreduce.rst): topologies as ns-3 networks,
 * AllReduce cut into workloads and scheduled in rounds behind one scheduler hook, checked by a
 * validator and against lower bounds, and run packet by packet with real data. Its subsystems,
 * in dependency order: allreduce-common, allreduce-topology, allreduce-workload,
 * allreduce-flow, allreduce-schedule, allreduce-schedulers, then the leaves allreduce-learning,
 * allreduce-cluster, allreduce-msccl and allreduce-packet; the helpers (DcnTopologyHelper,
 * AllReduceHelper, BackgroundTrafficHelper) wire them into ns-3.
 */

/**
 * \ingroup allreduce
 * Installs a packet-level AllReduce on a network built by DcnTopologyHelper, in the shape of
 * ns-3's application helpers: one AllReduceApplication per server and per aggregating switch
 * (Topology::IsAggregator: it adds what its children send and sends the sum on), one
 * AllReduceController, and the flow routes that make each transfer take its workload's path
 * (installed by the controller as connections open and paths change). Installed
 * with a scheduler, the scheduler decides online inside the simulation and routes around
 * links that go down (DcnTopologyHelper::SetLinkUp); installed with a plan, the plan is
 * replayed.
 * \code
 *   DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
 *   dcn.Install();
 *   AllReduceHelper allreduce(dcn);
 *   allreduce.SetControllerAttribute("Mode", StringValue("async"));
 *   allreduce.SetControllerAttribute("GradientBytes", UintegerValue(1 << 20));
 *   ApplicationContainer apps = allreduce.Install(CreateScheduler("greedy"));
 *   Simulator::Schedule(MicroSeconds(300), &DcnTopologyHelper::SetLinkUp, &dcn, 4, false);
 *   Simulator::Run();
 *   AllReduceVerification v = allreduce.GetController()->Verify();
 * \endcode
 * The DcnTopologyHelper must outlive the simulation (the controller hears from it when links
 * go down or up, and asks it which links are up when it reports a stall).
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
     * \param plan workloads and schedule, for the network's topology; the controller keeps
     *        them for the run (move a plan in that you do not need afterwards: a large plan is
     *        then held once)
     * \return the applications, server i's at index i (then the aggregating switches', in
     *         node order)
     * \throws std::invalid_argument when the plan's topology is not the network's, its schedule
     *         is not valid, or the gradient cannot be split (see AllReduceController::Setup)
     */
    ApplicationContainer Install(Plan plan);
    /**
     * \param workloads the workloads \param schedule their rounds
     * \return the applications, server i's at index i (then the aggregating switches', in
     *         node order)
     * \throws std::invalid_argument as Install(Plan)
     */
    ApplicationContainer Install(const WorkloadSet& workloads, const Schedule& schedule);

    /**
     * Installs the applications and a controller whose scheduler decides online. When the
     * network uses its own routing (DcnTopologyHelper::UseNetworkRouting), each workload's
     * path is replaced by the one the routing gives (DcnTopologyHelper::FollowNetworkRouting).
     * \param scheduler the scheduler
     * \param workloads the workloads it schedules, for the network's topology (kept by the
     *        controller, as Install(Plan) keeps a plan's)
     * \return the applications, server i's at index i (then the aggregating switches', in
     *         node order)
     * \throws std::invalid_argument as Install(Plan), or what the scheduler's Prepare throws
     */
    ApplicationContainer Install(Ptr<AllReduceScheduler> scheduler, WorkloadSet workloads);
    /**
     * Installs an online scheduler on the workloads it makes for the network
     * (AllReduceScheduler::MakeWorkloads).
     * \param scheduler the scheduler \param pieces pieces per chunk
     * \return the applications, server i's at index i (then the aggregating switches', in
     *         node order)
     */
    ApplicationContainer Install(Ptr<AllReduceScheduler> scheduler, uint32_t pieces = 1);

    /**
     * Installs one job of a shared cluster (doc/allreduce.rst, "Several jobs"): applications on
     * the job's servers only, and a controller whose scheduler decides online on the job's
     * view; each workload's flow route follows its view path mapped to the cluster. No link
     * counters are attached (the controller sees other jobs through its SharedLinks attribute,
     * when set). Give each job's applications their own Port, so that jobs placed on the same
     * servers one after another never share a connection's ports.
     * \param view the job's view of the network's topology
     * \param scheduler the job's scheduler
     * \param workloads its workloads, on the view
     * \return the applications, the job's server i's at index i
     * \throws std::invalid_argument when the view is not of the network's topology, or as
     *         Install(Plan)
     */
    ApplicationContainer InstallJob(const JobView& view,
                                    Ptr<AllReduceScheduler> scheduler,
                                    const WorkloadSet& workloads);

    /**
     * Shows the progress of the AllReduce on os (doc/allreduce.rst, "Progress"), from the next
     * Install on, or from the last one when called after it: while a scheduler plans (Install
     * with a scheduler), a line every 10 s once it has taken 10 s; while the simulator runs, a
     * line per 10 s of wall-clock time at most, so none in a short run, with the transfers
     * arrived of all (the warm-ups' included; in a distributed run, on rank 0 only, those
     * that arrive on its nodes), the simulated time, the time elapsed and an estimate of the
     * time left, and a line a minute while none arrives:
     * \code
     *   allreduce-simple: [812/16256] transfers arrived, 1.204 ms simulated; 10 s elapsed, about 3 min 10 s left
     * \endcode
     * \param os where the lines go (std::cerr) \param program the name each line starts with
     */
    void EnableProgress(std::ostream& os, const std::string& program);

    /// \return the controller of the last Install
    Ptr<AllReduceController> GetController() const;
    /// \return the device counters of the last Install: per directed link, the AllReduce's
    ///         bytes and other traffic's
    Ptr<LinkLoadMonitor> GetLinkLoadMonitor() const;
    /// \return the paths read from the simulation, when the network uses its own routing
    ///         (DcnTopologyHelper::UseNetworkRouting); null otherwise
    Ptr<PathRecorder> GetPathRecorder() const;
    /**
     * \param workload a workload of the last Install
     * \return the model node ids its transfer took: read from the simulation when the network
     *         uses its own routing (empty while no packet of it was seen), otherwise the
     *         workload's path, to which the module's routes pin it
     * \throws std::logic_error before Install
     */
    std::vector<uint32_t> GetTakenPath(uint32_t workload) const;
    /**
     * The last Install's workloads along the paths their transfers took (GetTakenPath; a
     * workload whose transfer was not seen keeps its path): the flow-level model of what
     * happened, e.g. for RunRounds, when the network's routing chose other paths than the
     * workloads' (per-flow ECMP).
     * \return the workloads
     * \throws std::logic_error before Install
     */
    WorkloadSet GetTakenWorkloads() const;

  private:
    /**
     * Creates the applications and the controller, sets the controller up with setup (which
     * throws before anything is added to the network), then installs them and the routes; on
     * a job's view (view not null) on its servers, without link counters.
     */
    ApplicationContainer DoInstall(
        const WorkloadSet& workloads,
        const JobView* view,
        const std::function<void(AllReduceController&,
                                 const std::vector<Ptr<AllReduceApplication>>&,
                                 const std::vector<Ipv4Address>&)>& setup);

    /**
     * Routes the controller's transfers: the module's flow routes (and rerouting around links
     * that go down), or none when the network uses its own routing; on a network the user
     * built, a PathRecorder reads the paths taken.
     * \param controller the controller, set up \param view a job's view, or null
     */
    void Route(Ptr<AllReduceController> controller, const JobView* view);
    /**
     * Distributed (the controller's Distributed attribute): installs, before the run, the
     * flow route of every connection and of every pair of nodes that exchange notices.
     * \param controller the controller, set up
     */
    void RouteDistributed(Ptr<AllReduceController> controller);
    /// With EnableProgress and a controller: a ProgressReporter fed by its TransferFinished.
    void WatchTransfers();
    /// Throws std::invalid_argument, saying why, when the network uses its own routing.
    void RefuseWithNetworkRouting(const std::string& why) const;
    /**
     * Refuses an application Protocol (socket factory) that a node to run an application
     * lacks (RDMA's is on a node only with UseLosslessEthernet or RdmaHelper).
     * \param servers the network's servers that run one \param here whether a node is this
     *        rank's (a distributed run installs only its own)
     * \throws std::invalid_argument naming the node and what to do
     */
    void RefuseMissingProtocol(const std::vector<uint32_t>& servers,
                               const std::function<bool(uint32_t)>& here) const;

    DcnTopologyHelper& m_network;     //!< the network
    ObjectFactory m_appFactory;       //!< makes the applications
    ObjectFactory m_controllerFactory; //!< makes the controller
    Ptr<AllReduceController> m_controller; //!< the last controller
    Ptr<LinkLoadMonitor> m_monitor;        //!< the last controller's link counters
    Ptr<PathRecorder> m_paths;             //!< the last Install's paths, with network routing
    std::ostream* m_progressOs{nullptr};          //!< EnableProgress's stream, or null
    std::string m_progressProgram;                //!< EnableProgress's program name
    std::shared_ptr<ProgressReporter> m_progress; //!< the last Install's transfer lines
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_HELPER_H */
