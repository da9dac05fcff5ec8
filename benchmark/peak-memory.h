/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BENCHMARK_PEAK_MEMORY_H
#define NS3_ALLREDUCE_BENCHMARK_PEAK_MEMORY_H

#include "distributed-run.h"

namespace ns3
{

/// \return the process's peak resident memory so far, in MiB (cases run in one process, so a
/// case's peak includes the larger cases run before it)
inline double
PeakRssMiB()
{
    return GetPeakResidentBytes() / 1048576.0;
}

} // namespace ns3

#endif /* NS3_ALLREDUCE_BENCHMARK_PEAK_MEMORY_H */
