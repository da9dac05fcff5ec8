/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_SCHEDULER_H
#define NS3_ALLREDUCE_DRL_SCHEDULER_H

#include "ns3/allreduce-scheduler.h"
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
class DrlPolicy;

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
 * \return the name of its shipped checkpoint without ".pt": lower case, letters and digits
 *         kept, everything else turned into single '-', e.g.
 *         "jellyfish-switches-10-degree-4-servers-1-seed-3"
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
    uint64_t scheduled{0}; //!< workloads scheduled (decisions and greedy completions)
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
    uint64_t budget{0};          //!< the SearchBudget of the last MakePlan in workloads (the
                                 //!< attribute over the greedy episode's rounds)
    DrlRolloutStats rollout;     //!< the rollout search of the last MakePlan
    double rescoreShare{0};      //!< the RescoreShare attribute
    std::string symmetry;        //!< symmetric decoding: the translations' group (empty: none)

    /// \return "topology", "general", "given" or "none"
    std::string GetSourceName() const;
    /// \return one line: the checkpoint and why it was chosen
    std::string DescribeModel() const;
    /// \return one line: the search of the last MakePlan (empty when none ran)
    std::string DescribeSearch() const;
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
 * rounds, so that large topologies stay within time), Seed (of the samples), RescoreShare (how stale the lower policy's scores may get
 * within a round, DrlPolicy::SetRescoreShare). GetDecoding says which checkpoint was used and
 * how the search went; the trace source SearchProgress reports it as it goes.
 *
 * Online, SelectRound runs both policies greedily on whatever state it is given (a RoundEngine
 * another scheduler started, the packet-level controller): the upper policy selects which
 * chunks' trees may send, the lower one picks their ready workloads, masked by the links the
 * state has busy or down. Given fixed workloads (Prepare, any semantics) every chunk has its
 * one tree. Offline, MakePlan searches: it runs the greedy episode and Samples sampled ones on
 * the checkpoint's candidate trees per root (so the upper level also chooses routing), keeps
 * the one with the fewest rounds, and tries to improve on it by the rollout search.
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

    std::string GetName() const override;
    void Prepare(const WorkloadSet& workloads) override;
    /// Both policies decide on the state given, greedily: no plan is made beforehand.
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

  private:
    /**
     * \param topology the topology to schedule
     * \return the policy of the checkpoint for it (loaded once per path)
     * \throws std::runtime_error when there is none, or it cannot see the topology's
     *         aggregating switches (DrlPolicy::CheckSees)
     */
    const DrlPolicy& GetPolicy(const Topology& topology);

    std::string m_model;                 //!< Model attribute
    uint32_t m_samples{32};              //!< Samples attribute
    uint32_t m_rolloutBranches{16};      //!< RolloutBranches attribute
    bool m_symmetric{true};              //!< Symmetric attribute
    uint64_t m_searchBudget{100000000};  //!< SearchBudget attribute
    uint32_t m_seed{1};                  //!< Seed attribute
    double m_rescoreShare{0.5};          //!< RescoreShare attribute
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
