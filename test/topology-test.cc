/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Counts and structure of the topology generators, the spec strings and the topology file.

#include "paper-topologies.h"
#include "test-helpers.h"

#include "ns3/topology-generators.h"
#include "ns3/topology.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace ns3;

using ns3::test::Pow;
using ns3::test::SwitchDegree;

TEST(BCube, ThreeByOneHasFifteenNodesAndEighteenLinks)
{
    const Topology t = MakeBCube(3, 1);
    EXPECT_EQ(t.GetName(), "bcube(n=3,k=1)");
    EXPECT_EQ(t.GetNServers(), 9u);
    EXPECT_EQ(t.GetNSwitches(), 6u);
    EXPECT_EQ(t.GetNNodes(), 15u);
    EXPECT_EQ(t.GetNLinks(), 18u);
}

TEST(BCube, CountsFollowTheFormulas)
{
    for (uint32_t n : {2u, 3u, 4u, 5u})
    {
        for (uint32_t k : {0u, 1u, 2u})
        {
            const Topology t = MakeBCube(n, k);
            EXPECT_EQ(t.GetNServers(), Pow(n, k + 1)) << t.GetName();
            EXPECT_EQ(t.GetNSwitches(), (k + 1) * Pow(n, k)) << t.GetName();
            EXPECT_EQ(t.GetNLinks(), (k + 1) * Pow(n, k + 1)) << t.GetName();
        }
    }
}

TEST(BCube, ServersHaveKPlusOnePortsWiredByTheirDigits)
{
    const uint32_t n = 3;
    const uint32_t k = 2;
    const Topology t = MakeBCube(n, k);
    const uint32_t servers = t.GetNServers();
    const uint32_t perLevel = Pow(n, k);
    for (uint32_t s = 0; s < servers; ++s)
    {
        ASSERT_EQ(t.GetNPorts(s), k + 1);
        for (uint32_t level = 0; level <= k; ++level)
        {
            // Port `level` goes to the level-`level` switch named by the other digits.
            const uint32_t sw = t.GetNeighbors(s)[level];
            ASSERT_FALSE(t.IsServer(sw));
            const uint32_t index = sw - servers - level * perLevel;
            ASSERT_LT(index, perLevel);
            const uint32_t weight = Pow(n, level);
            const uint32_t expected = (s / (weight * n)) * weight + s % weight;
            EXPECT_EQ(index, expected) << "server " << s << " level " << level;
        }
    }
    EXPECT_EQ(t.GetNServerPorts(), uint64_t{servers} * (k + 1));
    // Every switch joins n servers that differ only in the digit of its level.
    for (uint32_t sw = servers; sw < t.GetNNodes(); ++sw)
    {
        ASSERT_EQ(t.GetNPorts(sw), n);
        const uint32_t level = (sw - servers) / perLevel;
        const uint32_t weight = Pow(n, level);
        auto digit = [&](uint32_t s) { return (s / weight) % n; };
        auto otherDigits = [&](uint32_t s) { return s - digit(s) * weight; };
        std::set<uint32_t> digits;
        for (uint32_t s : t.GetNeighbors(sw))
        {
            ASSERT_TRUE(t.IsServer(s));
            digits.insert(digit(s));
            EXPECT_EQ(otherDigits(s), otherDigits(t.GetNeighbors(sw)[0]));
        }
        EXPECT_EQ(digits.size(), n);
    }
}

TEST(BCube, ServerDiameterIsTwiceTheLevels)
{
    EXPECT_EQ(MakeBCube(3, 1).GetServerDiameter(), 4u);
    EXPECT_EQ(MakeBCube(2, 2).GetServerDiameter(), 6u);
}

TEST(DCell, FourByOneHasTwentyFiveNodesAndThirtyLinks)
{
    const Topology t = MakeDCell(4, 1);
    EXPECT_EQ(t.GetName(), "dcell(n=4,k=1)");
    EXPECT_EQ(t.GetNServers(), 20u);
    EXPECT_EQ(t.GetNSwitches(), 5u);
    EXPECT_EQ(t.GetNLinks(), 30u);
}

TEST(DCell, LevelOneLinksFollowTheRule)
{
    // In DCell_1, server [i, j-1] links to server [j, i] for every i < j.
    const uint32_t n = 4;
    const Topology t = MakeDCell(n, 1);
    uint32_t levelLinks = 0;
    for (uint32_t i = 0; i <= n; ++i)
    {
        for (uint32_t j = i + 1; j <= n; ++j)
        {
            EXPECT_TRUE(t.HasLink(i * n + (j - 1), j * n + i)) << i << "," << j;
            ++levelLinks;
        }
    }
    uint32_t serverLinks = 0;
    for (const auto& link : t.GetLinks())
    {
        serverLinks += (t.IsServer(link.a) && t.IsServer(link.b)) ? 1 : 0;
    }
    EXPECT_EQ(serverLinks, levelLinks);
    // Level 0: server u hangs off the switch of its DCell_0.
    for (uint32_t u = 0; u < t.GetNServers(); ++u)
    {
        EXPECT_EQ(t.GetNeighbors(u)[0], t.GetNServers() + u / n);
        EXPECT_EQ(t.GetNPorts(u), 2u);
    }
}

TEST(DCell, LevelTwoLinksFollowTheRuleInEverySubDCell)
{
    const Topology t = MakeDCell(2, 2); // t0=2, t1=6, t2=42
    ASSERT_EQ(t.GetNServers(), 42u);
    EXPECT_EQ(t.GetNSwitches(), 21u);
    EXPECT_EQ(t.GetNLinks(), 42u * 4 / 2);
    // Level 2: sub-DCell_1s of 6 servers, 7 of them; [i, j-1] - [j, i].
    for (uint32_t i = 0; i < 7; ++i)
    {
        for (uint32_t j = i + 1; j < 7; ++j)
        {
            EXPECT_TRUE(t.HasLink(i * 6 + (j - 1), j * 6 + i)) << i << "," << j;
        }
    }
    // Level 1 inside each DCell_1: 3 DCell_0s of 2 servers.
    for (uint32_t base = 0; base < 42; base += 6)
    {
        for (uint32_t i = 0; i < 3; ++i)
        {
            for (uint32_t j = i + 1; j < 3; ++j)
            {
                EXPECT_TRUE(t.HasLink(base + i * 2 + (j - 1), base + j * 2 + i));
            }
        }
    }
    for (uint32_t u = 0; u < t.GetNServers(); ++u)
    {
        EXPECT_EQ(t.GetNPorts(u), 3u) << "server " << u;
    }
}

TEST(Jellyfish, IsDegreeRegularAndConnected)
{
    for (uint32_t switches : {10u, 15u, 20u, 33u})
    {
        for (uint32_t degree : {3u, 4u, 6u})
        {
            if ((switches * degree) % 2 != 0)
            {
                continue;
            }
            for (uint64_t seed = 1; seed <= 15; ++seed)
            {
                const Topology t = MakeJellyfish(switches, degree, 2, seed);
                ASSERT_TRUE(t.IsConnected()) << t.GetName();
                ASSERT_EQ(t.GetNServers(), 2 * switches);
                for (uint32_t sw = t.GetNServers(); sw < t.GetNNodes(); ++sw)
                {
                    ASSERT_EQ(SwitchDegree(t, sw), degree) << t.GetName() << " switch " << sw;
                }
                for (uint32_t s = 0; s < t.GetNServers(); ++s)
                {
                    ASSERT_EQ(t.GetNeighbors(s), std::vector<uint32_t>{t.GetNServers() + s / 2});
                }
            }
        }
    }
}

TEST(Jellyfish, OddParityIsRefusedRatherThanBuiltOnePortShort)
{
    // 15 switches x 3 ports is odd: no 3-regular graph exists, and building one switch a port
    // short would silently change what the user asked for.
    EXPECT_THROW(MakeJellyfish(15, 3, 1, 1), std::invalid_argument);
    // The message names the product where it fits, and does not compute it where it does not
    // (a fuzzer's 6444444001547220283 switches of degree 3 overflowed it).
    const std::string small = test::ErrorOf([] { MakeJellyfish(15, 3, 1, 1); });
    EXPECT_NE(small.find("switches x degree = 45 is odd"), std::string::npos) << small;
    const std::string huge = test::ErrorOf(
        [] { BuildTopology("jellyfish:switches=6444444001547220283,degree=3"); });
    EXPECT_NE(huge.find("switches x degree is odd"), std::string::npos) << huge;
}

TEST(Jellyfish, SameSeedGivesSameGraphAndOtherSeedsDiffer)
{
    const Topology a = MakeJellyfish(20, 4, 1, 7);
    const Topology b = MakeJellyfish(20, 4, 1, 7);
    EXPECT_EQ(a.GetLinks(), b.GetLinks());
    std::set<std::vector<std::pair<uint32_t, uint32_t>>> graphs;
    for (uint64_t seed = 1; seed <= 5; ++seed)
    {
        std::vector<std::pair<uint32_t, uint32_t>> edges;
        const Topology t = MakeJellyfish(20, 4, 1, seed);
        for (const auto& l : t.GetLinks())
        {
            edges.emplace_back(l.a, l.b);
        }
        graphs.insert(edges);
    }
    EXPECT_EQ(graphs.size(), 5u) << "five seeds should give five different graphs";
}

TEST(Jellyfish, TheSeedOneGraphOfTheHeadlineNeverChanges)
{
    // Every result on Jellyfish depends on this graph: a change to the random process must show
    // up here, not silently in the tables.
    const Topology t = MakeJellyfish(10, 4, 1, 1);
    std::vector<std::pair<uint32_t, uint32_t>> switchLinks;
    for (const auto& l : t.GetLinks())
    {
        if (!t.IsServer(l.a))
        {
            switchLinks.emplace_back(l.a, l.b);
        }
    }
    const std::vector<std::pair<uint32_t, uint32_t>> expected{
        {10, 11}, {10, 13}, {10, 16}, {10, 19}, {11, 12}, {11, 14}, {11, 17},
        {12, 15}, {12, 18}, {12, 19}, {13, 16}, {13, 17}, {13, 19}, {14, 16},
        {14, 18}, {14, 19}, {15, 16}, {15, 17}, {15, 18}, {17, 18}};
    EXPECT_EQ(switchLinks, expected);
}

TEST(Jellyfish, DenseGraphsNeedTheFixUpAndStillComeOutRegular)
{
    // degree = switches - 2 leaves the random process stuck often; the fix-up completes it.
    for (uint64_t seed = 1; seed <= 30; ++seed)
    {
        const Topology t = MakeJellyfish(10, 8, 1, seed);
        for (uint32_t sw = t.GetNServers(); sw < t.GetNNodes(); ++sw)
        {
            ASSERT_EQ(SwitchDegree(t, sw), 8u) << "seed " << seed;
        }
    }
    const Topology complete = MakeJellyfish(6, 5, 1, 3);
    EXPECT_EQ(complete.GetNLinks(), 6u + 15u);
}

/// The switch-to-switch links of a topology, as (a, b) with a < b.
std::vector<std::pair<uint32_t, uint32_t>>
SwitchLinks(const Topology& t)
{
    std::vector<std::pair<uint32_t, uint32_t>> links;
    for (const auto& l : t.GetLinks())
    {
        if (!t.IsServer(l.a) && !t.IsServer(l.b))
        {
            links.emplace_back(std::min(l.a, l.b), std::max(l.a, l.b));
        }
    }
    return links;
}

TEST(RandomGraph, HasTheAskedCountsIsConnectedAndSimple)
{
    // From a tree to every pair, sparse and dense (the two ways the extra links are drawn).
    for (const auto& [switches, links] : std::vector<std::pair<uint32_t, uint32_t>>{
             {1, 0}, {2, 1}, {7, 6}, {7, 10}, {7, 21}, {12, 20}, {12, 60}, {40, 100}})
    {
        for (uint64_t seed = 1; seed <= 10; ++seed)
        {
            const Topology t = MakeRandomGraph(switches, links, 2 * switches + 1, seed);
            ASSERT_EQ(t.GetNSwitches(), switches) << t.GetName();
            ASSERT_EQ(t.GetNServers(), 2 * switches + 1) << t.GetName();
            const auto edges = SwitchLinks(t);
            ASSERT_EQ(edges.size(), links) << t.GetName();
            const std::set<std::pair<uint32_t, uint32_t>> distinct(edges.begin(), edges.end());
            ASSERT_EQ(distinct.size(), edges.size())
                << t.GetName() << ": a pair linked twice";
            ASSERT_TRUE(t.IsConnected()) << t.GetName();
            for (uint32_t s = 0; s < t.GetNServers(); ++s)
            {
                ASSERT_EQ(t.GetNPorts(s), 1u) << t.GetName() << " server " << s;
                ASSERT_FALSE(t.IsServer(t.GetNeighbors(s)[0])) << t.GetName();
            }
            t.Validate();
        }
    }
}

TEST(RandomGraph, SameSeedGivesSameGraphOtherSeedsDifferAndServersSpreadUnevenly)
{
    EXPECT_EQ(MakeRandomGraph(20, 35, 30, 4).GetLinks(), MakeRandomGraph(20, 35, 30, 4).GetLinks());
    std::set<std::vector<std::pair<uint32_t, uint32_t>>> graphs;
    bool uneven = false;
    for (uint64_t seed = 1; seed <= 5; ++seed)
    {
        const Topology t = MakeRandomGraph(20, 35, 30, seed);
        graphs.insert(SwitchLinks(t));
        std::vector<uint32_t> servers(t.GetNSwitches());
        for (uint32_t s = 0; s < t.GetNServers(); ++s)
        {
            ++servers[t.GetNeighbors(s)[0] - t.GetNServers()];
        }
        uneven |= *std::max_element(servers.begin(), servers.end()) >= 3;
    }
    EXPECT_EQ(graphs.size(), 5u) << "five seeds should give five different graphs";
    EXPECT_TRUE(uneven) << "servers should land on switches unevenly, not round-robin";
}

TEST(RandomGraph, TheSeedOneGraphNeverChanges)
{
    // Results on random graphs (and the general checkpoint's training family) depend on these
    // graphs: a change to the random process must show up here.
    const Topology t = MakeRandomGraph(6, 8, 5, 1);
    std::vector<uint32_t> serverSwitch;
    for (uint32_t s = 0; s < t.GetNServers(); ++s)
    {
        serverSwitch.push_back(t.GetNeighbors(s)[0]);
    }
    const std::vector<std::pair<uint32_t, uint32_t>> expectedLinks{
        {5, 6}, {5, 7}, {5, 10}, {6, 8}, {6, 9}, {6, 10}, {7, 8}, {7, 10}};
    const std::vector<uint32_t> expectedServers{5, 8, 8, 9, 7};
    EXPECT_EQ(SwitchLinks(t), expectedLinks);
    EXPECT_EQ(serverSwitch, expectedServers);
}

TEST(FatTree, KFourHasSixteenServersTwentySwitchesFortyEightLinks)
{
    const Topology t = MakeFatTree(4);
    EXPECT_EQ(t.GetNServers(), 16u);
    EXPECT_EQ(t.GetNSwitches(), 20u);
    EXPECT_EQ(t.GetNLinks(), 48u);
    EXPECT_EQ(t.GetServerDiameter(), 6u);
}

TEST(FatTree, PodsAreWiredEdgeToAggregationAndAggregationToEveryCoreGroup)
{
    const uint32_t k = 6;
    const uint32_t half = k / 2;
    const Topology t = MakeFatTree(k);
    const uint32_t servers = k * k * k / 4;
    ASSERT_EQ(t.GetNServers(), servers);
    ASSERT_EQ(t.GetNSwitches(), 5 * k * k / 4);
    ASSERT_EQ(t.GetNLinks(), 3 * k * k * k / 4);
    const uint32_t edge = servers;
    const uint32_t agg = edge + k * half;
    const uint32_t core = agg + k * half;
    auto podOf = [&](uint32_t sw) { return (sw < agg ? sw - edge : sw - agg) / half; };
    for (uint32_t e = edge; e < agg; ++e)
    {
        uint32_t down = 0;
        uint32_t up = 0;
        for (uint32_t v : t.GetNeighbors(e))
        {
            if (t.IsServer(v))
            {
                ++down;
                EXPECT_EQ(v / (half * half), podOf(e)) << "server in another pod";
            }
            else
            {
                ++up;
                ASSERT_GE(v, agg);
                ASSERT_LT(v, core);
                EXPECT_EQ(podOf(v), podOf(e));
            }
        }
        EXPECT_EQ(down, half);
        EXPECT_EQ(up, half);
    }
    for (uint32_t c = core; c < t.GetNNodes(); ++c)
    {
        std::set<uint32_t> pods;
        for (uint32_t v : t.GetNeighbors(c))
        {
            ASSERT_GE(v, agg);
            ASSERT_LT(v, core);
            pods.insert(podOf(v));
        }
        EXPECT_EQ(t.GetNPorts(c), k);
        EXPECT_EQ(pods.size(), k) << "a core switch reaches every pod once";
    }
}

TEST(PaperTopologies, HaveTheSizesOfTableTwo)
{
    const std::vector<std::pair<uint32_t, uint32_t>> expected{
        {15, 18}, {24, 32}, {35, 50}, {25, 30}, {36, 45}, {49, 63}, {20, 30}, {30, 45}, {40, 60}};
    const auto specs = PaperTopologySpecs();
    ASSERT_EQ(specs.size(), expected.size());
    for (size_t i = 0; i < specs.size(); ++i)
    {
        const Topology t = BuildTopology(specs[i]);
        EXPECT_EQ(t.GetNNodes(), expected[i].first) << specs[i];
        EXPECT_EQ(t.GetNLinks(), expected[i].second) << specs[i];
        // The table's printed sizes are ours, except where it marks a misprint.
        const PaperTopology* row = FindPaperTopology(specs[i]);
        ASSERT_NE(row, nullptr);
        EXPECT_EQ(row->nodes, t.GetNNodes()) << specs[i];
        EXPECT_EQ(row->links != t.GetNLinks(), row->linksDiffer) << specs[i];
    }
    EXPECT_EQ(FindPaperTopology("jellyfish:switches=20,degree=4,servers=1,seed=1")->GetSizeText(),
              "(40,59)*");
    EXPECT_EQ(FindPaperTopology("fattree:k=4"), nullptr);
}

TEST(Spec, BuildsEachKindAndAppliesJellyfishDefaults)
{
    EXPECT_EQ(BuildTopology("bcube:n=3,k=1"), MakeBCube(3, 1));
    EXPECT_EQ(BuildTopology("dcell:k=1,n=4"), MakeDCell(4, 1));
    EXPECT_EQ(BuildTopology("fattree:k=4"), MakeFatTree(4));
    EXPECT_EQ(BuildTopology(" bcube: n = 3 , k=1 "), MakeBCube(3, 1)) << "blanks are ignored";
    EXPECT_EQ(BuildTopology("jellyfish:switches=10,degree=4"), MakeJellyfish(10, 4, 1, 1));
    EXPECT_EQ(BuildTopology("jellyfish:switches=10,degree=4,servers=2,seed=9"),
              MakeJellyfish(10, 4, 2, 9));
    EXPECT_EQ(BuildTopology("random:switches=12,links=20,servers=16,seed=3"),
              MakeRandomGraph(12, 20, 16, 3));
    EXPECT_EQ(BuildTopology("random:switches=12"), MakeRandomGraph(12, 24, 12, 1));
    EXPECT_EQ(BuildTopology("random:switches=4"), MakeRandomGraph(4, 6, 4, 1))
        << "fewer than 2 x switches pairs: every pair";
}

TEST(TopologyFile, RoundTripGivesTheSameGraph)
{
    for (const std::string spec :
         {"bcube:n=3,k=1",
          "dcell:n=3,k=1",
          "jellyfish:switches=12,degree=3,seed=4",
          "fattree:k=4",
          "random:switches=9,links=14,servers=11,seed=2"})
    {
        const Topology original = BuildTopology(spec);
        std::stringstream text;
        WriteTopology(original, text);
        const Topology back = ReadTopology(text, "memory");
        EXPECT_EQ(back, original) << spec;
        EXPECT_EQ(back.GetNeighbors(0), original.GetNeighbors(0)) << "port order kept";
    }
}

TEST(TopologyFile, RoundTripThroughADiskFileAndTheFileSpec)
{
    const Topology original = MakeDCell(4, 1);
    const std::string path = ::testing::TempDir() + "allreduce-roundtrip.topo";
    WriteTopologyFile(original, path);
    EXPECT_EQ(BuildTopology("file:" + path), original);
    std::remove(path.c_str());
}

TEST(TopologyFile, ReadsCommentsBlankLinesAndAHandWrittenGraph)
{
    std::istringstream text("# two servers through one switch\n"
                            "\n"
                            "topology tiny star   # a name\n"
                            "servers 2\r\n"
                            "switches 1\n"
                            "link 0 2\n"
                            "   link 2 1\n");
    const Topology t = ReadTopology(text, "tiny.topo");
    EXPECT_EQ(t.GetName(), "tiny star");
    EXPECT_EQ(t.GetNServers(), 2u);
    EXPECT_EQ(t.GetNSwitches(), 1u);
    EXPECT_EQ(t.GetNLinks(), 2u);
    EXPECT_EQ(t.GetServerDiameter(), 2u);
    EXPECT_EQ(t.GetKind(2), NodeKind::SWITCH);
}

TEST(TopologyFile, UnnamedFileIsNamedAfterItsSource)
{
    std::istringstream text("servers 2\nswitches 0\nlink 0 1\n");
    EXPECT_EQ(ReadTopology(text, "pair.topo").GetName(), "pair.topo");
}

TEST(TopologyFile, LinkColumnsGiveRateFactorAndDelayAndRoundTrip)
{
    std::istringstream text("servers 2\nswitches 1\n"
                            "link 0 2 rate=2.5Gbps delay=1.5us\n"
                            "link 1 2 factor=0.5\n");
    const Topology t = ReadTopology(text, "uneven.topo");
    EXPECT_EQ(t.GetLinkProperties(0).rateBps, 2500000000u);
    EXPECT_EQ(t.GetLinkProperties(0).delayNs, 1500);
    EXPECT_EQ(t.GetLinkProperties(0).rateFactor, 1.0);
    EXPECT_EQ(t.GetLinkProperties(1).rateFactor, 0.5);
    EXPECT_EQ(t.GetLinkProperties(1).rateBps, 0u) << "the network's rate";
    EXPECT_LT(t.GetLinkProperties(1).delayNs, 0) << "the network's delay";
    EXPECT_EQ(t.CountUnevenLinks(), 2u);
    std::stringstream again;
    WriteTopology(t, again);
    EXPECT_NE(again.str().find("link 0 2 rate=2500Mbps delay=1500ns"), std::string::npos)
        << again.str();
    const Topology back = ReadTopology(again, "memory");
    for (uint32_t l = 0; l < 2; ++l)
    {
        EXPECT_EQ(back.GetLinkProperties(l).rateBps, t.GetLinkProperties(l).rateBps);
        EXPECT_EQ(back.GetLinkProperties(l).rateFactor, t.GetLinkProperties(l).rateFactor);
        EXPECT_EQ(back.GetLinkProperties(l).delayNs, t.GetLinkProperties(l).delayNs);
    }
}

TEST(TopologyFile, BadLinkColumnsAreRefusedWithTheLine)
{
    for (const auto& [column, says] :
         std::vector<std::pair<std::string, std::string>>{
             {"rate=0Gbps", "rate is zero: give a rate from 1bps to 1000Tbps"},
             {"rate=fast", "rate is not a rate"},
             {"rate=10GB", "rate is not a rate"},
             {"rate=2000Tbps", "rate is above 1000Tbps"},
             {"delay=1.5ns", "delay is finer than a nanosecond"},
             {"delay=-1us", "delay must not be negative"},
             {"factor=0", "factor must be a number in (0, 1000]"},
             {"factor=0.5x", "factor must be a number"},
             {"speed=2", "unknown link column 'speed=2'"},
             {"rate=1Gbps rate=2Gbps", "'rate' is given twice"}})
    {
        std::istringstream text("servers 2\nswitches 1\nlink 0 2 " + column + "\nlink 1 2\n");
        try
        {
            ReadTopology(text, "bad.topo");
            ADD_FAILURE() << column << " was accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("bad.topo:3: " + says), std::string::npos)
                << e.what();
        }
    }
}

TEST(Spec, SlowOptionsSlowASeededShareOfTheLinksOnAnyKind)
{
    const Topology slow = BuildTopology("bcube:n=3,k=1,slow=0.25,slowrate=0.25,slowseed=3");
    EXPECT_EQ(slow, MakeBCube(3, 1)) << "the same graph";
    EXPECT_EQ(slow.CountUnevenLinks(), 5u) << "round(0.25 x 18)";
    std::vector<uint32_t> slowed;
    for (uint32_t l = 0; l < slow.GetNLinks(); ++l)
    {
        if (slow.GetLinkProperties(l).rateFactor == 0.25)
        {
            slowed.push_back(l);
        }
    }
    EXPECT_EQ(slowed.size(), 5u);
    const auto chosen = [](const std::string& spec) {
        const Topology t = BuildTopology(spec);
        std::vector<uint32_t> out;
        for (uint32_t l = 0; l < t.GetNLinks(); ++l)
        {
            if (!t.GetLinkProperties(l).IsDefault())
            {
                out.push_back(l);
            }
        }
        return out;
    };
    EXPECT_EQ(chosen("bcube:n=3,k=1,slow=0.25,slowseed=3"), slowed) << "the seed decides";
    EXPECT_NE(chosen("bcube:n=3,k=1,slow=0.25,slowseed=4"), slowed);
    EXPECT_EQ(BuildTopology("fattree:k=4,slow=1").CountUnevenLinks(), 48u);
    EXPECT_EQ(BuildTopology("bcube:n=3,k=1,slow=0.01").CountUnevenLinks(), 1u) << "at least one";
    // After a file path too, whose own commas stay in the path.
    const std::string path = ::testing::TempDir() + "allreduce,slow.topo";
    WriteTopologyFile(MakeDCell(3, 1), path);
    EXPECT_EQ(BuildTopology("file:" + path + ",slow=0.5").CountUnevenLinks(), 9u);
    EXPECT_EQ(BuildTopology("file:" + path).CountUnevenLinks(), 0u);
    std::remove(path.c_str());
    for (const char* bad : {"bcube:n=3,k=1,slow=0", "bcube:n=3,k=1,slow=x",
                            "bcube:n=3,k=1,slow=0.5,slowrate=2", "bcube:n=3,k=1,slowrate=0.5",
                            "bcube:n=3,k=1,slow=0.5,slowseed=-1"})
    {
        EXPECT_THROW(BuildTopology(bad), std::invalid_argument) << bad;
    }
}
