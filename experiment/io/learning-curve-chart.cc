/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "learning-curve-chart.h"

#include "bar-chart.h"

#include "ns3/gnuplot.h"
#include "ns3/text-file.h"
#include "ns3/topology.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ns3
{

LearningCurveChart::LearningCurveChart(const std::vector<std::string>& names,
                                       const std::vector<uint32_t>& bounds)
    : m_bounds(bounds)
{
    if (names.size() != bounds.size())
    {
        throw std::invalid_argument("learning curve: " + std::to_string(names.size()) +
                                    " topologies but " + std::to_string(bounds.size()) +
                                    " bounds");
    }
    for (size_t i = 0; i < names.size(); ++i)
    {
        if (bounds[i] == 0)
        {
            throw std::invalid_argument("learning curve: the bound of " + names[i] + " is 0");
        }
        const std::string family = TopologyFamily(names[i]);
        const auto it = std::find(m_families.begin(), m_families.end(), family);
        m_familyOf.push_back(static_cast<uint32_t>(it - m_families.begin()));
        if (it == m_families.end())
        {
            m_families.push_back(family);
        }
    }
}

void
LearningCurveChart::Add(uint32_t iteration, const std::vector<uint32_t>& decoded)
{
    if (decoded.empty())
    {
        return;
    }
    if (decoded.size() != m_bounds.size())
    {
        throw std::invalid_argument("learning curve: iteration " + std::to_string(iteration) +
                                    " has " + std::to_string(decoded.size()) +
                                    " topologies, the run has " +
                                    std::to_string(m_bounds.size()));
    }
    std::vector<double> sum(m_families.size(), 0);
    std::vector<uint32_t> count(m_families.size(), 0);
    for (size_t i = 0; i < decoded.size(); ++i)
    {
        sum[m_familyOf[i]] += static_cast<double>(decoded[i]) / m_bounds[i];
        ++count[m_familyOf[i]];
    }
    for (size_t f = 0; f < sum.size(); ++f)
    {
        sum[f] /= count[f];
    }
    m_iterations.push_back(iteration);
    m_ratios.push_back(std::move(sum));
}

const std::vector<std::string>&
LearningCurveChart::GetFamilies() const
{
    return m_families;
}

std::vector<std::pair<double, double>>
LearningCurveChart::GetCurve(const std::string& family) const
{
    const auto f = std::find(m_families.begin(), m_families.end(), family) - m_families.begin();
    std::vector<std::pair<double, double>> curve;
    for (size_t i = 0; i < m_iterations.size() && f < static_cast<long>(m_families.size()); ++i)
    {
        curve.emplace_back(m_iterations[i], m_ratios[i][f]);
    }
    return curve;
}

std::string
LearningCurveChart::Write(const std::string& prefix, const std::string& title) const
{
    Gnuplot plot(prefix + ".png", title);
    plot.SetTerminal("pngcairo size 800,480");
    plot.SetLegend("iteration (0: after the warm start)", "decoded rounds / bandwidth bound");
    plot.SetExtra("set key top right\nset grid ytics\nset xtics 1");
    for (const std::string& family : m_families)
    {
        Gnuplot2dDataset line(family);
        line.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        for (const auto& [x, y] : GetCurve(family))
        {
            line.Add(x, y);
        }
        plot.AddDataset(line);
    }
    std::ostringstream plt;
    std::ostringstream dat;
    plot.GenerateOutput(plt, dat, prefix + ".dat");
    WriteTextFile(prefix + ".dat", "figure data", [&dat](std::ostream& os) { os << dat.str(); });
    WriteTextFile(prefix + ".plt", "gnuplot script", [&plt](std::ostream& os) { os << plt.str(); });
    return RunGnuplot(prefix + ".plt", prefix + ".png", prefix + ".dat");
}

} // namespace ns3
