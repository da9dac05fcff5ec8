/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "server-set.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

ServerSet::const_iterator::const_iterator(const Runs* runs,
                                          std::size_t run,
                                          uint32_t server)
    : m_runs(runs),
      m_run(run),
      m_server(server)
{
}

uint32_t
ServerSet::const_iterator::operator*() const
{
    return m_server;
}

ServerSet::const_iterator&
ServerSet::const_iterator::operator++()
{
    if (m_server < (*m_runs)[m_run].last)
    {
        ++m_server;
    }
    else if (++m_run < m_runs->size())
    {
        m_server = (*m_runs)[m_run].first;
    }
    else
    {
        m_server = 0; // the end
    }
    return *this;
}

ServerSet::const_iterator
ServerSet::const_iterator::operator++(int)
{
    const const_iterator before = *this;
    ++*this;
    return before;
}

bool
ServerSet::const_iterator::operator==(const const_iterator& o) const
{
    return m_runs == o.m_runs && m_run == o.m_run && m_server == o.m_server;
}

bool
ServerSet::const_iterator::operator!=(const const_iterator& o) const
{
    return !(*this == o);
}

namespace
{

/// \param r a run \param s a server \return whether r ends before s with a gap between them
bool
EndsApartBefore(const ServerSet::Run& r, uint32_t s)
{
    return r.last < s && s - r.last > 1;
}

/// \param servers a list \return it as a set \throws std::invalid_argument on a server twice
template <typename List>
ServerSet
FromList(const List& servers)
{
    std::vector<uint32_t> sorted(servers.begin(), servers.end());
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end())
    {
        throw std::invalid_argument("server " + std::to_string(*twice) +
                                    " is listed twice in a set of servers");
    }
    ServerSet set;
    for (uint32_t s : sorted)
    {
        set.AddRun(s, s); // ascending: extends the last run or starts one after it
    }
    return set;
}

} // namespace

ServerSet::ServerSet(std::initializer_list<uint32_t> servers)
    : ServerSet(FromList(servers))
{
}

ServerSet::ServerSet(const std::vector<uint32_t>& servers)
    : ServerSet(FromList(servers))
{
}

void
ServerSet::Add(uint32_t server)
{
    AddRun(server, server);
}

void
ServerSet::AddRun(uint32_t first, uint32_t last)
{
    if (last < first)
    {
        throw std::invalid_argument("a run of servers from " + std::to_string(first) +
                                    " back to " + std::to_string(last) +
                                    ": its last server must not come before its first");
    }
    // The usual case, servers given in ascending order: after the last run.
    if (m_runs.empty() || EndsApartBefore(m_runs.back(), first))
    {
        m_runs.push_back({first, last});
        m_size += last - first + 1;
        return;
    }
    // Otherwise merge with every run it overlaps or touches.
    auto from = std::lower_bound(m_runs.begin(), m_runs.end(), first, EndsApartBefore);
    auto to = from;
    Run merged{first, last};
    while (to != m_runs.end() && !EndsApartBefore({last, last}, to->first))
    {
        merged.first = std::min(merged.first, to->first);
        merged.last = std::max(merged.last, to->last);
        m_size -= to->last - to->first + 1;
        ++to;
    }
    from = m_runs.erase(from, to);
    m_runs.insert(from, merged);
    m_size += merged.last - merged.first + 1;
}

void
ServerSet::Add(const ServerSet& other)
{
    for (const Run& r : other.m_runs)
    {
        AddRun(r.first, r.last);
    }
}

void
ServerSet::clear()
{
    m_runs = Runs();
    m_size = 0;
}

bool
ServerSet::Contains(uint32_t server) const
{
    const auto it = std::upper_bound(m_runs.begin(),
                                     m_runs.end(),
                                     server,
                                     [](uint32_t s, const Run& r) { return s < r.first; });
    return it != m_runs.begin() && server <= std::prev(it)->last;
}

uint32_t
ServerSet::size() const
{
    return m_size;
}

bool
ServerSet::empty() const
{
    return m_size == 0;
}

uint32_t
ServerSet::front() const
{
    return m_runs.front().first;
}

uint32_t
ServerSet::back() const
{
    return m_runs.back().last;
}

const ServerSet::Runs&
ServerSet::GetRuns() const
{
    return m_runs;
}

std::vector<uint32_t>
ServerSet::ToVector() const
{
    std::vector<uint32_t> out;
    out.reserve(m_size);
    for (const Run& r : m_runs)
    {
        for (uint64_t s = r.first; s <= r.last; ++s)
        {
            out.push_back(static_cast<uint32_t>(s));
        }
    }
    return out;
}

ServerSet::const_iterator
ServerSet::begin() const
{
    return m_runs.empty() ? end() : const_iterator(&m_runs, 0, m_runs.front().first);
}

ServerSet::const_iterator
ServerSet::end() const
{
    return const_iterator(&m_runs, m_runs.size(), 0);
}

bool
ServerSet::operator==(const ServerSet& o) const
{
    return m_size == o.m_size &&
           std::equal(m_runs.begin(),
                      m_runs.end(),
                      o.m_runs.begin(),
                      o.m_runs.end(),
                      [](const Run& a, const Run& b) { return a.first == b.first && a.last == b.last; });
}

bool
ServerSet::operator!=(const ServerSet& o) const
{
    return !(*this == o);
}

std::ostream&
operator<<(std::ostream& os, const ServerSet& set)
{
    os << '{';
    const char* sep = "";
    for (const ServerSet::Run& r : set.GetRuns())
    {
        os << sep << r.first;
        if (r.last != r.first)
        {
            os << '-' << r.last;
        }
        sep = ", ";
    }
    return os << '}';
}

} // namespace ns3
