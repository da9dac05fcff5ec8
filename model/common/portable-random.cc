/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "portable-random.h"

#include <limits>

namespace ns3
{

uint64_t
UniformIndex(std::mt19937_64& rng, uint64_t n)
{
    const uint64_t most = std::numeric_limits<uint64_t>::max();
    const uint64_t limit = most - (most % n);
    uint64_t x = 0;
    do
    {
        x = rng();
    } while (x >= limit);
    return x % n;
}

double
UniformUnit(std::mt19937_64& rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

} // namespace ns3
