/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DISTRIBUTED_RUN_H
#define NS3_ALLREDUCE_DISTRIBUTED_RUN_H

#include "mpi-launch.h"

#include "ns3/topology-partition.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

struct PacketRunConfig;
struct PacketRunReport;
struct Plan;

/**
 * \ingroup allreduce-experiment
 * One rank of a distributed run: what it held and what it cost.
 */
struct RankReport
{
    uint32_t nodes{0};      //!< nodes it simulated
    uint32_t servers{0};    //!< of which servers
    uint64_t events{0};     //!< simulator events it executed
    double wallSeconds{0};  //!< wall-clock time of its Simulator::Run
    uint64_t peakBytes{0};  //!< its process's peak resident memory when its run ended
};

/// \return this process's peak resident memory so far, in bytes (getrusage)
uint64_t GetPeakResidentBytes();

/**
 * \ingroup allreduce-experiment
 * How a distributed run was spread (doc/allreduce.rst, "Distributed runs").
 */
struct DistributedReport
{
    std::string partition;     //!< "groups" or "metis"
    std::string synchronizer;  //!< "granted-time-window" or "null-message" (one rank: none)
    uint32_t cutLinks{0};      //!< links between two ranks
    double lookaheadS{0};      //!< the smallest delay of a cut link (0: none cut)
    std::vector<RankReport> ranks; //!< per rank
};

/// \return whether this build's ns-3 has its MPI module (the in-tree build, --enable-mpi)
bool HasDistributedSimulator();

/**
 * \ingroup allreduce-experiment
 * The distributed simulator of one program run (allreduce-packet): started, when MPI's world
 * has more than one rank, before anything of ns-3 is built, and stopped (MPI_Finalize) when it
 * goes out of scope. On one process it starts nothing: a distributed run there uses ns-3's
 * default simulator, with the same timing.
 */
class DistributedSession
{
  public:
    /**
     * \param program the program's name, for messages
     * \param config the run's settings; distributed is set when MPI's world has more than one
     *        rank
     * \throws std::invalid_argument when MPI's world has more than one rank and this ns-3 has
     *         no MPI module, or the synchronizer is unknown
     */
    DistributedSession(const std::string& program, PacketRunConfig& config);
    ~DistributedSession();
    DistributedSession(const DistributedSession&) = delete;
    DistributedSession& operator=(const DistributedSession&) = delete;

    /// \return whether this process prints the report (rank 0)
    bool IsReporter() const;

  private:
    bool m_enabled{false}; //!< MPI started here
};

/**
 * \ingroup allreduce-experiment
 * Refuses the settings a distributed run cannot honour (see DistributedDriver and
 * doc/allreduce.rst, "Distributed runs"), each with what to do instead.
 * \param config the settings \param online a scheduler decides online
 * \throws std::invalid_argument for the first one
 */
void CheckDistributedConfig(const PacketRunConfig& config, bool online);

/**
 * \ingroup allreduce-experiment
 * \param topology the run's topology \param config the settings (partition)
 * \return the partition of the topology over the distributed simulator's ranks (1 on one
 *         process)
 */
TopologyPartition MakeRunPartition(const Topology& topology, const PacketRunConfig& config);

/**
 * \ingroup allreduce-experiment
 * Checks, before a distributed run, that every rank made the same plan and partition (a hash
 * of both, compared over MPI): a scheduler stopped by a wall-clock limit may plan differently
 * on each rank, and the ranks would then wait for transfers the others never start.
 * \param plan the plan \param partition the partition
 * \throws std::invalid_argument, on every rank, when they differ
 */
void CheckSameOnEveryRank(const Plan& plan, const TopologyPartition& partition);

/**
 * \ingroup allreduce-experiment
 * After a distributed run, makes every rank's report the whole run's: per-round times, bytes,
 * the verification (each rank checked its own servers) and the ranks' events and wall times
 * (DistributedReport); rank 0, which reports, also gets every transfer's times, and the other
 * ranks keep none. On one rank it only fills the DistributedReport.
 * \param partition the run's partition \param lookahead the smallest cut link delay, seconds
 * \param config its settings
 * \param planIds per workload of this rank's part, its id in the plan
 *        (AllReduceController::GetPlanIds; empty: the rank held the whole plan)
 * \param report this rank's report, made the whole run's (on rank 0 per-transfer times by the
 *        plan's ids, report.plannedWorkloads of them)
 */
void MergeDistributedReports(const TopologyPartition& partition,
                             double lookahead,
                             const PacketRunConfig& config,
                             const std::vector<uint32_t>& planIds,
                             PacketRunReport& report);

} // namespace ns3

#endif /* NS3_ALLREDUCE_DISTRIBUTED_RUN_H */
