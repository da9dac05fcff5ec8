/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Router files in the formats of ns-3's topology-read (Inet, Orbis, Rocketfuel): every line
// read or refused with its number, never dropped or doubled in silence.

#include "ns3/router-file.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace ns3;

namespace
{

/// The message of the std::invalid_argument that parsing throws ("" if none).
std::string
Error(const std::string& text, const std::string& format)
{
    try
    {
        ParseRouterFile(text, format, "f");
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

// Two pods of three routers, joined by two links: 6 routers, 8 links.
const std::string INET = "6 8\n"
                         "0 10 10\n1 20 10\n2 30 10\n3 10 20\n4 20 20\n5 30 20\n"
                         "0 1 1\n1 2 1\n0 2 1\n3 4 1\n4 5 1\n3 5 1\n0 3 1\n2 5 1\n";

// A map in the form of Rocketfuel's cch files: each link listed from both ends; router 9 has
// neighbours outside the map only; router 7 is of radius 1.
const std::string MAPS = "1 @Here,+XX + bb\t(3) &2 -> <2> <3>  =a.example r0\n"
                         "2 @Here,+XX + \t(2) &1 -> <1> <7> {-40} =b.example! r0\n"
                         "3 @There,+XX bb\t(1) -> <1>  =c.example r0\n"
                         "7 @Far,+XX\t(1) -> <2>  =d.example r1\n"
                         "9 @There,+XX + bb\t(1) &1 ->   =e.example r0\n";

TEST(RouterFileTest, InetReadsEveryRouterAndLink)
{
    const RouterGraph graph = ParseRouterFile(INET, "inet", "f");
    EXPECT_EQ(graph.names.size(), 6u);
    EXPECT_EQ(graph.links.size(), 8u);
    EXPECT_EQ(graph.lines.front(), 8u);
    EXPECT_EQ(graph.lines.back(), 15u);
    EXPECT_TRUE(graph.notes.empty());
}

TEST(RouterFileTest, InetRefusesWhatNs3DropsInSilence)
{
    // A link past the header's count, one short of it, a router never declared.
    EXPECT_EQ(Error(INET + "1 3 1\n", "inet"),
              "Inet file 'f' line 16: a line past the header's 8 links; correct the header or "
              "remove the line");
    EXPECT_EQ(Error("6 9" + INET.substr(3), "inet"),
              "Inet file 'f': the header promises 6 routers and 9 links, the file has 6 and 8; "
              "correct the header");
    EXPECT_EQ(Error("6 9" + INET.substr(3) + "0 6 1\n", "inet"),
              "Inet file 'f' line 16: router '6' is not among the routers declared after the "
              "header");
    // A self-loop, a link given twice (in the other direction), a router without links.
    EXPECT_EQ(Error("6 9" + INET.substr(3) + "4 4 1\n", "inet"),
              "Inet file 'f' line 16: a link from router '4' to itself; remove the line (a link "
              "joins two routers)");
    EXPECT_EQ(Error("6 9" + INET.substr(3) + "5 2\n", "inet"),
              "Inet file 'f' line 16: the link between '5' and '2' was already given on line 15; "
              "remove one of the two lines");
    EXPECT_EQ(Error("3 1\n0 0 0\n1 0 0\n2 0 0\n0 1\n", "inet"),
              "Inet file 'f' line 4: router 2 has no link; its server could reach no other");
    // A header that is not two counts, or one too large to allocate: refused before reading.
    EXPECT_NE(Error("6\n", "inet").find("line 1: an Inet file starts with the line 'NODES LINKS'"),
              std::string::npos);
    EXPECT_NE(Error("99999999999 1\n", "inet").find("line 1: an Inet file starts"),
              std::string::npos);
    EXPECT_NE(Error("2 1\n0 0\n", "inet").find("line 2: expected a router 'ID X Y'"),
              std::string::npos);
    EXPECT_NE(Error("2 1\n0 0 0\n0 0 0\n", "inet").find("line 3: router 0 was already declared"),
              std::string::npos);
}

TEST(RouterFileTest, OrbisReadsLinksAndRefusesDoubles)
{
    const RouterGraph graph = ParseRouterFile("a b\nb c\n\nc d\r\n", "orbis", "f");
    EXPECT_EQ(graph.names, (std::vector<std::string>{"a", "b", "c", "d"}));
    EXPECT_EQ(graph.lines, (std::vector<uint64_t>{1, 2, 4}));
    EXPECT_EQ(Error("a b\nb a\n", "orbis"),
              "Orbis file 'f' line 2: the link between 'b' and 'a' was already given on line 1; "
              "remove one of the two lines");
    EXPECT_EQ(Error("a b\nc\n", "orbis"), "Orbis file 'f' line 2: an Orbis line is a link "
                                           "'FROM TO', got 'c'");
    EXPECT_EQ(Error("a b\nc d\n", "orbis"),
              "Orbis file 'f': router 'c' cannot be reached from 'a': the network is in parts, "
              "and an AllReduce needs every server to reach every other");
    EXPECT_EQ(Error("\n\n", "orbis"), "Orbis file 'f': no link in it; is it in the Orbis format?");
}

TEST(RouterFileTest, RocketfuelMapsListEachLinkFromBothEnds)
{
    const RouterGraph graph = ParseRouterFile(MAPS, "rocketfuel", "f");
    EXPECT_EQ(graph.names, (std::vector<std::string>{"1", "2", "3", "7"}));
    EXPECT_EQ(graph.links.size(), 3u); // 1-2, 1-3, 2-7
    ASSERT_EQ(graph.notes.size(), 2u);
    EXPECT_NE(graph.notes[0].find("1 routers of radius r1"), std::string::npos);
    EXPECT_EQ(graph.notes[1],
              "router 9 (line 5) is left out: it has no neighbour inside the map");
    // The same direction twice is a doubled link; a neighbour without a line is unknown.
    EXPECT_NE(Error(MAPS + "4 @X (1) -> <1> <1> =x r0\n", "rocketfuel")
                  .find("line 6: the link between '4' and '1' was already given on line 6 in "
                        "this direction"),
              std::string::npos);
    EXPECT_EQ(Error(MAPS + "4 @X (1) -> <5> =x r0\n", "rocketfuel"),
              "Rocketfuel maps file 'f' line 6: neighbour <5> of router 4 has no line of its own "
              "in the map");
    EXPECT_NE(Error(MAPS + "4 @X (1) <1> =x r0\n", "rocketfuel")
                  .find("line 6: not a Rocketfuel maps line"),
              std::string::npos);
    EXPECT_NE(Error(MAPS + "1 @X (1) -> <2> =x r0\n", "rocketfuel")
                  .find("line 6: router 1 already has line 1"),
              std::string::npos);
}

TEST(RouterFileTest, RocketfuelWeightsGiveEachDirectionOnce)
{
    const RouterGraph graph =
        ParseRouterFile("a b 2.5\nb a 2.5\nb c 1\nc b 1\n", "rocketfuel", "f");
    EXPECT_EQ(graph.names.size(), 3u);
    EXPECT_EQ(graph.links.size(), 2u);
    EXPECT_NE(Error("a b 2.5\na b 2.5\n", "rocketfuel").find("line 2: the link between 'a' and "
                                                              "'b' was already given on line 1 "
                                                              "in this direction"),
              std::string::npos);
    EXPECT_NE(Error("a b 2.5\nb c heavy\n", "rocketfuel")
                  .find("line 2: a Rocketfuel weights line is 'FROM TO WEIGHT'"),
              std::string::npos);
}

TEST(RouterFileTest, AFileThatIsNoneIsRefused)
{
    EXPECT_NE(Error(std::string(100, '\0'), "inet").find("line 1: an Inet file starts"),
              std::string::npos);
    EXPECT_NE(Error("a b\n", "gml").find("unknown router file format 'gml'"), std::string::npos);
    EXPECT_NE(Error(INET, "rocketfuel").find("not a Rocketfuel maps line"), std::string::npos);
}

} // namespace
