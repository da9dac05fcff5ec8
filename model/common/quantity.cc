/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "quantity.h"

#include "text-file.h"

#include <cctype>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

// 128 bits for a mantissa times its unit's scale (ISO C++ has no such type: __extension__ keeps
// GCC and Clang quiet about it under -Wpedantic, as ns-3's debug build sets).
__extension__ typedef unsigned __int128 Wide;

/// The units' names, for messages: "bps, kbps, Kbps".
std::string
UnitNames(const std::vector<QuantityUnit>& units)
{
    std::string names;
    for (const QuantityUnit& u : units)
    {
        if (*u.name != '\0')
        {
            names += (names.empty() ? "" : ", ") + std::string(u.name);
        }
    }
    return names;
}

/// \return 10^e, or 0 when it does not fit
Wide
PowerOfTen(int64_t e)
{
    Wide p = 1;
    for (int64_t i = 0; i < e; ++i)
    {
        if (p > (~Wide{0}) / 10)
        {
            return 0;
        }
        p *= 10;
    }
    return p;
}

/// \return the value of the significant digits, or false when there are more than 30
bool
Digits(const std::string& digits, Wide& value)
{
    size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos)
    {
        value = 0;
        return true;
    }
    if (digits.size() - first > 30)
    {
        return false;
    }
    value = 0;
    for (size_t i = first; i < digits.size(); ++i)
    {
        value = value * 10 + static_cast<unsigned>(digits[i] - '0');
    }
    return true;
}

} // namespace

const std::vector<QuantityUnit>&
Quantity::RateUnits()
{
    static const std::vector<QuantityUnit> units{
        {"bps", 1},
        {"kbps", 1000},
        {"Kbps", 1000},
        {"Mbps", 1000000},
        {"Gbps", 1000000000},
        {"Tbps", 1000000000000},
        {"Bps", 8},
        {"kBps", 8000},
        {"KBps", 8000},
        {"MBps", 8000000},
        {"GBps", 8000000000},
        {"TBps", 8000000000000},
    };
    return units;
}

const std::vector<QuantityUnit>&
Quantity::TimeUnits()
{
    static const std::vector<QuantityUnit> units{{"ns", 1},
                                                 {"us", 1000},
                                                 {"ms", 1000000},
                                                 {"s", 1000000000},
                                                 {"min", 60000000000}};
    return units;
}

const std::vector<QuantityUnit>&
Quantity::SizeUnits()
{
    static const std::vector<QuantityUnit> units{{"", 1},
                                                 {"B", 1},
                                                 {"kB", 1000},
                                                 {"KB", 1000},
                                                 {"MB", 1000000},
                                                 {"GB", 1000000000},
                                                 {"TB", 1000000000000},
                                                 {"KiB", uint64_t{1} << 10},
                                                 {"MiB", uint64_t{1} << 20},
                                                 {"GiB", uint64_t{1} << 30},
                                                 {"TiB", uint64_t{1} << 40}};
    return units;
}

Quantity::Outcome
Quantity::Parse(const std::string& text,
                const std::vector<QuantityUnit>& units,
                uint64_t max,
                uint64_t& value)
{
    // The number: digits with at most one point, then an optional exponent.
    size_t i = 0;
    std::string digits;
    int64_t exponent = 0;
    bool point = false;
    for (; i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.');
         ++i)
    {
        if (text[i] == '.')
        {
            if (point)
            {
                return NOT_A_NUMBER;
            }
            point = true;
            continue;
        }
        digits += text[i];
        exponent -= point ? 1 : 0;
    }
    if (digits.empty())
    {
        return NOT_A_NUMBER;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E'))
    {
        size_t j = i + 1;
        const bool negative = j < text.size() && text[j] == '-';
        j += j < text.size() && (text[j] == '-' || text[j] == '+') ? 1 : 0;
        const size_t start = j;
        int64_t e = 0;
        for (; j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])); ++j)
        {
            e = e < 100000 ? e * 10 + (text[j] - '0') : e;
        }
        if (j == start)
        {
            return NOT_A_NUMBER;
        }
        exponent += negative ? -e : e;
        i = j;
    }
    const std::string unit = text.substr(i);
    const QuantityUnit* found = nullptr;
    for (const QuantityUnit& u : units)
    {
        found = unit == u.name ? &u : found;
    }
    Wide mantissa = 0;
    if (!found)
    {
        return NOT_A_NUMBER;
    }
    if (!Digits(digits, mantissa))
    {
        return exponent >= 0 ? TOO_LARGE : NOT_WHOLE;
    }
    if (mantissa == 0)
    {
        value = 0;
        return OK;
    }
    while (exponent < 0 && mantissa % 10 == 0)
    {
        mantissa /= 10;
        ++exponent;
    }
    Wide v = mantissa * found->scale; // at most 10^30 x 10^13: fits in 128 bits
    if (exponent < 0)
    {
        const Wide divisor = exponent < -38 ? 0 : PowerOfTen(-exponent);
        if (divisor == 0 || v % divisor != 0)
        {
            return NOT_WHOLE;
        }
        v /= divisor;
    }
    else
    {
        const Wide scale = exponent > 38 ? 0 : PowerOfTen(exponent);
        if (scale == 0 || v > Wide{max} / scale + 1)
        {
            return TOO_LARGE;
        }
        v *= scale;
    }
    if (v > max)
    {
        return TOO_LARGE;
    }
    value = static_cast<uint64_t>(v);
    return OK;
}

uint64_t
Quantity::ParseRate(const std::string& subject, const std::string& text)
{
    uint64_t bps = 0;
    const Outcome outcome = Parse(text, RateUnits(), MAX_RATE_BPS, bps);
    if (outcome == OK && bps > 0)
    {
        return bps;
    }
    const std::string why = outcome == NOT_WHOLE ? "is not a whole number of bit/s"
                            : outcome == TOO_LARGE ? "is above 1000Tbps"
                            : outcome == OK        ? "is zero"
                                                   : "is not a rate";
    throw std::invalid_argument(subject + " " + why + ": give a rate from 1bps to 1000Tbps such "
                                "as 10Gbps or 2.5e9bps (units " + UnitNames(RateUnits()) +
                                "), got '" + Abbreviate(text, 40) + "'");
}

int64_t
Quantity::ParseTimeNs(const std::string& subject,
                      const std::string& text,
                      bool bareSeconds,
                      bool allowNegative)
{
    const bool negative = allowNegative && !text.empty() && text[0] == '-';
    std::string magnitude = negative ? text.substr(1) : text;
    if (bareSeconds && !magnitude.empty() &&
        (std::isdigit(static_cast<unsigned char>(magnitude.back())) || magnitude.back() == '.'))
    {
        magnitude += "s";
    }
    uint64_t ns = 0;
    const Outcome outcome =
        Parse(magnitude, TimeUnits(), static_cast<uint64_t>(MAX_TIME_NS), ns);
    if (outcome == OK)
    {
        return negative ? -static_cast<int64_t>(ns) : static_cast<int64_t>(ns);
    }
    const bool minus = !text.empty() && text[0] == '-';
    const std::string why =
        minus && outcome == NOT_A_NUMBER ? "must not be negative"
        : outcome == NOT_WHOLE  ? "is finer than a nanosecond (ns-3's time resolution)"
        : outcome == TOO_LARGE ? "is beyond 10^9 s, more than a simulation can reach"
                               : "is not a time";
    throw std::invalid_argument(subject + " " + why + ": give a time such as 1us, 2.5ms or 3s" +
                                (bareSeconds ? " (a number alone is seconds)" : "") +
                                " in whole nanoseconds up to 1e9s (units " +
                                UnitNames(TimeUnits()) + "), got '" + Abbreviate(text, 40) + "'");
}

uint64_t
Quantity::ParseSize(const std::string& subject, const std::string& text)
{
    uint64_t bytes = 0;
    const Outcome outcome = Parse(text, SizeUnits(), MAX_SIZE_BYTES, bytes);
    if (outcome == OK)
    {
        return bytes;
    }
    const std::string why = outcome == NOT_WHOLE   ? "is not a whole number of bytes"
                            : outcome == TOO_LARGE ? "is above 10^18 bytes"
                                                   : "is not a size";
    throw std::invalid_argument(subject + " " + why + ": give a size in bytes such as 4194304, "
                                "4MB or 4MiB (units " + UnitNames(SizeUnits()) + "), got '" +
                                Abbreviate(text, 40) + "'");
}

std::string
Quantity::FormatRate(uint64_t bps)
{
    static const QuantityUnit SHOWN[] = {{"Gbps", 1000000000},
                                         {"Mbps", 1000000},
                                         {"Kbps", 1000},
                                         {"bps", 1}};
    for (const QuantityUnit& u : SHOWN)
    {
        if (bps % u.scale == 0 && bps > 0)
        {
            return std::to_string(bps / u.scale) + u.name;
        }
    }
    return "0bps";
}

std::string
Quantity::FormatTime(int64_t ns)
{
    const uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    static const QuantityUnit SHOWN[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}};
    for (const QuantityUnit& u : SHOWN)
    {
        if (magnitude % u.scale == 0 && magnitude > 0)
        {
            return (ns < 0 ? "-" : "") + std::to_string(magnitude / u.scale) + u.name;
        }
    }
    return (ns < 0 ? "-" : "") + std::to_string(magnitude) + "ns";
}

std::string
Quantity::FormatSeconds(double seconds)
{
    std::ostringstream os;
    os << seconds << "s";
    return os.str();
}

} // namespace ns3
