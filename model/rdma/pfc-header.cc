/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pfc-header.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

namespace
{
/// Ethernet's minimum payload: opcode, vector and times (20 bytes) padded to it.
constexpr uint32_t MIN_PAYLOAD = 46;
} // namespace

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("Allreduce")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcHeader::SetQuanta(uint8_t cls, uint16_t quanta)
{
    NS_ABORT_MSG_UNLESS(cls < CLASSES, "PFC class " << +cls << " is not below 8");
    m_enabled |= static_cast<uint16_t>(1U << cls);
    m_quanta[cls] = quanta;
}

bool
PfcHeader::IsEnabled(uint8_t cls) const
{
    return cls < CLASSES && (m_enabled & (1U << cls)) != 0;
}

uint16_t
PfcHeader::GetQuanta(uint8_t cls) const
{
    return IsEnabled(cls) ? m_quanta[cls] : 0;
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return MIN_PAYLOAD;
}

void
PfcHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(OPCODE);
    start.WriteHtonU16(m_enabled);
    for (uint16_t quanta : m_quanta)
    {
        start.WriteHtonU16(quanta);
    }
    start.WriteU8(0, MIN_PAYLOAD - 4 - 2 * CLASSES);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator start)
{
    start.ReadNtohU16(); // the opcode; the EtherType told it is a MAC control frame
    m_enabled = start.ReadNtohU16();
    for (uint16_t& quanta : m_quanta)
    {
        quanta = start.ReadNtohU16();
    }
    start.Next(MIN_PAYLOAD - 4 - 2 * CLASSES);
    return MIN_PAYLOAD;
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC";
    for (uint8_t c = 0; c < CLASSES; ++c)
    {
        if (IsEnabled(c))
        {
            os << " class " << +c << (m_quanta[c] == 0 ? " resume" : " pause ")
               << (m_quanta[c] == 0 ? std::string() : std::to_string(m_quanta[c]));
        }
    }
}

} // namespace ns3
