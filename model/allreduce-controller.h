/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H
#define NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H

#include "allreduce-application.h"
#include "schedule.h"
#include "workload.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * The outcome of a packet-level run, times in simulated seconds from the controller's start.
 */
struct AllReduceRunResult
{
    bool finished{false};          //!< every workload's transfer finished
    bool stalled{false};           //!< the run was ended for lack of progress
    std::string error;             //!< why it did not finish (stall or failed connection)
    double completionTime{0};      //!< when the last transfer finished
    std::vector<double> roundStart;   //!< per round, when its first transfer started
    std::vector<double> roundEnd;     //!< per round, when its last transfer finished
    std::vector<double> transferStart; //!< per workload, when it started (-1: never)
    std::vector<double> transferEnd;   //!< per workload, when it finished (-1: never)
    uint64_t payloadBytes{0};      //!< gradient bytes sent, summed over transfers
    uint32_t transfersFinished{0}; //!< transfers finished
};

/**
 * \ingroup allreduce
 * The verdict of comparing every server's vector with the exact sum.
 */
struct AllReduceVerification
{
    bool verified{false};   //!< every value of every server matches
    bool exact{false};      //!< compared for equality (integer inputs) rather than a tolerance
    uint32_t server{0};     //!< the first server that differs (when not verified)
    uint64_t index{0};      //!< the first index that differs there
    double expected{0};     //!< the reference sum at that index
    double got{0};          //!< the server's value there
    double maxError{0};     //!< the largest |value − sum| over all servers and indexes
    std::string message;    //!< "verified: true" or names the server and index
};

/**
 * \ingroup allreduce
 * Drives a packet-level AllReduce: tells each server's AllReduceApplication which workload to
 * send when, following a schedule of the flow-level engine, in one of two modes:
 *  - barrier: round t+1 starts when every transfer of round t has finished;
 *  - async: a workload starts as soon as its dependencies have finished and no transfer in
 *    flight uses a directed link of its path, in the schedule's order (round by round, then
 *    in the order within the round).
 * When no data arrives anywhere for StallTimeout, it ends the run (Simulator::Stop) and
 * reports the stall, naming a stuck workload and a link of its path that is down, if any.
 * AllReduceHelper builds and wires it.
 */
class AllReduceController : public Object
{
  public:
    /// How transfers are injected.
    enum Mode
    {
        BARRIER, //!< round by round
        ASYNC,   //!< as soon as dependencies and links allow
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    AllReduceController();
    ~AllReduceController() override;

    /**
     * Sets what to run, before the simulation starts, and schedules the start (StartTime;
     * set the attributes first). The schedule is validated first.
     * \param workloads the workloads \param schedule their rounds
     * \param apps the application of each server, server i at index i
     * \param addresses each server's address, server i at index i
     * \throws std::invalid_argument when the schedule is not valid for the workloads, the
     *         gradient (GradientBytes) is not a whole number of float32 values or too small for
     *         the pieces, the applications or addresses do not match the servers, or a server
     *         would need more source ports than there are
     */
    void Setup(const WorkloadSet& workloads,
               const Schedule& schedule,
               const std::vector<Ptr<AllReduceApplication>>& apps,
               const std::vector<Ipv4Address>& addresses);
    /**
     * \param linkUp tells whether a topology link is up, used to name the link of a stall
     */
    void SetLinkStateCallback(Callback<bool, uint32_t> linkUp);

    /// \return the workloads
    const WorkloadSet& GetWorkloads() const;
    /// \return the schedule
    const Schedule& GetSchedule() const;
    /// \return the gradient's layout
    const GradientLayout& GetLayout() const;
    /// \return the mode
    Mode GetMode() const;
    /// \param server a server \return its application
    Ptr<AllReduceApplication> GetApplication(uint32_t server) const;
    /// \param server a server \return its address
    Ipv4Address GetServerAddress(uint32_t server) const;
    /// \param workload a workload \return the port its sender sends from
    uint16_t GetSourcePort(uint32_t workload) const;
    /// \return the result so far (complete after the simulation)
    const AllReduceRunResult& GetResult() const;
    /// \return every server's vector compared with the exact sum of the initial gradients
    AllReduceVerification Verify() const;

    /// Called by an application when payload bytes arrive. \param bytes how many
    void NotifyProgress(uint64_t bytes);
    /// Called by the receiver when a transfer is applied. \param workload the workload
    void NotifyTransferFinished(uint32_t workload);
    /// Called by the sender when a connection fails. \param workload the workload
    void NotifyTransferFailed(uint32_t workload);

    /// TracedCallback signature of a round's end. \param round its index \param duration
    /// from its first start to its last finish
    typedef void (*RoundTracedCallback)(uint32_t round, Time duration);

    /// TracedCallback signature of a stall. \param report what stalled, and where
    typedef void (*StallTracedCallback)(std::string report);

    /// First source port given to a server's workloads (then counting up).
    static constexpr uint16_t FIRST_SOURCE_PORT = 10000;

  protected:
    void DoDispose() override;

  private:
    /// Starts the run (scheduled at StartTime).
    void Begin();
    /// \param workload starts its transfer now
    void StartTransfer(uint32_t workload);
    /// Barrier mode: starts round m_round.
    void StartRound();
    /// Async mode: starts every ready workload whose links are free, in schedule order.
    void StartReady();
    /// Checks for a stall; reschedules itself while the run goes on.
    void CheckStall();
    /// Ends the run: stops the simulator. \param error empty when it finished
    void End(const std::string& error);
    /// \param workload a workload \return a link of its path that is down, or -1
    int64_t FindDownLink(uint32_t workload) const;
    /// \param workload a workload \return Describe() and the state of its path's links
    std::string DescribeWithLinks(uint32_t workload) const;
    /// \param workload a workload \return "workload 3 (reduce, chunk 1, piece 0, 0 -> 4)"
    std::string Describe(uint32_t workload) const;

    // Attributes
    Mode m_mode{BARRIER};      //!< barrier or async
    uint64_t m_gradientBytes{0}; //!< gradient size in bytes
    Time m_stallTimeout;       //!< no-progress time that ends the run
    Time m_startTime;          //!< when the run starts

    WorkloadSet m_workloads;   //!< what to send
    Schedule m_schedule;       //!< in which rounds
    GradientLayout m_layout;   //!< where each piece lies
    std::vector<Ptr<AllReduceApplication>> m_apps; //!< per server
    std::vector<Ipv4Address> m_addresses;          //!< per server
    std::vector<uint16_t> m_sourcePort;            //!< per workload
    Callback<bool, uint32_t> m_linkUp;             //!< link state, for stall reports

    std::vector<uint32_t> m_roundOf;      //!< per workload, its round
    std::vector<uint32_t> m_position;     //!< per workload, its place in schedule order
    std::vector<uint32_t> m_order;        //!< workloads in schedule order
    std::vector<uint32_t> m_roundLeft;    //!< per round, transfers not yet finished
    std::vector<uint32_t> m_depsLeft;     //!< per workload, dependencies not yet finished
    std::vector<bool> m_linkBusy;         //!< per directed link, used by a transfer in flight
    std::set<uint32_t> m_ready;           //!< async: positions of ready, unstarted workloads
    std::set<uint32_t> m_inFlight;        //!< workloads started and not finished
    uint32_t m_round{0};                  //!< barrier: the round running
    Time m_lastProgress;                  //!< when data last arrived
    EventId m_stallCheck;                 //!< the pending stall check
    EventId m_begin;                      //!< the scheduled start
    bool m_ended{false};                  //!< End ran
    AllReduceRunResult m_result;          //!< what happened

    TracedCallback<uint32_t> m_transferStarted;   //!< a workload's transfer started
    TracedCallback<uint32_t> m_transferFinished;  //!< a workload's transfer finished
    TracedCallback<uint32_t, Time> m_roundFinished; //!< a round's transfers all finished
    TracedCallback<Time> m_collectiveFinished;    //!< every transfer finished
    TracedCallback<std::string> m_stall;          //!< the run stalled (the report)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ALLREDUCE_CONTROLLER_H */
