/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TOPOLOGY_H
#define NS3_ALLREDUCE_TOPOLOGY_H

#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-topology Topologies
 * \ingroup allreduce
 * Data-center topologies (BCube, DCell, Jellyfish, fat-tree, any graph), spec strings, flow trees,
 * job views and the symmetries of a topology (doc/allreduce.rst, "Topology").
 */

/**
 * \ingroup allreduce-topology
 * The one "no such index" value of the module: a node with no parent in a flow tree or not
 * reached by a search, a workload with no round or not chosen.
 */
constexpr uint32_t NO_INDEX = 0xffffffffu;

/**
 * \ingroup allreduce-topology
 * What a node of a data-center topology can do: servers compute (aggregate) and relay,
 * switches only forward.
 */
enum class NodeKind
{
    SERVER, //!< a host: computes, aggregates and relays
    SWITCH  //!< a switch: forwards only
};

/**
 * \ingroup allreduce-topology
 * An undirected, full-duplex link between two nodes of a Topology.
 */
struct TopologyLink
{
    uint32_t a; //!< one end (node id)
    uint32_t b; //!< the other end (node id)

    /// Two links are equal when they join the same ends in the same order.
    bool operator==(const TopologyLink& other) const
    {
        return a == other.a && b == other.b;
    }
};

/**
 * \ingroup allreduce-topology
 * How fast one link is at packet level (doc/allreduce.rst, "Uneven links"). The flow level
 * moves one piece per directed link per round whatever the link, so it ignores them;
 * DcnTopologyHelper builds each link with them.
 */
struct LinkProperties
{
    uint64_t rateBps{0};   //!< data rate in bit/s; 0: the network's (its DataRate attribute)
    double rateFactor{1};  //!< multiplies that rate: below 1 for a slowed link
    int64_t delayNs{-1};   //!< propagation delay in nanoseconds; negative: the network's

    /// \param networkBps the network's rate (its DataRate attribute), in bit/s
    /// \return the link's own rate, or the network's, times its factor, in bit/s
    double GetRate(double networkBps) const
    {
        return (rateBps != 0 ? static_cast<double>(rateBps) : networkBps) * rateFactor;
    }

    /// \return true when nothing differs from the network's settings
    bool IsDefault() const
    {
        return rateBps == 0 && rateFactor == 1 && delayNs < 0;
    }
};

/**
 * \ingroup allreduce-topology
 * A data-center topology: an undirected graph of servers and switches (doc/allreduce.rst,
 * "Topology").
 *
 * Servers are numbered 0..N-1 and switches N..N+M-1. Every link is full duplex, so each of
 * its two directions is a resource of its own, a directed link: link i gives directed link
 * 2i (from a to b) and 2i+1 (from b to a). A node's ports are its links in the order they
 * were added, so port p of node u leads to GetNeighbors(u)[p].
 *
 * This is a plain value type that needs no running simulator.
 */
class Topology
{
  public:
    /** Largest number of nodes a topology may have; larger requests are refused. */
    static constexpr uint64_t MAX_NODES = uint64_t{1} << 24;
    /** Largest number of links a topology may have; larger requests are refused. */
    static constexpr uint64_t MAX_LINKS = uint64_t{1} << 26;

    /** Creates an empty topology (no nodes). */
    Topology() = default;

    /**
     * Creates a topology with the given servers and switches and no links yet.
     * \param name a human-readable name such as "bcube(n=3,k=1)"
     * \param servers number of servers (ids 0..servers-1)
     * \param switches number of switches (ids servers..servers+switches-1)
     * \throws std::invalid_argument when the size exceeds MAX_NODES
     */
    Topology(std::string name, uint32_t servers, uint32_t switches);

    /**
     * Adds a full-duplex link between two distinct nodes.
     * \param a one end
     * \param b the other end
     * \return the index of the new link
     * \throws std::invalid_argument for an unknown node, a self-loop or a duplicate link
     */
    uint32_t AddLink(uint32_t a, uint32_t b);

    /// \return the topology's name
    const std::string& GetName() const;
    /// \param name the new name
    void SetName(std::string name);
    /// \return number of servers N
    uint32_t GetNServers() const;
    /// \return number of switches
    uint32_t GetNSwitches() const;
    /// \return number of nodes (servers and switches)
    uint32_t GetNNodes() const;
    /// \return number of undirected links
    uint32_t GetNLinks() const;
    /// \param node a node id \return true when it is a server
    bool IsServer(uint32_t node) const;
    /// \param node a node id \return "server 3" or "switch 12", for messages
    std::string GetNodeName(uint32_t node) const;
    /// \param node a node id \return the node's kind
    NodeKind GetKind(uint32_t node) const;
    /// \param index a link index \return the link
    const TopologyLink& GetLink(uint32_t index) const;
    /// \return all links in the order they were added
    const std::vector<TopologyLink>& GetLinks() const;
    /// \param node a node id \return its neighbours in port order
    const std::vector<uint32_t>& GetNeighbors(uint32_t node) const;
    /// \param node a node id \return the indices of its links in port order
    const std::vector<uint32_t>& GetPortLinks(uint32_t node) const;
    /// \param node a node id \return its number of ports (links)
    uint32_t GetNPorts(uint32_t node) const;
    /// \return the ports of all servers together (the links at servers, counted at each end)
    uint64_t GetNServerPorts() const;
    /**
     * \param a one node \param b another node
     * \return the index of the link between them, or -1 when they are not adjacent
     */
    int64_t FindLink(uint32_t a, uint32_t b) const;
    /// \param a one node \param b another node \return true when a link joins them
    bool HasLink(uint32_t a, uint32_t b) const;

    /**
     * Gives a link its own rate or delay at packet level.
     * \param link a link index \param properties its rate, rate factor and delay
     * \throws std::out_of_range for no such link; std::invalid_argument for a rate factor
     *         outside (0, 1000], a rate above MAX_RATE_BPS or a delay above MAX_DELAY_NS
     */
    void SetLinkProperties(uint32_t link, const LinkProperties& properties);
    /// \param link a link index \return its properties (the defaults unless set)
    const LinkProperties& GetLinkProperties(uint32_t link) const;
    /// \return the number of links whose properties are not the defaults
    uint32_t CountUnevenLinks() const;

    /** Fastest rate a link may be given: 1 Pbit/s. */
    static constexpr uint64_t MAX_RATE_BPS = uint64_t{1000000000000000};
    /** Longest delay a link may be given: 1000 s. */
    static constexpr int64_t MAX_DELAY_NS = int64_t{1000000000000};

    /** Aggregator slots that stand for "as many as needed" (doc/allreduce.rst, "Aggregation
     * in the network"). */
    static constexpr uint32_t UNLIMITED_SLOTS = 0xffffffffu;

    /**
     * Lets a switch add gradients in flight (doc/allreduce.rst, "Aggregation in the network"),
     * or takes that ability away.
     * \param node a switch
     * \param slots how many chunk pieces it can hold at a time (its aggregator slots), from 1
     *        to UNLIMITED_SLOTS; 0 makes it a switch that only forwards
     * \throws std::out_of_range for no such node; std::invalid_argument for a server
     */
    void SetAggregatorSlots(uint32_t node, uint32_t slots);
    /// \param node a node id \return its aggregator slots: 0 for servers and forwarding switches
    uint32_t GetAggregatorSlots(uint32_t node) const;
    /// \param node a node id \return true when it is a switch that aggregates
    bool IsAggregator(uint32_t node) const;
    /// \return the number of switches that aggregate
    uint32_t CountAggregators() const;

    /**
     * Hop distances (in links) from one node to every node, by breadth-first search.
     * \param from the start node
     * \return the distance per node, UINT32_MAX for nodes that cannot be reached
     */
    std::vector<uint32_t> GetHopDistances(uint32_t from) const;
    /// \return true when every node can reach every other node
    bool IsConnected() const;
    /// \return the number of connected components
    uint32_t CountComponents() const;
    /// \return the largest hop distance between two servers (0 for a single server)
    uint32_t GetServerDiameter() const;
    /**
     * The server diameter from breadth-first searches out of at most maxSources servers,
     * spread evenly over the server ids: a search costs O(nodes + links), so on a large
     * topology a full diameter (one search per server) takes long.
     * \param maxSources the most searches (>= 1)
     * \return the largest hop distance found: the diameter when maxSources >= servers, else a
     *         lower bound of it
     */
    uint32_t GetServerDiameter(uint32_t maxSources) const;

    /**
     * Checks what every model built on a topology relies on: at least one server, every
     * server has a link, and the graph is connected.
     * \throws std::invalid_argument naming the first problem found
     */
    void Validate() const;

    /// \return true when both have the same name, node kinds, aggregators and links in the
    ///         same order
    bool operator==(const Topology& other) const;
    /// \return the negation of operator==
    bool operator!=(const Topology& other) const;
    /**
     * \param other another topology
     * \return empty when both have the same servers, switches, aggregators (and their slots)
     *         and links in the same order (names aside), else the first difference in words
     */
    std::string DescribeDifference(const Topology& other) const;
    /**
     * The same, with each side named as the caller knows it (e.g. "the file" and
     * "'bcube(n=3,k=1)'"), where both may have the same name.
     * \param other another topology
     * \param mine how this one is named in the answer
     * \param theirs how other is named in the answer
     * \return empty when both are the same graph, else the first difference in words
     */
    std::string DescribeDifference(const Topology& other,
                                   const std::string& mine,
                                   const std::string& theirs) const;

  private:
    /// \param node a node id \throws std::out_of_range when it is not a node of this topology
    void CheckNode(uint32_t node) const;
    /// \return a key identifying the unordered pair {a, b}
    static uint64_t PairKey(uint32_t a, uint32_t b);

    std::string m_name;                                //!< human-readable name
    uint32_t m_nServers{0};                            //!< number of servers
    uint32_t m_nSwitches{0};                           //!< number of switches
    std::vector<TopologyLink> m_links;                 //!< links, in order of addition
    std::vector<LinkProperties> m_linkProperties;      //!< per link, its packet-level speed
    std::vector<std::vector<uint32_t>> m_neighbors;    //!< per node, neighbours in port order
    std::vector<std::vector<uint32_t>> m_portLinks;    //!< per node, link indices in port order
    std::unordered_map<uint64_t, uint32_t> m_linkIndex; //!< unordered pair -> link index
    std::vector<uint32_t> m_slots; //!< per node, aggregator slots; empty while none aggregates
};

/**
 * \ingroup allreduce-topology
 * Checks that a topology of the given size fits the limits, before anything is allocated.
 * \param what the topology being built, for the message (e.g. "bcube(n=100,k=5)")
 * \param servers number of servers (saturated at UINT64_MAX on overflow)
 * \param switches number of switches (saturated likewise)
 * \param links number of links (saturated likewise)
 * \throws std::invalid_argument stating the size and the limits when it does not fit
 */
void CheckTopologySize(const std::string& what, uint64_t servers, uint64_t switches, uint64_t links);

/**
 * \ingroup allreduce-topology
 * \param name a topology's name (Topology::GetName), e.g. "bcube(n=3,k=1)"
 * \return its family: the generator's name before the parameters ("bcube", "dcell",
 *         "fattree", "jellyfish", "random"), or the whole name when it has none (a file's)
 */
std::string TopologyFamily(const std::string& name);

/**
 * \ingroup allreduce-topology
 * Writes a topology in the plain-text topology file format (see doc/allreduce.rst).
 * \param topology the topology
 * \param os the stream to write to
 */
void WriteTopology(const Topology& topology, std::ostream& os);

/**
 * \ingroup allreduce-topology
 * Writes a topology to a file in the plain-text topology file format.
 * \param topology the topology
 * \param path the file to (over)write
 * \throws std::invalid_argument when the file cannot be written
 */
void WriteTopologyFile(const Topology& topology, const std::string& path);

/**
 * \ingroup allreduce-topology
 * Writes a topology as a Graphviz graph: servers are boxes (s<id>), switches ellipses (w<id>).
 * \param topology the topology
 * \param os where to write
 */
void WriteGraphviz(const Topology& topology, std::ostream& os);

/**
 * \ingroup allreduce-topology
 * Reads a topology in the plain-text topology file format and validates it.
 * \param is the stream to read
 * \param source the name used in error messages (a file name)
 * \return the topology
 * \throws std::invalid_argument naming the source and line of the first problem
 */
Topology ReadTopology(std::istream& is, const std::string& source);

/**
 * \ingroup allreduce-topology
 * Reads and validates a topology file.
 * \param path the file
 * \return the topology
 * \throws std::invalid_argument for a missing file or any problem in it (with its line)
 */
Topology ReadTopologyFile(const std::string& path);

} // namespace ns3

#endif /* NS3_ALLREDUCE_TOPOLOGY_H */
