/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SHARED_LINKS_H
#define NS3_ALLREDUCE_SHARED_LINKS_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/object.h"

#include "ns3/id-span.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The directed links of a cluster as the controllers of several jobs share them when they
 * decide jointly (doc/allreduce.rst, "Several jobs"): how many transfers of every job are in
 * flight on each, and who waits for links to free up. A controller holds its transfer's links
 * when it starts one and releases them when it ends; after releases, the waiting controllers
 * are asked to decide again (in one event at the same time, after the releasing controller's
 * own decision), those with the least work left first.
 */
class SharedLinks : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// \param directedLinks the cluster's directed links (2 per link)
    void SetNDirectedLinks(uint32_t directedLinks);

    /// \return per directed link, transfers of every job in flight on it
    const std::vector<uint32_t>& GetInFlight() const;

    /**
     * \param links the directed links of a transfer that starts
     * \throws std::out_of_range for a link that does not exist
     */
    void Hold(IdSpan links);

    /**
     * \param links the directed links of a transfer that ended (as held)
     * \throws std::logic_error for a link not held
     */
    void Release(IdSpan links);

    /**
     * \param workLeft says how much work the waiter has left (any unit common to all waiters)
     * \param decide asks it to decide
     * \return its key, for RemoveWaiter
     */
    uint64_t AddWaiter(Callback<double> workLeft, Callback<void> decide);

    /// \param key what AddWaiter returned
    void RemoveWaiter(uint64_t key);

  protected:
    void DoDispose() override;

  private:
    /// Asks every waiter to decide, least work left first.
    void NotifyWaiters();

    /// A controller that may decide when links free up.
    struct Waiter
    {
        Callback<double> workLeft; //!< how much it has left
        Callback<void> decide;     //!< asks it to decide
    };

    std::vector<uint32_t> m_inFlight;    //!< per directed link
    std::map<uint64_t, Waiter> m_waiters; //!< by key, in the order they came
    uint64_t m_nextKey{0};               //!< the next waiter's key
    EventId m_notify;                    //!< the pending NotifyWaiters
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SHARED_LINKS_H */
