/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Bad input gets a clear error that names the parameter, the value and what is accepted.

#include "ns3/flow-tree.h"
#include "ns3/topology-generators.h"
#include "ns3/topology.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

using namespace ns3;

namespace
{

/// The message of the std::invalid_argument that building `spec` throws ("" if none).
std::string
SpecError(const std::string& spec)
{
    try
    {
        BuildTopology(spec);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

std::string
FileError(const std::string& text)
{
    std::istringstream is(text);
    try
    {
        ReadTopology(is, "bad.topo");
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

#define EXPECT_MENTIONS(message, part) EXPECT_NE((message).find(part), std::string::npos) << message

TEST(BadInput, BCubeNBelowTwoNamesNValueAndRange)
{
    const std::string m = SpecError("bcube:n=1,k=1");
    EXPECT_EQ(m, "BCube n must be >= 2, got 1");
}

TEST(BadInput, NegativeKIsRefusedForBCubeAndDCell)
{
    EXPECT_EQ(SpecError("bcube:n=3,k=-1"), "BCube k must be >= 0, got -1");
    EXPECT_EQ(SpecError("dcell:n=4,k=-2"), "DCell k must be >= 0, got -2");
    EXPECT_EQ(SpecError("dcell:n=0,k=1"), "DCell n must be >= 2, got 0");
}

TEST(BadInput, FatTreeKMustBeEven)
{
    EXPECT_EQ(SpecError("fattree:k=5"), "FatTree k must be even and >= 2, got 5");
    EXPECT_EQ(SpecError("fattree:k=0"), "FatTree k must be even and >= 2, got 0");
}

TEST(BadInput, JellyfishDegreeThatCannotBeMet)
{
    const std::string m = SpecError("jellyfish:switches=5,degree=5");
    EXPECT_MENTIONS(m, "Jellyfish degree must be between 1 and switches-1 = 4, got 5");
    EXPECT_EQ(SpecError("jellyfish:switches=5,degree=0"),
              "Jellyfish degree must be >= 1, got 0 (switch-to-switch ports per switch)");
    EXPECT_EQ(SpecError("jellyfish:switches=1,degree=1"),
              "Jellyfish switches must be >= 2, got 1");
    EXPECT_EQ(SpecError("jellyfish:switches=4,degree=2,servers=0"),
              "Jellyfish servers must be >= 1, got 0 (servers per switch)");
}

TEST(BadInput, JellyfishThatComesOutDisconnectedSaysSoAndSuggestsASeed)
{
    // Degree 1 pairs the switches up: four switches always make two components.
    const std::string m = SpecError("jellyfish:switches=4,degree=1,seed=3");
    EXPECT_MENTIONS(m, "disconnected (2 components)");
    EXPECT_MENTIONS(m, "seed=3");
    EXPECT_MENTIONS(m, "try another seed or a larger degree");
}

TEST(BadInput, RandomGraphWithLinksOutOfRangeSaysTheRange)
{
    EXPECT_EQ(SpecError("random:switches=5,links=3"),
              "random graph links must be between switches-1 = 4 (a tree, the fewest that "
              "connect them) and 10 (every pair of switches), got 3");
    EXPECT_MENTIONS(SpecError("random:switches=5,links=11"), "and 10 (every pair of switches)");
    EXPECT_EQ(SpecError("random:switches=0"), "random graph switches must be >= 1, got 0");
    EXPECT_EQ(SpecError("random:switches=3,servers=0"), "random graph servers must be >= 1, got 0");
    EXPECT_MENTIONS(SpecError("random:switches=3,seed=-1"), "random graph seed must be >= 0");
    EXPECT_MENTIONS(SpecError("random:switches=3,degree=2"), "unknown key 'degree' for random");
    EXPECT_MENTIONS(SpecError("random:switches=4000000000000"), "too large to fit in memory");
    EXPECT_MENTIONS(SpecError("random:switches=4000000000000,links=5"), "every pair");
}

TEST(BadInput, UnknownKindListsTheAcceptedKinds)
{
    const std::string m = SpecError("torus:n=3");
    EXPECT_MENTIONS(m, "unknown topology kind 'torus'");
    EXPECT_MENTIONS(m, "bcube:n=N,k=K");
    EXPECT_MENTIONS(m, "random:switches=S");
    EXPECT_MENTIONS(m, "file:PATH");
}

TEST(BadInput, UnknownKeyListsTheAcceptedKeys)
{
    EXPECT_EQ(SpecError("bcube:n=3,k=1,levels=2"),
              "unknown key 'levels' for bcube; accepted keys: n, k; and on any kind "
              "slow=FRACTION[,slowrate=X][,slowseed=S] and ina=all|FRACTION[,slots=N][,inaseed=S]");
    EXPECT_MENTIONS(SpecError("jellyfish:switches=10,degree=4,ports=3"), "unknown key 'ports'");
}

TEST(BadInput, MissingOrMalformedValues)
{
    EXPECT_EQ(SpecError("bcube:n=3"), "bcube needs 'k', e.g. bcube:k=...");
    EXPECT_EQ(SpecError("bcube:n=three,k=1"), "bcube n must be a whole number, got 'three'");
    EXPECT_EQ(SpecError("bcube:n=3,k=1.5"), "bcube k must be a whole number, got '1.5'");
    EXPECT_MENTIONS(SpecError("bcube:n=3,n=4,k=1"), "key 'n' is given twice");
    EXPECT_MENTIONS(SpecError("bcube:n,k=1"), "expected key=value, got 'n'");
    EXPECT_MENTIONS(SpecError("bcube:n=99999999999999999999,k=1"), "out of range");
}

TEST(BadInput, MissingFileNamesThePath)
{
    const std::string m = SpecError("file:/nonexistent/dir/x.topo");
    EXPECT_MENTIONS(m, "cannot open topology file '/nonexistent/dir/x.topo'");
    EXPECT_MENTIONS(SpecError("file:"), "needs a path");
}

TEST(BadInput, MalformedFileLineGivesItsLineNumber)
{
    EXPECT_EQ(FileError("servers 2\nswitches 1\nlink 0 2\nlink 1 x\n"),
              "bad.topo:4: expected 'link A B' with two node ids, got 'link 1 x'");
    EXPECT_EQ(FileError("servers 2\nswitches 1\nwire 0 2\n"),
              "bad.topo:3: unknown keyword 'wire'; expected 'topology', 'servers', 'switches', "
              "'link' or 'aggregator'");
    EXPECT_EQ(FileError("servers -2\n"),
              "bad.topo:1: expected 'servers COUNT' with a whole number COUNT >= 0, got "
              "'servers -2'");
    EXPECT_MENTIONS(FileError("servers 2\nswitches 1\nlink 0 7\n"),
                    "bad.topo:3: link 0-7 names a node that does not exist (nodes are 0..2)");
    EXPECT_MENTIONS(FileError("servers 2\nswitches 1\nlink 0 0\n"), "bad.topo:3: ");
    EXPECT_MENTIONS(FileError("servers 2\nswitches 1\nlink 0 2\nlink 2 0\n"),
                    "bad.topo:4: link 2-0 is given twice");
    EXPECT_MENTIONS(FileError("link 0 1\n"), "bad.topo:1: 'servers N' and 'switches M' must");
    EXPECT_MENTIONS(FileError("servers 2\n"), "missing 'switches' line");
}

TEST(BadInput, DisconnectedGraphIsRefused)
{
    const std::string m = FileError("servers 4\nswitches 2\nlink 0 4\nlink 1 4\nlink 2 5\n"
                                    "link 3 5\n");
    EXPECT_MENTIONS(m, "bad.topo: topology 'bad.topo' is disconnected: it has 2 components");
}

TEST(BadInput, ServerWithNoLinkIsRefused)
{
    const std::string m = FileError("servers 3\nswitches 1\nlink 0 3\nlink 1 3\n");
    EXPECT_MENTIONS(m, "server 2 has no link");
}

TEST(BadInput, SizeThatWouldNotFitInMemoryStatesTheSize)
{
    const std::string m = SpecError("bcube:n=100,k=5");
    EXPECT_MENTIONS(m, "bcube(n=100,k=5) is too large to fit in memory");
    EXPECT_MENTIONS(m, "1000000000000 servers");
    EXPECT_MENTIONS(m, "GiB");
    EXPECT_MENTIONS(m, "the limit is 16777216 nodes");
    EXPECT_MENTIONS(SpecError("dcell:n=8,k=4"), "is too large to fit in memory");
    EXPECT_MENTIONS(SpecError("dcell:n=2,k=1000000"), "more than 1.8e19 servers");
    EXPECT_MENTIONS(SpecError("fattree:k=1000"), "250000000 servers");
    EXPECT_MENTIONS(SpecError("jellyfish:switches=100000000,degree=4"), "too large");
}

TEST(BadInput, TopologyFileThatIsADirectoryIsNamed)
{
    EXPECT_MENTIONS(SpecError("file:/tmp"), "topology file '/tmp' is a directory");
}

TEST(BadInput, TopologyFileWithAByteOrderMarkIsRead)
{
    EXPECT_EQ(FileError("\xEF\xBB\xBFservers 2\nswitches 1\nlink 0 2\nlink 1 2\n"), "");
}

TEST(BadInput, HugeFileLineIsNotEchoedWhole)
{
    const std::string m = FileError("servers 2\nswitches 1\nlink 0 " + std::string(1 << 20, 'x') +
                                    "\n");
    EXPECT_MENTIONS(m, "bad.topo:3: expected 'link A B'");
    EXPECT_LT(m.size(), 300u) << m.size();
}

TEST(BadInput, FlowTreesThatWouldNotFitInMemoryAreRefusedBeforeBuilding)
{
    // 40,000 servers on one switch: 40,000 trees over 40,001 nodes, 12.8 GB.
    Topology star("star", 40000, 1);
    for (uint32_t s = 0; s < 40000; ++s)
    {
        star.AddLink(s, 40000);
    }
    try
    {
        BuildShortestPathTrees(star);
        ADD_FAILURE() << "built 40,000 trees";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string m = e.what();
        EXPECT_MENTIONS(m, "the 40000 flow trees of 'star'");
        EXPECT_MENTIONS(m, "would need 12207 MiB, more than the limit of 8192 MiB");
    }
}

TEST(BadInput, DiameterOfALargeTopologyCanBeSampled)
{
    const Topology t = BuildTopology("bcube:n=4,k=2");
    EXPECT_EQ(t.GetServerDiameter(4), t.GetServerDiameter());
    EXPECT_LE(t.GetServerDiameter(1), t.GetServerDiameter());
    EXPECT_GE(t.GetServerDiameter(1), 1u);
}

TEST(BadInput, EmptySpecItemsAreRefused)
{
    EXPECT_MENTIONS(SpecError("bcube:n=3,,k=1"), "has an empty item");
    EXPECT_MENTIONS(SpecError("bcube:n=3,k=1,"), "has an empty item");
    // Spaces around items are fine.
    EXPECT_EQ(SpecError("bcube:n=3, k=1"), "");
}

TEST(BadInput, JellyfishThatCannotBeRegularIsRefused)
{
    EXPECT_MENTIONS(SpecError("jellyfish:switches=5,degree=3"),
                    "Jellyfish with 5 switches of degree 3 cannot be 3-regular");
}
