/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The TestSuite's scheduler cases: every registered scheduler at flow level, with its known
// round count on BCube(3,1) where it is fixed; `optimal` where COIN-OR CBC was found and `drl`
// where LibTorch was, with the shipped checkpoints the library finds itself; where either is
// missing, a case that says so in its name and checks the documented refusal
// (doc/allreduce.rst, "Schedulers").

#include "allreduce-suite-cases.h"
#include "test-topologies.h"

#include "ns3/allreduce-module.h"
#include "ns3/core-module.h"

#include <fstream>

using namespace ns3;
using namespace ns3::allreduce_suite;

/**
 * \ingroup allreduce-tests
 * The registry lists the six built-ins in order, creates them by name, and refuses an unknown
 * name listing what is available.
 */
class SchedulerRegistryTestCase : public TestCase
{
  public:
    SchedulerRegistryTestCase()
        : TestCase("schedulers: ps, ring, greedy, balanced, optimal and drl are registered; an "
                   "unknown name is refused listing them")
    {
    }

  private:
    void DoRun() override
    {
        std::string names;
        for (const auto& entry : ListSchedulers())
        {
            names += (names.empty() ? "" : " ") + entry.first;
        }
        NS_TEST_EXPECT_MSG_EQ(names, "ps ring greedy balanced optimal drl", "the built-ins");
        NS_TEST_EXPECT_MSG_EQ(CreateScheduler("ring")->GetInstanceTypeId(),
                              RingScheduler::GetTypeId(),
                              "ring by name");
        NS_TEST_EXPECT_MSG_EQ(CreateScheduler("ns3::GreedyScheduler")->GetName(),
                              "greedy",
                              "greedy by TypeId name");
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([] { CreateScheduler("optimal-someday"); }),
                              "unknown scheduler 'optimal-someday'; available: ps, ring, greedy, "
                              "balanced, optimal, drl (or the TypeId name of a subclass of "
                              "ns3::AllReduceScheduler)",
                              "an unknown name");
    }
};

/**
 * \ingroup allreduce-tests
 * One list scheduler at flow level: its schedule of BCube(3,1) takes the rounds the manual's
 * headline table gives (deterministic: twice the same schedule), and on a DCell, a fat-tree, a
 * Jellyfish and a file topology it is valid and never below the lower bounds.
 */
class FlowSchedulerTestCase : public TestCase
{
  public:
    /**
     * \param name the scheduler's short name
     * \param rounds its rounds on BCube(3,1)
     */
    FlowSchedulerTestCase(const std::string& name, uint32_t rounds)
        : TestCase("schedulers: " + name + " takes " + std::to_string(rounds) +
                   " rounds on BCube(3,1), valid and never below the bounds on every family"),
          m_name(name),
          m_rounds(rounds)
    {
    }

  private:
    void DoRun() override
    {
        const Topology bcube = BuildTopology("bcube:n=3,k=1");
        const SchedulerResult r = EvaluateScheduler(bcube, m_name, 1);
        NS_TEST_EXPECT_MSG_EQ(r.check.valid, true, m_name << ": " << r.check.error);
        NS_TEST_EXPECT_MSG_EQ(r.plan.schedule.GetNRounds(), m_rounds, m_name << " on BCube(3,1)");
        NS_TEST_EXPECT_MSG_EQ(r.plan.schedule.scheduler, m_name, "the schedule names its maker");
        NS_TEST_EXPECT_MSG_EQ(
            (EvaluateScheduler(bcube, m_name, 1).plan.schedule.rounds == r.plan.schedule.rounds),
            true,
            m_name << " twice gave two schedules");

        std::vector<Topology> topologies{test::TwoSwitchesFile()};
        for (const char* spec :
             {"dcell:n=3,k=1", "fattree:k=4", "jellyfish:switches=6,degree=3,seed=2"})
        {
            topologies.push_back(BuildTopology(spec));
        }
        for (const Topology& t : topologies)
        {
            for (uint32_t pieces : {1U, 2U})
            {
                const SchedulerResult other = EvaluateScheduler(t, m_name, pieces);
                const uint32_t n = t.GetNServers();
                NS_TEST_EXPECT_MSG_EQ(other.check.valid,
                                      true,
                                      m_name << " on " << t.GetName() << ": " << other.check.error);
                NS_TEST_EXPECT_MSG_EQ(other.plan.workloads.GetN(),
                                      2 * n * (n - 1) * pieces,
                                      m_name << " on " << t.GetName());
                NS_TEST_EXPECT_MSG_GT_OR_EQ(other.plan.schedule.GetNRounds(),
                                            other.bounds.GetMax(),
                                            m_name << " on " << t.GetName());
            }
        }
    }

    std::string m_name; //!< the scheduler
    uint32_t m_rounds;  //!< its rounds on BCube(3,1)
};

/**
 * \ingroup allreduce-tests
 * The exact scheduler, with COIN-OR CBC, started from greedy: on BCube(2,1) the program proves
 * 4 rounds the fewest on its trees (the critical path), and any AllReduce needs 3 (the
 * bandwidth bound): feasible, [3, 4]. On BCube(3,1) it proves 12 on its shortest-path trees,
 * below greedy's 15 on the same workloads, where drl schedules 8: feasible, [8, 12], never
 * "optimal" above a schedule another scheduler finds.
 */
class OptimalSchedulerTestCase : public TestCase
{
  public:
    OptimalSchedulerTestCase()
        : TestCase("schedulers: optimal (COIN-OR CBC) proves 4 rounds on BCube(2,1)'s trees and "
                   "12 on BCube(3,1)'s, in [3, 4] and [8, 12] for any AllReduce")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::tuple<std::string, uint32_t, uint32_t>> cases{
            {"bcube:n=2,k=1", 4, 3},
            {"bcube:n=3,k=1", 12, 8}};
        for (const auto& [spec, onTrees, bandwidth] : cases)
        {
            Ptr<OptimalScheduler> s = DynamicCast<OptimalScheduler>(CreateScheduler("optimal"));
            NS_TEST_ASSERT_MSG_NE(s, nullptr, "optimal is an OptimalScheduler");
            // Generous: BCube(3,1) is settled in about a second; a limit that ran out would be
            // reported below as the status, not as a wrong number.
            s->SetAttribute("TimeLimit", DoubleValue(60));
            s->SetAttribute("StartFrom", StringValue("greedy"));
            const SchedulerResult r = EvaluateScheduler(BuildTopology(spec), s, 1);
            const OptimalSearch& search = s->GetSearch();
            NS_TEST_EXPECT_MSG_EQ(r.check.valid, true, spec << ": " << r.check.error);
            NS_TEST_EXPECT_MSG_EQ(search.GetStatusName(), "feasible", spec);
            NS_TEST_EXPECT_MSG_EQ(search.GetCandidateInterval(), std::to_string(onTrees), spec);
            NS_TEST_EXPECT_MSG_EQ(search.GetInterval(),
                                  "[" + std::to_string(bandwidth) + ", " +
                                      std::to_string(onTrees) + "]",
                                  spec);
            NS_TEST_EXPECT_MSG_EQ(r.plan.schedule.GetNRounds(), onTrees, spec);
            NS_TEST_EXPECT_MSG_EQ(search.bounds.bandwidth, bandwidth, spec);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(search.candidateLower, search.bounds.GetMax(), spec);
            Ptr<AllReduceScheduler> greedy = CreateScheduler("greedy");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.plan.schedule.GetNRounds(),
                                        RunRounds(*greedy, r.plan.workloads).GetNRounds(),
                                        spec << ": greedy on the same workloads");
        }
    }
};

/**
 * \ingroup allreduce-tests
 * The learned scheduler, with LibTorch, on the checkpoints shipped in checkpoints/ that the
 * library finds by itself: BCube(3,1)'s own reaches the bandwidth bound's 8 rounds; the general
 * one serves a topology none ships for; and inside ns-3 it decides each round online on the
 * simulation's state, as it does on a RoundEngine, and every server ends with the exact sum.
 */
class DrlSchedulerTestCase : public TestCase
{
  public:
    DrlSchedulerTestCase()
        : TestCase("schedulers: drl (LibTorch) loads the shipped checkpoints: 8 rounds on "
                   "BCube(3,1), the general one elsewhere, online in ns-3 with exact sums")
    {
    }

  private:
    void DoRun() override
    {
        const Topology bcube = BuildTopology("bcube:n=3,k=1");
        const std::string shipped = GetDrlModelDirectory() + "/bcube-n-3-k-1.pt";
        NS_TEST_ASSERT_MSG_EQ(std::ifstream(shipped).good(), true, "no checkpoint " << shipped);
        Ptr<DrlScheduler> drl = DynamicCast<DrlScheduler>(CreateScheduler("drl"));
        drl->SetAttribute("Model", StringValue("")); // the library's own choice
        drl->SetAttribute("Samples", UintegerValue(0));
        drl->SetAttribute("RolloutBranches", UintegerValue(0));
        const SchedulerResult r = EvaluateScheduler(bcube, drl, 1);
        NS_TEST_EXPECT_MSG_EQ(r.check.valid, true, r.check.error);
        NS_TEST_EXPECT_MSG_EQ(drl->GetDecoding().GetSourceName(), "topology", "its own");
        NS_TEST_EXPECT_MSG_EQ(drl->GetDecoding().model, shipped, "the shipped checkpoint");
        NS_TEST_EXPECT_MSG_EQ(r.plan.schedule.GetNRounds(), 8, "drl on BCube(3,1)");
        NS_TEST_EXPECT_MSG_EQ(r.bounds.bandwidth, 8, "the bandwidth bound");

        // No checkpoint ships for a random graph: the general one, no worse than ps there.
        const Topology random = BuildTopology("random:switches=16,links=28,servers=20,seed=5");
        const SchedulerResult general = EvaluateScheduler(random, drl, 1);
        NS_TEST_EXPECT_MSG_EQ(general.check.valid, true, general.check.error);
        NS_TEST_EXPECT_MSG_EQ(drl->GetDecoding().GetSourceName(), "general", random.GetName());
        NS_TEST_EXPECT_MSG_EQ(drl->GetDecoding().model, GetDrlGeneralModelPath(), "general.pt");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(general.plan.schedule.GetNRounds(),
                                    EvaluateScheduler(random, "ps", 1).plan.schedule.GetNRounds(),
                                    "drl against ps on " << random.GetName());

        // Online inside ns-3, barrier mode: one decision per round, the rounds it decides on a
        // RoundEngine (following the plan MakeWorkloads made: 8 rounds), exact sums.
        Ptr<AllReduceScheduler> flow = CreateScheduler("drl");
        const WorkloadSet workloads = flow->MakeWorkloads(bcube, 1);
        const Schedule decided = RunRounds(*flow, workloads);
        NS_TEST_EXPECT_MSG_EQ(decided.GetNRounds(), 8, "drl follows its plan on a RoundEngine");
        DcnTopologyHelper dcn(bcube);
        InstallNetwork(dcn);
        AllReduceHelper allreduce(dcn);
        allreduce.SetControllerAttribute("Mode", StringValue("barrier"));
        allreduce.SetControllerAttribute("GradientBytes", UintegerValue(8192));
        allreduce.Install(flow, workloads);
        Simulator::Run();
        Ptr<AllReduceController> controller = allreduce.GetController();
        const AllReduceRunResult& result = controller->GetResult();
        NS_TEST_EXPECT_MSG_EQ(result.finished, true, result.error);
        const AllReduceVerification v = controller->Verify();
        NS_TEST_EXPECT_MSG_EQ((v.verified && v.exact), true, v.message);
        NS_TEST_EXPECT_MSG_EQ(result.decisions,
                              controller->GetSchedule().GetNRounds(),
                              "decisions");
        NS_TEST_EXPECT_MSG_EQ((controller->GetSchedule().rounds == decided.rounds),
                              true,
                              "online in ns-3 it decides as on a RoundEngine");
        Simulator::Destroy();
    }
};

/**
 * \ingroup allreduce-tests
 * A scheduler this build cannot run (optimal without COIN-OR CBC, drl without LibTorch): the
 * case's name says it is skipped, and asking for it by name gives the documented error that
 * says what to install.
 */
class UnavailableSchedulerTestCase : public TestCase
{
  public:
    /**
     * \param name the scheduler
     * \param library what it needs, for the case's name
     * \param package the Debian package the error must name
     */
    UnavailableSchedulerTestCase(const std::string& name,
                                 const std::string& library,
                                 const std::string& package)
        : TestCase("schedulers: " + name + " SKIPPED, this build has no " + library +
                   "; asking for it gives the documented error"),
          m_name(name),
          m_package(package)
    {
    }

  private:
    void DoRun() override
    {
        const std::string reason = GetSchedulerUnavailableReason(m_name);
        NS_TEST_EXPECT_MSG_EQ(Mentions(reason, "apt-get install " + m_package), true, reason);
        const std::string error = ErrorOf([this] { CreateScheduler(m_name); });
        NS_TEST_EXPECT_MSG_EQ(error, reason, "CreateScheduler(\"" << m_name << "\")");
        NS_TEST_EXPECT_MSG_EQ(
            EvaluateScheduler(BuildTopology("bcube:n=2,k=1"), "ps", 1).check.valid,
            true,
            "the other schedulers still run");
    }

    std::string m_name;    //!< the scheduler
    std::string m_package; //!< what to install
};

Cases
ns3::allreduce_suite::MakeSchedulerCases()
{
    Cases cases{new SchedulerRegistryTestCase};
    // Rounds on BCube(3,1), k = 1: the manual's headline table.
    for (const auto& [name, rounds] :
         std::vector<std::pair<std::string, uint32_t>>{{"ps", 16},
                                                       {"ring", 16},
                                                       {"greedy", 15},
                                                       {"balanced", 11}})
    {
        cases.push_back(new FlowSchedulerTestCase(name, rounds));
    }
    if (GetSchedulerUnavailableReason("optimal").empty())
    {
        cases.push_back(new OptimalSchedulerTestCase);
    }
    else
    {
        cases.push_back(
            new UnavailableSchedulerTestCase("optimal", "COIN-OR CBC", "coinor-libcbc-dev"));
    }
    if (GetSchedulerUnavailableReason("drl").empty())
    {
        cases.push_back(new DrlSchedulerTestCase);
    }
    else
    {
        cases.push_back(new UnavailableSchedulerTestCase("drl", "LibTorch", "libtorch-dev"));
    }
    return cases;
}
