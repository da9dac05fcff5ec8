/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEST_TOPOLOGIES_H
#define NS3_ALLREDUCE_TEST_TOPOLOGIES_H

// Small topologies several tests work by hand.

#include "ns3/allreduce-module.h"

#include <sstream>

namespace ns3
{
namespace test
{

/// Four servers on one switch (node 4), as a topology file would give them.
inline Topology
StarOfFour()
{
    Topology t("star4", 4, 1);
    for (uint32_t s = 0; s < 4; ++s)
    {
        t.AddLink(s, 4);
    }
    return t;
}

/// Servers 0 and 1 on switch 4, servers 2 and 3 on switch 5, one link 4 - 5 between them.
inline Topology
Dumbbell()
{
    Topology t("dumbbell", 4, 2);
    t.AddLink(0, 4);
    t.AddLink(1, 4);
    t.AddLink(2, 5);
    t.AddLink(3, 5);
    t.AddLink(4, 5);
    return t;
}

/// Four servers and two switches (4, 5) with server 0 on both, written in the topology file
/// format and read back.
inline Topology
TwoSwitchesFile()
{
    std::istringstream is("topology two-switches\nservers 4\nswitches 2\n"
                          "link 0 4\nlink 1 4\nlink 2 5\nlink 3 5\nlink 4 5\nlink 0 5\n");
    return ReadTopology(is, "two-switches.topo");
}

} // namespace test
} // namespace ns3

#endif /* NS3_ALLREDUCE_TEST_TOPOLOGIES_H */
