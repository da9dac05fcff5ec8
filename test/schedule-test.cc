/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The validator catches every kind of broken schedule; schedule files round-trip and bad ones
// are refused with the field named.

#include "test-fixtures.h"

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

using namespace ns3;

namespace
{

using ns3::test::OnStar;
using ns3::test::StarReduce;

Plan
GreedyPlan(const std::string& spec)
{
    return CreateScheduler("greedy")->MakePlan(BuildTopology(spec), 1);
}

std::string
Verdict(const Plan& p, const Schedule& s)
{
    const ScheduleCheck c = ValidateSchedule(p.workloads, s);
    return c.valid ? "valid" : c.error;
}

std::string
ReadError(const std::string& text)
{
    std::istringstream is(text);
    try
    {
        ReadScheduleJson(is, "t.json");
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

std::string
Replace(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

} // namespace

TEST(Validator, AcceptsTheSchedulersSchedules)
{
    const Plan p = GreedyPlan("bcube:n=3,k=1");
    EXPECT_EQ(Verdict(p, p.schedule), "valid");
}

TEST(Validator, FindsALinkConflict)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    Schedule s = p.schedule;
    // Two workloads ready at the start that both leave server 2 through switch 6, as workload
    // 1 (2->6->0) does.
    std::vector<uint32_t> first;
    for (const Workload& w : p.workloads.GetAll())
    {
        if (p.workloads.GetDeps(w.id).empty() && w.links.front() == p.workloads.Get(1).links.front())
        {
            first.push_back(w.id);
        }
    }
    ASSERT_GE(first.size(), 2u);
    Schedule bad;
    bad.rounds = {{first[0], first[1]}};
    EXPECT_EQ(Verdict(p, bad),
              "round 0: workload " + std::to_string(first[1]) +
                  " needs link 2->6, which another workload of round 0 already uses");
}

TEST(Validator, FindsABrokenDependency)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    Schedule bad;
    bad.rounds = {{0}}; // 1->0 before 3->1
    EXPECT_EQ(Verdict(p, bad),
              "round 0: workload 0 depends on workload 2, which has not finished in an earlier "
              "round");
}

TEST(Validator, FindsMissingAndRepeatedWorkloads)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    Schedule s = p.schedule;
    const uint32_t last = s.rounds.back().back();
    s.rounds.back().pop_back();
    if (s.rounds.back().empty())
    {
        s.rounds.pop_back();
    }
    EXPECT_EQ(Verdict(p, s), "workload " + std::to_string(last) + " is never scheduled");
    Schedule twice = p.schedule;
    twice.rounds.push_back({twice.rounds.front().front()});
    EXPECT_NE(Verdict(p, twice).find("is scheduled again (it finished in round 0)"),
              std::string::npos);
    Schedule unknown = p.schedule;
    unknown.rounds.push_back({1000});
    EXPECT_NE(Verdict(p, unknown).find("workload 1000 does not exist"), std::string::npos);
}

TEST(Validator, FindsAContributionAddedTwice)
{
    // 1 and 2 both send server 1's contribution to 0 (2 got it from 1 first).
    const WorkloadSet ws =
        OnStar({StarReduce(0, 1, 2, {1}), StarReduce(1, 2, 0, {1, 2}), StarReduce(2, 1, 0, {1})});
    Schedule s;
    s.rounds = {{0}, {1}, {2}};
    const ScheduleCheck c = ValidateSchedule(ws, s);
    EXPECT_FALSE(c.valid);
    EXPECT_EQ(c.error, "round 2: workload 2 adds server 1's contribution to chunk 0 piece 0 at "
                       "server 0 a second time");
}

TEST(Validator, FindsDataCarriedThatTheSenderDoesNotHold)
{
    const WorkloadSet ws = OnStar({StarReduce(0, 1, 0, {1, 3})});
    Schedule s;
    s.rounds = {{0}};
    EXPECT_EQ(ValidateSchedule(ws, s).error,
              "round 0: workload 0 carries server 3's contribution to chunk 0 piece 0, which "
              "server 1 does not hold");
}

TEST(Validator, FindsAnIncompleteAllReduce)
{
    // Everything reaches server 0's chunk, but nothing is gathered back.
    const WorkloadSet ws =
        OnStar({StarReduce(0, 1, 0, {1}), StarReduce(1, 2, 0, {2}), StarReduce(2, 3, 0, {3})});
    Schedule s;
    s.rounds = {{0}, {1}, {2}};
    EXPECT_EQ(ValidateSchedule(ws, s).error,
              "after round 2: server 0 does not hold the full sum of chunk 1 piece 0 (server 1's "
              "contribution is missing)");
}

/// The plan's workloads with each workload changed by edit, on the same topology and semantics.
WorkloadSet
EditWorkloads(const Plan& p, const std::function<void(Workload&)>& edit)
{
    std::vector<Workload> list = p.workloads.GetList();
    for (Workload& w : list)
    {
        edit(w);
    }
    return WorkloadSet(p.workloads.GetTopology(), list, p.workloads.GetSemantics(),
                       p.workloads.GetPieces());
}

TEST(Validator, RefusesDependenciesEmptiedEvenWhenTheRoundsStillWork)
{
    // The rounds still deliver the data in order (barrier replay would verify), but run as soon
    // as dependencies allow (async replay), a sender could go before what it merges arrives.
    const Plan p = GreedyPlan("bcube:n=3,k=1");
    const WorkloadSet emptied = EditWorkloads(p, [](Workload& w) { w.deps.clear(); });
    const ScheduleCheck c = ValidateSchedule(emptied, p.schedule);
    EXPECT_FALSE(c.valid);
    EXPECT_NE(c.error.find("but does not depend on it, directly or through other workloads"),
              std::string::npos)
        << c.error;
}

TEST(Validator, RefusesOneMissingDependencyAmongSeveral)
{
    const Plan p = GreedyPlan("bcube:n=3,k=1");
    bool found = false;
    uint32_t edited = 0;
    uint32_t dropped = 0;
    const WorkloadSet ws = EditWorkloads(p, [&](Workload& w) {
        if (w.deps.size() >= 2 && w.phase == Phase::REDUCE && !found)
        {
            found = true;
            edited = w.id;
            dropped = w.deps.back();
            w.deps.pop_back();
        }
    });
    ASSERT_TRUE(found);
    const ScheduleCheck c = ValidateSchedule(ws, p.schedule);
    EXPECT_FALSE(c.valid);
    const Workload& w = ws.Get(edited);
    EXPECT_NE(c.error.find("workload " + std::to_string(edited) + " (round "), std::string::npos)
        << c.error;
    EXPECT_NE(c.error.find("reads server " + std::to_string(w.src) + "'s chunk " +
                           std::to_string(w.chunk) + " piece 0 after workload " +
                           std::to_string(dropped)),
              std::string::npos)
        << c.error;
}

TEST(Validator, AcceptsDependenciesThatOrderTheDataThroughOthers)
{
    // Gathers in merge trees replace a server's partial sum long after it sent it: the order is
    // through the root, never a direct dependency. Every scheduler's schedule passes.
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4"})
    {
        for (const char* name : {"ps", "ring", "greedy", "balanced"})
        {
            const Plan p = CreateScheduler(name)->MakePlan(BuildTopology(spec), 2);
            EXPECT_EQ(Verdict(p, p.schedule), "valid") << spec << " " << name;
        }
    }
}

TEST(Validator, RefusesCarriesThatLeaveOutWhatTheSenderHolds)
{
    // Server 2 holds 1's and its own contribution and sends both; saying {2} would make the
    // receiver count 1 twice once 1's contribution arrives another way.
    Workload second = StarReduce(1, 2, 0, {2});
    second.deps = {0};
    const WorkloadSet ws = OnStar({StarReduce(0, 1, 2, {1}), second});
    Schedule s;
    s.rounds = {{0}, {1}};
    EXPECT_EQ(ValidateSchedule(ws, s).error,
              "round 1: workload 1 says it carries 1 contributions to chunk 0 piece 0, but server "
              "2 holds those of servers 1, 2 and sends all it holds; its carries must list them "
              "all");
}

TEST(Validator, RefusesSemanticsThatDoNotMatchTheWorkloads)
{
    const auto error = [](const Plan& p, WorkloadSemantics semantics) {
        try
        {
            WorkloadSet(p.workloads.GetTopology(), p.workloads.GetAll(), semantics, 1);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    const Plan merge = GreedyPlan("bcube:n=3,k=1");
    const std::string asPs = error(merge, WorkloadSemantics::PARAMETER_SERVER);
    EXPECT_NE(asPs.find("is not a ps workload"), std::string::npos) << asPs;
    const std::string asRing = error(merge, WorkloadSemantics::RING);
    EXPECT_NE(asRing.find("is not a ring workload"), std::string::npos) << asRing;
    // PS paths pass relaying servers, which would merge under merge semantics.
    const Plan ps = CreateScheduler("ps")->MakePlan(BuildTopology("bcube:n=3,k=1"), 1);
    const std::string asMerge = error(ps, WorkloadSemantics::MERGE);
    EXPECT_NE(asMerge.find("is not a merge workload: its path passes server"), std::string::npos)
        << asMerge;
    EXPECT_EQ(error(ps, WorkloadSemantics::PARAMETER_SERVER), "");
}

TEST(Validator, RefusesADependencyListedTwice)
{
    Workload second = StarReduce(1, 2, 0, {1, 2});
    second.deps = {0, 0};
    EXPECT_THROW(OnStar({StarReduce(0, 1, 2, {1}), second}), std::invalid_argument);
}

TEST(ScheduleFile, RoundTripsThroughJson)
{
    for (const char* name : {"ps", "ring", "balanced"})
    {
        const Plan p = CreateScheduler(name)->MakePlan(BuildTopology("dcell:n=2,k=1"), 2);
        std::stringstream ss;
        WriteScheduleJson(ss, p.workloads, p.schedule);
        const ScheduleFile f = ReadScheduleJson(ss, "memory");
        EXPECT_EQ(f.schedule.scheduler, name);
        EXPECT_EQ(f.schedule.rounds, p.schedule.rounds);
        EXPECT_EQ(f.workloads.GetSemantics(), p.workloads.GetSemantics());
        EXPECT_EQ(f.workloads.GetPieces(), 2u);
        ASSERT_EQ(f.workloads.GetN(), p.workloads.GetN());
        for (uint32_t i = 0; i < f.workloads.GetN(); ++i)
        {
            EXPECT_EQ(f.workloads.Get(i).path, p.workloads.Get(i).path);
            EXPECT_EQ(f.workloads.GetDeps(i).ToVector(), p.workloads.GetDeps(i).ToVector());
            EXPECT_EQ(f.workloads.GetCarries(i), p.workloads.GetCarries(i));
        }
        EXPECT_TRUE(f.workloads.GetTopology() == p.workloads.GetTopology());
        EXPECT_TRUE(ValidateSchedule(f.workloads, f.schedule).valid);
    }
}

TEST(ScheduleFile, MalformedFilesAreRefusedNamingTheField)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    const std::string good = ss.str();
    EXPECT_EQ(ReadError(good), "");
    EXPECT_EQ(ReadError("{\"format\": 1").rfind("schedule file t.json is not valid JSON", 0), 0u);
    EXPECT_EQ(ReadError(Replace(good, "ns3-allreduce-schedule/2", "other/2")),
              "schedule file t.json: field 'format' must be \"ns3-allreduce-schedule/2\" (or the "
              "older \"ns3-allreduce-schedule/1\"), got \"other/2\"");
    EXPECT_EQ(ReadError(Replace(good, "ns3-allreduce-schedule/2", "ns3-allreduce-schedule/1")),
              ""); // files written before aggregating switches still read
    EXPECT_EQ(ReadError(Replace(good, "\"gradient_pieces\": 1", "\"pieces\": 1")),
              "schedule file t.json: field 'gradient_pieces' is missing");
    EXPECT_EQ(ReadError(Replace(good, "\"path\": [3,7,1]", "\"path\": \"3-7-1\"")),
              "schedule file t.json: field 'workloads[2].path' must be an array of non-negative "
              "integers, got \"3-7-1\"");
    EXPECT_EQ(ReadError(Replace(good, "\"path\": [3,7,1]", "\"path\": [3,5,1]")),
              "schedule file t.json: workload 2: path step 5 -> 1 is not a link of topology "
              "'bcube(n=2,k=1)'");
    EXPECT_EQ(ReadError(Replace(good, "\"phase\": \"reduce\"", "\"phase\": \"scatter\"")),
              "schedule file t.json: field 'workloads[0].phase' must be \"reduce\" or "
              "\"gather\", got \"scatter\"");
    EXPECT_EQ(ReadError(Replace(good, "{\"id\": 4, \"kind\": \"switch\"}",
                                "{\"id\": 4, \"kind\": \"router\"}")),
              "schedule file t.json: field 'topology.nodes[4].kind' must be \"server\" or "
              "\"switch\", got \"router\"");
    EXPECT_EQ(ReadError(Replace(good, "[0, 4], ", "[0, 0], ")),
              "schedule file t.json: field 'topology.links[0]' is not a valid link: link 0-0 "
              "joins a node to itself; links must join two nodes");
    EXPECT_EQ(ReadError(Replace(good, "\"merge\": true", "\"merge\": false")),
              "schedule file t.json: field 'merge' is false but 'semantics' is \"merge\"; merge "
              "is true for merge and ring, false for ps");
    const std::string psLabel =
        ReadError(Replace(good, "\"semantics\": \"merge\"", "\"semantics\": \"ps\""));
    EXPECT_EQ(psLabel.rfind("schedule file t.json: field 'merge' is true", 0), 0u) << psLabel;
    const std::string psFile = ReadError(
        Replace(Replace(good, "\"merge\": true", "\"merge\": false"), "\"semantics\": \"merge\"",
                "\"semantics\": \"ps\""));
    EXPECT_NE(psFile.find("is not a ps workload"), std::string::npos) << psFile;
    EXPECT_EQ(ReadError(Replace(good, "\"rounds\": [", "\"rounds\": [7, ")),
              "schedule file t.json: field 'rounds[0]' must be an array of non-negative "
              "integers, got 7");
}

TEST(ScheduleFile, MissingFileIsNamed)
{
    EXPECT_THROW(
        {
            try
            {
                ReadScheduleFile("/nonexistent/s.json");
            }
            catch (const std::invalid_argument& e)
            {
                EXPECT_STREQ(e.what(), "cannot open schedule file '/nonexistent/s.json': No such "
                                       "file or directory");
                throw;
            }
        },
        std::invalid_argument);
}

std::string
FileReadError(const std::string& path)
{
    try
    {
        ReadScheduleFile(path);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

TEST(ScheduleFile, DirectoryIsNamed)
{
    EXPECT_EQ(FileReadError("/tmp"), "schedule file '/tmp' is a directory; give the path of a file");
}

TEST(ScheduleFile, DeepNestingIsRefusedWithoutExhaustingTheStack)
{
    // 70,000 levels inside one field: refused while parsing, before anything recurses on it.
    const std::string deep = "{\"format\": " + std::string(70000, '[') + std::string(70000, ']') +
                             "}";
    const std::string m = ReadError(deep);
    EXPECT_NE(m.find("nests values more than 16 levels deep"), std::string::npos) << m;
}

TEST(ScheduleFile, HugeValuesAreNotEchoedWhole)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    const std::string good = ss.str();
    const std::string m =
        ReadError(Replace(good, "ns3-allreduce-schedule/2", std::string(10 << 20, 'x')));
    EXPECT_NE(m.find("field 'format' must be"), std::string::npos) << m.substr(0, 200);
    EXPECT_LT(m.size(), 300u);
    const std::string array = ReadError(
        Replace(good, "\"scheduler\": \"greedy\"", "\"scheduler\": [" + std::string(100, '1') +
                                                        std::string(100000, ',') + "1]"));
    EXPECT_LT(array.size(), 400u) << array.substr(0, 400);
}

TEST(ScheduleFile, ByteOrderMarkIsSkipped)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    ss << "\xEF\xBB\xBF";
    WriteScheduleJson(ss, p.workloads, p.schedule);
    EXPECT_EQ(ReadError(ss.str()), "");
}

TEST(ScheduleFile, NumberTooLargeForADoubleIsInvalidJson)
{
    // Found by fuzz-schedule-json: nlohmann throws out_of_range, not parse_error, for it.
    const std::string m = ReadError("2E2252 \xff\"");
    EXPECT_EQ(m.rfind("schedule file t.json is not valid JSON: ", 0), 0u) << m;
}

TEST(ScheduleFile, AKeyGivenTwiceIsRefusedAndNoLibraryTagReachesTheUser)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    // nlohmann keeps the last of two equal keys: the first value was dropped without a word.
    const std::string twice =
        ReadError(Replace(ss.str(), "\"scheduler\": \"greedy\"",
                          "\"scheduler\": \"ring\", \"scheduler\": \"greedy\""));
    EXPECT_NE(twice.find("gives the key \"scheduler\" twice in one object"), std::string::npos)
        << twice;
    const std::string bad = ReadError("{\"format\": x}");
    EXPECT_EQ(bad.find("json.exception"), std::string::npos) << bad;
    EXPECT_NE(bad.find("line 1, column"), std::string::npos) << bad;
}

TEST(ScheduleFile, AFailedWriteLeavesNoHalfFile)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    const std::string path = "/tmp/allreduce-atomic-test.json";
    std::remove(path.c_str());
    // A directory where the file would go: nothing is written, and nothing is left behind.
    EXPECT_THROW(WriteScheduleFile("/tmp/no-such-dir-allreduce/s.json", p.workloads, p.schedule),
                 std::invalid_argument);
    WriteScheduleFile(path, p.workloads, p.schedule);
    const std::string first = ReadTextFile(path, "schedule file", 1 << 20);
    // A writer that fails half way leaves the old file whole.
    EXPECT_THROW(WriteTextFile(path,
                               "schedule file",
                               [](std::ostream& os) {
                                   os << "{\"format\": ";
                                   throw std::invalid_argument("stopped half way");
                               }),
                 std::invalid_argument);
    EXPECT_EQ(ReadTextFile(path, "schedule file", 1 << 20), first);
    EXPECT_TRUE(IsSameFile(path, "/tmp/../tmp/allreduce-atomic-test.json"));
    std::remove(path.c_str());
}

TEST(ScheduleFile, ProbeWritableSaysWhyAndLeavesNothing)
{
    // The one probe behind every "can the output be written" check before a long run.
    const std::string dir = testing::TempDir() + "allreduce-probe-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    EXPECT_EQ(ProbeWritable(dir + "/run"), "");
    EXPECT_TRUE(std::filesystem::is_empty(dir)); // the probe file is gone
    EXPECT_EQ(ProbeWritable(dir + "/no-such-dir/run"), std::strerror(ENOENT));
    std::filesystem::remove_all(dir);
}

TEST(ScheduleFile, ANodeTheTopologyDoesNotHaveIsNamedAsTheFileGivesIt)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    // The message named node 99 as 107 (99 plus the topology's 8 nodes).
    const std::string text = ss.str();
    const size_t path = text.find("\"path\": [") + 9;
    const std::string m = ReadError(text.substr(0, path) + "99, " + text.substr(path));
    EXPECT_NE(m.find("names node 99, which the file's topology does not have (its nodes are 0 "
                     "to 7)"),
              std::string::npos)
        << m;
}

TEST(ScheduleFile, AChunkTheTopologyDoesNotHaveIsCalledAChunk)
{
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    std::string text = ss.str();
    const size_t chunk = text.find("\"chunk\": ") + 9;
    text = text.substr(0, chunk) + "99" + text.substr(text.find_first_of(",\n}", chunk));
    const std::string m = ReadError(text);
    EXPECT_NE(m.find("workloads[0].chunk' names the chunk of node 99, which the file's topology "
                     "does not have"),
              std::string::npos)
        << m;
}

TEST(ScheduleFile, AnotherTopologyOfTheSameNameIsToldApartFromTheGivenOne)
{
    // Both sides were named 'bcube(n=2,k=1)': the message did not say which was the file.
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    Topology other("bcube(n=2,k=1)", 4, 4);
    const Topology& given = p.workloads.GetTopology();
    for (uint32_t l = given.GetNLinks(); l-- > 0;) // the same links, backwards
    {
        other.AddLink(given.GetLink(l).a, given.GetLink(l).b);
    }
    Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
    replay->SetPlan(p);
    try
    {
        replay->MakePlan(other, 1);
        ADD_FAILURE() << "replayed on another graph";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("in the plan's 'bcube(n=2,k=1)' but "),
                  std::string::npos)
            << e.what();
    }
}

TEST(ScheduleFile, ReplayedOnTheTopologyGivenWithItsNameAndItsLinks)
{
    // A file replayed with a topology spec runs on that topology: its slowed links were lost
    // (allreduce-packet --schedule-in --slow-links ran at full rate) and the file's name was
    // printed, whatever it said.
    const Plan p = GreedyPlan("bcube:n=2,k=1");
    std::stringstream ss;
    WriteScheduleJson(ss, p.workloads, p.schedule);
    std::string text = ss.str();
    const std::string name = "\"bcube(n=2,k=1)\"";
    ASSERT_NE(text.find(name), std::string::npos);
    text.replace(text.find(name), name.size(), "\"renamed\"");
    const std::string path = testing::TempDir() + "allreduce-replay-given.json";
    {
        std::ofstream(path) << text;
    }
    const Plan slowed = ReadPlanFile(path, "bcube:n=2,k=1,slow=0.5");
    EXPECT_EQ(slowed.workloads.GetTopology().CountUnevenLinks(), 4u);
    EXPECT_EQ(ReadPlanFile(path, "bcube:n=2,k=1").workloads.GetTopology().GetName(),
              "bcube(n=2,k=1)");
    EXPECT_EQ(ReadPlanFile(path, "").workloads.GetTopology().GetName(), "renamed");
    std::filesystem::remove(path);
}

TEST(Schedule, RoundOfEachWorkloadInvertsCompactRounds)
{
    // Per workload its round, and back: the same schedule; a workload in no round has none,
    // and an id past the workloads is refused with both numbers.
    const Plan plan = GreedyPlan("bcube:n=2,k=1");
    const uint32_t n = plan.workloads.GetN();
    const std::vector<uint32_t> roundOf = RoundOfEachWorkload(plan.schedule, n);
    ASSERT_EQ(roundOf.size(), n);
    auto sorted = plan.schedule.rounds; // CompactRounds lists a round's workloads by id
    for (auto& round : sorted)
    {
        std::sort(round.begin(), round.end());
    }
    EXPECT_EQ(CompactRounds(roundOf).rounds, sorted);
    EXPECT_EQ(RoundOfEachWorkload(plan.schedule, n + 1).back(), NO_INDEX);
    try
    {
        RoundOfEachWorkload(plan.schedule, n - 1);
        ADD_FAILURE() << "a schedule naming a workload past n was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("names workload " + std::to_string(n - 1) +
                                             ", but there are " + std::to_string(n - 1)),
                  std::string::npos)
            << e.what();
    }
}
