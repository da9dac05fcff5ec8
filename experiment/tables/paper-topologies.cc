/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "paper-topologies.h"

namespace ns3
{

std::string
PaperTopology::GetSizeText() const
{
    return "(" + std::to_string(nodes) + "," + std::to_string(links) + ")" +
           (linksDiffer ? "*" : "");
}

const std::vector<PaperTopology>&
GetPaperTopologies()
{
    // A 4-regular graph on 20 switches has 40 switch links, plus 20 server links: 60, where
    // the paper prints 59.
    static const std::vector<PaperTopology> rows{
        {"bcube:n=3,k=1", 15, 18, false, 16.8, 18.0, 10.2},
        {"bcube:n=4,k=1", 24, 32, false, 31.8, 64.0, 20.8},
        {"bcube:n=5,k=1", 35, 50, false, 51.6, 150.0, 34.7},
        {"dcell:n=4,k=1", 25, 30, false, 30.0, 47.1, 23.2},
        {"dcell:n=5,k=1", 36, 45, false, 48.4, 75.9, 33.8},
        {"dcell:n=6,k=1", 49, 63, false, 71.2, 112.3, 48.0},
        {"jellyfish:switches=10,degree=4,servers=1,seed=1", 20, 30, false, 23.0, 40.0, 22.7},
        {"jellyfish:switches=15,degree=4,servers=1,seed=1", 30, 45, false, 36.0, 69.6, 39.9},
        {"jellyfish:switches=20,degree=4,servers=1,seed=1", 40, 59, true, 51.2, 80.0, 62.2},
    };
    return rows;
}

const PaperTopology*
FindPaperTopology(const std::string& spec)
{
    for (const PaperTopology& row : GetPaperTopologies())
    {
        if (row.spec == spec)
        {
            return &row;
        }
    }
    return nullptr;
}

std::vector<std::string>
PaperTopologySpecs()
{
    std::vector<std::string> specs;
    for (const PaperTopology& row : GetPaperTopologies())
    {
        specs.push_back(row.spec);
    }
    return specs;
}

} // namespace ns3
