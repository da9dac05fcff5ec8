/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_NS3_COMPAT_H
#define NS3_ALLREDUCE_NS3_COMPAT_H

// The one place in C++ where the ns-3 versions the module supports differ (doc/allreduce.rst,
// "ns-3 versions"): Debian 12's ns-3.37 (C++17) up to ns-3.48 (C++23). Every other file is
// written as ordinary ns-3 code, in the form both versions accept wherever one exists (e.g.
// !EventId::IsExpired() for IsRunning/IsPending, AddTestCase's default duration); what has no
// common form is named here once. When the oldest version goes, its branches go, and no other
// file changes. ALLREDUCE_NS3_VERSION is 100 * major + minor of the ns-3 built against (337,
// 348; 399 for ns-3-dev), set by the module's CMakeLists.txt ("The ns-3 versions") as a public
// compile definition of the module, so a program using its headers has it too.

#ifndef ALLREDUCE_NS3_VERSION
#error "ALLREDUCE_NS3_VERSION is not defined: build with the module's CMake package \
(ns3-allreduce::ns3-allreduce), its pkg-config file, or inside an ns-3 tree"
#endif

#include "ns3/enum.h"

// Global routing: Ipv4GlobalRouting in ipv4-global-routing.h up to ns-3.46; from 3.47 it is
// GlobalRouting<Ipv4RoutingProtocol> in global-routing.h (with IPv6 support), and the old
// header is gone. (A Debian machine still has the old one in /usr/include/ns3: naming the
// right one here keeps an ns-3.48 build from reading ns-3.37's.)
#if ALLREDUCE_NS3_VERSION >= 347
#include "ns3/global-routing.h"
#else
#include "ns3/ipv4-global-routing.h"
#endif

namespace ns3
{
namespace compat
{

/**
 * \ingroup allreduce
 * How Ipv4RoutingProtocol::RouteInput takes each of its four callbacks: by const reference
 * since ns-3.39, by value before. An override declares them as
 * compat::RouteInputCallback<UnicastForwardCallback> ucb, and so on.
 */
#if ALLREDUCE_NS3_VERSION >= 339
template <typename C>
using RouteInputCallback = const C&;
#else
template <typename C>
using RouteInputCallback = C;
#endif

/**
 * \ingroup allreduce
 * The accessor of an enum attribute. ns-3.41 made EnumValue a template (enum classes too) and
 * MakeEnumAccessor<E> needs the enum type named; before, MakeEnumAccessor takes none.
 * \tparam E the enum type of the attribute
 * \param member the member (or getter and setter) the attribute reads and writes
 * \return the accessor
 */
template <typename E, typename M>
Ptr<const AttributeAccessor>
MakeEnumAccessor(M member)
{
#if ALLREDUCE_NS3_VERSION >= 341
    return ns3::MakeEnumAccessor<E>(member);
#else
    return ns3::MakeEnumAccessor(member);
#endif
}

} // namespace compat
} // namespace ns3

#endif /* NS3_ALLREDUCE_NS3_COMPAT_H */
