/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_REPORT_FORMAT_H
#define NS3_ALLREDUCE_REPORT_FORMAT_H

#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * \param values some numbers
 * \return their mean (0 for none)
 */
double Mean(const std::vector<double>& values);

/**
 * \ingroup allreduce-experiment
 * \param values some numbers
 * \return their sample standard deviation (0 for fewer than two)
 */
double StandardDeviation(const std::vector<double>& values);

/**
 * \ingroup allreduce-experiment
 * \param values positive numbers
 * \return their geometric mean (0 for none)
 */
double GeometricMean(const std::vector<double>& values);

/**
 * \ingroup allreduce-experiment
 * \param values some numbers (the seeds of one experiment)
 * \param precision digits after the point of the mean when the values differ
 * \return "11" when they are all the same, else "20.8±0.8" (mean ± standard deviation)
 */
std::string FormatMeanStd(const std::vector<double>& values, int precision);

/**
 * \ingroup allreduce-experiment
 * \param value a number
 * \param precision digits after the point
 * \return the number in fixed notation
 */
std::string FormatFixed(double value, int precision);

/**
 * \ingroup allreduce-experiment
 * \param value a number
 * \return the number as a stream prints it by default (six significant digits), as CSV and
 *         data files carry it
 */
std::string FormatNumber(double value);

/**
 * \ingroup allreduce-experiment
 * \param items texts
 * \param separator what goes between two of them
 * \return the items in order with the separator between them ("" for none)
 */
std::string JoinText(const std::vector<std::string>& items, const std::string& separator);

/**
 * \ingroup allreduce-experiment
 * \param name a topology name, e.g. "bcube(n=3,k=1)"
 * \return its parameter values without their names, for axis labels, e.g. "bcube(3,1)"
 */
std::string ShortLabel(const std::string& name);

/**
 * \ingroup allreduce-experiment
 * Writes an output file whole or not at all (WriteTextFile), creating its directory first.
 * \param path the file
 * \param option the option that named it, for the error (e.g. "out")
 * \param write writes the text
 * \throws std::invalid_argument naming the file, the option and the system's reason when it
 *         cannot be written
 */
void WriteOutputFile(const std::string& path,
                     const std::string& option,
                     const std::function<void(std::ostream&)>& write);

/**
 * \ingroup allreduce-experiment
 * Refuses an output prefix before any work: one that names a directory ("results/"), or where
 * no file can be made.
 * \param prefix e.g. "results/allreduce-table" \param option the option, e.g. "out"
 * \throws std::invalid_argument naming the option and what is wrong
 */
void CheckOutputPrefix(const std::string& prefix, const std::string& option);

} // namespace ns3

#endif /* NS3_ALLREDUCE_REPORT_FORMAT_H */
