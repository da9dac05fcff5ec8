/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: see fuzz-targets.h and scripts/check-fuzz.sh.

#include "fuzz-targets.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    allreduce_fuzz::FuzzRouterFile(data, size);
    return 0;
}
