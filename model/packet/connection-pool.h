/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CONNECTION_POOL_H
#define NS3_ALLREDUCE_CONNECTION_POOL_H

#include "ns3/callback.h"
#include "ns3/topology.h"
#include "ns3/workload.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * The TCP connections an AllReduceController's transfers use, named by their source ports (a
 * flow route pins a connection's path by its port). Per transfer, every workload has a port of
 * its own, fixed at Reset. Persistent, one connection per sender, receiver and path carries
 * every transfer between them: Take picks the one on the workload's path, else an idle one
 * between the same ends (routed along the new path), else opens one on the sender's next
 * port. A connection a link of whose path went down, or whose TCP timed out or gave up, is
 * retired: it finishes what it carries and takes no new transfer.
 */
class ConnectionPool
{
  public:
    /// What Pick did.
    struct Pick
    {
        bool picked{false};     //!< a connection takes the transfer (false: no port left)
        bool opened{false};     //!< it is a new connection
        bool pathChanged{false}; //!< its route must now follow the workload's path
        uint32_t connection{0}; //!< its index
    };

    /**
     * Forgets every connection and gives per-transfer ports.
     * \param workloads the workloads \param nodes the nodes that may send (ports are per node)
     * \param firstPort each node's first source port
     * \param perTransfer a connection of its own for every transfer
     * \throws std::invalid_argument when, per transfer, a node sends more workloads than it
     *         has ports from firstPort on
     */
    void Reset(const WorkloadSet& workloads,
               uint32_t nodes,
               uint16_t firstPort,
               bool perTransfer);

    /**
     * Persistent connections: the connection a workload starts on (see the class).
     * \param workload the workload, on the path it takes now
     * \param timedOut tells whether the sender's connection from a port went through a
     *        retransmission timeout (it is then retired)
     * \return the connection taken, or none when a new one was needed and the sender has no
     *         port left
     */
    Pick Take(const Workload& workload, Callback<bool, uint16_t> timedOut);

    /// \param workload its transfer finished: its connection carries one fewer
    void Finish(uint32_t workload);

    /// \param workload in flight, it moved to \p path, and its connection with it
    /// \param path the new path
    void Move(uint32_t workload, const std::vector<uint32_t>& path);

    /// Retires every connection whose path crosses a link. \param topo the topology
    /// \param link the link, which went down
    void RetireOver(const Topology& topo, uint32_t link);

    /// Retires the connection of a sender's port. \param node the sender \param port its port
    void Retire(uint32_t node, uint16_t port);

    /// \param workload a workload \return its source port (persistent: 0 until it starts)
    uint16_t GetSourcePort(uint32_t workload) const;

    /// \param connection an index from Take \return its source port
    uint16_t GetPort(uint32_t connection) const;

  private:
    /// \param node a sender \return whether it has a port left for a new connection
    bool HasFreePort(uint32_t node) const;

    /// A persistent connection (the sender's source port identifies it).
    struct Connection
    {
        uint16_t port{0};           //!< its source port
        std::vector<uint32_t> path; //!< the path its route follows now
        uint32_t inFlight{0};       //!< transfers on it not yet finished
        bool retired{false};        //!< it takes no new transfers (its TCP may be backing off)
    };

    std::vector<Connection> m_open; //!< every connection opened
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> m_openBetween; //!< by
                                    //!< (sender, receiver), its connections
    std::vector<uint32_t> m_nextPort;     //!< per node, its next free port
    std::vector<uint32_t> m_connectionOf; //!< per workload, its connection (NO_INDEX: none)
    std::vector<uint16_t> m_sourcePort;   //!< per workload, its port
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_CONNECTION_POOL_H */
