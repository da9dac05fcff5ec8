/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "gradient-layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

GradientLayout::GradientLayout(uint64_t values, uint32_t chunks, uint32_t pieces)
    : m_values(values),
      m_pieces(uint64_t{chunks} * pieces), // 64 bits: 2^32 - 1 squared does not wrap
      m_k(pieces)
{
    if (chunks == 0 || pieces == 0 || values < m_pieces)
    {
        throw std::invalid_argument(
            "a gradient of " + std::to_string(values) + " float32 values (" +
            std::to_string(values * 4) + " bytes) cannot be split into " +
            std::to_string(chunks) + " chunks x " + std::to_string(pieces) +
            " pieces: every piece needs at least one value, so use at least " +
            (m_pieces <= UINT64_MAX / 4 ? std::to_string(m_pieces * 4)
                                        : std::to_string(m_pieces) + " x 4") +
            " bytes or fewer pieces");
    }
}

uint64_t
GradientLayout::GetNValues() const
{
    return m_values;
}

uint64_t
GradientLayout::GetOffset(uint32_t chunk, uint32_t piece) const
{
    // Pieces in (chunk, piece) order; the first (P mod pieces) are one value longer.
    const uint64_t i = uint64_t{chunk} * m_k + piece;
    const uint64_t base = m_values / m_pieces;
    const uint64_t extra = m_values % m_pieces;
    return i * base + std::min<uint64_t>(i, extra);
}

uint64_t
GradientLayout::GetSize(uint32_t chunk, uint32_t piece) const
{
    const uint64_t i = uint64_t{chunk} * m_k + piece;
    return m_values / m_pieces + (i < m_values % m_pieces ? 1 : 0);
}

uint64_t
GradientLayout::GetMaxPieceSize() const
{
    return m_values / m_pieces + (m_values % m_pieces ? 1 : 0);
}

} // namespace ns3
