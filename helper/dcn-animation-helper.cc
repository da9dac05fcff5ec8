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

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <stdexcept>

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
    Close();
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
    {
        // AnimationInterface ends the program when it cannot open its file: try first.
        std::error_code ignored;
        std::ofstream probe;
        if (!std::filesystem::is_directory(file, ignored))
        {
            probe.open(file);
        }
        if (!probe.is_open())
        {
            throw std::invalid_argument("cannot write the NetAnim trace '" + file +
                                        "' (is its directory there and writable?)");
        }
    }
    const TopologyLayout layout = InstallPositions(network);
    m_animation = std::make_shared<AnimationInterface>(file); // writes the nodes and links now
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
