/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_DCQCN_RATE_CONTROL_H
#define NS3_ALLREDUCE_DCQCN_RATE_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-rdma
 * DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015): the sending rate of one queue pair. It starts at line rate. A CNP cuts it:
 * the target rate Rt takes the current rate Rc, Rc becomes Rc (1 - alpha/2), and alpha, the
 * estimate of congestion, becomes (1 - g) alpha + g; without CNPs alpha decays by (1 - g) every
 * AlphaTimer. After a cut the rate climbs back at each expiry of the RateTimer and of the
 * ByteCounter (bytes sent): while both have expired fewer than F times since the cut, fast
 * recovery (Rc = (Rt + Rc) / 2); once one has reached F, additive increase (Rt += R_AI first);
 * once both have passed F, hyper increase (Rt += i R_HAI, i = the lesser count past F). The
 * rate never exceeds line rate nor falls below MinRate.
 */
class DcqcnRateControl : public Object
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    DcqcnRateControl();
    ~DcqcnRateControl() override;

    /**
     * Starts at line rate.
     * \param lineRate the NIC's rate
     */
    void Start(DataRate lineRate);
    /// \return the current rate Rc
    DataRate GetRate() const;
    /// \return the target rate Rt
    DataRate GetTargetRate() const;
    /// \return alpha now (with the decay of the AlphaTimer periods since the last CNP)
    double GetAlpha() const;
    /// A CNP arrived: cut the rate.
    void OnCnp();
    /// \param bytes sent at the current rate (the byte counter)
    void OnBytesSent(uint32_t bytes);
    /// \return CNPs received
    uint64_t GetCnps() const;
    /**
     * Checks the attributes.
     * \throws std::invalid_argument naming the bad value (a timer that is not positive, g
     *         outside (0, 1], a zero byte counter, a minimum rate above line rate)
     */
    void Validate(DataRate lineRate) const;

    /// TracedCallback signature of a rate change. \param oldRate before \param newRate after
    typedef void (*RateTracedCallback)(DataRate oldRate, DataRate newRate);

  protected:
    void DoDispose() override;

  private:
    /// The rate timer expired.
    void TimerExpired();
    /// One increase event (timer or byte counter).
    void Increase();
    /// \param rate a rate in bit/s \return it within [MinRate, line rate]
    double Clamp(double rate) const;
    /// \param rate the new Rc in bit/s
    void SetRate(double rate);

    // Attributes
    double m_g{1.0 / 256};     //!< alpha's gain
    Time m_alphaTimer;         //!< alpha decays every this long without CNP
    Time m_rateTimer;          //!< increase period
    uint64_t m_byteCounter{0}; //!< increase every this many bytes
    uint32_t m_f{5};           //!< fast recovery steps
    DataRate m_ai;             //!< additive increase
    DataRate m_hai;            //!< hyper increase
    DataRate m_minRate;        //!< lowest rate

    double m_line{0};         //!< line rate, bit/s
    double m_rc{0};           //!< current rate, bit/s
    double m_rt{0};           //!< target rate, bit/s
    double m_alpha{1};        //!< alpha at m_alphaSince
    Time m_alphaSince;        //!< the last CNP (alpha's decay counts from it)
    uint32_t m_timerCount{0}; //!< rate timer expiries since the last cut
    uint32_t m_byteCount{0};  //!< byte counter expiries since the last cut
    uint64_t m_bytes{0};      //!< bytes since the byte counter last expired
    uint64_t m_cnps{0};       //!< CNPs received
    EventId m_timer;          //!< the rate timer

    TracedCallback<DataRate, DataRate> m_rateTrace; //!< rate changes
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_DCQCN_RATE_CONTROL_H */
