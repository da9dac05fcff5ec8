/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The topology layout (servers below, switches in rows by their hops from the servers) and the
// NetAnim trace DcnAnimationHelper writes with it.

#include "test-helpers.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"
#include "ns3/mobility-model.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <utility>

using namespace ns3;
using ns3::test::ErrorOf;

namespace
{

/// \return how many nodes the layout puts in each row, row 0 first
std::vector<uint32_t>
RowSizes(const TopologyLayout& layout)
{
    std::vector<uint32_t> sizes(*std::max_element(layout.row.begin(), layout.row.end()) + 1, 0);
    for (uint32_t r : layout.row)
    {
        ++sizes[r];
    }
    return sizes;
}

/// \return the file's text
std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

TEST(TopologyLayout, BCubePutsItsServersBelowOneRowOfSwitches)
{
    const TopologyLayout layout = ComputeTopologyLayout(BuildTopology("bcube:n=3,k=1"), 10);
    EXPECT_EQ(RowSizes(layout), (std::vector<uint32_t>{9, 6}));
    EXPECT_DOUBLE_EQ(layout.width, 90);
    EXPECT_DOUBLE_EQ(layout.height, 20);
    for (uint32_t s = 0; s < 9; ++s)
    {
        EXPECT_DOUBLE_EQ(layout.x[s], 5 + 10 * s) << "server " << s << " in id order";
        EXPECT_DOUBLE_EQ(layout.y[s], 15) << "servers on the bottom row (largest y)";
    }
    for (uint32_t w = 9; w < 15; ++w)
    {
        EXPECT_DOUBLE_EQ(layout.y[w], 5);
    }
}

TEST(TopologyLayout, FatTreeHasEdgeAggregationAndCoreRows)
{
    const TopologyLayout layout = ComputeTopologyLayout(BuildTopology("fattree:k=4"), 10);
    EXPECT_EQ(RowSizes(layout), (std::vector<uint32_t>{16, 8, 8, 4}));
    EXPECT_DOUBLE_EQ(layout.width, 160);
    EXPECT_DOUBLE_EQ(layout.height, 40);
}

TEST(TopologyLayout, SwitchesFollowTheMeanPlaceOfTheirNeighboursBelow)
{
    // BCube(3,1): the level-0 switches 9, 10, 11 join servers 0-2, 3-5, 6-8; the level-1
    // switches 12, 13, 14 join servers 0,3,6 / 1,4,7 / 2,5,8 (means 35, 45, 55).
    const TopologyLayout layout = ComputeTopologyLayout(BuildTopology("bcube:n=3,k=1"), 10);
    std::vector<uint32_t> order = {9, 10, 11, 12, 13, 14};
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return layout.x[a] < layout.x[b];
    });
    EXPECT_EQ(order, (std::vector<uint32_t>{9, 12, 10, 13, 14, 11}));
}

TEST(TopologyLayout, EveryFamilyGetsDistinctPlacesInsideTheDrawing)
{
    for (const char* spec : {"bcube:n=4,k=1",
                             "dcell:n=4,k=1",
                             "fattree:k=4",
                             "jellyfish:switches=10,degree=4,servers=1,seed=1",
                             "jellyfish:switches=12,degree=3,servers=2,seed=2",
                             "random:switches=12,links=20,servers=16,seed=1"})
    {
        SCOPED_TRACE(spec);
        const Topology topology = BuildTopology(spec);
        const TopologyLayout layout = ComputeTopologyLayout(topology, 7);
        std::set<std::pair<double, double>> places;
        for (uint32_t u = 0; u < topology.GetNNodes(); ++u)
        {
            EXPECT_EQ(layout.row[u] == 0, topology.IsServer(u));
            EXPECT_GT(layout.x[u], 0);
            EXPECT_LT(layout.x[u], layout.width);
            EXPECT_GT(layout.y[u], 0);
            EXPECT_LT(layout.y[u], layout.height);
            places.insert({layout.x[u], layout.y[u]});
        }
        EXPECT_EQ(places.size(), topology.GetNNodes());
        const TopologyLayout again = ComputeTopologyLayout(topology, 7);
        EXPECT_EQ(again.x, layout.x);
        EXPECT_EQ(again.y, layout.y);
    }
}

TEST(TopologyLayout, NoLinkPassesThroughANodeItDoesNotJoin)
{
    // DCell links servers to servers and Jellyfish switches to switches: their rows bend, or
    // those links would lie along the row, through the nodes between their ends (and hide each
    // other). Links between rows may pass close to a node, as in any drawing in layers.
    for (const char* spec : {"bcube:n=3,k=1",
                             "bcube:n=4,k=2",
                             "dcell:n=4,k=1",
                             "dcell:n=6,k=1",
                             "dcell:n=2,k=2",
                             "fattree:k=6",
                             "jellyfish:switches=10,degree=4,servers=1,seed=1",
                             "jellyfish:switches=20,degree=4,servers=1,seed=1",
                             "jellyfish:switches=12,degree=3,servers=2,seed=2",
                             "random:switches=12,links=20,servers=16,seed=1"})
    {
        SCOPED_TRACE(spec);
        const Topology topology = BuildTopology(spec);
        const TopologyLayout layout = ComputeTopologyLayout(topology, 10);
        for (const TopologyLink& link : topology.GetLinks())
        {
            const double ax = layout.x[link.a];
            const double ay = layout.y[link.a];
            const double dx = layout.x[link.b] - ax;
            const double dy = layout.y[link.b] - ay;
            for (uint32_t c = 0; c < topology.GetNNodes(); ++c)
            {
                if (c == link.a || c == link.b)
                {
                    continue;
                }
                // c's distance from the segment, in spacings.
                const double t = std::clamp(((layout.x[c] - ax) * dx + (layout.y[c] - ay) * dy) /
                                                (dx * dx + dy * dy),
                                            0.0,
                                            1.0);
                const double distance =
                    std::hypot(layout.x[c] - ax - t * dx, layout.y[c] - ay - t * dy) / 10;
                EXPECT_GT(distance, 0.001)
                    << "link " << link.a << "-" << link.b << " passes " << topology.GetNodeName(c);
            }
        }
    }
}

TEST(TopologyLayout, ARowWithLinksInsideItBendsIntoAnArc)
{
    // DCell(4,1): 20 servers (width 200) linked to each other bend 50 deep, rising in the middle.
    const TopologyLayout dcell = ComputeTopologyLayout(BuildTopology("dcell:n=4,k=1"), 10);
    EXPECT_DOUBLE_EQ(dcell.height, 70); // 50 for the arc, 10 per row
    EXPECT_DOUBLE_EQ(dcell.y[0], 65 - 50 * (1 - 0.95 * 0.95));
    EXPECT_LT(dcell.y[10], dcell.y[0]);
    for (uint32_t w = 20; w < 25; ++w)
    {
        EXPECT_DOUBLE_EQ(dcell.y[w], 5) << "switches flat above";
    }
    // Jellyfish: flat servers below switches that sag in the middle.
    const TopologyLayout jellyfish =
        ComputeTopologyLayout(BuildTopology("jellyfish:switches=10,degree=4,servers=1,seed=1"), 10);
    EXPECT_DOUBLE_EQ(jellyfish.height, 45); // 25 for the arc
    EXPECT_DOUBLE_EQ(jellyfish.y[0], 40);
    EXPECT_DOUBLE_EQ(jellyfish.y[9], 40);
    const auto [top, bottom] = std::minmax_element(jellyfish.y.begin() + 10, jellyfish.y.end());
    EXPECT_NEAR(*top, 5 + 25 * 0.19, 1e-9);    // the ends, at x 5 and 95
    EXPECT_NEAR(*bottom, 5 + 25 * 0.99, 1e-9); // the middle, at x 45 and 55
}

TEST(TopologyLayout, RefusesASpacingThatIsNotPositive)
{
    EXPECT_EQ(ErrorOf([] { ComputeTopologyLayout(BuildTopology("bcube:n=2,k=1"), 0); }),
              "layout spacing must be > 0, got 0.000000");
}

TEST(DcnAnimationHelper, PlacesEveryNodeAtItsLayoutPosition)
{
    DcnTopologyHelper dcn(BuildTopology("fattree:k=4"));
    dcn.Install();
    const TopologyLayout layout = DcnAnimationHelper::InstallPositions(dcn);
    for (uint32_t u = 0; u < dcn.GetTopology().GetNNodes(); ++u)
    {
        Ptr<MobilityModel> mobility = dcn.GetNode(u)->GetObject<MobilityModel>();
        ASSERT_TRUE(mobility);
        EXPECT_DOUBLE_EQ(mobility->GetPosition().x, layout.x[u]);
        EXPECT_DOUBLE_EQ(mobility->GetPosition().y, layout.y[u]);
    }
    Simulator::Destroy();
}

TEST(DcnAnimationHelper, WritesANetAnimTraceWithNamedNodesAtTheirPlacesAndLabelledLinks)
{
    const std::string file = testing::TempDir() + "allreduce-animation-test.xml";
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    dcn.Install();
    DcnAnimationHelper animation;
    animation.Enable(dcn, file);
    EXPECT_TRUE(animation.GetAnimationInterface());
    EXPECT_EQ(ErrorOf([&] { animation.Enable(dcn, file); }),
              "this DcnAnimationHelper already writes '" + file + "': use one helper per trace");
    EXPECT_EQ(animation.Close(), file + " (8 nodes, 0 packets)");
    EXPECT_EQ(animation.Close(), "");
    Simulator::Destroy();

    const std::string xml = ReadAll(file);
    EXPECT_TRUE(std::regex_search(xml,
                                  std::regex("^<anim ver=\"netanim-[0-9.]+\" "
                                             "filetype=\"animation\" >\n")));
    EXPECT_EQ(xml.substr(xml.size() - 8), "</anim>\n");
    // Servers 0-3 at x 5, 15, 25, 35 on the bottom row (y 15), switches above (y 5) over the
    // mean of their servers: 4 (servers 0, 1), 6 (0, 2), 7 (1, 3), 5 (2, 3).
    const std::vector<int> x = {5, 15, 25, 35, 5, 35, 15, 25};
    for (uint32_t u = 0; u < 8; ++u)
    {
        const std::string node = "<node id=\"" + std::to_string(u) + "\" sysId=\"0\" locX=\"" +
                                 std::to_string(x[u]) + "\" locY=\"" + (u < 4 ? "15" : "5") +
                                 "\" />";
        EXPECT_NE(xml.find(node), std::string::npos) << node;
        const std::string name = u < 4 ? "server " : "switch ";
        EXPECT_NE(xml.find("descr=\"" + name + std::to_string(u) + "\""), std::string::npos);
    }
    EXPECT_NE(xml.find("ld=\"link 7\""), std::string::npos);
}

TEST(DcnAnimationHelper, RefusesATopologyLargerThanNetAnimHandles)
{
    EXPECT_EQ(ErrorOf([] { DcnAnimationHelper::CheckSize(BuildTopology("fattree:k=8")); }),
              "a NetAnim animation is written for at most 128 nodes (NetAnim draws them all on "
              "one canvas and reads the whole trace before it plays); 'fattree(k=8)' has 208: "
              "animate a smaller topology, or leave the animation out");
    EXPECT_EQ(ErrorOf([] { DcnAnimationHelper::CheckSize(BuildTopology("bcube:n=4,k=2")); }), "");
}

TEST(DcnAnimationHelper, AFullDiskIsAnErrorNotATruncatedTrace)
{
    // /dev/full takes the open and refuses every write: ns-3 checks none of its writes.
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    dcn.Install();
    DcnAnimationHelper animation;
    animation.Enable(dcn, "/dev/full");
    Simulator::Stop(MicroSeconds(1));
    Simulator::Run();
    EXPECT_EQ(ErrorOf([&] { animation.Close(); }),
              "cannot write NetAnim trace '/dev/full': No space left on device");
    EXPECT_EQ(animation.Close(), "");
    Simulator::Destroy();
}

TEST(DcnAnimationHelper, RefusesAFileItCannotWrite)
{
    DcnTopologyHelper dcn(BuildTopology("bcube:n=2,k=1"));
    dcn.Install();
    DcnAnimationHelper animation;
    EXPECT_EQ(ErrorOf([&] { animation.Enable(dcn, "/nonexistent/a.xml"); }),
              "cannot write the NetAnim trace '/nonexistent/a.xml': No such file or directory "
              "(is its directory there and writable?)");
    EXPECT_EQ(ErrorOf([&] { animation.Enable(dcn, testing::TempDir()); }),
              "cannot write the NetAnim trace '" + testing::TempDir() +
                  "': it is a directory; give the path of a file");
    EXPECT_FALSE(animation.GetAnimationInterface());
    EXPECT_EQ(animation.Close(), "");
    Simulator::Destroy();
}
