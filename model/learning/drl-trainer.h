/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DRL_TRAINER_H
#define NS3_ALLREDUCE_DRL_TRAINER_H

#include "drl-policy.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-learning
 * One row of the learning curve.
 */
struct DrlCurveRow
{
    uint32_t iteration{0};  //!< 0 is the start (after the warm start, when there is one)
    std::string level;      //!< "start", "upper" or "lower": which level this iteration trained
    double meanRounds{0};   //!< mean rounds of the sampled training episodes (all topologies)
    double bestRounds{0};   //!< mean over topologies of the fewest rounds in those episodes
    double evalRounds{0};   //!< mean over topologies of the decoded rounds (greedy + samples)
    double evalRatio{0};    //!< mean over topologies of decoded rounds / bandwidth bound
    double entropy{0};      //!< mean entropy of the trained level's decisions
    double seconds{0};      //!< wall time since training started (accumulated over resumes)
    /// per training topology (in the trainer's order), its decoded rounds; empty in a curve
    /// resumed from a trainer.pt written before they were kept
    std::vector<uint32_t> decoded;
};

#ifdef ALLREDUCE_HAVE_TORCH

/**
 * \ingroup allreduce-learning
 * Trains the two policies with PPO by the paper's iterative scheme: J iterations of the upper
 * level with the lower frozen, then K of the lower with the upper frozen, and again. Before
 * that, optionally, both are warm-started by imitating the balanced scheduler's choices
 * (behaviour cloning on its best rule and tree set per topology), or where it does better the
 * flat-tree search's plan (DrlHyperParams::flatTeacherMoves).
 *
 * In DIR it keeps: policy.pt (the best policies so far by the decoded rounds, what the `drl`
 * scheduler loads), last.pt and trainer.pt (the latest state, for --resume), curve.csv.
 * Episodes (sampled, the teacher's, decoded) run on SetThreads() worker threads, each episode
 * from its own generator seeded by the iteration, topology and episode, so that the number of
 * threads does not change anything but the time. Deterministic: the same seed, topologies and
 * parameters give the same curve and weights with any number of threads, with or without a
 * resume between iterations.
 */
class DrlTrainer
{
  public:
    /**
     * \param topologies the training topologies
     * \param params the hyper-parameters
     * \param seed the seed of everything random (weights, samples, minibatches)
     * \param pieces pieces per chunk
     */
    DrlTrainer(std::vector<Topology> topologies,
               const DrlHyperParams& params,
               uint64_t seed,
               uint32_t pieces = 1);

    // Its evaluation pools make environments through it: it stays where it was made.
    DrlTrainer(const DrlTrainer&) = delete;
    DrlTrainer& operator=(const DrlTrainer&) = delete;

    /**
     * Runs the training up to `iterations` PPO iterations in all; a second call goes on from
     * where the first stopped.
     * \param iterations PPO iterations in all (the warm start is iteration 0)
     * \param outDir where the files go (created); empty: keep nothing on disk
     * \param resume continue from outDir's last.pt and trainer.pt instead of starting afresh
     * \param progress called after every iteration with its row
     * \throws std::invalid_argument when a new run would overwrite the run in outDir (give
     *         resume), or a resumed run is at `iterations` already
     */
    void Train(uint32_t iterations,
               const std::string& outDir,
               bool resume,
               const std::function<void(const DrlCurveRow&)>& progress);

    /**
     * \param threads worker threads for the episodes and for the two shards of each
     *        minibatch's gradient (1: all on the caller's thread)
     * \throws std::invalid_argument for 0 or more than 256
     */
    void SetThreads(uint32_t threads);

    /// \return the policies being trained
    DrlPolicy& GetPolicy();
    /// \return per topology, the teacher's rounds (after a warm start; else empty)
    const std::vector<uint32_t>& GetTeacherRounds() const;
    /// \return the learning curve so far
    const std::vector<DrlCurveRow>& GetCurve() const;

    /**
     * \param samples sampled episodes per topology
     * \param seed their seed
     * \return the mean rounds of sampled episodes over the training topologies
     */
    double MeanSampledRounds(uint32_t samples, uint64_t seed);

    /**
     * Writes the curve as CSV.
     * \param path the file
     */
    void WriteCurve(const std::string& path) const;

    /**
     * Writes the curve per training topology as CSV, a line per iteration and topology:
     * iteration, topology, family (TopologyFamily), decoded rounds, bandwidth bound, their
     * ratio.
     * \param path the file
     */
    void WriteTopologyCurve(const std::string& path) const;

    /// \return the training topologies
    const std::vector<Topology>& GetTopologies() const;
    /// \return per training topology, its bandwidth bound (the rounds' scale)
    std::vector<uint32_t> GetBounds() const;

  private:
    /**
     * Runs task(i, env) for i in [0, n) on the worker threads; env(topology) is that worker's
     * own environment of a training topology.
     * \param n tasks
     * \param task the task
     */
    void ForEach(size_t n,
                 const std::function<void(size_t, const std::function<DrlEnvironment&(size_t)>&)>&
                     task);
    void Start();
    /// \param t a training topology \return its environment, with its taught trees if any
    std::unique_ptr<DrlEnvironment> MakeEnvironment(size_t t) const;
    /// Searches each topology's flat plan (flatTeacherMoves), whose trees are taught.
    void SearchFlatPlans();
    /// Makes every environment again, with the taught trees (m_taught).
    void RebuildEnvironments();
    /// A teacher tried on a training topology, and its rounds there.
    struct TeacherTrial
    {
        size_t topology;    //!< the topology
        DrlTeacher teacher; //!< the teacher
        uint32_t rounds{0}; //!< its rounds there
    };
    /// The warm start: the best teachers' episodes, imitated by both levels.
    void Imitate();
    /// \return per topology, the teacher of fewest rounds there (the first such) of every
    ///         tree set, rule and tie-break, and the flat-tree search's plan where it has one
    std::vector<TeacherTrial> ChooseTeachers();
    /// \param teachers per topology, its teacher \param labelOnly the network acts and the
    ///        teacher labels its states (a correction, DAgger) instead of acting
    /// \return per topology, the greedy episode, recorded
    std::vector<DrlEpisode> Demonstrate(const std::vector<TeacherTrial>& teachers, bool labelOnly);
    /// Behaviour cloning: imitationSteps steps of both levels on the teachers' decisions (and,
    /// with imitationCorrectEvery, on the teachers' labels of the network's own episodes).
    /// \param shows the teachers' episodes \param teachers per topology, its teacher
    void CloneBehaviour(const std::vector<DrlEpisode>& shows,
                        const std::vector<TeacherTrial>& teachers);
    /**
     * One imitation step of a level on a minibatch.
     * \param level 0 upper, 1 lower \param minibatch its steps \param step the step (logged)
     * \param opt the optimizer of both levels \param params both levels' weights (clipped)
     */
    void ImitationStep(int level,
                       const std::vector<const DrlStep*>& minibatch,
                       uint32_t step,
                       torch::optim::Adam& opt,
                       const std::vector<torch::Tensor>& params);
    std::vector<DrlEpisode> Collect(uint64_t stream, bool record, DrlCurveRow& row);
    DrlCurveRow Iterate(uint32_t iteration);
    double Update(bool upper, std::vector<DrlEpisode>& episodes, std::mt19937_64& rng);
    void Evaluate(DrlCurveRow& row);
    void SaveState(const std::string& outDir) const;
    void LoadState(const std::string& outDir);
    /// \return the training topologies' names, in order
    std::vector<std::string> GetTopologyNames() const;
    /**
     * Refuses to resume a run trained on other topologies (or pieces) than these.
     * \param archive the run's trainer.pt \param outDir the run's directory
     * \param last the run's last.pt
     * \throws std::runtime_error naming both lists
     */
    void CheckResumedTopologies(torch::serialize::InputArchive& archive,
                                const std::string& outDir,
                                const DrlPolicy& last) const;
    /// Reads the learning curve of a trainer.pt. \param archive it \param path it, for errors
    void ReadCurve(torch::serialize::InputArchive& archive, const std::string& path);

    std::vector<Topology> m_topologies;                  //!< training topologies
    uint32_t m_pieces;                                   //!< pieces per chunk
    std::vector<std::unique_ptr<DrlEnvironment>> m_envs; //!< one per topology
    /// per worker thread after the first, its own environment of each topology (made on use)
    std::vector<std::vector<std::unique_ptr<DrlEnvironment>>> m_workerEnvs;
    /// Per topology, its environment and twins for decoding on every thread (Evaluate, when
    /// there are fewer topologies than threads)
    std::vector<std::unique_ptr<DrlEnvironmentPool>> m_evalPools;
    uint32_t m_threads{1};                               //!< worker threads
    DrlHyperParams m_params;                             //!< hyper-parameters
    uint64_t m_seed;                                     //!< seed
    DrlPolicy m_policy;                                  //!< the policies
    std::unique_ptr<torch::optim::Adam> m_upperOpt;      //!< PPO optimizer, upper
    std::unique_ptr<torch::optim::Adam> m_lowerOpt;      //!< PPO optimizer, lower
    std::vector<DrlCurveRow> m_curve;                    //!< the learning curve
    std::vector<uint32_t> m_teacherRounds;               //!< per topology, the teacher's rounds
    /// per topology, its taught tree sets (none or the flat-tree search's)
    std::vector<std::vector<std::vector<FlowTree>>> m_taught;
    /// per topology, the flat-tree search's round of each taught workload (null: no plan)
    std::vector<std::shared_ptr<const std::vector<uint32_t>>> m_flatRounds;
    double m_bestScore{0};                               //!< best evalRatio so far
    double m_secondsBefore{0};                           //!< seconds of earlier runs
};

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3

#endif /* NS3_ALLREDUCE_DRL_TRAINER_H */
