/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TABLE_EXPERIMENT_H
#define NS3_ALLREDUCE_TABLE_EXPERIMENT_H

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class ProgressReporter;

/**
 * \ingroup allreduce-experiment
 * An experiment that fills a table (RoundsTable, PacketTable): run it step by step, then print
 * it for a person and write it as CSV, JSON and a figure.
 */
class TableExperiment
{
  public:
    virtual ~TableExperiment() = default;

    /// \return the steps Run takes (for a ProgressReporter)
    virtual uint64_t GetNSteps() const = 0;

    /**
     * Runs every step.
     * \param progress where to say what runs (nullptr: nowhere)
     */
    virtual void Run(ProgressReporter* progress) = 0;

    /// \param os where the table and its notes go
    virtual void Print(std::ostream& os) const = 0;

    /// \param os where the table goes as CSV
    virtual void WriteCsv(std::ostream& os) const = 0;

    /// \param os where the table goes as JSON
    virtual void WriteJson(std::ostream& os) const = 0;

    /**
     * \param prefix output prefix (PREFIX.dat, .plt, .png)
     * \return what was made (BarChart::Write)
     */
    virtual std::string WriteFigure(const std::string& prefix) const = 0;

    /// \return the first result that failed ("what on where: why"), empty when none did
    virtual const std::string& GetFailure() const = 0;

    /**
     * What a program does with the experiment: runs it with progress lines on err, prints it on
     * out, writes PREFIX.csv, PREFIX.json and the figure, and says what it wrote.
     * \param program the program's name, for the progress lines
     * \param prefix output prefix
     * \param out where the table goes
     * \param err where the progress goes
     * \throws std::invalid_argument when an output file cannot be written
     */
    void RunAndWrite(const std::string& program,
                     const std::string& prefix,
                     std::ostream& out,
                     std::ostream& err);
};

/**
 * \ingroup allreduce-experiment
 * \param spec a topology spec
 * \return whether it is random (Jellyfish), so that the tables average it over seeds
 */
bool IsSeededSpec(const std::string& spec);

/**
 * \ingroup allreduce-experiment
 * \param spec a topology spec \param seeds the seeds a random one is averaged over
 * \return the seeds it runs with: `seeds` when it is random, else 1
 */
uint32_t SeedsOf(const std::string& spec, uint32_t seeds);

/**
 * \ingroup allreduce-experiment
 * Runs a table's topologies, a random one once per seed 1..seeds, one row each.
 * \param specs the topology specs (a random one ending in seed=N)
 * \param seeds the seeds a random one is averaged over
 * \param runSeed called as runSeed(spec, seed, row) for every seed of a spec, on a row whose
 *        `spec` and `seeds` are set
 * \return the rows, in the order of the specs
 */
template <typename Row, typename RunSeed>
std::vector<Row>
RunOverSeeds(const std::vector<std::string>& specs, uint32_t seeds, RunSeed runSeed)
{
    std::vector<Row> rows;
    for (const auto& spec : specs)
    {
        Row row;
        row.spec = spec;
        row.seeds = SeedsOf(spec, seeds);
        for (uint32_t seed = 1; seed <= row.seeds; ++seed)
        {
            runSeed(spec, seed, row);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

/**
 * \ingroup allreduce-experiment
 * \param spec a topology spec ending in seed=N when random \param seed a seed
 * \return the spec with that seed (a spec that is not random, unchanged)
 */
std::string WithSeed(const std::string& spec, uint32_t seed);

/**
 * \ingroup allreduce-experiment
 * \param name the name of a random topology's seed 1 \param seeds the seeds averaged
 * \return the name of the row that averages them, "...seed=1..5)" (unchanged for one seed)
 */
std::string NameOverSeeds(const std::string& name, uint32_t seeds);

/**
 * \ingroup allreduce-experiment
 * \param rows a table's rows, each with a `topology` name
 * \return the distinct topologies, in the order they first appear (the order they ran)
 */
template <typename Row>
std::vector<std::string>
GetTopologiesOf(const std::vector<Row>& rows)
{
    std::vector<std::string> names;
    for (const Row& row : rows)
    {
        if (std::find(names.begin(), names.end(), row.topology) == names.end())
        {
            names.push_back(row.topology);
        }
    }
    return names;
}

} // namespace ns3

#endif /* NS3_ALLREDUCE_TABLE_EXPERIMENT_H */
