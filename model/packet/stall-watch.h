/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_STALL_WATCH_H
#define NS3_ALLREDUCE_STALL_WATCH_H

#include "packet-scheduler-state.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/workload.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Watches a packet-level AllReduce for lack of progress and says what is stuck. When no data
 * arrives for the timeout, it asks its owner whether to wait longer (a gradient still to come,
 * a TCP retransmission still to come) and, if not, reports the stall: how many transfers
 * finished and a stuck workload, preferring one whose path crosses a link that is down. It
 * also describes workloads for the owner's other error messages.
 */
class StallWatch
{
  public:
    /**
     * \param planned the workloads on their planned paths (kept by reference)
     * \param linkUp tells whether a topology link is up (null: not known)
     */
    void SetWorkloads(const WorkloadSet& planned, Callback<bool, uint32_t> linkUp);

    /**
     * Starts watching an AllReduce that starts now.
     * \param state what the scheduler sees (kept by reference, for the reports and
     *        descriptions, until the next Start or Forget)
     * \param timeout how long without progress is a stall (kept by reference and read at every
     *        check, as an attribute that may change)
     * \param waitMore how long to wait before looking again although the timeout passed
     *        (negative: it is a stall)
     * \param stalled called on a stall (Report says what stalled)
     */
    void Start(const PacketSchedulerState& state,
               const Time& timeout,
               Callback<Time> waitMore,
               Callback<void> stalled);

    /// Data arrived (or a gradient became ready): the quiet time starts again.
    void NotifyProgress();

    /// Stops watching (the run ended, or the next AllReduce starts).
    void Stop();

    /// Stops watching and drops the state and workloads it describes (they are going away).
    void Forget();

    /// \param workload a workload \return "workload 3 (reduce, chunk 1, piece 0, 0 -> 4, path ...)"
    std::string Describe(uint32_t workload) const;

    /// \param workload a workload \return Describe() and the state of its path's links
    std::string DescribeWithLinks(uint32_t workload) const;

    /// \param workload a workload \return a link of its path that is down, or -1
    int64_t FindDownLink(uint32_t workload) const;

    /**
     * \param finished transfers finished \param online a scheduler decides live (then the
     *        report says when no path is left around a link that is down)
     * \return the stall report of the AllReduce watched
     */
    std::string Report(uint32_t finished, bool online) const;

  private:
    /// Looks for a stall; reschedules itself while there is none.
    void Check();
    /// \return the workloads with their paths now (the state's while watching)
    const WorkloadSet& GetWorkloads() const;

    const WorkloadSet* m_planned{nullptr};         //!< the workloads as planned
    const PacketSchedulerState* m_state{nullptr};  //!< the run watched, or none
    Callback<bool, uint32_t> m_linkUp;             //!< link state, for the reports
    Callback<Time> m_waitMore;                     //!< the owner's reasons to wait
    Callback<void> m_stalled;                      //!< the owner's stall handler
    const Time* m_timeout{nullptr};                //!< no-progress time that is a stall
    Time m_origin;                                 //!< when the AllReduce watched started
    Time m_lastProgress;                           //!< when data last arrived
    EventId m_check;                               //!< the pending check
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_STALL_WATCH_H */
