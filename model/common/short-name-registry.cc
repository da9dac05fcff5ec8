/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "short-name-registry.h"

#include "text-file.h"

#include "ns3/object-factory.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

ShortNameRegistry::ShortNameRegistry(std::string kind, TypeId base)
    : m_kind(std::move(kind)),
      m_base(base)
{
}

void
ShortNameRegistry::Add(Entry entry)
{
    if (entry.name.empty() ||
        entry.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_") != std::string::npos)
    {
        throw std::invalid_argument(m_kind + " name must be letters, digits, '-' or '_', got '" +
                                    Abbreviate(entry.name) + "'");
    }
    if (const Entry* taken = Find(entry.name))
    {
        throw std::invalid_argument(m_kind + " name '" + entry.name + "' is already taken by " +
                                    taken->typeId);
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(entry.typeId, &tid) || !tid.IsChildOf(m_base))
    {
        throw std::invalid_argument("'" + Abbreviate(entry.typeId) + "' is not the TypeId of a subclass of " +
                                    m_base.GetName());
    }
    m_entries.push_back(std::move(entry));
}

const ShortNameRegistry::Entry*
ShortNameRegistry::Find(const std::string& name) const
{
    for (const Entry& e : m_entries)
    {
        if (e.name == name)
        {
            return &e;
        }
    }
    return nullptr;
}

std::vector<ShortNameRegistry::Entry>
ShortNameRegistry::List() const
{
    std::vector<Entry> out = m_entries;
    std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
        return a.order < b.order;
    });
    return out;
}

Ptr<Object>
ShortNameRegistry::Create(const std::string& name) const
{
    const Entry* entry = Find(name);
    const std::string typeId = entry ? entry->typeId : name;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeId, &tid) || !tid.IsChildOf(m_base) ||
        !tid.HasConstructor())
    {
        std::string names;
        for (const Entry& e : List())
        {
            names += (names.empty() ? "" : ", ") + e.name;
        }
        throw std::invalid_argument("unknown " + m_kind + " '" + Abbreviate(name) +
                                    "'; available: " + names + " (or the TypeId name of a subclass of " +
                                    m_base.GetName() + ")");
    }
    for (const Entry& e : m_entries)
    {
        if (e.typeId == tid.GetName() && e.unavailable && !e.unavailable().empty())
        {
            throw std::invalid_argument(e.unavailable());
        }
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    return factory.Create<Object>();
}

} // namespace ns3
