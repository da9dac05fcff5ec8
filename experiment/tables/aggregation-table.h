/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_AGGREGATION_TABLE_H
#define NS3_ALLREDUCE_AGGREGATION_TABLE_H

#include "table-experiment.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * Checks the shares of aggregating switches as the tables take them (the spec option ina=).
 * \param shares each "all" or a fraction in (0, 1]
 * \throws std::invalid_argument otherwise, saying what is accepted, and for one share given
 *         twice in any spelling ("all" and "1", "0.5" and ".50")
 */
void CheckAggregationShares(const std::vector<std::string>& shares);

/**
 * \ingroup allreduce-experiment
 * What the aggregation comparison runs (allreduce-table's --aggregation).
 */
struct AggregationTableConfig
{
    std::vector<std::string> shares{"all", "0.5"}; //!< the ina= values, beside server-only merge
    uint32_t seeds{5};                             //!< Jellyfish seeds 1..seeds, averaged
    uint32_t pieces{1};                            //!< pieces per chunk (k)
    std::vector<std::string> specs;                //!< topologies; empty: DefaultSpecs()
};

/**
 * \ingroup allreduce-experiment
 * One topology of the comparison: rounds per column and seed.
 */
struct AggregationTableRow
{
    std::string spec;                                   //!< its spec (Jellyfish: seed 1)
    std::string name;                                   //!< its name, without ina=
    uint32_t servers{0};                                //!< servers
    uint32_t switches{0};                               //!< switches
    uint32_t seeds{1};                                  //!< seeds averaged
    std::vector<double> bound;                          //!< server-only bandwidth bound per seed
    std::vector<double> inaBound;                       //!< with aggregators, per seed
    std::map<std::string, std::vector<double>> rounds;  //!< per column, per seed
    std::map<std::string, double> seconds;              //!< per column, over the seeds
};

/**
 * \ingroup allreduce-experiment
 * Aggregation in the network against server-only merge (doc/allreduce.rst, "Aggregation in the
 * network"): on the seed paper's nine topologies and fat-tree k=4 and k=8, the rounds of `ps`,
 * `ring` and `balanced` without aggregation, and of `ps` and `balanced` with every switch
 * aggregating (ina=all) and with a seeded share of them (ina=0.5), with both bandwidth bounds.
 * `ring` is left out with aggregation (its streams never meet, so it is unchanged), as are
 * `optimal` (too large beyond the smallest rows) and `drl` (its observation does not carry a
 * node's ability to aggregate yet).
 */
class AggregationTable : public TableExperiment
{
  public:
    /**
     * \param config what to run
     * \throws std::invalid_argument for a share that is not "all" or a fraction in (0, 1]
     */
    explicit AggregationTable(AggregationTableConfig config);

    /// \return the paper's nine topologies, then fat-tree k=4 and k=8
    static std::vector<std::string> DefaultSpecs();
    /// \return the schedulers run without aggregation
    static const std::vector<std::string>& GetServerOnlySchedulers();
    /// \return the schedulers run with aggregation
    static const std::vector<std::string>& GetAggregatingSchedulers();

    uint64_t GetNSteps() const override;
    /// Schedules and validates every cell.
    void Run(ProgressReporter* progress) override;
    /// Prints the table and where aggregation wins.
    void Print(std::ostream& os) const override;
    void WriteCsv(std::ostream& os) const override;
    void WriteJson(std::ostream& os) const override;
    /// Draws rounds over the server-only bandwidth bound, best without against each with.
    std::string WriteFigure(const std::string& prefix) const override;
    const std::string& GetFailure() const override;

    /// \return the rows, after Run
    const std::vector<AggregationTableRow>& GetRows() const;
    /// \return the column names: the server-only schedulers, then "S ina=SHARE" per share
    std::vector<std::string> GetColumns() const;
    /**
     * \param row a row \param aggregating false: the server-only columns, true: the others
     * \return per seed, the fewest rounds among those columns
     */
    std::vector<double> GetBest(const AggregationTableRow& row, bool aggregating) const;

  private:
    /// Runs every column on one topology (one seed) into row.
    void RunTopology(const std::string& spec, uint32_t seed, AggregationTableRow& row,
                     ProgressReporter* progress);

    AggregationTableConfig m_config;        //!< what runs
    std::vector<AggregationTableRow> m_rows; //!< the results
    std::string m_invalid;                  //!< the first invalid schedule
    double m_seconds{0};                    //!< wall time of Run
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_AGGREGATION_TABLE_H */
