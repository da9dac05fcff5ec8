/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CDF_CHART_H
#define NS3_ALLREDUCE_CDF_CHART_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * A Gnuplot figure of empirical distributions: in each panel (a topology) one step line per
 * series (a placement and scheduling policy), the fraction of values at or below x. Write puts
 * the data in PREFIX.dat, the script in PREFIX.plt and, when gnuplot runs, the figure in
 * PREFIX.png.
 *
 * Written by hand beside BarChart, for the same reason: ns-3's Gnuplot class draws one plot per
 * figure, not several panels.
 */
class CdfChart
{
  public:
    /// \param xlabel the x axis' label (what is distributed, with its unit)
    explicit CdfChart(const std::string& xlabel);

    /**
     * Adds a panel.
     * \param title the panel's title
     * \param series per series its name and its values (any order)
     */
    void AddPanel(const std::string& title,
                  const std::vector<std::pair<std::string, std::vector<double>>>& series);

    /**
     * Writes PREFIX.dat and PREFIX.plt and runs gnuplot to draw PREFIX.png.
     * \param prefix the output prefix
     * \param option the option that gave the prefix, for the error when it cannot be written
     * \return a sentence saying what was made, or why there is no figure and where the data is
     */
    std::string Write(const std::string& prefix, const std::string& option = "out") const;

  private:
    std::string m_xlabel;              //!< x axis label
    std::vector<std::string> m_titles; //!< per panel, its title
    std::vector<std::vector<std::pair<std::string, std::vector<double>>>> m_panels; //!< series
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_CDF_CHART_H */
