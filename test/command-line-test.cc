/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Every command-line value is parsed and range-checked by the module, never by ns-3's abort.

#include "checked-command-line.h"

#include "ns3/allreduce-module.h"
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/pointer.h"
#include "ns3/data-rate.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

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
              "--delay is not a time: give a time such as 1us, 2.5ms or 3s (a number alone is "
              "seconds) in whole nanoseconds up to 1e9s (units ns, us, ms, s, min), got 'xyz'");
    EXPECT_EQ(ParseError(cmd, {"--delay=-1s"}).substr(0, 29), "--delay must not be negative:");
    EXPECT_EQ(ParseError(cmd, {"--delay=11s"}), "--delay must be from 0s to 10s, got '11s'");
    // ns-3 cannot represent less than a nanosecond: refused, not rounded to 0.
    EXPECT_EQ(ParseError(cmd, {"--delay=0.4ns"}).substr(0, 48),
              "--delay is finer than a nanosecond (ns-3's time ");
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

TEST(CommandLine, AnOptionAddedTwiceIsAProgrammingError)
{
    // ns-3.48's CommandLine aborts on it and 3.37's kept the first: refused alike in both.
    uint32_t pieces = 1;
    std::string text;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddInteger("pieces", "k", pieces, 1, 100);
    try
    {
        cmd.AddString("pieces", "again", text);
        ADD_FAILURE() << "the second --pieces was accepted";
    }
    catch (const std::logic_error& e)
    {
        EXPECT_STREQ(e.what(), "CheckedCommandLine: option --pieces added twice");
    }
    EXPECT_EQ(ParseError(cmd, {"--pieces=3"}), "");
    EXPECT_EQ(pieces, 3u);
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

TEST(Quantity, RatesTimesAndSizesAreReadExactlyOrRefused)
{
    EXPECT_EQ(Quantity::ParseRate("r", "10Gbps"), 10000000000u);
    EXPECT_EQ(Quantity::ParseRate("r", "1e10bps"), 10000000000u);
    EXPECT_EQ(Quantity::ParseRate("r", "2.5Mbps"), 2500000u);
    EXPECT_EQ(Quantity::ParseRate("r", "1Tbps"), 1000000000000u);
    EXPECT_EQ(Quantity::ParseRate("r", "1KBps"), 8000u);
    EXPECT_EQ(Quantity::FormatRate(1000000000000u), "1000Gbps"); // ns-3's DataRate reads it
    EXPECT_EQ(Quantity::FormatRate(2500000u), "2500Kbps");
    for (const char* bad : {"0bps", "0.5bps", "1e16Gbps", "10 Gbps", "10GB", "-1Gbps", "nan",
                            "1e99999999bps", "Gbps", "1.2.3Gbps", "1e-3bps"})
    {
        EXPECT_THROW(Quantity::ParseRate("r", bad), std::invalid_argument) << bad;
    }
    EXPECT_EQ(Quantity::ParseTimeNs("t", "1400ns"), 1400);
    EXPECT_EQ(Quantity::ParseTimeNs("t", "1.4us"), 1400);
    EXPECT_EQ(Quantity::ParseTimeNs("t", "1e-6"), 1000);
    EXPECT_EQ(Quantity::ParseTimeNs("t", "-2ms", true, true), -2000000);
    EXPECT_EQ(Quantity::ParseTimeNs("t", "1e9"), Quantity::MAX_TIME_NS);
    for (const char* bad : {"0.4ns", "1e10", "1e10s", "1ps", "-1s", "1s ", ""})
    {
        EXPECT_THROW(Quantity::ParseTimeNs("t", bad), std::invalid_argument) << bad;
    }
    EXPECT_THROW(Quantity::ParseTimeNs("t", "3", false), std::invalid_argument);
    EXPECT_EQ(Quantity::ParseSize("s", "1.5KiB"), 1536u);
    EXPECT_EQ(Quantity::ParseSize("s", "4e6"), 4000000u);
    EXPECT_THROW(Quantity::ParseSize("s", "1.3B"), std::invalid_argument);
    EXPECT_THROW(Quantity::ParseSize("s", "2e18"), std::invalid_argument);
}

TEST(CommandLine, RatesAndQueueSizesArriveTyped)
{
    DataRate rate("10Gbps");
    std::optional<QueueSize> queue;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddDataRate("data-rate", "rate", rate);
    cmd.AddQueueSize("queue-size", "queue", queue);
    EXPECT_EQ(ParseError(cmd, {"--data-rate=1.6Tbps"}), "");
    EXPECT_EQ(rate.GetBitRate(), 1600000000000u);
    EXPECT_FALSE(queue.has_value());
    EXPECT_EQ(ParseError(cmd, {"--data-rate=1e10bps", "--queue-size=64KiB"}), "");
    EXPECT_EQ(rate.GetBitRate(), 10000000000u);
    EXPECT_EQ(queue, QueueSize(QueueSizeUnit::BYTES, 65536));
    EXPECT_EQ(ParseError(cmd, {"--data-rate=2000Tbps"}).substr(0, 33),
              "--data-rate is above 1000Tbps: gi");
    EXPECT_EQ(ParseError(cmd, {"--data-rate=0bps"}).substr(0, 23), "--data-rate is zero: gi");
    EXPECT_NE(ParseError(cmd, {"--queue-size=10 p"}).find("--queue-size"), std::string::npos);
}

TEST(CommandLine, Ns3AttributesAreCheckedBeforeNs3SeesThem)
{
    uint32_t pieces = 1;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddInteger("pieces", "k", pieces, 1, 100);
    // Each of these aborts inside ns-3's own CommandLine.
    EXPECT_EQ(ParseError(cmd, {"--ns3::TcpSocket::SegmentSize=1e3"}).substr(0, 52),
              "--ns3::TcpSocket::SegmentSize must be a whole number");
    EXPECT_EQ(ParseError(cmd, {"--ns3::TcpSocket::ConnTimeout=0.5x"}).substr(0, 45),
              "--ns3::TcpSocket::ConnTimeout is not a time: ");
    EXPECT_EQ(ParseError(cmd, {"--ns3::Bogus::X=1"}).substr(0, 38),
              "--ns3::Bogus::X: no ns-3 type 'ns3::Bo");
    EXPECT_EQ(ParseError(cmd, {"--ns3::TcpSocket::Bogus=1"}),
              "--ns3::TcpSocket::Bogus: ns3::TcpSocket has no attribute 'Bogus'; see "
              "--PrintAttributes=ns3::TcpSocket");
    EXPECT_EQ(ParseError(cmd, {"--PrintAttributes=ns3::Bogus"}),
              "--PrintAttributes=ns3::Bogus: ns-3 has no type of that name; --PrintTypeIds "
              "lists the types");
    // A good one is set as the attribute's initial value.
    EXPECT_EQ(ParseError(cmd, {"--ns3::TcpSocket::SegmentSize=1400"}), "");
    UintegerValue size;
    TypeId::AttributeInformation info;
    ASSERT_TRUE(TypeId::LookupByName("ns3::TcpSocket").LookupAttributeByName("SegmentSize", &info));
    EXPECT_EQ(DynamicCast<const UintegerValue>(info.initialValue)->Get(), 1400u);
    Config::Reset();
}

namespace
{

/// ParseCheckedCommandLine over args (after the program name); the error, or "" when accepted.
std::string
ScriptParseError(std::vector<std::string> args, const std::vector<std::string>& setHere = {})
{
    args.insert(args.begin(), "script");
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    std::string topology;
    CommandLine cmd("script");
    cmd.AddValue("topology", "a spec", topology);
    try
    {
        ParseCheckedCommandLine(cmd, static_cast<int>(argv.size()), argv.data(), setHere);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/// The error of TakeNs3Argument(arg), or "" when it was taken.
std::string
TakeError(const std::string& arg)
{
    try
    {
        TakeNs3Argument(arg);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(CheckedArguments, ObjectTypesAreCheckedAgainstTheRegistryBeforeNs3CreatesThem)
{
    // ns-3 itself crashes on each of these (its pointer deserializer creates any text).
    const std::string model = "--ns3::PointToPointNetDevice::ReceiveErrorModel=";
    EXPECT_EQ(TakeError(model + "ns3::Bogus").substr(0, 80),
              "--ns3::PointToPointNetDevice::ReceiveErrorModel: 'ns3::Bogus' is not an ns-3 typ");
    EXPECT_NE(TakeError(model + "0").find("'0' is not an ns-3 type; give a type derived from "
                                          "ns3::ErrorModel"),
              std::string::npos);
    EXPECT_NE(TakeError(model + "ns3::TcpSocket").find("is not derived from ns3::ErrorModel"),
              std::string::npos);
    EXPECT_NE(TakeError(model + "ns3::RateErrorModel[Bogus=1]").find("has no attribute 'Bogus'"),
              std::string::npos);
    EXPECT_NE(TakeError(model + "ns3::RateErrorModel[ErrorRate=0.1").find("without closing"),
              std::string::npos);
    // ns-3's checker takes any double; an error rate is a probability.
    EXPECT_NE(TakeError(model + "ns3::RateErrorModel[ErrorRate=2]").find("is a probability"),
              std::string::npos);
    EXPECT_NE(TakeError("--ns3::RateErrorModel::ErrorRate=-1").find("is a probability"),
              std::string::npos);
    // A good one is created, with its attributes, as the initial value.
    EXPECT_EQ(TakeError(model + "ns3::RateErrorModel[ErrorRate=0.25|ErrorUnit=ERROR_UNIT_PACKET]"),
              "");
    TypeId::AttributeInformation info;
    ASSERT_TRUE(TypeId::LookupByName("ns3::PointToPointNetDevice")
                    .LookupAttributeByName("ReceiveErrorModel", &info));
    const auto pointer = DynamicCast<const PointerValue>(info.initialValue);
    ASSERT_TRUE(pointer);
    const Ptr<RateErrorModel> rate = pointer->Get<RateErrorModel>();
    ASSERT_TRUE(rate);
    EXPECT_DOUBLE_EQ(rate->GetRate(), 0.25);
    Config::Reset();
}

TEST(CheckedArguments, QuantitiesGoThroughTheModulesParsers)
{
    EXPECT_EQ(TakeError("--ns3::LosslessNetDevice::DataRate=1Tbps"), "");
    EXPECT_NE(TakeError("--ns3::LosslessNetDevice::DataRate=40MiB/s").find("is not a rate"),
              std::string::npos);
    EXPECT_NE(TakeError("--ns3::LosslessNetDevice::DataRate=18446745Gbps").find("above 1000Tbps"),
              std::string::npos);
    // Ranges in words, not the checker's "double -1.79769e+308:1.79769e+308".
    EXPECT_EQ(TakeError("--ns3::DcqcnRateControl::G=abc").find("-1.79769e+308"),
              std::string::npos);
    EXPECT_NE(TakeError("--ns3::TcpL4Protocol::SocketType=ns3::Bogus").find("the name of an "
                                                                             "ns-3 type"),
              std::string::npos);
    Config::Reset();
}

TEST(CheckedArguments, GlobalValuesAreCheckedAndBound)
{
    EXPECT_NE(TakeError("--RngRun=abc").find("--RngRun must be a whole number"),
              std::string::npos);
    EXPECT_NE(TakeError("--SimulatorImplementationType=ns3::Bogus")
                  .find("give a type derived from ns3::SimulatorImpl"),
              std::string::npos);
    EXPECT_NE(TakeError("--ChecksumEnabled=maybe").find("true or false"), std::string::npos);
    EXPECT_EQ(TakeError("--RngRun=7"), "");
    UintegerValue run;
    GlobalValue::GetValueByName("RngRun", run);
    EXPECT_EQ(run.Get(), 7u);
    GlobalValue::Bind("RngRun", UintegerValue(1));
}

TEST(CheckedArguments, ScriptsRefuseStrayRepeatedAndOverriddenArguments)
{
    EXPECT_EQ(ScriptParseError({"--topology=bcube:n=3,k=1"}), "");
    EXPECT_NE(ScriptParseError({"stray"}).find("unexpected argument 'stray'"), std::string::npos);
    EXPECT_EQ(ScriptParseError({"--topology=a", "--topology=b"}),
              "--topology is given twice; give it once");
    EXPECT_EQ(ScriptParseError({"--ns3::AllReduceController::GradientBytes=4"},
                               {"ns3::AllReduceController::GradientBytes"}),
              "--ns3::AllReduceController::GradientBytes has no effect: this program sets it "
              "itself; change it in the program's code");
    EXPECT_NE(ScriptParseError({"--PrintAttributes=ns3::Bogus"}).find("ns-3 has no type"),
              std::string::npos);
    Config::Reset();
}

TEST(CheckedArguments, TheEnvironmentIsCheckedBeforeNs3ReadsIt)
{
    setenv("NS_LOG", "Bogus", 1);
    EXPECT_NE(ScriptParseError({}).find("NS_LOG names the log component 'Bogus'"),
              std::string::npos);
    setenv("NS_LOG", "AllReduceController=info|bogus", 1);
    EXPECT_NE(ScriptParseError({}).find("the level 'bogus'"), std::string::npos);
    unsetenv("NS_LOG");
    // ns-3 skips a global value it does not know; the module refuses it.
    setenv("NS_GLOBAL_VALUE", "RngRun=2;Bogus=1", 1);
    EXPECT_NE(ScriptParseError({}).find("NS_GLOBAL_VALUE holds 'Bogus=1'"), std::string::npos);
    setenv("NS_GLOBAL_VALUE", "RngRun", 1);
    EXPECT_NE(ScriptParseError({}).find("NS_GLOBAL_VALUE holds 'RngRun'"), std::string::npos);
    unsetenv("NS_GLOBAL_VALUE");
    setenv("NS_ATTRIBUTE_DEFAULT", "ns3::PointToPointNetDevice::ReceiveErrorModel=0", 1);
    EXPECT_NE(ScriptParseError({}).find("NS_ATTRIBUTE_DEFAULT: "), std::string::npos);
    // A good default is set, and taken out of the environment (ns-3 never parses it).
    setenv("NS_ATTRIBUTE_DEFAULT", "ns3::TcpSocket::SegmentSize=1400", 1);
    EXPECT_EQ(ScriptParseError({}), "");
    EXPECT_EQ(std::getenv("NS_ATTRIBUTE_DEFAULT"), nullptr);
    TypeId::AttributeInformation info;
    ASSERT_TRUE(TypeId::LookupByName("ns3::TcpSocket").LookupAttributeByName("SegmentSize", &info));
    EXPECT_EQ(DynamicCast<const UintegerValue>(info.initialValue)->Get(), 1400u);
    unsetenv("NS_ATTRIBUTE_DEFAULT");
    Config::Reset();
}

TEST(CommandLine, QueueSizesArePacketsOrBytes)
{
    EXPECT_EQ(ParseQueueSize("q", "1000p"), QueueSize("1000p"));
    EXPECT_EQ(ParseQueueSize("q", "4MB"), QueueSize(QueueSizeUnit::BYTES, 4000000));
    EXPECT_EQ(ParseQueueSize("q", "64KiB"), QueueSize(QueueSizeUnit::BYTES, 65536));
    for (const char* bad : {"0p", "0", "1.5p", "5GB", "lots", "p", "-1p"})
    {
        EXPECT_THROW(ParseQueueSize("q", bad), std::invalid_argument) << bad;
    }
}

TEST(CommandLine, RanksGiveEachServerOnce)
{
    EXPECT_EQ(ParseRanksValue("ranks", "0-2,7"), (std::vector<uint32_t>{0, 1, 2, 7}));
    try
    {
        ParseRanksValue("ranks", "0,0");
        ADD_FAILURE() << "--ranks=0,0 accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()), "--ranks gives server 0 twice ('0,0'); give each rank its "
                                         "own server, e.g. 0,4,8,12 or 0-7");
    }
}

TEST(CommandLine, EmptyValuesAndOutputsOverInputsAreRefused)
{
    std::string in;
    std::string out;
    CheckedCommandLine cmd("prog", "test");
    cmd.AddString("schedule-in", "in", in);
    cmd.AddString("schedule-out", "out", out);
    EXPECT_EQ(ParseError(cmd, {"--schedule-out="}),
              "--schedule-out is given empty; give a value, or leave --schedule-out out for its "
              "default");
    const std::string path = "/tmp/allreduce-same-file-test.json";
    WriteTextFile(path, "test file", [](std::ostream& os) { os << "{}"; });
    EXPECT_EQ(ParseError(cmd, {"--schedule-in=" + path, "--schedule-out=/tmp/../" + path}), "");
    EXPECT_THROW(cmd.RefuseSameFile({"schedule-in"}, {"schedule-out"}), std::invalid_argument);
    EXPECT_EQ(ParseError(cmd, {"--schedule-in=" + path, "--schedule-out=/tmp/other.json"}), "");
    EXPECT_NO_THROW(cmd.RefuseSameFile({"schedule-in"}, {"schedule-out"}));
    std::remove(path.c_str());
    // Control characters never reach the terminal raw.
    EXPECT_EQ(Abbreviate("a\x1b[31mb\a"), "a\\x1b[31mb\\x07");
}
