/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LINK_LOAD_MONITOR_H
#define NS3_ALLREDUCE_LINK_LOAD_MONITOR_H

#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Measures, per directed link, how much of its capacity traffic other than the AllReduce used
 * (doc/allreduce.rst, "Decisions inside ns-3"): the device counters an online scheduler sees
 * as SchedulerState::GetLinkLoad.
 *
 * It listens to the PhyTxBegin trace of the two devices of every link and reads the ports of
 * each IPv4 TCP or UDP packet: a packet from or to the AllReduce's port (OwnPort) belongs to
 * the AllReduce, every other packet (background traffic, a user's own applications) is
 * counted as foreign. Sample() turns the foreign bytes sent since the previous sample into the
 * fraction of each link's data rate they took.
 */
class LinkLoadMonitor : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LinkLoadMonitor();
    ~LinkLoadMonitor() override;

    /**
     * Watches the next topology link: its devices transmit on directed links 2i (end a to
     * end b) and 2i+1 (b to a), i counting the links added.
     * \param a the device at end a \param b the device at end b
     * \throws std::invalid_argument when a device has no DataRate attribute (not a
     *         point-to-point device)
     */
    void AddLink(Ptr<NetDevice> a, Ptr<NetDevice> b);

    /**
     * Per directed link, the fraction of its data rate that foreign traffic used since the
     * previous sample (the start, for the first), and starts a new interval. Two samples at
     * the same time give the previous values again.
     * \return one value per directed link, in [0, 1] up to queueing
     */
    const std::vector<double>& Sample();
    /// \return the number of directed links watched (twice the links added)
    uint32_t GetNDirectedLinks() const;
    /// \param directedLink a directed link \return its data rate in bit/s
    double GetRateBps(uint32_t directedLink) const;
    /// \return per directed link, its data rate relative to the fastest link (1 for it)
    std::vector<double> GetRelativeRates() const;
    /// \param directedLink a directed link \return the foreign bytes it carried so far
    uint64_t GetForeignBytes(uint32_t directedLink) const;
    /// \param directedLink a directed link \return the AllReduce's bytes it carried so far
    uint64_t GetOwnBytes(uint32_t directedLink) const;

    /**
     * \param packet a packet as a point-to-point device transmits it (PPP header first)
     * \param ownPort the AllReduce's port
     * \return true when it is an IPv4 TCP or UDP packet from or to that port
     */
    static bool IsOwn(Ptr<const Packet> packet, uint16_t ownPort);

  protected:
    void DoDispose() override;

  private:
    /// PhyTxBegin of a device. \param directedLink its directed link \param packet the packet
    void Count(uint32_t directedLink, Ptr<const Packet> packet);

    uint16_t m_ownPort{0};               //!< the AllReduce's port
    std::vector<Ptr<NetDevice>> m_devices; //!< per directed link, its sending device
    std::vector<double> m_rateBps;       //!< per directed link, its data rate
    std::vector<uint64_t> m_foreign;     //!< per directed link, foreign bytes so far
    std::vector<uint64_t> m_own;         //!< per directed link, the AllReduce's bytes so far
    std::vector<uint64_t> m_foreignAtSample; //!< m_foreign at the last sample
    std::vector<double> m_load;          //!< the last sample
    Time m_lastSample;                   //!< when it was taken
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LINK_LOAD_MONITOR_H */
