/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Small helpers shared by the examples: short labels for figures and running gnuplot.

#ifndef ALLREDUCE_EXAMPLE_UTIL_H
#define ALLREDUCE_EXAMPLE_UTIL_H

#include <cstdlib>
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

/// Runs gnuplot on plt (which draws png from dat); returns a sentence saying what was made.
inline std::string
RunGnuplot(const std::string& plt, const std::string& png, const std::string& dat)
{
    const std::string command = std::string(GNUPLOT) + " '" + plt + "'";
    if (std::system(command.c_str()) != 0)
    {
        return dat + " and " + plt + " (gnuplot failed or is missing; run: gnuplot " + plt + ")";
    }
    return png + " (data " + dat + ", script " + plt + ")";
}

} // namespace allreduce_example

#endif /* ALLREDUCE_EXAMPLE_UTIL_H */
