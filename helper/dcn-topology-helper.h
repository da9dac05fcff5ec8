/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DCN_TOPOLOGY_HELPER_H
#define NS3_ALLREDUCE_DCN_TOPOLOGY_HELPER_H

#include "lossless-ethernet-helper.h"
#include "p2p-network-reader.h"
#include "rdma-helper.h"

#include "ns3/arrival-sequencer.h"
#include "ns3/callback.h"
#include "ns3/flow-path-routing.h"
#include "ns3/flow-tree.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-interface-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/topology-partition.h"
#include "ns3/topology.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/workload.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * Turns a Topology into an ns-3 network: one node per server and per switch, one
 * point-to-point link per topology link, the internet stack, IPv4 addresses, and static host
 * routes (FlowPathRouting) that follow flow trees, so that a packet from server u to server v
 * travels exactly the path of u in v's flow tree (servers relay, switches forward as IP
 * routers).
 *
 * Usage, in the shape of ns-3's layout helpers:
 * \code
 *   DcnTopologyHelper dcn(BuildTopology("bcube:n=3,k=1"));
 *   dcn.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
 *   dcn.SetChannelAttribute("Delay", StringValue("1us"));
 *   dcn.Install(); // nodes, links, stack, addresses, shortest-path flow-tree routes
 *   Ipv4Address to = dcn.GetServerAddress(4);
 * \endcode
 * The steps Install() takes are public too, for a caller that wants its own stack or trees.
 *
 * A link with its own LinkProperties (a topology file's rate, delay and factor columns, or the
 * spec option slow=) gets its own rate (its rate, or the DataRate set here, times its factor)
 * and delay; the others take the attributes set here.
 *
 * Addressing: link i gets the /30 subnet base + 4i; its end a takes .1, its end b .2. A
 * server's address (GetServerAddress) is the one on its first port; routes are installed to
 * every address of every server, so replies to any source address follow the trees as well.
 */
class DcnTopologyHelper
{
  public:
    /**
     * \param topology the topology to build; it is validated and copied
     * \throws std::invalid_argument when the topology is not valid (see Topology::Validate)
     */
    explicit DcnTopologyHelper(const Topology& topology);
    /**
     * Takes a network you built with ns-3's own helpers (nodes, point-to-point links, the
     * internet stack, IPv4 addresses, your routing), read by P2pNetworkReader: the servers
     * named, in server order; the switches, every other node reached from them over
     * point-to-point channels. Nothing of the network is changed: the steps that build
     * (Install, CreateNodesAndLinks, InstallStack, AssignIpv4Addresses) and the settings they
     * take (SetDeviceAttribute, SetQueue, SetTrafficControl, ...) are refused. What is left is
     * to choose the routes of the AllReduce's transfers: InstallWorkloadRoutes() or
     * UseNetworkRouting().
     * \code
     *   PointToPointDumbbellHelper dumbbell(3, leaf, 3, leaf, bottleneck);
     *   ... // your stack, addresses and routing
     *   DcnTopologyHelper network(servers); // the dumbbell's six leaves
     *   network.InstallWorkloadRoutes();
     *   AllReduceHelper allreduce(network);
     * \endcode
     * \param servers the servers, server i at index i
     * \throws std::invalid_argument as P2pNetworkReader::Read
     */
    explicit DcnTopologyHelper(const NodeContainer& servers);
    /**
     * As DcnTopologyHelper(servers), with the switches named: links to nodes not named are
     * not part of the network.
     * \param servers the servers, server i at index i
     * \param switches the switches, switch j (model id N+j) at index j
     * \throws std::invalid_argument as P2pNetworkReader::Read
     */
    DcnTopologyHelper(const NodeContainer& servers, const NodeContainer& switches);

    /**
     * Sets an attribute of every point-to-point device created (e.g. "DataRate").
     * \param name the attribute name \param value its value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    /**
     * Sets an attribute of every point-to-point channel created (e.g. "Delay").
     * \param name the attribute name \param value its value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);
    /**
     * Sets the queue type and attributes of every device created.
     * \param type the queue's TypeId name, e.g. "ns3::DropTailQueue<Packet>"
     * \param args name and value pairs of the queue's attributes
     */
    template <typename... Ts>
    void SetQueue(std::string type, Ts&&... args);
    /**
     * Sets the queue discs (ns-3 traffic control) that InstallStack puts on every device,
     * instead of the default: FqCoDelQueueDisc over byte queue limits (DynamicQueueLimits), as
     * a Linux host runs fq_codel with BQL. Packets then wait in the queue disc, per flow, and
     * a flow's burst does not hold up the acknowledgements of the flows coming the other way
     * in a device's FIFO queue.
     * \param tc the configuration, e.g. a RedQueueDisc with UseEcn for DCTCP
     */
    void SetTrafficControl(const TrafficControlHelper& tc);
    /// No queue discs: packets wait only in the devices' own FIFO queues (SetQueue).
    void DisableTrafficControl();
    /**
     * Sets the TCP congestion control of every node (TcpL4Protocol's SocketType), applied by
     * InstallStack; without it, ns-3's default (ns3::TcpCubic in ns-3.37).
     * \param type a TcpCongestionOps TypeId name: "ns3::TcpCubic", "ns3::TcpNewReno",
     *        "ns3::TcpDctcp" (with ECN marking queues, SetTrafficControl), ...
     * \throws std::invalid_argument when no such congestion control exists
     */
    void SetTcpCongestionControl(const std::string& type);

    /**
     * Builds the links as lossless Ethernet (doc/allreduce.rst, "RDMA") instead of
     * point-to-point: LosslessNetDevices with priority flow control and ECN marking, a
     * SharedBuffer on every node, and, at InstallStack, the RoCEv2 transport (RdmaHelper) on
     * every node and no queue discs (the ports' class queues and the buffer hold the packets).
     * SetDeviceAttribute and SetChannelAttribute apply to these links as well; SetQueue,
     * SetTrafficControl and EnablePcapAll are refused. AllReduceHelper then runs over RDMA with
     * the applications' Protocol set to ns3::RdmaSocketFactory. Call it before Install
     * (CreateNodesAndLinks).
     * \param ethernet the links' settings (device, channel and buffer attributes)
     * \param rdma the transport's settings (socket and DCQCN attributes)
     * \throws std::invalid_argument as RdmaHelper::Validate
     * \throws std::logic_error on a network read (built by you) or after CreateNodesAndLinks
     */
    void UseLosslessEthernet(const LosslessEthernetHelper& ethernet = LosslessEthernetHelper(),
                             const RdmaHelper& rdma = RdmaHelper());
    /// \return true after UseLosslessEthernet
    bool UsesLosslessEthernet() const;
    /**
     * Lossless links: whether the switches' ports forward cut-through (the default, as
     * data-center switches do: a frame leaves once its header is in, when its egress port is
     * free) or store and forward. Servers always store and forward.
     * \param enabled cut through (true) or store and forward
     */
    void SetCutThrough(bool enabled);

    /// What the network's ports and transports counted since the start.
    struct TransportCounters
    {
        uint64_t pfcPauseFrames{0}; //!< PFC frames that paused a class (lossless links)
        uint64_t ecnMarks{0};       //!< packets marked CE (lossless ports, or queue discs)
        uint64_t cnps{0};           //!< DCQCN congestion notifications sent (RDMA)
        uint64_t droppedPackets{0}; //!< packets dropped anywhere on the links: buffers or
                                    //!< queues full, receive errors
        uint64_t pfcPortDrops{0};   //!< of those, dropped at ports with PFC on (a headroom
                                    //!< below what the link needs), which PFC should prevent
    };
    /// \return what the network counted since the start (warm-ups included)
    TransportCounters GetTransportCounters() const;

    /**
     * Builds everything: CreateNodesAndLinks(), InstallStack() with a default
     * InternetStackHelper, AssignIpv4Addresses() and InstallFlowTreeRoutes() with the default
     * shortest-path trees.
     */
    void Install();

    /**
     * Spreads the network over the ranks of a distributed simulation (doc/allreduce.rst,
     * "Distributed runs"): each node is created with its rank as ns-3 system id, and a link
     * between two ranks becomes ns-3's remote point-to-point channel (ns-3's
     * PointToPointHelper does that when ns-3 has its MPI module and MpiInterface is enabled).
     * Every rank builds the whole network; each simulates only its own nodes. Call it before
     * Install (CreateNodesAndLinks).
     * \param partition a partition of this helper's topology
     * \throws std::invalid_argument when the partition is of another topology, or has more than
     *         one rank and ns-3 was built without MPI (the standalone build against Debian's
     *         ns-3: distributed runs need the in-tree build, with ./ns3 configure --enable-mpi)
     */
    void SetPartition(const TopologyPartition& partition);
    /// \return the partition (one rank unless SetPartition gave another)
    const TopologyPartition& GetPartition() const;

    /**
     * Makes every node of this network take the packets that arrive at one instant in one
     * fixed order (ArrivalSequencer), as a distributed run needs to give the same times on any
     * number of ranks; AllReduceHelper calls it for a distributed AllReduce. Call it once the
     * stack and addresses are installed; later calls do nothing.
     * \return the sequencer
     */
    Ptr<ArrivalSequencer> SequenceArrivals();

    /**
     * Creates the nodes (model id order: servers, then switches, each with its rank's system
     * id, SetPartition) and the links.
     * \throws std::invalid_argument when a link between two ranks has no delay: it is the
     *         lookahead that lets the ranks run in parallel
     */
    void CreateNodesAndLinks();
    /**
     * Installs an internet stack on every node, the TCP congestion control
     * (SetTcpCongestionControl) and the queue discs on every device (SetTrafficControl).
     * \param stack the helper to install with
     */
    void InstallStack(InternetStackHelper& stack);
    /**
     * Gives every link its own /30 subnet, starting at base.
     * \param base the first subnet's network address, a multiple of 4
     * \throws std::invalid_argument when base is not /30-aligned or the subnets would run past
     *         255.255.255.255
     */
    void AssignIpv4Addresses(Ipv4Address base = Ipv4Address("10.0.0.0"));
    /**
     * For a network you built (the constructors taking nodes): adds the module's routing
     * (FlowPathRouting) beside yours in every node's Ipv4ListRouting, at priority
     * FLOW_PATH_ROUTING_PRIORITY, empty: an AllReduceController then gives each transfer's
     * connection the route of its workload's path (InstallFlowRoute), and every other packet
     * keeps your routing. Nothing of yours is removed.
     * \throws std::invalid_argument when a node's routing is not an Ipv4ListRouting
     *         (InternetStackHelper's default is one)
     */
    void InstallWorkloadRoutes();
    /**
     * For a network you built: the AllReduce's transfers follow your network's own routing
     * (e.g. ns-3's global routing), and the module installs no route. Each workload's path is
     * then the one your routing gives between its two ends (GetNetworkPath, without ports:
     * under ECMP per flow a transfer may take another of the equal-cost paths, since its
     * connection's ports are chosen when it opens); AllReduceHelper reads each transfer's real
     * path from the simulation (PathRecorder) and reports it (GetTakenPath). The module does
     * not route around links that go down then: that is your routing's job.
     * \throws std::logic_error on a network this helper built, or after InstallWorkloadRoutes
     */
    void UseNetworkRouting();
    /// \return true after UseNetworkRouting()
    bool UsesNetworkRouting() const;
    /// \return true once the module's routing is in the nodes (InstallFlowTreeRoutes,
    ///         InstallWorkloadRoutes)
    bool HasModuleRouting() const;
    /**
     * The path your network's routing gives a packet from one server to another: asks each
     * node's IPv4 routing (RouteOutput, as for a packet it sends) for the next hop, from the
     * sender's first address to the receiver's, with the ports given (per-flow ECMP hashes
     * them). Forwarding nodes ask RouteInput instead; the two agree for static, global and
     * FlowEcmpRouting, not for routing that draws at random per packet (global routing's
     * RandomEcmpRouting) or computes paths at the source (Nix-vector).
     * \param from a server \param to another server
     * \param sourcePort the sender's port \param destinationPort the receiver's port
     * \return model node ids from `from` to `to`
     * \throws std::invalid_argument naming the node where the routing has no route, leaves the
     *         network or loops: an address plan or routing that leaves a server unreachable
     */
    std::vector<uint32_t> GetNetworkPath(uint32_t from,
                                         uint32_t to,
                                         uint16_t sourcePort = 0,
                                         uint16_t destinationPort = 0) const;
    /**
     * \param workloads workloads for this network's topology
     * \return the same workloads, each along the path your routing gives it (GetNetworkPath)
     * \throws std::invalid_argument as GetNetworkPath
     */
    WorkloadSet FollowNetworkRouting(const WorkloadSet& workloads) const;
    /// \return true when the network was built by you and read (the constructors taking nodes)
    bool IsReadNetwork() const;
    /** Installs static host routes that follow the default shortest-path flow trees. */
    void InstallFlowTreeRoutes();
    /**
     * Installs static host routes that follow the given flow trees: for each tree, every node
     * in it gets a route to every address of the root via its parent. The routes live in a
     * FlowPathRouting added to each node's Ipv4ListRouting (priority
     * FLOW_PATH_ROUTING_PRIORITY, above static routing's 0). Called again, it replaces the
     * routes to the roots of the trees given and keeps the others.
     * \param trees one tree per root server (any order, at most one per root)
     * \throws std::invalid_argument when two trees share a root, or a node's routing is not an
     *         Ipv4ListRouting
     */
    void InstallFlowTreeRoutes(const std::vector<FlowTree>& trees);
    /**
     * Makes one TCP or UDP connection take a given path: installs a flow route for the packets
     * from source to destination at every node of the path but the last, and one for the
     * replies (addresses and ports swapped) along the reversed path.
     * \param path model node ids from the sending server to the receiving server (either end
     *        may be an aggregating switch, Topology::IsAggregator, which sends and receives from
     *        the address of its first port as a server does); consecutive nodes must be linked
     * \param sourcePort the sender's port \param destinationPort the receiver's port
     * \throws std::invalid_argument when the path is shorter than two nodes, its ends are not
     *         servers or aggregating switches, or two consecutive nodes are not linked
     */
    void InstallFlowRoute(const std::vector<uint32_t>& path,
                          uint16_t sourcePort,
                          uint16_t destinationPort);
    /**
     * Takes a link down (both its IPv4 interfaces) or up again, e.g. from a scheduled event to
     * model a failure mid-run. Routes through a down interface are not used, and packets
     * arriving on it are dropped.
     * \param link a topology link index \param up false for down, true for up
     */
    void SetLinkUp(uint32_t link, bool up);
    /// \param link a topology link index \return false when either end of it is down
    bool IsLinkUp(uint32_t link) const;
    /**
     * \param callback told (link, up) after every SetLinkUp, e.g. an online
     *        AllReduceController that routes around links that are down
     */
    void AddLinkStateCallback(Callback<void, uint32_t, bool> callback);
    /**
     * Makes every device drop received packets at random, with probability rate each
     * (RateErrorModel, per packet), from random streams starting at stream.
     * \param rate the loss probability, in [0, 1)
     * \param stream the first random stream number (for reproducible runs)
     * \return the number of streams used
     * \throws std::invalid_argument when rate is outside [0, 1)
     */
    int64_t SetPacketLoss(double rate, int64_t stream = 0);
    /**
     * Writes a pcap trace of every device.
     * \param prefix the file name prefix
     */
    void EnablePcapAll(const std::string& prefix);

    /**
     * \param node a model node id
     * \return the node's flow-tree routes (after InstallFlowTreeRoutes)
     */
    Ptr<FlowPathRouting> GetRouting(uint32_t node) const;

    /** Priority of FlowPathRouting in each node's Ipv4ListRouting. */
    static constexpr int16_t FLOW_PATH_ROUTING_PRIORITY = 10;

    /// \return the topology being built
    const Topology& GetTopology() const;
    /// \return the server nodes, server i at index i
    NodeContainer GetServers() const;
    /// \return the switch nodes, switch j (model id N+j) at index j
    NodeContainer GetSwitches() const;
    /// \return every node in model id order
    NodeContainer GetNodes() const;
    /// \param i a server index \return its node
    Ptr<Node> GetServer(uint32_t i) const;
    /// \param j a switch index (0 for the first switch) \return its node
    Ptr<Node> GetSwitch(uint32_t j) const;
    /// \param id a model node id \return its node
    Ptr<Node> GetNode(uint32_t id) const;
    /**
     * \param node a node (model id)
     * \return whether this process simulates it: every node on one rank, else its rank's
     *         (SetPartition; routes go only there: another rank's copy of a node forwards
     *         nothing)
     */
    bool IsSimulatedHere(uint32_t node) const;
    /// \return per node (model id), IsSimulatedHere
    std::vector<bool> GetSimulatedNodes() const;
    /**
     * \param node an ns-3 node created by this helper
     * \return its model node id
     * \throws std::invalid_argument when this helper did not create it
     */
    uint32_t GetModelId(Ptr<const Node> node) const;
    /// \param link a topology link index \return its two devices, at end a then end b
    NetDeviceContainer GetLinkDevices(uint32_t link) const;
    /// \param server a server \return its address (the one on its first port)
    Ipv4Address GetServerAddress(uint32_t server) const;
    /**
     * \param node a model node id \param port one of its ports
     * \return the node's address on the link of that port
     */
    Ipv4Address GetPortAddress(uint32_t node, uint32_t port) const;

  private:
    /// Gives a link's devices and channel its own rate and delay (Topology::GetLinkProperties).
    /// \param link a link whose devices exist
    void ApplyLinkProperties(uint32_t link);
    /// \return the interface index of node's end of link \param node a model id \param link
    uint32_t GetInterface(uint32_t node, uint32_t link) const;
    /// \return node's address on link \param node a model id \param link a link index
    Ipv4Address GetLinkAddress(uint32_t node, uint32_t link) const;
    /// Throws std::logic_error when a step is called before the one it needs.
    void Require(bool done, const std::string& step, const std::string& first) const;
    /// Throws std::logic_error when the network was read (it is the user's) \param step
    void RefuseOnReadNetwork(const std::string& step) const;
    /// Throws std::logic_error on lossless links (UseLosslessEthernet) \param step
    void RefuseOnLossless(const std::string& step) const;
    /**
     * \param type a lossless link's device or channel type \param name an attribute
     * \throws std::invalid_argument when the type has no such attribute
     */
    static void RefuseMissingAttribute(TypeId type, const std::string& name);
    /// Takes a network read by P2pNetworkReader \param network the network
    void Adopt(P2pNetworkReader::Network network);

    Topology m_topology;                      //!< the model
    PointToPointHelper m_p2p;                 //!< makes the links
    bool m_lossless{false};                   //!< UseLosslessEthernet
    bool m_cutThrough{true};                  //!< lossless switch ports cut through
    LosslessEthernetHelper m_ethernet;        //!< makes lossless links
    RdmaHelper m_rdma;                        //!< puts RDMA on the nodes
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_deviceAttributes; //!< given
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_channelAttributes; //!< given
    uint64_t m_receiveErrors{0};              //!< point-to-point frames lost to errors
    NodeContainer m_nodes;                    //!< all nodes, model id order
    TopologyPartition m_partition;            //!< each node's rank
    std::vector<NetDeviceContainer> m_links;  //!< devices per link (end a, end b)
    std::vector<Ipv4InterfaceContainer> m_interfaces; //!< addresses per link (end a, end b)
    std::vector<Ptr<FlowPathRouting>> m_routing; //!< per node, its flow-tree routes
    std::map<uint32_t, uint32_t> m_modelId;   //!< ns-3 node id -> model id
    bool m_stackInstalled{false};             //!< InstallStack done
    TrafficControlHelper m_trafficControl;    //!< queue discs for every device
    bool m_withTrafficControl{true};          //!< install m_trafficControl
    TypeId m_tcpType;                         //!< every node's TCP congestion control
    bool m_tcpTypeSet{false};                 //!< m_tcpType given (else ns-3's default)
    std::vector<Callback<void, uint32_t, bool>> m_linkStateCallbacks; //!< told of SetLinkUp
    bool m_read{false}; //!< the network is the user's, read by P2pNetworkReader
    bool m_networkRouting{false}; //!< transfers follow the user's routing (UseNetworkRouting)
    Ptr<ArrivalSequencer> m_sequencer; //!< SequenceArrivals (null: ns-3's order)
};

template <typename... Ts>
void
DcnTopologyHelper::SetQueue(std::string type, Ts&&... args)
{
    RefuseOnReadNetwork("SetQueue");
    RefuseOnLossless("SetQueue");
    m_p2p.SetQueue(type, std::forward<Ts>(args)...);
}

} // namespace ns3

#endif /* NS3_ALLREDUCE_DCN_TOPOLOGY_HELPER_H */
