/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "symmetric-program.h"

#include "candidate-trees.h"

#include "ns3/schedule.h"

#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

SymmetricProgramResult
ScheduleSymmetrically(const Topology& topology,
                      const ServerTranslations& translations,
                      const Plan& plan,
                      uint32_t rounds,
                      double seconds)
{
    if (translations.IsEmpty() || translations.GetNServers() != topology.GetNServers())
    {
        throw std::invalid_argument("ScheduleSymmetrically: no translations of this topology");
    }
    const WorkloadSet& ws = plan.workloads;
    std::map<std::tuple<uint32_t, int, uint32_t, uint32_t, uint32_t>, uint32_t> byKey;
    for (const Workload& w : ws.GetAll())
    {
        byKey[{w.chunk, static_cast<int>(w.phase), w.piece, w.src, w.dst}] = w.id;
    }
    const std::vector<uint32_t> linkOrbit = GetDirectedLinkOrbits(topology, translations);
    // Per workload of a representative root, its images (one per root of the orbit).
    std::vector<std::vector<uint32_t>> images(ws.GetN());
    std::vector<uint8_t> covered(ws.GetN(), 0);
    std::vector<std::vector<bool>> active(1, std::vector<bool>(ws.GetN(), false));
    for (const Workload& w : ws.GetAll())
    {
        if (translations.GetRepresentative(w.chunk) != w.chunk)
        {
            continue;
        }
        active[0][w.id] = true;
        for (uint32_t r = 0; r < topology.GetNServers(); ++r)
        {
            if (translations.GetRepresentative(r) != w.chunk)
            {
                continue;
            }
            const auto it = byKey.find({r,
                                        static_cast<int>(w.phase),
                                        w.piece,
                                        translations.Map(r, w.src),
                                        translations.Map(r, w.dst)});
            if (it == byKey.end() || covered[it->second])
            {
                throw std::invalid_argument("ScheduleSymmetrically: the plan's workloads are not "
                                            "copies by the translations (workload " +
                                            std::to_string(w.id) + ", root " + std::to_string(r) +
                                            ")");
            }
            covered[it->second] = 1;
            images[w.id].push_back(it->second);
        }
    }
    RoundProgramInstance instance;
    const std::vector<WorkloadSet> sets{ws};
    instance.sets = &sets;
    instance.roots = topology.GetNServers();
    instance.options.assign(instance.roots, {0});
    instance.active = active;
    instance.linkClass = linkOrbit;
    RoundProgram program(instance, rounds);
    const RoundProgram::Outcome out = program.Solve(seconds, 200000000);
    SymmetricProgramResult result;
    result.answer = out.answer;
    result.variables = out.variables;
    result.seconds = out.seconds;
    if (out.answer != RoundProgram::FEASIBLE)
    {
        return result;
    }
    std::vector<uint32_t> roundOf(ws.GetN(), NO_INDEX);
    for (uint32_t id = 0; id < ws.GetN(); ++id)
    {
        for (uint32_t image : images[id])
        {
            roundOf[image] = out.roundOf[0][id];
        }
    }
    Plan expanded{ws, CompactRounds(roundOf)};
    const ScheduleCheck check = ValidateSchedule(expanded.workloads, expanded.schedule);
    if (check.valid)
    {
        result.plan = std::move(expanded);
    }
    else
    {
        result.answer = RoundProgram::UNKNOWN; // a copy that conflicts: the orbits share links
    }
    return result;
}

} // namespace ns3
