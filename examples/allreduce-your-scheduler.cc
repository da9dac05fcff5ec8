/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Your own AllReduce scheduler, written in your own script with the module alone: a priority
// rule of a few lines, given a TypeId and a short name, then chosen by name like the built-in
// schedulers and run twice: at flow level (the rounds it plans, checked by the validator and
// compared with the lower bounds) and inside ns-3 (it decides at every round of a packet-level
// run, and every server's values are checked against the exact sum).
//
//   allreduce-your-scheduler
//   allreduce-your-scheduler --topology=fattree:k=4
//   allreduce-your-scheduler --scheduler=greedy        (a built-in instead, to compare)
//
// Exit status: 0 when the schedule is valid and every server ends with the exact sum, 1 for bad
// input, 2 otherwise.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("AllReduceYourScheduler");

// The scheduler. PriorityListScheduler does list scheduling: at every decision point (a round
// at flow level, a barrier in ns-3) it takes the ready workloads in priority order, highest
// first (then the lowest id), and starts each one whose directed links are all free. A rule
// only says the priorities, once per AllReduce, in ComputePriorities.
//
// "Hot links": the built-in greedy rule (the longest chain of workloads waiting on it first,
// then the longest path) with one more tie-break between the two: the workload whose path
// crosses the most loaded directed link (the one the most workloads must cross), so that the
// links that bound the rounds from below are not left idle.
class HotLinksScheduler : public PriorityListScheduler
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("HotLinksScheduler")
                                .SetParent<PriorityListScheduler>()
                                .SetGroupName("AllReduce")
                                .AddConstructor<HotLinksScheduler>();
        return tid;
    }

    std::string GetName() const override
    {
        return "hot-links"; // the name its schedules carry
    }

  protected:
    std::vector<uint64_t> ComputePriorities(const WorkloadSet& workloads) override
    {
        const std::vector<uint32_t> load = workloads.GetLinkLoads(); // per directed link
        std::vector<uint64_t> priority(workloads.GetN());
        for (uint32_t id = 0; id < workloads.GetN(); ++id)
        {
            const Workload& w = workloads.Get(id);
            uint64_t hottest = 0;
            for (uint32_t link : w.links)
            {
                hottest = std::max<uint64_t>(hottest, load[link]);
            }
            // Three keys in one number: chain height, hottest link, path length.
            priority[id] = (uint64_t{workloads.GetHeight(id)} << 32) |
                           (std::min<uint64_t>(hottest, 0xffff) << 16) |
                           std::min<uint64_t>(w.links.size(), 0xffff);
        }
        return priority;
    }
};

// Register the TypeId with ns-3 (CreateScheduler("HotLinksScheduler") then finds it), and
// give it a short name beside the built-ins (CreateScheduler("hot-links"), listed after them).
NS_OBJECT_ENSURE_REGISTERED(HotLinksScheduler);
static const SchedulerRegistration g_hotLinks(
    "hot-links",
    HotLinksScheduler::GetTypeId(),
    "greedy with the most loaded link as a tie-break (allreduce-your-scheduler.cc)",
    100);

int
main(int argc, char* argv[])
{
    std::string topology = "bcube:n=3,k=1";
    std::string scheduler = "hot-links";
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology spec, e.g. bcube:n=3,k=1 or fattree:k=4", topology);
    cmd.AddValue("scheduler",
                 "hot-links (this file's), or a built-in: greedy, balanced, ...",
                 scheduler);
    try
    {
        ParseCheckedCommandLine(cmd,
                                argc,
                                argv,
                                {"ns3::PointToPointNetDevice::DataRate",
                                 "ns3::PointToPointChannel::Delay",
                                 "ns3::AllReduceController::Mode",
                                 "ns3::AllReduceController::GradientBytes"});

        // 1. Flow level: the scheduler, created by its name, plans every round (one piece per
        //    chunk); the validator replays the data through the rounds, and the lower bounds
        //    say how far from the fewest rounds the plan can be.
        const Topology net = RunWithHeartbeat(std::cerr,
                                              "allreduce-your-scheduler",
                                              "building " + topology,
                                              [&topology] { return BuildTopology(topology); });
        const Plan plan = CreateScheduler(scheduler)->MakePlan(net, 1);
        const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
        const RoundBounds bounds = ComputeBounds(plan.workloads);
        std::cout << net.GetName() << ", " << scheduler << "\n"
                  << "flow level  " << plan.schedule.GetNRounds() << " rounds for "
                  << plan.workloads.GetN() << " workloads, "
                  << (check.valid ? "valid" : "not valid: " + check.error) << "\n"
                  << "bounds      bandwidth " << bounds.bandwidth << ", busiest link "
                  << bounds.links << ", longest chain " << bounds.path << ": rounds / largest = "
                  << static_cast<double>(plan.schedule.GetNRounds()) / bounds.GetMax() << "\n";

        // 2. Packet level: the same rule decides inside ns-3, at every barrier, what the
        //    controller sees (what is done, which links are busy); 1 MiB of float32 values.
        DcnTopologyHelper dcn(net);
        dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("1us"));
        dcn.Install();
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(1 << 20));
        // A long run says how far it got on stderr (a line per 10 s at most).
        allreduce.EnableProgress(std::cerr, "allreduce-your-scheduler");
        allreduce.Install(CreateScheduler(scheduler));
        Simulator::Run();

        Ptr<AllReduceController> controller = allreduce.GetController();
        const AllReduceRunResult& result = controller->GetResult();
        const AllReduceVerification verification = controller->Verify();
        std::cout << "ns-3        " << controller->GetSchedule().GetNRounds() << " rounds, "
                  << result.completionTime * 1e3 << " ms"
                  << (result.finished ? "" : " (did not finish: " + result.error + ")") << "\n"
                  << verification.message << "\n";
        Simulator::Destroy();
        return check.valid && result.finished && verification.verified ? 0 : 2;
    }
    catch (const std::exception& e)
    {
        // A bad spec or scheduler name says why (the list of names includes hot-links).
        std::cerr << "allreduce-your-scheduler: error: " << DescribeError(e) << "\n";
        Simulator::Destroy();
        return 1;
    }
}
