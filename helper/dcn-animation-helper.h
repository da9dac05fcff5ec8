/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DCN_ANIMATION_HELPER_H
#define NS3_ALLREDUCE_DCN_ANIMATION_HELPER_H

#include "dcn-topology-helper.h"

#include "ns3/topology-layout.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

class AnimationInterface;

/**
 * \ingroup allreduce
 * Writes a NetAnim animation trace of a network that DcnTopologyHelper built
 * (doc/allreduce.rst, "NetAnim"): every node at its place in the topology's layout
 * (ComputeTopologyLayout: servers on the bottom row, switches in rows above by their hops from
 * the servers), named as the model names it ("server 0", "switch 9"), servers and each row of
 * switches in a color of their own, each link labelled with its topology index, and every packet
 * the point-to-point devices send, through ns-3's AnimationInterface.
 *
 * NetAnim draws every node and link on one canvas and reads the whole trace before it plays, so
 * this is for small runs: a topology of more than MAX_NODES nodes is refused (CheckSize), and a
 * trace holds at most MAX_PACKETS packets (ns-3's own default per trace file), after which
 * ns-3 stops writing it and Close() says so.
 * \code
 *   dcn.Install();
 *   DcnAnimationHelper animation;
 *   animation.Enable(dcn, "bcube.xml"); // after Install, before Simulator::Run
 *   Simulator::Run();
 *   std::cout << "animation " << animation.Close() << "\n"; // complete once closed
 * \endcode
 */
class DcnAnimationHelper
{
  public:
    /// The most nodes an animation is written for.
    static constexpr uint32_t MAX_NODES = 128;
    /// The most packets a trace holds: ns-3's AnimationInterface default per trace file.
    static constexpr uint64_t MAX_PACKETS = 100000;
    /// Distance between neighbouring nodes of the widest row, and between rows (NetAnim units).
    static constexpr double SPACING = 10;

    DcnAnimationHelper();
    /// Closes the trace if it is still open.
    ~DcnAnimationHelper();
    DcnAnimationHelper(const DcnAnimationHelper&) = delete;
    DcnAnimationHelper& operator=(const DcnAnimationHelper&) = delete;

    /**
     * \param topology a topology
     * \throws std::invalid_argument when it has more than MAX_NODES nodes, saying the limit and
     *         what to do instead
     */
    static void CheckSize(const Topology& topology);

    /**
     * Gives every node of the network a ConstantPositionMobilityModel at its layout position
     * (or moves the mobility model it has there), for NetAnim or anything else that reads
     * node positions.
     * \param network a network after CreateNodesAndLinks (or Install)
     * \return the layout used (model node ids)
     */
    static TopologyLayout InstallPositions(const DcnTopologyHelper& network);

    /**
     * Starts the animation trace: checks the size, places the nodes (InstallPositions), opens
     * the file and writes the nodes, their names, colors and sizes, the links and their labels.
     * Packets are written as the simulation sends them. Call after the network's Install()
     * and before Simulator::Run(), and keep the helper until the run is over.
     * \param network the network
     * \param file the NetAnim trace file (XML) to write
     * \throws std::invalid_argument when the topology is too large (CheckSize), the file cannot
     *         be written, or this helper already writes a trace
     */
    void Enable(const DcnTopologyHelper& network, const std::string& file);

    /// \return the AnimationInterface writing the trace, for more of NetAnim's options (null
    ///         before Enable and after Close)
    AnimationInterface* GetAnimationInterface() const;

    /**
     * Ends the trace (NetAnim needs the closing element): the file is complete after this.
     * ns-3 writes the trace into a file of its own beside the one named (or, for a device or a
     * pipe, in the temporary directory) and checks no write; here it is checked whole (it ends
     * with the closing element) and then moved, or copied, to the file named with every write
     * checked, so that a full disk is an error and never a truncated trace.
     * \return what the file holds, for a line of output: its name, the nodes, the packets,
     *         and whether the run went on past MAX_PACKETS packets (the trace then holds only
     *         the first ones), e.g. "bcube.xml (15 nodes, 35120 packets)"; empty when no trace
     *         was enabled
     * \throws std::invalid_argument naming the file and the system's reason when the trace
     *         could not be written whole
     */
    std::string Close();

  private:
    /// Checks that the trace ns-3 wrote ends whole, then moves or copies it to m_file.
    void FinishFile();

    /// the trace being written, if any (shared_ptr: its deleter is made where the type is
    /// complete, in a build with ns-3's netanim module)
    std::shared_ptr<AnimationInterface> m_animation;
    std::string m_file;                              //!< its file
    std::string m_part;                              //!< where ns-3 writes it until Close
    uint32_t m_nodes{0};                             //!< the nodes it shows
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DCN_ANIMATION_HELPER_H */
