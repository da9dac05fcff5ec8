/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pfc-ingress-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcIngressTag);

TypeId
PfcIngressTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcIngressTag")
                            .SetParent<Tag>()
                            .SetGroupName("Allreduce")
                            .AddConstructor<PfcIngressTag>();
    return tid;
}

TypeId
PfcIngressTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

PfcIngressTag::PfcIngressTag(uint32_t ifIndex, uint8_t cls, Time tailAt)
    : m_ifIndex(ifIndex),
      m_class(cls),
      m_tailAt(tailAt.GetNanoSeconds())
{
}

Time
PfcIngressTag::GetTailAt() const
{
    return NanoSeconds(m_tailAt);
}

uint32_t
PfcIngressTag::GetIfIndex() const
{
    return m_ifIndex;
}

uint8_t
PfcIngressTag::GetClass() const
{
    return m_class;
}

uint32_t
PfcIngressTag::GetSerializedSize() const
{
    return 13;
}

void
PfcIngressTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_ifIndex);
    i.WriteU8(m_class);
    i.WriteU64(static_cast<uint64_t>(m_tailAt));
}

void
PfcIngressTag::Deserialize(TagBuffer i)
{
    m_ifIndex = i.ReadU32();
    m_class = i.ReadU8();
    m_tailAt = static_cast<int64_t>(i.ReadU64());
}

void
PfcIngressTag::Print(std::ostream& os) const
{
    os << "ingress=" << m_ifIndex << " class=" << +m_class;
}

} // namespace ns3
