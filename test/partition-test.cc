/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// TopologyPartition: which rank of a distributed run each node belongs to.

#include "test-helpers.h"

#include "ns3/topology-generators.h"
#include "ns3/topology-partition.h"

#include <gtest/gtest.h>

#include <set>

using namespace ns3;

namespace
{

using test::ExpectRefused;

TEST(TopologyPartition, FatTreePodsStayWholeAndCoreSwitchesAreSharedOut)
{
    const Topology t = MakeFatTree(8); // 128 servers, 8 pods of 16; 80 switches
    const TopologyPartition p = TopologyPartition::Make(t, 2);
    EXPECT_EQ(p.GetMethod(), TopologyPartition::GROUPS);
    for (uint32_t s = 0; s < 128; ++s)
    {
        EXPECT_EQ(p.GetRank(s), s / 64) << "server " << s;
    }
    // Edge and aggregation switches of pod q (4 + 4 per pod) sit with the pod's servers.
    for (uint32_t pod = 0; pod < 8; ++pod)
    {
        for (uint32_t i = 0; i < 4; ++i)
        {
            EXPECT_EQ(p.GetRank(128 + pod * 4 + i), pod / 4);
            EXPECT_EQ(p.GetRank(160 + pod * 4 + i), pod / 4);
        }
    }
    EXPECT_EQ(p.CountNodes(0), 104u);
    EXPECT_EQ(p.CountNodes(1), 104u);
    EXPECT_EQ(p.CountServers(0), 64u);
    // Only aggregation-core links are cut: each core switch has 4 of its 8 links on the other
    // rank.
    EXPECT_EQ(p.GetCutLinks().size(), 64u);
    for (uint32_t link : p.GetCutLinks())
    {
        EXPECT_GE(t.GetLink(link).b, 192u);
    }
}

TEST(TopologyPartition, BCubeAndDCellSplitByCells)
{
    const Topology bcube = MakeBCube(8, 1); // 8 cells of 8 servers
    const TopologyPartition b = TopologyPartition::Make(bcube, 4);
    EXPECT_EQ(b.GetMethod(), TopologyPartition::GROUPS);
    for (uint32_t s = 0; s < 64; ++s)
    {
        EXPECT_EQ(b.GetRank(s), s / 16);
    }
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_EQ(b.CountServers(r), 16u);
        EXPECT_EQ(b.CountNodes(r), 20u); // 2 level-0 and 2 level-1 switches each
    }
    const Topology dcell = MakeDCell(4, 1); // 5 cells of 4 servers
    EXPECT_EQ(TopologyPartition::GetServerGroups(dcell).back(), 4u);
    const TopologyPartition d = TopologyPartition::Make(dcell, 5);
    for (uint32_t s = 0; s < 20; ++s)
    {
        EXPECT_EQ(d.GetRank(s), s / 4);
    }
    // A cell is whole with its switch: only the links between cells are cut (one per pair).
    EXPECT_EQ(d.GetCutLinks().size(), 10u);
}

TEST(TopologyPartition, MetisWhereThereAreNoGroupsEveryRankGetsNodes)
{
    const Topology t = MakeJellyfish(20, 4, 2, 1);
    EXPECT_TRUE(TopologyPartition::GetServerGroups(t).empty());
    const TopologyPartition p = TopologyPartition::Make(t, 3);
    EXPECT_EQ(p.GetMethod(), TopologyPartition::METIS);
    uint32_t nodes = 0;
    for (uint32_t r = 0; r < 3; ++r)
    {
        EXPECT_GT(p.CountNodes(r), 0u);
        nodes += p.CountNodes(r);
    }
    EXPECT_EQ(nodes, t.GetNNodes());
    // A server sits with its switch: METIS does not cut a link it need not.
    for (uint32_t link : p.GetCutLinks())
    {
        EXPECT_FALSE(t.IsServer(t.GetLink(link).a) || t.IsServer(t.GetLink(link).b));
    }
    // The same seed, the same partition.
    EXPECT_EQ(TopologyPartition::Make(t, 3).GetRanks(), p.GetRanks());
    // Asked for, METIS partitions a topology with groups too.
    EXPECT_EQ(TopologyPartition::Make(MakeFatTree(4), 2, TopologyPartition::METIS).GetMethod(),
              TopologyPartition::METIS);
}

TEST(TopologyPartition, RefusesMoreRanksThanNodesAndMissingGroups)
{
    const Topology t = MakeBCube(2, 1); // 4 servers, 4 switches
    ExpectRefused([&] { TopologyPartition::Make(t, 9); }, "9 ranks for bcube(n=2,k=1), which "
                                                         "has 8 nodes");
    ExpectRefused([&] { TopologyPartition::Make(t, 0); }, "every rank needs a node");
    ExpectRefused([&] { TopologyPartition::Make(t, 3, TopologyPartition::GROUPS); },
                  "has 2 natural groups (pods or cells), fewer than the 3 ranks");
    ExpectRefused(
        [&] { TopologyPartition::Make(MakeJellyfish(10, 4, 1, 1), 2, TopologyPartition::GROUPS); },
        "has no natural groups");
    ExpectRefused([] { TopologyPartition::ParseMethod("pods"); }, "give auto, groups or metis");
    EXPECT_EQ(TopologyPartition::ParseMethod("metis"), TopologyPartition::METIS);
    // One rank: everything on it, nothing cut.
    const TopologyPartition one = TopologyPartition::Make(t, 1);
    EXPECT_TRUE(one.GetCutLinks().empty());
    EXPECT_EQ(one.CountNodes(0), 8u);
}

} // namespace
