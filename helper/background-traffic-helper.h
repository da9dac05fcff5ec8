/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_BACKGROUND_TRAFFIC_HELPER_H
#define NS3_ALLREDUCE_BACKGROUND_TRAFFIC_HELPER_H

#include "dcn-topology-helper.h"

#include "ns3/application-container.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * Other traffic that shares the network with an AllReduce (doc/allreduce.rst, "Decisions inside
 * ns-3"), made of ns-3's own applications over TCP and routed like every packet between
 * servers (along the destination's flow tree):
 *  - "onoff": every server runs an OnOffApplication, always on, at Load times the data rate
 *    of its first link, to a server chosen at random; the offered load is Load per server;
 *  - "bulk": round(Load × servers) servers chosen at random each run a BulkSendApplication
 *    without limit to a server chosen at random.
 * Every receiver runs a PacketSink on Port. Pairs are drawn from a seeded stream
 * (AssignStreams), so the same seed gives the same traffic.
 * \code
 *   BackgroundTrafficHelper background(dcn);
 *   background.SetLoad(0.3);
 *   background.AssignStreams(7);
 *   ApplicationContainer apps = background.Install(Seconds(0));
 * \endcode
 */
class BackgroundTrafficHelper
{
  public:
    /// \param network a network on which Install() has run
    explicit BackgroundTrafficHelper(DcnTopologyHelper& network);

    /**
     * \param load the offered load: for onoff, the fraction of a server's link rate each
     *        sends at; for bulk, the fraction of servers that send
     * \throws std::invalid_argument when it is not in (0, 1]
     */
    void SetLoad(double load);
    /**
     * \param application "onoff" or "bulk"
     * \throws std::invalid_argument for another name
     */
    void SetApplication(const std::string& application);
    /// \param port the receivers' port (not the AllReduce's) \throws std::invalid_argument for 0
    void SetPort(uint16_t port);
    /**
     * Fixes the random stream that draws who sends to whom.
     * \param stream the stream \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * Installs the senders and the sinks.
     * \param start when the senders start
     * \return the applications installed (senders, then sinks)
     */
    ApplicationContainer Install(Time start);

    /// \return the (sender, receiver) server pairs of the last Install
    const std::vector<std::pair<uint32_t, uint32_t>>& GetPairs() const;

  private:
    /// \return a server other than from, drawn from the stream \param from the sender
    uint32_t DrawReceiver(uint32_t from);

    DcnTopologyHelper& m_network;          //!< the network
    double m_load{0.3};                    //!< offered load
    std::string m_application{"onoff"};    //!< onoff or bulk
    uint16_t m_port{9};                    //!< the sinks' port
    Ptr<UniformRandomVariable> m_random;   //!< draws pairs
    std::vector<std::pair<uint32_t, uint32_t>> m_pairs; //!< the last Install's pairs
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_BACKGROUND_TRAFFIC_HELPER_H */
