/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PACKET_TABLE_H
#define NS3_ALLREDUCE_PACKET_TABLE_H

#include "allreduce-experiment.h"
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
 * What the fidelity experiment runs (allreduce-packet-table's options).
 */
struct PacketTableConfig
{
    std::vector<std::string> schedulers; //!< scheduler names
    std::vector<std::string> modes;      //!< controller modes (barrier, async)
    std::vector<std::string> topologies; //!< topology specs
    std::vector<std::string> shares;     //!< ina= shares also run on every topology (empty:
                                         //!< none), with the schedulers that aggregate
    std::vector<std::string> aggregationTopologies; //!< specs run for the comparison with
                                                    //!< aggregation only (every scheduler but
                                                    //!< drl: no checkpoint ships for them)
    PacketRunConfig run;                 //!< every run's settings (mode set per run)
};

/**
 * \ingroup allreduce-experiment
 * One schedule on one topology, run once per mode.
 */
struct PacketTableRow
{
    std::string topology;        //!< topology name
    std::string base;            //!< the topology's name without aggregation
    std::string share;           //!< its ina= share, empty without aggregation
    std::string scheduler;       //!< scheduler name
    uint32_t servers{0};         //!< servers
    uint32_t rounds{0};          //!< the schedule's rounds
    double pieceTime{0};         //!< T_S, seconds
    double predictedTime{0};     //!< rounds x T_S, seconds
    std::map<std::string, double> completionTime; //!< per mode, seconds
    std::map<std::string, bool> verified;         //!< per mode: finished and exact
    std::map<std::string, uint64_t> events;       //!< per mode, simulator events
    std::map<std::string, double> wallSeconds;    //!< per mode, wall time of the simulation
    std::map<std::string, DcnTopologyHelper::TransportCounters> counters; //!< per mode: pause
                                                  //!< frames, ECN marks, CNPs, drops

    /// \param mode a mode \return packet-level time over the flow-level prediction
    double GetRatio(const std::string& mode) const;
    /// \return whether every mode finished and verified
    bool IsVerified() const;
};

/**
 * \ingroup allreduce-experiment
 * The fidelity experiment: each schedule run packet by packet in ns-3 in every mode, beside
 * the flow-level prediction rounds x T_S, every result verified exactly. With shares of
 * aggregating switches (doc/allreduce.rst, "Aggregation in the network"), every topology runs
 * again with each share, with the schedulers whose workloads merge at switches (all but ring,
 * which aggregation leaves unchanged, and drl and optimal), and a second table compares the
 * fastest completion with and without aggregation.
 */
class PacketTable : public TableExperiment
{
  public:
    /**
     * \param config what to run
     * \throws std::invalid_argument for an unknown scheduler or mode
     */
    explicit PacketTable(PacketTableConfig config);

    uint64_t GetNSteps() const override;
    /// Schedules each topology with each scheduler and runs it in every mode.
    void Run(ProgressReporter* progress) override;
    void Print(std::ostream& os) const override;
    void WriteCsv(std::ostream& os) const override;
    void WriteJson(std::ostream& os) const override;
    /// Draws packet-level time over the prediction per topology and scheduler, a panel per mode.
    std::string WriteFigure(const std::string& prefix) const override;
    /// \return the first run that did not finish or verify, empty when none
    const std::string& GetFailure() const override;

    /// \return the rows, after Run
    const std::vector<PacketTableRow>& GetRows() const;
    /// \param name a scheduler \return whether it runs on the topologies with aggregation
    static bool RunsWithAggregation(const std::string& name);

  private:
    /// Schedules one topology with each scheduler and runs it in every mode.
    void RunTopology(const Topology& topo, const std::string& share,
                     const std::vector<std::string>& schedulers, ProgressReporter* progress);
    /// Prints the fastest completion per topology without and with aggregation.
    void PrintAggregation(std::ostream& os) const;
    /// \return the schedulers that run with aggregation
    std::vector<std::string> GetAggregatingSchedulers() const;
    /**
     * \param base a topology without aggregation \param share a share, or empty
     * \return the row of the fastest completion in the first mode, or nullptr
     */
    const PacketTableRow* FindFastest(const std::string& base, const std::string& share) const;
    PacketTableConfig m_config;        //!< what runs
    std::vector<PacketTableRow> m_rows; //!< the results
    std::string m_failed;              //!< the first failed run
    double m_seconds{0};               //!< wall time of Run
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PACKET_TABLE_H */
