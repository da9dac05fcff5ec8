/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PACKET_REPORT_H
#define NS3_ALLREDUCE_PACKET_REPORT_H

#include "allreduce-experiment.h"

#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * Prints one packet-level run for a person (allreduce-packet): the network, the schedule, the
 * completion time beside the flow-level prediction, traffic, link utilization, the simulation's
 * cost and the verification.
 * \param os where to print
 * \param plan the plan that ran (its topology, scheduler and workloads: the report's run will do)
 * \param config its settings
 * \param report what the run produced
 */
void PrintPacketReport(std::ostream& os,
                       const Plan& plan,
                       const PacketRunConfig& config,
                       const PacketRunReport& report);

/**
 * \ingroup allreduce-experiment
 * Writes the same as one JSON object, with every data flow and round.
 * \param os where to write
 * \param plan the plan that ran (its topology, scheduler and workloads: the report's run will do)
 * \param config its settings
 * \param report what the run produced
 * \param figure the round figure's file, or empty
 */
void WritePacketReportJson(std::ostream& os,
                           const Plan& plan,
                           const PacketRunConfig& config,
                           const PacketRunReport& report,
                           const std::string& figure);

/**
 * \ingroup allreduce-experiment
 * Draws each round's packet-level duration (first start to last finish) beside T_S, the
 * flow-level time of a round.
 * \param prefix output prefix (PREFIX.dat, .plt, .png)
 * \param plan the plan that ran (its topology, scheduler and workloads: the report's run will do)
 * \param config its settings
 * \param report what the run produced
 * \return what was made (BarChart::Write)
 */
std::string WritePacketRoundsFigure(const std::string& prefix,
                                    const Plan& plan,
                                    const PacketRunConfig& config,
                                    const PacketRunReport& report);

} // namespace ns3

#endif /* NS3_ALLREDUCE_PACKET_REPORT_H */
