/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_INLINE_VECTOR_H
#define NS3_ALLREDUCE_INLINE_VECTOR_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * A vector of trivially copyable values that keeps up to N of them inside itself and only
 * more than N on the heap. A plan holds millions of workloads whose paths, links and carried
 * servers are a few ids each: as std::vector every one of them was a separate heap block of
 * 32 bytes beside its 24-byte header, scattered so that a rank keeping part of the plan could
 * give none of the rest back (doc/allreduce.rst, "Memory"). Offers the part of std::vector's
 * interface the module uses; iterators are pointers and stay valid until the size changes.
 */
template <typename T, uint32_t N>
class InlineVector
{
    static_assert(std::is_trivially_copyable_v<T>, "InlineVector holds trivially copyable values");
    static_assert(N >= 1, "InlineVector keeps at least one value inside");

  public:
    using value_type = T;                                          //!< the values' type
    using size_type = std::size_t;                                 //!< sizes as std::vector's
    using iterator = T*;                                           //!< a pointer
    using const_iterator = const T*;                               //!< a pointer
    using reverse_iterator = std::reverse_iterator<T*>;            //!< backwards
    using const_reverse_iterator = std::reverse_iterator<const T*>; //!< backwards

    /// An empty vector (user-provided, so that const empty ones may be declared).
    InlineVector() noexcept {} // NOLINT(modernize-use-equals-default)

    /// \param values the values
    InlineVector(std::initializer_list<T> values)
    {
        assign(values.begin(), values.end());
    }

    /// \param values the values
    InlineVector(const std::vector<T>& values) // NOLINT: converts as a vector copy would
    {
        assign(values.begin(), values.end());
    }

    /// \param first first value \param last one past the last
    template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
    InlineVector(It first, It last)
    {
        assign(first, last);
    }

    /// \param o what to copy
    InlineVector(const InlineVector& o)
    {
        assign(o.begin(), o.end());
    }

    /// \param o what to take over; left empty
    InlineVector(InlineVector&& o) noexcept
    {
        Take(o);
    }

    ~InlineVector()
    {
        Free();
    }

    /// \param o what to copy \return this
    InlineVector& operator=(const InlineVector& o)
    {
        if (this != &o)
        {
            assign(o.begin(), o.end());
        }
        return *this;
    }

    /// \param o what to take over; left empty \return this
    InlineVector& operator=(InlineVector&& o) noexcept
    {
        if (this != &o)
        {
            Free();
            Take(o);
        }
        return *this;
    }

    /// \param values the values \return this
    InlineVector& operator=(const std::vector<T>& values)
    {
        assign(values.begin(), values.end());
        return *this;
    }

    /// \param values the values \return this
    InlineVector& operator=(std::initializer_list<T> values)
    {
        assign(values.begin(), values.end());
        return *this;
    }

    /// Replaces the values. \param first first value \param last one past the last
    template <typename It>
    void assign(It first, It last)
    {
        const auto n = static_cast<size_type>(std::distance(first, last));
        m_size = 0;
        reserve(n);
        std::copy(first, last, data());
        m_size = static_cast<uint32_t>(n);
    }

    /// \return the first value
    T* data()
    {
        return IsInline() ? m_inline : m_heap;
    }

    /// \return the first value
    const T* data() const
    {
        return IsInline() ? m_inline : m_heap;
    }

    /// \return how many values
    size_type size() const
    {
        return m_size;
    }

    /// \return true when there are none
    bool empty() const
    {
        return m_size == 0;
    }

    /// \return how many values fit before it must grow
    size_type capacity() const
    {
        return m_capacity;
    }

    T* begin() { return data(); }                           //!< \return first value
    T* end() { return data() + m_size; }                    //!< \return past the last
    const T* begin() const { return data(); }               //!< \return first value
    const T* end() const { return data() + m_size; }        //!< \return past the last
    reverse_iterator rbegin() { return reverse_iterator(end()); }   //!< \return last value
    reverse_iterator rend() { return reverse_iterator(begin()); }   //!< \return before the first
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); } //!< \return last
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); } //!< \return before

    T& operator[](size_type i) { return data()[i]; }             //!< \param i index \return value
    const T& operator[](size_type i) const { return data()[i]; } //!< \param i index \return value
    T& front() { return data()[0]; }                             //!< \return the first value
    const T& front() const { return data()[0]; }                 //!< \return the first value
    T& back() { return data()[m_size - 1]; }                     //!< \return the last value
    const T& back() const { return data()[m_size - 1]; }         //!< \return the last value

    /// \param value appended at the end
    void push_back(const T& value)
    {
        if (m_size == m_capacity)
        {
            const T copy = value; // value may live in this vector
            reserve(static_cast<size_type>(m_capacity) * 2);
            data()[m_size++] = copy;
            return;
        }
        data()[m_size++] = value;
    }

    /// \param args the value's constructor arguments \return the value appended
    template <typename... Args>
    T& emplace_back(Args&&... args)
    {
        push_back(T{std::forward<Args>(args)...});
        return back();
    }

    /// Removes the last value.
    void pop_back()
    {
        --m_size;
    }

    /// Removes every value; keeps the capacity.
    void clear()
    {
        m_size = 0;
    }

    /// \param n new size; new values are T{}
    void resize(size_type n)
    {
        reserve(n);
        std::fill(data() + m_size, data() + std::max<size_type>(n, m_size), T{});
        m_size = static_cast<uint32_t>(n);
    }

    /// Removes [first, last). \param first first removed \param last past the last removed
    /// \return where the values after them now start
    T* erase(const T* first, const T* last)
    {
        T* out = begin() + (first - begin());
        T* tail = std::copy(last, static_cast<const T*>(end()), out);
        m_size = static_cast<uint32_t>(tail - begin());
        return out;
    }

    /// \param pos where \param value inserted before pos \return where it now is
    T* insert(const T* pos, const T& value)
    {
        const auto at = static_cast<size_type>(pos - begin());
        push_back(value);
        std::rotate(begin() + at, end() - 1, end());
        return begin() + at;
    }

    /// \param n how many values to make room for without growing again
    void reserve(size_type n)
    {
        if (n <= m_capacity)
        {
            return;
        }
        if (n > UINT32_MAX)
        {
            throw std::length_error("InlineVector: more than 2^32 - 1 values");
        }
        auto* block = static_cast<T*>(std::malloc(n * sizeof(T)));
        if (!block)
        {
            throw std::bad_alloc();
        }
        std::copy(begin(), end(), block);
        Free();
        m_heap = block;
        m_capacity = static_cast<uint32_t>(n);
    }

    /// \param o the other \return true when both hold the same values in the same order
    bool operator==(const InlineVector& o) const
    {
        return std::equal(begin(), end(), o.begin(), o.end());
    }

    /// \param o the other \return true when they differ
    bool operator!=(const InlineVector& o) const
    {
        return !(*this == o);
    }

    /// \param o the other \return true when this comes first in lexicographic order
    bool operator<(const InlineVector& o) const
    {
        return std::lexicographical_compare(begin(), end(), o.begin(), o.end());
    }

    /// \return a std::vector with the same values
    std::vector<T> ToVector() const
    {
        return std::vector<T>(begin(), end());
    }

    /// \return a std::vector with the same values, for code that keeps or passes one
    explicit operator std::vector<T>() const
    {
        return ToVector();
    }

  private:
    /// \return true when the values are kept inside
    bool IsInline() const
    {
        return m_capacity == N;
    }

    /// Releases a heap block and goes back inside (values are lost).
    void Free()
    {
        if (!IsInline())
        {
            std::free(m_heap);
        }
        m_capacity = N;
    }

    /// Takes over o's values and leaves o empty. \param o the other
    void Take(InlineVector& o)
    {
        m_size = o.m_size;
        m_capacity = o.m_capacity;
        if (o.IsInline())
        {
            std::copy(o.m_inline, o.m_inline + o.m_size, m_inline);
        }
        else
        {
            m_heap = o.m_heap;
        }
        o.m_size = 0;
        o.m_capacity = N;
    }

    uint32_t m_size{0};     //!< how many values
    uint32_t m_capacity{N}; //!< N while inside, the heap block's size otherwise

    union {
        T m_inline[N]; //!< the values while they fit
        T* m_heap;     //!< the values once more than N
    };
};

/// \param a a vector \param b an inline vector \return true when they hold the same values
template <typename T, uint32_t N>
bool
operator==(const std::vector<T>& a, const InlineVector<T, N>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

/// \param a an inline vector \param b a vector \return true when they hold the same values
template <typename T, uint32_t N>
bool
operator==(const InlineVector<T, N>& a, const std::vector<T>& b)
{
    return b == a;
}

/// \param a a vector \param b an inline vector \return true when their values differ
template <typename T, uint32_t N>
bool
operator!=(const std::vector<T>& a, const InlineVector<T, N>& b)
{
    return !(a == b);
}

/// \param a an inline vector \param b a vector \return true when their values differ
template <typename T, uint32_t N>
bool
operator!=(const InlineVector<T, N>& a, const std::vector<T>& b)
{
    return !(b == a);
}

} // namespace ns3

#endif // NS3_ALLREDUCE_INLINE_VECTOR_H
