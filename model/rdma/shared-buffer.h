/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SHARED_BUFFER_H
#define NS3_ALLREDUCE_SHARED_BUFFER_H

#include "pfc-header.h"

#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

class LosslessNetDevice;

/**
 * \ingroup allreduce-rdma
 * How a SharedBuffer bounds one ingress queue.
 */
enum BufferThreshold
{
    STATIC_THRESHOLD,  //!< a fixed number of bytes (StaticThreshold)
    DYNAMIC_THRESHOLD, //!< Alpha times the shared space still free (Choudhury and Hahne)
};

/**
 * \ingroup allreduce-rdma
 * The packet buffer of a switch (or of a server that forwards), shared by its ports, with
 * ingress accounting as lossless Ethernet needs (doc/allreduce.rst, "RDMA"). Every packet a
 * LosslessNetDevice takes to forward is charged to the queue of its ingress port and priority
 * class until it leaves. A queue may hold up to its threshold in the shared space: StaticThreshold
 * bytes, or Alpha times the shared space still free (dynamic). Past it, with PFC on, the buffer
 * has the ingress port pause that class upstream and holds what still arrives in the port's
 * headroom (Headroom bytes reserved per port: by default what the link can deliver after a
 * pause is decided, two propagation delays at line rate plus three largest frames); the class
 * resumes when the queue is back ResumeOffset below its threshold and its headroom is empty.
 * With PFC off, the threshold bounds each egress queue instead (as a lossy switch drops at the
 * queue it congests), and packets past it are dropped. Packets made on the node itself are not
 * charged (host memory). A pause is sent for the longest time and sent again halfway while the
 * queue stays over.
 */
class SharedBuffer : public Object
{
  public:
    /// The largest Alpha: a queue may then take the whole shared space long before (and no
    /// threshold is computed past the buffer's size).
    static constexpr double MAX_ALPHA = 1e6;

    /// \return the TypeId
    static TypeId GetTypeId();

    SharedBuffer();
    ~SharedBuffer() override;

    /**
     * A packet that came in on a port is to be queued for another port.
     * \param ifIndex its ingress port \param egress its egress port \param cls its class
     * \param bytes its size
     * \return false when it must be dropped (no room)
     */
    bool Admit(uint32_t ifIndex, uint32_t egress, uint8_t cls, uint32_t bytes);
    /**
     * A packet charged by Admit leaves the node.
     * \param ifIndex its ingress port \param egress its egress port \param cls its class
     * \param bytes its size
     */
    void Release(uint32_t ifIndex, uint32_t egress, uint8_t cls, uint32_t bytes);
    /**
     * Checks the attributes against the node's ports and fixes each port's headroom.
     * \throws std::invalid_argument naming the bad value: a static threshold above the
     *         buffer, a non-positive Alpha, headroom that leaves no shared space, PFC asked of
     *         a buffer whose node has a port that cannot pause (not a LosslessNetDevice)
     */
    void Validate();
    /// \param ifIndex a port \return the headroom reserved for it, bytes
    uint64_t GetHeadroom(uint32_t ifIndex) const;
    /// \return bytes held now (shared and headroom)
    uint64_t GetUsed() const;
    /// \return the most bytes held at once
    uint64_t GetPeakUsed() const;
    /// \return packets dropped for want of room
    uint64_t GetDrops() const;
    /// \param ifIndex a port \param cls a class \return whether the buffer holds it paused
    bool IsPausing(uint32_t ifIndex, uint8_t cls) const;

    /**
     * TracedCallback signature of a pause decision.
     * \param ifIndex the ingress port \param cls the class \param paused true: paused,
     *        false: resumed
     */
    typedef void (*PauseTracedCallback)(uint32_t ifIndex, uint8_t cls, bool paused);
    /**
     * TracedCallback signature of a drop.
     * \param ifIndex the ingress port \param cls the class \param bytes the packet's size
     */
    typedef void (*DropTracedCallback)(uint32_t ifIndex, uint8_t cls, uint32_t bytes);

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    /// One ingress queue: a port and a class.
    struct Queue
    {
        uint64_t shared{0};   //!< bytes in the shared space
        uint64_t headroom{0}; //!< bytes in the port's headroom
        bool paused{false};   //!< the port has paused the class upstream
        EventId refresh;      //!< sends the pause again before it runs out
    };

    /// \return the threshold of every queue now
    uint64_t Threshold() const;
    /// \param q a queue \return whether it may resume: its headroom empty, and it empty or
    ///        ResumeOffset below the threshold
    bool CanResume(const Queue& q) const;
    /// \param ifIndex a port \return its device, when lossless
    Ptr<LosslessNetDevice> Port(uint32_t ifIndex) const;
    /// \param ifIndex a port \param cls a class \return its queue (made on first use)
    Queue& At(uint32_t ifIndex, uint8_t cls);
    /// Sends a pause for a queue, and again before it runs out. \param ifIndex \param cls
    void Pause(uint32_t ifIndex, uint8_t cls);
    /// Resumes a queue. \param ifIndex the port \param cls the class
    void Resume(uint32_t ifIndex, uint8_t cls);

    // Attributes
    uint64_t m_size{0};                        //!< buffer bytes
    BufferThreshold m_mode{DYNAMIC_THRESHOLD}; //!< static or dynamic thresholds
    uint64_t m_staticThreshold{0};             //!< static threshold, bytes
    double m_alpha{1};                         //!< dynamic threshold's alpha
    uint64_t m_headroom{0};                    //!< headroom per port (0: as the link needs)
    uint64_t m_resumeOffset{0};                //!< hysteresis of resume
    bool m_pfc{true};                          //!< pause (true) or drop (false) past the threshold

    Ptr<Node> m_node;                         //!< the node
    bool m_validated{false};                  //!< Validate ran
    uint64_t m_largestFrame{0};               //!< the largest frame of its ports (Validate)
    std::vector<uint64_t> m_portHeadroom;     //!< per port, its headroom
    std::vector<uint64_t> m_portHeadroomUsed; //!< per port, headroom held
    uint64_t m_sharedSize{0};                 //!< buffer less the headroom reserved
    uint64_t m_sharedUsed{0};                 //!< shared bytes held
    uint64_t m_used{0};                       //!< bytes held
    uint64_t m_peak{0};                       //!< most bytes held
    uint64_t m_drops{0};                      //!< packets dropped
    std::vector<std::array<Queue, PfcHeader::CLASSES>> m_queues;    //!< per port and class
    std::vector<std::array<uint64_t, PfcHeader::CLASSES>> m_egress; //!< bytes per egress queue

    TracedCallback<uint32_t, uint8_t, bool> m_pauseTrace;    //!< pause decisions
    TracedCallback<uint32_t, uint8_t, uint32_t> m_dropTrace; //!< drops (port, class, bytes)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SHARED_BUFFER_H */
