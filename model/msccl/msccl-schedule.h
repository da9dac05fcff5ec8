/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_MSCCL_SCHEDULE_H
#define NS3_ALLREDUCE_MSCCL_SCHEDULE_H

#include "msccl-algorithm.h"

#include "ns3/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-msccl
 * An MSCCL algorithm as a plan on a topology (doc/allreduce.rst, "MSCCL algorithm files").
 */
struct MscclImport
{
    Plan plan;          //!< the workloads (msccl semantics) and their rounds
    std::string note;   //!< how ranks and chunks were mapped, for the user
};

/**
 * \ingroup allreduce-msccl
 * Turns an MSCCL AllReduce into workloads on a topology, after SimulateMscclAlgorithm checked
 * it: rank i runs on server ranks[i] (on servers 0..n-1 when ranks is empty); where that is not
 * every server in order, the plan is on the JobView of those servers (the others relay). The
 * algorithm's C chunks become the model's N chunks of k pieces, k = lcm(C, N) / N, each MSCCL
 * chunk lcm(C, N) / C consecutive pieces. Every chunk a send step moves becomes a workload per
 * piece from its rank's server to its peer's along the shortest-path flow tree of the peer,
 * carrying what the simulation found in it (the complete sum: a gather workload); its
 * dependencies are its transfer's (MscclTransfer::deps), piece by piece. The rounds are a
 * list schedule of the workloads, earliest-ready first (by depth, then in the order the
 * algorithm sends them).
 * \param algorithm the algorithm
 * \param source its file, for errors
 * \param topology the topology (no aggregating switches)
 * \param ranks per rank, its server (empty: rank i on server i)
 * \return the plan, and a note on the mapping
 * \throws std::invalid_argument for an algorithm that is wrong (the first rank, chunk and step),
 *         ranks that do not fit the topology, or a topology with aggregating switches
 */
MscclImport ImportMscclAlgorithm(const MscclAlgorithm& algorithm,
                                 const std::string& source,
                                 const Topology& topology,
                                 const std::vector<uint32_t>& ranks);

/**
 * \ingroup allreduce-msccl
 * Writes a schedule as an MSCCL AllReduce (doc/allreduce.rst, "MSCCL algorithm files"): one rank
 * per server, in place, chunk c piece p as MSCCL chunk c·k + p. A workload is a send step (s) on
 * its sender and a receive on its receiver: rrc (receive, add, store) for a reduce workload, r
 * (receive, store) for a gather. Each rank has one threadblock per peer and channel (the
 * executor runs no more: CheckMscclExecutorRules); workloads between the same two servers in one
 * round take channels 0, 1, ..., and where a threadblock would pass the executor's 64 steps,
 * the later workloads between its two servers take another channel. Steps run in round order,
 * and depend (depid, or nop steps for more than one) on the steps of their rank that must come
 * first: a send on the last receive into its chunk, a receive on the sends of its chunk since
 * then; and, where that is what holds a workload back, on a step of its rank that ends in the
 * round before, so that importing the file gives the same rounds.
 * \param workloads the workloads (servers only: no aggregating switch sends or receives)
 * \param schedule their valid schedule
 * \param[out] unpinned when given, the workloads whose round the file could not pin that way
 * \return the algorithm
 * \throws std::invalid_argument for an invalid schedule, aggregating switches, or sizes beyond
 *         MSCCL's
 */
MscclAlgorithm ExportMscclAlgorithm(const WorkloadSet& workloads,
                                    const Schedule& schedule,
                                    uint32_t* unpinned = nullptr);

/**
 * \ingroup allreduce-msccl
 * Exports a schedule (ExportMscclAlgorithm), checks the algorithm by simulating it, and writes
 * it to a file.
 * \param path the file
 * \param workloads the workloads
 * \param schedule their schedule
 * \throws std::invalid_argument when it cannot be exported or written
 */
void WriteMscclFile(const std::string& path, const WorkloadSet& workloads, const Schedule& schedule);

/**
 * \ingroup allreduce-msccl
 * \param path a file name
 * \return true when it ends in ".xml" (any case): an MSCCL algorithm file
 */
bool IsMscclPath(const std::string& path);

/**
 * \ingroup allreduce-msccl
 * \param path a file to read
 * \return true when its text starts with '<' (after a byte-order mark and blanks): XML, so an
 *         MSCCL algorithm rather than a JSON schedule file (false when it cannot be read)
 */
bool IsMscclFile(const std::string& path);

} // namespace ns3

#endif /* NS3_ALLREDUCE_MSCCL_SCHEDULE_H */
