/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUNDS_TABLE_H
#define NS3_ALLREDUCE_ROUNDS_TABLE_H

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
 * What the headline experiment runs (allreduce-table's options).
 */
struct RoundsTableConfig
{
    std::vector<std::string> schedulers; //!< names; empty: every registered one this build runs
    uint32_t seeds{5};                   //!< Jellyfish seeds 1..seeds, averaged
    uint32_t pieces{1};                  //!< pieces per chunk (k)
    double timeLimit{20};                //!< optimal: seconds per topology and seed
    uint32_t treesPerRoot{1};            //!< optimal: candidate trees per root
    std::string drlModel;                //!< drl: one checkpoint for all (empty: shipped ones)
    uint32_t drlSamples{32};             //!< drl: sampled episodes besides the greedy one
    std::string generalization;          //!< drl: a general checkpoint also run (empty: none)
};

/**
 * \ingroup allreduce-experiment
 * One scheduler on one topology, over its seeds.
 */
struct RoundsTableCell
{
    std::vector<double> rounds;      //!< per seed
    std::vector<double> ratios;      //!< per seed, rounds / bandwidth bound
    double seconds{0};               //!< scheduling time, all seeds
    std::vector<double> lower;       //!< optimal only: proven lower bound per seed
    std::vector<double> upper;       //!< optimal only: best schedule found per seed
    std::vector<double> candidateLower; //!< optimal only: proven on its candidate trees
    std::vector<std::string> status; //!< optimal only: search status per seed
};

/**
 * \ingroup allreduce-experiment
 * One topology of the table.
 */
struct RoundsTableRow
{
    std::string spec;                              //!< its spec (Jellyfish: seed 1)
    std::string name;                              //!< its name (Jellyfish: seeds 1..S)
    uint32_t nodes{0};                             //!< nodes
    uint32_t links{0};                             //!< links
    uint32_t servers{0};                           //!< servers
    uint32_t workloads{0};                         //!< merge workloads
    uint32_t seeds{1};                             //!< seeds averaged
    std::vector<double> bound;                     //!< bandwidth bound per seed
    /// per seed, the best proven lower bound on any AllReduce (ComputeCertifiedBound)
    std::vector<double> lower;
    std::vector<double> best;        //!< per seed, the fewest rounds any scheduler found
    std::vector<std::string> bestBy; //!< per seed, who found them (the first in table order)
    std::map<std::string, RoundsTableCell> cells;  //!< per scheduler
    double general{-1}; //!< drl with the generalization checkpoint on seed 1 (-1: not run)
};

/**
 * \ingroup allreduce-experiment
 * The headline flow-level experiment: the seed paper's nine topologies (its Table 2) x the
 * schedulers, in rounds, with the bandwidth bound, the paper's numbers, and per row the
 * certified interval [best proven lower bound, best known schedule] with every scheduler's gap
 * to both (`optimal` runs last, from the best plan of the others). Run it, then print or write
 * it.
 */
class RoundsTable : public TableExperiment
{
  public:
    /**
     * \param config what to run
     * \throws std::invalid_argument for an unknown scheduler (naming the available ones)
     */
    explicit RoundsTable(RoundsTableConfig config);

    uint64_t GetNSteps() const override;
    /// Schedules and validates every cell.
    void Run(ProgressReporter* progress) override;
    /// Prints the table, its notes and every scheduler's gap to the certified interval.
    void Print(std::ostream& os) const override;
    void WriteCsv(std::ostream& os) const override;
    void WriteJson(std::ostream& os) const override;
    /// Draws rounds over the bandwidth bound per topology and scheduler.
    std::string WriteFigure(const std::string& prefix) const override;
    /// \return the first invalid schedule ("scheduler on topology: error"), empty when none
    const std::string& GetFailure() const override;

    /// \return the rows, after Run
    const std::vector<RoundsTableRow>& GetRows() const;

  private:
    /// Runs every scheduler on one topology (one seed) into row.
    void RunTopology(const std::string& spec, uint32_t seed, RoundsTableRow& row,
                     ProgressReporter* progress);
    /// Prints the comparison of drl with balanced and the generalization rows.
    void PrintDrlNotes(std::ostream& os) const;
    /// Prints the certified interval [lower bound, best known] per row and every scheduler's
    /// gap to both.
    void PrintCertifiedGaps(std::ostream& os) const;
    /// \return whether the table has this scheduler
    bool Has(const std::string& name) const;

    RoundsTableConfig m_config;            //!< what runs
    std::vector<std::string> m_skipped;    //!< "name skipped: reason" for unavailable ones
    bool m_withGeneral{false};             //!< whether the generalization checkpoint runs
    std::vector<RoundsTableRow> m_rows;    //!< the results
    std::string m_invalid;                 //!< the first invalid schedule
    double m_seconds{0};                   //!< wall time of Run
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUNDS_TABLE_H */
