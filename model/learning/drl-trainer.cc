/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-trainer.h"

#include "drl-threads.h"

#include "ns3/flat-tree-search.h"
#include "ns3/log.h"
#include "ns3/text-file.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DrlTrainer");

#ifdef ALLREDUCE_HAVE_TORCH

namespace
{

/**
 * Stops training before a step on a loss that is not a number: the step would spoil the weights.
 * The checkpoints written so far (after whole iterations) stay the last good ones.
 * \param loss the loss about to be stepped on \param where what was being trained
 */
void
RequireFinite(double value, const std::string& where)
{
    if (!std::isfinite(value))
    {
        std::ostringstream os;
        os << "drl: the loss of " << where << " is " << value
           << "; training stopped before that step. The checkpoints written so far (policy.pt, "
              "last.pt) hold the last good weights; resume from them with a smaller "
              "--learning-rate, or a smaller --entropy";
        throw std::runtime_error(os.str());
    }
}

/**
 * Stops training when a step left weights that are not numbers (a diverging update).
 * \param net the network \param where what was being trained
 */
void
RequireFiniteWeights(SetPolicy& net, const std::string& where)
{
    torch::NoGradGuard noGrad;
    for (const auto& w : net->parameters())
    {
        if (!torch::isfinite(w).all().item<bool>())
        {
            throw std::runtime_error(
                "drl: the weights are not numbers after " + where +
                " (the update diverged); training stopped. The checkpoints written so far "
                "(policy.pt, last.pt) hold the last good weights; resume from them with a "
                "smaller --learning-rate");
        }
    }
}

/// \return params, once they have passed DrlHyperParams::Check
const DrlHyperParams&
Checked(const DrlHyperParams& params)
{
    params.Check();
    return params;
}

/// \return policies with weights drawn after seeding torch's generator
DrlPolicy
SeededPolicy(const DrlHyperParams& params, uint64_t seed)
{
    torch::manual_seed(seed);
    return DrlPolicy(params);
}

/// A step of an episode with its advantage and return.
struct Sample
{
    const DrlStep* step;
    float advantage;
    float ret;
};

/// Some steps of one level as flat tensors: all their items, each tagged with its step.
struct Batch
{
    torch::Tensor items;   //!< [R, F]
    torch::Tensor segment; //!< [R] int64, the step of each item
    torch::Tensor mask;    //!< [R] float, 1 when choosable
    torch::Tensor chosen;  //!< [R] float: upper, the selection; lower (imitation), the teacher's
    torch::Tensor action;  //!< [B] int64 (lower): the row of the pick
    torch::Tensor global;  //!< [B, G]
    int64_t steps{0};      //!< B
};

Batch
MakeBatch(const std::vector<const DrlStep*>& steps, size_t features)
{
    const auto b = static_cast<int64_t>(steps.size());
    size_t rows = 0;
    for (const DrlStep* s : steps)
    {
        rows += s->mask.size();
    }
    const auto g = static_cast<int64_t>(steps.front()->global.size());
    std::vector<float> items;
    items.reserve(rows * features);
    std::vector<int64_t> segment;
    segment.reserve(rows);
    std::vector<float> mask;
    mask.reserve(rows);
    std::vector<float> chosen(rows, 0.0f);
    std::vector<float> global;
    global.reserve(b * g);
    std::vector<int64_t> action(b, 0);
    size_t row = 0;
    for (int64_t i = 0; i < b; ++i)
    {
        const DrlStep& s = *steps[i];
        items.insert(items.end(), s.items.begin(), s.items.end());
        for (size_t j = 0; j < s.mask.size(); ++j)
        {
            segment.push_back(i);
            mask.push_back(s.mask[j]);
            chosen[row + j] = j < s.chosen.size() ? s.chosen[j] : 0.0f;
        }
        global.insert(global.end(), s.global.begin(), s.global.end());
        action[i] = static_cast<int64_t>(row + s.action);
        row += s.mask.size();
    }
    const auto r = static_cast<int64_t>(rows);
    Batch batch;
    batch.items =
        torch::from_blob(items.data(), {r, static_cast<int64_t>(features)}, torch::kFloat32)
            .clone();
    batch.segment = torch::from_blob(segment.data(), {r}, torch::kInt64).clone();
    batch.mask = torch::from_blob(mask.data(), {r}, torch::kFloat32).clone();
    batch.chosen = torch::from_blob(chosen.data(), {r}, torch::kFloat32).clone();
    batch.action = torch::from_blob(action.data(), {b}, torch::kInt64).clone();
    batch.global = torch::from_blob(global.data(), {b, g}, torch::kFloat32).clone();
    batch.steps = b;
    return batch;
}

/// \return per step, the sum of the values of its rows
torch::Tensor
SumPerStep(const torch::Tensor& values, const Batch& batch)
{
    return torch::zeros({batch.steps}, torch::kFloat32).index_add(0, batch.segment, values);
}

/// \return per step, log of the sum of exp(logit) over the rows where `where` is 1
torch::Tensor
LogSumExpPerStep(const torch::Tensor& logits, const torch::Tensor& where, const Batch& batch)
{
    // The networks end in a linear layer on tanh codes: logits stay far from overflow, but
    // clamp them to be safe.
    return torch::log(SumPerStep(torch::exp(logits.clamp(-60, 60)) * where, batch)
                          .clamp_min(1e-30));
}

/// Log-probabilities of the taken actions and the entropies, per step.
std::pair<torch::Tensor, torch::Tensor>
LogProbAndEntropy(bool upper, const torch::Tensor& logits, const Batch& batch)
{
    if (upper)
    {
        // Independent Bernoullis over the choosable trees.
        const auto logP = torch::log_sigmoid(logits);
        const auto logQ = torch::log_sigmoid(-logits);
        const auto logp =
            SumPerStep((batch.chosen * logP + (1 - batch.chosen) * logQ) * batch.mask, batch);
        const auto p = torch::sigmoid(logits);
        const auto entropy = SumPerStep(-(p * logP + (1 - p) * logQ) * batch.mask, batch) /
                             SumPerStep(batch.mask, batch).clamp_min(1.0);
        return {logp, entropy};
    }
    const auto lse = LogSumExpPerStep(logits, batch.mask, batch);
    const auto logSoft = logits.clamp(-60, 60) - lse.index_select(0, batch.segment);
    const auto logp = logSoft.index_select(0, batch.action);
    const auto entropy = SumPerStep(-(logSoft.exp() * logSoft) * batch.mask, batch);
    return {logp, entropy};
}

std::vector<torch::Tensor>
Parameters(SetPolicy& a)
{
    return a->parameters();
}

/// Minibatches are cut into this many shards for their gradients, whatever the threads.
constexpr size_t GRADIENT_SHARDS = 2;

/// One shard's forward pass: its share of the minibatch loss and sums to add over shards.
struct ShardResult
{
    torch::Tensor loss;       //!< the shard's steps' sum of the loss / minibatch size
    std::vector<double> sums; //!< anything else to add over the shards (KL, entropy)
};

/// A shard's forward pass: (its network, its batch, its first step) -> its result.
using ShardForward = std::function<ShardResult(SetPolicy&, const Batch&, size_t)>;

/**
 * The gradient of a loss that is a mean over the steps of a minibatch, computed in
 * GRADIENT_SHARDS contiguous shards of the steps, each on its own copy of the network (on
 * threads of their own when threads > 1), and summed in shard order into net's gradients, so
 * that the numbers are the same with any number of threads.
 * \param net the network (its gradients are replaced)
 * \param steps the minibatch
 * \param features item features the network reads
 * \param forward a shard's forward pass
 * \param stop given the sums over the shards, true to stop before any gradient is taken
 * \param threads threads available
 * \param[out] stopped whether stop said so
 * \return the loss and the sums over the shards
 */
std::pair<double, std::vector<double>>
ShardedGradient(SetPolicy& net,
                const std::vector<const DrlStep*>& steps,
                size_t features,
                const ShardForward& forward,
                const std::function<bool(const std::vector<double>&)>& stop,
                uint32_t threads,
                bool& stopped)
{
    const size_t shards = std::min(GRADIENT_SHARDS, steps.size());
    std::vector<SetPolicy> nets;
    std::vector<ShardResult> results(shards);
    for (size_t s = 0; s < shards; ++s)
    {
        nets.emplace_back(net->Copy());
    }
    RunInParallel(shards, threads, [&](uint32_t, size_t s) {
        const size_t first = steps.size() * s / shards;
        const size_t last = steps.size() * (s + 1) / shards;
        const std::vector<const DrlStep*> mine(steps.begin() + first, steps.begin() + last);
        results[s] = forward(nets[s], MakeBatch(mine, features), first);
    });
    double loss = 0;
    std::vector<double> sums;
    for (const auto& r : results)
    {
        loss += r.loss.item<double>();
        sums.resize(std::max(sums.size(), r.sums.size()), 0.0);
        for (size_t i = 0; i < r.sums.size(); ++i)
        {
            sums[i] += r.sums[i];
        }
    }
    stopped = stop && stop(sums);
    if (stopped || !std::isfinite(loss))
    {
        return {loss, sums};
    }
    RunInParallel(shards, threads, [&](uint32_t, size_t s) { results[s].loss.backward(); });
    torch::NoGradGuard noGrad;
    const auto mainParams = net->parameters();
    for (size_t k = 0; k < mainParams.size(); ++k)
    {
        torch::Tensor sum;
        for (size_t s = 0; s < shards; ++s)
        {
            const torch::Tensor g = nets[s]->parameters()[k].grad();
            if (g.defined())
            {
                sum = sum.defined() ? sum + g : g.clone();
            }
        }
        mainParams[k].mutable_grad() = sum;
    }
    return {loss, sums};
}

/**
 * A minibatch drawn without replacement (a partial shuffle of the steps' first places).
 * \param steps the steps (reordered)
 * \param size the most steps to draw
 * \param rng the generator
 * \return the minibatch
 */
std::vector<const DrlStep*>
DrawMinibatch(std::vector<const DrlStep*>& steps, size_t size, std::mt19937_64& rng)
{
    size = std::min(steps.size(), size);
    for (size_t i = 0; i < size; ++i)
    {
        std::uniform_int_distribution<size_t> pick(i, steps.size() - 1);
        std::swap(steps[i], steps[pick(rng)]);
    }
    return std::vector<const DrlStep*>(steps.begin(), steps.begin() + size);
}

/**
 * The warm start's loss on a shard: the upper level's, the log-likelihood of the teacher's
 * selection; the lower level's, of any of its equally ranked picks. Both negated, over b.
 * \param upper the level \param b the minibatch's steps
 * \return the shard's forward pass
 */
ShardForward
ImitationLoss(bool upper, double b)
{
    return [upper, b](SetPolicy& shard, const Batch& batch, size_t) {
        auto [logits, value] = shard->forward(batch.items, batch.segment, batch.global);
        if (upper)
        {
            return ShardResult{-LogProbAndEntropy(true, logits, batch).first.sum() / b, {}};
        }
        // Any of the teacher's equally ranked picks is right: maximise their total probability.
        return ShardResult{(LogSumExpPerStep(logits, batch.mask, batch) -
                            LogSumExpPerStep(logits, batch.chosen * batch.mask, batch))
                                   .sum() /
                               b,
                           {}};
    };
}

/**
 * Per step of the level in the episodes, its advantage (GAE) and return; the steps with a
 * choice only (upper: a tree to choose; lower: two candidates or more), episode by episode.
 * \param episodes the episodes \param upper the level \param params gamma and lambda
 * \return the samples
 */
std::vector<Sample>
CollectSamples(const std::vector<DrlEpisode>& episodes, bool upper, const DrlHyperParams& params)
{
    std::vector<Sample> samples;
    for (const auto& e : episodes)
    {
        const auto& steps = upper ? e.upper : e.lower;
        std::vector<Sample> mine(steps.size());
        float gae = 0;
        for (size_t k = steps.size(); k-- > 0;)
        {
            const DrlStep& s = steps[k];
            const float discount = s.last ? 0.0f : (s.roundEnd ? float(params.gamma) : 1.0f);
            const float next = k + 1 < steps.size() ? steps[k + 1].value : 0.0f;
            const float delta = s.reward + discount * next - s.value;
            gae = delta + discount * float(params.lambda) * gae;
            mine[k] = Sample{&s, gae, gae + s.value};
        }
        for (const auto& m : mine)
        {
            if (std::count(m.step->mask.begin(), m.step->mask.end(), 1) > (upper ? 0 : 1))
            {
                samples.push_back(m);
            }
        }
    }
    return samples;
}

/// \param samples some samples (not none) \return their advantages' mean and standard
///        deviation (plus 1e-8)
std::pair<double, double>
AdvantageMeanAndDeviation(const std::vector<Sample>& samples)
{
    double mean = 0;
    for (const auto& s : samples)
    {
        mean += s.advantage;
    }
    mean /= samples.size();
    double var = 0;
    for (const auto& s : samples)
    {
        var += (s.advantage - mean) * (s.advantage - mean);
    }
    return {mean, std::sqrt(var / samples.size()) + 1e-8};
}

/// A PPO minibatch: its steps and, per step, what the loss compares with.
struct PpoMinibatch
{
    std::vector<const DrlStep*> steps; //!< the steps
    std::vector<float> advantage;      //!< per step, its normalised advantage
    std::vector<float> ret;            //!< per step, its return
    std::vector<float> oldLogp;        //!< per step, the log-probability of the acting policy
};

/**
 * \param samples the samples \param from first \param to one past the last
 * \param mean the advantages' mean \param sd their standard deviation
 * \return samples [from, to) as a minibatch
 */
PpoMinibatch
MakePpoMinibatch(const std::vector<Sample>& samples, size_t from, size_t to, double mean, double sd)
{
    PpoMinibatch mb;
    for (size_t i = from; i < to; ++i)
    {
        mb.steps.push_back(samples[i].step);
        mb.advantage.push_back(static_cast<float>((samples[i].advantage - mean) / sd));
        mb.ret.push_back(samples[i].ret);
        mb.oldLogp.push_back(samples[i].step->logp);
    }
    return mb;
}

/**
 * PPO's loss on a shard: the clipped surrogate, the value error and the entropy bonus, over the
 * minibatch's size; its sums are the KL estimate's and the entropy's.
 * \param upper the level \param params clip, value and entropy coefficients
 * \param mb the minibatch (it must outlive the forward pass)
 * \return the shard's forward pass
 */
ShardForward
PpoLoss(bool upper, const DrlHyperParams& params, PpoMinibatch& mb)
{
    const double b = static_cast<double>(mb.steps.size());
    return [upper, &params, &mb, b](SetPolicy& shard, const Batch& batch, size_t first) {
        const auto n = static_cast<int64_t>(batch.steps);
        const auto slice = [&](std::vector<float>& v) {
            return torch::from_blob(v.data() + first, {n}, torch::kFloat32).clone();
        };
        const auto advT = slice(mb.advantage);
        const auto retT = slice(mb.ret);
        const auto oldT = slice(mb.oldLogp);
        auto [logits, value] = shard->forward(batch.items, batch.segment, batch.global);
        auto [logp, entropy] = LogProbAndEntropy(upper, logits, batch);
        const auto ratio = torch::exp(logp - oldT);
        const auto surrogate =
            torch::min(ratio * advT, torch::clamp(ratio, 1 - params.clip, 1 + params.clip) * advT);
        const auto loss = (-surrogate.sum() + params.valueCoef * (value - retT).pow(2).sum() -
                           params.entropy * entropy.sum()) /
                          b;
        return ShardResult{loss,
                           {(oldT - logp).sum().item<double>(), entropy.sum().item<double>()}};
    };
}

/**
 * Early stop (as in Stable-Baselines3's target_kl): this minibatch's estimate of the KL
 * divergence from the policy that acted, against the target.
 * \param params the target \param b the minibatch's steps \param epoch the epoch (logged)
 * \return given the shards' sums, true to stop the update
 */
std::function<bool(const std::vector<double>&)>
KlTooFar(const DrlHyperParams& params, double b, uint32_t epoch)
{
    return [&params, b, epoch](const std::vector<double>& sums) {
        const double kl = sums[0] / b;
        if (params.targetKl > 0 && kl > 1.5 * params.targetKl)
        {
            NS_LOG_INFO("update stopped at epoch " << epoch << ": KL " << kl);
            return true;
        }
        return false;
    };
}

const char* const LEVELS[] = {"start", "upper", "lower"};

/// \return per root, the flow tree its merge workloads' reduce paths follow
std::vector<FlowTree>
MergeTreesOf(const Topology& topology, const WorkloadSet& workloads)
{
    const uint32_t n = topology.GetNServers();
    const std::vector<uint32_t> none(topology.GetNNodes(), NO_INDEX);
    std::vector<std::vector<uint32_t>> parent(n, none);
    for (const Workload& w : workloads.GetAll())
    {
        for (size_t k = 0; w.phase == Phase::REDUCE && k + 1 < w.path.size(); ++k)
        {
            parent[w.chunk][w.path[k]] = w.path[k + 1];
        }
    }
    std::vector<FlowTree> trees;
    for (uint32_t r = 0; r < n; ++r)
    {
        trees.emplace_back(topology, r, parent[r]);
    }
    return trees;
}

} // namespace

DrlTrainer::DrlTrainer(std::vector<Topology> topologies,
                       const DrlHyperParams& params,
                       uint64_t seed,
                       uint32_t pieces)
    : m_topologies(std::move(topologies)),
      m_pieces(pieces),
      m_params(Checked(params)),
      m_seed(seed),
      m_policy(SeededPolicy(m_params, seed))
{
    if (m_topologies.empty())
    {
        throw std::invalid_argument("drl: give at least one training topology");
    }
    for (const Topology& t : m_topologies)
    {
        if (t.GetNServers() < 2)
        {
            throw std::invalid_argument("drl: topology '" + t.GetName() +
                                        "' has fewer than two servers: nothing to schedule");
        }
    }
    m_taught.resize(m_topologies.size());
    m_flatRounds.resize(m_topologies.size());
    for (size_t t = 0; t < m_topologies.size(); ++t)
    {
        m_envs.push_back(MakeEnvironment(t));
    }
    m_policy.SetTrainedOn(GetTopologyNames());
    m_upperOpt = std::make_unique<torch::optim::Adam>(
        Parameters(m_policy.GetUpper()),
        torch::optim::AdamOptions(params.learningRate));
    m_lowerOpt = std::make_unique<torch::optim::Adam>(
        Parameters(m_policy.GetLower()),
        torch::optim::AdamOptions(params.learningRate));
}

void
DrlTrainer::SetThreads(uint32_t threads)
{
    if (threads == 0 || threads > 256)
    {
        throw std::invalid_argument("drl: threads must be from 1 to 256, got " +
                                    std::to_string(threads));
    }
    if (threads > 1 && !IsDrlBlasThreadSafe())
    {
        throw std::invalid_argument("drl: " + std::to_string(threads) + " threads: " +
                                    DescribeDrlBlasThreads() + "; or give one thread");
    }
    m_threads = threads;
    m_evalPools.clear();
}

void
DrlTrainer::ForEach(
    size_t n,
    const std::function<void(size_t, const std::function<DrlEnvironment&(size_t)>&)>& task)
{
    const auto workers = static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(m_threads, n)));
    if (m_workerEnvs.size() < workers - 1)
    {
        m_workerEnvs.resize(workers - 1);
    }
    for (auto& envs : m_workerEnvs)
    {
        envs.resize(m_topologies.size());
    }
    RunInParallel(n, workers, [&](uint32_t w, size_t i) {
        // Worker 0 (this thread) uses the trainer's environments, the others their own.
        const std::function<DrlEnvironment&(size_t)> envOf = [&, w](size_t t) -> DrlEnvironment& {
            if (w == 0)
            {
                return *m_envs[t];
            }
            auto& slot = m_workerEnvs[w - 1][t];
            if (!slot)
            {
                slot = MakeEnvironment(t);
            }
            return *slot;
        };
        task(i, envOf);
    });
}

DrlPolicy&
DrlTrainer::GetPolicy()
{
    return m_policy;
}

const std::vector<uint32_t>&
DrlTrainer::GetTeacherRounds() const
{
    return m_teacherRounds;
}

const std::vector<DrlCurveRow>&
DrlTrainer::GetCurve() const
{
    return m_curve;
}

double
DrlTrainer::MeanSampledRounds(uint32_t samples, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    double sum = 0;
    for (auto& env : m_envs)
    {
        for (uint32_t i = 0; i < samples; ++i)
        {
            env->Reset();
            sum += m_policy.Run(*env, DrlPolicy::Mode::SAMPLE, DrlPolicy::Mode::SAMPLE, rng, false)
                       .rounds;
        }
    }
    return sum / std::max<size_t>(1, m_envs.size() * samples);
}

std::vector<DrlTrainer::TeacherTrial>
DrlTrainer::ChooseTeachers()
{
    // Every teacher per topology: each tree set with each rule balanced tries there (where
    // switches merge, also chunk order), with its tie-breaks.
    std::vector<TeacherTrial> trials;
    for (size_t i = 0; i < m_envs.size(); ++i)
    {
        const auto rules = BalancedScheduler::GetRules(m_topologies[i]);
        for (uint32_t set = 0; set < m_envs[i]->GetNSets(); ++set)
        {
            for (const auto rule : rules)
            {
                for (uint32_t tie = 0; tie < std::max<uint32_t>(1, m_params.teacherTies); ++tie)
                {
                    trials.push_back(
                        TeacherTrial{i,
                                     DrlTeacher{set,
                                                rule,
                                                tie == 0 ? 0 : (m_seed << 20) + tie,
                                                nullptr}});
                }
            }
        }
    }
    // The flat-tree search's plans, on their trees (then the only set): one more teacher each.
    for (size_t i = 0; i < m_envs.size(); ++i)
    {
        if (m_flatRounds[i])
        {
            DrlTeacher plan;
            plan.set = 0;
            plan.planRound = m_flatRounds[i];
            trials.push_back(TeacherTrial{i, plan});
        }
    }
    ForEach(trials.size(), [&](size_t k, const std::function<DrlEnvironment&(size_t)>& envOf) {
        DrlEnvironment& env = envOf(trials[k].topology);
        env.Reset();
        std::mt19937_64 unused(m_seed);
        trials[k].rounds = m_policy
                               .Run(env,
                                    DrlPolicy::Mode::GREEDY,
                                    DrlPolicy::Mode::GREEDY,
                                    unused,
                                    false,
                                    &trials[k].teacher)
                               .rounds;
    });
    for (const TeacherTrial& t : trials)
    {
        const auto& plan = t.teacher.planRound;
        if (plan && t.rounds != 1 + *std::max_element(plan->begin(), plan->end()))
        {
            throw std::logic_error("drl: the flat-tree teacher took " + std::to_string(t.rounds) +
                                   " rounds, not its plan's; please report this");
        }
    }
    // The best per topology (the first of the fewest rounds).
    std::vector<const TeacherTrial*> best(m_envs.size(), nullptr);
    for (const TeacherTrial& t : trials)
    {
        if (!best[t.topology] || t.rounds < best[t.topology]->rounds)
        {
            best[t.topology] = &t;
        }
    }
    std::vector<TeacherTrial> chosen;
    for (const TeacherTrial* t : best)
    {
        chosen.push_back(*t);
    }
    return chosen;
}

std::vector<DrlEpisode>
DrlTrainer::Demonstrate(const std::vector<TeacherTrial>& teachers, bool labelOnly)
{
    std::vector<DrlEpisode> shows(m_envs.size());
    ForEach(m_envs.size(), [&](size_t i, const std::function<DrlEnvironment&(size_t)>& envOf) {
        DrlEnvironment& env = envOf(i);
        env.Reset();
        DrlTeacher teacher = teachers[i].teacher;
        teacher.labelOnly = labelOnly;
        std::mt19937_64 unused(m_seed);
        shows[i] = m_policy.Run(
            env, DrlPolicy::Mode::GREEDY, DrlPolicy::Mode::GREEDY, unused, true, &teacher);
    });
    return shows;
}

void
DrlTrainer::Imitate()
{
    const std::vector<TeacherTrial> best = ChooseTeachers();
    const std::vector<DrlEpisode> shows = Demonstrate(best, false);
    for (size_t i = 0; i < m_envs.size(); ++i)
    {
        m_teacherRounds.push_back(best[i].rounds);
        NS_LOG_INFO("teacher on " << m_topologies[i].GetName() << ": " << best[i].rounds
                                  << " rounds (tree set " << best[i].teacher.set << ", rule "
                                  << int(best[i].teacher.rule) << ")");
    }
    CloneBehaviour(shows, best);
}

void
DrlTrainer::CloneBehaviour(const std::vector<DrlEpisode>& shows,
                           const std::vector<TeacherTrial>& teachers)
{
    std::vector<const DrlStep*> upper;
    std::vector<const DrlStep*> lower;
    const auto add = [&](const DrlEpisode& e) {
        for (const auto& s : e.upper)
        {
            upper.push_back(&s);
        }
        for (const auto& s : e.lower)
        {
            // A forced pick teaches nothing, nor a state the teacher has no label for.
            if (std::count(s.mask.begin(), s.mask.end(), 1) > 1 &&
                std::count(s.chosen.begin(), s.chosen.end(), 1) > 0)
            {
                lower.push_back(&s);
            }
        }
    };
    for (const auto& e : shows)
    {
        add(e);
    }
    std::deque<DrlEpisode> corrections; // stays in place as it grows: the steps point into it
    std::vector<torch::Tensor> params = Parameters(m_policy.GetUpper());
    for (const auto& p : Parameters(m_policy.GetLower()))
    {
        params.push_back(p);
    }
    torch::optim::Adam opt(params, torch::optim::AdamOptions(m_params.imitationRate));
    std::mt19937_64 rng(m_seed * 7919 + 1);
    // With imitationEvalEvery, the weights that decode best so far (greedy decoding of
    // weights this close to a teacher changes a lot from one step to the next).
    double bestScore = std::numeric_limits<double>::infinity();
    std::vector<torch::Tensor> best;
    const auto keepBest = [&]() {
        DrlCurveRow row;
        Evaluate(row);
        if (row.evalRatio < bestScore - 1e-12)
        {
            bestScore = row.evalRatio;
            best.clear();
            for (const auto& p : params)
            {
                best.push_back(p.detach().clone());
            }
        }
    };
    for (uint32_t step = 0; step < m_params.imitationSteps; ++step)
    {
        if (m_params.imitationEvalEvery > 0 && step > 0 && step % m_params.imitationEvalEvery == 0)
        {
            keepBest();
        }
        if (m_params.imitationCorrectEvery > 0 && step > 0 &&
            step % m_params.imitationCorrectEvery == 0)
        {
            for (DrlEpisode& run : Demonstrate(teachers, true))
            {
                NS_LOG_INFO("imitation step " << step << ": correction episode of "
                                              << run.rounds << " rounds");
                corrections.push_back(std::move(run));
                add(corrections.back());
            }
        }
        for (int level = 0; level < 2; ++level)
        {
            auto& steps = level == 0 ? upper : lower;
            if (!steps.empty())
            {
                ImitationStep(level,
                              DrawMinibatch(steps, m_params.minibatch, rng),
                              step,
                              opt,
                              params);
            }
        }
    }
    if (m_params.imitationEvalEvery > 0)
    {
        keepBest();
        torch::NoGradGuard noGrad;
        for (size_t k = 0; k < params.size(); ++k)
        {
            params[k].copy_(best[k]);
        }
    }
}

void
DrlTrainer::ImitationStep(int level,
                          const std::vector<const DrlStep*>& minibatch,
                          uint32_t step,
                          torch::optim::Adam& opt,
                          const std::vector<torch::Tensor>& params)
{
    SetPolicy& net = level == 0 ? m_policy.GetUpper() : m_policy.GetLower();
    opt.zero_grad();
    bool stopped = false;
    const double loss =
        ShardedGradient(net,
                        minibatch,
                        level == 0 ? m_policy.GetTreeWidth() : m_policy.GetCandidateWidth(),
                        ImitationLoss(level == 0, static_cast<double>(minibatch.size())),
                        nullptr,
                        m_threads,
                        stopped)
            .first;
    RequireFinite(loss, "imitation (warm start), step " + std::to_string(step));
    if (step + 1 == m_params.imitationSteps || step % 100 == 0)
    {
        NS_LOG_INFO("imitation step " << step << " level " << level << " loss " << loss);
    }
    torch::nn::utils::clip_grad_norm_(params, 1.0);
    opt.step();
}

double
DrlTrainer::Update(bool upper, std::vector<DrlEpisode>& episodes, std::mt19937_64& rng)
{
    std::vector<Sample> samples = CollectSamples(episodes, upper, m_params);
    if (samples.empty())
    {
        return 0;
    }
    std::shuffle(samples.begin(), samples.end(), rng);
    if (samples.size() > m_params.maxSteps)
    {
        samples.resize(m_params.maxSteps);
    }
    const auto [mean, sd] = AdvantageMeanAndDeviation(samples);
    SetPolicy& net = upper ? m_policy.GetUpper() : m_policy.GetLower();
    torch::optim::Adam& opt = upper ? *m_upperOpt : *m_lowerOpt;
    const auto params = Parameters(net);
    const std::string level = upper ? "upper" : "lower";
    double entropySum = 0;
    uint32_t entropyCount = 0;
    bool stop = false;
    for (uint32_t epoch = 0; epoch < m_params.epochs && !stop; ++epoch)
    {
        std::shuffle(samples.begin(), samples.end(), rng);
        for (size_t from = 0; from < samples.size() && !stop; from += m_params.minibatch)
        {
            const size_t to = std::min(samples.size(), from + m_params.minibatch);
            PpoMinibatch mb = MakePpoMinibatch(samples, from, to, mean, sd);
            const double b = static_cast<double>(mb.steps.size());
            opt.zero_grad();
            const auto [loss, sums] =
                ShardedGradient(net,
                                mb.steps,
                                upper ? m_policy.GetTreeWidth() : m_policy.GetCandidateWidth(),
                                PpoLoss(upper, m_params, mb),
                                KlTooFar(m_params, b, epoch),
                                m_threads,
                                stop);
            if (stop)
            {
                break;
            }
            RequireFinite(loss, "PPO on the " + level + " level, epoch " + std::to_string(epoch));
            torch::nn::utils::clip_grad_norm_(params, m_params.maxGradNorm);
            opt.step();
            RequireFiniteWeights(net, "a PPO step on the " + level + " level");
            entropySum += sums[1] / b;
            ++entropyCount;
        }
    }
    return entropyCount ? entropySum / entropyCount : 0.0;
}

void
DrlTrainer::Evaluate(DrlCurveRow& row)
{
    std::vector<uint32_t> decoded(m_envs.size(), 0);
    if (m_envs.size() < m_threads)
    {
        // Fewer topologies than threads: one after the other, each decoded on every thread
        // (the same rounds on any number, DrlPolicy::Decode).
        m_evalPools.resize(m_envs.size());
        for (size_t i = 0; i < m_envs.size(); ++i)
        {
            if (!m_evalPools[i])
            {
                m_evalPools[i] = std::make_unique<DrlEnvironmentPool>(
                    *m_envs[i],
                    [this, i]() { return MakeEnvironment(i); },
                    m_threads);
            }
            decoded[i] = m_policy.Decode(*m_evalPools[i], m_params.evalSamples, m_seed + 101 * i)
                             .schedule.GetNRounds();
        }
    }
    else
    {
        ForEach(m_envs.size(), [&](size_t i, const std::function<DrlEnvironment&(size_t)>& envOf) {
            decoded[i] = m_policy.Decode(envOf(i), m_params.evalSamples, m_seed + 101 * i)
                             .schedule.GetNRounds();
        });
    }
    double rounds = 0;
    double ratio = 0;
    for (size_t i = 0; i < m_envs.size(); ++i)
    {
        rounds += decoded[i];
        ratio += static_cast<double>(decoded[i]) / m_envs[i]->GetBound();
    }
    row.evalRounds = rounds / m_envs.size();
    row.evalRatio = ratio / m_envs.size();
    row.decoded = std::move(decoded);
}

std::vector<DrlEpisode>
DrlTrainer::Collect(uint64_t stream, bool record, DrlCurveRow& row)
{
    // Episode k (of topology k / episodes) draws from its own generator.
    const size_t per = m_params.episodes;
    std::vector<DrlEpisode> episodes(m_envs.size() * per);
    ForEach(episodes.size(), [&](size_t k, const std::function<DrlEnvironment&(size_t)>& envOf) {
        DrlEnvironment& env = envOf(k / per);
        env.Reset();
        std::mt19937_64 rng(DrlPolicy::SampleSeed(stream, static_cast<uint32_t>(k)));
        episodes[k] =
            m_policy.Run(env, DrlPolicy::Mode::SAMPLE, DrlPolicy::Mode::SAMPLE, rng, record);
    });
    double sum = 0;
    double best = 0;
    for (size_t i = 0; i < m_envs.size(); ++i)
    {
        uint32_t mine = std::numeric_limits<uint32_t>::max();
        for (size_t e = 0; e < per; ++e)
        {
            sum += episodes[i * per + e].rounds;
            mine = std::min(mine, episodes[i * per + e].rounds);
        }
        best += mine;
    }
    row.meanRounds = sum / std::max<size_t>(1, episodes.size());
    row.bestRounds = best / m_envs.size();
    return episodes;
}

DrlCurveRow
DrlTrainer::Iterate(uint32_t iteration)
{
    const uint32_t cycle =
        std::max<uint32_t>(1, m_params.upperIterations + m_params.lowerIterations);
    const bool upper = (iteration - 1) % cycle < m_params.upperIterations;
    const uint64_t stream = m_seed * 1000003 + iteration;
    std::mt19937_64 rng(stream);
    DrlCurveRow row;
    row.iteration = iteration;
    row.level = upper ? "upper" : "lower";
    std::vector<DrlEpisode> episodes = Collect(stream, true, row);
    row.entropy = Update(upper, episodes, rng);
    Evaluate(row);
    return row;
}

std::unique_ptr<DrlEnvironment>
DrlTrainer::MakeEnvironment(size_t t) const
{
    return MakeDrlEnvironment(m_topologies[t],
                              m_params.treesPerRoot,
                              m_params.treeSeed,
                              m_pieces,
                              m_taught[t]);
}

void
DrlTrainer::RebuildEnvironments()
{
    for (size_t t = 0; t < m_topologies.size(); ++t)
    {
        m_envs[t] = MakeEnvironment(t);
    }
    m_evalPools.clear(); // they decode on the environments just replaced
    for (auto& envs : m_workerEnvs)
    {
        for (auto& env : envs)
        {
            env.reset(); // made again on use
        }
    }
}

void
DrlTrainer::SearchFlatPlans()
{
    const auto flat = [](const Topology& t) { return HasFlatTrees(t); };
    const bool any =
        m_pieces == 1 && std::any_of(m_topologies.begin(), m_topologies.end(), flat);
    if (!any)
    {
        throw std::invalid_argument(
            "drl: the flat-tree teacher (--flat-teacher-moves) needs one piece per chunk and a "
            "training topology whose servers reach each other through switches only, without "
            "aggregating switches (Jellyfish, fat-tree); none of these has flat trees: leave the "
            "option out");
    }
    for (size_t t = 0; t < m_topologies.size(); ++t)
    {
        const Topology& topology = m_topologies[t];
        if (!HasFlatTrees(topology))
        {
            continue;
        }
        // Up from the bandwidth bound (even), a few counts, while the search fits.
        const uint32_t bound = m_envs[t]->GetBound();
        for (uint32_t rounds = bound + bound % 2; rounds <= bound + 8; rounds += 2)
        {
            if (!FitsFlatSearch(topology.GetNServers(), rounds))
            {
                break;
            }
            const auto plan = SearchFlatSchedule(topology,
                                                 rounds,
                                                 {m_params.flatTeacherMoves, 1, uint32_t(m_seed)});
            NS_LOG_INFO("flat-tree search on " << topology.GetName() << " in " << rounds
                                               << " rounds: " << (plan ? "found" : "none"));
            if (plan)
            {
                m_taught[t] = {MergeTreesOf(topology, plan->workloads)};
                m_flatRounds[t] = std::make_shared<const std::vector<uint32_t>>(
                    RoundOfEachWorkload(plan->schedule, plan->workloads.GetN()));
                m_policy.SetTaughtTrees(topology, m_taught[t].front());
                break;
            }
        }
    }
    if (std::all_of(m_flatRounds.begin(), m_flatRounds.end(), [](const auto& p) { return !p; }))
    {
        throw std::invalid_argument(
            "drl: the flat-tree search found no plan within 8 rounds of the bandwidth bound on "
            "any training topology with " + std::to_string(m_params.flatTeacherMoves) +
            " moves per count (--flat-teacher-moves), so it would teach nothing; give more "
            "moves, or leave the option out");
    }
    RebuildEnvironments();
}

void
DrlTrainer::Start()
{
    DrlCurveRow row;
    row.level = "start";
    if (m_params.flatTeacherMoves > 0)
    {
        SearchFlatPlans();
    }
    if (m_params.imitationSteps > 0)
    {
        Imitate();
    }
    Collect(m_seed * 1000003, false, row);
    Evaluate(row);
    m_curve.push_back(row);
}

void
DrlTrainer::Train(uint32_t iterations,
                  const std::string& outDir,
                  bool resume,
                  const std::function<void(const DrlCurveRow&)>& progress)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto elapsed = [&]() {
        return m_secondsBefore + std::chrono::duration<double>(Clock::now() - start).count();
    };
    if (!outDir.empty())
    {
        std::error_code error;
        std::filesystem::create_directories(outDir, error);
        if (error || !std::filesystem::is_directory(outDir, error))
        {
            throw std::invalid_argument("cannot write to '" + outDir + "' (from --out): check "
                                        "that the directory can be created and written");
        }
    }
    if (resume)
    {
        if (outDir.empty())
        {
            throw std::invalid_argument("drl: --resume needs the --out directory of the run");
        }
        LoadState(outDir);
        if (m_curve.back().iteration >= iterations)
        {
            throw std::invalid_argument(
                "the run in '" + outDir + "' (from --out) is at iteration " +
                std::to_string(m_curve.back().iteration) + " already, so --iterations=" +
                std::to_string(iterations) + " trains nothing: give --iterations above " +
                std::to_string(m_curve.back().iteration) + " to continue it");
        }
    }
    else if (m_curve.empty() && !outDir.empty() &&
             std::filesystem::exists(outDir + "/trainer.pt"))
    {
        throw std::invalid_argument("'" + outDir + "' (from --out) already holds a training run "
                                    "(trainer.pt), which a new run would overwrite: give "
                                    "--resume to continue it, or another --out (or remove "
                                    "that directory) to start anew");
    }
    else if (m_curve.empty())
    {
        Start();
        m_curve.back().seconds = elapsed();
        m_bestScore = m_curve.back().evalRatio;
        if (!outDir.empty())
        {
            m_policy.Save(outDir + "/policy.pt");
            SaveState(outDir);
        }
        if (progress)
        {
            progress(m_curve.back());
        }
    }
    for (uint32_t it = m_curve.back().iteration + 1; it <= iterations; ++it)
    {
        RequireFiniteWeights(m_policy.GetUpper(), "iteration " + std::to_string(it - 1));
        RequireFiniteWeights(m_policy.GetLower(), "iteration " + std::to_string(it - 1));
        DrlCurveRow row = Iterate(it);
        row.seconds = elapsed();
        m_curve.push_back(row);
        const bool better = row.evalRatio < m_bestScore - 1e-12;
        if (better)
        {
            m_bestScore = row.evalRatio;
        }
        if (!outDir.empty())
        {
            if (better)
            {
                m_policy.Save(outDir + "/policy.pt");
            }
            SaveState(outDir);
        }
        if (progress)
        {
            progress(row);
        }
    }
}

void
DrlTrainer::WriteCurve(const std::string& path) const
{
    WriteTextFile(path, "learning curve", [this](std::ostream& out) {
        out << "iteration,level,mean_rounds,best_rounds,eval_rounds,eval_ratio,entropy,seconds\n";
        for (const auto& r : m_curve)
        {
            out << r.iteration << ',' << r.level << ',' << r.meanRounds << ',' << r.bestRounds
                << ',' << r.evalRounds << ',' << r.evalRatio << ',' << r.entropy << ','
                << r.seconds << '\n';
        }
    });
}

void
DrlTrainer::WriteTopologyCurve(const std::string& path) const
{
    const std::vector<uint32_t> bounds = GetBounds();
    WriteTextFile(path, "learning curve per topology", [this, &bounds](std::ostream& out) {
        out << "iteration,topology,family,decoded_rounds,bound,ratio\n";
        for (const auto& r : m_curve)
        {
            for (size_t i = 0; i < r.decoded.size() && i < m_topologies.size(); ++i)
            {
                const std::string& name = m_topologies[i].GetName();
                out << r.iteration << ",\"" << name << "\"," << TopologyFamily(name) << ','
                    << r.decoded[i] << ',' << bounds[i] << ','
                    << static_cast<double>(r.decoded[i]) / bounds[i] << '\n';
            }
        }
    });
}

const std::vector<Topology>&
DrlTrainer::GetTopologies() const
{
    return m_topologies;
}

std::vector<uint32_t>
DrlTrainer::GetBounds() const
{
    std::vector<uint32_t> bounds;
    for (const auto& env : m_envs)
    {
        bounds.push_back(env->GetBound());
    }
    return bounds;
}

void
DrlTrainer::SaveState(const std::string& outDir) const
{
    m_policy.Save(outDir + "/last.pt");
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive upper;
    torch::serialize::OutputArchive lower;
    m_upperOpt->save(upper);
    m_lowerOpt->save(lower);
    archive.write("upper_optimizer", upper);
    archive.write("lower_optimizer", lower);
    std::vector<double> curve;
    for (const auto& r : m_curve)
    {
        const double level = std::find(std::begin(LEVELS), std::end(LEVELS), r.level) - LEVELS;
        curve.insert(curve.end(),
                     {double(r.iteration), level, r.meanRounds, r.bestRounds, r.evalRounds,
                      r.evalRatio, r.entropy, r.seconds});
    }
    archive.write("curve",
                  torch::from_blob(curve.data(),
                                   {static_cast<int64_t>(m_curve.size()), 8},
                                   torch::kFloat64)
                      .clone());
    // Per row, the decoded rounds of every training topology (0 where a row lacks them).
    const auto nTopologies = static_cast<int64_t>(m_topologies.size());
    std::vector<double> decoded(m_curve.size() * m_topologies.size(), 0);
    for (size_t i = 0; i < m_curve.size(); ++i)
    {
        for (size_t t = 0; t < m_curve[i].decoded.size() && t < m_topologies.size(); ++t)
        {
            decoded[i * m_topologies.size() + t] = m_curve[i].decoded[t];
        }
    }
    archive.write("curve_topologies",
                  torch::from_blob(decoded.data(),
                                   {static_cast<int64_t>(m_curve.size()), nTopologies},
                                   torch::kFloat64)
                      .clone());
    archive.write("state",
                  torch::tensor({double(m_seed), m_bestScore, double(m_params.hidden),
                                 double(m_params.treesPerRoot)},
                                torch::kFloat64));
    std::string names;
    for (const std::string& name : GetTopologyNames())
    {
        names += name + "\n";
    }
    archive.write("topologies", c10::IValue(names));
    archive.write("pieces", torch::tensor({int64_t{m_pieces}}, torch::kInt64));
    SaveArchive(archive, outDir + "/trainer.pt", "trainer state");
    WriteCurve(outDir + "/curve.csv");
    WriteTopologyCurve(outDir + "/curve-topologies.csv");
}

std::vector<std::string>
DrlTrainer::GetTopologyNames() const
{
    std::vector<std::string> names;
    for (const Topology& t : m_topologies)
    {
        names.push_back(t.GetName());
    }
    return names;
}

namespace
{

/// \return the lines of a text, without empty ones
std::vector<std::string>
SplitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
    {
        if (!line.empty())
        {
            lines.push_back(line);
        }
    }
    return lines;
}

/// \return the topologies of the first iteration in DIR/curve-topologies.csv (written before
///         trainer.pt recorded them), in order; empty without the file
std::vector<std::string>
ReadCurveTopologies(const std::string& path)
{
    std::vector<std::string> names;
    std::ifstream in(path);
    std::string line;
    std::getline(in, line); // the header
    std::string first;
    while (std::getline(in, line))
    {
        const size_t open = line.find(",\"");
        const size_t close = line.find("\",", open + 2);
        if (open == std::string::npos || close == std::string::npos)
        {
            break;
        }
        const std::string iteration = line.substr(0, open);
        if (first.empty())
        {
            first = iteration;
        }
        if (iteration != first)
        {
            break;
        }
        names.push_back(line.substr(open + 2, close - open - 2));
    }
    return names;
}

/// \return the names, one per line, for a message
std::string
ListNames(const std::vector<std::string>& names)
{
    std::string list;
    for (const std::string& name : names)
    {
        list += (list.empty() ? "" : "; ") + name;
    }
    return list;
}

} // namespace

void
DrlTrainer::CheckResumedTopologies(torch::serialize::InputArchive& archive,
                                   const std::string& outDir,
                                   const DrlPolicy& last) const
{
    // What the run in outDir trained on: trainer.pt's record, else last.pt's, else (runs from
    // before either) the topologies of its curve-topologies.csv; with none of them, its
    // curve's number of topologies, else the same topologies are assumed.
    std::vector<std::string> before;
    torch::Tensor pieces;
    c10::IValue recorded;
    try
    {
        if (archive.try_read("topologies", recorded) && recorded.isString())
        {
            before = SplitLines(recorded.toStringRef());
        }
        if (archive.try_read("pieces", pieces) && pieces.numel() == 1 &&
            pieces.to(torch::kInt64).item<int64_t>() != int64_t{m_pieces})
        {
            throw std::runtime_error("drl: cannot resume the run in '" + outDir + "': it was "
                                     "trained with " + std::to_string(pieces.to(torch::kInt64)
                                                                          .item<int64_t>()) +
                                     " pieces per chunk, this run has " +
                                     std::to_string(m_pieces));
        }
    }
    catch (const c10::Error&)
    {
        before.clear();
    }
    if (before.empty())
    {
        before = last.GetTrainedOn();
    }
    if (before.empty())
    {
        before = ReadCurveTopologies(outDir + "/curve-topologies.csv");
    }
    const std::vector<std::string> now = GetTopologyNames();
    // One topology has one name however its spec spells a number (GetDrlModelName).
    bool differ = !before.empty() && before.size() != now.size();
    for (size_t i = 0; i < before.size() && !differ; ++i)
    {
        differ = GetDrlModelName(before[i]) != GetDrlModelName(now[i]);
    }
    torch::Tensor decoded;
    bool countDiffers = false;
    try
    {
        countDiffers = before.empty() && archive.try_read("curve_topologies", decoded) &&
                       decoded.dim() == 2 && decoded.size(1) != static_cast<int64_t>(now.size());
    }
    catch (const c10::Error&)
    {
        countDiffers = false;
    }
    if (differ || countDiffers)
    {
        throw std::runtime_error(
            "cannot resume the run in '" + outDir + "' (from --out): it was trained on " +
            (differ ? ListNames(before)
                    : std::to_string(decoded.size(1)) + " topologies") +
            ", not on " + ListNames(now) + " (--topology); give the same --topology as its "
            "first run, or another --out to start a new run");
    }
}

void
DrlTrainer::ReadCurve(torch::serialize::InputArchive& archive, const std::string& path)
{
    torch::Tensor curve;
    try
    {
        archive.read("curve", curve);
    }
    catch (const std::exception&)
    {
        curve = torch::Tensor();
    }
    if (!curve.defined() || curve.dim() != 2 || curve.size(1) != 8 || curve.size(0) == 0)
    {
        throw std::runtime_error("drl: cannot resume from '" + path + "': its learning curve is "
                                 "missing, empty or damaged; start a new run with another --out");
    }
    m_curve.clear();
    const auto c = curve.to(torch::kFloat64).contiguous();
    const double* d = c.data_ptr<double>();
    for (int64_t i = 0; i < c.size(0); ++i)
    {
        DrlCurveRow r;
        r.iteration = static_cast<uint32_t>(d[i * 8]);
        r.level = LEVELS[std::clamp<int64_t>(static_cast<int64_t>(d[i * 8 + 1]), 0, 2)];
        r.meanRounds = d[i * 8 + 2];
        r.bestRounds = d[i * 8 + 3];
        r.evalRounds = d[i * 8 + 4];
        r.evalRatio = d[i * 8 + 5];
        r.entropy = d[i * 8 + 6];
        r.seconds = d[i * 8 + 7];
        m_curve.push_back(r);
    }
    // The per-topology rounds, kept since the per-family learning curves; a trainer.pt from
    // before has none, and its rows stay without them.
    torch::Tensor decoded;
    bool found = false;
    try
    {
        found = archive.try_read("curve_topologies", decoded);
    }
    catch (const c10::Error&)
    {
        found = false;
    }
    if (found && decoded.dim() == 2 &&
        decoded.size(0) == static_cast<int64_t>(m_curve.size()) &&
        decoded.size(1) == static_cast<int64_t>(m_topologies.size()))
    {
        const auto dc = decoded.to(torch::kFloat64).contiguous();
        const double* dd = dc.data_ptr<double>();
        for (size_t i = 0; i < m_curve.size(); ++i)
        {
            for (size_t t = 0; t < m_topologies.size(); ++t)
            {
                m_curve[i].decoded.push_back(
                    static_cast<uint32_t>(dd[i * m_topologies.size() + t]));
            }
        }
    }
    m_secondsBefore = m_curve.back().seconds;
}

namespace
{
/// \param optimizer an Adam optimizer whose state was loaded
/// \return true when every moment it holds has the shape of its parameter
bool
OptimizerFits(torch::optim::Adam& optimizer)
{
    for (const torch::optim::OptimizerParamGroup& group : optimizer.param_groups())
    {
        for (const torch::Tensor& parameter : group.params())
        {
            const auto found =
                optimizer.state().find(c10::guts::to_string(parameter.unsafeGetTensorImpl()));
            if (found == optimizer.state().end())
            {
                continue;
            }
            const auto& moments = static_cast<const torch::optim::AdamParamState&>(*found->second);
            if (moments.exp_avg().sizes() != parameter.sizes() ||
                moments.exp_avg_sq().sizes() != parameter.sizes())
            {
                return false;
            }
        }
    }
    return true;
}
} // namespace

void
DrlTrainer::LoadState(const std::string& outDir)
{
    const std::string path = outDir + "/trainer.pt";
    if (!std::filesystem::exists(path) || !std::filesystem::exists(outDir + "/last.pt"))
    {
        throw std::runtime_error("cannot resume: '" + outDir + "' (from --out) has no "
                                    "trainer.pt and last.pt; run without --resume first");
    }
    DrlPolicy policy = DrlPolicy::Load(outDir + "/last.pt");
    torch::serialize::InputArchive archive;
    torch::Tensor state;
    try
    {
        archive.load_from(path);
        archive.read("state", state);
    }
    catch (const std::exception&)
    {
        throw std::runtime_error("drl: cannot resume from '" + path + "': it is not a trainer "
                                 "state written by allreduce-train (corrupt or truncated); start "
                                 "a new run with another --out");
    }
    state = state.to(torch::kFloat64);
    if (state.numel() != 4 || state[0].item<double>() != double(m_seed) ||
        state[2].item<double>() != m_params.hidden ||
        state[3].item<double>() != m_params.treesPerRoot)
    {
        throw std::runtime_error("cannot resume the run in '" + outDir + "' (from --out): "
                                    "it was trained with another --seed, --hidden or "
                                    "--trees-per-root; give the same options as its first run");
    }
    CheckResumedTopologies(archive, outDir, policy);
    for (const Topology& t : m_topologies)
    {
        policy.CheckSees(t, outDir + "/last.pt");
    }
    m_policy = std::move(policy);
    m_policy.SetTrainedOn(GetTopologyNames());
    for (size_t t = 0; t < m_topologies.size(); ++t)
    {
        m_taught[t] = m_policy.GetTaughtTrees(m_topologies[t]);
    }
    RebuildEnvironments();
    m_upperOpt = std::make_unique<torch::optim::Adam>(
        Parameters(m_policy.GetUpper()),
        torch::optim::AdamOptions(m_params.learningRate));
    m_lowerOpt = std::make_unique<torch::optim::Adam>(
        Parameters(m_policy.GetLower()),
        torch::optim::AdamOptions(m_params.learningRate));
    try
    {
        torch::serialize::InputArchive upper;
        torch::serialize::InputArchive lower;
        archive.read("upper_optimizer", upper);
        archive.read("lower_optimizer", lower);
        m_upperOpt->load(upper);
        m_lowerOpt->load(lower);
        // load() takes the moments whatever their shapes; a last.pt put in from another run
        // would then fail in the first step, deep in LibTorch.
        if (!OptimizerFits(*m_upperOpt) || !OptimizerFits(*m_lowerOpt))
        {
            throw std::invalid_argument("shapes differ");
        }
    }
    catch (const std::exception&)
    {
        throw std::runtime_error("drl: cannot resume from '" + path + "': its optimizer state "
                                 "is missing or does not fit the networks of last.pt; start a "
                                 "new run with another --out");
    }
    m_bestScore = state[1].item<double>();
    ReadCurve(archive, path);
}

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3
