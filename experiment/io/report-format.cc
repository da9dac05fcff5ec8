/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "report-format.h"

#include "ns3/text-file.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

double
Mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double x : values)
    {
        sum += x;
    }
    return values.empty() ? 0 : sum / values.size();
}

double
StandardDeviation(const std::vector<double>& values)
{
    if (values.size() < 2)
    {
        return 0;
    }
    const double mean = Mean(values);
    double sum = 0;
    for (double x : values)
    {
        sum += (x - mean) * (x - mean);
    }
    return std::sqrt(sum / (values.size() - 1));
}

double
GeometricMean(const std::vector<double>& values)
{
    double logSum = 0;
    for (double x : values)
    {
        logSum += std::log(x);
    }
    return values.empty() ? 0 : std::exp(logSum / values.size());
}

std::string
FormatMeanStd(const std::vector<double>& values, int precision)
{
    const double std = StandardDeviation(values);
    if (std == 0)
    {
        return FormatFixed(Mean(values), 0);
    }
    return FormatFixed(Mean(values), precision) + "±" + FormatFixed(std, 1);
}

std::string
FormatFixed(double value, int precision)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(precision) << value;
    return os.str();
}

std::string
FormatNumber(double value)
{
    std::ostringstream os;
    os << value;
    return os.str();
}

std::string
JoinText(const std::vector<std::string>& items, const std::string& separator)
{
    std::string text;
    for (const std::string& item : items)
    {
        text += (text.empty() ? "" : separator) + item;
    }
    return text;
}

std::string
ShortLabel(const std::string& name)
{
    std::string label;
    bool inParameters = false;
    for (char c : name)
    {
        if (c == '(' || c == ',')
        {
            inParameters = true;
            label += c;
        }
        else if (c == '=' && inParameters)
        {
            label.erase(label.find_last_of("(,") + 1); // drop the key
            inParameters = false;
        }
        else
        {
            label += c;
        }
    }
    return label;
}

void
WriteOutputFile(const std::string& path,
                const std::string& option,
                const std::function<void(std::ostream&)>& write)
{
    const std::filesystem::path p(path);
    std::error_code error;
    if (p.has_parent_path())
    {
        std::filesystem::create_directories(p.parent_path(), error);
    }
    WriteTextFile(path, "the file of --" + option, write);
}

void
CheckOutputPrefix(const std::string& prefix, const std::string& option)
{
    if (prefix.empty() || prefix.back() == '/' || std::filesystem::is_directory(prefix))
    {
        throw std::invalid_argument("--" + option + "='" + Abbreviate(prefix) + "' names a "
                                    "directory; give a prefix for the files' names, e.g. "
                                    "results/run (results/run.csv, results/run.json ...)");
    }
    const std::filesystem::path p(prefix);
    std::error_code error;
    if (p.has_parent_path())
    {
        std::filesystem::create_directories(p.parent_path(), error); // as WriteOutputFile does
    }
    const std::string why = ProbeWritable(prefix);
    if (!why.empty())
    {
        throw std::invalid_argument("cannot write the files of --" + option + "='" +
                                    Abbreviate(prefix) + "': " + why +
                                    " (check that its directory can be made and written)");
    }
}

} // namespace ns3
