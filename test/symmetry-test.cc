/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Symmetric decoding: the translations of BCube, DCell(n,1) and fat-tree, the candidate trees they
// copy, and the environment that decides for the representative roots (root 0 alone where the
// group acts regularly) and repeats every decision on the other roots of their orbits.

#include "ns3/allreduce-module.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace ns3;

namespace
{

/// Checks every property a ServerTranslations promises, on every server and node.
void
ExpectTranslationsHold(const Topology& t, const ServerTranslations& tr)
{
    ASSERT_FALSE(tr.IsEmpty()) << t.GetName();
    const uint32_t n = t.GetNServers();
    ASSERT_EQ(tr.GetNServers(), n);
    ASSERT_EQ(tr.GetNOrbits() * tr.GetOrbitSize(), n);
    std::vector<uint32_t> inOrbit(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint32_t q = tr.GetRepresentative(r);
        EXPECT_LE(q, r);
        EXPECT_EQ(tr.GetRepresentative(q), q);
        ++inOrbit[q];
        EXPECT_EQ(tr.Map(r, q), r);
        for (uint32_t s = 0; s < n; ++s)
        {
            // Free: the representatives' maps are the identity, the others fix no server.
            EXPECT_EQ(tr.Map(r, s) == s, q == r) << t.GetName() << " T_" << r << " on " << s;
        }
        std::vector<uint32_t> image(t.GetNNodes());
        for (uint32_t v = 0; v < t.GetNNodes(); ++v)
        {
            image[v] = tr.Map(r, v);
            EXPECT_EQ(t.IsServer(image[v]), t.IsServer(v));
        }
        std::sort(image.begin(), image.end());
        EXPECT_EQ(std::unique(image.begin(), image.end()), image.end()) << "not one to one";
        for (const TopologyLink& l : t.GetLinks())
        {
            EXPECT_GE(t.FindLink(tr.Map(r, l.a), tr.Map(r, l.b)), 0)
                << t.GetName() << ": T_" << r << " loses link " << l.a << "-" << l.b;
        }
        // A group: T_r after T_s is T_(T_r(s)) on every node.
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t v = 0; v < t.GetNNodes(); ++v)
            {
                ASSERT_EQ(tr.Map(r, tr.Map(s, v)), tr.Map(tr.Map(r, s), v))
                    << t.GetName() << " r " << r << " s " << s << " node " << v;
            }
        }
    }
    for (uint32_t q : tr.GetRepresentatives())
    {
        EXPECT_EQ(inOrbit[q], tr.GetOrbitSize()) << t.GetName() << " orbit of " << q;
    }
}

} // namespace

TEST(ServerTranslations, BCubeDCellAndFatTreeHaveThem)
{
    for (const char* spec : {"bcube:n=3,k=1", "bcube:n=2,k=2", "bcube:n=4,k=1", "dcell:n=4,k=1",
                             "dcell:n=2,k=1", "dcell:n=6,k=1", "dcell:n=3,k=1", "dcell:n=5,k=1",
                             "fattree:k=4", "fattree:k=6", "fattree:k=2", "bcube:n=3,k=0",
                             "dcell:n=7,k=1", "dcell:n=8,k=1"})
    {
        const Topology t = BuildTopology(spec);
        ExpectTranslationsHold(t, ServerTranslations::Find(t));
    }
    const ServerTranslations bcube = ServerTranslations::Find(BuildTopology("bcube:n=3,k=1"));
    EXPECT_EQ(bcube.GetDescription(), "Z_3^2 (BCube digits added)");
    EXPECT_EQ(bcube.GetNOrbits(), 1u);
    EXPECT_EQ(ServerTranslations::Find(BuildTopology("dcell:n=4,k=1")).GetDescription(),
              "AGL(1,5) (affine maps of the DCell cells)");
    // A prime power of cells: the affine maps over GF(4), GF(8), GF(9), one orbit.
    for (const char* spec : {"dcell:n=3,k=1", "dcell:n=7,k=1", "dcell:n=8,k=1"})
    {
        EXPECT_EQ(ServerTranslations::Find(BuildTopology(spec)).GetNOrbits(), 1u) << spec;
    }
    EXPECT_EQ(ServerTranslations::Find(BuildTopology("dcell:n=3,k=1")).GetDescription(),
              "AGL(1,4) (affine maps of the DCell cells)");
    // Six cells: no group acts regularly on DCell(5,1)'s 30 servers (that would be sharply
    // 2-transitive on 6 points), the rotations of the cells act freely, in 5 orbits of 6: the
    // servers [0, m] represent the servers [c, c + m mod 6].
    const ServerTranslations six = ServerTranslations::Find(BuildTopology("dcell:n=5,k=1"));
    EXPECT_EQ(six.GetDescription(), "Z_6 (rotations of the DCell cells, 5 orbits)");
    EXPECT_EQ(six.GetNOrbits(), 5u);
    EXPECT_EQ(six.GetOrbitSize(), 6u);
    EXPECT_EQ(six.GetRepresentatives(), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(six.GetRepresentative(5 * 2 + 0), 3u); // [2, 0] links cell 2 to 0 = 2 + 4
    // Fat-tree: the pods' rotations (the core switches stay), pod 0's servers represent all.
    const ServerTranslations pods = ServerTranslations::Find(BuildTopology("fattree:k=4"));
    EXPECT_EQ(pods.GetDescription(), "Z_4 (rotations of the fat-tree pods, 4 orbits)");
    EXPECT_EQ(pods.GetRepresentatives(), (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(pods.GetRepresentative(13), 1u);
}

TEST(ServerTranslations, NoneWhereTheyDoNotHold)
{
    // No group known: DCell(n,2), Jellyfish.
    for (const char* spec : {"dcell:n=2,k=2", "jellyfish:switches=10,degree=4,servers=1,seed=1"})
    {
        EXPECT_TRUE(ServerTranslations::Find(BuildTopology(spec)).IsEmpty()) << spec;
    }
    // A BCube changed after it was built keeps its name, and its translations are gone: one
    // slower link, or some switches aggregating (the specs' options say so in the name too).
    Topology slow = BuildTopology("bcube:n=3,k=1");
    SlowDownLinks(slow, 0.05, 0.5, 1);
    EXPECT_EQ(slow.GetName(), "bcube(n=3,k=1)");
    EXPECT_TRUE(ServerTranslations::Find(slow).IsEmpty());
    Topology ina = BuildTopology("bcube:n=3,k=1");
    ChooseAggregators(ina, 0.5, 2, 1);
    EXPECT_TRUE(ServerTranslations::Find(ina).IsEmpty());
    EXPECT_TRUE(ServerTranslations::Find(BuildTopology("bcube:n=3,k=1,ina=all")).IsEmpty());
    // Every switch aggregating keeps the maps, but symmetric decoding has no aggregation.
    Topology all = BuildTopology("fattree:k=4");
    ChooseAggregators(all, 1.0, 2, 1);
    EXPECT_TRUE(ServerTranslations::Find(all).IsEmpty());
    // A file that takes BCube's name but is wired otherwise.
    Topology fake("bcube(n=2,k=1)", 4, 4);
    for (uint32_t s = 0; s < 4; ++s)
    {
        fake.AddLink(s, 4 + s);
        fake.AddLink(s, 4 + (s + 1) % 4);
    }
    EXPECT_TRUE(ServerTranslations::Find(fake).IsEmpty());
}

TEST(SymmetricTrees, EveryRootsTreeIsTheTranslatedTreeOfItsRepresentative)
{
    for (const char* spec : {"bcube:n=3,k=1", "dcell:n=4,k=1", "dcell:n=5,k=1"})
    {
        const Topology t = BuildTopology(spec);
        const ServerTranslations tr = ServerTranslations::Find(t);
        const auto sets = BuildSymmetricCandidateTrees(t, tr, 3, 1);
        ASSERT_EQ(sets.size(), 3u) << spec;
        EXPECT_EQ(sets[0][0].GetParents(), FlowTree::ShortestPath(t, 0).GetParents());
        for (const auto& set : sets)
        {
            ASSERT_EQ(set.size(), t.GetNServers());
            for (uint32_t r = 0; r < t.GetNServers(); ++r)
            {
                EXPECT_EQ(set[r].GetRoot(), r);
                const uint32_t q = tr.GetRepresentative(r);
                for (uint32_t v = 0; v < t.GetNNodes(); ++v)
                {
                    const uint32_t p = set[q].GetParents()[v];
                    EXPECT_EQ(set[r].GetParents()[tr.Map(r, v)],
                              p == NO_INDEX ? NO_INDEX : tr.Map(r, p))
                        << spec << " root " << r << " node " << v;
                }
            }
        }
        // Balanced over the orbits of the links, the copies load every link as evenly as
        // can be: the link bound of the merge workloads is the bandwidth bound's or one more.
        const WorkloadSet ws = WorkloadSet::Build(t, sets[1], WorkloadSemantics::MERGE, 1);
        EXPECT_LE(ComputeBounds(ws).links, ComputeBandwidthBound(t, 1) + 1) << spec;
    }
    // BCube(3,1): every orbit of root 0's tree carries 8 workloads, the bandwidth bound.
    const Topology b = BuildTopology("bcube:n=3,k=1");
    const auto sets = BuildSymmetricCandidateTrees(b, ServerTranslations::Find(b), 2, 1);
    EXPECT_EQ(ComputeBounds(WorkloadSet::Build(b, sets[1], WorkloadSemantics::MERGE, 1)).links,
              8u);
    // Orbits of directed links: under a free action, each has one link per server.
    const auto orbits = GetDirectedLinkOrbits(b, ServerTranslations::Find(b));
    ASSERT_EQ(orbits.size(), 2 * b.GetNLinks());
    EXPECT_EQ(*std::max_element(orbits.begin(), orbits.end()) + 1,
              2 * b.GetNLinks() / b.GetNServers());
}

TEST(SymmetricDrlEnvironment, DecisionsForTheRepresentativesMakeAValidTranslatedSchedule)
{
    // Any decisions (here: the first pickable candidate until none is left) give a valid
    // schedule in which every workload's images under the translations share its round, with
    // the group's size times fewer picks than workloads.
    for (const char* spec :
         {"bcube:n=3,k=1", "dcell:n=4,k=1", "bcube:n=2,k=2", "dcell:n=5,k=1", "fattree:k=4"})
    {
        const Topology t = BuildTopology(spec);
        const ServerTranslations tr = ServerTranslations::Find(t);
        auto env = MakeSymmetricDrlEnvironment(t, tr, 3, 1, 1);
        ASSERT_TRUE(env->IsSymmetric());
        env->Reset();
        uint32_t picks = 0;
        while (!env->IsDone())
        {
            env->SelectTrees(std::vector<uint8_t>(env->GetNTrees(), 0));
            for (const auto& [set, id] : env->GetCandidates())
            {
                const uint32_t root = env->GetTreeRoot(env->GetTreeOf(set, id));
                EXPECT_EQ(tr.GetRepresentative(root), root) << "representatives' only";
            }
            while (env->CanPick())
            {
                const auto& mask = env->GetCandidateMask();
                env->Pick(static_cast<uint32_t>(std::find(mask.begin(), mask.end(), 1) -
                                                mask.begin()));
                ++picks;
            }
            env->CloseRound();
        }
        const Plan plan = env->GetPlan();
        const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
        EXPECT_TRUE(check.valid) << spec << ": " << check.error;
        EXPECT_EQ(picks * tr.GetOrbitSize(), plan.workloads.GetN()) << spec;
        std::vector<uint32_t> roundOf(plan.workloads.GetN());
        for (uint32_t round = 0; round < plan.schedule.GetNRounds(); ++round)
        {
            for (uint32_t id : plan.schedule.rounds[round])
            {
                roundOf[id] = round;
            }
        }
        for (const Workload& w : plan.workloads.GetAll())
        {
            for (const Workload& v : plan.workloads.GetAll())
            {
                if (v.chunk != w.chunk && tr.GetRepresentative(v.chunk) == w.chunk &&
                    v.phase == w.phase && v.src == tr.Map(v.chunk, w.src) &&
                    v.dst == tr.Map(v.chunk, w.dst))
                {
                    EXPECT_EQ(roundOf[v.id], roundOf[w.id]) << spec << " workload " << w.id;
                }
            }
        }
    }
}

TEST(SymmetricDrlEnvironment, RefusesWorkloadsThatAreNotCopies)
{
    const Topology t = BuildTopology("bcube:n=3,k=1");
    const ServerTranslations tr = ServerTranslations::Find(t);
    // The ordinary candidate sets (balanced trees per root) are not copies of root 0's.
    auto env = MakeDrlEnvironment(t, 3, 1, 1);
    EXPECT_THROW(env->UseTranslations(tr), std::invalid_argument);
    EXPECT_THROW(env->UseTranslations(ServerTranslations()), std::invalid_argument);
    EXPECT_THROW(MakeSymmetricDrlEnvironment(BuildTopology("dcell:n=2,k=2"),
                                             ServerTranslations(),
                                             3,
                                             1,
                                             1),
                 std::invalid_argument);
    // It plans offline: a state from elsewhere cannot be observed.
    auto sym = MakeSymmetricDrlEnvironment(t, tr, 1, 1, 1);
    const WorkloadSet ws =
        WorkloadSet::Build(t, BuildShortestPathTrees(t), WorkloadSemantics::MERGE, 1);
    RoundEngine engine(ws);
    EXPECT_THROW(sym->Observe(engine), std::invalid_argument);
}
