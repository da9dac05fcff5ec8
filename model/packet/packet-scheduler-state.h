/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PACKET_SCHEDULER_STATE_H
#define NS3_ALLREDUCE_PACKET_SCHEDULER_STATE_H

#include "ns3/aggregator-slots.h"
#include "ns3/id-list.h"
#include "ns3/scheduler-state.h"
#include "ns3/workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The SchedulerState of a packet-level run: what the AllReduceController knows at a decision
 * point inside the simulation (doc/allreduce.rst, "Decisions inside ns-3").
 *
 * Unlike the flow-level RoundEngine, workloads finish one at a time (Finish), whenever their
 * transfer arrives; a directed link is busy while a started workload that uses it has not
 * finished; a workload is ready when its dependencies are done and the gradient of every server
 * whose contribution it carries is ready (HoldServer, ReleaseServer: stragglers). Links go down
 * and up (SetLinkDown) and a workload may be routed along another path (SetPath), so the state
 * owns its copy of the workloads. On a topology whose aggregating switches have a finite number
 * of slots, a workload may start only when its chunk piece holds or can take the slots it needs
 * (AggregatorSlots, the same rule as the flow level's).
 *
 * Start only records the decision: the controller takes the workloads started since it last
 * asked (TakeStarted) and injects them into the simulation.
 */
class PacketSchedulerState : public SchedulerState
{
  public:
    /**
     * \param workloads the workloads (copied: SetPath changes the copy)
     */
    explicit PacketSchedulerState(WorkloadSet workloads);
    PacketSchedulerState(const PacketSchedulerState&) = delete; // m_slots points at m_workloads
    PacketSchedulerState& operator=(const PacketSchedulerState&) = delete;

    const WorkloadSet& GetWorkloads() const override;
    WorkloadStatus GetStatus(uint32_t id) const override;
    const std::vector<uint32_t>& GetReady() const override;
    const std::vector<uint32_t>& GetReadyLog() const override;
    /// \return the workloads in flight (started and not finished), in the order they started
    const std::vector<uint32_t>& GetStarted() const override;
    const std::vector<uint32_t>& GetFinished() const override;
    /// \return the number of decisions that started something (barrier: rounds started)
    uint32_t GetRound() const override;
    double GetTime() const override;
    bool IsLinkBusy(uint32_t directedLink) const override;
    bool IsLinkDown(uint32_t directedLink) const override;
    bool IsSaturated() const override;
    bool CanStart(uint32_t id) const override;
    void Start(uint32_t id) override;
    double GetLinkLoad(uint32_t directedLink) const override;
    double GetLinkRate(uint32_t directedLink) const override;
    std::vector<uint32_t> GetAwaitingGradient() const override;
    bool HasBarriers() const override;

    /// \param barriers false in async mode (SchedulerState::HasBarriers); true by default
    void SetBarriers(bool barriers);

    /// \param seconds simulated seconds since the AllReduce started
    void SetTime(double seconds);
    /// Counts a decision that started something (GetRound).
    void CountRound();
    /// \return the workloads started since the last call, in the order started
    std::vector<uint32_t> TakeStarted();

    /**
     * A started workload's transfer arrived: it is done, its links are free and its dependents
     * may become ready.
     * \param id a started workload
     * \throws std::invalid_argument when it is not started
     */
    void Finish(uint32_t id);

    /**
     * Takes a link out of service or back (both directions).
     * \param link an undirected link of the topology
     * \param down true to take it down, false to bring it back
     * \throws std::out_of_range for a link that does not exist
     */
    void SetLinkDown(uint32_t link, bool down);

    /**
     * Marks the directed links other jobs' transfers use now, on a shared cluster
     * (doc/allreduce.rst, "Several jobs"): busy for this state's scheduler, as RoundEngine's
     * held links are.
     * \param inFlight per directed link, transfers in flight on it, of every job, this one's
     *        included: a link is held when it carries more than this state's own
     * \throws std::invalid_argument on a wrong size
     */
    void SetSharedLinkUse(const std::vector<uint32_t>& inFlight);
    /**
     * Sets what other traffic used of each directed link over the last interval.
     * \param load per directed link, the fraction of its capacity (0 when none)
     * \throws std::invalid_argument on a wrong size
     */
    void SetLinkLoads(std::vector<double> load);
    /**
     * Sets each directed link's data rate relative to the fastest (uneven links).
     * \param rate per directed link, in (0, 1]
     * \throws std::invalid_argument on a wrong size or a value outside (0, 1]
     */
    void SetLinkRates(std::vector<double> rate);

    /**
     * Before anything starts: the server's gradient is not ready yet, so no workload that
     * carries its contribution is ready until ReleaseServer.
     * \param server a server
     * \throws std::logic_error once a workload has started, std::out_of_range for no server
     */
    void HoldServer(uint32_t server);
    /**
     * The server's gradient is ready: workloads that waited only for it become ready.
     * \param server a held server (a server not held is ignored)
     */
    void ReleaseServer(uint32_t server);
    /// \param server a server \return true when its gradient is ready
    bool IsServerReady(uint32_t server) const;

    /**
     * Routes a workload that has not finished along another path between its two servers; a
     * workload in flight moves its busy marks to the new path.
     * \param id a workload not done
     * \param path nodes from its src to its dst
     * \throws std::invalid_argument for a done workload or a path that is not one (see
     *         WorkloadSet::SetPath)
     */
    void SetPath(uint32_t id, std::vector<uint32_t> path);
    /**
     * \param from a node \param to another node
     * \return a shortest path (fewest links) from one to the other over links that are up, the
     *         first in link order among equals, or an empty vector when there is none
     */
    std::vector<uint32_t> FindUpPath(uint32_t from, uint32_t to) const;
    /**
     * \param id a workload
     * \return a directed link of its path that is down, or NO_INDEX
     */
    uint32_t FindDownLink(uint32_t id) const;

  private:
    /// Appends id to the ready list.
    void PushReady(uint32_t id);
    /// One fewer thing for id to wait for; it becomes ready at none.
    void Release(uint32_t id);
    /// \param l a directed link \param delta +1 or −1 to a busy count or a down mark: keeps
    ///        the count of blocked server ports
    void Block(uint32_t l, int delta);
    /// \param l a directed link \return true when busy or down
    bool IsBlocked(uint32_t l) const;
    /// Marks id's links busy (+1) or frees them (−1).
    void Occupy(uint32_t id, int delta);

    WorkloadSet m_workloads;                  //!< the workloads, with their current paths
    AggregatorSlots m_slots;                  //!< aggregating switches' slots in use
    std::vector<WorkloadStatus> m_status;     //!< per workload
    std::vector<uint32_t> m_pending;          //!< per workload, what it still waits for
    std::vector<uint32_t> m_lateCarried;      //!< per workload, held servers it carries
    IdList m_ready;                           //!< ready, not started
    std::vector<uint32_t> m_inFlight;         //!< started, not finished, in start order
    std::vector<uint32_t> m_finished;         //!< done, in finishing order
    std::vector<uint32_t> m_newlyStarted;     //!< started since TakeStarted
    std::vector<uint32_t> m_busy;             //!< per directed link, workloads in flight on it
    std::vector<uint8_t> m_down;              //!< per directed link, 1 when down
    std::vector<uint8_t> m_others;            //!< per directed link, 1 when other jobs use it
    std::vector<double> m_load;               //!< per directed link, other traffic's share
    std::vector<double> m_rate;               //!< per directed link, relative data rate
    std::vector<uint8_t> m_fromServer;        //!< per directed link, 1 when it leaves a server
    uint32_t m_serverPorts{0};                //!< directed links leaving servers
    uint32_t m_serverPortsBlocked{0};         //!< of those, busy or down
    std::vector<uint8_t> m_held;              //!< per server, 1 while its gradient is not ready
    uint32_t m_nHeld{0};                      //!< servers held
    uint32_t m_round{0};                      //!< decisions that started something
    bool m_barriers{true};                    //!< see HasBarriers
    double m_time{0};                         //!< simulated seconds since the start
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PACKET_SCHEDULER_STATE_H */
