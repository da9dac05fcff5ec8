/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PATH_RECORDER_H
#define NS3_ALLREDUCE_PATH_RECORDER_H

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/topology.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * Reads from the simulation the path each TCP or UDP flow takes (doc/allreduce.rst, "AllReduce
 * on your own network"): when the network's own routing carries the AllReduce, the module
 * does not choose the paths, and this is how it learns them.
 *
 * It listens to the PhyTxBegin trace of the two devices of every topology link (link i's end a
 * sends on directed link 2i, its end b on 2i+1) and reads the addresses, ports and IPv4
 * identification of each packet. A flow's path is the one its first packet took, hop by hop,
 * to the destination's node (read again from a newer packet leaving the source when that one
 * did not arrive); once the path is complete, a later packet of the flow on a link off it
 * (per-packet ECMP, a route that changed) marks the flow as split. Later IP fragments (no
 * ports) are not read.
 */
class PathRecorder : public Object
{
  public:
    /// A flow: source address and port, destination address and port.
    using FlowKey = std::tuple<Ipv4Address, uint16_t, Ipv4Address, uint16_t>;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PathRecorder();
    ~PathRecorder() override;

    /**
     * Watches every link of a network.
     * \param topology the network's topology
     * \param links per topology link, its devices at end a and end b
     * \throws std::invalid_argument when the numbers of links differ, std::logic_error when
     *         it watches a network already
     */
    void Watch(const Topology& topology,
               const std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>>& links);

    /**
     * \param flow a flow
     * \return the model node ids its first packet went through, in order; empty when no packet
     *         of it was seen
     */
    std::vector<uint32_t> GetPath(const FlowKey& flow) const;
    /// \param flow a flow \return true when a packet of it left the first packet's path
    bool IsSplit(const FlowKey& flow) const;
    /// \return the number of flows seen
    uint32_t GetNFlows() const;

    /**
     * TracedCallback signature of PathSeen.
     * \param flow the flow \param path its first packet's path so far (model node ids)
     */
    typedef void (*PathSeenCallback)(const FlowKey& flow, const std::vector<uint32_t>& path);

  protected:
    void DoDispose() override;

  private:
    /// What is known of one flow.
    struct Flow
    {
        uint16_t id{0};                //!< the IPv4 identification of its first packet
        std::vector<uint32_t> directed; //!< the directed links its first packet took
        bool split{false};             //!< a later packet left that path
    };

    /// Reads one transmission \param directedLink where \param packet what
    void Sent(uint32_t directedLink, Ptr<const Packet> packet);

    Topology m_topology;                 //!< the network
    std::vector<Ptr<NetDevice>> m_devices; //!< per directed link, its sending device
    std::vector<Callback<void, Ptr<const Packet>>> m_callbacks; //!< per directed link, ours
    std::map<Ipv4Address, uint32_t> m_nodeOf; //!< each link end's address -> its model node
    std::map<FlowKey, Flow> m_flows;     //!< per flow, what is known
    TracedCallback<const FlowKey&, const std::vector<uint32_t>&> m_pathSeen; //!< PathSeen
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_PATH_RECORDER_H */
