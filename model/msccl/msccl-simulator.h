/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_MSCCL_SIMULATOR_H
#define NS3_ALLREDUCE_MSCCL_SIMULATOR_H

#include "msccl-algorithm.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-msccl
 * One chunk moved from one rank to another by a send step of an MSCCL algorithm.
 */
struct MscclTransfer
{
    uint32_t src{0};   //!< sending rank
    uint32_t dst{0};   //!< receiving rank
    uint32_t chunk{0}; //!< the input chunk (0..nchunksperloop-1) whose data it carries
    std::vector<uint32_t> carries; //!< ranks whose contributions it carries, ascending
    uint32_t threadblock{0}; //!< the sending step's threadblock (on src)
    uint32_t step{0};        //!< the sending step
    int64_t round{-1};       //!< the sending step's round hint (MscclStep::round)
    std::vector<uint32_t> path; //!< the sending step's path hint (MscclStep::path)
    /// Transfers that finish before it starts: through the steps before it in its threadblock,
    /// the steps they wait for (depid, deps) and the receives they make, ascending.
    std::vector<uint32_t> deps;
};

/**
 * \ingroup allreduce-msccl
 * Runs an MSCCL algorithm on symbolic data (doc/allreduce.rst, "MSCCL algorithm files"): each
 * chunk slot of each rank's buffers holds the input chunk it is a part of and the set of ranks
 * whose contributions it sums. Steps run in an order the executor could run them in: a step
 * after the one before it in its threadblock and after the step it waits for (depid, deps); a
 * receive after the matching send (the k-th send from rank a to rank b on a channel meets the
 * k-th receive at b from a on it: one threadblock of a sends to b on the channel, one of b
 * receives from a on it). Sends are buffered. It checks CheckMscclExecutorRules first (which
 * refuses two threadblocks on one connection, as the executor cannot run them), then that
 *  - every step reads data (no slot read before anything was written to it) and a reduce adds
 *    parts of the same input chunk with no contribution twice;
 *  - every receive has its send and every send its receive, with the same cnt;
 *  - the steps do not deadlock;
 *  - at the end every rank holds the full sum of every input chunk, in its input buffer (in
 *    place) or its output buffer.
 *
 * Steps that no dependency orders against each other run in one deterministic order; whether
 * another order would give another result is not checked.
 * \param algorithm the algorithm (as ParseMscclXml checked it)
 * \param source name used in errors (a file name)
 * \return every chunk moved, in the order the sends ran
 * \throws std::invalid_argument naming the source and the first rank, chunk and step that is
 *         wrong
 */
std::vector<MscclTransfer> SimulateMscclAlgorithm(const MscclAlgorithm& algorithm,
                                                  const std::string& source);

} // namespace ns3

#endif /* NS3_ALLREDUCE_MSCCL_SIMULATOR_H */
