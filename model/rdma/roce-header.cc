/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeader);

namespace
{
constexpr uint32_t PSN_MASK = 0xFFFFFF;
constexpr uint32_t BTH = 12;
constexpr uint32_t AETH = 4;
constexpr uint32_t ICRC = 4;
constexpr uint16_t DEFAULT_PKEY = 0xFFFF;
constexpr uint8_t NAK_PSN_SEQUENCE_ERROR = 0x60;

/// \param opcode an opcode \return whether it carries an AETH
bool
HasAeth(RoceHeader::Opcode opcode)
{
    return opcode == RoceHeader::ACK || opcode == RoceHeader::NACK;
}
} // namespace

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("Allreduce")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceHeader::SetOpcode(Opcode opcode)
{
    m_opcode = opcode;
}

RoceHeader::Opcode
RoceHeader::GetOpcode() const
{
    return m_opcode;
}

void
RoceHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & PSN_MASK;
}

uint32_t
RoceHeader::GetPsn() const
{
    return m_psn;
}

void
RoceHeader::SetAckRequest(bool ackRequest)
{
    m_ackRequest = ackRequest;
}

bool
RoceHeader::GetAckRequest() const
{
    return m_ackRequest;
}

void
RoceHeader::SetDestinationQp(uint32_t qp)
{
    m_qp = qp & PSN_MASK;
}

uint32_t
RoceHeader::GetDestinationQp() const
{
    return m_qp;
}

uint32_t
RoceHeader::Unwrap(uint32_t psn24, uint32_t reference)
{
    // The signed 24-bit distance from the reference's low bits.
    int32_t distance = static_cast<int32_t>((psn24 - reference) & PSN_MASK);
    if (distance >= 0x800000)
    {
        distance -= 0x1000000;
    }
    return reference + static_cast<uint32_t>(distance);
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    return BTH + (HasAeth(m_opcode) ? AETH : 0) + ICRC;
}

void
RoceHeader::Serialize(Buffer::Iterator start) const
{
    // NACK travels as the ACKNOWLEDGE opcode with a NAK syndrome.
    start.WriteU8(m_opcode == NACK ? uint8_t{ACK} : uint8_t{m_opcode});
    start.WriteU8(0); // solicited event, migration, pad count, transport version
    start.WriteHtonU16(DEFAULT_PKEY);
    start.WriteHtonU32(m_qp);
    start.WriteHtonU32((m_ackRequest ? 0x80000000U : 0U) | m_psn);
    if (HasAeth(m_opcode))
    {
        start.WriteU8(m_opcode == NACK ? NAK_PSN_SEQUENCE_ERROR : 0); // syndrome
        start.WriteU8(0, 3);                                          // message sequence
    }
    start.WriteU8(0, ICRC);
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator start)
{
    const uint8_t opcode = start.ReadU8();
    start.Next(3);
    m_qp = start.ReadNtohU32() & PSN_MASK;
    const uint32_t word = start.ReadNtohU32();
    m_ackRequest = (word & 0x80000000U) != 0;
    m_psn = word & PSN_MASK;
    m_opcode = static_cast<Opcode>(opcode);
    if (opcode == ACK)
    {
        const uint8_t syndrome = start.ReadU8();
        start.Next(3);
        m_opcode = syndrome == NAK_PSN_SEQUENCE_ERROR ? NACK : ACK;
    }
    start.Next(ICRC);
    return GetSerializedSize();
}

void
RoceHeader::Print(std::ostream& os) const
{
    static const char* names[] = {"DATA", "ACK", "NACK", "CNP"};
    const int index = m_opcode == DATA ? 0 : m_opcode == ACK ? 1 : m_opcode == NACK ? 2 : 3;
    os << names[index] << " psn=" << m_psn << (m_ackRequest ? " ackreq" : "") << " qp=" << m_qp;
}

} // namespace ns3
