/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Small helpers shared by the examples: short labels for figures and running gnuplot.

#ifndef ALLREDUCE_EXAMPLE_UTIL_H
#define ALLREDUCE_EXAMPLE_UTIL_H

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

/// "a;b;;c" split at sep into its non-empty items.
inline std::vector<std::string>
SplitList(const std::string& text, char sep)
{
    std::vector<std::string> items;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, sep);)
    {
        if (!item.empty())
        {
            items.push_back(item);
        }
    }
    return items;
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

/// "16MB", "64KiB", "1000" -> bytes; throws naming --gradient-bytes for anything else.
inline uint64_t
ParseBytes(const std::string& text)
{
    const uint64_t bytes = ns3::ParseByteSize("gradient-bytes", text);
    if (bytes == 0)
    {
        throw std::invalid_argument("--gradient-bytes must be above 0, got '" + text + "'");
    }
    return bytes;
}

/**
 * Checks the optimal scheduler's options, as allreduce-rounds and allreduce-table take them.
 * \param timeLimit --time-limit in seconds
 * \param treesPerRoot --trees-per-root
 * \throws std::invalid_argument naming the option and the value
 */
inline void
CheckOptimalOptions(double timeLimit, uint32_t treesPerRoot)
{
    if (!(timeLimit > 0))
    {
        throw std::invalid_argument("--time-limit must be > 0 seconds, got " +
                                    std::to_string(timeLimit));
    }
    if (treesPerRoot == 0 || treesPerRoot > 16)
    {
        throw std::invalid_argument("--trees-per-root must be in 1..16, got " +
                                    std::to_string(treesPerRoot));
    }
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

#endif /* ALLREDUCE_EXAMPLE_UTIL_H */
