/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_SHORT_NAME_REGISTRY_H
#define NS3_ALLREDUCE_SHORT_NAME_REGISTRY_H

#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * Short names for the subclasses of one base (the schedulers, the placement policies), so
 * that programs take `--scheduler=greedy` or `--placement=packed` and no base file needs to
 * know the subclasses there are: each subclass's .cc file registers itself at load time.
 */
class ShortNameRegistry
{
  public:
    /// One registered subclass.
    struct Entry
    {
        std::string name;             //!< short name
        std::string typeId;           //!< its TypeId name
        std::string description;      //!< one line for a listing
        uint32_t order;               //!< place in the listing (ascending)
        std::string (*unavailable)(); //!< why it cannot run here, empty when it can (or nullptr)
    };

    /**
     * \param kind what is registered, for messages ("scheduler", "placement")
     * \param base the TypeId every registered one derives from
     */
    ShortNameRegistry(std::string kind, TypeId base);

    /**
     * \param entry a new entry
     * \throws std::invalid_argument for a name that is not letters, digits, '-' and '_', a
     *         taken name, or a TypeId that does not derive from the base
     */
    void Add(Entry entry);

    /// \param name a short name \return its entry, or nullptr
    const Entry* Find(const std::string& name) const;

    /// \return the entries in listing order (by order, then registration order)
    std::vector<Entry> List() const;

    /**
     * \param name a short name or the TypeId name of a subclass of the base
     * \return a new object with its default attributes
     * \throws std::invalid_argument naming the short names when there is no such one, or
     *         saying what to install when this build cannot run it
     */
    Ptr<Object> Create(const std::string& name) const;

  private:
    std::string m_kind;           //!< what is registered
    TypeId m_base;                //!< the base of every entry
    std::vector<Entry> m_entries; //!< in registration order (across files, the loader's)
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_SHORT_NAME_REGISTRY_H */
