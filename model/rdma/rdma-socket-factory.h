/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RDMA_SOCKET_FACTORY_H
#define NS3_ALLREDUCE_RDMA_SOCKET_FACTORY_H

#include "rdma-socket.h"

#include "ns3/object-factory.h"
#include "ns3/socket-factory.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * Makes a node's RdmaSockets (RoCEv2 queue pairs): aggregate one to a node (RdmaHelper does)
 * and create sockets with Socket::CreateSocket(node, RdmaSocketFactory::GetTypeId()), or give
 * an application this TypeId as its socket factory (AllReduceApplication's Protocol). Each
 * socket takes the RdmaSocket attributes and a DcqcnRateControl with the attributes given here.
 */
class RdmaSocketFactory : public SocketFactory
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    RdmaSocketFactory();
    ~RdmaSocketFactory() override;

    /// \param sockets makes the sockets (type RdmaSocket, with their attributes)
    void SetSocketFactory(const ObjectFactory& sockets);
    /// \param rateControl makes each socket's DcqcnRateControl
    void SetRateControlFactory(const ObjectFactory& rateControl);

    Ptr<Socket> CreateSocket() override;

    /// \return every socket it made
    const std::vector<Ptr<RdmaSocket>>& GetSockets() const;
    /// \return the sum of its sockets' counters
    RdmaSocket::Counters GetTotals() const;

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    Ptr<Node> m_node;                    //!< the node
    ObjectFactory m_sockets;             //!< makes sockets
    ObjectFactory m_rateControl;         //!< makes rate controls
    std::vector<Ptr<RdmaSocket>> m_made; //!< every socket made
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_RDMA_SOCKET_FACTORY_H */
