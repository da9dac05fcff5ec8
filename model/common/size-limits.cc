/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "size-limits.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <new>
#include <stdexcept>

namespace ns3
{

namespace
{
std::atomic<uint64_t> g_memoryLimit{MAX_MEMORY_BYTES}; //!< see SetMemoryLimit
} // namespace

uint64_t
GetMemoryLimit()
{
    return g_memoryLimit.load();
}

void
SetMemoryLimit(uint64_t bytes)
{
    g_memoryLimit.store(std::min(bytes, MAX_MEMORY_BYTES));
}

void
CheckMemory(const std::string& what, uint64_t bytes, const std::string& hint)
{
    const uint64_t limit = GetMemoryLimit();
    if (bytes <= limit)
    {
        return;
    }
    const std::string need = bytes == std::numeric_limits<uint64_t>::max()
                                 ? "more than 2^64 bytes"
                                 : std::to_string(bytes >> 20) + " MiB";
    throw std::invalid_argument(what + " would need " + need + ", more than the limit of " +
                                std::to_string(limit >> 20) + " MiB" +
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

std::string
DescribeError(const std::exception& error)
{
    if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr)
    {
        return "out of memory (std::bad_alloc): the run needs more memory than this process "
               "can have; give a smaller topology, fewer pieces or a smaller gradient (see "
               "\"Limits\" in doc/allreduce.rst), or raise the process's memory limit (ulimit -v)";
    }
    // LibTorch's c10::Error appends its C++ stack trace ("Exception raised from ..."): of no
    // use to a user, and dozens of lines.
    const std::string message = error.what();
    const size_t trace = message.find("\nException raised from ");
    return trace == std::string::npos ? message : message.substr(0, trace);
}

} // namespace ns3
