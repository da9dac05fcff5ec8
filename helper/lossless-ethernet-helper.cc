/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "lossless-ethernet-helper.h"

#include "ns3/lossless-channel.h"
#include "ns3/lossless-net-device.h"
#include "ns3/mac48-address.h"
#include "ns3/shared-buffer.h"

namespace ns3
{

LosslessEthernetHelper::LosslessEthernetHelper()
{
    m_device.SetTypeId(LosslessNetDevice::GetTypeId());
    m_channel.SetTypeId(LosslessChannel::GetTypeId());
    m_buffer.SetTypeId(SharedBuffer::GetTypeId());
}

void
LosslessEthernetHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    m_device.Set(name, value);
}

void
LosslessEthernetHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channel.Set(name, value);
}

void
LosslessEthernetHelper::SetBufferAttribute(const std::string& name, const AttributeValue& value)
{
    m_buffer.Set(name, value);
}

NetDeviceContainer
LosslessEthernetHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<LosslessChannel> channel = m_channel.Create<LosslessChannel>();
    NetDeviceContainer devices;
    for (Ptr<Node> node : {a, b})
    {
        Ptr<LosslessNetDevice> device = m_device.Create<LosslessNetDevice>();
        device->SetAddress(Mac48Address::Allocate());
        node->AddDevice(device);
        device->Attach(channel);
        if (!node->GetObject<SharedBuffer>())
        {
            node->AggregateObject(m_buffer.Create<SharedBuffer>());
        }
        devices.Add(device);
    }
    return devices;
}

void
LosslessEthernetHelper::Validate(const NodeContainer& nodes)
{
    for (auto node = nodes.Begin(); node != nodes.End(); ++node)
    {
        for (uint32_t i = 0; i < (*node)->GetNDevices(); ++i)
        {
            if (auto device = DynamicCast<LosslessNetDevice>((*node)->GetDevice(i)))
            {
                device->Validate();
            }
        }
        if (Ptr<SharedBuffer> buffer = (*node)->GetObject<SharedBuffer>())
        {
            buffer->Validate();
        }
    }
}

int64_t
LosslessEthernetHelper::AssignStreams(const NetDeviceContainer& devices, int64_t stream)
{
    int64_t used = 0;
    for (auto device = devices.Begin(); device != devices.End(); ++device)
    {
        if (auto lossless = DynamicCast<LosslessNetDevice>(*device))
        {
            used += lossless->AssignStreams(stream + used);
        }
    }
    return used;
}

} // namespace ns3
