/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "lossless-channel.h"

#include "lossless-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LosslessChannel");
NS_OBJECT_ENSURE_REGISTERED(LosslessChannel);

TypeId
LosslessChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LosslessChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Allreduce")
                            .AddConstructor<LosslessChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the cable.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&LosslessChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

void
LosslessChannel::Attach(Ptr<LosslessNetDevice> device)
{
    for (auto& end : m_ends)
    {
        if (!end)
        {
            end = device;
            return;
        }
    }
    throw std::logic_error("a LosslessChannel has two ends, both taken");
}

void
LosslessChannel::Transmit(Ptr<Packet> frame,
                          Ptr<LosslessNetDevice> from,
                          Time txTime,
                          Time headerTime)
{
    Ptr<LosslessNetDevice> to = GetPeer(from);
    NS_ASSERT_MSG(to, "LosslessChannel: transmit on a cable with one end");
    const Time handOn = to->IsCutThrough() ? headerTime : txTime;
    Simulator::ScheduleWithContext(to->GetNode()->GetId(),
                                   handOn + m_delay,
                                   &LosslessNetDevice::Receive,
                                   to,
                                   frame,
                                   txTime - handOn);
}

Ptr<LosslessNetDevice>
LosslessChannel::GetPeer(Ptr<const LosslessNetDevice> device) const
{
    return m_ends[0] == device ? m_ends[1] : m_ends[0];
}

Time
LosslessChannel::GetDelay() const
{
    return m_delay;
}

std::size_t
LosslessChannel::GetNDevices() const
{
    return (m_ends[0] ? 1 : 0) + (m_ends[1] ? 1 : 0);
}

Ptr<NetDevice>
LosslessChannel::GetDevice(std::size_t i) const
{
    return m_ends.at(i);
}

void
LosslessChannel::DoDispose()
{
    m_ends = {};
    Channel::DoDispose();
}

} // namespace ns3
