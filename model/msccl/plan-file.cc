/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "plan-file.h"

#include "msccl-schedule.h"

#include "ns3/replay-scheduler.h"
#include "ns3/string.h"
#include "ns3/topology-generators.h"

#include <stdexcept>

namespace ns3
{

Plan
ReadPlanFile(const std::string& path,
             const std::string& topologySpec,
             const std::vector<uint32_t>& ranks,
             std::string* note)
{
    if (note)
    {
        note->clear();
    }
    if (IsMscclFile(path))
    {
        if (topologySpec.empty())
        {
            throw std::invalid_argument("'" + path + "' is an MSCCL algorithm, which names no "
                                        "topology: give --topology=SPEC (its ranks run on the "
                                        "first servers, or on --ranks=LIST)");
        }
        MscclImport imported = ImportMscclAlgorithm(ReadMscclFile(path), path,
                                                    BuildTopology(topologySpec), ranks);
        if (note)
        {
            *note = imported.note;
        }
        return std::move(imported.plan);
    }
    if (!ranks.empty())
    {
        throw std::invalid_argument("--ranks maps the ranks of an MSCCL algorithm file (.xml) to "
                                    "servers; '" + path + "' is a schedule file, whose workloads "
                                    "name their servers");
    }
    Ptr<ReplayScheduler> replay = CreateObject<ReplayScheduler>();
    replay->SetAttribute("File", StringValue(path));
    const WorkloadSet& file = replay->GetPlan().workloads;
    const Topology topology = topologySpec.empty() ? file.GetTopology() : BuildTopology(topologySpec);
    return replay->MakePlan(topology, file.GetPieces());
}

} // namespace ns3
