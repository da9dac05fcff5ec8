/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PFC_INGRESS_TAG_H
#define NS3_ALLREDUCE_PFC_INGRESS_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * Where a packet came into a node: its device's interface index and its priority class. A
 * LosslessNetDevice puts it on every packet it receives, so that the node's SharedBuffer can
 * charge the packet to its ingress queue when another device takes it to forward, and release
 * it when that device sends it on. A packet without it was made on the node.
 */
class PfcIngressTag : public Tag
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    PfcIngressTag() = default;
    /**
     * \param ifIndex the ingress device's index on its node \param cls the priority class
     * \param tailAt when the frame's last bit arrives (cut-through: after it was handed on;
     *        zero: it arrived whole)
     */
    PfcIngressTag(uint32_t ifIndex, uint8_t cls, Time tailAt = Time(0));

    /// \return the ingress device's index on its node
    uint32_t GetIfIndex() const;
    /// \return the priority class
    uint8_t GetClass() const;
    /// \return when the frame's last bit arrives (zero: it arrived whole)
    Time GetTailAt() const;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

  private:
    uint32_t m_ifIndex{0}; //!< the ingress device's index
    uint8_t m_class{0};    //!< the priority class
    int64_t m_tailAt{0};   //!< the tail's arrival, ns
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PFC_INGRESS_TAG_H */
