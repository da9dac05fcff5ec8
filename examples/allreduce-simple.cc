/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A first AllReduce in ns-3, using the module alone (no experiment layer): build a data-center
// topology as an ns-3 network, install the packet-level AllReduce with a scheduler that decides
// inside the simulation, run it, and check every server's values against the exact sum.
//
//   allreduce-simple
//   allreduce-simple --topology=dcell:n=4,k=1 --scheduler=greedy
//   NS_LOG=AllReduceSimple=info allreduce-simple
//   allreduce-simple --netanim=bcube.xml      (an animation for NetAnim, small topologies)
//
// Copy it into scratch/ of an ns-3 tree that has contrib/allreduce, and change a line.
//
// Exit status: 0 when every server ends with the exact sum, 1 for bad input, 2 otherwise.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <stdexcept>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("AllReduceSimple");

int
main(int argc, char* argv[])
{
    std::string topology = "bcube:n=3,k=1";
    std::string scheduler = "balanced";
    std::string netanim;
    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology spec, e.g. bcube:n=3,k=1 or fattree:k=4", topology);
    cmd.AddValue("scheduler", "ps, ring, greedy, balanced, drl (with LibTorch), ...", scheduler);
    cmd.AddValue("netanim",
                 "write a NetAnim animation trace to this file (small topologies)",
                 netanim);
    try
    {
        // ns-3's CommandLine, with every argument checked first (ns-3's own attributes and
        // global values too); the attributes this program sets below are refused, not ignored.
        ParseCheckedCommandLine(cmd,
                                argc,
                                argv,
                                {"ns3::PointToPointNetDevice::DataRate",
                                 "ns3::PointToPointChannel::Delay",
                                 "ns3::AllReduceController::Mode",
                                 "ns3::AllReduceController::GradientBytes"});

        // 1. The network: one node per server and switch, a point-to-point link per topology
        //    link, the internet stack, addresses, and routes along the flow trees. A spec
        //    that takes long to build says so on stderr (a line per 10 s after 10 s).
        DcnTopologyHelper dcn(RunWithHeartbeat(std::cerr, "allreduce-simple", "building " + topology,
                                               [&topology] { return BuildTopology(topology); }));
        dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("1us"));
        dcn.Install();
        NS_LOG_INFO("built " << dcn.GetTopology().GetName() << ": "
                             << dcn.GetTopology().GetNServers() << " servers, "
                             << dcn.GetNodes().GetN() << " nodes");

        // 2. The AllReduce: an application on every server, a controller whose scheduler
        //    decides each round inside the simulation; 1 MiB of float32 values per server.
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(1 << 20));
        // A long run says how far it got on stderr (a line per 10 s at most).
        allreduce.EnableProgress(std::cerr, "allreduce-simple");
        allreduce.Install(CreateScheduler(scheduler));

        // Optional: an animation trace for NetAnim (nodes in rows, every packet sent).
        DcnAnimationHelper animation;
        if (!netanim.empty())
        {
            animation.Enable(dcn, netanim);
        }

        // 3. Run, then read the result and verify every server's vector.
        Simulator::Run();
        const std::string trace = animation.Close(); // the file, checked whole; "" without one
        Ptr<AllReduceController> controller = allreduce.GetController();
        const AllReduceRunResult& result = controller->GetResult();
        const AllReduceVerification verification = controller->Verify();
        std::cout << dcn.GetTopology().GetName() << ", " << scheduler << ", barrier, 1 MiB\n"
                  << "rounds      " << controller->GetSchedule().GetNRounds() << "\n"
                  << "completion  " << result.completionTime * 1e3 << " ms"
                  << (result.finished ? "" : " (did not finish: " + result.error + ")") << "\n"
                  << verification.message << "\n";
        if (!trace.empty())
        {
            std::cout << "animation   " << trace << "\n";
        }
        Simulator::Destroy();
        return result.finished && verification.verified ? 0 : 2;
    }
    catch (const std::exception& e)
    {
        // A bad spec or scheduler name, or a scheduler this build cannot run, says why.
        std::cerr << "allreduce-simple: error: " << DescribeError(e) << "\n";
        Simulator::Destroy();
        return 1;
    }
}
