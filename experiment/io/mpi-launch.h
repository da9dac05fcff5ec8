/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_MPI_LAUNCH_H
#define NS3_ALLREDUCE_MPI_LAUNCH_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * \return the ranks of the MPI world this process was started in, as mpirun (Open MPI, or a
 *         PMI launcher) tells it in the environment before MPI starts; 1 when it was not
 *         started by mpirun
 */
uint32_t GetLaunchRanks();

/**
 * \ingroup allreduce-experiment
 * \return this process's rank in that world (0 when it was not started by mpirun)
 */
uint32_t GetLaunchRank();

} // namespace ns3

#endif /* NS3_ALLREDUCE_MPI_LAUNCH_H */
