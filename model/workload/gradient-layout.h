/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_GRADIENT_LAYOUT_H
#define NS3_ALLREDUCE_GRADIENT_LAYOUT_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup allreduce-workload
 * How a gradient of P float32 values is cut into N chunks (chunk c owned by server c) and each
 * chunk into k pieces: as evenly as possible, the first ones one value longer when it does not
 * divide.
 */
class GradientLayout
{
  public:
    GradientLayout() = default;
    /**
     * \param values P, the number of float32 values in the gradient
     * \param chunks N, one per server
     * \param pieces k, per chunk
     * \throws std::invalid_argument when a piece would be empty (P < N·k, computed in 64 bits),
     *         stating the sizes and the most pieces per chunk that fit (P / N)
     */
    GradientLayout(uint64_t values, uint32_t chunks, uint32_t pieces);
    /// \return P
    uint64_t GetNValues() const;
    /// \param chunk a chunk \param piece a piece \return the index of its first value
    uint64_t GetOffset(uint32_t chunk, uint32_t piece) const;
    /// \param chunk a chunk \param piece a piece \return its number of values
    uint64_t GetSize(uint32_t chunk, uint32_t piece) const;
    /// \return the number of values of the largest piece
    uint64_t GetMaxPieceSize() const;

  private:
    uint64_t m_values{0}; //!< P
    uint64_t m_pieces{1}; //!< N·k pieces in all (up to (2^32 - 1)^2)
    uint32_t m_k{1};      //!< pieces per chunk
};

} // namespace ns3

#endif // NS3_ALLREDUCE_GRADIENT_LAYOUT_H
