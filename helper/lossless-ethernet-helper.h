/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_LOSSLESS_ETHERNET_HELPER_H
#define NS3_ALLREDUCE_LOSSLESS_ETHERNET_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * Builds lossless Ethernet links (doc/allreduce.rst, "RDMA"), as PointToPointHelper builds
 * point-to-point ones: a LosslessNetDevice on each node, a LosslessChannel between them, and a
 * SharedBuffer on every node that has none yet.
 * \code
 *   LosslessEthernetHelper ethernet;
 *   ethernet.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
 *   ethernet.SetChannelAttribute("Delay", StringValue("1us"));
 *   ethernet.SetBufferAttribute("Size", UintegerValue(2000000));
 *   NetDeviceContainer link = ethernet.Install(host, tor);
 *   ... // every link, then the internet stack (no queue discs), addresses, routes
 *   LosslessEthernetHelper::Validate(nodes);
 * \endcode
 */
class LosslessEthernetHelper
{
  public:
    LosslessEthernetHelper();

    /// \param name a LosslessNetDevice attribute \param value its value
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);
    /// \param name a LosslessChannel attribute \param value its value
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /// \param name a SharedBuffer attribute (set on the buffers Install creates) \param value
    void SetBufferAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Links two nodes.
     * \param a one end \param b the other \return the two devices, a's first
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

    /**
     * Checks every lossless device's and every buffer's settings once the links are built.
     * \param nodes the nodes
     * \throws std::invalid_argument as LosslessNetDevice::Validate and SharedBuffer::Validate
     */
    static void Validate(const NodeContainer& nodes);

    /**
     * Fixes the random streams of the devices' ECN marking.
     * \param devices the devices \param stream the first stream
     * \return the number of streams used
     */
    static int64_t AssignStreams(const NetDeviceContainer& devices, int64_t stream);

  private:
    ObjectFactory m_device;  //!< makes the devices
    ObjectFactory m_channel; //!< makes the channels
    ObjectFactory m_buffer;  //!< makes the buffers
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_LOSSLESS_ETHERNET_HELPER_H */
