/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_ROUTER_FILE_H
#define NS3_ALLREDUCE_ROUTER_FILE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-topology
 * A router-level graph read from a file in one of the formats of ns-3's topology-read module:
 * routers by the names the file gives them, and each link once.
 */
struct RouterGraph
{
    std::vector<std::string> names;                      //!< routers, in order of first mention
    std::vector<std::pair<uint32_t, uint32_t>> links;    //!< indices into names, each pair once
    std::vector<uint64_t> lines;                         //!< the line each link was first read on
    std::vector<std::string> notes; //!< what the file says that the graph leaves out, and why
};

/// \ingroup allreduce-topology
/// The largest router file read (64 MiB: several times the largest Rocketfuel map).
constexpr uint64_t MAX_ROUTER_FILE_BYTES = uint64_t{64} << 20;

/**
 * \ingroup allreduce-topology
 * Parses a router-level topology in the format of one of ns-3's topology readers, checking
 * what those readers pass over in silence: every line is read or refused with its number.
 *
 * - "inet" (Inet 3.0): a header "NODES LINKS", NODES lines "ID X Y", then LINKS lines
 *   "FROM TO [WEIGHT]" between declared ids; the counts must match the lines.
 * - "orbis" (Orbis 0.7): a line "FROM TO" per link.
 * - "rocketfuel": a maps file (a line "UID @LOC [+] [bb] (N) [&E] -> <NUID> ... =NAME rR" per
 *   router, each link listed from both of its ends) or a weights file (a line "FROM TO WEIGHT"
 *   per direction of a link), told apart by the first line as ns-3 does. A maps file's router
 *   that lists no neighbour inside the map is left out with a note (its links all leave the
 *   ISP); a line of radius r > 0 adds no links of its own, as in ns-3's reader.
 *
 * Refused, with the line: a line that does not fit the format, a link from a router to itself,
 * a link given twice (in either direction; a maps or weights file gives each direction once),
 * a neighbour or an id that the file never declares, an Inet router without links, and no
 * link at all. Weights are read (they must be numbers) but not kept.
 * \param text the file's text
 * \param format "inet", "orbis" or "rocketfuel"
 * \param source the file's name, for messages
 * \return the graph
 * \throws std::invalid_argument naming source, the line and what to change
 */
RouterGraph ParseRouterFile(const std::string& text,
                            const std::string& format,
                            const std::string& source);

/**
 * \ingroup allreduce-topology
 * Reads a router file (ParseRouterFile) of at most MAX_ROUTER_FILE_BYTES.
 * \param path the file
 * \param format "inet", "orbis" or "rocketfuel"
 * \return the graph
 * \throws std::invalid_argument for a file that cannot be read, is too large or is malformed
 */
RouterGraph ReadRouterFile(const std::string& path, const std::string& format);

} // namespace ns3

#endif /* NS3_ALLREDUCE_ROUTER_FILE_H */
