/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "mpi-launch.h"

#include <algorithm>
#include <cstdlib>
#include <initializer_list>

namespace ns3
{

namespace
{

/// \return the first of the environment variables that holds a number, else fallback
uint32_t
ReadLaunchVariable(std::initializer_list<const char*> names, uint32_t fallback)
{
    for (const char* name : names)
    {
        const char* value = std::getenv(name);
        if (value && *value)
        {
            char* end = nullptr;
            const unsigned long n = std::strtoul(value, &end, 10);
            if (*end == '\0' && n <= UINT32_MAX)
            {
                return static_cast<uint32_t>(n);
            }
        }
    }
    return fallback;
}

} // namespace

uint32_t
GetLaunchRanks()
{
    return std::max<uint32_t>(
        1, ReadLaunchVariable({"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"}, 1));
}

uint32_t
GetLaunchRank()
{
    return ReadLaunchVariable({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}, 0);
}

} // namespace ns3
