/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BAR_CHART_H
#define NS3_ALLREDUCE_BAR_CHART_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * A Gnuplot figure of clustered bars: one cluster per category (a topology, a round), one bar
 * per series (a scheduler), one panel per group of values (a controller mode), and an optional
 * horizontal reference line (the bound, the flow-level prediction). Write puts the data in
 * PREFIX.dat, the script in PREFIX.plt and, when gnuplot runs, the figure in PREFIX.png.
 *
 * Written by hand: ns-3's own Gnuplot class (stats module) has neither bar styles nor several
 * panels in one figure.
 */
class BarChart
{
  public:
    /**
     * \param ylabel the y axis' label
     * \param categories the x axis' labels, one cluster each
     * \param series the bars of each cluster, named in the key
     */
    BarChart(const std::string& ylabel,
             std::vector<std::string> categories,
             std::vector<std::string> series);

    /**
     * Adds a panel (one for a single figure).
     * \param title the panel's title
     * \param values per series, per category
     * \throws std::invalid_argument when the sizes differ from the series and categories
     */
    void AddPanel(const std::string& title, const std::vector<std::vector<double>>& values);

    /**
     * \param y where the line is
     * \param title its name in the key
     */
    void SetReferenceLine(double y, const std::string& title);

    /**
     * Marks an interval on every category of every panel (a bar from lower to upper at the
     * cluster's middle, e.g. the certified interval [lower bound, best known]).
     * \param lower per category, the interval's low end
     * \param upper per category, its high end
     * \param title its name in the key
     * \throws std::invalid_argument when the sizes differ from the categories
     */
    void SetIntervals(std::vector<double> lower,
                      std::vector<double> upper,
                      const std::string& title);

    /**
     * \param width the figure's width in pixels
     * \param panelHeight the height of each panel in pixels
     */
    void SetSize(uint32_t width, uint32_t panelHeight);

    /// \param step label only every step-th category (for many, e.g. rounds)
    void SetLabelStep(uint32_t step);

    /**
     * Writes PREFIX.dat and PREFIX.plt and runs gnuplot to draw PREFIX.png.
     * \param prefix the output prefix
     * \param option the option that gave the prefix, for the error when it cannot be written
     * \return a sentence saying what was made, or why there is no figure and where the data is
     */
    std::string Write(const std::string& prefix, const std::string& option = "out") const;

  private:
    std::string m_ylabel;                             //!< y axis label
    std::vector<std::string> m_categories;            //!< x labels
    std::vector<std::string> m_series;                //!< bar names
    std::vector<std::string> m_titles;                //!< per panel, its title
    std::vector<std::vector<std::vector<double>>> m_panels; //!< per panel, series, category
    bool m_hasLine{false};                            //!< whether there is a reference line
    double m_lineY{0};                                //!< where it is
    std::string m_lineTitle;                          //!< its name
    std::vector<double> m_low;                        //!< per category, interval low end
    std::vector<double> m_high;                       //!< per category, interval high end
    std::string m_intervalTitle;                      //!< the intervals' name (empty: none)
    uint32_t m_width{1100};                           //!< pixels
    uint32_t m_panelHeight{520};                      //!< pixels per panel
    uint32_t m_labelStep{1};                          //!< label every step-th category
};

/**
 * \ingroup allreduce-experiment
 * Runs gnuplot (the one found at configure time, else the one on PATH) on a script.
 * \param plt the script, which draws png from data
 * \param png the figure it draws
 * \param data the data it reads
 * \return a sentence saying what was made, or why there is no figure and where the data is
 */
std::string RunGnuplot(const std::string& plt, const std::string& png, const std::string& data);

/**
 * \ingroup allreduce-experiment
 * \param text a title or a name
 * \return it as a double-quoted gnuplot (and data file) string
 */
std::string GnuplotQuoted(const std::string& text);

} // namespace ns3

#endif /* NS3_ALLREDUCE_BAR_CHART_H */
