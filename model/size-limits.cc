/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "size-limits.h"

#include <limits>
#include <stdexcept>

namespace ns3
{

void
CheckMemory(const std::string& what, uint64_t bytes, const std::string& hint)
{
    if (bytes <= MAX_MEMORY_BYTES)
    {
        return;
    }
    const std::string need = bytes == std::numeric_limits<uint64_t>::max()
                                 ? "more than 2^64 bytes"
                                 : std::to_string(bytes >> 20) + " MiB";
    throw std::invalid_argument(what + " would need " + need + ", more than the limit of " +
                                std::to_string(MAX_MEMORY_BYTES >> 20) + " MiB" +
                                (hint.empty() ? "" : "; " + hint));
}

uint64_t
SaturatingMultiply(uint64_t a, uint64_t b)
{
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    {
        return std::numeric_limits<uint64_t>::max();
    }
    return a * b;
}

} // namespace ns3
