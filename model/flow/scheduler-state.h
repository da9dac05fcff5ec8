/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SCHEDULER_STATE_H
#define NS3_ALLREDUCE_SCHEDULER_STATE_H

#include "ns3/workload.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-flow
 * Where a workload stands at a decision point.
 */
enum class WorkloadStatus : uint8_t
{
    WAITING, //!< some dependency has not finished
    READY,   //!< every dependency finished; not started
    STARTED, //!< started and not finished (flow level: in the round being built)
    DONE,    //!< finished
};

/**
 * \ingroup allreduce-flow
 * What a scheduler sees at a decision point, and the one thing it can do there: start a
 * workload (doc/allreduce.rst, "Schedulers"). Every engine that runs an AllReduce implements
 * it: RoundEngine at flow level (a decision point is the start of a round, or any moment while
 * the round is built), the packet-level controller inside ns-3.
 *
 * A workload can start when it is ready and none of the directed links of its path is busy
 * (used by a started workload) or down. Start refuses anything else with
 * std::invalid_argument saying why, and leaves the state as it was.
 */
class SchedulerState
{
  public:
    virtual ~SchedulerState();

    /// \return the workloads being run
    virtual const WorkloadSet& GetWorkloads() const = 0;
    /// \param id a workload \return its status
    virtual WorkloadStatus GetStatus(uint32_t id) const = 0;
    /// \return the ready workloads not started (order is stable for a given history)
    virtual const std::vector<uint32_t>& GetReady() const = 0;
    /**
     * \return every workload in the order it became ready since the run started (one made
     *         ready again, e.g. withdrawn from a round, appears again; some may have started
     *         since): for schedulers that follow the ready set as it grows instead of reading
     *         all of GetReady at every decision
     */
    virtual const std::vector<uint32_t>& GetReadyLog() const = 0;
    /// \return the started workloads not finished, in the order they started
    virtual const std::vector<uint32_t>& GetStarted() const = 0;
    /// \return the finished workloads, in the order they finished
    virtual const std::vector<uint32_t>& GetFinished() const = 0;
    /// \return the number of decision rounds closed so far (flow level: closed rounds)
    virtual uint32_t GetRound() const = 0;
    /// \return simulated seconds since the AllReduce started (flow level: 0, rounds have no
    ///         duration; GetRound is its clock)
    virtual double GetTime() const = 0;
    /// \param directedLink a directed link \return true when a started workload (or other
    ///         traffic) uses it: no workload on it can start (CanStart is false)
    virtual bool IsLinkBusy(uint32_t directedLink) const = 0;
    /// \param directedLink a directed link \return true when it cannot carry anything now: no
    ///         workload on it can start
    virtual bool IsLinkDown(uint32_t directedLink) const = 0;
    /// \return true when every directed link leaving a server is busy or down, so that no
    ///         workload can start (every workload leaves a server)
    virtual bool IsSaturated() const = 0;
    /// \param id a workload \return true when Start(id) would succeed
    virtual bool CanStart(uint32_t id) const = 0;
    /**
     * Starts a workload now.
     * \param id a workload that CanStart
     * \throws std::invalid_argument saying why it cannot start
     */
    virtual void Start(uint32_t id) = 0;

    /**
     * \param directedLink a directed link
     * \return the fraction of its capacity that traffic other than this AllReduce used over the
     *         last interval (packet level: device counters); the default, for the flow level
     *         where nothing else runs, is 0
     */
    virtual double GetLinkLoad(uint32_t directedLink) const;
    /**
     * \param directedLink a directed link
     * \return its data rate relative to the fastest link of the network (1 for the fastest);
     *         the default, for the flow level where every link carries a piece per round, is 1
     */
    virtual double GetLinkRate(uint32_t directedLink) const;
    /**
     * \return the workloads that wait only for a late gradient: their dependencies are done,
     *         but they carry the contribution of a server whose gradient is not ready yet
     *         (packet level: stragglers), in id order; the default, for the flow level where
     *         every gradient is ready at the start, is none
     */
    virtual std::vector<uint32_t> GetAwaitingGradient() const;
    /**
     * \return true when the workloads started at a decision all finish before the next
     *         decision starts more (rounds are barriers: flow level, packet-level barrier
     *         mode; a decision may still add to the round in flight when a late gradient
     *         arrives); false in packet-level async mode, where a decision comes whenever a
     *         transfer finishes. The default is true
     */
    virtual bool HasBarriers() const;

    /**
     * \param id a workload
     * \return how long its transfer is, relative to one link at the fastest rate: the links
     *         of its path over the slowest one's rate (GetLinkRate)
     */
    double GetTransferLength(uint32_t id) const;
    /**
     * \param rounds planned rounds of these workloads
     * \param from a round before which every round is known to be wholly started or done
     * \return the plan's frontier: the first round from `from` on not wholly started or done
     *         (rounds.size() when there is none)
     */
    uint32_t GetFrontier(const std::vector<std::vector<uint32_t>>& rounds, uint32_t from = 0) const;
    /// \return the number of finished workloads
    uint32_t GetNDone() const;
    /// \return true when every workload finished
    bool IsDone() const;
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SCHEDULER_STATE_H */
