/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_JOB_TRACE_H
#define NS3_ALLREDUCE_JOB_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-cluster
 * One training job of a cluster trace (doc/allreduce.rst, "Several jobs"): an AllReduce over
 * `servers` servers, repeated `iterations` times, each after `computeS` seconds of computing
 * that start when the previous AllReduce ended (the first when the job starts).
 */
struct JobSpec
{
    double arrivalS{0};         //!< when the job arrives, seconds from the start
    uint32_t servers{2};        //!< how many servers it needs
    uint64_t gradientBytes{4};  //!< gradient bytes per server (float32 values)
    uint32_t iterations{1};     //!< AllReduces it runs
    double computeS{0};         //!< seconds of computing before each AllReduce

    /// \return true when every field equals other's
    bool operator==(const JobSpec& other) const;
};

/// The header line of a job trace, and the order of its columns.
constexpr const char* JOB_TRACE_HEADER = "arrival_s,servers,gradient_bytes,iterations,compute_s";

/// The most jobs a trace may hold.
constexpr uint32_t MAX_TRACE_JOBS = 1000000;

/**
 * \ingroup allreduce-cluster
 * Reads a job trace: CSV with the columns of JOB_TRACE_HEADER (the header line itself is
 * optional), one job per row in arrival order, '#' starting a comment, blank lines skipped.
 * \param text the trace
 * \param source the name errors cite, e.g. the file name
 * \return the jobs, in order
 * \throws std::invalid_argument citing source:row and the column that is wrong: a count of
 *         fields other than five, a time that is not a finite decimal >= 0, servers or
 *         iterations that are not whole numbers >= 1, gradient bytes that are not a positive
 *         multiple of 4, an arrival before the previous row's, no job at all, or more than
 *         MAX_TRACE_JOBS
 */
std::vector<JobSpec> ParseJobTrace(const std::string& text, const std::string& source);

/**
 * \ingroup allreduce-cluster
 * \param path a job trace file (see ParseJobTrace)
 * \return its jobs
 * \throws std::invalid_argument naming the file, and the row when a row is wrong
 */
std::vector<JobSpec> ReadJobTrace(const std::string& path);

/**
 * \ingroup allreduce-cluster
 * \param jobs jobs
 * \return the trace ParseJobTrace reads back to the same jobs (header line first; times in
 *         whole nanoseconds, at most 9 decimals)
 */
std::string FormatJobTrace(const std::vector<JobSpec>& jobs);

/**
 * \ingroup allreduce-cluster
 * What GenerateJobTrace draws from.
 */
struct JobTraceConfig
{
    uint32_t jobs{20};                   //!< how many
    double meanInterarrivalS{0.001};     //!< mean gap between arrivals (Poisson arrivals)
    std::vector<uint32_t> servers{4, 8}; //!< job sizes, drawn uniformly
    std::vector<uint64_t> gradientBytes{1048576}; //!< gradient sizes, drawn uniformly
    uint32_t iterations{1};              //!< iterations of every job
    double computeS{0};                  //!< compute time of every job
    uint64_t seed{1};                    //!< the draws' seed
};

/**
 * \ingroup allreduce-cluster
 * A seeded trace: the first job arrives at 0, the gaps after it are exponential with the
 * mean given; sizes and gradient sizes are drawn uniformly from the lists. The same config
 * gives the same trace with every standard library (the draws use std::mt19937_64 alone).
 * \param config what to draw
 * \return the jobs, in arrival order
 * \throws std::invalid_argument naming the field that is out of range
 */
std::vector<JobSpec> GenerateJobTrace(const JobTraceConfig& config);

} // namespace ns3

#endif /* NS3_ALLREDUCE_JOB_TRACE_H */
