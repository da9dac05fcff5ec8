/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-scheduler.h"

#include "drl-environment.h"
#include "drl-policy.h"
#include "drl-rollout.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/scheduler-registry.h"
#include "ns3/string.h"
#include "ns3/text-file.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef ALLREDUCE_SOURCE_MODEL_DIR
#define ALLREDUCE_SOURCE_MODEL_DIR "checkpoints"
#endif
// An installed library (standalone `cmake --install`) also looks where the checkpoints were
// installed: ALLREDUCE_INSTALL_MODEL_DIR, and the same folder relative to the library itself
// (ALLREDUCE_INSTALL_MODEL_DIR_FROM_LIB), which stays right with `cmake --install --prefix P`.
#ifdef ALLREDUCE_INSTALL_MODEL_DIR
#include <dlfcn.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DrlScheduler");

NS_OBJECT_ENSURE_REGISTERED(DrlScheduler);

static const SchedulerRegistration g_registration(
    "drl",
    DrlScheduler::GetTypeId(),
    "hierarchical deep reinforcement learning (LibTorch): a flow-tree selection policy and a "
    "workload scheduling policy, loaded from a trained checkpoint",
    60,
    &GetDrlUnavailableReason);

namespace
{

/// \return a number as its shortest text that reads back the same ("0.50" and ".5" as 0.5)
std::string
ShortestNumber(double value)
{
    char text[40];
    if (value == std::floor(value) && std::fabs(value) < 1e15)
    {
        std::snprintf(text, sizeof(text), "%.0f", value);
        return text;
    }
    for (int digits = 1; digits <= 17; ++digits)
    {
        std::snprintf(text, sizeof(text), "%.*g", digits, value);
        if (std::strtod(text, nullptr) == value)
        {
            break;
        }
    }
    return text;
}

/**
 * \param name a topology's name
 * \return the name with every value (what follows a '=', up to ',', ')' or ';') that is a
 *         number written as its shortest text, and ina=1 as ina=all (every switch aggregates
 *         either way), so that one topology has one name however its spec spells a number
 */
std::string
NormalizeNumbers(const std::string& name)
{
    std::string out;
    size_t i = 0;
    while (i < name.size())
    {
        const char c = name[i++];
        out += c;
        if (c != '=')
        {
            continue;
        }
        const size_t end = std::min(name.find_first_of(",);", i), name.size());
        const std::string value = name.substr(i, end - i);
        double number = 0;
        if (ParseDecimal(value, number))
        {
            const bool ina = out.size() >= 4 && out.compare(out.size() - 4, 4, "ina=") == 0 &&
                             (out.size() == 4 || !std::isalnum(static_cast<unsigned char>(
                                                     out[out.size() - 5])));
            out += ina && number == 1 ? std::string("all") : ShortestNumber(number);
        }
        else
        {
            out += value;
        }
        i = end;
    }
    return out;
}

} // namespace

std::string
GetDrlModelName(const std::string& topologyName)
{
    std::string lower;
    for (char c : NormalizeNumbers(topologyName))
    {
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    std::string name;
    for (char c : lower)
    {
        if (std::isalnum(static_cast<unsigned char>(c)))
        {
            name += c;
        }
        else if (!name.empty() && name.back() != '-')
        {
            name += '-';
        }
    }
    while (!name.empty() && name.back() == '-')
    {
        name.pop_back();
    }
    return name;
}

std::vector<std::string>
GetDrlModelDirectories()
{
    const char* env = std::getenv("ALLREDUCE_MODEL_DIR");
    if (env && *env)
    {
        return {env};
    }
    std::vector<std::string> dirs{ALLREDUCE_SOURCE_MODEL_DIR};
#ifdef ALLREDUCE_INSTALL_MODEL_DIR
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&GetDrlModelDirectories), &self) && self.dli_fname)
    {
        std::error_code error;
        const std::filesystem::path libDir =
            std::filesystem::canonical(std::filesystem::path(self.dli_fname).parent_path(), error);
        if (!error)
        {
            dirs.push_back(
                (libDir / ALLREDUCE_INSTALL_MODEL_DIR_FROM_LIB).lexically_normal().string());
        }
    }
    if (std::find(dirs.begin(), dirs.end(), ALLREDUCE_INSTALL_MODEL_DIR) == dirs.end())
    {
        dirs.emplace_back(ALLREDUCE_INSTALL_MODEL_DIR);
    }
#endif
    return dirs;
}

std::string
GetDrlModelDirectory()
{
    const std::vector<std::string> dirs = GetDrlModelDirectories();
    for (const std::string& dir : dirs)
    {
        std::error_code error;
        if (std::filesystem::is_directory(dir, error))
        {
            return dir;
        }
    }
    return dirs.front();
}

std::string
GetDrlGeneralModelPath()
{
    return GetDrlModelDirectory() + "/general.pt";
}

std::string
DrlDecoding::GetSourceName() const
{
    switch (source)
    {
    case Source::GIVEN:
        return "given";
    case Source::TOPOLOGY:
        return "topology";
    case Source::GENERAL:
        return "general";
    case Source::NONE:
        break;
    }
    return "none";
}

std::string
DrlDecoding::DescribeModel() const
{
    std::string why;
    switch (source)
    {
    case Source::GIVEN:
        why = "given";
        break;
    case Source::TOPOLOGY:
        why = "shipped for " + topology;
        break;
    case Source::GENERAL:
        why = "the general checkpoint: none ships for " + topology;
        break;
    case Source::NONE:
        return "none loaded";
    }
    return model + " (" + why + (info.empty() ? "" : "; " + info) + ")";
}

std::string
DrlDecoding::DescribeSearch() const
{
    if (!searched)
    {
        return "";
    }
    std::ostringstream os;
    os << "greedy + " << samples << " sampled episodes: " << finished << " ran to the end, "
       << cut << " stopped once they could not beat the best";
    if (skipped > 0)
    {
        os << ", " << skipped << " not run (over the search budget of " << budget
           << " workloads)";
    }
    os << " (" << sampledRounds << " rounds); ";
    if (rollout.branches == 0)
    {
        os << "no rollout";
    }
    else if (rollout.skipped)
    {
        os << "no rollout: " << rollout.branches << " decisions a round would schedule about "
           << rollout.estimate << " workloads, over the " << rollout.budget
           << " the budget has left";
    }
    else
    {
        os << "rollout of " << rollout.branches << " decisions a round: " << rollout.rounds
           << " rounds decided, " << rollout.tried << " decisions tried, "
           << rollout.scheduled << " workloads scheduled"
           << (rollout.budgetOut ? " (budget used up)" : "") << ", "
           << (rollout.found < rollout.incumbent
                   ? std::to_string(rollout.incumbent) + " -> " + std::to_string(rollout.found) +
                         " rounds"
                   : "no fewer rounds");
    }
    os << "; rescore share " << rescoreShare << "; " << threads
       << (threads == 1 ? " thread" : " threads") << " (the same plan on any number)";
    if (taught)
    {
        os << "; on the checkpoint's taught trees (the flat-tree search's), not symmetric";
    }
    if (!symmetry.empty())
    {
        os << "; symmetric: one root's decisions per orbit repeated on the others by " << symmetry;
    }
    return os.str();
}

std::string
DrlDecoding::DescribeOnline() const
{
    if (decisions == 0)
    {
        return "";
    }
    std::ostringstream os;
    if (greedy)
    {
        os << decisions << " decisions, each by both policies greedily (Online=greedy)";
        return os.str();
    }
    os << decisions << " decisions on "
       << (followsPlan ? "the plan made beforehand" : "a plan made at the first decision")
       << ", " << replans << " searches from the live state (" << replanScheduled
       << " workloads scheduled)";
    if (kept > 0)
    {
        os << ", " << kept << " of them kept the plan (it had fewer rounds left)";
    }
    if (unplannable > 0)
    {
        os << ", " << unplannable << " waits with nothing able to start";
    }
    if (!lastReplan.empty())
    {
        os << "; last: " << lastReplan;
    }
    return os.str();
}

TypeId
DrlScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DrlScheduler")
            .SetParent<AllReduceScheduler>()
            .SetGroupName("AllReduce")
            .AddConstructor<DrlScheduler>()
            .AddAttribute("Model",
                          "The checkpoint (allreduce-train's policy.pt); empty: the shipped one "
                          "for the topology in the model directory",
                          StringValue(""),
                          MakeStringAccessor(&DrlScheduler::m_model),
                          MakeStringChecker())
            .AddAttribute("Samples",
                          "Sampled episodes decoded besides the greedy one; the fewest rounds win",
                          UintegerValue(32),
                          MakeUintegerAccessor(&DrlScheduler::m_samples),
                          MakeUintegerChecker<uint32_t>(0, 100000))
            .AddAttribute("Threads",
                          "Threads the search (the sampled episodes and the rollout's "
                          "decisions) runs on, at most 8 at a time (0: one per core); the plan "
                          "is the same on any number (doc/allreduce.rst, \"Threads\")",
                          UintegerValue(0),
                          MakeUintegerAccessor(&DrlScheduler::m_threads),
                          MakeUintegerChecker<uint32_t>(0, 256))
            .AddAttribute("RolloutBranches",
                          "After the sampled episodes, a rollout search tries this many "
                          "decisions a round (the greedy one and sampled ones), finishes each "
                          "greedily and goes on from the best (0: no rollout)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&DrlScheduler::m_rolloutBranches),
                          MakeUintegerChecker<uint32_t>(0, 4096))
            .AddAttribute("SearchBudget",
                          "What the search may spend besides the greedy episode, in workloads "
                          "scheduled times the greedy episode's rounds (each round passes over "
                          "what is left, so an episode costs about both): sampled episodes "
                          "while one more fits, then the rollout if its expected cost fits "
                          "what is left (deterministic, unlike a time limit; about a minute)",
                          UintegerValue(100000000),
                          MakeUintegerAccessor(&DrlScheduler::m_searchBudget),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Symmetric",
                          "Where the topology has translations (BCube, DCell(n,1), "
                          "fat-tree), decide "
                          "for one root per orbit on trees they copy and repeat every decision "
                          "on the orbit's other roots (doc/allreduce.rst, \"Symmetric "
                          "decoding\"); not on a checkpoint's taught trees, which no "
                          "translation copies",
                          BooleanValue(true),
                          MakeBooleanAccessor(&DrlScheduler::m_symmetric),
                          MakeBooleanChecker())
            .AddAttribute("Seed",
                          "Seed of the sampled episodes and the rollout's sampled decisions",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DrlScheduler::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RescoreShare",
                          "The lower policy scores the pickable candidates once and picks in "
                          "the order of its scores until this share of them is picked or "
                          "blocked, then scores again (0: after every pick, as in training; "
                          "-1: 0 where the checkpoint carries taught trees for the topology, "
                          "whose order was imitated pick by pick, else 0.5)",
                          DoubleValue(-1),
                          MakeDoubleAccessor(&DrlScheduler::m_rescoreShare),
                          MakeDoubleChecker<double>(-1.0, 1.0))
            .AddAttribute("Online",
                          "How SelectRound decides: plan (follow a plan; search again from "
                          "the live state when it departs from the plan) or greedy (both "
                          "policies greedily at every decision, no search)",
                          EnumValue(DrlScheduler::PLAN),
                          compat::MakeEnumAccessor<DrlScheduler::Online>(&DrlScheduler::m_online),
                          MakeEnumChecker(DrlScheduler::PLAN, "plan", DrlScheduler::GREEDY, "greedy"))
            .AddAttribute("ReplanBudget",
                          "What a search from the live state may spend besides its greedy "
                          "episode, in the unit of SearchBudget (workloads scheduled times "
                          "the greedy episode's rounds): work, not time, so that the "
                          "simulation stays deterministic",
                          UintegerValue(2000000),
                          MakeUintegerAccessor(&DrlScheduler::m_replanBudget),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("Replan",
                            "Online, the live state departed from the plan and drl searched "
                            "again from it",
                            MakeTraceSourceAccessor(&DrlScheduler::m_replan),
                            "ns3::DrlScheduler::ReplanCallback")
            .AddTraceSource("SearchProgress",
                            "MakePlan's search went one step further: an episode decoded, or "
                            "a round decided by the rollout",
                            MakeTraceSourceAccessor(&DrlScheduler::m_searchProgress),
                            "ns3::DrlScheduler::SearchProgressCallback");
    return tid;
}

DrlScheduler::DrlScheduler() = default;

DrlScheduler::~DrlScheduler() = default;

std::string
DrlScheduler::GetName() const
{
    return "drl";
}

std::string
DrlScheduler::GetModelPath(const std::string& topologyName) const
{
    if (!m_model.empty())
    {
        return m_model;
    }
    const std::string own = GetDrlModelDirectory() + "/" + GetDrlModelName(topologyName) + ".pt";
    return std::ifstream(own).good() ? own : GetDrlGeneralModelPath();
}

const DrlDecoding&
DrlScheduler::GetDecoding() const
{
    return m_decoding;
}

WorkloadSet
DrlScheduler::MakeWorkloads(const Topology& topology, uint32_t pieces)
{
    return MakePlan(topology, pieces).workloads;
}

#ifdef ALLREDUCE_HAVE_TORCH

std::string
GetDrlCheckpointInfo(const std::string& path)
{
    return DrlPolicy::Load(path).GetInfo();
}

namespace
{

/**
 * Refuses a checkpoint found by a topology's name (GetDrlModelName) that records having been
 * trained on other topologies only: its file was renamed or copied over. A checkpoint that
 * records nothing (written before the trainer recorded it) is taken to be what its name says.
 * \param policy the checkpoint's policies \param topologyName the topology to schedule
 * \param path the checkpoint
 */
void
CheckTrainedFor(const DrlPolicy& policy, const std::string& topologyName, const std::string& path)
{
    const std::vector<std::string>& trainedOn = policy.GetTrainedOn();
    if (trainedOn.empty())
    {
        return;
    }
    std::string names;
    for (const std::string& name : trainedOn)
    {
        if (GetDrlModelName(name) == GetDrlModelName(topologyName))
        {
            return;
        }
        names += (names.empty() ? "" : ", ") + name;
    }
    throw std::runtime_error("drl: the checkpoint '" + path + "', which drl loads for " +
                             topologyName + " by its file name, was trained on " + names +
                             " instead; put the checkpoint of " + topologyName + " there, or "
                             "pass the one you mean with --model=FILE");
}

} // namespace

const DrlPolicy&
DrlScheduler::GetPolicy(const Topology& topology)
{
    const std::string& topologyName = topology.GetName();
    const std::string path = GetModelPath(topologyName);
    if (m_model.empty() && !std::ifstream(path).good())
    {
        const std::vector<std::string> dirs = GetDrlModelDirectories();
        std::string tried;
        for (const std::string& dir : dirs)
        {
            tried += (tried.empty() ? "" : ", ") + dir;
        }
        std::error_code error;
        const std::string dir = GetDrlModelDirectory();
        std::string where = " in " + dir;
        if (!std::filesystem::is_directory(dir, error))
        {
            where = ", but no checkpoint folder exists: " + tried;
        }
        else if (dirs.size() > 1)
        {
            where += ", the first folder that exists of: " + tried;
        }
        throw std::runtime_error(
            "drl: no checkpoint ships for " + topologyName + " and the general one is missing " +
            "(looked for " + GetDrlModelName(topologyName) + ".pt and general.pt" + where +
            "); train one with `allreduce-train --topology=SPEC --out=DIR` "
            "and pass --model=DIR/policy.pt, or set ALLREDUCE_MODEL_DIR to a directory of "
            "checkpoints");
    }
    if (!m_policy || path != m_loadedPath)
    {
        m_policy = std::make_shared<DrlPolicy>(DrlPolicy::Load(path));
        m_loadedPath = path;
    }
    m_decoding.source = !m_model.empty()                  ? DrlDecoding::Source::GIVEN
                        : path == GetDrlGeneralModelPath() ? DrlDecoding::Source::GENERAL
                                                           : DrlDecoding::Source::TOPOLOGY;
    if (m_decoding.source == DrlDecoding::Source::TOPOLOGY)
    {
        CheckTrainedFor(*m_policy, topologyName, path);
    }
    m_decoding.model = path;
    m_decoding.topology = topologyName;
    m_decoding.info = m_policy->GetInfo();
    if (m_rescoreShare < 0 && m_rescoreShare != -1)
    {
        throw std::invalid_argument("drl: RescoreShare must be from 0 to 1, or -1 (the "
                                    "checkpoint's: 0 on taught trees, else 0.5), got " +
                                    std::to_string(m_rescoreShare));
    }
    m_decoding.rescoreShare = m_rescoreShare >= 0                          ? m_rescoreShare
                              : m_policy->GetTaughtTrees(topology).empty() ? 0.5
                                                                           : 0.0;
    NS_LOG_INFO("drl: " << m_decoding.DescribeModel());
    m_policy->CheckSees(topology, m_loadedPath);
    m_policy->SetRescoreShare(m_decoding.rescoreShare);
    return *m_policy;
}

namespace
{

/// \return true when both sets have the same workloads on the same paths
bool
SamePaths(const WorkloadSet& a, const WorkloadSet& b)
{
    if (a.GetN() != b.GetN() || a.GetPieces() != b.GetPieces())
    {
        return false;
    }
    for (uint32_t id = 0; id < a.GetN(); ++id)
    {
        if (a.Get(id).path != b.Get(id).path)
        {
            return false;
        }
    }
    return true;
}

} // namespace

void
DrlScheduler::Prepare(const WorkloadSet& workloads)
{
    GetPolicy(workloads.GetTopology());
    m_env = std::make_unique<DrlEnvironment>(workloads);
    m_rng.seed(m_seed);
    m_follower = nullptr;
    m_heldAt = NO_INDEX;
    m_decoding.decisions = 0;
    m_decoding.replans = 0;
    m_decoding.unplannable = 0;
    m_decoding.kept = 0;
    m_decoding.replanScheduled = 0;
    m_decoding.lastReplan.clear();
    m_decoding.greedy = m_online == GREEDY;
    m_decoding.followsPlan = m_online == PLAN && m_hasPlan && SamePaths(m_plan.workloads, workloads);
    if (m_decoding.followsPlan)
    {
        Follow(m_plan.schedule, workloads);
    }
}

void
DrlScheduler::SelectRound(SchedulerState& state)
{
    if (!m_env)
    {
        throw std::logic_error("drl: SelectRound before Prepare");
    }
    ++m_decoding.decisions;
    if (m_online == GREEDY)
    {
        m_env->Observe(state);
        if (!m_env->IsDone())
        {
            m_policy->ActRound(*m_env, DrlPolicy::Mode::GREEDY, m_rng);
        }
        return;
    }
    if (state.IsDone())
    {
        return;
    }
    const Departure departure = Depart(state);
    // Held up where a search already kept the plan: follow it (working ahead) until the plan
    // breaks, the frontier moves, or a round's worth of workloads (the plan's mean round) has
    // finished since, so that the searches stay a few per round in async mode too.
    const auto& planned = m_follower ? m_follower->GetPlan().schedule : m_plan.schedule;
    const uint32_t roundSize =
        planned.GetNRounds() == 0 ? 1 : state.GetWorkloads().GetN() / planned.GetNRounds();
    const bool searchedHere = departure.frontier == m_heldAt &&
                              state.GetNDone() < m_heldDone + std::max<uint32_t>(1, roundSize);
    if (!departure.why.empty() && (departure.broken || !searchedHere))
    {
        Replan(state, departure);
    }
    if (m_follower)
    {
        m_follower->SetOrder(state.HasBarriers() ? ReplayScheduler::ROUNDS
                                                 : ReplayScheduler::LIST);
        m_follower->SelectRound(state);
    }
}

void
DrlScheduler::Follow(Schedule rounds, const WorkloadSet& workloads)
{
    m_follower = CreateObject<ReplayScheduler>();
    m_follower->SetAttribute("File", StringValue("")); // whatever the default, this plan
    m_follower->SetWorkAhead(true);
    m_heldAt = NO_INDEX;
    m_follower->SetSchedule(std::move(rounds));
    m_follower->Prepare(workloads);
    m_plannedPaths.resize(workloads.GetN());
    for (uint32_t id = 0; id < workloads.GetN(); ++id)
    {
        m_plannedPaths[id] = workloads.Get(id).path.ToVector();
    }
}

DrlScheduler::Departure
DrlScheduler::Depart(const SchedulerState& state)
{
    if (!m_follower)
    {
        return {"no plan yet", true};
    }
    const WorkloadSet& workloads = state.GetWorkloads();
    const auto& rounds = m_follower->GetPlan().schedule.rounds;
    const uint32_t frontier = m_follower->GetFrontier(state);
    if (frontier == rounds.size())
    {
        return {"the plan is used up", true};
    }
    // Links our own transfers hold: in async mode, waiting for them is part of the plan.
    std::vector<uint8_t> own(workloads.GetNDirectedLinks(), 0);
    for (uint32_t id : state.GetStarted())
    {
        for (uint32_t l : workloads.Get(id).links)
        {
            own[l] = 1;
        }
    }
    const std::vector<uint32_t> late = state.GetAwaitingGradient();
    // Where rounds are barriers, the round to start must start whole, unless a late gradient
    // lets some of it join the round in flight. A broken plan goes before a held-up one.
    const bool whole = state.HasBarriers() && state.GetStarted().empty();
    std::vector<uint8_t> planned(workloads.GetNDirectedLinks(), 0);
    Departure heldUp;
    for (uint32_t id : rounds[frontier])
    {
        const WorkloadStatus status = state.GetStatus(id);
        if (status == WorkloadStatus::STARTED || status == WorkloadStatus::DONE)
        {
            continue;
        }
        const Workload& w = workloads.Get(id);
        if (w.path != m_plannedPaths[id])
        {
            return {workloads.Describe(id) + " was routed around a link that is down", true, frontier};
        }
        if (heldUp.why.empty() && std::binary_search(late.begin(), late.end(), id))
        {
            heldUp = {workloads.Describe(id) + " waits for a late gradient", false, frontier};
        }
        for (uint32_t l : w.links)
        {
            if (state.IsLinkDown(l))
            {
                return {workloads.Describe(id) + " needs directed link " + std::to_string(l) +
                            ", which is down",
                        true,
                        frontier};
            }
            if (heldUp.why.empty() && state.IsLinkBusy(l) && !own[l])
            {
                heldUp = {workloads.Describe(id) + " needs directed link " + std::to_string(l) +
                              ", which other traffic holds",
                          false,
                          frontier};
            }
            if (whole && planned[l]++)
            {
                return {"planned round " + std::to_string(frontier) + " uses directed link " +
                            std::to_string(l) + " twice",
                        true,
                        frontier};
            }
        }
        if (whole && status == WorkloadStatus::WAITING &&
            !std::binary_search(late.begin(), late.end(), id))
        {
            return {workloads.Describe(id) + " of the round to start is not ready", true, frontier};
        }
    }
    return heldUp;
}

Plan
DrlScheduler::Search(DrlEnvironmentPool& pool,
                     uint64_t budget,
                     uint64_t seed,
                     DrlDecodeStats& stats,
                     DrlRolloutStats& rollout,
                     bool progress)
{
    if (progress)
    {
        m_searchProgress("episode", 0, m_samples + 1, 0);
    }
    Plan plan = m_policy->Decode(pool,
                                 m_samples,
                                 seed,
                                 &stats,
                                 budget,
                                 [this, progress](uint32_t done, uint32_t episodes, uint32_t best) {
                                     if (progress)
                                     {
                                         m_searchProgress("episode", done, episodes, best);
                                     }
                                 });
    const uint64_t left = stats.budget - std::min(stats.budget, stats.scheduled);
    const uint32_t incumbent = plan.schedule.GetNRounds();
    plan = DrlRollout(*m_policy,
                      pool,
                      std::move(plan),
                      m_rolloutBranches,
                      seed,
                      left,
                      &rollout,
                      [this, incumbent, progress](uint32_t rounds, uint32_t best) {
                          if (progress)
                          {
                              m_searchProgress("rollout", rounds, incumbent, best);
                          }
                      });
    const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
    if (!check.valid)
    {
        throw std::logic_error("drl: the policy's schedule is invalid (" + check.error +
                               "); please report this");
    }
    return plan;
}

void
DrlScheduler::Replan(const SchedulerState& state, const Departure& departure)
{
    const std::string& why = departure.why;
    auto env = std::make_unique<DrlEnvironment>(state.GetWorkloads());
    if (!env->StartFrom(state))
    {
        // Nothing can start now: wait on the plan there is (a transfer, a gradient or a link
        // will bring the next decision).
        ++m_decoding.unplannable;
        NS_LOG_INFO("drl at t=" << state.GetTime() << " s: " << why
                                << "; nothing can start now: waits on the plan");
        m_replan(state.GetTime(), why, 0, false);
        return;
    }
    const uint64_t seed = DrlPolicy::SampleSeed(m_seed, 1 + m_decoding.replans);
    DrlDecodeStats stats;
    DrlRolloutStats rollout;
    DrlEnvironmentPool pool(
        *env,
        [&state]() {
            auto twin = std::make_unique<DrlEnvironment>(state.GetWorkloads());
            if (!twin->StartFrom(state))
            {
                throw std::logic_error("drl: a twin environment cannot start where the search "
                                       "does; please report this");
            }
            return twin;
        },
        m_threads);
    const Plan plan = Search(pool, m_replanBudget, seed, stats, rollout, false);
    Schedule next;
    const auto& rounds = plan.schedule.rounds;
    next.rounds.assign(rounds.begin() + std::min<size_t>(env->GetStartRound(), rounds.size()),
                       rounds.end());
    ++m_decoding.replans;
    m_decoding.replanScheduled += stats.scheduled + rollout.scheduled;
    m_decoding.lastReplan = why;
    if (!departure.broken)
    {
        const auto left = static_cast<uint32_t>(m_follower->GetPlan().schedule.GetNRounds() -
                                                m_follower->GetFrontier(state));
        if (next.GetNRounds() > left)
        {
            ++m_decoding.kept;
            m_heldAt = departure.frontier;
            m_heldDone = state.GetNDone();
            NS_LOG_INFO("drl at t=" << state.GetTime() << " s: " << why << "; kept the plan ("
                                    << left << " rounds left; the search found "
                                    << next.GetNRounds() << ")");
            m_replan(state.GetTime(), why, next.GetNRounds(), false);
            return;
        }
    }
    NS_LOG_INFO("drl at t=" << state.GetTime() << " s: " << why << "; searched again: "
                            << next.GetNRounds() << " rounds from here");
    m_replan(state.GetTime(), why, next.GetNRounds(), true);
    Follow(std::move(next), state.GetWorkloads());
}

Plan
DrlScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    WorkloadSet::CheckSize(topology, WorkloadSemantics::MERGE, pieces); // before the trees
    const DrlPolicy& policy = GetPolicy(topology);
    // Trees taught on this topology (the flat-tree search's) are not copies by any symmetry.
    const std::vector<std::vector<FlowTree>> taught = policy.GetTaughtTrees(topology);
    const ServerTranslations translations = m_symmetric && taught.empty()
                                                ? ServerTranslations::Find(topology)
                                                : ServerTranslations();
    const DrlEnvironmentPool::Maker make = [&]() {
        return translations.IsEmpty() ? MakeDrlEnvironment(topology,
                                                           policy.GetTreesPerRoot(),
                                                           policy.GetTreeSeed(),
                                                           pieces,
                                                           taught)
                                      : MakeSymmetricDrlEnvironment(topology,
                                                                    translations,
                                                                    policy.GetTreesPerRoot(),
                                                                    policy.GetTreeSeed(),
                                                                    pieces);
    };
    auto env = make();
    m_decoding.symmetry = translations.GetDescription();
    m_decoding.taught = !taught.empty();
    DrlDecodeStats stats;
    DrlEnvironmentPool pool(*env, make, m_threads);
    Plan plan = Search(pool, m_searchBudget, m_seed, stats, m_decoding.rollout, true);
    m_decoding.searched = true;
    m_decoding.threads = std::min(pool.GetThreads(), DrlPolicy::SEARCH_WAVE);
    m_decoding.samples = m_samples;
    m_decoding.finished = stats.finished;
    m_decoding.cut = stats.cut;
    m_decoding.skipped = stats.skipped;
    m_decoding.budget = stats.budget;
    m_decoding.sampledRounds = m_decoding.rollout.incumbent;
    m_searchProgress("done", 0, 0, plan.schedule.GetNRounds());
    plan.schedule.scheduler = GetName();
    m_plan = plan;
    m_hasPlan = true;
    return plan;
}

#else // ALLREDUCE_HAVE_TORCH

std::string
GetDrlCheckpointInfo(const std::string& /* path */)
{
    throw std::runtime_error(GetDrlUnavailableReason());
}

const DrlPolicy&
DrlScheduler::GetPolicy(const Topology& /* topology */)
{
    throw std::runtime_error(GetDrlUnavailableReason());
}

void
DrlScheduler::Prepare(const WorkloadSet& workloads)
{
    GetPolicy(workloads.GetTopology());
}

void
DrlScheduler::SelectRound(SchedulerState& /* state */)
{
    throw std::runtime_error(GetDrlUnavailableReason());
}

Plan
DrlScheduler::MakePlan(const Topology& topology, uint32_t /* pieces */)
{
    GetPolicy(topology);
    return Plan();
}

#endif // ALLREDUCE_HAVE_TORCH

} // namespace ns3
