/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ID_SPAN_H
#define NS3_ALLREDUCE_ID_SPAN_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * A read-only view of consecutive ids kept elsewhere (C++17 has no std::span): what a
 * WorkloadSet hands out for lists it stores once and shares, such as the dependencies that
 * every gather of a parameter-server chunk waits for. Valid while the owner lives unchanged.
 */
class IdSpan
{
  public:
    IdSpan() = default;
    /// \param data first id \param size how many
    IdSpan(const uint32_t* data, size_t size)
        : m_data(data),
          m_size(size)
    {
    }

    /// \param ids a contiguous container of ids (std::vector, InlineVector), which must outlive
    /// the span
    template <typename C, typename = decltype(std::declval<const C&>().data())>
    IdSpan(const C& ids) // NOLINT: a view of the container, as std::span would be
        : m_data(ids.data()),
          m_size(ids.size())
    {
    }

    /// \return the first id
    const uint32_t* begin() const
    {
        return m_data;
    }

    /// \return one past the last id
    const uint32_t* end() const
    {
        return m_data + m_size;
    }

    /// \return how many ids
    size_t size() const
    {
        return m_size;
    }

    /// \return true when there are none
    bool empty() const
    {
        return m_size == 0;
    }

    /// \param i an index below size() \return the id there
    uint32_t operator[](size_t i) const
    {
        return m_data[i];
    }

    /// \return a copy of the ids
    std::vector<uint32_t> ToVector() const
    {
        return std::vector<uint32_t>(begin(), end());
    }

  private:
    const uint32_t* m_data{nullptr}; //!< first id
    size_t m_size{0};                //!< how many
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_ID_SPAN_H */
