/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ID_LIST_H
#define NS3_ALLREDUCE_ID_LIST_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-flow
 * A set of ids from 0 to n−1 kept as a vector, with adding and removing in O(1): removing an
 * id moves the last one into its place, so the order is stable for a given history but not
 * the order of adding (GetLog keeps that). The engines' ready lists (RoundEngine, PacketSchedulerState).
 */
class IdList
{
  public:
    /// Empties the list for ids 0..n−1. \param n how many ids there can be
    void Reset(uint32_t n);
    /// \param id an id not in the list: appends it
    void Push(uint32_t id);
    /// \param id an id in the list: takes it out, the last id taking its place
    void Remove(uint32_t id);
    /// \return the ids in the list
    const std::vector<uint32_t>& Get() const;
    /// \return every id pushed since the last Reset, in the order pushed (an id pushed again
    ///         after its removal appears again): for readers that follow the list as it grows
    const std::vector<uint32_t>& GetLog() const;

  private:
    std::vector<uint32_t> m_ids;      //!< the list
    std::vector<uint32_t> m_position; //!< per id, its index in m_ids (NO_INDEX: not in it)
    std::vector<uint32_t> m_log;      //!< every id pushed since Reset, in order
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ID_LIST_H */
