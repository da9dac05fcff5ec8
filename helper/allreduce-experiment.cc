/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-experiment.h"

#include "allreduce-helper.h"
#include "checked-command-line.h"
#include "dcn-topology-helper.h"

#include "ns3/data-rate.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceExperiment");

namespace
{

/// Adds a transmitted packet's size to a directed link's count.
void
CountBytes(uint64_t* bytes, Ptr<const Packet> packet)
{
    *bytes += packet->GetSize();
}

/// \return the value parsed by an ns-3 attribute type, or throws naming the option
template <typename V>
V
ParseAttribute(const std::string& what, const std::string& text)
{
    V value;
    Ptr<const AttributeChecker> checker = MakeStringChecker();
    if (!value.DeserializeFromString(text, checker))
    {
        throw std::invalid_argument(what + " '" + text + "' is not valid");
    }
    return value;
}

/// Refuses an output prefix where no file can be made, before ns-3 aborts on it: tries one.
void
CheckWritable(const std::string& what, const std::string& prefix)
{
    const std::string probe = prefix + "-write-check";
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno != EEXIST)
    {
        const std::filesystem::path dir = std::filesystem::path(prefix).parent_path();
        throw std::invalid_argument("cannot write " + what + " to '" +
                                    (dir.empty() ? std::string(".") : dir.string()) +
                                    "': " + std::strerror(errno));
    }
    if (fd >= 0)
    {
        close(fd);
        unlink(probe.c_str());
    }
}

} // namespace

std::vector<double>
PacketRunReport::GetLinkUtilization() const
{
    std::vector<double> out(linkBytes.size(), 0.0);
    const double capacity = dataRateBps * result.completionTime;
    for (size_t i = 0; i < linkBytes.size() && capacity > 0; ++i)
    {
        out[i] = linkBytes[i] * 8.0 / capacity;
    }
    return out;
}

namespace
{

/// The link rate and delay of a checked configuration.
struct LinkSettings
{
    DataRate rate; //!< every link's rate
    Time delay;    //!< every link's delay
};

/**
 * Checks every option of a run before anything is built.
 * \param config the configuration
 * \param topo the topology it runs on
 * \return the parsed link settings
 * \throws std::invalid_argument naming the option that is wrong
 */
LinkSettings
CheckPacketRunConfig(const PacketRunConfig& config, const Topology& topo)
{
    if (config.mode != "barrier" && config.mode != "async")
    {
        throw std::invalid_argument("mode must be barrier or async, got '" + config.mode + "'");
    }
    if (config.values != "integer" && config.values != "float")
    {
        throw std::invalid_argument("values must be integer or float, got '" + config.values +
                                    "'");
    }
    LinkSettings link;
    link.rate = ParseAttribute<DataRateValue>("data rate", config.dataRate).Get();
    // ns-3's own Time parser aborts on a bad unit: ours throws.
    link.delay = ParseTimeValue("delay", config.delay);
    if (link.rate.GetBitRate() == 0)
    {
        throw std::invalid_argument("data rate must be above 0, got '" + config.dataRate + "'");
    }
    if (link.delay.IsNegative())
    {
        throw std::invalid_argument("delay must not be negative, got '" + config.delay + "'");
    }
    if (config.linkDown >= 0 && !(config.linkDownAt >= 0))
    {
        throw std::invalid_argument("the time a link goes down must not be negative");
    }
    if (!(config.stallTimeout > 0))
    {
        throw std::invalid_argument("stall timeout must be above 0 s");
    }
    if (config.linkDown < -1 || config.linkDown >= static_cast<int64_t>(topo.GetNLinks()))
    {
        throw std::invalid_argument("link " + std::to_string(config.linkDown) +
                                    " does not exist: give a link 0.." +
                                    std::to_string(topo.GetNLinks() - 1) + ", or -1 for none");
    }
    if (!config.pcapPrefix.empty())
    {
        CheckWritable("pcap traces", config.pcapPrefix);
    }
    return link;
}

/**
 * Counts the bytes every device puts on its directed link.
 * \param dcn the installed network
 * \param[out] bytes per directed link, kept up to date while the simulation runs
 */
void
CountLinkBytes(const DcnTopologyHelper& dcn, std::vector<uint64_t>& bytes)
{
    const uint32_t links = dcn.GetTopology().GetNLinks();
    bytes.assign(2 * links, 0);
    for (uint32_t link = 0; link < links; ++link)
    {
        const NetDeviceContainer devices = dcn.GetLinkDevices(link);
        for (uint32_t end = 0; end < 2; ++end)
        {
            // The device at end a transmits on directed link 2i (a->b), end b on 2i+1.
            devices.Get(end)->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeBoundCallback(&CountBytes, &bytes[2 * link + end]));
        }
    }
}

/**
 * Reads FlowMonitor's statistics per workload (flows it cannot match to a workload are TCP's
 * acknowledgements, only counted).
 * \param monitor the monitor, after the run
 * \param classifier its classifier
 * \param plan the plan that ran
 * \param dcn the network
 * \param controller the controller (its source port per workload)
 * \param[in,out] report gets flows and ackFlows
 */
void
CollectFlowReports(Ptr<FlowMonitor> monitor,
                   Ptr<Ipv4FlowClassifier> classifier,
                   const Plan& plan,
                   const DcnTopologyHelper& dcn,
                   Ptr<AllReduceController> controller,
                   PacketRunReport& report)
{
    monitor->CheckForLostPackets();
    std::map<std::pair<uint32_t, uint16_t>, uint32_t> byPort; // (src address, port) -> w
    for (uint32_t w = 0; w < plan.workloads.GetN(); ++w)
    {
        byPort[{dcn.GetServerAddress(plan.workloads.Get(w).src).Get(),
                controller->GetSourcePort(w)}] = w;
    }
    for (const auto& [id, stats] : monitor->GetFlowStats())
    {
        const Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(id);
        const auto it = byPort.find({t.sourceAddress.Get(), t.sourcePort});
        if (it == byPort.end())
        {
            ++report.ackFlows;
            continue;
        }
        FlowReport f;
        f.workload = it->second;
        f.src = plan.workloads.Get(f.workload).src;
        f.dst = plan.workloads.Get(f.workload).dst;
        f.txBytes = stats.txBytes;
        f.rxBytes = stats.rxBytes;
        f.txPackets = stats.txPackets;
        f.rxPackets = stats.rxPackets;
        // Packets dropped on a link (RateErrorModel, a down interface) never reach IP at the
        // next hop, so FlowMonitor's own lost count misses them: count what never arrived.
        f.lostPackets = stats.txPackets > stats.rxPackets ? stats.txPackets - stats.rxPackets : 0;
        f.meanDelay = stats.rxPackets ? stats.delaySum.GetSeconds() / stats.rxPackets : 0;
        f.duration = (stats.timeLastRxPacket - stats.timeFirstTxPacket).GetSeconds();
        report.flows.push_back(f);
    }
    std::sort(report.flows.begin(), report.flows.end(), [](const auto& a, const auto& b) {
        return a.workload < b.workload;
    });
}

} // namespace

PacketRunReport
RunPacketAllReduce(const Plan& plan, const PacketRunConfig& config)
{
    const Topology& topo = plan.workloads.GetTopology();
    const LinkSettings link = CheckPacketRunConfig(config, topo);
    DcnTopologyHelper dcn(topo);
    dcn.SetDeviceAttribute("DataRate", DataRateValue(link.rate));
    dcn.SetChannelAttribute("Delay", TimeValue(link.delay));
    AllReduceHelper allreduce(dcn);
    allreduce.SetAttribute("Seed", UintegerValue(config.seed));
    allreduce.SetAttribute("Values", StringValue(config.values));
    allreduce.SetControllerAttribute("Mode", StringValue(config.mode));
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(config.gradientBytes));
    allreduce.SetControllerAttribute("StallTimeout", TimeValue(Seconds(config.stallTimeout)));
    try
    {
        dcn.Install();
        if (config.loss != 0)
        {
            dcn.SetPacketLoss(config.loss, config.lossStream); // checks the rate
        }
        allreduce.Install(plan);
    }
    catch (...)
    {
        Simulator::Destroy(); // the nodes built so far
        throw;
    }
    Ptr<AllReduceController> controller = allreduce.GetController();

    PacketRunReport report;
    CountLinkBytes(dcn, report.linkBytes);
    if (config.linkDown >= 0)
    {
        Simulator::Schedule(Seconds(config.linkDownAt),
                            &DcnTopologyHelper::SetLinkUp,
                            &dcn,
                            static_cast<uint32_t>(config.linkDown),
                            false);
    }
    if (!config.pcapPrefix.empty())
    {
        dcn.EnablePcapAll(config.pcapPrefix);
    }
    FlowMonitorHelper flowHelper;
    Ptr<FlowMonitor> monitor;
    if (config.flowMonitor)
    {
        monitor = flowHelper.Install(dcn.GetNodes());
    }

    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    report.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    report.events = Simulator::GetEventCount();

    report.result = controller->GetResult();
    report.verification = controller->Verify();
    report.dataRateBps = static_cast<double>(link.rate.GetBitRate());
    report.pieceTime =
        controller->GetLayout().GetMaxPieceSize() * sizeof(float) * 8.0 / report.dataRateBps;
    report.predictedTime = plan.schedule.GetNRounds() * report.pieceTime;
    if (config.linkDown >= 0 && config.linkDownAt > Simulator::Now().GetSeconds())
    {
        report.notes.push_back("link " + std::to_string(config.linkDown) +
                               " never went down: the run ended at " +
                               std::to_string(Simulator::Now().GetSeconds()) +
                               " s, before the time asked for (" +
                               std::to_string(config.linkDownAt) + " s)");
    }
    if (monitor)
    {
        CollectFlowReports(monitor,
                           DynamicCast<Ipv4FlowClassifier>(flowHelper.GetClassifier()),
                           plan,
                           dcn,
                           controller,
                           report);
    }
    Simulator::Destroy();
    return report;
}

} // namespace ns3
