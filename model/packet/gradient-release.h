/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_GRADIENT_RELEASE_H
#define NS3_ALLREDUCE_GRADIENT_RELEASE_H

#include "packet-scheduler-state.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-packet
 * When each server's gradient is ready in the AllReduces of one controller's run: the times a
 * user gave (SetGivenTimes), else the late servers drawn at random (stragglers), and which of
 * the run's AllReduces is running (the warm-ups first, with every gradient ready, then the
 * measured one). Hold keeps the late servers from sending in the scheduler's state and calls
 * back when each gradient is ready.
 */
class GradientRelease
{
  public:
    GradientRelease();

    /**
     * \param times per server, when its gradient is ready, from the start (empty: drawn)
     * \param servers the servers (0: not known yet)
     * \throws std::invalid_argument for a negative time or a count that is not \p servers
     */
    void SetGivenTimes(const std::vector<Time>& times, uint32_t servers);
    /// \return the times SetGivenTimes gave (empty: none, the attributes decide)
    const std::vector<Time>& GetGivenTimes() const;

    /**
     * \param servers the servers of the run \param stragglers how many are late
     * \throws std::invalid_argument when the given times or the stragglers do not fit
     */
    void Check(uint32_t servers, uint32_t stragglers) const;

    /// \param stream the random stream of the straggler choice
    void AssignStream(int64_t stream);

    /// A run starts: no AllReduce has finished.
    void NewRun();

    /// \param seconds the warm-up AllReduce running now finished after this long
    void FinishWarmUp(double seconds);

    /// \return how many warm-up AllReduces finished (the index of the one running)
    uint32_t GetWarmUpsFinished() const;

    /// \return how long each finished warm-up took
    const std::vector<double>& GetWarmUpTimes() const;

    /**
     * Sets when each gradient of the AllReduce starting now is ready, holds the late servers
     * in \p state and schedules \p release for each. Every rank of a distributed run draws
     * the same times (the same streams).
     * \param servers the servers \param warmUp a warm-up runs, with every gradient ready
     *        (the random streams keep their draws for the measured AllReduce)
     * \param stragglers how many servers are late, unless times were given
     * \param delay how late each is, in seconds
     * \param state the scheduler's state (null: a distributed run, whose driver holds the
     *        late servers' workloads itself)
     * \param release called when a held gradient is ready
     */
    void Hold(uint32_t servers,
              bool warmUp,
              uint32_t stragglers,
              Ptr<RandomVariableStream> delay,
              PacketSchedulerState* state,
              Callback<void, uint32_t> release);

    /// Cancels the releases still to come.
    void Cancel();

    /// \return per server, when its gradient is ready (seconds from the start; after Hold)
    const std::vector<double>& GetReadyTimes() const;

    /// \return the latest gradient-ready time (seconds from the start)
    double GetLastRelease() const;

  private:
    /**
     * \param times gradient-ready times given, or none \param servers the servers
     * \throws std::invalid_argument when times are given, but not one per server
     */
    static void CheckCount(const std::vector<Time>& times, uint32_t servers);

    std::vector<Time> m_given;                //!< SetGivenTimes
    Ptr<UniformRandomVariable> m_choice;      //!< which servers are late
    std::vector<double> m_readyAt;            //!< per server, gradient ready (seconds)
    double m_lastRelease{0};                  //!< latest gradient-ready time
    std::vector<EventId> m_releases;          //!< the scheduled gradient-ready events
    std::vector<double> m_warmUpTimes;        //!< how long each finished warm-up took
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_GRADIENT_RELEASE_H */
