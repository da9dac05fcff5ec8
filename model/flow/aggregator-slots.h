/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_AGGREGATOR_SLOTS_H
#define NS3_ALLREDUCE_AGGREGATOR_SLOTS_H

#include "ns3/workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-flow
 * The slot rule of aggregating switches (doc/allreduce.rst, "Aggregation in the network"): a
 * switch holds at most its number of slots of chunk pieces at a time.
 *
 * The workloads of one chunk piece in one phase form a group. When the group's first workload
 * starts, the group takes one slot on every aggregating switch it merges or replicates at, all
 * at once (as SwitchML's workers claim a slot by its index before they send); it gives a
 * switch's slot back when the switch's last send of the group finishes. Taking them all at once
 * means a group that has started never waits for a slot, so no order of starts can deadlock:
 * when nothing runs, every slot is free. Switches with unlimited slots are not counted.
 */
class AggregatorSlots
{
  public:
    /**
     * \param workloads the workloads; must outlive this object
     */
    explicit AggregatorSlots(const WorkloadSet& workloads);

    /// \param topology a topology \return true when some switch has a finite number of slots
    static bool HasLimitedSlots(const Topology& topology);

    /// \return true when some switch has a finite number of slots (else nothing is counted)
    bool IsLimited() const;
    /// Back to the start: every slot free.
    void Reset();
    /// Reads these workloads from now on (a copy of the ones it was made for).
    /// \param workloads the workloads; must outlive this object
    void Rebind(const WorkloadSet& workloads);
    /**
     * \param workload a workload
     * \return empty when it may start as far as slots go (its group holds its slots already, or
     *         every switch of its group has one free), else why not, naming a full switch
     */
    std::string WhyNot(uint32_t workload) const;
    /// \param workload a workload \return true when WhyNot is empty
    bool CanStart(uint32_t workload) const;
    /// Records a start: the first of its group takes the group's slots.
    /// \param workload a workload that CanStart
    void Start(uint32_t workload);
    /// Takes a start back: the group gives its slots back when none of it has started.
    /// \param workload a started, unfinished workload
    void Unstart(uint32_t workload);
    /// Records a finish: a switch's last send of the group gives the switch's slot back.
    /// \param workload a started workload
    void Finish(uint32_t workload);
    /// \param node a switch \return the slots of it in use
    uint32_t GetUsed(uint32_t node) const;

  private:
    /// One switch a group takes a slot on.
    struct Hold
    {
        uint32_t node;  //!< the switch
        uint32_t sends; //!< the group's sends from it not finished yet
    };

    /// \param workload a workload \return its group
    uint32_t GroupOf(uint32_t workload) const;
    /// \param workload a workload \return a switch of its group without a free slot when the
    ///         group has not started, else NO_INDEX
    uint32_t FindFullSwitch(uint32_t workload) const;

    const WorkloadSet* m_workloads;           //!< the workloads
    std::vector<uint32_t> m_first;            //!< per group, its first entry in m_holds
    std::vector<Hold> m_holds;                //!< per group, the switches it holds
    std::vector<uint32_t> m_sends;            //!< per entry of m_holds, sends at the start
    std::vector<uint32_t> m_started;          //!< per group, workloads started (or finished)
    std::vector<uint32_t> m_used;             //!< per node, slots in use
    std::vector<uint32_t> m_slots;            //!< per node, its slots (0: not counted)
    bool m_limited{false};                    //!< some switch has finite slots
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_AGGREGATOR_SLOTS_H */
