/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H
#define NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H

#include "ns3/allreduce-controller.h"
#include "ns3/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * Everything one packet-level run needs besides its plan.
 */
struct PacketRunConfig
{
    std::string mode{"barrier"};        //!< "barrier" or "async"
    uint64_t gradientBytes{1 << 20};    //!< bytes of every server's gradient (multiple of 4)
    std::string dataRate{"10Gbps"};     //!< every link's rate
    std::string delay{"1us"};           //!< every link's propagation delay
    std::string values{"integer"};      //!< "integer" (exact) or "float" gradients
    uint32_t seed{1};                   //!< gradient seed (server s uses seed, with s mixed in)
    double loss{0};                     //!< per-packet loss probability on every device
    int64_t lossStream{0};              //!< first random stream of the loss models
    int64_t linkDown{-1};               //!< a topology link to take down mid-run (-1: none)
    double linkDownAt{0};               //!< when, in simulated seconds
    double stallTimeout{1};             //!< seconds without progress that end the run
    std::string pcapPrefix;             //!< write pcap traces with this prefix (empty: none)
    bool flowMonitor{true};             //!< collect per-flow statistics with FlowMonitor
};

/**
 * \ingroup allreduce
 * FlowMonitor's view of one workload's data flow.
 */
struct FlowReport
{
    uint32_t workload{0};    //!< the workload it carried
    uint32_t src{0};         //!< sending server
    uint32_t dst{0};         //!< receiving server
    uint64_t txBytes{0};     //!< IP bytes sent (headers included)
    uint64_t rxBytes{0};     //!< IP bytes received
    uint32_t txPackets{0};   //!< packets sent
    uint32_t rxPackets{0};   //!< packets received
    uint32_t lostPackets{0}; //!< packets sent but never received (dropped on the way)
    double meanDelay{0};     //!< mean one-way delay in seconds
    double duration{0};      //!< first packet sent to last received, in seconds
};

/**
 * \ingroup allreduce
 * What a packet-level run produced.
 */
struct PacketRunReport
{
    AllReduceRunResult result;             //!< completion, per-round and per-transfer times
    AllReduceVerification verification;   //!< every server's vector against the exact sum
    std::vector<FlowReport> flows;         //!< data flows, by workload (with flowMonitor)
    uint32_t ackFlows{0};                  //!< reverse (ACK) flows seen by FlowMonitor
    std::vector<uint64_t> linkBytes;       //!< per directed link, bytes put on the wire
    double dataRateBps{0};                 //!< link rate
    double pieceTime{0};                   //!< T_S: one piece's payload over one link, seconds
    double predictedTime{0};               //!< flow-level prediction: rounds × T_S
    uint64_t events{0};                    //!< simulator events executed
    double wallSeconds{0};                 //!< wall-clock time of Simulator::Run
    std::vector<std::string> notes;        //!< for the user, e.g. a fault that never fired
    /// \return per directed link, the busy fraction bytes·8 / (rate · completion time)
    std::vector<double> GetLinkUtilization() const;
};

/**
 * \ingroup allreduce
 * Runs one packet-level AllReduce of a plan on its own topology: builds the network
 * (DcnTopologyHelper), installs the applications and controller (AllReduceHelper), runs the
 * simulation, verifies the result and collects the statistics, then destroys the simulation.
 * \param plan workloads and schedule
 * \param config the run's settings
 * \return the report
 * \throws std::invalid_argument for bad settings (mode, rate, delay, values, loss, link), an
 *         invalid schedule or a gradient too small for the pieces, before the simulation starts
 */
PacketRunReport RunPacketAllReduce(const Plan& plan, const PacketRunConfig& config);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_EXPERIMENT_H */
