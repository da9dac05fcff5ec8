/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_RDMA_VALIDATION_H
#define NS3_ALLREDUCE_RDMA_VALIDATION_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * The RDMA model against published behaviour (doc/allreduce.rst, "RDMA"): small networks of
 * hosts and switches on 10 Gbps lossless links with 1 us delay, each run returning the figures
 * the tests assert and allreduce-rdma-validation prints.
 */
namespace rdma_validation
{

/// One queue pair alone.
struct LineRate
{
    double gbps{0};            //!< stream bytes over the time the last arrived
    bool exact{false};         //!< every byte arrived, in order
    uint64_t dataPackets{0};   //!< data packets sent
    uint64_t acks{0};          //!< ACKs sent
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t cnps{0};          //!< CNPs sent
};

/// \param bytes the stream's size \return what one queue pair from a host to another did
LineRate RunLineRate(uint32_t bytes);

/// Queue pairs from several hosts into one.
struct FairShare
{
    std::vector<double> gbps; //!< per flow, its throughput in the window
    double jain{0};           //!< Jain's fairness index of gbps
    double total{0};          //!< their sum
    uint64_t drops{0};        //!< packets the buffers dropped
    uint64_t cnps{0};         //!< CNPs received by the senders
    uint64_t pauses{0};       //!< PFC pause frames sent
};

/**
 * \param flows senders, each starting 1 ms after the previous
 * \param fromMs \param toMs the window measured, ms from the start
 */
FairShare RunFairShare(uint32_t flows, uint32_t fromMs, uint32_t toMs);

/// Four hosts blast UDP at 90% of line rate for 500 us into a fifth through one switch.
struct Incast
{
    uint64_t sent{0};     //!< datagrams sent
    uint64_t received{0}; //!< datagrams received
    uint64_t drops{0};    //!< packets the buffers dropped
    uint64_t pauses{0};   //!< pauses the switch sent its hosts
    uint64_t marks{0};    //!< ECN marks at the switch's port to the receiver
};

/// \param pfc the buffers pause (true) or drop (false) \return what the incast did
Incast RunIncast(bool pfc);

/// A flow that shares one switch-to-switch link with flows to a congested port.
struct Spreading
{
    double victimGbps{0};       //!< the flow to the free port
    uint64_t upstreamPauses{0}; //!< pauses the second switch sent the first
    uint64_t hostPauses{0};     //!< pauses the first switch sent its hosts
};

/**
 * Hosts 0, 1 (to host 3) and 2 (the victim, to host 4) share the link from switch 5 to switch
 * 6; hosts 7 and 8, on switch 6, also send to host 3. The port to host 3 is congested; the one
 * to host 4 is not. UDP at 90% of line rate for 2 ms.
 * \param pfc lossless or lossy \param incast with the flows to host 3 (else the victim alone)
 */
Spreading RunSpreading(bool pfc, bool incast);

/**
 * \param cutThrough the switch's ports cut through (else they store and forward)
 * \return when one 4096-byte RoCE payload from a host arrives at another through one switch
 */
double RunOnePacketMicroseconds(bool cutThrough);

/// A stream of 1 MiB whose 10th data packet the receiver's port drops.
struct Recovery
{
    bool exact{false};         //!< every byte arrived, in order
    uint64_t nacks{0};         //!< NAKs sent
    uint64_t retransmitted{0}; //!< data packets sent again
    uint64_t timeouts{0};      //!< retransmission timeouts
    double ms{0};              //!< when the last byte arrived
};

/// \param recovery "go-back-n" or "selective-repeat" \return what the queue pair did
Recovery RunOneLoss(const std::string& recovery);

} // namespace rdma_validation
} // namespace ns3

#endif /* NS3_ALLREDUCE_RDMA_VALIDATION_H */
