/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cdf-chart.h"

#include "bar-chart.h"
#include "report-format.h"

#include <algorithm>
#include <fstream>

namespace ns3
{

CdfChart::CdfChart(const std::string& xlabel)
    : m_xlabel(xlabel)
{
}

void
CdfChart::AddPanel(const std::string& title,
                   const std::vector<std::pair<std::string, std::vector<double>>>& series)
{
    m_titles.push_back(title);
    m_panels.push_back(series);
    for (auto& [name, values] : m_panels.back())
    {
        std::sort(values.begin(), values.end());
    }
}

std::string
CdfChart::Write(const std::string& prefix, const std::string& option) const
{
    const std::string dat = prefix + ".dat";
    const std::string plt = prefix + ".plt";
    const std::string png = prefix + ".png";
    WriteOutputFile(dat, option, [&](std::ostream& d) {
        // One gnuplot index per series of each panel: "x fraction" from (first, 0).
        for (size_t p = 0; p < m_panels.size(); ++p)
        {
            for (const auto& [name, values] : m_panels[p])
            {
                d << "# " << m_titles[p] << ": " << name << "\n";
                if (!values.empty())
                {
                    d << FormatNumber(values.front()) << " 0\n";
                }
                for (size_t i = 0; i < values.size(); ++i)
                {
                    d << FormatNumber(values[i]) << " "
                      << FormatNumber(static_cast<double>(i + 1) / values.size()) << "\n";
                }
                d << "\n\n";
            }
        }
    });
    WriteOutputFile(plt, option, [&](std::ostream& p) {
        const size_t panels = std::max<size_t>(1, m_panels.size());
        p << "set terminal pngcairo size " << 520 * panels << ",480 noenhanced\n"
          << "set output " << GnuplotQuoted(png) << "\n";
        if (panels > 1)
        {
            p << "set multiplot layout 1," << panels << "\n";
        }
        p << "set xlabel " << GnuplotQuoted(m_xlabel) << "\n"
          << "set ylabel 'fraction of jobs'\n"
          << "set yrange [0:1.02]\n"
          << "set key bottom right\n"
          << "set grid\n";
        size_t index = 0;
        for (size_t i = 0; i < m_panels.size(); ++i)
        {
            p << "set title " << GnuplotQuoted(m_titles[i]) << "\nplot ";
            for (size_t s = 0; s < m_panels[i].size(); ++s, ++index)
            {
                p << (s ? ", " : "") << GnuplotQuoted(dat) << " index " << index
                  << " using 1:2 with steps lw 2 title " << GnuplotQuoted(m_panels[i][s].first);
            }
            p << "\n";
        }
        if (panels > 1)
        {
            p << "unset multiplot\n";
        }
    });
    return RunGnuplot(plt, png, dat);
}

} // namespace ns3
