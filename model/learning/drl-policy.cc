/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-policy.h"

#include "drl-threads.h"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

void
RequireRange(const char* name, double value, double least, double most)
{
    if (!(value >= least && value <= most))
    {
        std::ostringstream os;
        os << "drl: " << name << " must be from " << least << " to " << most << ", got " << value;
        throw std::invalid_argument(os.str());
    }
}

} // namespace

void
DrlHyperParams::Check() const
{
    RequireRange("hidden", hidden, 1, 4096);
    RequireRange("trees per root", treesPerRoot, 1, 16);
    RequireRange("upper iterations", upperIterations, 0, 1e6);
    RequireRange("lower iterations", lowerIterations, 0, 1e6);
    if (upperIterations + lowerIterations == 0)
    {
        throw std::invalid_argument("drl: upper and lower iterations cannot both be 0");
    }
    RequireRange("episodes", episodes, 1, 1e5);
    RequireRange("epochs", epochs, 1, 1e4);
    RequireRange("minibatch", minibatch, 1, 1e7);
    RequireRange("max steps", maxSteps, 1, 1e8);
    RequireRange("learning rate", learningRate, 1e-12, 1);
    RequireRange("clip", clip, 0, 1);
    RequireRange("gamma", gamma, 0, 1);
    RequireRange("lambda", lambda, 0, 1);
    RequireRange("entropy", entropy, 0, 1e3);
    RequireRange("target KL", targetKl, 0, 1e3);
    RequireRange("value coefficient", valueCoef, 0, 1e3);
    RequireRange("max gradient norm", maxGradNorm, 1e-9, 1e6);
    RequireRange("imitation steps", imitationSteps, 0, 1e7);
    RequireRange("teacher ties", teacherTies, 1, 1e4);
    RequireRange("imitation rate", imitationRate, 1e-12, 1);
    RequireRange("eval samples", evalSamples, 0, 1e5);
    if (imitationSteps == 0 &&
        (flatTeacherMoves > 0 || imitationEvalEvery > 0 || imitationCorrectEvery > 0))
    {
        throw std::invalid_argument("drl: the flat-tree teacher, the evaluation and the "
                                    "corrections during imitation act on the warm start, which "
                                    "0 imitation steps leave out; give imitation steps, or "
                                    "leave them out");
    }
    for (const auto& [every, what] : {std::pair{imitationEvalEvery, "an evaluation"},
                                      std::pair{imitationCorrectEvery, "a correction"}})
    {
        if (every >= imitationSteps && every > 0)
        {
            throw std::invalid_argument(std::string("drl: ") + what + " every " +
                                        std::to_string(every) + " of " +
                                        std::to_string(imitationSteps) +
                                        " imitation steps never runs before the last; give "
                                        "fewer, or 0 (none)");
        }
    }
}

#ifdef ALLREDUCE_HAVE_TORCH

bool
IsDrlAvailable()
{
    return true;
}

std::string
GetDrlUnavailableReason()
{
    return "";
}

namespace
{

/// Version of the checkpoint layout and of the observations; a change makes old files refused.
constexpr int64_t FORMAT_VERSION = 1;

/// \return a [n, f] tensor of row-major features
torch::Tensor
ItemTensor(const std::vector<float>& items, size_t n, size_t f)
{
    return torch::from_blob(const_cast<float*>(items.data()),
                            {static_cast<int64_t>(n), static_cast<int64_t>(f)},
                            torch::kFloat32)
        .clone();
}

/// \return a [1, g] tensor
torch::Tensor
GlobalTensor(const std::vector<float>& global)
{
    return torch::from_blob(const_cast<float*>(global.data()),
                            {1, static_cast<int64_t>(global.size())},
                            torch::kFloat32)
        .clone();
}

/**
 * \param rows row-major features, `full` per row
 * \param full features per row given
 * \param keep features per row kept (the first ones)
 * \return the rows with their first `keep` features
 */
std::vector<float>
FirstFeatures(std::vector<float> rows, size_t full, size_t keep)
{
    if (keep == full)
    {
        return rows;
    }
    const size_t n = rows.size() / full;
    for (size_t i = 0; i < n; ++i)
    {
        std::copy_n(rows.begin() + i * full, keep, rows.begin() + i * keep);
    }
    rows.resize(n * keep);
    return rows;
}

/// \return a uniform number in [0, 1) from the generator (the same on every platform)
double
Uniform(std::mt19937_64& rng)
{
    return (rng() >> 11) * (1.0 / 9007199254740992.0);
}

/// \return the candidates whose mask is 1, in order
std::vector<uint32_t>
Pickable(const std::vector<uint8_t>& mask)
{
    std::vector<uint32_t> open;
    for (uint32_t c = 0; c < mask.size(); ++c)
    {
        if (mask[c])
        {
            open.push_back(c);
        }
    }
    return open;
}

} // namespace

SetPolicyImpl::SetPolicyImpl(int64_t itemFeatures, int64_t globalFeatures, int64_t hidden)
    : m_itemFeatures(itemFeatures),
      m_globalFeatures(globalFeatures),
      m_hidden(hidden)
{
    m_encoder = register_module(
        "encoder",
        torch::nn::Sequential(torch::nn::Linear(itemFeatures + globalFeatures, hidden),
                              torch::nn::Tanh(),
                              torch::nn::Linear(hidden, hidden),
                              torch::nn::Tanh()));
    m_head = register_module("head",
                             torch::nn::Sequential(torch::nn::Linear(2 * hidden, hidden),
                                                   torch::nn::Tanh(),
                                                   torch::nn::Linear(hidden, 1)));
    m_value = register_module("value",
                              torch::nn::Sequential(torch::nn::Linear(hidden + globalFeatures,
                                                                      hidden),
                                                    torch::nn::Tanh(),
                                                    torch::nn::Linear(hidden, 1)));
}

std::pair<torch::Tensor, torch::Tensor>
SetPolicyImpl::forward(const torch::Tensor& items,
                       const torch::Tensor& segment,
                       const torch::Tensor& global)
{
    torch::Tensor pooled;
    const auto logits = Logits(items, segment, global, pooled);
    // The value head reads the policy's codes but does not shape them: its loss (returns up to
    // the +10 of the end) would otherwise swamp the policy's features.
    const auto value = m_value->forward(torch::cat({pooled.detach(), global}, 1)).squeeze(1);
    return {logits, value};
}

torch::Tensor
SetPolicyImpl::Logits(const torch::Tensor& items,
                      const torch::Tensor& segment,
                      const torch::Tensor& global,
                      torch::Tensor& pooled)
{
    // The layers of m_encoder and m_head split by their inputs: [item | global] into the
    // encoder and [item code | pooled] into the head. The global features' and the pooled
    // context's shares are computed once per decision, not once per item. One decision
    // (training's step, decoding's Score) takes exactly the same steps, so that decoding and
    // training score alike to the last bit, whatever BLAS does with the order of a sum.
    const auto& in = m_encoder->ptr(0)->as<torch::nn::Linear>();
    const auto& hidden = m_encoder->ptr(2)->as<torch::nn::Linear>();
    const auto& mix = m_head->ptr(0)->as<torch::nn::Linear>();
    const auto& out = m_head->ptr(2)->as<torch::nn::Linear>();
    const int64_t b = global.size(0);
    const int64_t f = items.size(1);
    const int64_t h = hidden->weight.size(0);
    const bool one = b == 1; // then every item's share is the one row, broadcast
    // Without gradients, tanh in place (the same values, one tensor fewer each).
    const bool inPlace = !torch::GradMode::is_enabled();
    const auto tanh = [inPlace](torch::Tensor x) { return inPlace ? x.tanh_() : torch::tanh(x); };
    const auto inBias = torch::addmm(in->bias.unsqueeze(0),
                                     global,
                                     in->weight.narrow(1, f, global.size(1)).t());
    auto e = tanh(torch::addmm(one ? inBias : inBias.index_select(0, segment),
                               items,
                               in->weight.narrow(1, 0, f).t()));
    e = tanh(torch::addmm(hidden->bias.unsqueeze(0), e, hidden->weight.t()));
    if (one)
    {
        pooled = e.mean(0, true);
    }
    else
    {
        const auto count = torch::zeros({b}, torch::kFloat32)
                               .index_add(0, segment, torch::ones({items.size(0)}));
        pooled = torch::zeros({b, h}, torch::kFloat32).index_add(0, segment, e) /
                 count.clamp_min(1.0).unsqueeze(1);
    }
    const auto mixBias =
        torch::addmm(mix->bias.unsqueeze(0), pooled, mix->weight.narrow(1, h, h).t());
    const auto code = tanh(torch::addmm(one ? mixBias : mixBias.index_select(0, segment),
                                        e,
                                        mix->weight.narrow(1, 0, h).t()));
    return torch::addmm(out->bias.unsqueeze(0), code, out->weight.t()).squeeze(1);
}

std::shared_ptr<SetPolicyImpl>
SetPolicyImpl::Copy() const
{
    auto copy = std::make_shared<SetPolicyImpl>(m_itemFeatures, m_globalFeatures, m_hidden);
    torch::NoGradGuard noGrad;
    const auto mine = parameters();
    const auto theirs = copy->parameters();
    for (size_t i = 0; i < mine.size(); ++i)
    {
        theirs[i].copy_(mine[i]);
    }
    return copy;
}

torch::Tensor
SetPolicyImpl::Score(const torch::Tensor& items, const torch::Tensor& global)
{
    torch::Tensor pooled;
    return Logits(items, torch::Tensor(), global, pooled);
}

DrlPolicy::DrlPolicy(const DrlHyperParams& params)
    : DrlPolicy(params,
                DrlEnvironment::TREE_FEATURES,
                DrlEnvironment::CANDIDATE_FEATURES,
                DrlEnvironment::GLOBAL_FEATURES)
{
}

DrlPolicy::DrlPolicy(const DrlHyperParams& params,
                     uint32_t treeWidth,
                     uint32_t candidateWidth,
                     uint32_t globalWidth)
    : m_hidden(params.hidden),
      m_treesPerRoot(params.treesPerRoot),
      m_treeSeed(params.treeSeed),
      m_treeWidth(treeWidth),
      m_candidateWidth(candidateWidth),
      m_globalWidth(globalWidth)
{
    if (m_hidden == 0 || m_treesPerRoot == 0)
    {
        throw std::invalid_argument("drl: the hidden width and the trees per root must be >= 1");
    }
    SetUpDrlBlas();
    m_upper = SetPolicy(m_treeWidth, m_globalWidth, m_hidden);
    m_lower = SetPolicy(m_candidateWidth, m_globalWidth, m_hidden);
}

SetPolicy&
DrlPolicy::GetUpper()
{
    return m_upper;
}

SetPolicy&
DrlPolicy::GetLower()
{
    return m_lower;
}

uint32_t
DrlPolicy::GetHidden() const
{
    return m_hidden;
}

uint32_t
DrlPolicy::GetTreesPerRoot() const
{
    return m_treesPerRoot;
}

uint32_t
DrlPolicy::GetTreeSeed() const
{
    return m_treeSeed;
}

uint32_t
DrlPolicy::GetTreeWidth() const
{
    return m_treeWidth;
}

uint32_t
DrlPolicy::GetCandidateWidth() const
{
    return m_candidateWidth;
}

uint32_t
DrlPolicy::GetGlobalWidth() const
{
    return m_globalWidth;
}

bool
DrlPolicy::SeesAggregation() const
{
    return m_treeWidth > DrlEnvironment::BASIC_TREE_FEATURES &&
           m_candidateWidth > DrlEnvironment::BASIC_CANDIDATE_FEATURES &&
           m_globalWidth > DrlEnvironment::BASIC_GLOBAL_FEATURES;
}

void
DrlPolicy::CheckSees(const Topology& topology, const std::string& path) const
{
    if (topology.CountAggregators() > 0 && !SeesAggregation())
    {
        throw std::runtime_error(
            "drl: the checkpoint '" + path + "' was trained before the observations carried "
            "aggregation in the network (it reads " + std::to_string(m_treeWidth) + "/" +
            std::to_string(m_candidateWidth) + "/" + std::to_string(m_globalWidth) +
            " features of " + std::to_string(DrlEnvironment::TREE_FEATURES) + "/" +
            std::to_string(DrlEnvironment::CANDIDATE_FEATURES) + "/" +
            std::to_string(DrlEnvironment::GLOBAL_FEATURES) + "), so it cannot see the " +
            std::to_string(topology.CountAggregators()) + " aggregating switches of " +
            topology.GetName() + "; train one with `allreduce-train --topology=SPEC --out=DIR` "
            "and pass --model=DIR/policy.pt");
    }
}

void
DrlPolicy::SetRescoreShare(double share)
{
    if (!(share >= 0 && share <= 1))
    {
        throw std::invalid_argument("drl: the rescore share must be from 0 to 1, got " +
                                    std::to_string(share));
    }
    m_rescoreShare = share;
}

double
DrlPolicy::GetRescoreShare() const
{
    return m_rescoreShare;
}

const std::string&
DrlPolicy::GetInfo() const
{
    return m_info;
}

void
DrlPolicy::SetInfo(const std::string& info)
{
    m_info = info;
}

const std::vector<std::string>&
DrlPolicy::GetTrainedOn() const
{
    return m_trainedOn;
}

void
DrlPolicy::SetTrainedOn(const std::vector<std::string>& topologies)
{
    m_trainedOn = topologies;
}

void
DrlPolicy::SetTaughtTrees(const Topology& topology, const std::vector<FlowTree>& trees)
{
    std::vector<std::vector<uint32_t>> parents;
    for (const FlowTree& t : trees)
    {
        parents.push_back(t.GetParents());
    }
    m_taught[topology.GetName()] = std::move(parents);
}

std::vector<std::vector<FlowTree>>
DrlPolicy::GetTaughtTrees(const Topology& topology) const
{
    const auto it = m_taught.find(topology.GetName());
    if (it == m_taught.end())
    {
        return {};
    }
    const auto& parents = it->second;
    const auto misfit = [&](const std::string& why) {
        return std::runtime_error("drl: the checkpoint's taught trees for '" +
                                  topology.GetName() + "' do not fit this topology (" + why +
                                  "): it was trained on another topology of that name; use a "
                                  "checkpoint trained on this one");
    };
    if (topology.CountAggregators() > 0)
    {
        throw misfit("it has aggregating switches, where no trees are taught");
    }
    if (parents.size() != topology.GetNServers())
    {
        throw misfit(std::to_string(parents.size()) + " trees for " +
                     std::to_string(topology.GetNServers()) + " servers");
    }
    std::vector<FlowTree> trees;
    for (uint32_t r = 0; r < parents.size(); ++r)
    {
        if (parents[r].size() != topology.GetNNodes())
        {
            throw misfit("tree " + std::to_string(r) + " has " +
                         std::to_string(parents[r].size()) + " nodes");
        }
        try
        {
            trees.emplace_back(topology, r, parents[r]);
        }
        catch (const std::invalid_argument& e)
        {
            throw misfit(e.what());
        }
    }
    return {trees};
}

void
DrlPolicy::Save(const std::string& path) const
{
    torch::serialize::OutputArchive archive;
    archive.write("meta",
                  torch::tensor({FORMAT_VERSION,
                                 int64_t{m_treeWidth},
                                 int64_t{m_candidateWidth},
                                 int64_t{m_globalWidth},
                                 int64_t{m_hidden},
                                 int64_t{m_treesPerRoot},
                                 int64_t{m_treeSeed}},
                                torch::kInt64));
    archive.write("info", c10::IValue(m_info));
    if (!m_trainedOn.empty())
    {
        std::string names;
        for (const std::string& name : m_trainedOn)
        {
            names += name + "\n";
        }
        archive.write("trained_on", c10::IValue(names));
    }
    if (!m_taught.empty())
    {
        // Per topology: its name, then a line of parents per root ('-' for none).
        std::ostringstream text;
        for (const auto& [name, parents] : m_taught)
        {
            text << name << "\n" << parents.size() << "\n";
            for (const auto& p : parents)
            {
                for (uint32_t v : p)
                {
                    (v == NO_INDEX ? text << "- " : text << v << ' ');
                }
                text << "\n";
            }
        }
        archive.write("taught_trees", c10::IValue(text.str()));
    }
    torch::serialize::OutputArchive upper;
    torch::serialize::OutputArchive lower;
    m_upper->save(upper);
    m_lower->save(lower);
    archive.write("upper", upper);
    archive.write("lower", lower);
    SaveArchive(archive, path, "checkpoint");
}

void
SaveArchive(torch::serialize::OutputArchive& archive,
            const std::string& path,
            const std::string& what)
{
    const std::string tmp = path + ".tmp";
    try
    {
        archive.save_to(tmp);
    }
    catch (const std::exception&)
    {
        std::remove(tmp.c_str());
        throw std::runtime_error("drl: cannot write the " + what + " '" + path +
                                 "': check that its directory exists and can be written, and "
                                 "that the disk has room");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        throw std::runtime_error("drl: cannot write the " + what + " '" + path +
                                 "': check that its directory can be written");
    }
}

namespace
{

/// What a checkpoint's problems end with: how to get a good one.
const char* const HOW_TO_GET_ONE = "; make one with `allreduce-train --topology=SPEC --out=DIR` "
                                   "(it writes DIR/policy.pt), or use one shipped in "
                                   "checkpoints/";

/// A problem found in a checkpoint (our own words, not the library's).
class CheckpointError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// \return the archive in the file, or a clear error without LibTorch's text
torch::serialize::InputArchive
ReadCheckpointArchive(const std::string& path)
{
    if (!std::ifstream(path).good() || std::filesystem::is_directory(path))
    {
        throw std::runtime_error("drl: no checkpoint at '" + path +
                                 "' (missing, unreadable or a directory); a checkpoint is a .pt "
                                 "file written by allreduce-train" + HOW_TO_GET_ONE);
    }
    torch::serialize::InputArchive archive;
    try
    {
        archive.load_from(path);
    }
    catch (const std::exception&)
    {
        throw std::runtime_error("drl: '" + path + "' is not a checkpoint: it cannot be read as "
                                 "one (corrupt, truncated, or another kind of file); a "
                                 "checkpoint is a .pt file written by allreduce-train" +
                                 HOW_TO_GET_ONE);
    }
    return archive;
}

/// \return the header (meta) of a checkpoint, checked against what this build reads
std::vector<int64_t>
ReadCheckpointHeader(torch::serialize::InputArchive& archive, const std::string& path)
{
    torch::Tensor meta;
    bool found = false;
    try
    {
        found = archive.try_read("meta", meta) && meta.dim() == 1 && meta.numel() == 7;
    }
    catch (const std::exception&)
    {
        found = false;
    }
    if (!found)
    {
        throw std::runtime_error("drl: '" + path + "' is a torch file but not a drl checkpoint "
                                 "(no header of 7 numbers in its 'meta' entry)" + HOW_TO_GET_ONE);
    }
    const auto m = meta.to(torch::kFloat64).contiguous();
    std::vector<int64_t> header;
    for (int64_t i = 0; i < 7; ++i)
    {
        const double v = m.data_ptr<double>()[i];
        if (!(std::isfinite(v) && v >= 0 && v <= 1e9 && v == std::floor(v)))
        {
            throw std::runtime_error("drl: '" + path + "' has a damaged header (entry " +
                                     std::to_string(i) + " of 'meta' is not a whole number)" +
                                     HOW_TO_GET_ONE);
        }
        header.push_back(static_cast<int64_t>(v));
    }
    return header;
}

/// \return the free text entry of a checkpoint, or empty when it has none
std::string
ReadCheckpointText(torch::serialize::InputArchive& archive, const std::string& key)
{
    try
    {
        c10::IValue value;
        if (archive.try_read(key, value) && value.isString())
        {
            return value.toStringRef();
        }
    }
    catch (const std::exception&)
    {
        // A damaged free text entry says nothing: the same as none.
    }
    return "";
}

/// \return the taught trees' text, empty when there is none (a damaged entry is refused)
std::string
ReadTaughtText(torch::serialize::InputArchive& archive, const std::string& path)
{
    c10::IValue value;
    bool present = false;
    try
    {
        present = archive.try_read("taught_trees", value);
    }
    catch (const std::exception&)
    {
        present = true; // there, but unreadable
    }
    if (present && !value.isString())
    {
        throw std::runtime_error("drl: '" + path + "' has damaged taught trees (not text)" +
                                 HOW_TO_GET_ONE);
    }
    return present ? value.toStringRef() : "";
}

/// Roots a checkpoint's taught trees may have at most (a check before allocating).
constexpr uint64_t MAX_TAUGHT_ROOTS = uint64_t{1} << 20;

/// The taught trees' text (DrlPolicy::Save) read back.
std::map<std::string, std::vector<std::vector<uint32_t>>>
ReadTaughtTrees(const std::string& text, const std::string& path)
{
    std::map<std::string, std::vector<std::vector<uint32_t>>> taught;
    std::istringstream in(text);
    const auto bad = [&](const std::string& why) {
        return std::runtime_error("drl: '" + path + "' has damaged taught trees (" + why +
                                  ")" + HOW_TO_GET_ONE);
    };
    for (std::string name; std::getline(in, name);)
    {
        std::string line;
        uint64_t roots = 0;
        std::istringstream count;
        if (name.empty() || !std::getline(in, line) || (count.str(line), !(count >> roots)) ||
            !(count >> std::ws).eof() || roots == 0 || roots > MAX_TAUGHT_ROOTS)
        {
            throw bad("no count of roots for '" + name + "'");
        }
        if (taught.count(name) > 0)
        {
            throw bad("'" + name + "' twice");
        }
        auto& parents = taught[name];
        for (uint64_t r = 0; r < roots; ++r)
        {
            if (!std::getline(in, line))
            {
                throw bad("'" + name + "' ends before tree " + std::to_string(r));
            }
            std::istringstream row(line);
            parents.emplace_back();
            for (std::string v; row >> v;)
            {
                char* end = nullptr;
                const unsigned long x = std::strtoul(v.c_str(), &end, 10);
                if (v != "-" && (*end != '\0' || x >= NO_INDEX || v[0] == '-'))
                {
                    throw bad("'" + v + "' is not a node in tree " + std::to_string(r));
                }
                parents.back().push_back(v == "-" ? NO_INDEX : static_cast<uint32_t>(x));
            }
            if (parents.back().empty() || parents.back().size() != parents.front().size())
            {
                throw bad("tree " + std::to_string(r) + " of '" + name + "' has " +
                          std::to_string(parents.back().size()) + " nodes");
            }
        }
    }
    return taught;
}

} // namespace

void
DrlPolicy::CheckHeader(const std::vector<int64_t>& m, const std::string& path)
{
    // Features are only appended: a checkpoint reads the first ones it was trained on, from
    // the basic widths up to this build's.
    const auto within = [](int64_t width, uint32_t basic, uint32_t full) {
        return width >= basic && width <= full;
    };
    if (m[0] != FORMAT_VERSION ||
        !within(m[1], DrlEnvironment::BASIC_TREE_FEATURES, DrlEnvironment::TREE_FEATURES) ||
        !within(m[2], DrlEnvironment::BASIC_CANDIDATE_FEATURES,
                DrlEnvironment::CANDIDATE_FEATURES) ||
        !within(m[3], DrlEnvironment::BASIC_GLOBAL_FEATURES, DrlEnvironment::GLOBAL_FEATURES))
    {
        throw std::runtime_error(
            "drl: '" + path + "' was made for another version of the observations (format " +
            std::to_string(m[0]) + " with " + std::to_string(m[1]) + "/" + std::to_string(m[2]) +
            "/" + std::to_string(m[3]) + " features; this build reads format " +
            std::to_string(FORMAT_VERSION) + " with " +
            std::to_string(DrlEnvironment::BASIC_TREE_FEATURES) + ".." +
            std::to_string(DrlEnvironment::TREE_FEATURES) + "/" +
            std::to_string(DrlEnvironment::BASIC_CANDIDATE_FEATURES) + ".." +
            std::to_string(DrlEnvironment::CANDIDATE_FEATURES) + "/" +
            std::to_string(DrlEnvironment::BASIC_GLOBAL_FEATURES) + ".." +
            std::to_string(DrlEnvironment::GLOBAL_FEATURES) + "); train it again" +
            HOW_TO_GET_ONE);
    }
    if (m[4] < 1 || m[4] > 4096 || m[5] < 1 || m[5] > 64 || m[6] > UINT32_MAX)
    {
        throw std::runtime_error("drl: '" + path + "' has an implausible header (hidden width " +
                                 std::to_string(m[4]) + ", trees per root " +
                                 std::to_string(m[5]) + ", tree seed " + std::to_string(m[6]) +
                                 ")" + HOW_TO_GET_ONE);
    }
}

void
DrlPolicy::LoadWeights(torch::serialize::InputArchive& archive, const std::string& path)
{
    // The archive's tensors replace the parameters whatever their shapes: compare them after.
    std::vector<std::vector<int64_t>> shapes;
    for (auto* net : {&m_upper, &m_lower})
    {
        for (const auto& p : (*net)->parameters())
        {
            shapes.push_back(p.sizes().vec());
        }
    }
    try
    {
        torch::serialize::InputArchive upper;
        torch::serialize::InputArchive lower;
        archive.read("upper", upper);
        archive.read("lower", lower);
        m_upper->load(upper);
        m_lower->load(lower);
    }
    catch (const std::exception&)
    {
        throw std::runtime_error("drl: '" + path + "' does not hold the two networks its "
                                 "header describes (an 'upper' and a 'lower' network of hidden "
                                 "width " + std::to_string(m_hidden) + ")" + HOW_TO_GET_ONE);
    }
    size_t i = 0;
    for (const auto* net : {&m_upper, &m_lower})
    {
        const std::string level = net == &m_upper ? "upper" : "lower";
        for (const auto& item : (*net)->named_parameters())
        {
            const std::string& name = item.key();
            const torch::Tensor& p = item.value();
            if (i >= shapes.size() || p.sizes().vec() != shapes[i++])
            {
                throw std::runtime_error("drl: '" + path + "' does not match the networks its "
                                         "header describes: tensor '" + level + "." + name +
                                         "' has another shape than hidden width " +
                                         std::to_string(m_hidden) + " gives" + HOW_TO_GET_ONE);
            }
            if (!torch::isfinite(p).all().template item<bool>())
            {
                throw std::runtime_error(
                    "drl: '" + path + "' has weights that are not finite numbers (NaN or "
                    "infinite) in tensor '" + level + "." + name + "': a policy with them "
                    "decides nothing meaningful; train it again, or take the run's policy.pt "
                    "(the best checkpoint, saved before any weight went wrong)" + HOW_TO_GET_ONE);
            }
        }
    }
}

DrlPolicy
DrlPolicy::Load(const std::string& path)
{
    torch::serialize::InputArchive archive = ReadCheckpointArchive(path);
    const std::vector<int64_t> m = ReadCheckpointHeader(archive, path);
    CheckHeader(m, path);
    DrlHyperParams params;
    params.hidden = static_cast<uint32_t>(m[4]);
    params.treesPerRoot = static_cast<uint32_t>(m[5]);
    params.treeSeed = static_cast<uint32_t>(m[6]);
    DrlPolicy policy(params,
                     static_cast<uint32_t>(m[1]),
                     static_cast<uint32_t>(m[2]),
                     static_cast<uint32_t>(m[3]));
    policy.m_info = ReadCheckpointText(archive, "info");
    const std::string trainedOn = ReadCheckpointText(archive, "trained_on");
    std::istringstream names(trainedOn);
    for (std::string name; std::getline(names, name);)
    {
        if (!name.empty())
        {
            policy.m_trainedOn.push_back(name);
        }
    }
    policy.m_taught = ReadTaughtTrees(ReadTaughtText(archive, path), path);
    policy.LoadWeights(archive, path);
    return policy;
}

DrlStep
DrlPolicy::ChooseTrees(DrlEnvironment& env,
                       Mode mode,
                       std::mt19937_64& rng,
                       const DrlTeacher* teacher) const
{
    const uint32_t nTrees = env.GetNTrees();
    // One Bernoulli per selectable tree.
    DrlStep up;
    up.items = FirstFeatures(env.GetTreeFeatures(), DrlEnvironment::TREE_FEATURES, m_treeWidth);
    up.global =
        FirstFeatures(env.GetGlobalFeatures(), DrlEnvironment::GLOBAL_FEATURES, m_globalWidth);
    up.mask = env.GetTreeMask();
    up.chosen.assign(nTrees, 0);
    std::vector<float> preference; // the teacher's trees cover every root: none needed
    std::vector<uint8_t> label;     // the teacher's selection
    if (teacher)
    {
        const std::vector<uint8_t> taught = env.GetTreesOfSet(teacher->set);
        label.assign(nTrees, 0);
        for (uint32_t t = 0; t < nTrees; ++t)
        {
            label[t] = up.mask[t] && taught[t];
        }
    }
    if (teacher && !teacher->labelOnly)
    {
        up.chosen = label; // the teacher's trees; the network is not asked
    }
    else
    {
        auto [logits, value] =
            m_upper->forward(ItemTensor(up.items, nTrees, m_treeWidth),
                             torch::zeros({static_cast<int64_t>(nTrees)}, torch::kInt64),
                             GlobalTensor(up.global));
        const auto l = logits.contiguous();
        const float* lp = l.data_ptr<float>();
        double logp = 0;
        for (uint32_t t = 0; t < nTrees; ++t)
        {
            if (!up.mask[t])
            {
                continue;
            }
            const double p = 1.0 / (1.0 + std::exp(-static_cast<double>(lp[t])));
            up.chosen[t] = mode == Mode::GREEDY ? (p > 0.5) : (Uniform(rng) < p);
            logp += std::log(std::max(1e-12, up.chosen[t] ? p : 1.0 - p));
        }
        up.logp = static_cast<float>(logp);
        up.value = value.item<float>();
        // A root none of whose trees came out selected gets its likeliest (SelectTrees).
        preference.assign(lp, lp + nTrees);
    }
    env.SelectTrees(up.chosen, preference);
    if (teacher && teacher->labelOnly)
    {
        up.chosen = label; // what the network is taught, not what it did
    }
    return up;
}

uint32_t
DrlPolicy::ChooseCandidate(const std::vector<float>& items,
                           const std::vector<float>& global,
                           Mode mode,
                           std::mt19937_64& rng,
                           DrlStep& step) const
{
    const auto n = static_cast<int64_t>(items.size() / m_candidateWidth);
    auto [ll, lv] = m_lower->forward(ItemTensor(items, n, m_candidateWidth),
                                     torch::zeros({n}, torch::kInt64),
                                     GlobalTensor(global));
    const auto lc = ll.contiguous();
    const float* q = lc.data_ptr<float>();
    uint32_t pick = 0;
    double top = -std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < n; ++c)
    {
        if (q[c] > top)
        {
            top = q[c];
            pick = static_cast<uint32_t>(c);
        }
    }
    double z = 0;
    for (int64_t c = 0; c < n; ++c)
    {
        z += std::exp(q[c] - top);
    }
    if (mode == Mode::SAMPLE)
    {
        double u = Uniform(rng) * z;
        for (int64_t c = 0; c < n; ++c)
        {
            pick = static_cast<uint32_t>(c);
            u -= std::exp(q[c] - top);
            if (u < 0)
            {
                break;
            }
        }
    }
    step.logp = static_cast<float>(q[pick] - top - std::log(z));
    step.value = lv.item<float>();
    return pick;
}

void
DrlPolicy::PickInPasses(DrlEnvironment& env, Mode mode, std::mt19937_64& rng) const
{
    const std::vector<uint8_t>& mask = env.GetCandidateMask();
    std::vector<uint32_t> order;
    std::vector<double> key;
    while (env.CanPick())
    {
        const std::vector<uint32_t> open = Pickable(mask);
        if (open.size() == 1)
        {
            env.Pick(open.front()); // one choice: no need to ask the network
            continue;
        }
        const std::vector<float> items = FirstFeatures(env.GetCandidateFeatures(open),
                                                       DrlEnvironment::CANDIDATE_FEATURES,
                                                       m_candidateWidth);
        const std::vector<float> global = FirstFeatures(env.GetGlobalFeatures(),
                                                        DrlEnvironment::GLOBAL_FEATURES,
                                                        m_globalWidth);
        // Views of the features (they outlive the scoring), not copies.
        const auto lc = m_lower
                            ->Score(torch::from_blob(const_cast<float*>(items.data()),
                                                     {static_cast<int64_t>(open.size()),
                                                      static_cast<int64_t>(m_candidateWidth)},
                                                     torch::kFloat32),
                                    torch::from_blob(const_cast<float*>(global.data()),
                                                     {1, static_cast<int64_t>(global.size())},
                                                     torch::kFloat32))
                            .contiguous();
        const float* q = lc.data_ptr<float>();
        // Greedy: best score first (ties by candidate order); sampled: the Gumbel-max trick,
        // whose order is a sample without replacement from the policy's distribution.
        key.resize(open.size());
        for (size_t i = 0; i < open.size(); ++i)
        {
            key[i] = q[i];
            if (mode == Mode::SAMPLE)
            {
                // Uniform in (0, 1): half a step above Uniform's [0, 1).
                const double u = Uniform(rng) + 0.5 / 9007199254740992.0;
                key[i] -= std::log(-std::log(u));
            }
        }
        const uint32_t scored = env.GetNPickable();
        const auto budget = std::max<uint32_t>(
            1, static_cast<uint32_t>(std::floor(m_rescoreShare * scored)));
        if (budget == 1)
        {
            // One pick before the next scoring: the first of the order below, without sorting.
            size_t best = 0;
            for (size_t i = 1; i < open.size(); ++i)
            {
                best = key[i] > key[best] ? i : best;
            }
            env.Pick(open[best]);
            continue;
        }
        order.resize(open.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return key[a] > key[b];
        });
        for (uint32_t i : order)
        {
            if (scored - env.GetNPickable() >= budget)
            {
                break;
            }
            if (mask[open[i]])
            {
                env.Pick(open[i]);
            }
        }
    }
}

void
DrlPolicy::PickWorkloads(DrlEnvironment& env,
                         Mode mode,
                         std::mt19937_64& rng,
                         std::vector<DrlStep>* record,
                         const DrlTeacher* teacher,
                         std::mt19937_64& tieRng) const
{
    // The teacher breaks ties among equally ranked candidates by order (tieSeed 0) or at
    // random from its own generator.
    const auto teacherPick = [&](const std::vector<uint8_t>& ties,
                                 const std::vector<uint32_t>& open) {
        std::vector<uint32_t> tied;
        for (uint32_t i = 0; i < open.size(); ++i)
        {
            if (ties[open[i]])
            {
                tied.push_back(i);
            }
        }
        if (tied.empty())
        {
            throw std::logic_error("drl: the teacher has no candidate to pick");
        }
        return teacher->tieSeed == 0 ? tied.front() : tied[tieRng() % tied.size()];
    };
    // A plan's picks among the pickable candidates: those of this round (none: the round is
    // over); when it only labels, those planned earliest (on the plan's own path the same).
    const auto planTies = [&](const std::vector<uint32_t>& open) {
        const auto& candidates = env.GetCandidates();
        const auto planned = [&](uint32_t c) {
            const auto [set, id] = candidates[c];
            return set == teacher->set && id < teacher->planRound->size()
                       ? (*teacher->planRound)[id]
                       : std::numeric_limits<uint32_t>::max();
        };
        uint32_t due = env.GetRound();
        if (teacher->labelOnly)
        {
            due = std::numeric_limits<uint32_t>::max();
            for (uint32_t c : open)
            {
                due = std::min(due, planned(c));
            }
        }
        std::vector<uint8_t> ties(candidates.size(), 0);
        for (uint32_t c : open)
        {
            ties[c] = planned(c) == due && due != std::numeric_limits<uint32_t>::max();
        }
        return ties;
    };
    // One masked categorical pick at a time until nothing fits.
    while (env.CanPick())
    {
        // The policy sees the pickable candidates only: the mask removes the others.
        const std::vector<uint32_t> open = Pickable(env.GetCandidateMask());
        std::vector<uint8_t> ties; // the teacher's equally good picks
        const bool acts = teacher && !teacher->labelOnly; // the teacher picks
        if (teacher)
        {
            ties = teacher->planRound ? planTies(open) : env.TeacherTies(teacher->rule);
            if (acts && teacher->planRound &&
                std::none_of(open.begin(), open.end(), [&](uint32_t c) { return ties[c]; }))
            {
                break; // the plan's round is complete, though more would fit
            }
        }
        DrlStep low;
        uint32_t pick = 0; // index into open
        if (acts && !record)
        {
            pick = teacherPick(ties, open);
        }
        else if (open.size() > 1 || record)
        {
            low.items = FirstFeatures(env.GetCandidateFeatures(open),
                                      DrlEnvironment::CANDIDATE_FEATURES,
                                      m_candidateWidth);
            low.global = FirstFeatures(env.GetGlobalFeatures(),
                                       DrlEnvironment::GLOBAL_FEATURES,
                                       m_globalWidth);
            low.mask.assign(open.size(), 1);
            if (teacher)
            {
                // The teacher's equally good picks (none where it has no label: a plan's
                // workloads all picked, or on other trees).
                low.chosen.assign(open.size(), 0);
                for (size_t i = 0; i < open.size(); ++i)
                {
                    low.chosen[i] = ties[open[i]];
                }
            }
            // The teacher picks, or the network does (it is not asked when the teacher picks).
            pick = acts ? teacherPick(ties, open)
                        : ChooseCandidate(low.items, low.global, mode, rng, low);
        }
        // else one choice: no need to ask the network.
        const double reward = env.Pick(open[pick]);
        if (record)
        {
            low.action = pick;
            low.reward = static_cast<float>(reward);
            record->push_back(std::move(low));
        }
    }
}

void
DrlPolicy::ActRound(DrlEnvironment& env, Mode mode, std::mt19937_64& rng) const
{
    torch::NoGradGuard noGrad;
    ChooseTrees(env, mode, rng, nullptr);
    PickInPasses(env, mode, rng);
}

DrlEpisode
DrlPolicy::Run(DrlEnvironment& env,
               Mode upperMode,
               Mode lowerMode,
               std::mt19937_64& rng,
               bool record,
               const DrlTeacher* teacher,
               uint32_t cutoff) const
{
    torch::NoGradGuard noGrad;
    DrlEpisode episode;
    std::mt19937_64 tieRng(teacher ? teacher->tieSeed : 0);
    while (!env.IsDone())
    {
        DrlStep up = ChooseTrees(env, upperMode, rng, teacher);
        const size_t firstLower = episode.lower.size();
        if (record || teacher)
        {
            PickWorkloads(env, lowerMode, rng, record ? &episode.lower : nullptr, teacher, tieRng);
        }
        else
        {
            PickInPasses(env, lowerMode, rng);
        }
        const double reward = env.CloseRound();
        const bool done = env.IsDone();
        if (record)
        {
            up.reward = static_cast<float>(reward);
            up.roundEnd = true;
            up.last = done;
            episode.upper.push_back(std::move(up));
            if (episode.lower.size() > firstLower)
            {
                // The round ends here: the next lower step is a round later.
                episode.lower.back().roundEnd = true;
                episode.lower.back().last = done;
            }
        }
        if (!done && cutoff != std::numeric_limits<uint32_t>::max() &&
            uint64_t{env.GetRound()} + env.GetRoundsLeftBound() >= cutoff)
        {
            episode.cut = true;
            break;
        }
    }
    episode.rounds = env.GetRound();
    return episode;
}

uint64_t
DrlPolicy::SampleSeed(uint64_t seed, uint32_t i)
{
    // Sample i's own stream (SplitMix64's increment spreads the seeds).
    return seed + 0x9E3779B97F4A7C15ULL * i;
}

Plan
DrlPolicy::Decode(DrlEnvironment& env,
                  uint32_t samples,
                  uint64_t seed,
                  DrlDecodeStats* stats,
                  uint64_t budget,
                  const std::function<void(uint32_t, uint32_t, uint32_t)>& progress) const
{
    DrlEnvironmentPool pool(env);
    return Decode(pool, samples, seed, stats, budget, progress);
}

Plan
DrlPolicy::Decode(DrlEnvironmentPool& pool,
                  uint32_t samples,
                  uint64_t seed,
                  DrlDecodeStats* stats,
                  uint64_t budget,
                  const std::function<void(uint32_t, uint32_t, uint32_t)>& progress) const
{
    DrlEnvironment& env = pool.Get(0);
    DrlDecodeStats s;
    // From a live state (DrlEnvironment::StartFrom), only what is left counts.
    const uint32_t before = env.GetStartSent();
    const uint32_t toSend = env.GetNTotal() - before;
    // The greedy episode first, alone: its rounds set the budget and the bar.
    env.Reset();
    std::mt19937_64 greedyRng(SampleSeed(seed, 0));
    const DrlEpisode greedy = Run(env, Mode::GREEDY, Mode::GREEDY, greedyRng, false, nullptr);
    ++s.finished;
    Plan best = env.GetPlan();
    uint32_t bestRounds = greedy.rounds;
    // The budget in workloads, now that an episode's rounds are known.
    s.budget = budget == std::numeric_limits<uint64_t>::max()
                   ? budget
                   : budget / std::max<uint32_t>(1, greedy.rounds - env.GetStartRound());
    const uint32_t episodes = 1 + (s.budget >= toSend ? samples : 0); // that may run
    if (progress)
    {
        progress(1, episodes, bestRounds);
    }
    struct Outcome
    {
        DrlEpisode episode; //!< how it went
        uint64_t scheduled; //!< workloads it scheduled
        Plan plan;          //!< its plan, where it beat the bar of its wave
    };
    for (uint32_t first = 1; first <= samples; first += SEARCH_WAVE)
    {
        // Of this wave, those that run: a sample starts while the budget left covers a whole
        // episode after the samples before it in the wave, taken at the mean cost of the
        // samples so far (a whole episode each before any ran).
        const uint32_t ran = first - 1;
        const uint64_t each = ran == 0 ? toSend : (s.scheduled + ran - 1) / ran;
        uint32_t n = 0;
        while (n < SEARCH_WAVE && first + n <= samples && s.scheduled <= s.budget &&
               s.budget - s.scheduled >= toSend + each * n)
        {
            ++n;
        }
        std::vector<Outcome> out(n);
        const uint32_t bar = bestRounds;
        RunInParallel(n, pool.Ready(n), [&](uint32_t w, size_t k) {
            DrlEnvironment& mine = pool.Get(w);
            mine.Reset();
            std::mt19937_64 rng(SampleSeed(seed, first + static_cast<uint32_t>(k)));
            out[k].episode = Run(mine, Mode::SAMPLE, Mode::SAMPLE, rng, false, nullptr, bar);
            out[k].scheduled = mine.GetNSent() - before;
            if (!out[k].episode.cut && out[k].episode.rounds < bar)
            {
                out[k].plan = mine.GetPlan();
            }
        });
        for (uint32_t k = 0; k < n; ++k)
        {
            s.scheduled += out[k].scheduled;
            const DrlEpisode& e = out[k].episode;
            e.cut ? ++s.cut : ++s.finished;
            if (!e.cut && e.rounds < bestRounds)
            {
                bestRounds = e.rounds;
                best = std::move(out[k].plan);
            }
            if (progress)
            {
                progress(first + k + 1, episodes, bestRounds);
            }
        }
        if (first + n <= samples && n < SEARCH_WAVE)
        {
            s.skipped = samples - (first + n) + 1;
            break;
        }
    }
    if (stats)
    {
        *stats = s;
    }
    return best;
}

#else // ALLREDUCE_HAVE_TORCH

bool
IsDrlAvailable()
{
    return false;
}

std::string
GetDrlUnavailableReason()
{
    return "the 'drl' scheduler and allreduce-train need LibTorch, and this build has none: "
           "install it (apt-get install libtorch-dev) and configure again (with "
           "-DALLREDUCE_WITH_TORCH=ON, the default)";
}

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3
