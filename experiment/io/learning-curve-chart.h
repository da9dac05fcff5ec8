/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LEARNING_CURVE_CHART_H
#define NS3_ALLREDUCE_LEARNING_CURVE_CHART_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * The learning curve of a training run per topology family: for every family of the training
 * topologies (TopologyFamily: BCube, DCell, fat-tree, Jellyfish, random graphs, files), the mean
 * over its topologies of the decoded rounds over the bandwidth bound, one line per family
 * against the iteration, so that one sees whether what the general checkpoint learns helps
 * each kind of network. Drawn with ns-3's Gnuplot class (stats module): PREFIX.plt, PREFIX.dat
 * and, when gnuplot runs, PREFIX.png.
 */
class LearningCurveChart
{
  public:
    /**
     * \param names the training topologies' names
     * \param bounds per topology, its bandwidth bound
     * \throws std::invalid_argument when the sizes differ or a bound is 0
     */
    LearningCurveChart(const std::vector<std::string>& names, const std::vector<uint32_t>& bounds);

    /**
     * Adds an iteration.
     * \param iteration the iteration (0: after the warm start)
     * \param decoded per topology, its decoded rounds (empty: the iteration is left out, as
     *        rows resumed from a run that did not keep them)
     * \throws std::invalid_argument for another number of topologies
     */
    void Add(uint32_t iteration, const std::vector<uint32_t>& decoded);

    /// \return the families, in the order of their first topology
    const std::vector<std::string>& GetFamilies() const;

    /**
     * \param family one of GetFamilies()
     * \return per iteration added, (iteration, mean decoded rounds / bound over the family)
     */
    std::vector<std::pair<double, double>> GetCurve(const std::string& family) const;

    /**
     * Writes PREFIX.plt and PREFIX.dat and runs gnuplot to draw PREFIX.png.
     * \param prefix the output prefix
     * \param title the figure's title
     * \return a sentence saying what was made, or why there is no figure and where the data is
     */
    std::string Write(const std::string& prefix, const std::string& title) const;

  private:
    std::vector<std::string> m_families;            //!< in order of first appearance
    std::vector<uint32_t> m_familyOf;               //!< per topology, its family's index
    std::vector<uint32_t> m_bounds;                 //!< per topology, its bound
    std::vector<uint32_t> m_iterations;             //!< per iteration added, its number
    std::vector<std::vector<double>> m_ratios;      //!< per iteration added, per family
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LEARNING_CURVE_CHART_H */
