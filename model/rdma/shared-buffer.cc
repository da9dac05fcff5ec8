/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "shared-buffer.h"

#include "lossless-channel.h"
#include "lossless-net-device.h"

#include "ns3/allreduce-ns3-compat.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SharedBuffer");
NS_OBJECT_ENSURE_REGISTERED(SharedBuffer);

namespace
{
constexpr uint32_t PFC_FRAME_LINE_BYTES = 64 + 20; //!< a PFC frame with preamble and gap
} // namespace

TypeId
SharedBuffer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SharedBuffer")
            .SetParent<Object>()
            .SetGroupName("Allreduce")
            .AddConstructor<SharedBuffer>()
            .AddAttribute("Size",
                          "Buffer bytes shared by the node's ports (12 MB: the Trident II "
                          "switches of Zhu et al. 2015).",
                          UintegerValue(12000000),
                          MakeUintegerAccessor(&SharedBuffer::m_size),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Threshold",
                          "How an ingress queue is bounded: static or dynamic.",
                          EnumValue(DYNAMIC_THRESHOLD),
                          compat::MakeEnumAccessor<BufferThreshold>(&SharedBuffer::m_mode),
                          MakeEnumChecker(STATIC_THRESHOLD, "static", DYNAMIC_THRESHOLD, "dynamic"))
            .AddAttribute("StaticThreshold",
                          "Bytes an ingress queue may hold in the shared space (static).",
                          UintegerValue(200000),
                          MakeUintegerAccessor(&SharedBuffer::m_staticThreshold),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Alpha",
                          "Dynamic threshold: an ingress queue may hold Alpha times the shared "
                          "space still free.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SharedBuffer::m_alpha),
                          MakeDoubleChecker<double>(0, MAX_ALPHA))
            .AddAttribute("Headroom",
                          "Bytes reserved per port for what arrives after a pause is decided "
                          "(0: as the port's link needs, two propagation delays at line rate "
                          "plus three largest frames).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SharedBuffer::m_headroom),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ResumeOffset",
                          "A paused queue resumes this many bytes below its threshold.",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&SharedBuffer::m_resumeOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcEnabled",
                          "Past its threshold a queue pauses its class upstream (true) or "
                          "drops (false).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SharedBuffer::m_pfc),
                          MakeBooleanChecker())
            .AddTraceSource("Pause",
                            "An ingress queue paused (true) or resumed (false) its class.",
                            MakeTraceSourceAccessor(&SharedBuffer::m_pauseTrace),
                            "ns3::SharedBuffer::PauseTracedCallback")
            .AddTraceSource("Drop",
                            "A packet found no room (port, class, bytes).",
                            MakeTraceSourceAccessor(&SharedBuffer::m_dropTrace),
                            "ns3::SharedBuffer::DropTracedCallback");
    return tid;
}

SharedBuffer::SharedBuffer() = default;

SharedBuffer::~SharedBuffer() = default;

void
SharedBuffer::DoDispose()
{
    for (auto& port : m_queues)
    {
        for (Queue& q : port)
        {
            q.refresh.Cancel();
        }
    }
    m_node = nullptr;
    Object::DoDispose();
}

void
SharedBuffer::NotifyNewAggregate()
{
    if (!m_node)
    {
        m_node = GetObject<Node>();
    }
    Object::NotifyNewAggregate();
}

void
SharedBuffer::Validate()
{
    const std::string node = m_node ? "node " + std::to_string(m_node->GetId()) : "a node";
    if (m_mode == STATIC_THRESHOLD && m_staticThreshold > m_size)
    {
        throw std::invalid_argument("SharedBuffer of " + node + ": StaticThreshold " +
                                    std::to_string(m_staticThreshold) +
                                    " bytes is above the buffer's Size " + std::to_string(m_size) +
                                    " bytes; lower the threshold or raise the size");
    }
    if (!(m_alpha > 0 && m_alpha <= MAX_ALPHA))
    {
        throw std::invalid_argument("SharedBuffer of " + node + ": Alpha must be above 0 and at "
                                    "most " + std::to_string(uint64_t(MAX_ALPHA)) + ", got " +
                                    std::to_string(m_alpha));
    }
    const uint32_t ports = m_node ? m_node->GetNDevices() : 0;
    m_portHeadroom.assign(ports, 0);
    m_portHeadroomUsed.assign(ports, 0);
    m_largestFrame = 0;
    uint64_t reserved = 0;
    for (uint32_t i = 0; i < ports; ++i)
    {
        Ptr<NetDevice> device = m_node->GetDevice(i);
        Ptr<LosslessNetDevice> port = DynamicCast<LosslessNetDevice>(device);
        if (!port)
        {
            if (m_pfc && !DynamicCast<LoopbackNetDevice>(device))
            {
                throw std::invalid_argument(
                    "PFC asked of " + node + ", whose port " + std::to_string(i) + " is a " +
                    device->GetInstanceTypeId().GetName() +
                    ", which cannot pause; build the links with LosslessEthernetHelper, or "
                    "set the SharedBuffer's PfcEnabled to false");
            }
            continue;
        }
        if (port->IsPfcEnabled() != m_pfc)
        {
            throw std::invalid_argument(
                "PFC is " + std::string(m_pfc ? "on" : "off") + " in the SharedBuffer of " + node +
                " but " + (m_pfc ? "off" : "on") + " on its port " + std::to_string(i) +
                "; set PfcEnabled alike on the buffer and the ports (LosslessEthernetHelper's "
                "SetBufferAttribute and SetDeviceAttribute)");
        }
        const auto channel = DynamicCast<LosslessChannel>(port->GetChannel());
        const double bytesPerSecond = port->GetDataRate().GetBitRate() / 8.0;
        const uint64_t flight =
            channel ? static_cast<uint64_t>(2 * channel->GetDelay().GetSeconds() * bytesPerSecond)
                    : 0;
        const uint64_t frame = uint64_t(port->GetMtu()) + port->GetFrameOverhead();
        const uint64_t needed = flight + 3 * frame + PFC_FRAME_LINE_BYTES;
        if (m_pfc && m_headroom > 0 && m_headroom < frame)
        {
            // Less than a frame: every frame in flight when the pause goes out is dropped.
            throw std::invalid_argument(
                "SharedBuffer of " + node + ": a Headroom of " + std::to_string(m_headroom) +
                " bytes cannot hold one full frame of port " + std::to_string(i) + " (" +
                std::to_string(frame) + " bytes: its Mtu and frame overhead), so PFC would drop "
                "what arrives after a pause; give at least " + std::to_string(frame) +
                " bytes (the link needs " + std::to_string(needed) + ": two propagation delays "
                "at line rate and three frames), or 0 for what the link needs");
        }
        m_portHeadroom[i] = m_headroom > 0 ? m_headroom : needed;
        reserved = std::min(m_size, reserved + std::min(m_portHeadroom[i], m_size));
        m_largestFrame = std::max(m_largestFrame, frame);
    }
    if (m_pfc && reserved >= m_size)
    {
        throw std::invalid_argument("SharedBuffer of " + node + ": its " + std::to_string(ports) +
                                    " ports' headroom takes " + std::to_string(reserved) +
                                    " of its " + std::to_string(m_size) +
                                    " bytes, leaving no shared space; raise Size or lower "
                                    "Headroom");
    }
    m_sharedSize = m_pfc ? m_size - reserved : m_size;
    if (m_sharedSize < m_largestFrame ||
        (m_mode == STATIC_THRESHOLD && m_staticThreshold < m_largestFrame))
    {
        throw std::invalid_argument(
            "SharedBuffer of " + node + ": " +
            (m_sharedSize < m_largestFrame ? "its shared space of " + std::to_string(m_sharedSize)
                                           : "its StaticThreshold of " +
                                                 std::to_string(m_staticThreshold)) +
            " bytes cannot hold one full frame (" + std::to_string(m_largestFrame) +
            " bytes: the largest Mtu of its ports and the frame overhead); raise Size" +
            (m_sharedSize < m_largestFrame ? " or lower Headroom" : " or StaticThreshold"));
    }
    if (m_queues.size() < ports)
    {
        m_queues.resize(ports);
    }
    m_validated = true;
}

uint64_t
SharedBuffer::Threshold() const
{
    if (m_mode == STATIC_THRESHOLD)
    {
        return m_staticThreshold;
    }
    // No queue holds more than the shared space: a large Alpha cannot overflow the bound.
    return static_cast<uint64_t>(
        std::min(m_alpha * double(m_sharedSize - m_sharedUsed), double(m_sharedSize)));
}

bool
SharedBuffer::CanResume(const Queue& q) const
{
    return q.headroom == 0 && (q.shared == 0 || q.shared + m_resumeOffset <= Threshold());
}

SharedBuffer::Queue&
SharedBuffer::At(uint32_t ifIndex, uint8_t cls)
{
    if (ifIndex >= m_queues.size())
    {
        m_queues.resize(ifIndex + 1);
    }
    return m_queues[ifIndex][cls % PfcHeader::CLASSES];
}

Ptr<LosslessNetDevice>
SharedBuffer::Port(uint32_t ifIndex) const
{
    return m_node && ifIndex < m_node->GetNDevices()
               ? DynamicCast<LosslessNetDevice>(m_node->GetDevice(ifIndex))
               : nullptr;
}

bool
SharedBuffer::Admit(uint32_t ifIndex, uint32_t egress, uint8_t cls, uint32_t bytes)
{
    if (!m_validated)
    {
        try
        {
            Validate();
        }
        catch (const std::invalid_argument& e)
        {
            NS_FATAL_ERROR(e.what());
        }
    }
    Queue& q = At(ifIndex, cls);
    if (egress >= m_egress.size())
    {
        m_egress.resize(egress + 1);
    }
    uint64_t& out = m_egress[egress][cls % PfcHeader::CLASSES];
    // Lossless, the ingress queue is bounded (and pauses); lossy, the egress queue (and drops).
    const uint64_t held = m_pfc ? q.shared : out;
    if (!q.paused && held + bytes <= Threshold() && m_sharedUsed + bytes <= m_sharedSize)
    {
        out += bytes;
        q.shared += bytes;
        m_sharedUsed += bytes;
        m_used += bytes;
        m_peak = std::max(m_peak, m_used);
        return true;
    }
    if (m_pfc)
    {
        if (!q.paused)
        {
            Pause(ifIndex, cls);
        }
        if (ifIndex < m_portHeadroom.size() &&
            m_portHeadroomUsed[ifIndex] + bytes <= m_portHeadroom[ifIndex])
        {
            out += bytes;
            q.headroom += bytes;
            m_portHeadroomUsed[ifIndex] += bytes;
            m_used += bytes;
            m_peak = std::max(m_peak, m_used);
            return true;
        }
    }
    ++m_drops;
    m_dropTrace(ifIndex, cls, bytes);
    if (q.paused && q.shared == 0 && q.headroom == 0)
    {
        Resume(ifIndex, cls); // nothing of it left to release: resume now, or never
    }
    return false;
}

void
SharedBuffer::Release(uint32_t ifIndex, uint32_t egress, uint8_t cls, uint32_t bytes)
{
    Queue& q = At(ifIndex, cls);
    m_egress[egress][cls % PfcHeader::CLASSES] -= bytes;
    const uint64_t fromHeadroom = std::min<uint64_t>(q.headroom, bytes);
    q.headroom -= fromHeadroom;
    if (fromHeadroom > 0)
    {
        m_portHeadroomUsed[ifIndex] -= fromHeadroom;
    }
    const uint64_t fromShared = bytes - fromHeadroom;
    NS_ASSERT_MSG(q.shared >= fromShared, "SharedBuffer: released more than admitted");
    q.shared -= fromShared;
    m_sharedUsed -= fromShared;
    m_used -= bytes;
    if (q.paused && CanResume(q))
    {
        Resume(ifIndex, cls);
    }
}

void
SharedBuffer::Pause(uint32_t ifIndex, uint8_t cls)
{
    Queue& q = At(ifIndex, cls);
    Ptr<LosslessNetDevice> port = Port(ifIndex);
    if (!port)
    {
        return;
    }
    if (!q.paused)
    {
        q.paused = true;
        m_pauseTrace(ifIndex, cls, true);
    }
    else if (CanResume(q))
    {
        Resume(ifIndex, cls); // a refresh that finds the queue drained (others shrank)
        return;
    }
    port->SendPfc(cls, PfcHeader::MAX_QUANTA);
    q.refresh = Simulator::Schedule(port->QuantaToTime(PfcHeader::MAX_QUANTA) / 2,
                                    &SharedBuffer::Pause,
                                    this,
                                    ifIndex,
                                    cls);
}

void
SharedBuffer::Resume(uint32_t ifIndex, uint8_t cls)
{
    Queue& q = At(ifIndex, cls);
    q.paused = false;
    q.refresh.Cancel();
    m_pauseTrace(ifIndex, cls, false);
    if (Ptr<LosslessNetDevice> port = Port(ifIndex))
    {
        port->SendPfc(cls, 0);
    }
}

uint64_t
SharedBuffer::GetHeadroom(uint32_t ifIndex) const
{
    return ifIndex < m_portHeadroom.size() ? m_portHeadroom[ifIndex] : 0;
}

uint64_t
SharedBuffer::GetUsed() const
{
    return m_used;
}

uint64_t
SharedBuffer::GetPeakUsed() const
{
    return m_peak;
}

uint64_t
SharedBuffer::GetDrops() const
{
    return m_drops;
}

bool
SharedBuffer::IsPausing(uint32_t ifIndex, uint8_t cls) const
{
    return ifIndex < m_queues.size() && m_queues[ifIndex][cls % PfcHeader::CLASSES].paused;
}

} // namespace ns3
