/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_QUANTITY_H
#define NS3_ALLREDUCE_QUANTITY_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * A unit of a quantity: its name as written after the number and how many base units it holds.
 */
struct QuantityUnit
{
    const char* name; //!< e.g. "Gbps"; "" for a bare number
    uint64_t scale;   //!< base units in one
};

/**
 * \ingroup allreduce-common
 * The one parser of the module's rates, times and sizes (doc/allreduce.rst, "Values"), shared by
 * every program, the topology files, the job traces and the helpers, so that one value means the
 * same everywhere. The arithmetic is exact decimal: "2.5Gbps", "1e10bps" and "1.5KiB" are whole
 * numbers of base units and are read exactly; "0.4ns" or "1.3B" are not and are refused.
 */
class Quantity
{
  public:
    /// Rate units (base: bit/s): bps, kbps, Kbps, Mbps, Gbps, Tbps and the byte units Bps,
    /// kBps, KBps, MBps, GBps, TBps (SI: 1 Kbps is 1000 bps, as ns-3's DataRate).
    static const std::vector<QuantityUnit>& RateUnits();
    /// Time units (base: ns, ns-3's time resolution): ns, us, ms, s, min.
    static const std::vector<QuantityUnit>& TimeUnits();
    /// Size units (base: bytes): B, kB, KB, MB, GB, TB (SI) and KiB, MiB, GiB, TiB.
    static const std::vector<QuantityUnit>& SizeUnits();

    /// The fastest rate accepted anywhere: 1000 Tbps.
    static constexpr uint64_t MAX_RATE_BPS = uint64_t{1000000000000000};
    /// The longest time accepted anywhere: 10^9 s, within ns-3's clock (2^63 ns, about 9.2 x
    /// 10^9 s) with room for the sums a run makes (arrival + compute + transfers).
    static constexpr int64_t MAX_TIME_NS = int64_t{1000000000} * 1000000000;
    /// The largest size accepted anywhere: 10^18 bytes.
    static constexpr uint64_t MAX_SIZE_BYTES = uint64_t{1000000000000000000};

    /**
     * Reads a rate.
     * \param subject how the value is named to the user, e.g. "--data-rate" or "line 4: rate"
     * \param text e.g. "10Gbps", "2.5Mbps", "1e10bps", "1Tbps"
     * \return bit/s, from 1 to MAX_RATE_BPS
     * \throws std::invalid_argument "SUBJECT must be a rate from 1bps to 1000Tbps such as
     *         10Gbps (units ...), got 'TEXT'" (or why it is not)
     */
    static uint64_t ParseRate(const std::string& subject, const std::string& text);

    /**
     * Reads a time (a duration or a point in simulated time).
     * \param subject how the value is named to the user
     * \param text e.g. "1us", "2.5ms", "3" (a bare number is seconds when bareSeconds),
     *        "-1s" when negative values are allowed
     * \param bareSeconds whether a number without a unit is seconds (else refused)
     * \param allowNegative whether a leading '-' is allowed
     * \return nanoseconds, |value| at most MAX_TIME_NS
     * \throws std::invalid_argument naming the subject: not a time, finer than a nanosecond
     *         (ns-3's resolution), or beyond MAX_TIME_NS
     */
    static int64_t ParseTimeNs(const std::string& subject,
                               const std::string& text,
                               bool bareSeconds = true,
                               bool allowNegative = false);

    /**
     * Reads a size in bytes.
     * \param subject how the value is named to the user
     * \param text e.g. "4194304", "4MB", "1.5KiB"
     * \return bytes, at most MAX_SIZE_BYTES
     * \throws std::invalid_argument naming the subject: not a size, not whole bytes, too large
     */
    static uint64_t ParseSize(const std::string& subject, const std::string& text);

    /// \param bps a rate \return it in the largest unit ns-3's DataRate reads that holds it
    ///        whole, e.g. "10Gbps", "1500Mbps", "1000Gbps"
    static std::string FormatRate(uint64_t bps);
    /// \param ns a time \return it in the largest unit that holds it whole, e.g. "2us", "1500ns"
    static std::string FormatTime(int64_t ns);
    /// \param seconds a time in seconds \return it as the user would write it, e.g. "1e+09s"
    static std::string FormatSeconds(double seconds);

    /// Why a text is not a quantity.
    enum Outcome
    {
        OK,             //!< read
        NOT_A_NUMBER,   //!< not a number followed by one of the units
        NOT_WHOLE,      //!< finer than the base unit
        TOO_LARGE       //!< above the largest value accepted
    };

    /**
     * The exact reader under the others: a non-negative decimal number (digits, at most one
     * point, an optional exponent e or E with a sign) followed by one of the units.
     * \param text the text \param units the units \param max the largest value accepted
     * \param[out] value the value in base units when OK
     * \return OK, or why not
     */
    static Outcome Parse(const std::string& text,
                         const std::vector<QuantityUnit>& units,
                         uint64_t max,
                         uint64_t& value);
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_QUANTITY_H */
