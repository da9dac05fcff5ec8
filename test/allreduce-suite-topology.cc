/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's topology cases: the generators' documented sizes, Jellyfish's seeds, topology
// files and the messages of refused specs (doc/allreduce.rst, "Topology").

#include "allreduce-suite-cases.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"

#include <fstream>
#include <set>
#include <sstream>

using namespace ns3;
using namespace ns3::allreduce_suite;
using ns3::test::Pow;
using ns3::test::SwitchDegree;

namespace
{

/// \return the links of a topology as (a, b) pairs, in order
std::vector<std::pair<uint32_t, uint32_t>>
LinkPairs(const Topology& t)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const TopologyLink& l : t.GetLinks())
    {
        pairs.emplace_back(l.a, l.b);
    }
    return pairs;
}

} // namespace

/**
 * \ingroup allreduce-tests
 * Each generator gives the servers, switches and links of DESIGN's table and the manual, and
 * the seed paper's nine topologies have the sizes of its Table 2.
 */
class TopologyCountsTestCase : public TestCase
{
  public:
    TopologyCountsTestCase()
        : TestCase("topology: BCube, DCell, fat-tree and Jellyfish have the documented node and "
                   "link counts, the seed paper's nine its Table 2 sizes")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t n = 2; n <= 4; ++n)
        {
            for (uint32_t k = 0; k <= 2; ++k)
            {
                const Topology t = MakeBCube(n, k);
                NS_TEST_EXPECT_MSG_EQ(t.GetNServers(), Pow(n, k + 1), t.GetName());
                NS_TEST_EXPECT_MSG_EQ(t.GetNSwitches(), (k + 1) * Pow(n, k), t.GetName());
                NS_TEST_EXPECT_MSG_EQ(t.GetNLinks(), (k + 1) * Pow(n, k + 1), t.GetName());
                NS_TEST_EXPECT_MSG_EQ(t.GetNPorts(0), k + 1, t.GetName() << " server ports");
                NS_TEST_EXPECT_MSG_EQ(t.IsConnected(), true, t.GetName());
            }
        }
        const Topology bcube = BuildTopology("bcube:n=3,k=1");
        NS_TEST_EXPECT_MSG_EQ(bcube.GetName(), "bcube(n=3,k=1)", "BCube's name");
        NS_TEST_EXPECT_MSG_EQ(bcube.GetServerDiameter(), 4, "BCube(3,1): twice the levels");

        const Topology dcell = BuildTopology("dcell:n=4,k=1");
        NS_TEST_EXPECT_MSG_EQ(dcell.GetName(), "dcell(n=4,k=1)", "DCell's name");
        NS_TEST_EXPECT_MSG_EQ(dcell.GetNServers(), 20, "DCell(4,1): t_1 = 4 x 5");
        NS_TEST_EXPECT_MSG_EQ(dcell.GetNSwitches(), 5, "DCell(4,1): one per DCell_0");
        NS_TEST_EXPECT_MSG_EQ(dcell.GetNLinks(), 30, "DCell(4,1): t_1 x (k + 2) / 2");
        const Topology dcell2 = MakeDCell(2, 2);
        NS_TEST_EXPECT_MSG_EQ(dcell2.GetNServers(), 42, "DCell(2,2): t_2 = 6 x 7");
        NS_TEST_EXPECT_MSG_EQ(dcell2.GetNSwitches(), 21, "DCell(2,2)");
        NS_TEST_EXPECT_MSG_EQ(dcell2.GetNLinks(), 84, "DCell(2,2): 42 x 4 / 2");

        for (uint32_t k : {4U, 6U})
        {
            const Topology t = MakeFatTree(k);
            NS_TEST_EXPECT_MSG_EQ(t.GetNServers(), k * k * k / 4, t.GetName());
            NS_TEST_EXPECT_MSG_EQ(t.GetNSwitches(), 5 * k * k / 4, t.GetName());
            NS_TEST_EXPECT_MSG_EQ(t.GetNLinks(), 3 * k * k * k / 4, t.GetName());
            NS_TEST_EXPECT_MSG_EQ(t.GetServerDiameter(), 6, t.GetName());
        }

        // The seed paper's Table 2, "(nodes, links)"; Jellyfish with seed 1.
        const std::vector<std::tuple<std::string, uint32_t, uint32_t>> paper{
            {"bcube:n=3,k=1", 15, 18},
            {"bcube:n=4,k=1", 24, 32},
            {"bcube:n=5,k=1", 35, 50},
            {"dcell:n=4,k=1", 25, 30},
            {"dcell:n=5,k=1", 36, 45},
            {"dcell:n=6,k=1", 49, 63},
            {"jellyfish:switches=10,degree=4,servers=1,seed=1", 20, 30},
            {"jellyfish:switches=15,degree=4,servers=1,seed=1", 30, 45},
            {"jellyfish:switches=20,degree=4,servers=1,seed=1", 40, 60}};
        for (const auto& [spec, nodes, links] : paper)
        {
            const Topology t = BuildTopology(spec);
            NS_TEST_EXPECT_MSG_EQ(t.GetNNodes(), nodes, spec);
            NS_TEST_EXPECT_MSG_EQ(t.GetNLinks(), links, spec);
        }
    }
};

/**
 * \ingroup allreduce-tests
 * Jellyfish is random but seeded: the same seed gives the same graph, five seeds five graphs,
 * every switch ends with exactly r switch links, and the headline's seed-1 graph never changes.
 */
class JellyfishSeedTestCase : public TestCase
{
  public:
    JellyfishSeedTestCase()
        : TestCase("topology: Jellyfish is r-regular and connected, the same seed gives the same "
                   "graph and the headline's seed-1 graph is fixed")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(
            (LinkPairs(MakeJellyfish(20, 4, 1, 7)) == LinkPairs(MakeJellyfish(20, 4, 1, 7))),
            true,
            "seed 7 twice gave two graphs");
        std::set<std::vector<std::pair<uint32_t, uint32_t>>> graphs;
        for (uint64_t seed = 1; seed <= 5; ++seed)
        {
            const Topology t = MakeJellyfish(20, 4, 2, seed);
            graphs.insert(LinkPairs(t));
            NS_TEST_EXPECT_MSG_EQ(t.IsConnected(), true, t.GetName());
            NS_TEST_EXPECT_MSG_EQ(t.GetNServers(), 40, t.GetName());
            for (uint32_t sw = t.GetNServers(); sw < t.GetNNodes(); ++sw)
            {
                NS_TEST_EXPECT_MSG_EQ(SwitchDegree(t, sw), 4, t.GetName() << " switch " << sw);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(graphs.size(), 5, "five seeds should give five graphs");

        // Every Jellyfish result depends on this graph: a change to the random process (or to
        // the random stream under it) must show here.
        const Topology headline = BuildTopology("jellyfish:switches=10,degree=4");
        std::vector<std::pair<uint32_t, uint32_t>> switchLinks;
        for (const auto& [a, b] : LinkPairs(headline))
        {
            if (!headline.IsServer(a))
            {
                switchLinks.emplace_back(a, b);
            }
        }
        const std::vector<std::pair<uint32_t, uint32_t>> expected{
            {10, 11}, {10, 13}, {10, 16}, {10, 19}, {11, 12}, {11, 14}, {11, 17},
            {12, 15}, {12, 18}, {12, 19}, {13, 16}, {13, 17}, {13, 19}, {14, 16},
            {14, 18}, {14, 19}, {15, 16}, {15, 17}, {15, 18}, {17, 18}};
        NS_TEST_EXPECT_MSG_EQ((switchLinks == expected),
                              true,
                              "jellyfish(10,4,1) seed 1 is not the headline's graph");
    }
};

/**
 * \ingroup allreduce-tests
 * Every generator's graph, written as a topology file and read back through the spec
 * `file:PATH`, is the same graph, port order included; a hand-written file is read.
 */
class TopologyFileTestCase : public TestCase
{
  public:
    TopologyFileTestCase()
        : TestCase("topology: graphs written to topology files read back the same through "
                   "file:PATH; a hand-written file is read")
    {
    }

  private:
    void DoRun() override
    {
        uint32_t index = 0;
        for (const std::string spec : {"bcube:n=3,k=1",
                                       "dcell:n=3,k=1",
                                       "jellyfish:switches=12,degree=3,seed=4",
                                       "fattree:k=4",
                                       "random:switches=9,links=14,servers=11,seed=2"})
        {
            const Topology original = BuildTopology(spec);
            const std::string path =
                CreateTempDirFilename("topology-" + std::to_string(index++) + ".topo");
            WriteTopologyFile(original, path);
            const Topology back = BuildTopology("file:" + path);
            NS_TEST_EXPECT_MSG_EQ(back.DescribeDifference(original), "", spec);
            NS_TEST_EXPECT_MSG_EQ((back.GetNeighbors(0) == original.GetNeighbors(0)),
                                  true,
                                  spec << ": port order");
        }

        std::istringstream text("# two servers through one switch\n"
                                "\n"
                                "topology tiny star   # a name\n"
                                "servers 2\n"
                                "switches 1\n"
                                "link 0 2\n"
                                "   link 2 1\n");
        const Topology tiny = ReadTopology(text, "tiny.topo");
        NS_TEST_EXPECT_MSG_EQ(tiny.GetName(), "tiny star", "the file's name");
        NS_TEST_EXPECT_MSG_EQ(tiny.GetNServers(), 2, "servers");
        NS_TEST_EXPECT_MSG_EQ(tiny.GetNSwitches(), 1, "switches");
        NS_TEST_EXPECT_MSG_EQ(tiny.GetNLinks(), 2, "links");
        NS_TEST_EXPECT_MSG_EQ(tiny.IsServer(2), false, "node 2 is the switch");
    }
};

/**
 * \ingroup allreduce-tests
 * Bad specs and topology files are refused with a message that names the parameter, the value
 * and what is accepted (the messages the manual and the GoogleTest BadInput tests give).
 */
class BadTopologySpecTestCase : public TestCase
{
  public:
    BadTopologySpecTestCase()
        : TestCase("topology: bad specs and files are refused with the documented message")
    {
    }

  private:
    void DoRun() override
    {
        const auto spec = [](const std::string& s) { return ErrorOf([&s] { BuildTopology(s); }); };
        NS_TEST_EXPECT_MSG_EQ(spec("bcube:n=1,k=1"), "BCube n must be >= 2, got 1", "BCube n");
        NS_TEST_EXPECT_MSG_EQ(spec("dcell:n=4,k=-2"), "DCell k must be >= 0, got -2", "DCell k");
        NS_TEST_EXPECT_MSG_EQ(spec("fattree:k=5"),
                              "FatTree k must be even and >= 2, got 5",
                              "odd fat-tree");
        NS_TEST_EXPECT_MSG_EQ(spec("bcube:n=3"), "bcube needs 'k', e.g. bcube:k=...", "no k");
        NS_TEST_EXPECT_MSG_EQ(spec("bcube:n=three,k=1"),
                              "bcube n must be a whole number, got 'three'",
                              "not a number");
        NS_TEST_EXPECT_MSG_EQ(spec("bcube:n=3,k=1,levels=2"),
                              "unknown key 'levels' for bcube; accepted keys: n, k; and on any "
                              "kind slow=FRACTION[,slowrate=X][,slowseed=S] and "
                              "ina=all|FRACTION[,slots=N][,inaseed=S]",
                              "unknown key");
        NS_TEST_EXPECT_MSG_EQ(spec("jellyfish:switches=5,degree=0"),
                              "Jellyfish degree must be >= 1, got 0 (switch-to-switch ports per "
                              "switch)",
                              "Jellyfish degree");
        const std::string kind = spec("torus:n=3");
        NS_TEST_EXPECT_MSG_EQ(Mentions(kind, "unknown topology kind 'torus'") &&
                                  Mentions(kind, "bcube:n=N,k=K") && Mentions(kind, "file:PATH"),
                              true,
                              kind);
        const std::string odd = ErrorOf([] { MakeJellyfish(15, 3, 1, 1); });
        NS_TEST_EXPECT_MSG_EQ(Mentions(odd, "switches x degree = 45 is odd"), true, odd);
        const std::string split = spec("jellyfish:switches=4,degree=1,seed=3");
        NS_TEST_EXPECT_MSG_EQ(Mentions(split, "disconnected (2 components)") &&
                                  Mentions(split, "try another seed or a larger degree"),
                              true,
                              split);
        const std::string huge = spec("bcube:n=100,k=5");
        NS_TEST_EXPECT_MSG_EQ(Mentions(huge, "bcube(n=100,k=5) is too large to fit in memory") &&
                                  Mentions(huge, "the limit is 16777216 nodes"),
                              true,
                              huge);
        NS_TEST_EXPECT_MSG_EQ(Mentions(spec("file:/nonexistent/dir/x.topo"),
                                       "cannot open topology file '/nonexistent/dir/x.topo'"),
                              true,
                              "a missing file is named");

        const auto file = [](const std::string& text) {
            return ErrorOf([&text] {
                std::istringstream is(text);
                ReadTopology(is, "bad.topo");
            });
        };
        NS_TEST_EXPECT_MSG_EQ(file("servers 2\nswitches 1\nlink 0 2\nlink 1 x\n"),
                              "bad.topo:4: expected 'link A B' with two node ids, got 'link 1 x'",
                              "a bad line is named with its number");
        const std::string apart =
            file("servers 4\nswitches 2\nlink 0 4\nlink 1 4\nlink 2 5\nlink 3 5\n");
        NS_TEST_EXPECT_MSG_EQ(
            Mentions(apart, "bad.topo: topology 'bad.topo' is disconnected: it has 2 components"),
            true,
            apart);
        const std::string alone = file("servers 3\nswitches 1\nlink 0 3\nlink 1 3\n");
        NS_TEST_EXPECT_MSG_EQ(Mentions(alone, "server 2 has no link"), true, alone);
    }
};

Cases
ns3::allreduce_suite::MakeTopologyCases()
{
    return {new TopologyCountsTestCase,
            new JellyfishSeedTestCase,
            new TopologyFileTestCase,
            new BadTopologySpecTestCase};
}
