/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Small helpers shared by the examples: short labels for figures and running gnuplot.

#ifndef NS3_ALLREDUCE_EXAMPLE_UTIL_H
#define NS3_ALLREDUCE_EXAMPLE_UTIL_H

#include "ns3/allreduce-module.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

namespace allreduce_example
{

#ifdef ALLREDUCE_GNUPLOT
/// The gnuplot found at configure time.
inline const char* const GNUPLOT = ALLREDUCE_GNUPLOT;
#else
/// gnuplot from PATH.
inline const char* const GNUPLOT = "gnuplot";
#endif

/// "bcube(n=3,k=1)" -> "bcube(3,1)": parameter values without their names, for axis labels.
inline std::string
ShortLabel(const std::string& name)
{
    std::string label;
    bool skipping = false;
    for (char c : name)
    {
        if (c == '(' || c == ',')
        {
            skipping = true;
            label += c;
        }
        else if (c == '=' && skipping)
        {
            label.erase(label.find_last_of("(,") + 1);
            skipping = false;
        }
        else
        {
            label += c;
        }
    }
    return label;
}

/**
 * Splits an option's list ("ps,ring" or "bcube:n=3,k=1;dcell:n=4,k=1") at sep, spaces around the
 * items dropped.
 * \param option the option's name, for errors \param text its value \param sep the separator
 * \return the items, at least one
 * \throws std::invalid_argument for an empty list or an empty item ("ps,,ring", ",")
 */
inline std::vector<std::string>
ParseList(const std::string& option, const std::string& text, char sep)
{
    std::vector<std::string> items;
    size_t pos = 0;
    while (true)
    {
        const size_t end = std::min(text.find(sep, pos), text.size());
        std::string item = text.substr(pos, end - pos);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty())
        {
            throw std::invalid_argument("--" + option + " has an empty item in '" +
                                        ns3::Abbreviate(text) + "'; give items separated by " +
                                        "single '" + std::string(1, sep) + "'");
        }
        items.push_back(item);
        if (end == text.size())
        {
            return items;
        }
        pos = end + 1;
    }
}

/// Runs gnuplot on plt (which draws png from dat); returns a sentence saying what was made, and
/// says so when the data, the script or the figure could not be written.
inline std::string
RunGnuplot(const std::string& plt, const std::string& png, const std::string& dat)
{
    namespace fs = std::filesystem;
    std::error_code ignored;
    if (!fs::exists(dat, ignored) || !fs::exists(plt, ignored))
    {
        return "no figure: " + dat + " or " + plt + " could not be written (is the directory "
               "writable?)";
    }
    fs::remove(png, ignored);
    const std::string command = std::string(GNUPLOT) + " '" + plt + "'";
    if (std::system(command.c_str()) != 0 || !fs::exists(png, ignored))
    {
        return "no figure: gnuplot failed or is missing; the data is in " + dat + " and " + plt +
               " (run: gnuplot " + plt + ")";
    }
    return png + " (data " + dat + ", script " + plt + ")";
}

/**
 * Reads a schedule file as a plan; with a topology spec, the file must be for that topology.
 * \param path the file \param topology a spec, or empty for any
 * \return its workloads and rounds
 */
inline ns3::Plan
ReadPlanFile(const std::string& path, const std::string& topology)
{
    ns3::ScheduleFile file = ns3::ReadScheduleFile(path);
    if (!topology.empty())
    {
        const std::string differs =
            file.workloads.GetTopology().DescribeDifference(ns3::BuildTopology(topology));
        if (!differs.empty())
        {
            throw std::invalid_argument("schedule file '" + path + "' does not match --topology=" +
                                        topology + ": " + differs);
        }
    }
    return ns3::Plan{std::move(file.workloads), std::move(file.schedule)};
}

} // namespace allreduce_example

#endif /* NS3_ALLREDUCE_EXAMPLE_UTIL_H */
