/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Every command-line value is parsed and range-checked by the module, never by ns-3's abort.

#include "checked-command-line.h"

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Parses args (after the program name) into cmd; returns the error, or "" when accepted.
std::string
ParseError(CheckedCommandLine& cmd, std::vector<std::string> args)
{
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    try
    {
        cmd.Parse(static_cast<int>(argv.size()), argv.data());
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(CommandLine, ValuesAreKeptWholeAndChecked)
{
    std::string spec;
    uint32_t pieces = 1;
    Time delay = MicroSeconds(1);
    uint64_t bytes = 0;
    bool flag = false;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddString("topology", "spec", spec);
    cmd.AddInteger("pieces", "k", pieces, 1, 100);
    cmd.AddTime("delay", "delay", delay, Seconds(0), Seconds(10));
    cmd.AddBytes("size", "bytes", bytes, 4, 1 << 30);
    cmd.AddFlag("flag", "a flag", flag);
    EXPECT_EQ(ParseError(cmd, {"--topology=bcube:n=3, k=1", "--pieces=7", "--delay=2.5ms",
                               "--size=4MiB", "--flag"}),
              "");
    EXPECT_EQ(spec, "bcube:n=3, k=1");
    EXPECT_EQ(pieces, 7u);
    EXPECT_EQ(delay, MicroSeconds(2500));
    EXPECT_EQ(bytes, 4u << 20);
    EXPECT_TRUE(flag);
    EXPECT_TRUE(cmd.IsGiven("pieces"));
}

TEST(CommandLine, BadValuesNameTheOptionAndTheRange)
{
    uint32_t pieces = 1;
    int64_t link = -1;
    double loss = 0;
    Time delay;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddInteger("pieces", "k", pieces, 1, 100);
    cmd.AddInteger("link", "link", link, -1, 17);
    cmd.AddReal("loss", "p", loss, 0, 1);
    cmd.AddTime("delay", "delay", delay, Seconds(0), Seconds(10));
    EXPECT_EQ(ParseError(cmd, {"--pieces=1.5"}),
              "--pieces must be a whole number from 1 to 100, got '1.5'");
    EXPECT_EQ(ParseError(cmd, {"--pieces=-1"}),
              "--pieces must be a whole number from 1 to 100, got '-1'");
    EXPECT_EQ(ParseError(cmd, {"--pieces=99999999999999999999999"}),
              "--pieces must be a whole number from 1 to 100, got '99999999999999999999999'");
    EXPECT_EQ(ParseError(cmd, {"--link=-2"}),
              "--link must be a whole number from -1 to 17, got '-2'");
    EXPECT_EQ(ParseError(cmd, {"--loss=nan"}), "--loss must be a number from 0 to 1, got 'nan'");
    EXPECT_EQ(ParseError(cmd, {"--loss=inf"}), "--loss must be a number from 0 to 1, got 'inf'");
    EXPECT_EQ(ParseError(cmd, {"--delay=xyz"}),
              "--delay must be a time such as 1us, 100ms or 2s (units ns, us, ms, s, min), got "
              "'xyz'");
    EXPECT_EQ(ParseError(cmd, {"--delay=-1s"}), "--delay must be from 0s to 10s, got '-1s'");
}

TEST(CommandLine, UnknownOptionsAndStrayArgumentsAreRefused)
{
    uint32_t pieces = 1;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddInteger("pieces", "k", pieces, 1, 100);
    EXPECT_EQ(ParseError(cmd, {"--bogus=1"}), "unknown option '--bogus=1'; see --help for the "
                                              "options");
    EXPECT_EQ(ParseError(cmd, {"stray"}).rfind("unexpected argument 'stray'", 0), 0u);
    EXPECT_EQ(ParseError(cmd, {"--pieces", "3"}).rfind("unexpected argument '3'", 0), 0u);
}

TEST(CommandLine, SizesAndTimesParseStrictly)
{
    EXPECT_EQ(ParseByteSize("b", "1000"), 1000u);
    EXPECT_EQ(ParseByteSize("b", "16MB"), 16000000u);
    EXPECT_EQ(ParseByteSize("b", "64KiB"), 65536u);
    EXPECT_EQ(ParseByteSize("b", "1.5KiB"), 1536u);
    EXPECT_THROW(ParseByteSize("b", "1.5"), std::invalid_argument);
    EXPECT_THROW(ParseByteSize("b", "lots"), std::invalid_argument);
    EXPECT_THROW(ParseByteSize("b", "4 MB"), std::invalid_argument);
    EXPECT_THROW(ParseByteSize("b", "0x10"), std::invalid_argument);
    EXPECT_THROW(ParseByteSize("b", "123456789012345678901"), std::invalid_argument);
    EXPECT_EQ(ParseTimeValue("t", "1us"), MicroSeconds(1));
    EXPECT_EQ(ParseTimeValue("t", "2"), Seconds(2));
    EXPECT_EQ(ParseTimeValue("t", "1min"), Seconds(60));
    EXPECT_THROW(ParseTimeValue("t", "1 us"), std::invalid_argument);
    EXPECT_THROW(ParseTimeValue("t", "1fortnight"), std::invalid_argument);
}
