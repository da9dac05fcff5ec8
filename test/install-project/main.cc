/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// A program built against the installed module (test/install-project/CMakeLists.txt, or
// `g++ main.cc $(pkg-config --cflags --libs ns3-allreduce)`): BCube(3,1) as an ns-3 network,
// the packet-level AllReduce with a scheduler chosen by name, run, and every server's values
// checked against the exact sum.
//
//   allreduce-installed [--scheduler=balanced|drl|...]
//
// Exit status: 0 when every server ends with the exact sum (compared for equality), 1 for bad
// input or a scheduler this build cannot run, 2 otherwise.

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <iostream>
#include <stdexcept>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string scheduler = "balanced";
    CommandLine cmd(__FILE__);
    cmd.AddValue("scheduler", "ps, ring, greedy, balanced, drl (with LibTorch), ...", scheduler);
    cmd.Parse(argc, argv);

    try
    {
        DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
        dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        dcn.SetChannelAttribute("Delay", StringValue("1us"));
        dcn.Install();

        // Integer-valued float32 gradients, whose sums float32 holds exactly.
        AllReduceHelper allreduce(dcn);
        allreduce.SetAttribute("Values", StringValue("integer"));
        allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(256 << 10));
        Ptr<AllReduceScheduler> chosen = CreateScheduler(scheduler);
        allreduce.Install(chosen);

        Simulator::Run();
        Ptr<AllReduceController> controller = allreduce.GetController();
        const AllReduceRunResult& result = controller->GetResult();
        const AllReduceVerification verification = controller->Verify();
        std::cout << dcn.GetTopology().GetName() << ", " << chosen->GetName()
                  << ", barrier, 256 KiB\n"
                  << "rounds      " << controller->GetSchedule().GetNRounds() << "\n"
                  << "completion  " << result.completionTime * 1e3 << " ms"
                  << (result.finished ? "" : " (did not finish: " + result.error + ")") << "\n";
        if (Ptr<DrlScheduler> drl = DynamicCast<DrlScheduler>(chosen))
        {
            // Which checkpoint drl loaded, and from which of the folders it looks in.
            std::cout << "model       " << drl->GetDecoding().DescribeModel() << "\n";
        }
        std::cout << verification.message << "\n";
        Simulator::Destroy();
        return result.finished && verification.verified && verification.exact ? 0 : 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "allreduce-installed: error: " << e.what() << "\n";
        Simulator::Destroy();
        return 1;
    }
}
