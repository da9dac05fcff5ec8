/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DYNAMIC_TABLE_H
#define NS3_ALLREDUCE_DYNAMIC_TABLE_H

#include "allreduce-experiment.h"
#include "table-experiment.h"

#include "ns3/topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * What the dynamic-conditions experiment runs (allreduce-dynamic's options).
 */
struct DynamicTableConfig
{
    std::vector<std::string> topologies; //!< topology specs
    std::vector<std::string> schedulers; //!< scheduler names
    std::vector<std::string> scenarios;  //!< of DynamicTable::SCENARIOS
    uint32_t seed{1};                    //!< draws the failed link, its time, the late servers,
                                         //!< the background pairs and the slowed links
    PacketRunConfig run;                 //!< every run's settings (mode, gradient, rate...)
};

/**
 * \ingroup allreduce-experiment
 * One scheduler on one topology under one scenario, replayed and decided online.
 */
struct DynamicTableRow
{
    std::string topology;     //!< topology name
    std::string scheduler;    //!< scheduler name
    std::string scenario;     //!< scenario name
    std::string conditions;   //!< what the scenario did here, e.g. "link 7 down at 0.61 ms"
    uint32_t planRounds{0};   //!< the plan's rounds
    double replayTime{0};     //!< replay's completion time, seconds (when finished)
    double onlineTime{0};     //!< online's, seconds (when finished)
    bool replayFinished{false}; //!< replay ended with the exact sum everywhere
    bool onlineFinished{false}; //!< online ended with the exact sum everywhere
    std::string replayError;  //!< why replay did not finish (a stall report)
    std::string onlineError;  //!< why online did not finish
    uint32_t decisions{0};    //!< online decision points
    uint32_t onlineRounds{0}; //!< rounds online started
    uint32_t rerouted{0};     //!< workloads online routed around a failed link
    double decisionWallS{0};  //!< wall-clock seconds online spent deciding, in all
    double decisionWallMaxS{0}; //!< the longest online decision, wall-clock seconds
    uint32_t replans{0};      //!< drl: searches from the live state (others: 0)

    /// \return online's completion time over replay's (0 when either did not finish)
    double GetRatio() const;
};

/**
 * \ingroup allreduce-experiment
 * Decisions inside ns-3 under dynamic conditions (doc/allreduce.rst, "Decisions inside ns-3"):
 * each plan replayed as made and decided online by its scheduler, packet by packet, in each
 * scenario:
 *  - "none": nothing perturbed;
 *  - "link-down": one link, drawn among those whose loss leaves the graph connected, goes down
 *    at a time drawn in [10%, 90%] of the plan's unperturbed replay;
 *  - "stragglers": two servers drawn at random are late by 30% of that time;
 *  - "background": every server offers 30% of its link rate to a random server (OnOff, TCP);
 *  - "slow-links": a quarter of the links, drawn at random, run at half their rate.
 * The draws depend on the topology and the seed only, so every scheduler meets the same link,
 * servers, pairs and slow links (the times scale with each plan's own unperturbed time). A run
 * that ends without the exact sum fails the experiment, but a replay that stalls on a failed
 * link is a result.
 */
class DynamicTable : public TableExperiment
{
  public:
    /// The scenarios, in their order.
    static const std::vector<std::string> SCENARIOS;

    /**
     * \param config what to run
     * \throws std::invalid_argument for an unknown scheduler, scenario or mode, or a scheduler
     *         that cannot decide online (optimal)
     */
    explicit DynamicTable(DynamicTableConfig config);

    uint64_t GetNSteps() const override;
    /// Plans each topology with each scheduler and runs it in every scenario, both ways.
    void Run(ProgressReporter* progress) override;
    /// Prints online over replay per topology and per scheduler, one column per scenario.
    void Print(std::ostream& os) const override;
    void WriteCsv(std::ostream& os) const override;
    void WriteJson(std::ostream& os) const override;
    /// Draws online over replay per topology and scheduler, a panel per scenario.
    std::string WriteFigure(const std::string& prefix) const override;
    const std::string& GetFailure() const override;

    /// \return the rows, after Run
    const std::vector<DynamicTableRow>& GetRows() const;

    /**
     * \param topology a topology \param seed the draw
     * \return a link whose loss leaves the topology connected, drawn with the seed, or
     *         NO_INDEX when every link is a bridge
     */
    static uint32_t DrawFailingLink(const Topology& topology, uint32_t seed);

  private:
    /// Runs one scheduler's plan on one topology in every scenario, appending the rows.
    void RunScheduler(const Topology& topology,
                      const std::string& scheduler,
                      ProgressReporter* progress);
    /// Notes the first run that did not end with the exact sum, unless it may stall.
    void Check(const DynamicTableRow& row, bool replayMayStall);
    /// Prints each scheduler's completion times, replayed and online, per scenario.
    /// \param os where to
    void PrintTimes(std::ostream& os) const;
    /// Prints the wall-clock time each scheduler took per online decision. \param os where to
    void PrintDecisionTimes(std::ostream& os) const;

    DynamicTableConfig m_config;         //!< what runs
    std::vector<DynamicTableRow> m_rows; //!< the results
    std::string m_failed;                //!< the first failed run
    double m_seconds{0};                 //!< wall time of Run
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DYNAMIC_TABLE_H */
