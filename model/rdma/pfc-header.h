/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PFC_HEADER_H
#define NS3_ALLREDUCE_PFC_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * The payload of a priority flow control frame (IEEE 802.1Qbb): a MAC control frame (EtherType
 * 0x8808) with opcode 0x0101, a class-enable vector and, per priority class, how long the
 * receiver must stop sending that class, in quanta of 512 bit times. A time of zero resumes the
 * class at once. The header pads the frame to Ethernet's 46-byte minimum payload.
 */
class PfcHeader : public Header
{
  public:
    /// The MAC control EtherType.
    static constexpr uint16_t ETHERTYPE = 0x8808;
    /// The PFC opcode.
    static constexpr uint16_t OPCODE = 0x0101;
    /// Priority classes.
    static constexpr uint8_t CLASSES = 8;
    /// The longest pause, in quanta.
    static constexpr uint16_t MAX_QUANTA = 0xFFFF;

    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    /**
     * Enables a class with a pause time.
     * \param cls the class, below CLASSES \param quanta the time (0: resume)
     */
    void SetQuanta(uint8_t cls, uint16_t quanta);
    /// \param cls a class \return whether the frame tells something about it
    bool IsEnabled(uint8_t cls) const;
    /// \param cls a class \return its pause time in quanta (0: resume)
    uint16_t GetQuanta(uint8_t cls) const;

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    uint16_t m_enabled{0};                    //!< class-enable vector
    std::array<uint16_t, CLASSES> m_quanta{}; //!< per class, its pause time
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PFC_HEADER_H */
