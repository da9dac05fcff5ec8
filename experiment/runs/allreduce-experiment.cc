/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "allreduce-experiment.h"

#include "checked-command-line.h"

#include "ns3/allreduce-helper.h"
#include "ns3/background-traffic-helper.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/dcn-animation-helper.h"
#include "ns3/dcn-topology-helper.h"
#include "ns3/double.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/quantity.h"
#include "ns3/queue-size.h"
#include "ns3/rdma-socket-factory.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/text-file.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <cctype>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tinyxml2.h>
#include <unordered_map>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AllReduceExperiment");

namespace
{

/// The first random stream of the background traffic's pairs.
constexpr int64_t BACKGROUND_STREAMS = int64_t{1} << 40;

/// Refuses an output prefix where no file can be made, before ns-3 aborts on it: tries one.
void
CheckWritable(const std::string& what, const std::string& prefix)
{
    const std::string why = ProbeWritable(prefix);
    if (!why.empty())
    {
        const std::filesystem::path dir = std::filesystem::path(prefix).parent_path();
        throw std::invalid_argument("cannot write " + what + " to '" +
                                    (dir.empty() ? std::string(".") : dir.string()) +
                                    "': " + why);
    }
}

} // namespace

std::vector<LinkDownEvent>
ParseLinkDowns(const std::vector<std::string>& links, const std::vector<std::string>& times)
{
    if (!times.empty() && times.size() != links.size())
    {
        throw std::invalid_argument("--link-down-at is given " + std::to_string(times.size()) +
                                    (times.size() == 1 ? " time" : " times") + " for " +
                                    std::to_string(links.size()) +
                                    " --link-down; give one time per link, in the same order "
                                    "(or none: at 0)");
    }
    std::vector<LinkDownEvent> out;
    for (size_t i = 0; i < links.size(); ++i)
    {
        uint64_t link = 0;
        if (!ParseWholeNumber(links[i], UINT32_MAX, link))
        {
            throw std::invalid_argument("--link-down must be a topology link index (a whole "
                                        "number from 0: dcn-topology --write=FILE lists the "
                                        "links in order, one 'link A B' line each), got '" +
                                        Abbreviate(links[i]) + "'");
        }
        if (std::count(links.begin(), links.begin() + i, links[i]) > 0)
        {
            throw std::invalid_argument("--link-down gives link " + links[i] + " twice; a link "
                                        "goes down once");
        }
        LinkDownEvent down;
        down.link = static_cast<uint32_t>(link);
        down.at = times.empty() ? 0.0 : ParsePacketTime("--link-down-at", times[i]).GetSeconds();
        out.push_back(down);
    }
    return out;
}

Time
ParsePacketTime(const std::string& subject, const std::string& text)
{
    const int64_t ns = Quantity::ParseTimeNs(subject, text);
    if (ns > MAX_PACKET_TIME_NS)
    {
        throw std::invalid_argument(
            subject + " is later than a packet-level run can reach: at most 1e6s (ns-3's timers, "
            "such as FlowMonitor's, tick about once a simulated second, so 1e6 s already takes "
            "a million events), got '" + Abbreviate(text) + "'");
    }
    return NanoSeconds(ns);
}

std::string
FormatExactSeconds(Time t)
{
    const int64_t ns = t.GetNanoSeconds();
    std::string fraction = std::to_string(1000000000 + ns % 1000000000).substr(1);
    fraction.erase(fraction.find_last_not_of('0') + 1);
    return std::to_string(ns / 1000000000) + (fraction.empty() ? "" : "." + fraction);
}

std::string
FormatQueueSize(const QueueSize& size)
{
    std::ostringstream os;
    os << size;
    return os.str();
}

std::string
SlowLinksSpecOptions(const std::string& spec, uint32_t seed)
{
    const size_t colon = spec.find(':');
    const std::string fraction = spec.substr(0, colon);
    const std::string factor = colon == std::string::npos ? "0.5" : spec.substr(colon + 1);
    for (const std::string& number : {fraction, factor})
    {
        double ignored = 0;
        if (!ParseDecimal(number, ignored))
        {
            throw std::invalid_argument("--slow-links '" + spec +
                                        "' is not FRACTION[:FACTOR]; e.g. 0.25:0.5 runs a "
                                        "quarter of the links at half their rate");
        }
    }
    return ",slow=" + fraction + ",slowrate=" + factor + ",slowseed=" + std::to_string(seed);
}

std::string
ChooseDecisions(const std::string& given, const std::string& scheduler)
{
    if (scheduler.empty() || scheduler == "optimal")
    {
        if (given == "online")
        {
            throw std::invalid_argument(
                scheduler.empty() ? "--decisions=online needs a scheduler (--scheduler); a "
                                    "schedule file is replayed"
                                  : "optimal plans offline and replays its plan: use "
                                    "--decisions=replay (its default) or another scheduler");
        }
        return "replay";
    }
    return given.empty() ? "online" : given;
}

StragglerSpec
ParseStragglerSpec(const std::string& spec)
{
    StragglerSpec out;
    if (spec.empty() || spec == "none")
    {
        return out;
    }
    const auto refuse = [&spec](const std::string& why) {
        throw std::invalid_argument(
            "stragglers '" + spec + "' " + why +
            "; write K:DELAY (K servers late by DELAY, e.g. 2:500us), K:exp:MEAN, all:exp:MEAN, "
            "list:T0,T1,... (one time per server) or none");
    };
    const auto seconds = [&refuse](const std::string& text) {
        const Time t = ParsePacketTime("--stragglers", text);
        if (t.IsZero())
        {
            refuse("has a delay of 0, which makes no server late (give a delay above 0, or "
                   "none)");
        }
        return FormatExactSeconds(t);
    };
    if (spec.rfind("list:", 0) == 0)
    {
        for (const std::string& item : ParseListValue("stragglers", spec.substr(5), ',', true))
        {
            out.times.push_back(ParsePacketTime("--stragglers", item));
        }
        return out;
    }
    const size_t colon = spec.find(':');
    if (colon == std::string::npos)
    {
        refuse("is not a straggler spec");
    }
    const std::string who = spec.substr(0, colon);
    const std::string how = spec.substr(colon + 1);
    if (who == "all")
    {
        out.all = true;
    }
    else
    {
        uint64_t count = 0;
        if (!ParseWholeNumber(who, UINT32_MAX, count) || count == 0)
        {
            refuse("does not start with a number of servers (1 or more) or all");
        }
        out.count = static_cast<uint32_t>(count);
    }
    if (how.rfind("exp:", 0) == 0)
    {
        out.delay = "ns3::ExponentialRandomVariable[Mean=" + seconds(how.substr(4)) + "]";
    }
    else if (out.all)
    {
        refuse("gives every server the same delay, which only shifts the run: use all:exp:MEAN");
    }
    else
    {
        out.delay = "ns3::ConstantRandomVariable[Constant=" + seconds(how) + "]";
    }
    return out;
}

std::vector<double>
PacketRunReport::GetLinkUtilization() const
{
    std::vector<double> out(linkBytes.size(), 0.0);
    for (size_t i = 0; i < linkBytes.size() && i < linkRateBps.size(); ++i)
    {
        const double capacity = linkRateBps[i] * result.completionTime;
        out[i] = capacity > 0 ? linkBytes[i] * 8.0 / capacity : 0.0;
    }
    return out;
}

namespace
{

/// What a checked configuration says, parsed.
struct RunSettings
{
    StragglerSpec stragglers; //!< late gradients
    std::string tcpType;     //!< the TCP congestion control's TypeId name
    std::string queueDisc;   //!< "fq-codel", "red" or "none" ("auto" resolved)
    QueueSize queueSize;     //!< every queue's limit (the queue disc's default when not given)
};

/**
 * \param queueDisc a --queue-disc ("none": the devices' FIFO queue) \param size its limit
 * \return the TypeId name of the queue that holds that limit: fq_codel counts packets, so a
 *         byte limit is a ByteLimitQueueDisc over it
 */
std::string
QueueTypeName(const std::string& queueDisc, const QueueSize& size)
{
    const bool bytes = size.GetUnit() == QueueSizeUnit::BYTES;
    return queueDisc == "red"        ? "ns3::RedQueueDisc"
           : queueDisc != "fq-codel" ? "ns3::DropTailQueue<Packet>"
           : bytes                   ? "ns3::ByteLimitQueueDisc"
                                     : "ns3::FqCoDelQueueDisc";
}

/**
 * Refuses a queue size the queue cannot take. ns-3's queue discs that count in one unit only
 * (fq_codel, fq_pie, fq_cobalt, pfifo_fast: packets) keep a limit of 0 when given another, and
 * a queue of 0 drops every packet: the run then fails far from its cause. Asked of the queue
 * itself, so that any queue type is covered.
 * \param typeName the queue's TypeId name \param size the size asked for
 * \param shown the queue as the user chose it, e.g. "--queue-disc=fq-codel"
 * \throws std::invalid_argument naming --queue-size and what the queue takes
 */
void
CheckQueueTakes(const std::string& typeName,
                const QueueSize& size,
                const std::string& shown)
{
    ObjectFactory factory(typeName);
    const Ptr<Object> queue = factory.Create<Object>();
    QueueSizeValue kept;
    if (queue->SetAttributeFailSafe("MaxSize", QueueSizeValue(size)) &&
        queue->GetAttributeFailSafe("MaxSize", kept) && kept.Get() == size)
    {
        return;
    }
    const bool bytes = size.GetUnit() == QueueSizeUnit::BYTES;
    std::ostringstream os;
    os << "--queue-size=" << size << ": " << shown << " (ns-3's " << typeName
       << ") counts its limit in " << (bytes ? "packets" : "bytes") << " only; give "
       << (bytes ? std::to_string(std::max<uint32_t>(1, size.GetValue() / 1500)) +
                       "p (that many 1500-byte packets)"
                 : std::to_string(uint64_t{size.GetValue()} * 1500) + "B")
       << (bytes ? ", or a queue disc that counts bytes (red, none)" : "");
    throw std::invalid_argument(os.str());
}

/**
 * Sets up the queues and the TCP of the network as the run asks.
 * \param config the run's configuration \param settings its checked settings
 * \param dcn the network, before Install
 */
void
ConfigureTransport(const PacketRunConfig& config, const RunSettings& settings, DcnTopologyHelper& dcn)
{
    if (config.transport == "rdma")
    {
        dcn.UseLosslessEthernet();
        dcn.SetCutThrough(config.switching != "store-and-forward");
        return;
    }
    dcn.SetTcpCongestionControl(settings.tcpType);
    if (settings.queueDisc == "none")
    {
        dcn.DisableTrafficControl();
        if (config.queueSize)
        {
            dcn.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(settings.queueSize));
        }
        return;
    }
    if (settings.queueDisc != "red" && !config.queueSize)
    {
        return; // the helper's default: fq_codel over BQL
    }
    TrafficControlHelper tc;
    if (settings.queueDisc == "red")
    {
        // As ns-3's DCTCP example (examples/tcp/dctcp-example.cc): marking on the instantaneous
        // queue (QW 1) between thresholds set by the link rate, 4 MB of buffer in packets.
        const bool fast = config.dataRate.GetBitRate() >= 10000000000ULL;
        // RED compares its thresholds with the queue in the queue's unit: in bytes, the
        // thresholds are the same numbers of mean-sized packets.
        const double unit = settings.queueSize.GetUnit() == QueueSizeUnit::BYTES ? 1500 : 1;
        tc.SetRootQueueDisc("ns3::RedQueueDisc",
                            "UseEcn", BooleanValue(true),
                            "UseHardDrop", BooleanValue(false),
                            "MeanPktSize", UintegerValue(1500),
                            "QW", DoubleValue(1),
                            "MinTh", DoubleValue((fast ? 50 : 20) * unit),
                            "MaxTh", DoubleValue((fast ? 150 : 60) * unit),
                            "MaxSize", QueueSizeValue(settings.queueSize),
                            "LinkBandwidth", DataRateValue(config.dataRate),
                            "LinkDelay", TimeValue(config.delay));
    }
    else
    {
        tc.SetRootQueueDisc(QueueTypeName(settings.queueDisc, settings.queueSize),
                            "MaxSize",
                            QueueSizeValue(settings.queueSize));
    }
    tc.SetQueueLimits("ns3::DynamicQueueLimits");
    dcn.SetTrafficControl(tc);
}

/**
 * Refuses what RDMA would ignore or cannot do.
 * \param config a configuration with transport rdma
 * \throws std::invalid_argument naming the option
 */
void
CheckRdma(const PacketRunConfig& config)
{
    const auto refuse = [](const std::string& option, const std::string& why) {
        throw std::invalid_argument(option + " does not apply with --transport=rdma: " + why);
    };
    // Any given, the default's name included: RDMA has neither.
    if (!config.tcp.empty())
    {
        refuse("--tcp", "the queue pairs' rate is DCQCN's (--ns3::DcqcnRateControl::...)");
    }
    if (!config.queueDisc.empty())
    {
        refuse("--queue-disc", "lossless ports queue per priority class in a shared buffer "
                               "(--ns3::SharedBuffer::..., --ns3::LosslessNetDevice::...)");
    }
    if (config.queueSize)
    {
        refuse("--queue-size", "the nodes' shared buffers hold the packets "
                               "(--ns3::SharedBuffer::Size)");
    }
    if (config.distributed)
    {
        refuse("--distributed", "lossless links have no MPI channel; run on one process");
    }
    if (!config.pcapPrefix.empty())
    {
        refuse("--pcap", "lossless ports write no pcap traces yet");
    }
}

/**
 * Checks the transport of a run: TCP, queue disc and queue size.
 * \param config the configuration \param[out] settings gets the TCP type, queue disc and size
 * \throws std::invalid_argument naming the option that is wrong
 */
void
CheckTransport(const PacketRunConfig& config, RunSettings& settings)
{
    if (config.transport != "tcp" && config.transport != "rdma")
    {
        throw std::invalid_argument("transport must be tcp or rdma, got '" + config.transport +
                                    "'");
    }
    if (config.transport == "rdma")
    {
        CheckRdma(config);
    }
    else if (!config.switching.empty())
    {
        throw std::invalid_argument("--switching applies with --transport=rdma; TCP's "
                                    "point-to-point links always store and forward");
    }
    const std::map<std::string, std::string> tcpTypes{{"newreno", "ns3::TcpNewReno"},
                                                      {"cubic", "ns3::TcpCubic"},
                                                      {"dctcp", "ns3::TcpDctcp"}};
    const auto tcp = tcpTypes.find(GetTcp(config));
    if (tcp == tcpTypes.end())
    {
        throw std::invalid_argument("tcp must be cubic, newreno or dctcp, got '" + config.tcp +
                                    "'");
    }
    settings.tcpType = tcp->second;
    settings.queueDisc = GetQueueDisc(config);
    if (settings.queueDisc != "fq-codel" && settings.queueDisc != "red" &&
        settings.queueDisc != "none")
    {
        throw std::invalid_argument("queue disc must be auto, fq-codel, red or none, got '" +
                                    config.queueDisc + "'");
    }
    if (config.tcp == "dctcp" && settings.queueDisc != "red")
    {
        throw std::invalid_argument("dctcp needs queues that mark ECN: use the queue disc red "
                                    "(or auto), not " + settings.queueDisc);
    }
    if (config.queueSize)
    {
        settings.queueSize = *config.queueSize;
        CheckQueueTakes(QueueTypeName(settings.queueDisc, settings.queueSize),
                        settings.queueSize,
                        "--queue-disc=" + settings.queueDisc);
    }
    else
    {
        settings.queueSize = QueueSize(settings.queueDisc == "red" ? "2666p" : "10240p");
    }
}

/**
 * Checks that the links down from the start leave every server a path to the others: else the
 * AllReduce cannot finish, and the run would only find out when a transfer stalls.
 * \param downs the links that go down (checked to exist)
 * \param topo the topology
 * \throws std::invalid_argument naming a server cut off and the links that cut it
 */
void
CheckServersReachable(const std::vector<LinkDownEvent>& downs, const Topology& topo)
{
    std::vector<bool> down(topo.GetNLinks(), false);
    std::string atStart;
    for (const LinkDownEvent& event : downs)
    {
        if (event.at == 0 && !down[event.link])
        {
            down[event.link] = true;
            atStart += (atStart.empty() ? "" : ", ") + std::to_string(event.link);
        }
    }
    // Union-find over the links that stay up.
    std::vector<uint32_t> parent(topo.GetNNodes());
    for (uint32_t v = 0; v < parent.size(); ++v)
    {
        parent[v] = v;
    }
    const auto find = [&parent](uint32_t v) {
        while (parent[v] != v)
        {
            v = parent[v] = parent[parent[v]];
        }
        return v;
    };
    for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
    {
        if (!down[link])
        {
            parent[find(topo.GetLink(link).a)] = find(topo.GetLink(link).b);
        }
    }
    for (uint32_t server = 1; server < topo.GetNServers(); ++server)
    {
        if (find(server) != find(0))
        {
            throw std::invalid_argument(
                "--link-down takes link(s) " + atStart + " down at the start, which leaves " +
                "servers 0 and " + std::to_string(server) +
                " no path between them, so the AllReduce cannot finish: "
                "leave each server a path to the others (drop a --link-down, or give it a "
                "later --link-down-at)");
        }
    }
}

/**
 * Checks that every link, once its own rate and slow-down factor apply, is fast enough for
 * packet level (the floor --data-rate has).
 * \param config the configuration
 * \param topo the topology it runs on
 * \throws std::invalid_argument naming the slowest link and where its rate comes from
 */
void
CheckLinkRates(const PacketRunConfig& config, const Topology& topo)
{
    for (uint32_t link = 0; link < topo.GetNLinks(); ++link)
    {
        const LinkProperties p = topo.GetLinkProperties(link);
        const double rate = p.GetRate(static_cast<double>(config.dataRate.GetBitRate()));
        if (rate < MIN_PACKET_RATE_BPS)
        {
            const uint64_t base = p.rateBps != 0 ? p.rateBps : config.dataRate.GetBitRate();
            const TopologyLink& ends = topo.GetLink(link);
            std::ostringstream message;
            message << "link " << link << " (" << ends.a << "-" << ends.b << ") of "
                    << topo.GetName() << " would run at "
                    << Quantity::FormatRate(static_cast<uint64_t>(rate)) << " ("
                    << Quantity::FormatRate(base)
                    << " x a slow-down factor of " << p.rateFactor
                    << "), too slow for packet level: give every link at least 1Mbps (raise "
                       "--slow-links' FACTOR or slowrate=, --data-rate, or the link's rate in "
                       "the file)";
            throw std::invalid_argument(message.str());
        }
    }
}

/**
 * Checks every option of a run before anything is built.
 * \param config the configuration
 * \param topo the topology it runs on
 * \return the parsed settings
 * \throws std::invalid_argument naming the option that is wrong
 */
RunSettings
CheckPacketRunConfig(const PacketRunConfig& config, const Topology& topo)
{
    if (config.mode != "barrier" && config.mode != "async")
    {
        throw std::invalid_argument("mode must be barrier or async, got '" + config.mode + "'");
    }
    if (config.connections != "persistent" && config.connections != "per-transfer")
    {
        throw std::invalid_argument("connections must be persistent or per-transfer, got '" +
                                    config.connections + "'");
    }
    if (config.values != "integer" && config.values != "float")
    {
        throw std::invalid_argument("values must be integer or float, got '" + config.values +
                                    "'");
    }
    if (config.gradientBytes == 0 || config.gradientBytes % 4 != 0)
    {
        throw std::invalid_argument("--gradient-bytes must be a multiple of 4 (the gradient is "
                                    "of 4-byte values), got " +
                                    std::to_string(config.gradientBytes));
    }
    RunSettings settings;
    CheckTransport(config, settings);
    if (config.dataRate.GetBitRate() < MIN_PACKET_RATE_BPS)
    {
        // TCP's timers (a 1 s minimum RTO, 3 s to connect) give up on connections that are
        // only slow (MIN_PACKET_RATE_BPS).
        throw std::invalid_argument("--data-rate of " + Quantity::FormatRate(config.dataRate.GetBitRate()) + " is too slow for "
                                    "TCP at packet level: give at least 1Mbps");
    }
    CheckLinkRates(config, topo);
    if (config.delay.IsStrictlyNegative())
    {
        throw std::invalid_argument("--delay must not be negative, got " + std::to_string(config.delay.GetNanoSeconds()) + "ns");
    }
    if (config.decisions != "replay" && config.decisions != "online")
    {
        throw std::invalid_argument("decisions must be online or replay, got '" +
                                    config.decisions + "'");
    }
    if (!config.stallTimeout.IsStrictlyPositive())
    {
        throw std::invalid_argument("stall timeout must be above 0 s");
    }
    if (config.warmUps > 0 && config.connections == "per-transfer")
    {
        throw std::invalid_argument("warm-ups need persistent connections: per transfer, every "
                                    "transfer opens its own, so a warm-up leaves the measured "
                                    "AllReduce nothing; drop --warm-ups or use persistent");
    }
    if (config.warmUps > 0 && !config.linkDowns.empty())
    {
        throw std::invalid_argument("warm-ups and --link-down do not combine: a link goes down "
                                    "at a time from the simulation's start, and how long the "
                                    "warm-ups take is not known before; drop --warm-ups");
    }
    for (const LinkDownEvent& down : config.linkDowns)
    {
        if (down.link >= topo.GetNLinks())
        {
            throw std::invalid_argument("link " + std::to_string(down.link) +
                                        " does not exist: give a link 0.." +
                                        std::to_string(topo.GetNLinks() - 1));
        }
        if (!(down.at >= 0))
        {
            throw std::invalid_argument("the time a link goes down must not be negative");
        }
    }
    CheckServersReachable(config.linkDowns, topo);
    settings.stragglers = ParseStragglerSpec(config.stragglers);
    const StragglerSpec& stragglers = settings.stragglers;
    if (stragglers.count > topo.GetNServers() ||
        (!stragglers.times.empty() && stragglers.times.size() != topo.GetNServers()))
    {
        throw std::invalid_argument(
            "stragglers '" + config.stragglers + "' names " +
            std::to_string(std::max<size_t>(stragglers.count, stragglers.times.size())) +
            " servers; " + topo.GetName() + " has " + std::to_string(topo.GetNServers()));
    }
    if (!config.pcapPrefix.empty())
    {
        CheckWritable("pcap traces", config.pcapPrefix);
    }
    if (!config.netanimFile.empty())
    {
        DcnAnimationHelper::CheckSize(topo); // before anything is built
    }
    return settings;
}

/**
 * Every flow's source (address, port) by flow id, in one pass. Ipv4FlowClassifier::FindFlow
 * walks the classifier's whole map on every call (ns-3 3.37), so looking up each of F flows
 * costs F^2: on fat-tree k=8 (65,000 flows counting the acknowledgements) that was 93% of a
 * packet-level run. The classifier's XML, written once and read back, lists them all.
 * \param classifier the classifier, after the run
 * \return per flow id, its source address and port
 */
std::unordered_map<FlowId, std::pair<uint32_t, uint16_t>>
ReadFlowSources(Ptr<Ipv4FlowClassifier> classifier)
{
    std::ostringstream xml;
    classifier->SerializeToXmlStream(xml, 0);
    tinyxml2::XMLDocument doc;
    const tinyxml2::XMLElement* root = nullptr;
    if (doc.Parse(xml.str().c_str()) != tinyxml2::XML_SUCCESS ||
        (root = doc.FirstChildElement("Ipv4FlowClassifier")) == nullptr)
    {
        throw std::logic_error("FlowMonitor's Ipv4FlowClassifier wrote XML this module cannot "
                               "read (ns-3 version?)");
    }
    std::unordered_map<FlowId, std::pair<uint32_t, uint16_t>> sources;
    for (const tinyxml2::XMLElement* flow = root->FirstChildElement("Flow"); flow != nullptr;
         flow = flow->NextSiblingElement("Flow"))
    {
        const char* address = flow->Attribute("sourceAddress");
        sources[flow->UnsignedAttribute("flowId")] = {
            Ipv4Address(address != nullptr ? address : "0.0.0.0").Get(),
            static_cast<uint16_t>(flow->UnsignedAttribute("sourcePort"))};
    }
    return sources;
}

/**
 * Reads FlowMonitor's statistics per data flow, naming the workloads each carried (flows it
 * cannot match to a connection's source port are TCP's acknowledgements, only counted).
 * \param monitor the monitor, after the run
 * \param before its statistics when the measured AllReduce started (after warm-ups; empty
 *        without), taken off
 * \param start when the measured AllReduce started
 * \param classifier its classifier
 * \param controller the controller (its workloads, its address per node, its source port
 *        per workload)
 * \param[in,out] report gets flows and ackFlows
 */
void
CollectFlowReports(Ptr<FlowMonitor> monitor,
                   const FlowMonitor::FlowStatsContainer& before,
                   Time start,
                   Ptr<Ipv4FlowClassifier> classifier,
                   Ptr<AllReduceController> controller,
                   PacketRunReport& report)
{
    monitor->CheckForLostPackets();
    const WorkloadSet& workloads = controller->GetWorkloads();
    // (src address, port) -> the workloads sent from it; a workload that never started has
    // no port under persistent connections, and no flow either.
    std::map<std::pair<uint32_t, uint16_t>, std::vector<uint32_t>> byPort;
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const uint16_t port = controller->GetSourcePort(w);
        if (port != 0)
        {
            byPort[{controller->GetAddress(workloads.Get(w).src).Get(), port}].push_back(w);
        }
    }
    const auto sources = ReadFlowSources(classifier);
    for (auto [id, stats] : monitor->GetFlowStats())
    {
        const auto earlier = before.find(id);
        if (earlier != before.end())
        {
            const FlowMonitor::FlowStats& b = earlier->second;
            if (stats.txPackets == b.txPackets)
            {
                continue; // it carried warm-ups only
            }
            stats.txBytes -= b.txBytes;
            stats.rxBytes -= b.rxBytes;
            stats.txPackets -= b.txPackets;
            stats.rxPackets -= b.rxPackets;
            stats.delaySum -= b.delaySum;
            stats.timeFirstTxPacket = start; // its first packet since is not recorded
        }
        const auto source = sources.find(id);
        const auto it = source == sources.end() ? byPort.end() : byPort.find(source->second);
        if (it == byPort.end())
        {
            ++report.ackFlows;
            continue;
        }
        FlowReport f;
        f.workloads = it->second;
        f.src = workloads.Get(f.workloads.front()).src;
        f.dst = workloads.Get(f.workloads.front()).dst;
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
        return a.workloads.front() < b.workloads.front();
    });
}

} // namespace

void
AddTransportOptions(CheckedCommandLine& cmd, PacketRunConfig& config)
{
    cmd.AddChoice("transport",
                  "tcp (ns-3's TCP over point-to-point links with queue discs) or rdma "
                  "(RoCEv2 queue pairs with DCQCN over lossless Ethernet with PFC and ECN; "
                  "doc/allreduce.rst, \"RDMA\")",
                  config.transport, {"tcp", "rdma"});
    cmd.AddChoice("switching",
                  "rdma: the switches forward cut-through (the default, as data-center "
                  "switches do) or store-and-forward (TCP's point-to-point links always store "
                  "and forward)",
                  config.switching, {"cut-through", "store-and-forward"});
    cmd.AddChoice("connections",
                  "persistent (one TCP connection per sender, receiver and path, reused by "
                  "every transfer between them) or per-transfer (a new connection each time: "
                  "handshake and slow start per transfer)",
                  config.connections, {"persistent", "per-transfer"});
    cmd.AddInteger("warm-ups",
                    "AllReduces run first, untimed, on the same persistent connections (as "
                    "nccl-tests' warm-up iterations): the measured one starts with them open and "
                    "their congestion windows grown, as a training job's next iteration does",
                    config.warmUps,
                    0,
                    1000);
    cmd.AddChoice("tcp", "TCP congestion control: cubic (ns-3's default), newreno or dctcp "
                  "(with ECN marking RED queues)",
                  config.tcp, {"cubic", "newreno", "dctcp"});
    cmd.AddChoice("queue-disc",
                  "queues on every device: fq-codel (flow queueing over byte queue limits, as "
                  "a Linux host), red (ECN marking, as ns-3's DCTCP example), none (the "
                  "devices' FIFO queues) or auto (red for dctcp, else fq-codel)",
                  config.queueDisc, {"auto", "fq-codel", "red", "none"});
    cmd.AddQueueSize("queue-size",
                  "limit of every queue: packets such as 1000p, or bytes such as 4MB for red "
                  "and none (ns-3's fq-codel counts packets only; default: ns-3's for the "
                  "queue: 10240p fq-codel, 2666p red, 100p device FIFO)",
                  config.queueSize);
}

void
AddLinkOptions(CheckedCommandLine& cmd, PacketRunConfig& config)
{
    cmd.AddDataRate("data-rate", "rate of every link, e.g. 10Gbps or 1.6Tbps", config.dataRate);
    cmd.AddTime("delay",
                "propagation delay of every link, e.g. 1us",
                config.delay,
                Seconds(0),
                Seconds(1e6));
}

std::vector<std::pair<std::string, std::string>>
GetPacketRunAttributes()
{
    const std::string app = "--ns3::AllReduceApplication::";
    return {{"ns3::PointToPointNetDevice::DataRate", "--data-rate"},
            {"ns3::PointToPointChannel::Delay", "--delay"},
            {"ns3::LosslessNetDevice::DataRate", "--data-rate"},
            {"ns3::LosslessChannel::Delay", "--delay"},
            {"ns3::AllReduceApplication::Protocol", "--transport"},
            {"ns3::TcpL4Protocol::SocketType", "--tcp"},
            {"ns3::TcpSocket::SegmentSize", app + "SegmentSize"},
            {"ns3::TcpSocket::ConnTimeout", app + "ConnTimeout"},
            {"ns3::TcpSocket::DelAckTimeout", app + "DelAckTimeout"},
            {"ns3::TcpSocket::DataRetries", app + "DataRetries"},
            {"ns3::TcpSocketBase::MinRto", app + "MinRto"},
            {"ns3::TcpSocketBase::MaxSegLifetime", app + "TimeWait"},
            {"ns3::FqCoDelQueueDisc::MaxSize", "--queue-size"},
            {"ns3::RedQueueDisc::MaxSize", "--queue-size"},
            {"ns3::RedQueueDisc::UseEcn", "--tcp=dctcp (red marks ECN)"},
            {"ns3::RedQueueDisc::MinTh", "--queue-size (red's thresholds follow it)"},
            {"ns3::RedQueueDisc::MaxTh", "--queue-size (red's thresholds follow it)"},
            {"ns3::LosslessNetDevice::CutThrough", "--switching"},
            {"ns3::AllReduceController::Mode", "--mode"},
            {"ns3::AllReduceController::Connections", "--connections"},
            {"ns3::AllReduceController::WarmUps", "--warm-ups"},
            {"ns3::AllReduceController::GradientBytes", "--gradient-bytes"},
            {"ns3::AllReduceController::StallTimeout", "--stall-timeout"},
            {"ns3::AllReduceController::Stragglers", "--stragglers"},
            {"ns3::AllReduceController::StragglerDelay", "--stragglers"},
            {"ns3::AllReduceApplication::Seed", "--seed"},
            {"ns3::AllReduceApplication::Values", "--values"}};
}

std::string
DescribeTransport(const PacketRunConfig& config)
{
    if (config.transport == "rdma")
    {
        return "RDMA (RoCEv2, DCQCN) over lossless Ethernet (PFC, ECN), " +
               std::string(config.switching == "store-and-forward" ? "store-and-forward"
                                                                   : "cut-through") +
               " switches, " + config.connections + " queue pairs";
    }
    return "TCP " + GetTcp(config) + ", " + config.connections + " connections, " +
           GetQueueDisc(config) + " queues" +
           (!config.queueSize ? std::string() : " of " + FormatQueueSize(*config.queueSize));
}

std::string
GetQueueDisc(const PacketRunConfig& config)
{
    if (config.queueDisc.empty() || config.queueDisc == "auto")
    {
        return config.tcp == "dctcp" ? "red" : "fq-codel";
    }
    return config.queueDisc;
}

std::string
GetTcp(const PacketRunConfig& config)
{
    return config.tcp.empty() ? "cubic" : config.tcp;
}

namespace
{

/// \return twice the propagation delay of the longest path of the workloads (link delays of a
///         topology file, else delay)
Time
LongestRoundTrip(const WorkloadSet& workloads, Time delay)
{
    const Topology& topo = workloads.GetTopology();
    int64_t longest = 0;
    for (uint32_t w = 0; w < workloads.GetN(); ++w)
    {
        const auto& path = workloads.Get(w).path;
        int64_t ns = 0;
        for (size_t i = 1; i < path.size(); ++i)
        {
            const int64_t link = topo.FindLink(path[i - 1], path[i]);
            const int64_t own = link < 0 ? -1 : topo.GetLinkProperties(link).delayNs;
            ns += own < 0 ? delay.GetNanoSeconds() : own;
        }
        longest = std::max(longest, ns);
    }
    return NanoSeconds(2 * longest);
}

/// The controller's attributes a packet run sets from its configuration.
void
ConfigureController(AllReduceHelper& allreduce,
                    const PacketRunConfig& config,
                    const RunSettings& settings,
                    const Topology& topo)
{
    allreduce.SetAttribute("Seed", UintegerValue(config.seed));
    allreduce.SetAttribute("Values", StringValue(config.values));
    allreduce.SetControllerAttribute("Mode", StringValue(config.mode));
    allreduce.SetControllerAttribute("Connections", StringValue(config.connections));
    allreduce.SetControllerAttribute("WarmUps", UintegerValue(config.warmUps));
    allreduce.SetControllerAttribute("GradientBytes", UintegerValue(config.gradientBytes));
    allreduce.SetControllerAttribute("StallTimeout", TimeValue(config.stallTimeout));
    allreduce.SetControllerAttribute("Stragglers",
                                     UintegerValue(settings.stragglers.all ? topo.GetNServers()
                                                                       : settings.stragglers.count));
    if (!settings.stragglers.delay.empty())
    {
        allreduce.SetControllerAttribute("StragglerDelay", StringValue(settings.stragglers.delay));
    }
}

/// Builds the network and installs the AllReduce (and the background traffic) on it; on an
/// error, destroys what was built and throws.
void
InstallPacketRun(Plan&& plan,
                 const PacketRunConfig& config,
                 const RunSettings& settings,
                 Ptr<AllReduceScheduler> scheduler,
                 DcnTopologyHelper& dcn,
                 AllReduceHelper& allreduce,
                 BackgroundTrafficHelper& background)
{
    try
    {
        dcn.Install();
        if (config.loss != 0)
        {
            dcn.SetPacketLoss(config.loss, config.lossStream); // checks the rate
        }
        if (scheduler)
        {
            allreduce.Install(scheduler, std::move(plan.workloads));
        }
        else
        {
            allreduce.Install(std::move(plan)); // the controller's now: held once
        }
        if (config.backgroundLoad != 0)
        {
            background.Install(Seconds(0));
        }
        allreduce.GetController()->SetGradientReadyTimes(settings.stragglers.times);
        allreduce.GetController()->AssignStreams(2 * int64_t{config.stragglerSeed});
    }
    catch (...)
    {
        Simulator::Destroy(); // the nodes built so far
        throw;
    }
}

/// The counters at the measured AllReduce's start: what the warm-ups put on the links and
/// flows is taken off.
struct MeasuredStart
{
    std::vector<uint64_t> ownBytes;          //!< per directed link, the AllReduce's bytes
    uint64_t foreignBytes{0};                //!< other traffic's bytes, over all links
    FlowMonitor::FlowStatsContainer flows;   //!< the flow monitor's statistics
    Time at;                                 //!< when it started
};

/// Records the counters when the measured AllReduce starts after warm-ups (without warm-ups
/// nothing came before it, and \p start stays at zero).
void
WatchMeasuredStart(Ptr<AllReduceController> controller,
                   Ptr<LinkLoadMonitor> links,
                   Ptr<FlowMonitor> monitor,
                   uint32_t warmUps,
                   MeasuredStart& start)
{
    if (!links)
    {
        return; // a distributed run: no warm-ups, no link counters
    }
    start.ownBytes.assign(links->GetNDirectedLinks(), 0);
    controller->TraceConnectWithoutContext(
        "Started",
        Callback<void, uint32_t>([links, monitor, warmUps, &start](uint32_t index) {
            if (index != warmUps || index == 0)
            {
                return;
            }
            for (uint32_t l = 0; l < links->GetNDirectedLinks(); ++l)
            {
                start.ownBytes[l] = links->GetOwnBytes(l);
                start.foreignBytes += links->GetForeignBytes(l);
            }
            start.at = Simulator::Now();
            if (monitor)
            {
                monitor->CheckForLostPackets();
                start.flows = monitor->GetFlowStats();
            }
        }));
}

/**
 * A distributed run: checks what it cannot honour, spreads the network over the ranks and
 * makes the controller one rank's.
 * \return the partition and the lookahead (the smallest delay of a cut link, seconds)
 */
std::pair<TopologyPartition, double>
PrepareDistributed(const Plan& plan,
                   const PacketRunConfig& config,
                   bool online,
                   DcnTopologyHelper& dcn,
                   AllReduceHelper& allreduce)
{
    const Topology& topo = plan.workloads.GetTopology();
    CheckDistributedConfig(config, online);
    const TopologyPartition partition = MakeRunPartition(topo, config);
    CheckSameOnEveryRank(plan, partition);
    dcn.SetPartition(partition);
    allreduce.SetControllerAttribute("Distributed", BooleanValue(true));
    double lookahead = 0;
    for (uint32_t link : partition.GetCutLinks())
    {
        const int64_t own = topo.GetLinkProperties(link).delayNs;
        const double s = own < 0 ? config.delay.GetSeconds() : own * 1e-9;
        lookahead = lookahead == 0 ? s : std::min(lookahead, s);
    }
    return {partition, lookahead};
}

/**
 * A connection request (SYN) is sent again after ConnTimeout, doubling, six times (0.63 s
 * from 10 ms): on long links it must cover a round trip of the longest path, or every
 * connection fails while every link is up.
 * \return the round trip of the longest path
 * \throws std::invalid_argument when the stall timeout is shorter than two of them
 */
Time
CheckStallTimeout(const WorkloadSet& workloads, const PacketRunConfig& config)
{
    const Time longest = LongestRoundTrip(workloads, config.delay);
    if (config.stallTimeout < 2 * longest)
    {
        throw std::invalid_argument(
            "--stall-timeout=" + FormatExactSeconds(config.stallTimeout) +
            "s is shorter than two round trips of the longest path (" +
            FormatExactSeconds(2 * longest) + " s with these link delays): a run would be "
            "called stalled before its first data arrives; give --stall-timeout=" +
            FormatExactSeconds(4 * longest) + "s or more");
    }
    return longest;
}

/// Fills the report of a run that ended: links, result, verification and notes.
void
ReportPacketRun(const PacketRunConfig& config,
                Ptr<AllReduceController> controller,
                Ptr<LinkLoadMonitor> links,
                const MeasuredStart& start,
                PacketRunReport& report)
{
    for (uint32_t l = 0; links && l < links->GetNDirectedLinks(); ++l)
    {
        report.linkBytes.push_back(links->GetOwnBytes(l) - start.ownBytes[l]);
        report.linkRateBps.push_back(links->GetRateBps(l));
        report.foreignBytes += links->GetForeignBytes(l);
    }
    report.foreignBytes -= start.foreignBytes;
    report.result = controller->GetResult();
    report.verification = controller->Verify();
    report.dataRateBps = static_cast<double>(config.dataRate.GetBitRate());
    report.pieceTime =
        controller->GetLayout().GetMaxPieceSize() * sizeof(float) * 8.0 / report.dataRateBps;
    report.predictedTime = report.plannedRounds * report.pieceTime;
    for (const LinkDownEvent& down : config.linkDowns)
    {
        if (down.at > Simulator::Now().GetSeconds())
        {
            report.notes.push_back("link " + std::to_string(down.link) +
                                   " never went down: the run ended at " +
                                   std::to_string(Simulator::Now().GetSeconds()) +
                                   " s, before the time asked for (" + std::to_string(down.at) +
                                   " s)");
        }
    }
}

} // namespace

PacketRunReport
RunPacketAllReduce(Plan plan,
                   const PacketRunConfig& config,
                   Ptr<AllReduceScheduler> scheduler)
{
    const Topology topo = plan.workloads.GetTopology(); // a copy: the plan moves on
    const RunSettings settings = CheckPacketRunConfig(config, topo);
    const bool online = config.decisions == "online";
    if (online != bool(scheduler))
    {
        throw std::invalid_argument(online ? "online decisions need a scheduler"
                                           : "a scheduler is given, but decisions are replayed: "
                                             "set decisions to online");
    }
    const Time longest = CheckStallTimeout(plan.workloads, config);
    DcnTopologyHelper dcn(topo);
    dcn.SetDeviceAttribute("DataRate", DataRateValue(config.dataRate));
    dcn.SetChannelAttribute("Delay", TimeValue(config.delay));
    BackgroundTrafficHelper background(dcn);
    if (config.backgroundLoad != 0)
    {
        background.SetLoad(config.backgroundLoad); // checks it
        background.SetApplication(config.backgroundApplication);
        // Streams apart from the stragglers' (2 per straggler seed, from 0).
        background.AssignStreams(BACKGROUND_STREAMS + config.backgroundSeed);
    }
    AllReduceHelper allreduce(dcn);
    ConfigureController(allreduce, config, settings, topo);
    std::pair<TopologyPartition, double> ranks;
    if (config.distributed)
    {
        ranks = PrepareDistributed(plan, config, online, dcn, allreduce);
    }
    if (2 * longest > MilliSeconds(10))
    {
        allreduce.SetAttribute("ConnTimeout", TimeValue(2 * longest));
    }
    ConfigureTransport(config, settings, dcn);
    if (config.transport == "rdma")
    {
        allreduce.SetAttribute("Protocol", TypeIdValue(RdmaSocketFactory::GetTypeId()));
    }
    PacketRunReport report;
    report.plannedRounds = plan.schedule.GetNRounds();
    report.plannedWorkloads = plan.workloads.GetN();
    InstallPacketRun(std::move(plan), config, settings, scheduler, dcn, allreduce, background);
    Ptr<AllReduceController> controller = allreduce.GetController();
    for (const LinkDownEvent& down : config.linkDowns)
    {
        Simulator::Schedule(Seconds(down.at),
                            &DcnTopologyHelper::SetLinkUp,
                            &dcn,
                            down.link,
                            false);
    }
    if (!config.pcapPrefix.empty())
    {
        dcn.EnablePcapAll(config.pcapPrefix);
    }
    DcnAnimationHelper animation;
    if (!config.netanimFile.empty())
    {
        animation.Enable(dcn, config.netanimFile);
    }
    FlowMonitorHelper flowHelper;
    Ptr<FlowMonitor> monitor;
    if (config.flowMonitor && !config.distributed) // its flows would cross ranks
    {
        monitor = flowHelper.Install(dcn.GetNodes());
    }
    Ptr<LinkLoadMonitor> links = allreduce.GetLinkLoadMonitor();
    MeasuredStart start;
    WatchMeasuredStart(controller, links, monitor, config.warmUps, start);

    if (!config.progress.empty())
    {
        allreduce.EnableProgress(std::cerr, config.progress);
    }
    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    report.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    report.events = Simulator::GetEventCount();
    report.peakBytes = GetPeakResidentBytes();
    report.animation = animation.Close();
    report.transport = config.transport;
    report.counters = dcn.GetTransportCounters();
    if (Ptr<DrlScheduler> drl = DynamicCast<DrlScheduler>(scheduler))
    {
        report.drl = drl->GetDecoding();
    }
    ReportPacketRun(config, controller, links, start, report);
    if (monitor)
    {
        CollectFlowReports(monitor,
                           start.flows,
                           start.at,
                           DynamicCast<Ipv4FlowClassifier>(flowHelper.GetClassifier()),
                           controller,
                           report);
    }
    report.run = controller->TakeRun(); // its last use: the workloads are not copied again
    const std::vector<uint32_t> planIds = controller->GetPlanIds();
    Simulator::Destroy();
    if (config.distributed)
    {
        // With the network gone (MPI lives on until the session ends), its memory given back
        // to the system: rank 0 gathers every transfer's times where the gradients and the
        // network were, not on top of them.
#ifdef __GLIBC__
        malloc_trim(0);
#endif
        const auto& [partition, lookahead] = ranks;
        MergeDistributedReports(partition, lookahead, config, planIds, report);
    }
    return report;
}

} // namespace ns3
