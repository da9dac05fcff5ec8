/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-trace.h"

#include "ns3/portable-random.h"
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

/// \return the shortest decimal that reads back as exactly value
std::string
FormatExact(double value)
{
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    return std::string(buffer.data(), result.ptr);
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
        if (m_jobs.empty() && !m_headerSeen && fields.size() == 5 && fields[0] == "arrival_s")
        {
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
        job.arrivalS = ReadTime("arrival_s", fields[0]);
        job.servers = static_cast<uint32_t>(ReadCount("servers", fields[1], UINT32_MAX));
        job.gradientBytes = ReadCount("gradient_bytes", fields[2], uint64_t{1} << 50);
        if (job.gradientBytes % 4 != 0)
        {
            Fail("gradient_bytes '" + Abbreviate(fields[2]) +
                 "' must be a multiple of 4 (float32 values)");
        }
        job.iterations = static_cast<uint32_t>(ReadCount("iterations", fields[3], 1000000));
        job.computeS = ReadTime("compute_s", fields[4]);
        if (!m_jobs.empty() && job.arrivalS < m_jobs.back().arrivalS)
        {
            Fail("arrival_s " + fields[0] + " is before the previous job's " +
                 FormatExact(m_jobs.back().arrivalS) + "; rows must be in arrival order");
        }
        m_jobs.push_back(job);
    }

    /// \return the jobs read \throws std::invalid_argument when there are none
    std::vector<JobSpec> Finish()
    {
        if (m_jobs.empty())
        {
            throw std::invalid_argument(m_source + ": no job; a trace has one row per job: " +
                                        JOB_TRACE_HEADER);
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
        std::string joined;
        for (const auto& f : fields)
        {
            joined += (joined.empty() ? "" : ",") + f;
        }
        if (joined != JOB_TRACE_HEADER)
        {
            Fail("the header '" + Abbreviate(joined) + "' is not " + JOB_TRACE_HEADER);
        }
        m_headerSeen = true;
    }

    double ReadTime(const char* column, const std::string& text) const
    {
        double value = 0;
        if (!ParseDecimal(text, value) || value < 0)
        {
            Fail(std::string(column) + " '" + Abbreviate(text) +
                 "' must be a decimal number of seconds >= 0");
        }
        return value;
    }

    uint64_t ReadCount(const char* column, const std::string& text, uint64_t max) const
    {
        uint64_t value = 0;
        if (!ParseWholeNumber(text, max, value) || value == 0)
        {
            Fail(std::string(column) + " '" + Abbreviate(text) + "' must be a whole number from 1 to " +
                 std::to_string(max));
        }
        return value;
    }

    std::string m_source;        //!< what errors cite
    uint64_t m_row{0};           //!< the line being read, from 1
    bool m_headerSeen{false};    //!< whether the header line was read
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
        out << FormatExact(job.arrivalS) << "," << job.servers << "," << job.gradientBytes << ","
            << job.iterations << "," << FormatExact(job.computeS) << "\n";
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
        job.arrivalS = arrival;
        job.servers = config.servers[UniformIndex(rng, config.servers.size())];
        job.gradientBytes = config.gradientBytes[UniformIndex(rng, config.gradientBytes.size())];
        job.iterations = config.iterations;
        job.computeS = config.computeS;
        jobs.push_back(job);
    }
    return jobs;
}

} // namespace ns3
