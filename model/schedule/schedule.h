/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SCHEDULE_H
#define NS3_ALLREDUCE_SCHEDULE_H

#include "ns3/workload.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-schedule Schedules
 * \ingroup allreduce
 * Schedules and plans: the validator that simulates the data, the lower bounds and schedule files
 * (doc/allreduce.rst, "Validator and schedule files").
 */

/**
 * \ingroup allreduce-schedule
 * A schedule: the workloads of each round, in order (doc/allreduce.rst, "Rounds, the round engine
 * and bounds"), and the scheduler that made it.
 */
struct Schedule
{
    std::string scheduler;                     //!< name of the scheduler that made it
    std::vector<std::vector<uint32_t>> rounds; //!< workload ids per round

    /// \return the number of rounds
    uint32_t GetNRounds() const
    {
        return static_cast<uint32_t>(rounds.size());
    }
};

/**
 * \ingroup allreduce-schedule
 * The verdict of ValidateSchedule.
 */
struct ScheduleCheck
{
    bool valid{false}; //!< true when every rule holds
    std::string error; //!< the first broken rule, naming the round and workload (empty if valid)
};

/**
 * \ingroup allreduce-schedule
 * Checks a schedule against its workloads, by simulating the data each server holds:
 *  - every workload is scheduled exactly once, and ids exist;
 *  - no two workloads of a round use the same directed link;
 *  - every dependency finished in an earlier round;
 *  - a workload carries only data its sender holds at the start of the round (a gather
 *    workload's sender must hold the complete sum), and a reduce workload never adds a
 *    contribution its receiver already holds (no contribution added twice);
 *  - at the end every server holds the full sum (every server's contribution) of every chunk
 *    piece.
 * \param workloads the workloads
 * \param schedule the schedule
 * \return the verdict; never throws for a bad schedule
 */
ScheduleCheck ValidateSchedule(const WorkloadSet& workloads, const Schedule& schedule);

/**
 * \ingroup allreduce-schedule
 * Lower bounds on the rounds of any schedule (doc/allreduce.rst, "Rounds, the round engine and
 * bounds").
 */
struct RoundBounds
{
    uint32_t bandwidth{0}; //!< ceil(2·N·(N−1)·k / Σ ports of servers), for any AllReduce
    uint32_t links{0};     //!< the most workloads one directed link carries, for these workloads
    uint32_t path{0};      //!< workloads in the longest dependency chain, for these workloads

    /// \return the largest of the three
    uint32_t GetMax() const;
};

/**
 * \ingroup allreduce-schedule
 * \param workloads the workloads in use
 * \return the three bounds
 */
RoundBounds ComputeBounds(const WorkloadSet& workloads);

/**
 * \ingroup allreduce-schedule
 * \param topology a topology
 * \param pieces pieces per chunk
 * \return the bandwidth bound ceil(2·N·(N−1)·k / Σ ports of servers), or with aggregating
 *         switches ceil(N·N·k / Σ ports of servers) (0 for one server)
 */
uint32_t ComputeBandwidthBound(const Topology& topology, uint32_t pieces);

/**
 * \ingroup allreduce-schedule
 * The lower bound that holds for every AllReduce on the topology, whatever its flow trees,
 * semantics or scheduler (doc/allreduce.rst, "The exact scheduler": certified bounds).
 * \param topology a topology
 * \param pieces pieces per chunk
 * \return the larger of the bandwidth bound and 2 (a sum is complete only in a round after
 *         the last contribution to it was sent, and goes out in a later one); 0 for one server
 */
uint32_t ComputeCertifiedBound(const Topology& topology, uint32_t pieces);

/// Format tag of schedule files (doc/allreduce.rst, "Validator and schedule files").
extern const char* const SCHEDULE_FORMAT;

/**
 * \ingroup allreduce-schedule
 * Writes the schedule file (doc/allreduce.rst, "Validator and schedule files"): the topology (name,
 * servers, nodes, links), pieces, whether servers merge, the semantics, the scheduler, every
 * workload and the rounds.
 * \param os where to write
 * \param workloads the workloads
 * \param schedule the schedule
 */
void WriteScheduleJson(std::ostream& os, const WorkloadSet& workloads, const Schedule& schedule);

/**
 * \ingroup allreduce-schedule
 * \param path file to write
 * \param workloads the workloads
 * \param schedule the schedule
 * \throws std::invalid_argument when the file cannot be written
 */
void WriteScheduleFile(const std::string& path,
                       const WorkloadSet& workloads,
                       const Schedule& schedule);

/**
 * \ingroup allreduce-schedule
 * A schedule file's content: its workloads (with their topology) and its schedule.
 */
struct ScheduleFile
{
    WorkloadSet workloads; //!< the workloads, checked against the file's topology
    Schedule schedule;     //!< the rounds as written (not yet validated)
    /**
     * Per model node id, the node's id in the file. The model numbers servers first: servers
     * in the order of their file ids, then switches likewise, so a file with servers first
     * from 0 keeps its ids. A chunk is named in the file by its owner's file id.
     */
    std::vector<uint32_t> nodeIds;
};

/**
 * \ingroup allreduce-schedule
 * Reads a schedule file. The structure is checked (fields, types, the topology, each
 * workload against it); whether the schedule is valid is ValidateSchedule's job.
 * \param is the JSON text
 * \param source name used in errors (a file name)
 * \return the content
 * \throws std::invalid_argument naming the source and the field or workload that is wrong
 */
ScheduleFile ReadScheduleJson(std::istream& is, const std::string& source);

/**
 * \ingroup allreduce-schedule
 * Reads a schedule file from its text (as ReadScheduleJson does from a stream). A UTF-8
 * byte-order mark is skipped, and values nested deeper than a schedule file's structure are
 * refused before they are built.
 * \param text the JSON text
 * \param source name used in errors (a file name)
 * \return the content
 * \throws std::invalid_argument naming the source and the field or workload that is wrong
 */
ScheduleFile ParseScheduleJson(std::string text, const std::string& source);

/**
 * \ingroup allreduce-schedule
 * \param path a schedule file
 * \return its content
 * \throws std::invalid_argument when it cannot be read (named: missing, a directory, too
 *         large, a read error) or is malformed
 */
ScheduleFile ReadScheduleFile(const std::string& path);

} // namespace ns3

#endif /* NS3_ALLREDUCE_SCHEDULE_H */
