/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SIZE_LIMITS_H
#define NS3_ALLREDUCE_SIZE_LIMITS_H

#include <cstdint>
#include <exception>
#include <string>

namespace ns3
{

/**
 * \defgroup allreduce-common Common
 * \ingroup allreduce
 * Limits on sizes and memory, text files, portable random numbers, short-name registries, id spans:
 * what every other part uses.
 */

/**
 * \ingroup allreduce-common
 * The most memory one structure of the module may take (8 GiB): a size that would need more is
 * refused before anything is allocated, with a message that says how much it would need
 * (see "Limits" in doc/allreduce.rst).
 */
constexpr uint64_t MAX_MEMORY_BYTES = uint64_t{8} << 30;

/**
 * \ingroup allreduce-common
 * \return the memory limit in force: MAX_MEMORY_BYTES unless a process lowered it
 */
uint64_t GetMemoryLimit();

/**
 * \ingroup allreduce-common
 * Lowers (or restores) the memory limit of this process, for programs that take untrusted input
 * and must stay small, such as the fuzz targets.
 * \param bytes the new limit, at most MAX_MEMORY_BYTES
 */
void SetMemoryLimit(uint64_t bytes);

/**
 * \ingroup allreduce-common
 * Refuses a size whose memory estimate is over GetMemoryLimit().
 * \param what what would be built, e.g. "the workloads of bcube(n=16,k=4)"
 * \param bytes its estimated memory
 * \param hint how to make it smaller, e.g. "use fewer pieces"
 * \throws std::invalid_argument "WHAT would need N MiB, more than the limit of 8192 MiB; HINT"
 */
void CheckMemory(const std::string& what, uint64_t bytes, const std::string& hint);

/**
 * \ingroup allreduce-common
 * \param a a size \param b another
 * \return a * b, or UINT64_MAX where that overflows (so that an estimate made of products
 *         stays over any limit instead of wrapping around)
 */
uint64_t SaturatingMultiply(uint64_t a, uint64_t b);

/**
 * \ingroup allreduce-common
 * What a program prints for an error it caught: the exception's message, except where the
 * message alone says nothing to a user (std::bad_alloc: the memory ran out beyond what the size
 * checks foresaw), without the stack trace LibTorch's errors carry.
 * \param error the exception
 * \return the words to print after "error: "
 */
std::string DescribeError(const std::exception& error);

} // namespace ns3

#endif /* NS3_ALLREDUCE_SIZE_LIMITS_H */
