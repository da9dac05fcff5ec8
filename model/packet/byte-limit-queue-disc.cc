/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "byte-limit-queue-disc.h"

#include "ns3/fq-codel-queue-disc.h"
#include "ns3/log.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/net-device.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ByteLimitQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(ByteLimitQueueDisc);

TypeId
ByteLimitQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ByteLimitQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("AllReduce")
            .AddConstructor<ByteLimitQueueDisc>()
            .AddAttribute("MaxSize",
                          "The most bytes queued (in the child) at once; a packet that would "
                          "pass it is dropped",
                          QueueSizeValue(QueueSize("4MB")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("Child",
                          "TypeId name of the queue disc that schedules the packets admitted",
                          StringValue("ns3::FqCoDelQueueDisc"),
                          MakeStringAccessor(&ByteLimitQueueDisc::m_childType),
                          MakeStringChecker());
    return tid;
}

ByteLimitQueueDisc::ByteLimitQueueDisc()
    // MULTIPLE_QUEUES: the limit is this queue disc's own (with SINGLE_CHILD_QUEUE_DISC ns-3
    // would report the child's limit, in packets, as this one's).
    : QueueDisc(QueueDiscSizePolicy::MULTIPLE_QUEUES, QueueSizeUnit::BYTES)
{
}

bool
ByteLimitQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    if (GetCurrentSize() + item > GetMaxSize())
    {
        DropBeforeEnqueue(item, "Queue disc limit exceeded");
        return false;
    }
    return GetQueueDiscClass(0)->GetQueueDisc()->Enqueue(item);
}

Ptr<QueueDiscItem>
ByteLimitQueueDisc::DoDequeue()
{
    return GetQueueDiscClass(0)->GetQueueDisc()->Dequeue();
}

Ptr<const QueueDiscItem>
ByteLimitQueueDisc::DoPeek()
{
    return GetQueueDiscClass(0)->GetQueueDisc()->Peek();
}

bool
ByteLimitQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (GetNInternalQueues() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("ByteLimitQueueDisc has neither internal queues nor packet filters");
        return false;
    }
    if (GetNQueueDiscClasses() == 0)
    {
        ObjectFactory factory(m_childType);
        const Ptr<QueueDisc> child = factory.Create<QueueDisc>();
        // A child does not see the device: give it the device's MTU as its quantum (fq_codel's
        // round-robin share), which it would read from the device at the root.
        uint32_t mtu = 1500;
        const Ptr<NetDeviceQueueInterface> ndqi = GetNetDeviceQueueInterface();
        const Ptr<NetDevice> dev = ndqi ? ndqi->GetObject<NetDevice>() : nullptr;
        mtu = dev ? dev->GetMtu() : mtu;
        if (const auto fq = DynamicCast<FqCoDelQueueDisc>(child))
        {
            fq->SetQuantum(mtu);
        }
        child->Initialize();
        const Ptr<QueueDiscClass> c = CreateObject<QueueDiscClass>();
        c->SetQueueDisc(child);
        AddQueueDiscClass(c);
    }
    return GetNQueueDiscClasses() == 1 && GetMaxSize().GetUnit() == QueueSizeUnit::BYTES;
}

void
ByteLimitQueueDisc::InitializeParams()
{
}

} // namespace ns3
