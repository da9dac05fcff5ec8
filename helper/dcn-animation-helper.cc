/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "dcn-animation-helper.h"

#ifdef ALLREDUCE_HAVE_NETANIM
#include "ns3/animation-interface.h"
#endif
#include "ns3/constant-position-mobility-model.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcnAnimationHelper");

namespace
{

/// Colors: servers, then the switches of row 1, 2, ... (the last repeats for higher rows).
constexpr std::array<std::array<uint8_t, 3>, 5> ROW_COLORS = {{
    {31, 119, 180}, // servers: blue
    {255, 127, 14}, // switches next to servers: orange
    {44, 160, 44},  // two hops from a server: green (fat-tree aggregation)
    {214, 39, 40},  // three: red (fat-tree core)
    {148, 103, 189} // further: purple
}};

} // namespace

DcnAnimationHelper::DcnAnimationHelper() = default;

DcnAnimationHelper::~DcnAnimationHelper()
{
    try
    {
        Close();
    }
    catch (const std::exception& e)
    {
        NS_LOG_WARN(e.what()); // a destructor does not throw: Close() reports it to callers
    }
}

void
DcnAnimationHelper::CheckSize(const Topology& topology)
{
    if (topology.GetNNodes() > MAX_NODES)
    {
        throw std::invalid_argument(
            "a NetAnim animation is written for at most " + std::to_string(MAX_NODES) +
            " nodes (NetAnim draws them all on one canvas and reads the whole trace before it "
            "plays); '" +
            topology.GetName() + "' has " + std::to_string(topology.GetNNodes()) +
            ": animate a smaller topology, or leave the animation out");
    }
}

TopologyLayout
DcnAnimationHelper::InstallPositions(const DcnTopologyHelper& network)
{
    const Topology& topology = network.GetTopology();
    TopologyLayout layout = ComputeTopologyLayout(topology, SPACING);
    for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
    {
        Ptr<Node> node = network.GetNode(u);
        Ptr<MobilityModel> mobility = node->GetObject<MobilityModel>();
        if (!mobility)
        {
            mobility = CreateObject<ConstantPositionMobilityModel>();
            node->AggregateObject(mobility);
        }
        mobility->SetPosition(Vector(layout.x[u], layout.y[u], 0));
    }
    return layout;
}

void
DcnAnimationHelper::Enable(const DcnTopologyHelper& network, const std::string& file)
{
    if (m_animation)
    {
        throw std::invalid_argument("this DcnAnimationHelper already writes '" + m_file +
                                    "': use one helper per trace");
    }
    const Topology& topology = network.GetTopology();
    CheckSize(topology);
#ifndef ALLREDUCE_HAVE_NETANIM
    throw std::invalid_argument(
        "cannot write the NetAnim trace '" + file +
        "': this build of the allreduce module has no NetAnim (ns-3's netanim module was not "
        "enabled where it was built); enable it (e.g. ./ns3 configure --enable-modules "
        "\"allreduce;netanim\", or all modules) and build again");
#else
    // ns-3 writes into a file of its own, moved (a file) or copied (a device or a pipe) to the
    // one named once it is checked whole (Close); AnimationInterface ends the program when it
    // cannot open its file, so both are tried first.
    std::error_code ignored;
    const bool regular = !std::filesystem::exists(file, ignored) ||
                         std::filesystem::is_regular_file(file, ignored);
    static uint32_t traces = 0;
    const std::string part =
        regular ? file + ".part-" + std::to_string(getpid())
                : (std::filesystem::temp_directory_path(ignored) /
                   ("netanim-" + std::to_string(getpid()) + "-" + std::to_string(++traces) +
                    ".xml"))
                      .string();
    const std::string why = std::filesystem::is_directory(file, ignored) ? "it is a directory"
                            : regular                                     ? ProbeWritable(file)
                                                                          : "";
    if (!why.empty() || !std::ofstream(part))
    {
        throw std::invalid_argument(
            "cannot write the NetAnim trace '" + file + "': " +
            (why == "it is a directory" ? why + "; give the path of a file"
                                        : (why.empty() ? std::strerror(errno) : why) +
                                              std::string(" (is its directory there and "
                                                          "writable?)")));
    }
    const TopologyLayout layout = InstallPositions(network);
    m_part = part;
    m_animation = std::make_shared<AnimationInterface>(part); // writes the nodes and links now
    m_animation->SetMaxPktsPerTraceFile(MAX_PACKETS);
    m_file = file;
    m_nodes = topology.GetNNodes();
    for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
    {
        const uint32_t id = network.GetNode(u)->GetId();
        const auto& rgb = ROW_COLORS[std::min<size_t>(layout.row[u], ROW_COLORS.size() - 1)];
        m_animation->UpdateNodeDescription(id, topology.GetNodeName(u));
        m_animation->UpdateNodeColor(id, rgb[0], rgb[1], rgb[2]);
        m_animation->UpdateNodeSize(id, 0.3 * SPACING, 0.3 * SPACING);
    }
    for (uint32_t i = 0; i < topology.GetNLinks(); ++i)
    {
        const TopologyLink& link = topology.GetLink(i);
        m_animation->UpdateLinkDescription(network.GetNode(link.a)->GetId(),
                                           network.GetNode(link.b)->GetId(),
                                           "link " + std::to_string(i));
    }
    NS_LOG_INFO("NetAnim trace " << file << ": " << m_nodes << " nodes");
#endif
}

void
DcnAnimationHelper::FinishFile()
{
    const std::string part = m_part;
    m_part.clear();
    std::ifstream in(part, std::ios::binary);
    std::string tail(16, '\0');
    std::error_code ignored;
    const uint64_t size = std::filesystem::file_size(part, ignored);
    in.seekg(size > tail.size() ? size - tail.size() : 0);
    in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
    tail.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    if (tail.find("</anim>") == std::string::npos)
    {
        std::remove(part.c_str());
        throw std::invalid_argument("cannot write the NetAnim trace '" + m_file +
                                    "': it was not written whole (is the disk full?)");
    }
    if (part.rfind(m_file, 0) == 0 && std::rename(part.c_str(), m_file.c_str()) == 0)
    {
        return;
    }
    in.clear();
    in.seekg(0);
    try
    {
        WriteTextFile(m_file, "NetAnim trace", [&in](std::ostream& os) { os << in.rdbuf(); });
    }
    catch (...)
    {
        std::remove(part.c_str());
        throw;
    }
    std::remove(part.c_str());
}

AnimationInterface*
DcnAnimationHelper::GetAnimationInterface() const
{
    return m_animation.get();
}

std::string
DcnAnimationHelper::Close()
{
    if (!m_animation)
    {
        return "";
    }
#ifdef ALLREDUCE_HAVE_NETANIM
    const uint64_t packets = m_animation->GetTracePktCount();
    m_animation.reset(); // writes the closing </anim>
    FinishFile();
    const std::string line = m_file + " (" + std::to_string(m_nodes) + " nodes, ";
    if (packets > MAX_PACKETS)
    {
        return line + "the first " + std::to_string(MAX_PACKETS) +
               " packets only: ns-3 writes no more to one NetAnim trace, so the rest of the run "
               "is not in it; a smaller run, e.g. a smaller gradient, fits whole)";
    }
    return line + std::to_string(packets) + " packets)";
#else
    return "";
#endif
}

} // namespace ns3
