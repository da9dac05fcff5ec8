/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RDMA_HELPER_H
#define NS3_ALLREDUCE_RDMA_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-socket.h"

#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * Puts the RoCEv2 transport on nodes (doc/allreduce.rst, "RDMA"): a RdmaSocketFactory on each,
 * whose sockets take the attributes set here.
 * \code
 *   RdmaHelper rdma;
 *   rdma.SetSocketAttribute("Recovery", StringValue("selective-repeat"));
 *   rdma.SetRateControlAttribute("RateTimer", TimeValue(MicroSeconds(100)));
 *   rdma.Install(nodes); // after the internet stack
 *   Ptr<Socket> qp = Socket::CreateSocket(node, RdmaSocketFactory::GetTypeId());
 * \endcode
 */
class RdmaHelper
{
  public:
    RdmaHelper();

    /// \param name a RdmaSocket attribute \param value its value
    void SetSocketAttribute(const std::string& name, const AttributeValue& value);
    /// \param name a DcqcnRateControl attribute \param value its value
    void SetRateControlAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Checks the attributes, as sockets made now would take them.
     * \param lineRate the slowest NIC's rate
     * \param mtu the smallest IP MTU of the links (0: not checked): a packet of PayloadSize
     *        bytes with its headers must fit, as RoCE never fragments
     * \throws std::invalid_argument naming the bad value
     */
    void Validate(DataRate lineRate, uint16_t mtu = 0) const;

    /**
     * \param nodes nodes with the internet stack
     * \throws std::invalid_argument when a node has no internet stack, or has a
     *         RdmaSocketFactory already, or the attributes do not suit its devices (Validate)
     */
    void Install(const NodeContainer& nodes) const;

    /// \param nodes nodes \return the sum of the counters of every RDMA socket on them
    static RdmaSocket::Counters GetTotals(const NodeContainer& nodes);

  private:
    ObjectFactory m_socket;      //!< makes sockets
    ObjectFactory m_rateControl; //!< makes rate controls
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_RDMA_HELPER_H */
