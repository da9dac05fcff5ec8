/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PAPER_TOPOLOGIES_H
#define NS3_ALLREDUCE_PAPER_TOPOLOGIES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * One row of the seed paper's Table 2, as printed: a topology, its size, and the rounds of
 * Parameter Server, Ring and the paper's RL scheduler. The paper's definitions of rounds and
 * workloads were looser than the manual's, so its rounds are for comparing trends.
 */
struct PaperTopology
{
    std::string spec;     //!< our spec of the topology (Jellyfish: seed 1)
    uint32_t nodes{0};    //!< nodes as printed
    uint32_t links{0};    //!< links as printed
    bool linksDiffer{false}; //!< the printed links are not what the topology has (a misprint)
    double ps{0};         //!< Parameter Server rounds
    double ring{0};       //!< Ring rounds
    double rl{0};         //!< the paper's RL scheduler's rounds

    /// \return "(nodes,links)" as the paper prints them, with '*' where they differ from ours
    std::string GetSizeText() const;
};

/**
 * \ingroup allreduce-experiment
 * \return the seed paper's Table 2: BCube(3..5,1), DCell(4..6,1) and Jellyfish with 10, 15 and
 *         20 switches (degree 4, one server each), in the paper's order
 */
const std::vector<PaperTopology>& GetPaperTopologies();

/**
 * \ingroup allreduce-experiment
 * \param spec a topology spec
 * \return its row of the paper's table, or nullptr when the paper does not evaluate it
 */
const PaperTopology* FindPaperTopology(const std::string& spec);

/**
 * \ingroup allreduce-experiment
 * \return the spec strings of the nine topologies the seed paper evaluates (GetPaperTopologies's)
 */
std::vector<std::string> PaperTopologySpecs();

} // namespace ns3

#endif /* NS3_ALLREDUCE_PAPER_TOPOLOGIES_H */
