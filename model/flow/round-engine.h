/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUND_ENGINE_H
#define NS3_ALLREDUCE_ROUND_ENGINE_H

#include "aggregator-slots.h"
#include "id-list.h"
#include "scheduler-state.h"

#include "ns3/workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-flow Flow level
 * \ingroup allreduce
 * The flow-level engine: the state a scheduler sees and the round engine that keeps link conflicts
 * and dependencies (doc/allreduce.rst, "Rounds, the round engine and bounds").
 */

/**
 * \ingroup allreduce-flow
 * The flow-level SchedulerState: rounds. It keeps, for a WorkloadSet, which workloads are
 * waiting for dependencies, ready, started in the round being built, and done; which directed
 * links the round uses and which are down; and the round index. It is the one place that
 * tracks link conflicts: schedulers, the DRL environment and the validator all run on it.
 *
 * A round is built one workload at a time (Start), or all at once (StepRound), and closed with
 * CloseRound, which finishes its workloads and makes their dependents ready. Every invalid
 * step (a workload that is not ready, already started, or shares a directed link with one
 * started this round or that is down; an empty round) throws std::invalid_argument and leaves
 * the state as it was (after a refused StepRound, only the order of GetReady may differ).
 * Ready sets and link marks are kept incrementally: no step scans all workloads.
 */
class RoundEngine : public SchedulerState
{
  public:
    /**
     * \param workloads the workloads; must outlive the engine
     */
    explicit RoundEngine(const WorkloadSet& workloads);

    /// Back to the start: nothing done, round 0, no link used (links down stay down).
    void Reset();

    /**
     * Takes another engine's state (statuses, rounds, links, slots) and keeps its own
     * workloads: for an engine of a copy of the same workloads (a search's twin environments,
     * which restore each other's snapshots).
     * \param other an engine of workloads equal to this one's
     * 	hrows std::invalid_argument when it runs another number of workloads
     */
    void CopyStateFrom(const RoundEngine& other);

    const WorkloadSet& GetWorkloads() const override;
    WorkloadStatus GetStatus(uint32_t id) const override;
    const std::vector<uint32_t>& GetReady() const override;
    const std::vector<uint32_t>& GetReadyLog() const override;
    /// \return the workloads started in the round being built, in the order started
    const std::vector<uint32_t>& GetStarted() const override;
    const std::vector<uint32_t>& GetFinished() const override;
    /// \return the index of the round being built (the number of closed rounds)
    uint32_t GetRound() const override;
    double GetTime() const override;
    bool IsLinkBusy(uint32_t directedLink) const override;
    bool IsLinkDown(uint32_t directedLink) const override;
    bool IsSaturated() const override;
    bool CanStart(uint32_t id) const override;
    /**
     * Adds a workload to the round being built.
     * \param id a ready workload sharing no directed link with those started, none down
     * \throws std::invalid_argument saying why it cannot be added
     */
    void Start(uint32_t id) override;

    /**
     * Takes a link out of service or back (both directions). A workload whose path crosses a
     * down link cannot start; those already started this round stay.
     * \param link an undirected link of the topology
     * \param down true to take it down, false to bring it back
     * \throws std::out_of_range for a link that does not exist
     */
    void SetLinkDown(uint32_t link, bool down);

    /**
     * Marks a directed link as held by traffic outside these workloads (another job's round on
     * a shared cluster, doc/allreduce.rst "Several jobs"): busy, so no workload can start on
     * it, until released. Holds last across rounds and Reset, like down links.
     * \param directedLink a directed link
     * \param held true to hold it, false to release it
     * \throws std::out_of_range for a link that does not exist
     */
    void SetLinkHeld(uint32_t directedLink, bool held);

    /**
     * Takes a workload started in the round being built back out of it; it is ready again.
     * \param id a workload of the round being built
     * \throws std::invalid_argument when it is not in the round being built
     */
    void Withdraw(uint32_t id);

    /**
     * Closes the round being built: its workloads are done, their dependents may become ready.
     * \throws std::invalid_argument when no workload was started
     */
    void CloseRound();
    /**
     * Runs one whole round: starts every workload given, then closes the round. All or
     * nothing: on an invalid workload nothing is started and the error names it.
     * \param ids the workloads of the round
     */
    void StepRound(const std::vector<uint32_t>& ids);

    /// \param id a workload \return the round it finished in (NO_INDEX if not done)
    uint32_t GetRoundOf(uint32_t id) const;
    /// \return the closed rounds so far
    const std::vector<std::vector<uint32_t>>& GetRounds() const;

  private:
    /// \return why id cannot start now, or an empty string when it can
    std::string WhyNot(uint32_t id) const;
    /// \return "a->b" for a directed link
    std::string Describe(uint32_t directedLink) const;
    /// Appends id to the ready list.
    void PushReady(uint32_t id);
    /// Takes a started workload back out of the round (for a refused StepRound).
    void Unstart(uint32_t id);
    /// \param directedLink a directed link \return true when it is down or held
    bool IsUnavailable(uint32_t directedLink) const;
    /**
     * Changes whether a directed link is down or held, keeping the port counts.
     * \param directedLink the link \param marks m_down or m_held \param value the new mark
     */
    void Mark(uint32_t directedLink, std::vector<uint8_t>& marks, bool value);

    const WorkloadSet* m_workloads;           //!< the workloads
    std::vector<WorkloadStatus> m_status;     //!< per workload
    std::vector<uint32_t> m_pending;          //!< per dependency group, unfinished members
    std::vector<uint32_t> m_roundOf;          //!< per workload, the round it finished in
    IdList m_ready;                           //!< ready, not started
    std::vector<uint32_t> m_started;          //!< started this round
    std::vector<uint32_t> m_finished;         //!< done, in finishing order
    std::vector<uint32_t> m_linkStamp;        //!< per directed link, round+1 when busy
    std::vector<uint8_t> m_down;              //!< per directed link, 1 when down
    std::vector<uint8_t> m_held;              //!< per directed link, 1 when held by others
    std::vector<uint8_t> m_fromServer;        //!< per directed link, 1 when it leaves a server
    uint32_t m_serverPorts{0};                //!< directed links leaving servers
    uint32_t m_serverPortsUnavailable{0};     //!< of those, down or held
    uint32_t m_serverPortsBlocked{0};         //!< of those, busy this round, down or held
    std::vector<std::vector<uint32_t>> m_rounds; //!< closed rounds
    AggregatorSlots m_slots;                  //!< aggregating switches' slots in use
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUND_ENGINE_H */
