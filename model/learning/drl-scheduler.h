/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_SCHEDULER_H
#define NS3_ALLREDUCE_DRL_SCHEDULER_H

#include "ns3/allreduce-scheduler.h"
#include "ns3/replay-scheduler.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-learning Learning
 * \ingroup allreduce
 * The hierarchical DRL scheduler drl (LibTorch): environment, policies, training and search at
 * decode time (doc/allreduce.rst, "The hierarchical DRL scheduler (drl)"). Built only with
 * LibTorch.
 */

class DrlEnvironment;
class DrlEnvironmentPool;
class DrlPolicy;
struct DrlDecodeStats;

/**
 * \ingroup allreduce-learning
 * \return true when the module was built with LibTorch, so that the `drl` scheduler and the
 *         trainer can run
 */
bool IsDrlAvailable();

/**
 * \ingroup allreduce-learning
 * \return why the learning parts cannot run and how to enable them (empty when they can)
 */
std::string GetDrlUnavailableReason();

/**
 * \ingroup allreduce-learning
 * \param topologyName a topology's name, e.g. "jellyfish(switches=10,degree=4,servers=1,seed=3)"
 * \return the name of its shipped checkpoint without ".pt": every number given as a value
 *         (after '=') written as its shortest text (ina=0.50, ina=.5 and ina=5e-1 as ina=0.5;
 *         ina=1 as ina=all), lower case, letters and digits kept, everything else turned into
 *         single '-', e.g. "jellyfish-switches-10-degree-4-servers-1-seed-3",
 *         "fattree-k-4-ina-0-5"
 */
std::string GetDrlModelName(const std::string& topologyName);

/**
 * \ingroup allreduce-learning
 * \return the folders where drl looks for the shipped checkpoints, in order: $ALLREDUCE_MODEL_DIR
 *         alone when it is set; otherwise the source tree's checkpoints/, then, for a library
 *         installed standalone (`cmake --install`), share/ns3-allreduce/checkpoints beside the
 *         library's own lib folder and under the install prefix it was configured with
 */
std::vector<std::string> GetDrlModelDirectories();

/**
 * \ingroup allreduce-learning
 * \return the directory of the shipped checkpoints: the first of GetDrlModelDirectories() that
 *         exists (the first of them when none does), so an installed library finds its
 *         checkpoints when the source tree is gone
 */
std::string GetDrlModelDirectory();

/**
 * \ingroup allreduce-learning
 * \return the general checkpoint, trained on a family of topologies, that `drl` loads where
 *         no checkpoint ships for the topology: general.pt in GetDrlModelDirectory()
 */
std::string GetDrlGeneralModelPath();

/**
 * \ingroup allreduce-learning
 * How a rollout search went (DrlRollout, doc/allreduce.rst, "Search at decode time").
 */
struct DrlRolloutStats
{
    uint32_t branches{0};  //!< round decisions tried from each state
    uint64_t budget{0};    //!< workloads it was allowed to schedule
    uint64_t estimate{0};  //!< workloads a full search was expected to schedule
    bool skipped{false};   //!< not run: no branches, or the estimate was over the budget
    bool budgetOut{false}; //!< stopped when the budget ran out
    uint32_t rounds{0};    //!< rounds decided (states it moved through)
    uint64_t tried{0};     //!< round decisions tried
    uint64_t scheduled{0}; //!< workloads scheduled (decisions and greedy completions; a
                           //!< state's greedy decision, known from the one before, not again)
    uint32_t incumbent{0}; //!< rounds of the plan it started from
    uint32_t found{0};     //!< rounds of the plan it returned
};

/**
 * \ingroup allreduce-learning
 * Which checkpoint the `drl` scheduler used and how its search went, for reports.
 */
struct DrlDecoding
{
    /// Where the checkpoint came from.
    enum class Source
    {
        NONE,     //!< nothing loaded yet
        GIVEN,    //!< the Model attribute
        TOPOLOGY, //!< shipped for this topology (GetDrlModelName)
        GENERAL,  //!< the general one: none ships for this topology
    };

    Source source{Source::NONE}; //!< where the checkpoint came from
    std::string model;           //!< its path
    std::string topology;        //!< the topology it was loaded for
    std::string info;            //!< what it was trained on (its free text)
    bool searched{false};        //!< the last call was a MakePlan (false: online, or none)
    uint32_t samples{0};         //!< the Samples attribute of the last MakePlan
    uint32_t finished{0};        //!< episodes of the last MakePlan run to the end
    uint32_t cut{0};             //!< sampled episodes of the last MakePlan cut (could not win)
    uint32_t skipped{0};         //!< sampled episodes not run: over the search budget
    uint32_t sampledRounds{0};   //!< rounds of the best of the greedy and sampled episodes
    uint32_t threads{1};         //!< threads the last MakePlan's search ran on
    uint64_t budget{0};          //!< the SearchBudget of the last MakePlan in workloads (the
                                 //!< attribute over the greedy episode's rounds)
    DrlRolloutStats rollout;     //!< the rollout search of the last MakePlan
    double rescoreShare{0};      //!< the share decoded with (RescoreShare; -1 resolved)
    std::string symmetry;        //!< symmetric decoding: the translations' group (empty: none)
    bool taught{false};          //!< decoded on the checkpoint's taught trees
    // online (SelectRound)
    bool greedy{false};          //!< Online was greedy (no plan, no search)
    bool followsPlan{false};     //!< the run started on the plan MakePlan made for it
    uint32_t decisions{0};       //!< decision points seen
    uint32_t replans{0};         //!< searches from the live state
    uint32_t unplannable{0};     //!< decisions that wanted one, but nothing could start then
    uint32_t kept{0};            //!< searches whose plan took more rounds than the one kept
    uint64_t replanScheduled{0}; //!< workloads those searches scheduled (their work)
    std::string lastReplan;      //!< why the last search from the live state ran

    /// \return "topology", "general", "given" or "none"
    std::string GetSourceName() const;
    /// \return one line: the checkpoint and why it was chosen
    std::string DescribeModel() const;
    /// \return one line: the search of the last MakePlan (empty when none ran)
    std::string DescribeSearch() const;
    /// \return one line: how the last online run decided (empty when none ran)
    std::string DescribeOnline() const;
};

/**
 * \ingroup allreduce-learning
 * \param path a checkpoint
 * \return the free text saved in it (what it was trained on)
 * \throws std::runtime_error as DrlPolicy::Load does
 */
std::string GetDrlCheckpointInfo(const std::string& path);

/**
 * \ingroup allreduce-learning
 * The hierarchical DRL scheduler (doc/allreduce.rst, "The hierarchical DRL scheduler"): a flow-tree
 * selection policy picks, every round, which candidate flow trees may send; a workload scheduling
 * policy then picks their workloads one at a time, masked so that the round stays valid. Both come
 * from a checkpoint written by allreduce-train (DrlPolicy::Save).
 *
 * Attributes: Model (the checkpoint; empty: the one shipped for the topology, see
 * GetDrlModelName, or where none ships the general one, GetDrlGeneralModelPath), Samples
 * (MakePlan's offline search: sampled episodes decoded besides the greedy one; the fewest rounds
 * win), RolloutBranches (then a rollout search, DrlRollout, trying that many decisions per
 * round), SearchBudget (what both may spend, in workloads scheduled times the greedy episode's
 * rounds, so that large topologies stay within time), Seed (of the samples), RescoreShare (how
 * stale the lower policy's scores may get within a round, DrlPolicy::SetRescoreShare; by default
 * 0 on a checkpoint's taught trees, else 0.5). GetDecoding says which checkpoint was used and
 * how the search went; the trace source SearchProgress reports it as it goes.
 *
 * Online (doc/allreduce.rst, "Deciding live: follow the plan, search again"), SelectRound
 * decides on whatever state it is given (a RoundEngine another scheduler started, the
 * packet-level controller) by a receding horizon: it follows a plan as ReplayScheduler does
 * (the first planned round not wholly started where rounds are barriers, every ready workload
 * in plan order in async mode) while the live state agrees with what the plan expects; when
 * it does not (a planned workload held up by a link down or used by other traffic or jobs, a
 * late gradient, workloads routed around a failure, a plan used up), it searches again from
 * the live state with the same policies (DrlEnvironment::StartFrom, then Decode's greedy and
 * sampled episodes and the rollout, within ReplanBudget) and follows the new plan. The plan
 * it starts with is MakePlan's when the run's workloads are that plan's (MakeWorkloads
 * returns them), else a search from the start. Deterministic: the budget counts work, and
 * the searches' seeds follow from Seed. With Online "greedy", both policies instead act
 * greedily on the live state at every decision, with no plan and no search. Offline,
 * MakePlan searches: it runs the greedy episode and Samples sampled ones on the checkpoint's
 * candidate trees per root (so the upper level also chooses routing), keeps the one with the
 * fewest rounds, and tries to improve on it by the rollout search.
 */
class DrlScheduler : public AllReduceScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    DrlScheduler();
    ~DrlScheduler() override;

    /// How SelectRound decides.
    enum Online
    {
        PLAN,   //!< follow a plan, search again when the state departs from it
        GREEDY, //!< both policies greedily at every decision, no search
    };

    std::string GetName() const override;
    /// \return the workloads of MakePlan's plan (its search chooses the flow trees), which
    ///         is kept for Prepare
    WorkloadSet MakeWorkloads(const Topology& topology, uint32_t pieces) override;
    void Prepare(const WorkloadSet& workloads) override;
    /// Follows the plan, searching again from the state given when it departs from it (the
    /// Online attribute; see the class).
    void SelectRound(SchedulerState& state) override;
    Plan MakePlan(const Topology& topology, uint32_t pieces) override;

    /**
     * \param topologyName the topology the checkpoint is for (used when Model is empty)
     * \return the checkpoint path that will be loaded: Model when set, else the one shipped
     *         for the topology when it exists, else the general one
     */
    std::string GetModelPath(const std::string& topologyName) const;

    /// \return which checkpoint was loaded last and how the last MakePlan searched
    const DrlDecoding& GetDecoding() const;

    /**
     * TracedCallback signature of the search's progress.
     * \param step "episode" (the greedy one and the samples), "rollout" (rounds decided) or
     *        "done" (the search is over); each kind starts with done 0
     * \param done steps of that kind done
     * \param total steps of that kind at most (episodes: the greedy one and the samples, and
     *        once the greedy one is done only the samples that may fit the search budget;
     *        rollout: the rounds to beat)
     * \param best rounds of the best schedule so far (0: none yet)
     */
    typedef void (*SearchProgressCallback)(const std::string& step,
                                           uint32_t done,
                                           uint32_t total,
                                           uint32_t best);

    /**
     * TracedCallback signature of a search from the live state.
     * \param seconds the state's time (flow level: 0)
     * \param why what departed from the plan
     * \param rounds rounds of the plan the search found, from now (0: nothing could start,
     *        no search)
     * \param adopted true when drl follows that plan from now, false when it kept its own
     *        (fewer rounds left) or nothing could start
     */
    typedef void (*ReplanCallback)(double seconds,
                                   const std::string& why,
                                   uint32_t rounds,
                                   bool adopted);

  private:
    /**
     * \param topology the topology to schedule
     * \return the policy of the checkpoint for it (loaded once per path)
     * \throws std::runtime_error when there is none, or it cannot see the topology's
     *         aggregating switches (DrlPolicy::CheckSees)
     */
    const DrlPolicy& GetPolicy(const Topology& topology);
    /// How the live state departs from the plan being followed.
    struct Departure
    {
        std::string why;     //!< what departed (empty: nothing, follow the plan)
        bool broken{false};  //!< the plan cannot be followed any more (else it is only held
                             //!< up: a late gradient, links other traffic holds)
        uint32_t frontier{NO_INDEX}; //!< the plan's frontier round it was found in
    };
    /**
     * \param state the live state
     * \return how the state departs from the plan being followed
     */
    Departure Depart(const SchedulerState& state);
    /**
     * Searches from the live state and follows the new plan: always when the plan is
     * broken, and when it is only held up if the new plan takes no more rounds from here than
     * the plan left (following it, the held-up round starts what it can and the rounds after
     * work ahead). Nothing changes when nothing can start now.
     * \param state the live state \param departure how it departs from the plan
     */
    void Replan(const SchedulerState& state, const Departure& departure);
    /**
     * The search of MakePlan and of Replan: Decode's greedy and sampled episodes, then the
     * rollout, within a budget.
     * \param env the environment (from the start, or a live state's: StartFrom), and its twins
     *        for the other threads
     * \param budget the budget (SearchBudget's unit) \param seed the seed
     * \param[out] stats how Decode went \param[out] rollout how the rollout went
     * \param progress whether to fire SearchProgress
     * \return the plan found, validated
     * \throws std::logic_error when it is invalid (a bug)
     */
    Plan Search(DrlEnvironmentPool& env,
                uint64_t budget,
                uint64_t seed,
                DrlDecodeStats& stats,
                DrlRolloutStats& rollout,
                bool progress);
    /**
     * Follows these rounds from now.
     * \param rounds the rounds (workloads of the run) \param workloads the run's workloads,
     *        with the paths the rounds were planned on
     */
    void Follow(Schedule rounds, const WorkloadSet& workloads);

    std::string m_model;                 //!< Model attribute
    uint32_t m_samples{32};              //!< Samples attribute
    uint32_t m_rolloutBranches{16};      //!< RolloutBranches attribute
    uint32_t m_threads{0};               //!< Threads attribute
    bool m_symmetric{true};              //!< Symmetric attribute
    uint64_t m_searchBudget{100000000};  //!< SearchBudget attribute
    uint32_t m_seed{1};                  //!< Seed attribute
    double m_rescoreShare{-1};           //!< RescoreShare attribute
    Online m_online{PLAN};               //!< Online attribute
    uint64_t m_replanBudget{2000000};    //!< ReplanBudget attribute
    Plan m_plan;                         //!< MakePlan's last plan
    bool m_hasPlan{false};               //!< whether m_plan is one
    Ptr<ReplayScheduler> m_follower;     //!< follows the plan online (null: none yet)
    std::vector<std::vector<uint32_t>> m_plannedPaths; //!< per workload, its path when planned
    /// the Replan trace source
    TracedCallback<double, const std::string&, uint32_t, bool> m_replan;
    uint32_t m_heldAt{NO_INDEX};         //!< the frontier where a search last kept the plan
    uint32_t m_heldDone{0};              //!< workloads the state had finished then
    std::string m_loadedPath;            //!< path of m_policy
    DrlDecoding m_decoding;              //!< what was loaded and how it searched
    std::shared_ptr<DrlPolicy> m_policy; //!< the loaded policies
    std::unique_ptr<DrlEnvironment> m_env; //!< observes the states SelectRound is given
    std::mt19937_64 m_rng;                 //!< for the policy (greedy acting draws nothing)
    /// the SearchProgress trace source
    TracedCallback<const std::string&, uint32_t, uint32_t, uint32_t> m_searchProgress;
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_SCHEDULER_H */
