/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUND_ENGINE_H
#define NS3_ALLREDUCE_ROUND_ENGINE_H

#include "workload.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * The round-based flow-level environment that schedulers and the learning code drive. It
 * keeps, for a WorkloadSet, which workloads are waiting for dependencies, ready, picked for the
 * round being built, and done; which directed links the round uses; and the round index.
 *
 * A round is built one workload at a time (Add), or all at once (StepRound), and closed with
 * CloseRound, which finishes its workloads and makes their dependents ready. Every invalid
 * step (a workload that is not ready, already picked, or shares a directed link with one
 * picked this round; an empty round) throws std::invalid_argument and leaves the state as it
 * was (after a refused StepRound, only the order of GetReady may differ). Ready sets and link
 * marks are kept incrementally: no step scans all workloads.
 */
class RoundEngine
{
  public:
    /// Where a workload stands.
    enum class Status : uint8_t
    {
        WAITING, //!< some dependency has not finished
        READY,   //!< every dependency finished; not picked yet
        PICKED,  //!< added to the round being built
        DONE,    //!< finished in a closed round
    };

    /**
     * \param workloads the workloads; must outlive the engine
     */
    explicit RoundEngine(const WorkloadSet& workloads);

    /// Back to the start: nothing done, round 0, no link used.
    void Reset();

    /// \return the workloads the engine runs
    const WorkloadSet& GetWorkloads() const;
    /// \return the index of the round being built (the number of closed rounds)
    uint32_t GetRound() const;
    /// \return true when every workload is done
    bool IsDone() const;
    /// \return the number of workloads done
    uint32_t GetNDone() const;
    /// \param id a workload \return its status
    Status GetStatus(uint32_t id) const;
    /// \return the ready workloads not picked yet (order is stable for a given history)
    const std::vector<uint32_t>& GetReady() const;
    /// \return the workloads picked for the round being built, in the order added
    const std::vector<uint32_t>& GetPicked() const;
    /// \param directedLink a directed link \return true when the round being built uses it
    bool IsLinkBusy(uint32_t directedLink) const;
    /// \param id a workload \return true when it is ready and shares no link with the picked
    bool CanAdd(uint32_t id) const;
    /// \return the ready workloads that could still join the round (a scan of the ready set)
    std::vector<uint32_t> GetAddable() const;
    /// \return the ready workloads that would conflict with those picked this round
    std::vector<uint32_t> GetConflicting() const;

    /**
     * Adds a workload to the round being built.
     * \param id a ready workload sharing no directed link with those picked
     * \throws std::invalid_argument saying why it cannot be added
     */
    void Add(uint32_t id);
    /**
     * Closes the round being built: its workloads are done, their dependents may become ready.
     * \throws std::invalid_argument when no workload was picked
     */
    void CloseRound();
    /**
     * Runs one whole round: adds every workload given, then closes the round. All or nothing:
     * on an invalid workload nothing is added and the error names it.
     * \param ids the workloads of the round
     */
    void StepRound(const std::vector<uint32_t>& ids);

    /// \param id a workload \return the round it finished in (NO_INDEX if not done)
    uint32_t GetRoundOf(uint32_t id) const;
    /// \return the closed rounds so far
    const std::vector<std::vector<uint32_t>>& GetRounds() const;

  private:
    /// \return why id cannot be added now, or an empty string when it can
    std::string WhyNot(uint32_t id) const;
    /// Removes id from the ready list in O(1).
    void RemoveReady(uint32_t id);
    /// Appends id to the ready list.
    void PushReady(uint32_t id);

    const WorkloadSet* m_workloads;           //!< the workloads
    std::vector<Status> m_status;             //!< per workload
    std::vector<uint32_t> m_pending;          //!< per workload, unfinished dependencies
    std::vector<uint32_t> m_roundOf;          //!< per workload, the round it finished in
    std::vector<uint32_t> m_ready;            //!< ready, not picked
    std::vector<uint32_t> m_readyPos;         //!< per workload, its index in m_ready
    std::vector<uint32_t> m_picked;           //!< picked this round
    std::vector<uint32_t> m_linkStamp;        //!< per directed link, round+1 when busy
    std::vector<std::vector<uint32_t>> m_rounds; //!< closed rounds
    uint32_t m_nDone{0};                      //!< workloads done
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUND_ENGINE_H */
