/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_VERIFICATION_H
#define NS3_ALLREDUCE_ALLREDUCE_VERIFICATION_H

#include "allreduce-application.h"

#include "ns3/gradient-layout.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The verdict of comparing every server's vector with the exact sum.
 */
struct AllReduceVerification
{
    bool verified{false};   //!< every value of every server matches
    bool exact{false};      //!< compared for equality (integer inputs) rather than a tolerance
    uint32_t server{0};     //!< the first server that differs (when not verified)
    uint64_t index{0};      //!< the first index that differs there
    double expected{0};     //!< the reference sum at that index
    double got{0};          //!< the server's value there
    double maxError{0};     //!< the largest |value − sum| over all servers and indexes
    uint32_t checked{0};    //!< servers compared (distributed: this rank's)
    std::string message;    //!< "verified: true" or names the server and index
};

/**
 * \ingroup allreduce-packet
 * Compares every server's vector with the sum of the servers' initial gradients: exactly for
 * integer inputs where float32 sums them exactly (values up to 64 in magnitude, N·64 < 2^24),
 * else within the error any order of float32 additions may make, (N−1)·2^-23·Σ|v|.
 * \param apps the applications, server i at index i (aggregating switches after, ignored);
 *        null for a server of another rank of a distributed run, which is not compared
 * \param servers how many servers \param layout the gradient's layout
 * \return the verdict
 */
AllReduceVerification VerifyAllReduce(const std::vector<Ptr<AllReduceApplication>>& apps,
                                      uint32_t servers,
                                      const GradientLayout& layout);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_VERIFICATION_H */
