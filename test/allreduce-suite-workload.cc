/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's workload cases: workload sets of every semantics on every topology family,
// the validator that simulates the data (a valid schedule passes, broken ones are refused with
// their reason), the lower bounds and schedule files (doc/allreduce.rst, "Workloads",
// "Validator and schedule files").

#include "allreduce-suite-cases.h"
#include "test-fixtures.h"

#include "ns3/allreduce-module.h"

#include <algorithm>
#include <map>
#include <sstream>

using namespace ns3;
using namespace ns3::allreduce_suite;
using ns3::test::OnStar;
using ns3::test::StarReduce;

namespace
{

/// \return the validator's verdict: "valid" or its reason
std::string
Verdict(const WorkloadSet& workloads, const Schedule& schedule)
{
    const ScheduleCheck c = ValidateSchedule(workloads, schedule);
    return c.valid ? "valid" : c.error;
}

} // namespace

/**
 * \ingroup allreduce-tests
 * WorkloadSet::Build gives 2 N (N-1) k workloads in each semantics on every topology family;
 * merge workloads go from server to server with only switches between, along links; and for
 * every chunk piece the reduce workloads into its holder carry every other server's
 * contribution exactly once.
 */
class WorkloadSetTestCase : public TestCase
{
  public:
    WorkloadSetTestCase()
        : TestCase("workloads: 2N(N-1)k per semantics on every family, merge workloads server to "
                   "server along links, every contribution reaching its root once")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<Topology> topologies{test::TwoSwitchesFile()};
        for (const char* spec : {"bcube:n=3,k=1",
                                 "dcell:n=3,k=1",
                                 "fattree:k=4",
                                 "jellyfish:switches=6,degree=3,seed=2"})
        {
            topologies.push_back(BuildTopology(spec));
        }
        for (const Topology& t : topologies)
        {
            const auto trees = BuildShortestPathTrees(t);
            for (const char* semantics : {"merge", "ps", "ring"})
            {
                const WorkloadSet ws =
                    WorkloadSet::Build(t, trees, ParseWorkloadSemantics(semantics), 2);
                const uint32_t n = t.GetNServers();
                const std::string what = t.GetName() + " " + semantics;
                NS_TEST_EXPECT_MSG_EQ(ws.GetN(), 2 * n * (n - 1) * 2, what);
                CheckContributions(ws, what);
                if (ws.GetSemantics() == WorkloadSemantics::MERGE)
                {
                    CheckMergePaths(ws, what);
                }
            }
        }
    }

    /// Merge workloads start and end at servers, pass switches only, along the path's links.
    void CheckMergePaths(const WorkloadSet& ws, const std::string& what)
    {
        const Topology& t = ws.GetTopology();
        for (const Workload& w : ws.GetAll())
        {
            NS_TEST_EXPECT_MSG_EQ((t.IsServer(w.src) && t.IsServer(w.dst)), true, what);
            NS_TEST_EXPECT_MSG_EQ((w.path.front() == w.src && w.path.back() == w.dst),
                                  true,
                                  what << " workload " << w.id);
            NS_TEST_EXPECT_MSG_EQ(w.links.size() + 1, w.path.size(), what);
            for (size_t h = 0; h + 1 < w.path.size(); ++h)
            {
                NS_TEST_EXPECT_MSG_EQ(w.links[h],
                                      GetDirectedLink(t, w.path[h], w.path[h + 1]),
                                      what << " workload " << w.id << " hop " << h);
                NS_TEST_EXPECT_MSG_EQ((h == 0 || !t.IsServer(w.path[h])),
                                      true,
                                      what << " workload " << w.id << " passes a server");
            }
        }
    }

    /// The reduce workloads into each chunk piece's holder carry every other server once.
    void CheckContributions(const WorkloadSet& ws, const std::string& what)
    {
        const uint32_t n = ws.GetTopology().GetNServers();
        const bool ring = ws.GetSemantics() == WorkloadSemantics::RING;
        std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> seen;
        for (const Workload& w : ws.GetAll())
        {
            // The ring's reduce ends at chunk - 1; the others' at the chunk's owner.
            const uint32_t holder = ring ? (w.chunk + n - 1) % n : w.chunk;
            if (w.phase == Phase::REDUCE && w.dst == holder)
            {
                auto& count = seen[{w.chunk, w.piece}];
                count.resize(n, 0);
                for (uint32_t c : ws.GetCarries(w.id))
                {
                    ++count[c];
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(seen.size(), 2 * n, what << ": chunk pieces reduced");
        for (auto& [key, count] : seen)
        {
            const uint32_t holder = ring ? (key.first + n - 1) % n : key.first;
            ++count[holder]; // its own contribution
            for (uint32_t s = 0; s < n; ++s)
            {
                NS_TEST_EXPECT_MSG_EQ(count[s],
                                      1,
                                      what << " chunk " << key.first << " server " << s);
            }
        }
    }
};

/**
 * \ingroup allreduce-tests
 * The validator simulates the data: a scheduler's schedule passes, and a workload before its
 * dependency, two workloads on one directed link in a round, a workload never scheduled, a
 * contribution added twice, data the sender does not hold and an unfinished AllReduce are each
 * refused with the round, the workload and the reason.
 */
class ValidatorTestCase : public TestCase
{
  public:
    ValidatorTestCase()
        : TestCase("workloads: the validator passes a scheduler's schedule and refuses broken ones "
                   "with the round, the workload and the reason")
    {
    }

  private:
    void DoRun() override
    {
        const Plan p = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=2,k=1"), 1);
        NS_TEST_EXPECT_MSG_EQ(Verdict(p.workloads, p.schedule), "valid", "greedy's schedule");

        Schedule early;
        early.rounds = {{0}}; // 1 -> 0 before 3 -> 1, which it merges
        NS_TEST_EXPECT_MSG_EQ(Verdict(p.workloads, early),
                              "round 0: workload 0 depends on workload 2, which has not finished "
                              "in an earlier round",
                              "a workload before its dependency");

        // Two workloads ready at the start that leave server 2 by the same directed link.
        std::vector<uint32_t> first;
        for (const Workload& w : p.workloads.GetAll())
        {
            if (p.workloads.GetDeps(w.id).empty() &&
                w.links.front() == p.workloads.Get(1).links.front())
            {
                first.push_back(w.id);
            }
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(first.size(), 2, "two workloads on link 2->6");
        Schedule shared;
        shared.rounds = {{first[0], first[1]}};
        NS_TEST_EXPECT_MSG_EQ(Verdict(p.workloads, shared),
                              "round 0: workload " + std::to_string(first[1]) +
                                  " needs link 2->6, which another workload of round 0 already "
                                  "uses",
                              "two workloads on one directed link");

        Schedule missing = p.schedule;
        const uint32_t last = missing.rounds.back().back();
        missing.rounds.back().pop_back();
        NS_TEST_EXPECT_MSG_EQ(Verdict(p.workloads, missing),
                              "workload " + std::to_string(last) + " is never scheduled",
                              "a workload left out");

        // Servers 1 and 2 both send server 1's contribution to 0 (2 got it from 1 first).
        const WorkloadSet twice = OnStar(
            {StarReduce(0, 1, 2, {1}), StarReduce(1, 2, 0, {1, 2}), StarReduce(2, 1, 0, {1})});
        Schedule three;
        three.rounds = {{0}, {1}, {2}};
        NS_TEST_EXPECT_MSG_EQ(Verdict(twice, three),
                              "round 2: workload 2 adds server 1's contribution to chunk 0 piece 0 "
                              "at server 0 a second time",
                              "a contribution added twice");
        Schedule one;
        one.rounds = {{0}};
        NS_TEST_EXPECT_MSG_EQ(Verdict(OnStar({StarReduce(0, 1, 0, {1, 3})}), one),
                              "round 0: workload 0 carries server 3's contribution to chunk 0 "
                              "piece 0, which server 1 does not hold",
                              "data the sender does not hold");
        // Chunks are checked one at a time; the error reported is still the earliest: chunk
        // 1's in round 0, not chunk 0's in round 1.
        Workload later = StarReduce(0, 1, 0, {1, 3}); // chunk 0: server 1 lacks 3's
        Workload earlier = StarReduce(1, 2, 1, {2, 3}); // chunk 1: server 2 lacks 3's
        earlier.chunk = 1;
        Schedule swapped;
        swapped.rounds = {{1}, {0}};
        NS_TEST_EXPECT_MSG_EQ(Verdict(OnStar({later, earlier}), swapped),
                              "round 0: workload 1 carries server 3's contribution to chunk 1 "
                              "piece 0, which server 2 does not hold",
                              "the earliest error over the chunks");
        const WorkloadSet reduceOnly =
            OnStar({StarReduce(0, 1, 0, {1}), StarReduce(1, 2, 0, {2}), StarReduce(2, 3, 0, {3})});
        NS_TEST_EXPECT_MSG_EQ(Verdict(reduceOnly, three),
                              "after round 2: server 0 does not hold the full sum of chunk 1 "
                              "piece 0 (server 1's contribution is missing)",
                              "an AllReduce that does not finish");
    }
};

/**
 * \ingroup allreduce-tests
 * The lower bounds: bandwidth ceil(2 N (N-1) k / server ports), the most loaded directed link
 * and the critical path, worked out by hand on BCube(2,1) and BCube(3,1); a switch that
 * aggregates lowers the bandwidth bound to ceil(N N k / server ports).
 */
class BoundsTestCase : public TestCase
{
  public:
    BoundsTestCase()
        : TestCase("workloads: lower bounds worked out by hand (bandwidth, link load, critical "
                   "path) and never beaten by a scheduler")
    {
    }

  private:
    void DoRun() override
    {
        // BCube(2,1): 4 servers of 2 ports, ceil(2 x 4 x 3 / 8) = 3; the server two hops away
        // from a root reaches it through a neighbour: far -> middle -> root -> middle -> far.
        const Topology small = BuildTopology("bcube:n=2,k=1");
        const WorkloadSet ws =
            WorkloadSet::Build(small, BuildShortestPathTrees(small), WorkloadSemantics::MERGE, 1);
        const RoundBounds b = ComputeBounds(ws);
        NS_TEST_EXPECT_MSG_EQ(b.bandwidth, 3, "BCube(2,1) bandwidth bound");
        NS_TEST_EXPECT_MSG_EQ(b.path, 4, "BCube(2,1) critical path");
        NS_TEST_EXPECT_MSG_EQ(b.GetMax(), 4, "BCube(2,1) largest bound");
        const std::vector<uint32_t> loads = ws.GetLinkLoads();
        NS_TEST_EXPECT_MSG_EQ(b.links,
                              *std::max_element(loads.begin(), loads.end()),
                              "the link bound is the most loaded directed link");
        // Two pieces per chunk: twice the bandwidth bound's numerator.
        NS_TEST_EXPECT_MSG_EQ(ComputeBandwidthBound(small, 2), 6, "BCube(2,1), k = 2");

        // BCube(3,1): ceil(2 x 9 x 8 / 18) = 8; fat-tree k=4: ceil(2 x 16 x 15 / 16) = 30.
        NS_TEST_EXPECT_MSG_EQ(ComputeBandwidthBound(BuildTopology("bcube:n=3,k=1"), 1),
                              8,
                              "BCube(3,1)");
        NS_TEST_EXPECT_MSG_EQ(ComputeBandwidthBound(BuildTopology("fattree:k=4"), 1),
                              30,
                              "fat-tree k=4");
        // Every switch aggregating: ceil(16 x 16 / 16) = 16.
        NS_TEST_EXPECT_MSG_EQ(ComputeBandwidthBound(BuildTopology("fattree:k=4,ina=all"), 1),
                              16,
                              "fat-tree k=4 with aggregation");

        for (const char* name : {"ps", "ring", "greedy", "balanced"})
        {
            const SchedulerResult r = EvaluateScheduler(BuildTopology("dcell:n=3,k=1"), name, 1);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.plan.schedule.GetNRounds(), r.bounds.GetMax(), name);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.bounds.GetMax(), r.bounds.bandwidth, name);
        }
    }
};

/**
 * \ingroup allreduce-tests
 * A schedule written as a schedule file reads back with the same topology, workloads and rounds
 * and validates; a file with a wrong field is refused, naming the field.
 */
class ScheduleFileTestCase : public TestCase
{
  public:
    ScheduleFileTestCase()
        : TestCase("workloads: schedule files read back the same schedule, which validates; a "
                   "wrong field is named")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* name : {"ps", "ring", "balanced"})
        {
            const Plan p = CreateScheduler(name)->MakePlan(BuildTopology("dcell:n=2,k=1"), 2);
            const std::string path = CreateTempDirFilename(std::string(name) + ".json");
            WriteScheduleFile(path, p.workloads, p.schedule);
            const ScheduleFile f = ReadScheduleFile(path);
            NS_TEST_EXPECT_MSG_EQ(f.schedule.scheduler, name, "scheduler");
            NS_TEST_EXPECT_MSG_EQ((f.schedule.rounds == p.schedule.rounds), true, name);
            NS_TEST_EXPECT_MSG_EQ(
                f.workloads.GetTopology().DescribeDifference(p.workloads.GetTopology()),
                "",
                name);
            NS_TEST_ASSERT_MSG_EQ(f.workloads.GetN(), p.workloads.GetN(), name);
            for (uint32_t i = 0; i < f.workloads.GetN(); ++i)
            {
                NS_TEST_EXPECT_MSG_EQ((f.workloads.Get(i).path == p.workloads.Get(i).path &&
                                       f.workloads.GetCarries(i) == p.workloads.GetCarries(i)),
                                      true,
                                      name << " workload " << i);
            }
            NS_TEST_EXPECT_MSG_EQ(Verdict(f.workloads, f.schedule), "valid", name);
        }

        const Plan p = CreateScheduler("greedy")->MakePlan(BuildTopology("bcube:n=2,k=1"), 1);
        std::ostringstream os;
        WriteScheduleJson(os, p.workloads, p.schedule);
        std::string text = os.str();
        const std::string from = "\"phase\": \"reduce\"";
        NS_TEST_ASSERT_MSG_NE(text.find(from), std::string::npos, "a reduce workload");
        text.replace(text.find(from), from.size(), "\"phase\": \"scatter\"");
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&text] { ParseScheduleJson(text, "t.json"); }),
                              "schedule file t.json: field 'workloads[0].phase' must be "
                              "\"reduce\" or \"gather\", got \"scatter\"",
                              "a wrong phase");
    }
};

Cases
ns3::allreduce_suite::MakeWorkloadCases()
{
    return {new WorkloadSetTestCase,
            new ValidatorTestCase,
            new BoundsTestCase,
            new ScheduleFileTestCase};
}
