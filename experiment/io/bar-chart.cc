/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bar-chart.h"

#include "report-format.h"

#include "ns3/text-file.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

#ifdef ALLREDUCE_GNUPLOT
/// The gnuplot found at configure time.
const char* const GNUPLOT = ALLREDUCE_GNUPLOT;
#else
/// gnuplot from PATH.
const char* const GNUPLOT = "gnuplot";
#endif

} // namespace

BarChart::BarChart(const std::string& ylabel,
                   std::vector<std::string> categories,
                   std::vector<std::string> series)
    : m_ylabel(ylabel),
      m_categories(std::move(categories)),
      m_series(std::move(series))
{
}

void
BarChart::AddPanel(const std::string& title, const std::vector<std::vector<double>>& values)
{
    if (values.size() != m_series.size())
    {
        throw std::invalid_argument("BarChart: " + std::to_string(values.size()) +
                                    " series of values for " + std::to_string(m_series.size()) +
                                    " series");
    }
    for (const auto& v : values)
    {
        if (v.size() != m_categories.size())
        {
            throw std::invalid_argument("BarChart: " + std::to_string(v.size()) +
                                        " values for " + std::to_string(m_categories.size()) +
                                        " categories");
        }
    }
    m_titles.push_back(title);
    m_panels.push_back(values);
}

void
BarChart::SetReferenceLine(double y, const std::string& title)
{
    m_hasLine = true;
    m_lineY = y;
    m_lineTitle = title;
}

void
BarChart::SetIntervals(std::vector<double> lower,
                       std::vector<double> upper,
                       const std::string& title)
{
    if (lower.size() != m_categories.size() || upper.size() != m_categories.size())
    {
        throw std::invalid_argument("BarChart: one interval per category");
    }
    m_low = std::move(lower);
    m_high = std::move(upper);
    m_intervalTitle = title;
}

void
BarChart::SetSize(uint32_t width, uint32_t panelHeight)
{
    m_width = width;
    m_panelHeight = panelHeight;
}

void
BarChart::SetLabelStep(uint32_t step)
{
    m_labelStep = std::max<uint32_t>(1, step);
}

std::string
BarChart::Write(const std::string& prefix, const std::string& option) const
{
    const std::string dat = prefix + ".dat";
    const std::string plt = prefix + ".plt";
    const std::string png = prefix + ".png";
    WriteOutputFile(dat, option, [&](std::ostream& d) {
        for (size_t p = 0; p < m_panels.size(); ++p)
        {
            d << "# " << m_titles[p] << ": category";
            for (const auto& s : m_series)
            {
                d << " " << GnuplotQuoted(s);
            }
            d << "\n";
            for (size_t c = 0; c < m_categories.size(); ++c)
            {
                d << GnuplotQuoted(c % m_labelStep == 0 ? m_categories[c] : "");
                for (size_t s = 0; s < m_series.size(); ++s)
                {
                    d << " " << FormatNumber(m_panels[p][s][c]);
                }
                if (!m_intervalTitle.empty())
                {
                    d << " " << FormatNumber(m_low[c]) << " " << FormatNumber(m_high[c]);
                }
                d << "\n";
            }
            d << "\n\n"; // the next panel is the next gnuplot index
        }
    });
    WriteOutputFile(plt, option, [&](std::ostream& p) {
        p << "set terminal pngcairo size " << m_width << ","
          << m_panelHeight * std::max<size_t>(1, m_panels.size()) << " noenhanced\n"
          << "set output " << GnuplotQuoted(png) << "\n";
        if (m_panels.size() > 1)
        {
            p << "set multiplot layout " << m_panels.size() << ",1\n";
        }
        p << "set style data histograms\n"
          << "set style histogram clustered gap 1\n"
          << "set style fill solid 0.8 border -1\n"
          << "set boxwidth 0.9\n"
          << "set ylabel " << GnuplotQuoted(m_ylabel) << "\n"
          << "set yrange [0:*]\n"
          << "set xtics rotate by -30 left\n"
          << "set key below horizontal\n"
          << "set grid ytics\n";
        for (size_t i = 0; i < m_panels.size(); ++i)
        {
            p << "set title " << GnuplotQuoted(m_titles[i]) << "\nplot ";
            for (size_t s = 0; s < m_series.size(); ++s)
            {
                p << (s ? ", '' index " : GnuplotQuoted(dat) + " index ") << i << " using " << s + 2
                  << (s ? "" : ":xtic(1)") << " title " << GnuplotQuoted(m_series[s]);
            }
            if (!m_intervalTitle.empty())
            {
                // The clusters of a clustered histogram are centred on x = 0, 1, ...
                const size_t low = m_series.size() + 2;
                p << ", '' index " << i << " using 0:" << low << ":" << low << ":" << low + 1
                  << " with yerrorbars lw 3 pt 7 ps 0.6 lc rgb 'black' title "
                  << GnuplotQuoted(m_intervalTitle);
            }
            if (m_hasLine)
            {
                p << ", " << FormatNumber(m_lineY) << " with lines lw 2 lc rgb 'black' title "
                  << GnuplotQuoted(m_lineTitle);
            }
            p << "\n";
        }
        if (m_panels.size() > 1)
        {
            p << "unset multiplot\n";
        }
    });
    return RunGnuplot(plt, png, dat);
}

std::string
GnuplotQuoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text)
    {
        out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    }
    return out + "\"";
}

std::string
RunGnuplot(const std::string& plt, const std::string& png, const std::string& data)
{
    namespace fs = std::filesystem;
    std::error_code ignored;
    if (!fs::exists(data, ignored) || !fs::exists(plt, ignored))
    {
        return "no figure: " + data + " or " + plt + " could not be written (is the directory "
               "writable?)";
    }
    fs::remove(png, ignored);
    // gnuplot's own words go to a log beside the script: its warnings (an empty range when a
    // curve is flat) are not the program's output; a failure quotes the first line.
    const std::string log = plt + ".log";
    const std::string command = std::string(GNUPLOT) + " '" + plt + "' 2> '" + log + "'";
    if (std::system(command.c_str()) != 0 || !fs::exists(png, ignored))
    {
        std::string first;
        std::ifstream in(log);
        while (first.empty() && std::getline(in, first))
        {
        }
        return "no figure: gnuplot failed or is missing" +
               (first.empty() ? std::string() : " ('" + Abbreviate(first, 120) + "')") +
               "; the data is in " + data + " and " + plt + " (run: gnuplot " + plt + ")";
    }
    fs::remove(log, ignored);
    return png + " (data " + data + ", script " + plt + ")";
}

} // namespace ns3
