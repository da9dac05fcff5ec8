/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SERVER_SET_H
#define NS3_ALLREDUCE_SERVER_SET_H

#include "ns3/inline-vector.h"

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-workload
 * A set of servers, read in ascending order, kept as runs of consecutive servers: what a reduce
 * workload carries (Workload::carries). A Ring reduce at step t carries the t + 1 servers that
 * follow one another on the ring, one run (two where it wraps), so a set costs a few bytes
 * where a list of its servers cost N/2 values on average: 2 GB for Ring on 1,024 servers
 * (doc/allreduce.rst, "Limits").
 */
class ServerSet
{
  public:
    /// A run of consecutive servers, first..last, both included.
    struct Run
    {
        uint32_t first; //!< its first server
        uint32_t last;  //!< its last server
    };

    /// The runs, ascending; up to two kept inside the set (a Ring workload carries one or two).
    using Runs = InlineVector<Run, 2>;

    /// Reads the servers in ascending order.
    class const_iterator
    {
      public:
        using iterator_category = std::forward_iterator_tag; //!< one pass forward
        using value_type = uint32_t;                          //!< a server
        using difference_type = std::ptrdiff_t;               //!< iterator distance
        using pointer = const uint32_t*;                      //!< unused
        using reference = uint32_t;                           //!< by value

        const_iterator() = default;
        /// \param runs the set's runs \param run the run it is in \param server the server
        const_iterator(const Runs* runs, std::size_t run, uint32_t server);
        /// \return the server
        uint32_t operator*() const;
        /// \return the next server
        const_iterator& operator++();
        /// \return this server, moving to the next
        const_iterator operator++(int);
        /// \param o another \return whether both are at the same server of the same set
        bool operator==(const const_iterator& o) const;
        /// \param o another \return whether they differ
        bool operator!=(const const_iterator& o) const;

      private:
        const Runs* m_runs{nullptr}; //!< the set's runs
        std::size_t m_run{0};                    //!< the run it is in (size: the end)
        uint32_t m_server{0};                    //!< the server
    };

    ServerSet() = default;
    /**
     * \param servers servers in any order
     * \throws std::invalid_argument when one is listed twice
     */
    ServerSet(std::initializer_list<uint32_t> servers);
    /**
     * \param servers servers in any order
     * \throws std::invalid_argument when one is listed twice
     */
    explicit ServerSet(const std::vector<uint32_t>& servers);

    /// \param server a server to add (nothing changes when it is in the set)
    void Add(uint32_t server);
    /// \param first a server \param last a server not before first: adds first..last
    void AddRun(uint32_t first, uint32_t last);
    /// \param other a set whose servers to add
    void Add(const ServerSet& other);
    /// Empties the set (and frees its memory).
    void clear();

    /// \param server a server \return whether the set holds it
    bool Contains(uint32_t server) const;
    /// \return the number of servers
    uint32_t size() const;
    /// \return whether it holds no server
    bool empty() const;
    /// \return the smallest server (the set must not be empty)
    uint32_t front() const;
    /// \return the largest server (the set must not be empty)
    uint32_t back() const;
    /// \return its runs of consecutive servers, ascending, apart by at least one server
    const Runs& GetRuns() const;
    /// \return its servers, ascending
    std::vector<uint32_t> ToVector() const;

    /// \return the smallest server's position
    const_iterator begin() const;
    /// \return the position after the largest server
    const_iterator end() const;

    /// \param o another set \return whether both hold the same servers
    bool operator==(const ServerSet& o) const;
    /// \param o another set \return whether they differ
    bool operator!=(const ServerSet& o) const;

  private:
    Runs m_runs; //!< ascending, not touching
    uint32_t m_size{0};      //!< servers in all
};

/// Writes "{0-3, 7}". \param os a stream \param set a set \return os
std::ostream& operator<<(std::ostream& os, const ServerSet& set);

} // namespace ns3

#endif // NS3_ALLREDUCE_SERVER_SET_H
