/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "id-list.h"

#include "ns3/topology.h"

namespace ns3
{

void
IdList::Reset(uint32_t n)
{
    m_ids.clear();
    m_log.clear();
    m_position.assign(n, NO_INDEX);
}

void
IdList::Push(uint32_t id)
{
    m_position[id] = static_cast<uint32_t>(m_ids.size());
    m_ids.push_back(id);
    m_log.push_back(id);
}

void
IdList::Remove(uint32_t id)
{
    const uint32_t pos = m_position[id];
    const uint32_t last = m_ids.back();
    m_ids[pos] = last;
    m_position[last] = pos;
    m_ids.pop_back();
    m_position[id] = NO_INDEX;
}

const std::vector<uint32_t>&
IdList::Get() const
{
    return m_ids;
}

const std::vector<uint32_t>&
IdList::GetLog() const
{
    return m_log;
}

} // namespace ns3
