/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-scheduler.h"

#include "drl-environment.h"
#include "drl-policy.h"
#include "scheduler-registry.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cctype>
#include <fstream>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#ifndef ALLREDUCE_SOURCE_MODEL_DIR
#define ALLREDUCE_SOURCE_MODEL_DIR "models"
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

std::string
GetDrlModelName(const std::string& topologyName)
{
    std::string lower;
    for (char c : topologyName)
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

std::string
GetDrlModelDirectory()
{
    const char* env = std::getenv("ALLREDUCE_MODEL_DIR");
    return env && *env ? std::string(env) : std::string(ALLREDUCE_SOURCE_MODEL_DIR);
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
    if (finished + cut == 0)
    {
        return "";
    }
    std::ostringstream os;
    os << "greedy + " << samples << " sampled episodes: " << finished << " ran to the end, "
       << cut << " stopped once they could not beat the best; rescore share " << rescoreShare;
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
            .AddAttribute("Seed",
                          "Seed of the sampled episodes",
                          UintegerValue(1),
                          MakeUintegerAccessor(&DrlScheduler::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RescoreShare",
                          "The lower policy scores the pickable candidates once and picks in "
                          "the order of its scores until this share of them is picked or "
                          "blocked, then scores again (0: after every pick, as in training)",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&DrlScheduler::m_rescoreShare),
                          MakeDoubleChecker<double>(0.0, 1.0));
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

#ifdef ALLREDUCE_HAVE_TORCH

std::string
GetDrlCheckpointInfo(const std::string& path)
{
    return DrlPolicy::Load(path).GetInfo();
}

const DrlPolicy&
DrlScheduler::GetPolicy(const Topology& topology)
{
    const std::string& topologyName = topology.GetName();
    const std::string path = GetModelPath(topologyName);
    if (m_model.empty() && !std::ifstream(path).good())
    {
        throw std::runtime_error(
            "drl: no checkpoint ships for " + topologyName + " and the general one is missing " +
            "(looked for " + GetDrlModelDirectory() + "/" + GetDrlModelName(topologyName) +
            ".pt and " + path + "); train one with `allreduce-train --topology=SPEC --out=DIR` "
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
    m_decoding.model = path;
    m_decoding.topology = topologyName;
    m_decoding.info = m_policy->GetInfo();
    m_decoding.rescoreShare = m_rescoreShare;
    NS_LOG_INFO("drl: " << m_decoding.DescribeModel());
    m_policy->CheckSees(topology, m_loadedPath);
    m_policy->SetRescoreShare(m_rescoreShare);
    return *m_policy;
}

void
DrlScheduler::Prepare(const WorkloadSet& workloads)
{
    GetPolicy(workloads.GetTopology());
    m_decoding.samples = m_decoding.finished = m_decoding.cut = 0; // online: no search
    m_env = std::make_unique<DrlEnvironment>(workloads);
    m_rng.seed(m_seed);
}

void
DrlScheduler::SelectRound(SchedulerState& state)
{
    if (!m_env)
    {
        throw std::logic_error("drl: SelectRound before Prepare");
    }
    m_env->Observe(state);
    if (!m_env->IsDone())
    {
        m_policy->ActRound(*m_env, DrlPolicy::Mode::GREEDY, m_rng);
    }
}

Plan
DrlScheduler::MakePlan(const Topology& topology, uint32_t pieces)
{
    const DrlPolicy& policy = GetPolicy(topology);
    auto env = MakeDrlEnvironment(topology, policy.GetTreesPerRoot(), policy.GetTreeSeed(), pieces);
    std::pair<uint32_t, uint32_t> stats;
    Plan plan = policy.Decode(*env, m_samples, m_seed, &stats);
    m_decoding.samples = m_samples;
    m_decoding.finished = stats.first;
    m_decoding.cut = stats.second;
    plan.schedule.scheduler = GetName();
    const ScheduleCheck check = ValidateSchedule(plan.workloads, plan.schedule);
    if (!check.valid)
    {
        throw std::logic_error("drl: the policy's schedule is invalid (" + check.error +
                               "); please report this");
    }
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
