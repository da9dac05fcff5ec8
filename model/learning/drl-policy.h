/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_POLICY_H
#define NS3_ALLREDUCE_DRL_POLICY_H

#include "drl-environment.h"
#include "drl-environment-pool.h"
#include "drl-scheduler.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#ifdef ALLREDUCE_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * Every hyper-parameter of the hierarchical DRL scheduler and its training, with the defaults
 * the shipped checkpoints were trained with.
 */
struct DrlHyperParams
{
    // --- networks and candidates ---
    uint32_t hidden{32};        //!< width of every hidden layer
    uint32_t treesPerRoot{3};   //!< candidate flow trees per root (1: shortest-path trees only)
    uint32_t treeSeed{1};       //!< seed of the candidate trees (balanced trees)

    // --- the iterative scheme (the paper's Algorithm 1) ---
    uint32_t upperIterations{2}; //!< J: iterations training the upper level, lower frozen
    uint32_t lowerIterations{4}; //!< K: iterations training the lower level, upper frozen

    // --- PPO, per iteration ---
    uint32_t episodes{4};      //!< sampled episodes per training topology
    uint32_t epochs{4};        //!< passes over the collected steps
    uint32_t minibatch{256};   //!< steps per gradient step
    uint32_t maxSteps{2048};   //!< at most this many steps (sampled) per update
    double learningRate{1e-4}; //!< Adam's step size for PPO
    double clip{0.2};          //!< PPO's clip range of the probability ratio
    double gamma{0.95};        //!< discount per round (the lower level's steps within a
                               //!< round are not discounted)
    double lambda{0.95};       //!< GAE's lambda
    double entropy{0.001};     //!< entropy bonus coefficient
    double targetKl{0.01};     //!< an update stops once the mean KL divergence from the
                               //!< acting policy exceeds 1.5 x this (0: never)
    double valueCoef{0.5};     //!< value loss coefficient
    double maxGradNorm{0.5};   //!< gradient clipping

    // --- warm start by imitation of the balanced scheduler's rules ---
    uint32_t imitationSteps{300}; //!< gradient steps per level on minibatches of the
                                  //!< teacher's steps (0: no warm start)
    uint32_t teacherTies{8};      //!< tie-breaks the teacher tries per tree set and rule
                                  //!< (by candidate order, then at random), as balanced does
    double imitationRate{3e-3};   //!< Adam's step size for imitation
    /// warm start: evaluate (as between iterations) every this many imitation steps and keep
    /// the weights that decode best (0: keep the last)
    uint32_t imitationEvalEvery{0};
    /// warm start: every this many imitation steps the network runs an episode greedily per
    /// topology and the teacher labels the states it met, added to the demonstrations
    /// (corrections, DAgger: the network learns to recover from its own mistakes; 0: none)
    uint32_t imitationCorrectEvery{0};
    /// warm start from the flat-tree search (where servers reach each other through switches
    /// only): moves it may spend per round count; its trees replace the candidate sets
    /// (DrlPolicy::SetTaughtTrees) and its plan is one more teacher (0: none)
    uint64_t flatTeacherMoves{0};

    // --- decoding after training ---
    uint32_t evalSamples{8};   //!< sampled episodes (besides the greedy one) when picking the
                               //!< best checkpoint during training

    /**
     * Refuses values that cannot train: zero sizes (a minibatch of 0 steps), rates that are not
     * finite and positive or that would diverge at once (above 1), probabilities outside
     * [0, 1].
     * \throws std::invalid_argument naming the parameter, the value and the accepted range
     */
    void Check() const;
};

/// One decision of one level, as stored for PPO or imitation.
struct DrlStep
{
    std::vector<float> items;    //!< per item (tree or candidate), its features, row-major
    std::vector<float> global;   //!< global features
    std::vector<uint8_t> mask;   //!< per item, 1 when it may be chosen
    std::vector<uint8_t> chosen; //!< upper: per item 0/1; lower (imitation): the teacher's
                                 //!< equally good picks
    uint32_t action{0};          //!< lower: the pick
    float logp{0};               //!< log-probability of the action when taken
    float value{0};              //!< value estimate when taken
    float reward{0};             //!< reward after it
    bool roundEnd{false};        //!< the round ended after it (the discount applies)
    bool last{false};            //!< the episode ended after it
};

/// What one episode did.
struct DrlEpisode
{
    uint32_t rounds{0};            //!< rounds of the schedule (when cut: the rounds so far)
    bool cut{false};               //!< stopped before the end: it could not beat the cut-off
    std::vector<DrlStep> upper;    //!< upper steps (when recorded)
    std::vector<DrlStep> lower;    //!< lower steps (when recorded)
};

/// How a best-of-N search went (DrlPolicy::Decode).
struct DrlDecodeStats
{
    uint32_t finished{0};  //!< episodes run to the end (the greedy one included)
    uint32_t cut{0};       //!< sampled episodes stopped once they could not beat the best
    uint32_t skipped{0};   //!< sampled episodes not run: the budget would not cover one
    uint64_t scheduled{0}; //!< workloads the sampled episodes scheduled
    uint64_t budget{0};    //!< the budget in workloads: the one given over the greedy
                           //!< episode's rounds
};

/**
 * A demonstrator for the warm start: the balanced scheduler's choices in the environment, or
 * a plan's (the flat-tree search's on the taught trees, DrlHyperParams::flatTeacherMoves).
 */
struct DrlTeacher
{
    uint32_t set{0};  //!< the candidate tree set whose trees the upper level selects
    /// the list rule the lower level follows (DrlEnvironment::TeacherTies)
    BalancedScheduler::Rule rule{BalancedScheduler::Rule::HEIGHT_THEN_LOAD};
    uint64_t tieSeed{0}; //!< ties broken by candidate order (0) or at random from this seed
    /// when not null, the plan followed instead of the rule: per workload of `set`, its round
    /// (in each round the lower level picks that round's workloads, then stops)
    std::shared_ptr<const std::vector<uint32_t>> planRound;
    /// corrections (DAgger): the network acts and the teacher only labels the states it meets
    /// (a plan's label there: the open workloads planned earliest)
    bool labelOnly{false};
};

#ifdef ALLREDUCE_HAVE_TORCH

/**
 * \ingroup allreduce-learning
 * A size-independent policy over a set of items (flow trees or candidate workloads): a shared
 * per-item encoder (item and global features -> hidden, two tanh layers), mean pooling as
 * context, a per-item logit head (item code + context) and a value head (context + global;
 * its gradient stops at the context, so that it cannot disturb the policy's codes).
 * It knows nothing of the number of items, so one network runs on any topology.
 */
class SetPolicyImpl : public torch::nn::Module
{
  public:
    /**
     * \param itemFeatures features per item
     * \param globalFeatures global features
     * \param hidden hidden width
     */
    SetPolicyImpl(int64_t itemFeatures, int64_t globalFeatures, int64_t hidden);

    /**
     * A batch of B decisions, flat: the items of all of them, each tagged with its decision.
     * \param items [R, itemFeatures], the items of all decisions
     * \param segment [R] int64, the decision (0..B-1) of every item
     * \param global [B, globalFeatures]
     * \return a logit per item [R] and a value per decision [B]
     */
    std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& items,
                                                    const torch::Tensor& segment,
                                                    const torch::Tensor& global);

    /**
     * The logits of forward() for one decision (forward computes the global features' and the
     * pooled context's shares of the first layers once per decision, not once per item).
     * \param items [N, itemFeatures], the items of one decision
     * \param global [1, globalFeatures]
     * \return a logit per item [N], to the bit forward()'s for that decision alone
     */
    torch::Tensor Score(const torch::Tensor& items, const torch::Tensor& global);

    /// \return a new network of the same sizes with a copy of these weights (no gradients)
    std::shared_ptr<SetPolicyImpl> Copy() const;

  private:
    /**
     * The logits of forward(), and the pooled context the value head reads.
     * \param items [R, itemFeatures]
     * \param segment [R] int64 (not read when there is one decision)
     * \param global [B, globalFeatures]
     * \param pooled set to [B, hidden], the mean item code per decision
     * \return a logit per item [R]
     */
    torch::Tensor Logits(const torch::Tensor& items,
                         const torch::Tensor& segment,
                         const torch::Tensor& global,
                         torch::Tensor& pooled);

    int64_t m_itemFeatures;                   //!< features per item
    int64_t m_globalFeatures;                 //!< global features
    int64_t m_hidden;                         //!< hidden width
    torch::nn::Sequential m_encoder{nullptr}; //!< item (+ global) -> hidden
    torch::nn::Sequential m_head{nullptr};    //!< item hidden + pooled -> logit
    torch::nn::Sequential m_value{nullptr};   //!< pooled + global -> value
};

TORCH_MODULE(SetPolicy);

/**
 * \ingroup allreduce-learning
 * The two policies of the hierarchical scheduler, their checkpoint file, and how they act on a
 * DrlEnvironment.
 */
class DrlPolicy
{
  public:
    /// How actions are chosen.
    enum class Mode
    {
        GREEDY, //!< the most likely action (upper: probability > 0.5)
        SAMPLE, //!< sampled from the policy
    };

    /**
     * New policies with random weights from torch's generator (seed it first).
     * \param params the hyper-parameters (hidden width, trees per root)
     */
    explicit DrlPolicy(const DrlHyperParams& params = DrlHyperParams());

    /**
     * \param path the checkpoint file (from Save or allreduce-train)
     * \return the policies in it
     * \throws std::runtime_error for a missing, unreadable, corrupt or mismatched file, with
     *         what was wrong and how to make a good one
     */
    static DrlPolicy Load(const std::string& path);

    /**
     * Writes the policies (and what they were trained on) to a file, atomically.
     * \param path the checkpoint file
     */
    void Save(const std::string& path) const;

    /// \return the upper (flow-tree selection) policy
    SetPolicy& GetUpper();
    /// \return the lower (workload scheduling) policy
    SetPolicy& GetLower();
    /// \return the hidden width
    uint32_t GetHidden() const;
    /// \return the candidate trees per root the policies were trained with
    uint32_t GetTreesPerRoot() const;
    /// \return the candidate trees' seed
    uint32_t GetTreeSeed() const;
    /// \return the features per tree the upper network reads (the first ones of
    ///         DrlEnvironment::GetTreeFeatures: fewer for a checkpoint of an older build)
    uint32_t GetTreeWidth() const;
    /// \return the features per candidate the lower network reads
    uint32_t GetCandidateWidth() const;
    /// \return the global features both networks read
    uint32_t GetGlobalWidth() const;
    /**
     * \return true when the networks read the features of aggregation in the network (see
     *         DrlEnvironment::BASIC_TREE_FEATURES), false for a checkpoint blind to them
     */
    bool SeesAggregation() const;
    /**
     * Refuses a topology the policies cannot see: aggregating switches for a checkpoint blind
     * to them (its decisions would ignore where streams merge).
     * \param topology the topology to schedule
     * \param path the checkpoint, for the message
     * \throws std::runtime_error saying why and how to get a checkpoint that sees it
     */
    void CheckSees(const Topology& topology, const std::string& path) const;
    /**
     * How stale the lower network's scores may get while acting without recording (decoding,
     * the scheduler): it scores the pickable candidates in one pass and picks in the order of
     * its scores (greedy: best first; sampled: by Gumbel-perturbed scores, which is sampling
     * without replacement) until this share of the candidates it scored have been picked or
     * blocked; then it scores those left again. 0 scores again after every pick, as in
     * training, where every pick is a recorded step.
     * \param share from 0 to 1
     * \throws std::invalid_argument outside [0, 1]
     */
    void SetRescoreShare(double share);
    /// \return see SetRescoreShare
    double GetRescoreShare() const;

    /// \return free text saved with the checkpoint (what it was trained on)
    const std::string& GetInfo() const;
    /// \param info free text saved with the checkpoint
    void SetInfo(const std::string& info);
    /**
     * \return the names of the topologies the policies were trained on (Topology::GetName, in
     *         the trainer's order), as the checkpoint records them; empty for a checkpoint
     *         written before they were recorded (or made outside the trainer)
     */
    const std::vector<std::string>& GetTrainedOn() const;
    /// \param topologies the names of the topologies trained on, saved with the checkpoint
    void SetTrainedOn(const std::vector<std::string>& topologies);
    /**
     * Records the tree set taught on a topology (the flat-tree search's, whose plan the
     * warm start imitated: DrlHyperParams::flatTeacherMoves), saved with the checkpoint, so
     * that decoding on that topology offers the upper level the same trees.
     * \param topology the topology (known by its name)
     * \param trees one flow tree per root
     */
    void SetTaughtTrees(const Topology& topology, const std::vector<FlowTree>& trees);
    /**
     * \param topology a topology
     * \return the tree sets taught on a topology of its name: none, or one (one tree per root)
     * \throws std::runtime_error when the checkpoint's trees for that name do not fit the
     *         topology (another topology of the same name)
     */
    std::vector<std::vector<FlowTree>> GetTaughtTrees(const Topology& topology) const;

    /**
     * Runs one episode from the environment's start to the end of the AllReduce.
     * \param env the environment (reset first)
     * \param upperMode how the upper level acts
     * \param lowerMode how the lower level acts
     * \param rng the generator for sampled actions
     * \param record whether to keep the steps (for training)
     * \param teacher when given, both levels take the teacher's actions instead (the
     *        policies' log-probabilities of them are recorded)
     * \param cutoff stop as soon as the episode cannot end in fewer rounds than this (the
     *        rounds so far and DrlEnvironment::GetRoundsLeftBound); the episode is then marked
     *        cut and the environment left where it stopped
     * \return the episode
     */
    DrlEpisode Run(DrlEnvironment& env,
                   Mode upperMode,
                   Mode lowerMode,
                   std::mt19937_64& rng,
                   bool record,
                   const DrlTeacher* teacher = nullptr,
                   uint32_t cutoff = std::numeric_limits<uint32_t>::max()) const;

    /**
     * One decision of both levels on the environment's current state: the upper policy
     * selects trees, the lower one picks workloads until nothing fits. The round is left open
     * (for a state given to DrlEnvironment::Observe, which closes its own rounds).
     * \param env the environment
     * \param mode how both levels act
     * \param rng the generator for sampled actions
     */
    void ActRound(DrlEnvironment& env, Mode mode, std::mt19937_64& rng) const;

    /**
     * Best-of-N search: the greedy episode and `samples` sampled ones; the plan of the one
     * with fewest rounds (the first such). A sample stops as soon as it cannot beat the best
     * known before its wave (Run's cutoff; the pool overload below says how the samples run
     * in waves, here all on this thread), so that most cost little once a good schedule is
     * known. Sample i
     * draws from its own generator (seeded from seed and i), so that more samples only add
     * episodes: the rounds never grow with the budget.
     * \param env the environment
     * \param samples sampled episodes besides the greedy one
     * \param seed seed of the samples
     * \param[out] stats when given: how the search went
     * \param budget what the samples may spend, in workloads scheduled times the rounds of the
     *        greedy episode (a round's bookkeeping passes over the workloads left, so an
     *        episode costs about its workloads times its rounds): a sample starts only while
     *        what they scheduled so far plus one whole episode fits, after the samples before
     *        it in its wave (the greedy episode always runs)
     * \param progress when given, called after every episode: (episodes done, episodes that
     *        may run in all, rounds of the best so far)
     * \return the best plan
     */
    Plan Decode(DrlEnvironment& env,
                uint32_t samples,
                uint64_t seed,
                DrlDecodeStats* stats = nullptr,
                uint64_t budget = std::numeric_limits<uint64_t>::max(),
                const std::function<void(uint32_t, uint32_t, uint32_t)>& progress = {}) const;

    /**
     * Decode on the pool's threads: after the greedy episode, the samples run SEARCH_WAVE at a
     * time, each cut at the best rounds known before its wave, so that what runs, and so the
     * plan and the statistics, do not depend on the number of threads. A sample of a wave
     * starts only while the budget left covers a whole episode after the samples before it
     * in the wave, each taken at the mean cost of the samples run so far (the first wave:
     * a whole episode each).
     * \param pool the environments (worker 0's is the search's own)
     * \param samples see above
     * \param seed see above
     * \param[out] stats see above
     * \param budget see above
     * \param progress see above
     * \return the best plan
     */
    Plan Decode(DrlEnvironmentPool& pool,
                uint32_t samples,
                uint64_t seed,
                DrlDecodeStats* stats = nullptr,
                uint64_t budget = std::numeric_limits<uint64_t>::max(),
                const std::function<void(uint32_t, uint32_t, uint32_t)>& progress = {}) const;

    /// Sampled episodes (Decode) and rollout decisions (DrlRollout) run this many at a time,
    /// on as many threads as there are, each cut at what was known before them.
    static constexpr uint32_t SEARCH_WAVE = 8;

    /**
     * \param seed the search's seed
     * \param i an episode of the search (0: the greedy one)
     * \return the seed of episode i's generator in Decode
     */
    static uint64_t SampleSeed(uint64_t seed, uint32_t i);

  private:
    /**
     * New policies reading the first features of each kind.
     * \param params the hyper-parameters
     * \param treeWidth features per tree
     * \param candidateWidth features per candidate
     * \param globalWidth global features
     */
    DrlPolicy(const DrlHyperParams& params,
              uint32_t treeWidth,
              uint32_t candidateWidth,
              uint32_t globalWidth);

    /**
     * Refuses a header this build cannot read: another format or feature widths, an
     * implausible width, trees per root or seed.
     * \param header the 7 numbers of a checkpoint's 'meta' entry
     * \param path the checkpoint, for the message
     */
    static void CheckHeader(const std::vector<int64_t>& header, const std::string& path);
    /**
     * Reads both networks' weights from a checkpoint into these policies: each tensor of the
     * shape the header gives, every weight finite.
     * \param archive the checkpoint
     * \param path the checkpoint, for the messages (which name the tensor at fault)
     */
    void LoadWeights(torch::serialize::InputArchive& archive, const std::string& path);

    /**
     * The upper level's decision: selects trees in the environment.
     * \param env the environment
     * \param mode how it acts
     * \param rng the generator for sampled actions
     * \param teacher when given, its trees instead of the network's
     * \return the step (features, mask, choice, log-probability, value)
     */
    DrlStep ChooseTrees(DrlEnvironment& env,
                        Mode mode,
                        std::mt19937_64& rng,
                        const DrlTeacher* teacher) const;
    /**
     * The lower level's picks, one at a time, until no candidate fits.
     * \param env the environment (trees selected)
     * \param mode how it acts
     * \param rng the generator for sampled actions
     * \param record where to keep the steps (null: not kept)
     * \param teacher when given, its picks instead of the network's
     * \param tieRng the teacher's tie-break generator
     */
    void PickWorkloads(DrlEnvironment& env,
                       Mode mode,
                       std::mt19937_64& rng,
                       std::vector<DrlStep>* record,
                       const DrlTeacher* teacher,
                       std::mt19937_64& tieRng) const;
    /**
     * The lower level's picks without recording, in passes: one forward pass scores the
     * pickable candidates, picks follow in score order until the rescore share is used up.
     * \param env the environment (trees selected)
     * \param mode how it acts
     * \param rng the generator for sampled actions
     */
    void PickInPasses(DrlEnvironment& env, Mode mode, std::mt19937_64& rng) const;
    /**
     * One pick of the lower network among candidates.
     * \param items the candidates' features
     * \param global the global features
     * \param mode how it acts
     * \param rng the generator for a sampled pick
     * \param[out] step receives the log-probability and the value
     * \return the index of the pick among the candidates
     */
    uint32_t ChooseCandidate(const std::vector<float>& items,
                             const std::vector<float>& global,
                             Mode mode,
                             std::mt19937_64& rng,
                             DrlStep& step) const;

    uint32_t m_hidden;         //!< hidden width
    uint32_t m_treesPerRoot;   //!< trees per root
    uint32_t m_treeSeed;       //!< candidate trees' seed
    uint32_t m_treeWidth;      //!< features per tree read
    uint32_t m_candidateWidth; //!< features per candidate read
    uint32_t m_globalWidth;    //!< global features read
    double m_rescoreShare{0};  //!< see SetRescoreShare
    std::string m_info;        //!< free text
    std::vector<std::string> m_trainedOn; //!< the topologies trained on (names), if recorded
    /// per topology name, its taught trees' parents (per root, per node; NO_INDEX for none)
    std::map<std::string, std::vector<std::vector<uint32_t>>> m_taught;
    mutable SetPolicy m_upper{nullptr}; //!< flow-tree selection (acting does not change it)
    mutable SetPolicy m_lower{nullptr}; //!< workload scheduling
};

/**
 * \ingroup allreduce-learning
 * Writes a torch archive atomically: to path.tmp, then renamed over path, so that a reader
 * never sees half a file.
 * \param archive the archive
 * \param path the file
 * \param what what the file is, for the error ("checkpoint", "trainer state")
 * \throws std::runtime_error naming the file and the first line of torch's reason
 */
void SaveArchive(torch::serialize::OutputArchive& archive,
                 const std::string& path,
                 const std::string& what);

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_POLICY_H */
