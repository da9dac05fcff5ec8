/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Workloads (doc/allreduce.rst, "Workloads"): counts, ends, contributions, and hand-computed small
// cases.

#include "test-topologies.h"

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

using namespace ns3;
using ns3::test::StarOfFour;

namespace
{

const WorkloadSemantics ALL_SEMANTICS[] = {WorkloadSemantics::MERGE,
                                           WorkloadSemantics::PARAMETER_SERVER,
                                           WorkloadSemantics::RING};

WorkloadSet
Make(const std::string& spec, WorkloadSemantics semantics, uint32_t pieces = 1)
{
    const Topology t = BuildTopology(spec);
    return WorkloadSet::Build(t, BuildShortestPathTrees(t), semantics, pieces);
}

} // namespace

TEST(Workloads, CountIsTwoNTimesNMinusOneTimesPieces)
{
    for (const char* spec : {"bcube:n=2,k=1", "bcube:n=3,k=1", "dcell:n=2,k=1", "fattree:k=4",
                             "jellyfish:switches=10,degree=4"})
    {
        for (WorkloadSemantics sem : ALL_SEMANTICS)
        {
            for (uint32_t k : {1u, 3u})
            {
                const WorkloadSet ws = Make(spec, sem, k);
                const uint32_t n = ws.GetTopology().GetNServers();
                EXPECT_EQ(ws.GetN(), 2 * n * (n - 1) * k) << spec << " " << ToString(sem);
            }
        }
    }
}

TEST(Workloads, MergeWorkloadsStartAndEndAtServersAndFollowLinks)
{
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4"})
    {
        const WorkloadSet ws = Make(spec, WorkloadSemantics::MERGE);
        const Topology& t = ws.GetTopology();
        for (const Workload& w : ws.GetAll())
        {
            EXPECT_TRUE(t.IsServer(w.src));
            EXPECT_TRUE(t.IsServer(w.dst));
            // Merge happens only at servers: everything between src and dst is a switch.
            for (size_t h = 1; h + 1 < w.path.size(); ++h)
            {
                EXPECT_FALSE(t.IsServer(w.path[h])) << spec << " workload " << w.id;
            }
            EXPECT_EQ(w.links.size() + 1, w.path.size());
        }
    }
}

TEST(Workloads, ContributionsReachingEachRootCoverEveryServerOnce)
{
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=3,k=1", "jellyfish:switches=8,degree=3"})
    {
        for (WorkloadSemantics sem : ALL_SEMANTICS)
        {
            const WorkloadSet ws = Make(spec, sem, 2);
            const uint32_t n = ws.GetTopology().GetNServers();
            // (chunk, piece) -> how often each server's contribution reaches the final holder
            std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> seen;
            for (const Workload& w : ws.GetAll())
            {
                // The ring's reduce ends at chunk-1; the others at the chunk's owner.
                const uint32_t holder =
                    sem == WorkloadSemantics::RING ? (w.chunk + n - 1) % n : w.chunk;
                if (w.phase == Phase::REDUCE && w.dst == holder)
                {
                    auto& count = seen[{w.chunk, w.piece}];
                    count.resize(n, 0);
                    for (uint32_t c : w.carries)
                    {
                        ++count[c];
                    }
                }
            }
            ASSERT_EQ(seen.size(), n * 2u) << spec;
            for (auto& [key, count] : seen)
            {
                const uint32_t holder =
                    sem == WorkloadSemantics::RING ? (key.first + n - 1) % n : key.first;
                ++count[holder]; // its own contribution
                for (uint32_t s = 0; s < n; ++s)
                {
                    EXPECT_EQ(count[s], 1u) << spec << " " << ToString(sem) << " chunk "
                                            << key.first << " server " << s;
                }
            }
        }
    }
}

// BCube(2,1): servers 0..3; level-0 switches 4 (servers 0,1) and 5 (2,3); level-1 switches
// 6 (0,2) and 7 (1,3). The BFS tree of root 0 reaches 1 via 4, 2 via 6, and 3 via 7 and 1.
TEST(Workloads, BCubeTwoOneRootZeroByHand)
{
    const WorkloadSet ws = Make("bcube:n=2,k=1", WorkloadSemantics::MERGE);
    ASSERT_EQ(ws.GetN(), 24u);
    const auto& w = ws.GetAll();
    // Reduce: 1->0 carries {1,3} after 3->1; 2->0 carries {2}.
    EXPECT_EQ(w[0].src, 1u);
    EXPECT_EQ(w[0].dst, 0u);
    EXPECT_EQ(w[0].path, (std::vector<uint32_t>{1, 4, 0}));
    EXPECT_EQ(ws.GetDeps(0).ToVector(), (std::vector<uint32_t>{2}));
    EXPECT_EQ(w[0].carries.ToVector(), (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(w[1].path, (std::vector<uint32_t>{2, 6, 0}));
    EXPECT_TRUE(ws.GetDeps(1).empty());
    EXPECT_EQ(w[2].path, (std::vector<uint32_t>{3, 7, 1}));
    EXPECT_EQ(w[2].carries.ToVector(), (std::vector<uint32_t>{3}));
    // Gather: 0->1 and 0->2 once both reduces into 0 arrived; 1->3 after 0->1.
    EXPECT_EQ(w[3].phase, Phase::GATHER);
    EXPECT_EQ(w[3].path, (std::vector<uint32_t>{0, 4, 1}));
    EXPECT_EQ(ws.GetDeps(3).ToVector(), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(w[4].path, (std::vector<uint32_t>{0, 6, 2}));
    EXPECT_EQ(w[5].path, (std::vector<uint32_t>{1, 7, 3}));
    EXPECT_EQ(ws.GetDeps(5).ToVector(), (std::vector<uint32_t>{3}));
    EXPECT_EQ(ws.GetCarries(5), (std::vector<uint32_t>{0, 1, 2, 3}));
    // Longest chain 3->1, 1->0, 0->1, 1->3: four workloads, so four rounds at least.
    EXPECT_EQ(ws.GetHeight(2), 4u);
    // ... and 1->3 comes last in it: three workloads before it, so round 3 at the earliest.
    EXPECT_EQ(ws.GetDepth(2), 0u);
    EXPECT_EQ(ws.GetDepth(0), 1u);
    EXPECT_EQ(ws.GetDepth(3), 2u);
    EXPECT_EQ(ws.GetDepth(5), 3u);
    const RoundBounds b = ComputeBounds(ws);
    EXPECT_EQ(b.bandwidth, 3u); // ceil(2*4*3 / 8 server ports)
    EXPECT_EQ(b.path, 4u);
    // Greedy reaches the critical path: four rounds.
    Ptr<AllReduceScheduler> greedy = CreateScheduler("greedy");
    const Plan plan = greedy->MakePlan(ws.GetTopology(), 1);
    EXPECT_EQ(plan.schedule.GetNRounds(), 4u);
    EXPECT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid);
}

// Ring on four servers around one switch: step t of reduce-scatter has server c+t send chunk
// c, carrying c..c+t, to c+t+1.
TEST(Workloads, RingOfFourByHand)
{
    const Topology star = StarOfFour();
    const WorkloadSet ws =
        WorkloadSet::Build(star, BuildShortestPathTrees(star), WorkloadSemantics::RING, 1);
    ASSERT_EQ(ws.GetN(), 24u);
    // Ids are step-major: reduce step t chunk c is 4t + c, gather step t chunk c is 12 + 4t + c.
    const Workload& r21 = ws.Get(4 * 2 + 1); // reduce step 2, chunk 1
    EXPECT_EQ(r21.phase, Phase::REDUCE);
    EXPECT_EQ(r21.chunk, 1u);
    EXPECT_EQ(r21.src, 3u);
    EXPECT_EQ(r21.dst, 0u);
    EXPECT_EQ(r21.path, (std::vector<uint32_t>{3, 4, 0}));
    EXPECT_EQ(r21.carries.ToVector(), (std::vector<uint32_t>{1, 2, 3}));
    EXPECT_EQ(ws.GetDeps(r21.id).ToVector(), (std::vector<uint32_t>{4 * 1 + 1}));
    // Chunk 1's sum lands on server 0, which starts its gather: 0 -> 1 after reduce step 2.
    const Workload& g01 = ws.Get(12 + 1);
    EXPECT_EQ(g01.phase, Phase::GATHER);
    EXPECT_EQ(g01.src, 0u);
    EXPECT_EQ(g01.dst, 1u);
    EXPECT_EQ(ws.GetDeps(g01.id).ToVector(), (std::vector<uint32_t>{4 * 2 + 1}));
    const Workload& g21 = ws.Get(12 + 4 * 2 + 1);
    EXPECT_EQ(g21.src, 2u);
    EXPECT_EQ(g21.dst, 3u);
    EXPECT_EQ(ws.GetDeps(g21.id).ToVector(), (std::vector<uint32_t>{12 + 4 + 1}));
    // The ring needs 2(N-1) = 6 steps, and on a star every step fits one round.
    EXPECT_EQ(ComputeBounds(ws).path, 6u);
    Ptr<AllReduceScheduler> ring = CreateScheduler("ring");
    const Plan plan = ring->MakePlan(star, 1);
    EXPECT_EQ(plan.schedule.GetNRounds(), 6u);
    EXPECT_TRUE(ValidateSchedule(plan.workloads, plan.schedule).valid);
}

// A parameter-server chunk's N-1 gathers all wait for its N-1 reduces: one dependency group
// per chunk, so the set holds N ids per chunk rather than N^2, and the reverse index agrees.
TEST(Workloads, GathersThatWaitForTheSameReducesShareOneList)
{
    const WorkloadSet ps = Make("bcube:n=3,k=1", WorkloadSemantics::PARAMETER_SERVER);
    const uint32_t n = ps.GetTopology().GetNServers();
    EXPECT_EQ(ps.GetNDepGroups(), 1 + n); // the empty group and one per chunk
    for (const Workload& w : ps.GetAll())
    {
        const IdSpan deps = ps.GetDeps(w.id);
        if (w.phase == Phase::REDUCE)
        {
            EXPECT_TRUE(deps.empty());
            // Every gather of its chunk depends on it, once.
            std::vector<uint32_t> dependents;
            for (uint32_t d : ps.GetDependents(w.id))
            {
                dependents.push_back(d);
                EXPECT_EQ(ps.Get(d).phase, Phase::GATHER);
                EXPECT_EQ(ps.Get(d).chunk, w.chunk);
            }
            EXPECT_EQ(dependents.size(), n - 1);
            EXPECT_EQ(ps.GetDependents(w.id).size(), n - 1);
            continue;
        }
        ASSERT_EQ(deps.size(), n - 1);
        for (uint32_t d : deps)
        {
            EXPECT_EQ(ps.Get(d).phase, Phase::REDUCE);
            EXPECT_EQ(ps.Get(d).chunk, w.chunk);
        }
        EXPECT_TRUE(ps.GetDependents(w.id).empty());
        EXPECT_EQ(ps.GetHeight(w.id), 1u);
        EXPECT_EQ(ps.GetDepth(w.id), 1u);
    }
    // Side by side, each set keeps its groups shared and its dependencies renumbered.
    std::vector<uint32_t> offsets;
    const WorkloadSet both = WorkloadSet::Concatenate({ps, ps}, &offsets);
    EXPECT_EQ(both.GetNDepGroups(), 1 + 2 * n);
    for (uint32_t i = 0; i < ps.GetN(); ++i)
    {
        std::vector<uint32_t> moved = ps.GetDeps(i).ToVector();
        for (uint32_t& d : moved)
        {
            d += offsets[1];
        }
        EXPECT_EQ(both.GetDeps(offsets[1] + i).ToVector(), moved);
        EXPECT_EQ(both.GetHeight(offsets[1] + i), ps.GetHeight(i));
    }
    // Given as a list, the same dependencies make the same heights and depths.
    const WorkloadSet listed(ps.GetTopology(), ps.GetList(), ps.GetSemantics(), 1);
    for (uint32_t i = 0; i < ps.GetN(); ++i)
    {
        EXPECT_EQ(listed.GetDeps(i).ToVector(), ps.GetDeps(i).ToVector());
        EXPECT_EQ(listed.GetDepth(i), ps.GetDepth(i));
        EXPECT_EQ(listed.GetHeight(i), ps.GetHeight(i));
    }
}

TEST(Workloads, PiecesAreIndependentCopies)
{
    const WorkloadSet one = Make("bcube:n=2,k=1", WorkloadSemantics::MERGE, 1);
    const WorkloadSet two = Make("bcube:n=2,k=1", WorkloadSemantics::MERGE, 2);
    ASSERT_EQ(two.GetN(), 2 * one.GetN());
    for (uint32_t i = 0; i < one.GetN(); ++i)
    {
        const Workload& b = two.Get(one.GetN() + i);
        EXPECT_EQ(b.piece, 1u);
        EXPECT_EQ(b.path, one.Get(i).path);
        EXPECT_EQ(two.GetDeps(b.id).size(), one.GetDeps(i).size());
    }
}

TEST(Workloads, BadInputIsRefusedWithItsName)
{
    const Topology t = BuildTopology("bcube:n=2,k=1");
    const auto trees = BuildShortestPathTrees(t);
    EXPECT_THROW(
        {
            try
            {
                WorkloadSet::Build(t, trees, WorkloadSemantics::MERGE, 0);
            }
            catch (const std::invalid_argument& e)
            {
                EXPECT_STREQ(e.what(), "pieces per chunk must be >= 1, got 0");
                throw;
            }
        },
        std::invalid_argument);
    EXPECT_THROW(WorkloadSet::Build(t, {trees[0]}, WorkloadSemantics::MERGE, 1),
                 std::invalid_argument);
    EXPECT_THROW(ParseWorkloadSemantics("tree"), std::invalid_argument);
    // A cycle of dependencies can never be scheduled.
    std::vector<Workload> list(2);
    for (uint32_t i = 0; i < 2; ++i)
    {
        list[i].id = i;
        list[i].src = 1;
        list[i].dst = 0;
        list[i].path = {1, 4, 0};
        list[i].carries = {1};
        list[i].deps = {1 - i};
    }
    try
    {
        WorkloadSet(t, list, WorkloadSemantics::MERGE, 1);
        ADD_FAILURE() << "a dependency cycle was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("form a cycle"), std::string::npos) << e.what();
    }
    list[0].deps.clear();
    list[1].deps.clear();
    list[1].path = {1, 6, 0}; // 1 and 6 are not linked
    try
    {
        WorkloadSet(t, list, WorkloadSemantics::MERGE, 1);
        ADD_FAILURE() << "a path over a missing link was accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_STREQ(e.what(), "workload 1: path step 1 -> 6 is not a link of topology "
                               "'bcube(n=2,k=1)'");
    }
}

TEST(Workloads, TooManyPiecesAreRefusedBeforeAllocating)
{
    // 144 million workloads fit under the 2^31 count limit but not in memory.
    const Topology t = BuildTopology("bcube:n=3,k=1");
    try
    {
        WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1000000);
        ADD_FAILURE() << "built 144 million workloads";
    }
    catch (const std::invalid_argument& e)
    {
        const std::string m = e.what();
        EXPECT_NE(m.find("144000000 merge workloads on 'bcube(n=3,k=1)' with 1000000 pieces per "
                         "chunk would need"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("use fewer pieces"), std::string::npos) << m;
    }
    EXPECT_THROW(WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE,
                                    4000000000u),
                 std::invalid_argument);
}

TEST(Workloads, MoveToTheSameGraphWithOtherLinkRates)
{
    // The dynamic experiment runs a plan on slowed links: the same workloads, paths and
    // dependencies on a topology whose links have other rates; another graph is refused.
    const Topology t = BuildTopology("bcube:n=3,k=1");
    const WorkloadSet ws =
        WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1);
    Topology slow = t;
    SlowDownLinks(slow, 0.25, 0.5, 1);
    const WorkloadSet moved = ws.OnTopology(slow);
    EXPECT_EQ(moved.GetTopology().CountUnevenLinks(), slow.CountUnevenLinks());
    EXPECT_GT(moved.GetTopology().CountUnevenLinks(), 0u);
    ASSERT_EQ(moved.GetN(), ws.GetN());
    for (uint32_t id = 0; id < ws.GetN(); ++id)
    {
        EXPECT_EQ(moved.Get(id).path, ws.Get(id).path);
    }
    const Schedule s = RunRounds(*CreateScheduler("balanced"), ws);
    EXPECT_TRUE(ValidateSchedule(moved, s).valid);
    EXPECT_THROW(ws.OnTopology(BuildTopology("dcell:n=2,k=1")), std::invalid_argument);
}

TEST(InlineVector, HoldsTheSameValuesInsideAndOnTheHeap)
{
    InlineVector<uint32_t, 3> v{7, 8};
    EXPECT_EQ(v.capacity(), 3U); // inside
    for (uint32_t i = 0; i < 10; ++i)
    {
        v.push_back(v[i]); // a value of its own, also when it grows
    }
    EXPECT_GT(v.capacity(), 3U); // on the heap
    const std::vector<uint32_t> expected{7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8};
    EXPECT_EQ(v, expected);
    InlineVector<uint32_t, 3> copy = v;
    InlineVector<uint32_t, 3> moved = std::move(v);
    EXPECT_EQ(copy, moved);
    EXPECT_TRUE(v.empty()); // NOLINT(bugprone-use-after-move): a moved-from vector is empty
    moved.erase(moved.begin() + 1, moved.end() - 1);
    moved.insert(moved.begin() + 1, 5);
    EXPECT_EQ(moved.ToVector(), (std::vector<uint32_t>{7, 5, 8}));
    moved.resize(5);
    EXPECT_EQ(moved.ToVector(), (std::vector<uint32_t>{7, 5, 8, 0, 0}));
    EXPECT_EQ(std::vector<uint32_t>(moved.rbegin(), moved.rend()),
              (std::vector<uint32_t>{0, 0, 8, 5, 7}));
    InlineVector<uint32_t, 3> small{1, 2};
    small = std::move(copy); // a heap block taken over
    EXPECT_EQ(small, expected);
    small = {4};
    EXPECT_EQ(small.ToVector(), (std::vector<uint32_t>{4}));
    EXPECT_LT(small, moved);
}

TEST(ServerSet, KeepsRunsOfConsecutiveServersInAnyOrderGiven)
{
    ServerSet s{7, 2, 3, 9, 8, 0};
    EXPECT_EQ(s.ToVector(), (std::vector<uint32_t>{0, 2, 3, 7, 8, 9}));
    ASSERT_EQ(s.GetRuns().size(), 3U); // {0}, {2-3}, {7-9}
    EXPECT_EQ(s.size(), 6U);
    s.Add(1); // joins {0} and {2-3}
    s.AddRun(4, 6); // joins everything
    ASSERT_EQ(s.GetRuns().size(), 1U);
    EXPECT_EQ(s.size(), 10U);
    EXPECT_EQ(s.front(), 0U);
    EXPECT_EQ(s.back(), 9U);
    s.AddRun(3, 12); // overlaps
    EXPECT_EQ(s, ServerSet({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    std::ostringstream os;
    os << ServerSet{5, 1, 2, 3, 9};
    EXPECT_EQ(os.str(), "{1-3, 5, 9}");
}

TEST(ServerSet, ContainsAndReadsBackWhatWasAdded)
{
    ServerSet s;
    EXPECT_TRUE(s.empty());
    EXPECT_EQ(s.begin(), s.end());
    std::set<uint32_t> added;
    uint32_t x = 12345;
    for (int i = 0; i < 200; ++i)
    {
        x = x * 1103515245U + 12345U;
        const uint32_t server = (x >> 16) % 300;
        s.Add(server);
        added.insert(server);
    }
    EXPECT_EQ(s.size(), added.size());
    EXPECT_EQ(s.ToVector(), std::vector<uint32_t>(added.begin(), added.end()));
    EXPECT_EQ(std::vector<uint32_t>(s.begin(), s.end()), s.ToVector());
    for (uint32_t server = 0; server < 310; ++server)
    {
        EXPECT_EQ(s.Contains(server), added.count(server) == 1) << server;
    }
    ServerSet other;
    other.Add(s);
    EXPECT_EQ(other, s);
    s.clear();
    EXPECT_TRUE(s.empty());
    EXPECT_FALSE(s.Contains(0));
}

TEST(ServerSet, RefusesAServerListedTwiceAndARunBackwards)
{
    EXPECT_THROW(ServerSet({1, 4, 1}), std::invalid_argument);
    ServerSet s;
    EXPECT_THROW(s.AddRun(5, 4), std::invalid_argument);
    s.AddRun(0, 0xFFFFFFFFU); // the whole range, without overflow
    EXPECT_EQ(s.GetRuns().size(), 1U);
    EXPECT_TRUE(s.Contains(0xFFFFFFFFU));
}

TEST(Workloads, RingCarriesTheRunBehindItsSenderInARunOrTwo)
{
    const WorkloadSet ws = Make("fattree:k=4", WorkloadSemantics::RING);
    const uint32_t n = 16;
    for (const Workload& w : ws.GetAll())
    {
        if (w.phase != Phase::REDUCE)
        {
            continue;
        }
        // Step t: server c+t sends chunk c carrying c..c+t (around the ring).
        const uint32_t t = (w.src + n - w.chunk) % n;
        std::set<uint32_t> expected;
        for (uint32_t j = 0; j <= t; ++j)
        {
            expected.insert((w.chunk + j) % n);
        }
        EXPECT_EQ(w.carries.ToVector(), std::vector<uint32_t>(expected.begin(), expected.end()));
        EXPECT_LE(w.carries.GetRuns().size(), 2U);
    }
}
