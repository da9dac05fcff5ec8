/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Flow trees: deterministic shortest-path trees and the path from any server to the root.

#include "ns3/flow-tree.h"
#include "ns3/topology-generators.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

using namespace ns3;

TEST(FlowTree, PathsAreShortestAndFollowLinksForEveryRoot)
{
    for (const std::string spec : {"bcube:n=3,k=1",
                                   "dcell:n=4,k=1",
                                   "jellyfish:switches=15,degree=4,seed=2",
                                   "fattree:k=4",
                                   "bcube:n=2,k=2",
                                   "dcell:n=2,k=2"})
    {
        const Topology t = BuildTopology(spec);
        const auto trees = BuildShortestPathTrees(t);
        ASSERT_EQ(trees.size(), t.GetNServers());
        for (uint32_t root = 0; root < t.GetNServers(); ++root)
        {
            const FlowTree& tree = trees[root];
            ASSERT_EQ(tree.GetRoot(), root);
            const auto dist = t.GetHopDistances(root);
            for (uint32_t u = 0; u < t.GetNServers(); ++u)
            {
                const auto path = tree.GetPathToRoot(u);
                ASSERT_EQ(path.front(), u);
                ASSERT_EQ(path.back(), root);
                ASSERT_EQ(path.size(), dist[u] + 1) << spec << ": not shortest, " << u << "->"
                                                    << root;
                ASSERT_EQ(tree.GetDepth(u), dist[u]);
                for (size_t i = 0; i + 1 < path.size(); ++i)
                {
                    ASSERT_TRUE(t.HasLink(path[i], path[i + 1]));
                }
            }
        }
    }
}

TEST(FlowTree, IsDeterministic)
{
    const Topology t = MakeDCell(5, 1);
    for (uint32_t root = 0; root < t.GetNServers(); ++root)
    {
        EXPECT_EQ(FlowTree::ShortestPath(t, root).GetParents(),
                  FlowTree::ShortestPath(t, root).GetParents());
    }
}

TEST(FlowTree, BCubeThreeByOneTieBreakTakesTheLowerPortFirst)
{
    // Server 0 (digits 00) to root 4 (digits 11): both 0-1-4 and 0-3-4 are shortest. The root's
    // level-0 switch is discovered first, so 4's level-0 neighbour 3 (digits 10) is on the path.
    const Topology t = MakeBCube(3, 1);
    const FlowTree tree = FlowTree::ShortestPath(t, 4);
    const std::vector<uint32_t> expected{0, 12, 3, 10, 4};
    EXPECT_EQ(tree.GetPathToRoot(0), expected);
    EXPECT_EQ(tree.GetNextServer(0), 3u);
    EXPECT_EQ(tree.GetNextServer(3), 4u);
    EXPECT_EQ(tree.GetParent(4), NO_INDEX);
}

TEST(FlowTree, FatTreeSpreadsTheWayUpOthersKeepTheFirstFound)
{
    // On a fat-tree the default trees spread equal-cost ties as ECMP does: the cross-pod
    // transfers toward one pod's servers share its 16 core-to-aggregation links evenly instead
    // of all crossing the first one.
    const Topology t = MakeFatTree(8);
    EXPECT_EQ(FlowTree::GetDefaultTies(t), FlowTree::Ties::SPREAD);
    EXPECT_EQ(FlowTree::GetDefaultTies(MakeBCube(3, 1)), FlowTree::Ties::FIRST_FOUND);
    EXPECT_EQ(FlowTree::GetDefaultTies(MakeDCell(4, 1)), FlowTree::Ties::FIRST_FOUND);
    const uint32_t podServers = 16;
    auto mostOnOneLinkIntoPod0 = [&](FlowTree::Ties ties) -> uint32_t {
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> load;
        for (uint32_t root = 0; root < podServers; ++root)
        {
            const FlowTree tree = FlowTree::ShortestPath(t, root, ties);
            for (uint32_t u = podServers; u < t.GetNServers(); ++u)
            {
                const auto path = tree.GetPathToRoot(u);
                EXPECT_EQ(path.size(), 7u); // server, edge, aggregation, core, ..., root
                ++load[{path[3], path[4]}];
            }
        }
        uint32_t most = 0;
        for (const auto& [link, n] : load)
        {
            most = std::max(most, n);
        }
        return most;
    };
    const uint32_t crossPod = podServers * (t.GetNServers() - podServers);
    EXPECT_EQ(mostOnOneLinkIntoPod0(FlowTree::Ties::FIRST_FOUND), crossPod);
    EXPECT_EQ(mostOnOneLinkIntoPod0(FlowTree::Ties::SPREAD), crossPod / 16);
    for (uint32_t root = 0; root < t.GetNServers(); root += 37)
    {
        EXPECT_EQ(FlowTree::ShortestPath(t, root).GetParents(),
                  FlowTree::ShortestPath(t, root, FlowTree::Ties::SPREAD).GetParents());
    }
    const Topology bcube = MakeBCube(3, 1);
    EXPECT_EQ(FlowTree::ShortestPath(bcube, 4).GetParents(),
              FlowTree::ShortestPath(bcube, 4, FlowTree::Ties::FIRST_FOUND).GetParents());
}

TEST(FlowTree, NextServerSkipsSwitches)
{
    const Topology t = MakeFatTree(4);
    const FlowTree tree = FlowTree::ShortestPath(t, 0);
    for (uint32_t s = 1; s < t.GetNServers(); ++s)
    {
        EXPECT_EQ(tree.GetNextServer(s), 0u) << "fat-tree servers relay through switches only";
    }
    EXPECT_THROW(tree.GetNextServer(0), std::invalid_argument);
}

TEST(FlowTree, CustomTreesAreCheckedAndUsable)
{
    // Four servers in a ring 0-1-2-3-0 (no switches): a tree rooted at 0 going the long way.
    Topology ring("ring", 4, 0);
    ring.AddLink(0, 1);
    ring.AddLink(1, 2);
    ring.AddLink(2, 3);
    ring.AddLink(3, 0);
    const uint32_t none = NO_INDEX;
    const FlowTree longWay(ring, 0, {none, 2, 3, 0});
    EXPECT_EQ(longWay.GetPathToRoot(1), (std::vector<uint32_t>{1, 2, 3, 0}));
    EXPECT_EQ(longWay.GetDepth(1), 3u);

    EXPECT_THROW(FlowTree(ring, 0, {none, 3, 1, 0}), std::invalid_argument); // 1-3 not a link
    EXPECT_THROW(FlowTree(ring, 0, {none, 2, 1, 0}), std::invalid_argument); // cycle 1-2
    EXPECT_THROW(FlowTree(ring, 0, {none, 0, 1, none}), std::invalid_argument); // 3 cut off
    EXPECT_THROW(FlowTree(ring, 0, {1, 0, 1, 0}), std::invalid_argument); // root with parent
    EXPECT_THROW(FlowTree(ring, 0, {none, 0}), std::invalid_argument); // wrong size
    EXPECT_THROW(FlowTree::ShortestPath(ring, 7), std::invalid_argument);
}
