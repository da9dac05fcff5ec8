/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROCE_HEADER_H
#define NS3_ALLREDUCE_ROCE_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * The RoCEv2 transport headers a RdmaSocket puts after UDP: the InfiniBand base transport
 * header (BTH, 12 bytes: opcode, the acknowledge-request bit, the destination queue pair and a
 * 24-bit packet sequence number), for acknowledgements the AETH (4 bytes: ACK or NAK), and the
 * 4-byte invariant CRC, which here rides at the end of the header rather than after the
 * payload (the same bytes on the line).
 */
class RoceHeader : public Header
{
  public:
    /// What a packet is.
    enum Opcode : uint8_t
    {
        DATA = 0x04, //!< RC SEND carrying stream bytes
        ACK = 0x11,  //!< RC ACKNOWLEDGE: every PSN up to this one arrived
        NACK = 0x12, //!< RC ACKNOWLEDGE with a PSN sequence error NAK: this PSN is missing
        CNP = 0x81,  //!< congestion notification packet (DCQCN)
    };

    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    /// \param opcode what the packet is
    void SetOpcode(Opcode opcode);
    /// \return what the packet is
    Opcode GetOpcode() const;
    /// \param psn the packet sequence number (its low 24 bits travel)
    void SetPsn(uint32_t psn);
    /// \return the packet sequence number's 24 bits
    uint32_t GetPsn() const;
    /// \param ackRequest the sender asks for an acknowledgement now
    void SetAckRequest(bool ackRequest);
    /// \return whether the sender asks for an acknowledgement now
    bool GetAckRequest() const;
    /// \param qp the destination queue pair number (24 bits)
    void SetDestinationQp(uint32_t qp);
    /// \return the destination queue pair number
    uint32_t GetDestinationQp() const;

    /**
     * \param psn24 a 24-bit PSN from the line \param reference a full PSN near it
     * \return the full PSN nearest the reference with those low 24 bits
     */
    static uint32_t Unwrap(uint32_t psn24, uint32_t reference);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    Opcode m_opcode{DATA};    //!< the opcode
    uint32_t m_psn{0};        //!< the PSN, 24 bits
    bool m_ackRequest{false}; //!< the acknowledge-request bit
    uint32_t m_qp{0};         //!< the destination queue pair
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROCE_HEADER_H */
