/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_PORTABLE_RANDOM_H
#define NS3_ALLREDUCE_PORTABLE_RANDOM_H

#include <cstdint>
#include <random>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * A uniform integer in [0, n) drawn from a 64-bit Mersenne Twister by rejection, so that the
 * same seed gives the same draw with every standard library (the std distributions do not).
 * \param rng the generator \param n how many values, at least 1
 * \return the draw
 */
uint64_t UniformIndex(std::mt19937_64& rng, uint64_t n);

/**
 * \ingroup allreduce-common
 * \param rng the generator
 * \return a uniform value in [0, 1) from the generator's top 53 bits, the same with every
 *         standard library
 */
double UniformUnit(std::mt19937_64& rng);

} // namespace ns3

#endif /* NS3_ALLREDUCE_PORTABLE_RANDOM_H */
