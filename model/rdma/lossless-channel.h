/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LOSSLESS_CHANNEL_H
#define NS3_ALLREDUCE_LOSSLESS_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <array>

namespace ns3
{

class LosslessNetDevice;

/**
 * \ingroup allreduce-rdma
 * A full-duplex Ethernet cable between two LosslessNetDevices: a frame sent by one reaches
 * the other its transmission time plus the Delay later (its header earlier, to a port that
 * cuts through). (ns-3's PointToPointChannel takes only
 * PointToPointNetDevices, whose queues cannot pause per priority.)
 */
class LosslessChannel : public Channel
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    /**
     * Attaches a device to one end.
     * \param device the device
     * \throws std::logic_error when both ends are taken
     */
    void Attach(Ptr<LosslessNetDevice> device);
    /**
     * Carries a frame to the other end: whole, its transmission time plus the delay later; or,
     * when the other end cuts through (LosslessNetDevice's CutThrough), as soon as its header
     * is in, told when its tail will follow.
     * \param frame the frame \param from the sending device \param txTime its transmission time
     * \param headerTime when its header has been sent (txTime: it cannot be cut through)
     */
    void Transmit(Ptr<Packet> frame, Ptr<LosslessNetDevice> from, Time txTime, Time headerTime);
    /// \param device one end \return the other end (null until attached)
    Ptr<LosslessNetDevice> GetPeer(Ptr<const LosslessNetDevice> device) const;
    /// \return the propagation delay
    Time GetDelay() const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;                                 //!< propagation delay
    std::array<Ptr<LosslessNetDevice>, 2> m_ends; //!< the two devices
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LOSSLESS_CHANNEL_H */
