/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-trace.h"

#include "ns3/portable-random.h"
#include "ns3/quantity.h"
#include "ns3/text-file.h"

#include <array>
#include <charconv>
#include <cmath>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// The most bytes a trace file may have (about a million rows).
constexpr uint64_t MAX_TRACE_BYTES = uint64_t{64} << 20;

/// The longest time a trace may reach, in seconds (Quantity::MAX_TIME_NS).
constexpr double MAX_TRACE_SECONDS = 1e9;

/// Nanoseconds in 128 bits: a row's iterations x compute_s reaches 1e24 ns (ISO C++ has no such
/// type: __extension__ keeps GCC and Clang quiet about it under -Wpedantic).
__extension__ typedef unsigned __int128 WideNs;

/// The unit of a trace's time columns: seconds, written as a bare number.
const std::vector<QuantityUnit> SECONDS{{"", 1000000000}};

/// \return the shortest decimal that reads back as exactly value
std::string
FormatExact(double value)
{
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
}

/**
 * \param seconds a time as the reader keeps it: a whole number n of nanoseconds as the double
 *        nearest to n / 1e9 (beyond about 9e6 s a double cannot tell every nanosecond apart)
 * \return n in seconds with at most 9 decimals, which the reader reads back to the same double;
 *         a time not of that form in its shortest exact decimal
 */
std::string
FormatSeconds(double seconds)
{
    if (!(seconds >= 0) || !(seconds <= MAX_TRACE_SECONDS))
    {
        return FormatExact(seconds);
    }
    const auto nearest = static_cast<int64_t>(std::llround(static_cast<long double>(seconds) * 1e9L));
    // A double near 1e9 s spans about 120 ns; look that far on both sides, nearest first.
    for (int64_t offset = 0; offset <= 256; ++offset)
    {
        for (const int64_t ns : {nearest - offset, nearest + offset})
        {
            if (ns >= 0 && static_cast<double>(ns) / 1e9 == seconds)
            {
                std::string fraction = std::to_string(1000000000 + ns % 1000000000).substr(1);
                fraction.erase(fraction.find_last_not_of('0') + 1);
                return std::to_string(ns / 1000000000) + (fraction.empty() ? "" : "." + fraction);
            }
        }
    }
    return FormatExact(seconds);
}

/// Reads the rows of a trace, one at a time, citing source:row in its errors.
class JobTraceReader
{
  public:
    /// \param source the name errors cite
    explicit JobTraceReader(const std::string& source)
        : m_source(source)
    {
    }

    /// \param line the next line, as read
    void Read(std::string line)
    {
        line = LineContent(std::move(line), ++m_row);
        std::vector<std::string> fields;
        std::istringstream in(line);
        for (std::string field; std::getline(in, field, ',');)
        {
            fields.push_back(Trim(field));
        }
        if (!line.empty() && line.back() == ',')
        {
            fields.emplace_back();
        }
        if (fields.empty() || (fields.size() == 1 && fields[0].empty()))
        {
            return; // blank or comment-only
        }
        if (fields[0] == "arrival_s")
        {
            if (!m_jobs.empty() || m_headerSeen)
            {
                Fail("a header line is only accepted as the first row (" +
                     std::string(JOB_TRACE_HEADER) + ")");
            }
            CheckHeader(fields);
            return;
        }
        if (fields.size() != 5)
        {
            Fail("expected 5 comma-separated fields (" + std::string(JOB_TRACE_HEADER) +
                 "), got " + std::to_string(fields.size()));
        }
        if (m_jobs.size() >= MAX_TRACE_JOBS)
        {
            Fail("more than " + std::to_string(MAX_TRACE_JOBS) + " jobs; split the trace");
        }
        JobSpec job;
        const uint64_t arrivalNs = ReadTimeNs("arrival_s", fields[0]);
        job.arrivalS = static_cast<double>(arrivalNs) / 1e9; // the double nearest to the text
        job.servers = static_cast<uint32_t>(ReadCount("servers", fields[1], UINT32_MAX));
        job.gradientBytes = ReadCount("gradient_bytes", fields[2], uint64_t{1} << 50);
        if (job.gradientBytes % 4 != 0)
        {
            Fail("gradient_bytes '" + Abbreviate(fields[2]) +
                 "' must be a multiple of 4 (float32 values)");
        }
        job.iterations = static_cast<uint32_t>(ReadCount("iterations", fields[3], 1000000));
        const uint64_t computeNs = ReadTimeNs("compute_s", fields[4]);
        job.computeS = static_cast<double>(computeNs) / 1e9;
        if (!m_jobs.empty() && arrivalNs < m_lastArrivalNs)
        {
            Fail("arrival_s " + fields[0] + " is before the previous job's " +
                 FormatSeconds(m_jobs.back().arrivalS) + "; rows must be in arrival order");
        }
        const WideNs computing = static_cast<WideNs>(computeNs) * job.iterations;
        if (arrivalNs + computing > static_cast<WideNs>(Quantity::MAX_TIME_NS))
        {
            Fail("arrival_s " + fields[0] + " + iterations " + fields[3] + " x compute_s " +
                 fields[4] + " is beyond 1e9 s, more than a simulation can reach; give a job "
                 "whose arrival and computing end by 1e9 s");
        }
        m_lastArrivalNs = arrivalNs;
        m_computingNs += computing;
        m_jobs.push_back(job);
    }

    /// \return the jobs read \throws std::invalid_argument when there are none, or when they
    ///         could reach beyond 1e9 s
    std::vector<JobSpec> Finish()
    {
        if (m_jobs.empty())
        {
            throw std::invalid_argument(m_source + ": no job; a trace has one row per job: " +
                                        JOB_TRACE_HEADER);
        }
        if (m_lastArrivalNs + m_computingNs > static_cast<WideNs>(Quantity::MAX_TIME_NS))
        {
            // The jobs may wait for each other's servers: the simulation must reach the end of
            // their computing even when they run one after another.
            throw std::invalid_argument(
                m_source + ": the last job arrives at " + FormatSeconds(m_jobs.back().arrivalS) +
                " s and the jobs compute for " +
                FormatExact(static_cast<double>(m_computingNs) / 1e9) +
                " s in all (iterations x compute_s of every row); when they wait for each "
                "other's servers the run lasts beyond 1e9 s, more than a simulation can reach: "
                "give less computing or fewer jobs");
        }
        return std::move(m_jobs);
    }

  private:
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::invalid_argument(m_source + ":" + std::to_string(m_row) + ": " + what);
    }

    void CheckHeader(const std::vector<std::string>& fields)
    {
        static const std::array<const char*, 5> columns{
            "arrival_s", "servers", "gradient_bytes", "iterations", "compute_s"};
        for (size_t i = 0; i < columns.size(); ++i)
        {
            if (i >= fields.size() || fields[i] != columns[i])
            {
                Fail("the header's column " + std::to_string(i + 1) + " is " +
                     (i >= fields.size() ? std::string("missing")
                      : fields[i].empty() ? std::string("empty")
                                          : "'" + Abbreviate(fields[i]) + "'") +
                     " where " + columns[i] + " belongs; the header is " + JOB_TRACE_HEADER +
                     " (or leave it out)");
            }
        }
        if (fields.size() > columns.size())
        {
            Fail("the header has " + std::to_string(fields.size()) + " columns; it is " +
                 JOB_TRACE_HEADER + " (or leave it out)");
        }
        m_headerSeen = true;
    }

    uint64_t ReadTimeNs(const char* column, const std::string& text) const
    {
        if (text.empty())
        {
            Fail(std::string(column) + " is empty; " + TimeRule());
        }
        // Seconds only: a unit ("1ms") is refused, as FormatJobTrace never writes one.
        const bool bare = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
        uint64_t ns = 0;
        const Quantity::Outcome outcome =
            bare ? Quantity::Parse(text, SECONDS, static_cast<uint64_t>(Quantity::MAX_TIME_NS), ns)
                 : Quantity::NOT_A_NUMBER;
        if (outcome != Quantity::OK)
        {
            const std::string why =
                outcome == Quantity::NOT_WHOLE ? "is finer than a nanosecond, the simulator's "
                                                 "resolution"
                : outcome == Quantity::TOO_LARGE ? "is beyond 1e9 s, more than a simulation "
                                                   "can reach"
                : text[0] == '-'                 ? "is negative"
                                                 : "is not a number of seconds";
            Fail(std::string(column) + " '" + Abbreviate(text) + "' " + why + "; " + TimeRule());
        }
        return ns;
    }

    /// \return what a time column accepts
    static std::string TimeRule()
    {
        return "give seconds from 0 to 1e9 in whole nanoseconds (at most 9 decimals), e.g. "
               "0.0005 or 2.5e-3";
    }

    uint64_t ReadCount(const char* column, const std::string& text, uint64_t max) const
    {
        uint64_t value = 0;
        if (!ParseWholeNumber(text, max, value) || value == 0)
        {
            Fail(std::string(column) + (text.empty() ? " is empty" : " '" + Abbreviate(text) + "'") +
                 "; give a whole number from 1 to " + std::to_string(max));
        }
        return value;
    }

    std::string m_source;        //!< what errors cite
    uint64_t m_row{0};           //!< the line being read, from 1
    bool m_headerSeen{false};    //!< whether the header line was read
    uint64_t m_lastArrivalNs{0}; //!< the last job's arrival, ns
    WideNs m_computingNs{0};     //!< sum of iterations x compute_s, ns
    std::vector<JobSpec> m_jobs; //!< read so far
};

} // namespace

bool
JobSpec::operator==(const JobSpec& other) const
{
    return arrivalS == other.arrivalS && servers == other.servers &&
           gradientBytes == other.gradientBytes && iterations == other.iterations &&
           computeS == other.computeS;
}

std::vector<JobSpec>
ParseJobTrace(const std::string& text, const std::string& source)
{
    JobTraceReader reader(source);
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
    {
        reader.Read(line);
    }
    return reader.Finish();
}

std::vector<JobSpec>
ReadJobTrace(const std::string& path)
{
    return ParseJobTrace(ReadTextFile(path, "job trace", MAX_TRACE_BYTES), path);
}

std::string
FormatJobTrace(const std::vector<JobSpec>& jobs)
{
    std::ostringstream out;
    out << JOB_TRACE_HEADER << "\n";
    for (const JobSpec& job : jobs)
    {
        out << FormatSeconds(job.arrivalS) << "," << job.servers << "," << job.gradientBytes << ","
            << job.iterations << "," << FormatSeconds(job.computeS) << "\n";
    }
    return out.str();
}

std::vector<JobSpec>
GenerateJobTrace(const JobTraceConfig& config)
{
    const auto refuse = [](const std::string& what) {
        throw std::invalid_argument("job trace generator: " + what);
    };
    if (config.jobs == 0 || config.jobs > MAX_TRACE_JOBS)
    {
        refuse("jobs must be from 1 to " + std::to_string(MAX_TRACE_JOBS) + ", got " +
               std::to_string(config.jobs));
    }
    if (!(config.meanInterarrivalS >= 0) || !std::isfinite(config.meanInterarrivalS))
    {
        refuse("the mean interarrival time must be a finite number of seconds >= 0");
    }
    if (config.servers.empty() || config.gradientBytes.empty())
    {
        refuse("give at least one job size and one gradient size");
    }
    for (uint32_t s : config.servers)
    {
        if (s == 0)
        {
            refuse("a job size must be at least 1 server");
        }
    }
    for (uint64_t b : config.gradientBytes)
    {
        if (b == 0 || b % 4 != 0)
        {
            refuse("a gradient size must be a positive multiple of 4 bytes, got " +
                   std::to_string(b));
        }
    }
    if (config.iterations == 0 || !(config.computeS >= 0) || !std::isfinite(config.computeS))
    {
        refuse("iterations must be at least 1 and the compute time a finite number >= 0");
    }
    if (config.meanInterarrivalS > MAX_TRACE_SECONDS ||
        config.computeS * config.iterations > MAX_TRACE_SECONDS)
    {
        refuse("the mean interarrival time and iterations x the compute time must be at most "
               "1e9 s, what a simulation can reach");
    }
    std::mt19937_64 rng(config.seed);
    std::vector<JobSpec> jobs;
    jobs.reserve(config.jobs);
    double arrival = 0;
    for (uint32_t i = 0; i < config.jobs; ++i)
    {
        if (i > 0)
        {
            arrival += -config.meanInterarrivalS * std::log1p(-UniformUnit(rng));
        }
        JobSpec job;
        // Whole nanoseconds, as a trace holds them: what is written is what runs.
        job.arrivalS = std::round(arrival * 1e9) / 1e9;
        job.servers = config.servers[UniformIndex(rng, config.servers.size())];
        job.gradientBytes = config.gradientBytes[UniformIndex(rng, config.gradientBytes.size())];
        job.iterations = config.iterations;
        job.computeS = std::round(config.computeS * 1e9) / 1e9;
        jobs.push_back(job);
    }
    const double end =
        jobs.back().arrivalS + jobs.back().computeS * config.iterations * config.jobs;
    if (end > MAX_TRACE_SECONDS)
    {
        refuse("the last job arrives at " + FormatExact(jobs.back().arrivalS) + " s and the " +
               std::to_string(config.jobs) + " jobs compute for " +
               FormatExact(jobs.back().computeS * config.iterations * config.jobs) +
               " s in all; when they wait for each other's servers the run lasts beyond 1e9 s, "
               "more than a simulation can reach: give fewer jobs, a shorter mean gap or less "
               "computing");
    }
    return jobs;
}

} // namespace ns3
