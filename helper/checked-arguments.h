/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CHECKED_ARGUMENTS_H
#define NS3_ALLREDUCE_CHECKED_ARGUMENTS_H

#include "ns3/attribute.h"
#include "ns3/command-line.h"
#include "ns3/ptr.h"
#include "ns3/queue-size.h"
#include "ns3/type-id.h"

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce
 * A program's ns-3 arguments read through the module's checked parsers (doc/allreduce.rst,
 * "Checked arguments"), for a script built on ns-3's own CommandLine: call it in place of
 * cmd.Parse. ns-3 aborts or crashes on values and names it cannot read (a type that does not
 * exist in a pointer attribute, --RngRun=abc, --SimulatorImplementationType=ns3::Bogus,
 * NS_LOG=Bogus); here each is refused with a std::invalid_argument that names it and says what
 * to give instead, before anything runs:
 *  - --ns3::TYPE::ATTRIBUTE=VALUE and the global values (--RngRun, --RngSeed,
 *    --SimulatorImplementationType, ...): read with the module's quantity parsers (1Tbps, 4MiB,
 *    1.5ms), checked against the attribute's range, type names against the TypeId registry,
 *    then set (Config::SetDefault, GlobalValue::Bind);
 *  - --PrintAttributes and --PrintGroup of what does not exist;
 *  - NS_LOG and NS_ATTRIBUTE_DEFAULT in the environment (CheckNs3Environment);
 *  - an argument that is not an option (ns-3 ignores it), an option given twice (ns-3 keeps
 *    the last) and an attribute the program sets itself (it would override the user's).
 * \code
 *   CommandLine cmd(__FILE__);
 *   cmd.AddValue("topology", "topology spec", topology);
 *   ParseCheckedCommandLine(cmd, argc, argv, {"ns3::AllReduceController::GradientBytes"});
 * \endcode
 * \param cmd the command line, its options added
 * \param argc from main \param argv from main
 * \param setHere attributes (ns3::TYPE::ATTRIBUTE) the program sets on the objects it makes
 * \throws std::invalid_argument for any of the above
 */
void ParseCheckedCommandLine(CommandLine& cmd,
                             int argc,
                             char* argv[],
                             const std::vector<std::string>& setHere = {});

/**
 * \ingroup allreduce
 * Takes an argument that is ns-3's (see ParseCheckedCommandLine): --ns3::TYPE::ATTRIBUTE=VALUE
 * and the global values are checked and set here, --PrintAttributes and --PrintGroup checked.
 * \param arg the argument as typed
 * \return the attribute's or global value's name when it was set here (ns-3's CommandLine must
 *         not see it), else nothing
 * \throws std::invalid_argument for an unknown type, attribute or global value, or a value
 *         the checker refuses
 */
std::optional<std::string> TakeNs3Argument(const std::string& arg);

/**
 * \ingroup allreduce
 * \param name an option's name without dashes \return true when it names a global value
 *        (RngRun, RngSeed, SimulatorImplementationType, SchedulerType, ChecksumEnabled)
 */
bool IsGlobalValueName(const std::string& name);

/**
 * \ingroup allreduce
 * Checks the environment ns-3 reads: NS_LOG (components that exist, levels ns-3 knows; ns-3
 * would abort once the simulator starts) and NS_ATTRIBUTE_DEFAULT (each TYPE::ATTRIBUTE=VALUE
 * checked as on the command line, then set with Config::SetDefault and taken out of the
 * environment, so that ns-3 never parses it again; a command-line --ns3:: option then wins, as
 * the later of the two). NS_GLOBAL_VALUE cannot be checked here: ns-3 reads it while its
 * libraries load, before main.
 * \throws std::invalid_argument naming the variable, the item and what is accepted
 */
void CheckNs3Environment();

/**
 * \ingroup allreduce
 * Reads an attribute's value from text: sizes, rates and times with the module's quantity
 * parsers (where ns-3's own would abort or misread), object types checked against the TypeId
 * registry and the attribute's base type, then the value checked by the attribute's checker.
 * \param subject the value's name for errors, e.g. "--ns3::TcpSocket::SegmentSize"
 * \param info the attribute \param text the value
 * \return the value
 * \throws std::invalid_argument naming the subject and what is accepted, in words
 */
Ptr<AttributeValue> ReadAttributeValue(const std::string& subject,
                                       const TypeId::AttributeInformation& info,
                                       const std::string& text);

/**
 * \ingroup allreduce
 * \copydoc ReadAttributeValue
 * \param checker the attribute's checker \param help what it is, for errors
 */
Ptr<AttributeValue> ReadCheckedValue(const std::string& subject,
                                     Ptr<const AttributeChecker> checker,
                                     const std::string& help,
                                     const std::string& text);

/**
 * \ingroup allreduce
 * \param subject the value's name for errors \param text "1000p" (packets) or a size in bytes
 *        such as "4MB" or "64KiB"
 * \return the queue size, above 0, at least one full packet in bytes (1502: the links'
 *         1500-byte MTU and the 2-byte point-to-point header), at most 2^32 - 1 of its unit
 * \throws std::invalid_argument naming the subject when text is not one
 */
QueueSize ParseQueueSize(const std::string& subject, const std::string& text);

} // namespace ns3

#endif /* NS3_ALLREDUCE_CHECKED_ARGUMENTS_H */
