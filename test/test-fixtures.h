/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEST_FIXTURES_H
#define NS3_ALLREDUCE_TEST_FIXTURES_H

// What the GoogleTest tests and the ns-3 TestSuite both build by hand, with neither framework
// (the module alone): errors caught as text, counts, hand-made workloads and schedules on the
// small topologies of test-topologies.h, a placement that follows a list.

#include "test-topologies.h"

#include "ns3/allreduce-module.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{

/**
 * \param f what to run
 * \return the message of the std::invalid_argument or std::runtime_error that f throws, or ""
 *         when it throws none
 */
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    return "";
}

/// \return base to the power exp
inline uint32_t
Pow(uint32_t base, uint32_t exp)
{
    uint32_t r = 1;
    for (uint32_t i = 0; i < exp; ++i)
    {
        r *= base;
    }
    return r;
}

/// \return the number of switch neighbours of a node
inline uint32_t
SwitchDegree(const Topology& t, uint32_t node)
{
    uint32_t d = 0;
    for (uint32_t v : t.GetNeighbors(node))
    {
        d += t.IsServer(v) ? 0 : 1;
    }
    return d;
}

/// \return workloads written by hand on StarOfFour (merge semantics, one piece)
inline WorkloadSet
OnStar(const std::vector<Workload>& list)
{
    return WorkloadSet(StarOfFour(), list, WorkloadSemantics::MERGE, 1);
}

/// \return a reduce workload of chunk 0 across StarOfFour's switch (node 4)
inline Workload
StarReduce(uint32_t id, uint32_t src, uint32_t dst, std::vector<uint32_t> carries)
{
    Workload w;
    w.id = id;
    w.chunk = 0;
    w.src = src;
    w.dst = dst;
    w.path = {src, 4, dst};
    w.carries = ServerSet(carries);
    return w;
}

/// \return StarOfFour with its switch aggregating, with the given slots
inline Topology
AggregatingStar(uint32_t slots = Topology::UNLIMITED_SLOTS)
{
    Topology t = StarOfFour();
    t.SetAggregatorSlots(4, slots);
    return t;
}

/// \return the id of the workload of a chunk in a phase from src to dst (NO_INDEX: none)
inline uint32_t
FindWorkload(const WorkloadSet& ws, uint32_t chunk, Phase phase, uint32_t src, uint32_t dst)
{
    for (const Workload& w : ws.GetAll())
    {
        if (w.chunk == chunk && w.phase == phase && w.src == src && w.dst == dst)
        {
            return w.id;
        }
    }
    return NO_INDEX;
}

/// AggregatingStar's chunks one after the other, four rounds each: the sources up to the
/// switch, the switch's sum to the root, the root's complete sum back up, the switch's copies
/// down.
inline Schedule
ChunkByChunk(const WorkloadSet& ws)
{
    Schedule s;
    for (uint32_t c = 0; c < 4; ++c)
    {
        std::vector<uint32_t> up;
        std::vector<uint32_t> down;
        for (uint32_t src = 0; src < 4; ++src)
        {
            if (src != c)
            {
                up.push_back(FindWorkload(ws, c, Phase::REDUCE, src, 4));
                down.push_back(FindWorkload(ws, c, Phase::GATHER, 4, src));
            }
        }
        s.rounds.push_back(up);
        s.rounds.push_back({FindWorkload(ws, c, Phase::REDUCE, 4, c)});
        s.rounds.push_back({FindWorkload(ws, c, Phase::GATHER, c, 4)});
        s.rounds.push_back(down);
    }
    return s;
}

/// Places each job on the next list of servers given, in arrival order (waits while one of
/// them is busy).
class SequencePlacement : public PlacementPolicy
{
  public:
    /// \return the object TypeId
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TestSequencePlacement")
                                .SetParent<PlacementPolicy>()
                                .SetGroupName("AllReduce");
        return tid;
    }

    /// \param placements per job, its servers
    explicit SequencePlacement(std::vector<std::vector<uint32_t>> placements = {})
        : m_placements(std::move(placements))
    {
    }

    std::string GetName() const override
    {
        return "sequence";
    }

  protected:
    std::vector<uint32_t> DoPlace(const Topology&, const PlacementRequest& request) override
    {
        const std::vector<uint32_t>& next = m_placements.at(m_next);
        for (uint32_t s : next)
        {
            if (!request.free[s])
            {
                return {};
            }
        }
        ++m_next;
        return next;
    }

  private:
    std::vector<std::vector<uint32_t>> m_placements; //!< per job, its servers
    size_t m_next{0};                                //!< the next job's
};

} // namespace test
} // namespace ns3

#endif /* NS3_ALLREDUCE_TEST_FIXTURES_H */
