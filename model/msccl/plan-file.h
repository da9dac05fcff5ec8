/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PLAN_FILE_H
#define NS3_ALLREDUCE_PLAN_FILE_H

#include "ns3/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-msccl
 * Reads a schedule file as a plan, as a ReplayScheduler with that File would replay it; or an
 * MSCCL algorithm file (text that starts with '<'), imported onto the topology
 * (ImportMscclAlgorithm).
 * \param path the file (doc/allreduce.rst, "Validator and schedule files", "MSCCL algorithm
 *        files")
 * \param topologySpec a topology spec the file must be for, or empty for the file's own (an
 *        MSCCL algorithm names none: it needs one)
 * \param ranks for an MSCCL algorithm, the server of each rank (empty: rank i on server i)
 * \param[out] note when given, how an MSCCL algorithm's ranks and chunks were mapped (or empty)
 * \return its workloads and rounds
 * \throws std::invalid_argument for a bad file, or one for another topology
 */
Plan ReadPlanFile(const std::string& path,
                  const std::string& topologySpec,
                  const std::vector<uint32_t>& ranks = {},
                  std::string* note = nullptr);

} // namespace ns3

#endif /* NS3_ALLREDUCE_PLAN_FILE_H */
