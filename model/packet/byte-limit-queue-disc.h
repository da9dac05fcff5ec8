/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BYTE_LIMIT_QUEUE_DISC_H
#define NS3_ALLREDUCE_BYTE_LIMIT_QUEUE_DISC_H

#include "ns3/queue-disc.h"

#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * A byte limit over a queue disc that counts packets only. ns-3's fq_codel (and fq_pie,
 * fq_cobalt, pfifo_fast) take a MaxSize in packets and keep a limit of 0 when given bytes, which
 * drops every packet. This root queue disc holds the limit in bytes (tail drop when a packet
 * would pass it, as Linux fq_codel's memory_limit bounds its bytes) and hands every packet it
 * admits to one child of the type Child (fq_codel by default) that schedules them as it
 * would alone (doc/allreduce.rst, "Transport options").
 */
class ByteLimitQueueDisc : public QueueDisc
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    ByteLimitQueueDisc();

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    std::string m_childType; //!< the child's TypeId name
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_BYTE_LIMIT_QUEUE_DISC_H */
