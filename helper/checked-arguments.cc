/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "checked-arguments.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/global-value.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/quantity.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/text-file.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CheckedArguments");

namespace
{

/// \return true when the checker's values are of type T
template <typename T>
bool
Holds(Ptr<const AttributeChecker> checker)
{
    const Ptr<AttributeValue> probe = checker->Create();
    return dynamic_cast<const T*>(PeekPointer(probe)) != nullptr;
}

/// \return true for an enum attribute's checker ("ns3::EnumValue" in ns-3.37, a template
///         "ns3::EnumValue<E>" from 3.41: its value type is read by its name, in both)
bool
HoldsEnum(Ptr<const AttributeChecker> checker)
{
    return checker->GetValueTypeName().rfind("ns3::EnumValue", 0) == 0;
}

/// \return true when tid's attribute is a probability although ns-3's checker takes any double
bool
IsProbability(TypeId tid, const std::string& attribute)
{
    static const std::set<std::string> names{"ns3::RateErrorModel::ErrorRate",
                                             "ns3::BurstErrorModel::ErrorRate"};
    for (TypeId t = tid; t.GetName() != "ns3::ObjectBase"; t = t.GetParent())
    {
        if (names.count(t.GetName() + "::" + attribute) > 0)
        {
            return true;
        }
        if (t.GetParent() == t)
        {
            break;
        }
    }
    return false;
}

/// Reads an attribute of tid's from text, with the ranges its checker does not hold.
Ptr<AttributeValue>
ReadNamedValue(const std::string& subject,
               TypeId tid,
               const TypeId::AttributeInformation& info,
               const std::string& text)
{
    Ptr<AttributeValue> value = ReadAttributeValue(subject, info, text);
    const auto* real = dynamic_cast<const DoubleValue*>(PeekPointer(value));
    if (real && IsProbability(tid, info.name) && !(real->Get() >= 0 && real->Get() <= 1))
    {
        throw std::invalid_argument(subject + " is a probability: give a number from 0 to 1, "
                                    "got '" + Abbreviate(text) + "'");
    }
    return value;
}

/// Global values whose text names a type, and the base type it must derive from.
const std::map<std::string, std::string>&
TypeNamedGlobals()
{
    static const std::map<std::string, std::string> names{
        {"SimulatorImplementationType", "ns3::SimulatorImpl"},
        {"SchedulerType", "ns3::Scheduler"}};
    return names;
}

/// \return the numeric range of a checker's "TYPE MIN:MAX" in words, e.g. "from 0 to 63"
std::string
RangeInWords(const std::string& info)
{
    const size_t space = info.find(' ');
    const size_t colon = info.find(':', space == std::string::npos ? 0 : space);
    if (space == std::string::npos || colon == std::string::npos)
    {
        return "";
    }
    const std::string min = info.substr(space + 1, colon - space - 1);
    const std::string max = info.substr(colon + 1);
    double lo = 0;
    double hi = 0;
    const bool hasLo = ParseDecimal(min, lo) && std::abs(lo) < 1e300 &&
                       !(info.rfind("uint", 0) == 0 && lo == 0);
    const bool hasHi = ParseDecimal(max, hi) && std::abs(hi) < 1e300 && hi < 1.8e19 &&
                       max != std::to_string(std::numeric_limits<int64_t>::max());
    if (hasLo && hasHi)
    {
        return " from " + min + " to " + max;
    }
    return hasLo ? " of at least " + min : hasHi ? " of at most " + max : "";
}

/// \return what a checker accepts, in words a user reads ("a whole number from 0 to 63")
std::string
DescribeAccepted(Ptr<const AttributeChecker> checker)
{
    const std::string info = checker->GetUnderlyingTypeInformation();
    if (Holds<DoubleValue>(checker))
    {
        return "a number" + RangeInWords(info);
    }
    if (Holds<UintegerValue>(checker) || Holds<IntegerValue>(checker))
    {
        return "a whole number" + RangeInWords(info);
    }
    if (Holds<BooleanValue>(checker))
    {
        return "true or false";
    }
    if (Holds<TimeValue>(checker))
    {
        return "a time such as 10us or 1.5ms (ns, us, ms, s, min)";
    }
    if (Holds<DataRateValue>(checker))
    {
        return "a rate above 0 such as 10Gbps or 100Mbps";
    }
    if (Holds<TypeIdValue>(checker))
    {
        return "the name of an ns-3 type (--PrintTypeIds lists the types)";
    }
    if (HoldsEnum(checker))
    {
        std::string list = info;
        for (char& c : list)
        {
            c = c == '|' ? ',' : c;
        }
        return "one of " + list;
    }
    if (const auto* pointer = dynamic_cast<const PointerChecker*>(PeekPointer(checker)))
    {
        return "a type derived from " + pointer->GetPointeeTypeId().GetName() +
               " (--PrintTypeIds lists the types), optionally with attributes: "
               "TYPE[NAME=VALUE|NAME=VALUE]";
    }
    return "a value of type " + info;
}

/// \return text's items between separators, empty ones included; none when text is empty
std::vector<std::string>
SplitItems(const std::string& text, char separator)
{
    std::vector<std::string> items;
    for (size_t pos = 0; !text.empty() && pos <= text.size();)
    {
        const size_t end = std::min(text.find(separator, pos), text.size());
        items.push_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return items;
}

/// Splits "TYPE[A=1|B=2]" into the type and its attribute settings.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>>
SplitFactoryText(const std::string& subject, const std::string& text)
{
    const size_t open = text.find('[');
    std::vector<std::pair<std::string, std::string>> settings;
    if (open == std::string::npos)
    {
        return {Trim(text), settings};
    }
    if (text.back() != ']')
    {
        throw std::invalid_argument(subject + ": '" + Abbreviate(text) + "' opens '[' without "
                                    "closing it; give TYPE or TYPE[NAME=VALUE|NAME=VALUE]");
    }
    const std::string inside = text.substr(open + 1, text.size() - open - 2);
    for (const std::string& item : SplitItems(inside, '|'))
    {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            throw std::invalid_argument(subject + ": '" + Abbreviate(item) + "' in '" +
                                        Abbreviate(text) + "' is not NAME=VALUE");
        }
        settings.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return {Trim(text.substr(0, open)), settings};
}

/**
 * Reads an object factory's text ("ns3::RateErrorModel[ErrorRate=0.01]") with every name
 * checked: the type registered, derived from base and constructible, each attribute its own
 * and each value read as on the command line.
 */
ObjectFactory
ReadObjectFactory(const std::string& subject, TypeId base, const std::string& text)
{
    const auto [typeName, settings] = SplitFactoryText(subject, text);
    TypeId tid;
    const bool found = !typeName.empty() && TypeId::LookupByNameFailSafe(typeName, &tid);
    if (!found || !tid.IsChildOf(base) || !tid.HasConstructor())
    {
        throw std::invalid_argument(
            subject + ": '" + Abbreviate(typeName) + "' is not " +
            (!found                 ? "an ns-3 type"
             : !tid.IsChildOf(base) ? "derived from " + base.GetName()
                                    : "a type ns-3 can create (it has no constructor)") +
            "; give a type derived from " + base.GetName() +
            " (--PrintTypeIds lists the types), e.g. TYPE or TYPE[NAME=VALUE|NAME=VALUE]");
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    for (const auto& [name, value] : settings)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw std::invalid_argument(subject + ": " + typeName + " has no attribute '" +
                                        Abbreviate(name) + "'; see --PrintAttributes=" +
                                        typeName);
        }
        factory.Set(name,
                    *ReadNamedValue(subject + " (" + typeName + "::" + name + ")", tid, info, value));
    }
    return factory;
}

/**
 * Reads the values whose kinds ns-3 parses in ways that abort or misread.
 * \return the value, nullptr when the text is not one of its kind
 * \throws std::invalid_argument (with what is accepted) for a quantity or a type name that
 *         is not one, or a kind of value that is not read from text here
 */
Ptr<AttributeValue>
ReadKnownKind(const std::string& subject,
              Ptr<const AttributeChecker> checker,
              const std::string& text)
{
    double real = 0;
    uint64_t whole = 0;
    const bool negative = !text.empty() && text[0] == '-';
    if (Holds<DoubleValue>(checker))
    {
        return ParseDecimal(text, real) ? Create<DoubleValue>(real) : nullptr;
    }
    if (Holds<UintegerValue>(checker))
    {
        return ParseWholeNumber(text, UINT64_MAX, whole) ? Create<UintegerValue>(whole) : nullptr;
    }
    if (Holds<IntegerValue>(checker))
    {
        return ParseWholeNumber(negative ? text.substr(1) : text, INT64_MAX, whole)
                   ? Create<IntegerValue>(negative ? -static_cast<int64_t>(whole)
                                                   : static_cast<int64_t>(whole))
                   : nullptr;
    }
    if (Holds<TimeValue>(checker))
    {
        return Create<TimeValue>(NanoSeconds(Quantity::ParseTimeNs(subject, text, true, true)));
    }
    if (Holds<DataRateValue>(checker))
    {
        return Create<DataRateValue>(DataRate(Quantity::ParseRate(subject, text)));
    }
    if (Holds<BooleanValue>(checker))
    {
        const bool on = text == "true" || text == "1";
        return on || text == "false" || text == "0" ? Create<BooleanValue>(on) : nullptr;
    }
    if (Holds<QueueSizeValue>(checker))
    {
        return Create<QueueSizeValue>(ParseQueueSize(subject, text));
    }
    if (const auto* pointer = dynamic_cast<const PointerChecker*>(PeekPointer(checker)))
    {
        // ns-3 would create the object from any text, and crash on a type that does not exist.
        return Create<PointerValue>(
            ReadObjectFactory(subject, pointer->GetPointeeTypeId(), text).Create<Object>());
    }
    if (Holds<ObjectFactoryValue>(checker))
    {
        return Create<ObjectFactoryValue>(ReadObjectFactory(subject, Object::GetTypeId(), text));
    }
    if (Holds<TypeIdValue>(checker))
    {
        TypeId tid;
        return TypeId::LookupByNameFailSafe(text, &tid) ? Create<TypeIdValue>(tid) : nullptr;
    }
    if (Holds<StringValue>(checker) || HoldsEnum(checker))
    {
        return checker->CreateValidValue(StringValue(text)); // neither aborts
    }
    // ns-3's other values (addresses, vectors, ...) abort on text they cannot read.
    throw std::invalid_argument(subject + " takes " + checker->GetUnderlyingTypeInformation() +
                                ", which is not read from text here; set it in your script's "
                                "code");
}

/// Refuses --PrintAttributes or --PrintGroup of a type or group ns-3 does not have.
void
CheckPrintArgument(const std::string& name, const std::string& value)
{
    bool known = false;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN() && !known; ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        known = name == "PrintAttributes" ? tid.GetName() == value : tid.GetGroupName() == value;
    }
    if (!known)
    {
        throw std::invalid_argument(
            "--" + name + "=" + Abbreviate(value) + ": ns-3 has no " +
            (name == "PrintAttributes" ? "type of that name; --PrintTypeIds lists the types"
                                       : "group of that name; --PrintGroups lists the groups"));
    }
}

/// \return the global value of that name, or nullptr
const GlobalValue*
FindGlobalValue(const std::string& name)
{
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        if ((*it)->GetName() == name)
        {
            return *it;
        }
    }
    return nullptr;
}

/// Checks and binds --NAME=VALUE of a global value.
void
SetGlobalValue(const std::string& name, const std::string& value)
{
    const GlobalValue* global = FindGlobalValue(name);
    Ptr<AttributeValue> checked;
    const auto typed = TypeNamedGlobals().find(name);
    if (typed != TypeNamedGlobals().end())
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(value, &tid) ||
            !tid.IsChildOf(TypeId::LookupByName(typed->second)) || !tid.HasConstructor())
        {
            throw std::invalid_argument("--" + name + "=" + Abbreviate(value) +
                                        ": give a type derived from " + typed->second +
                                        " (--PrintTypeIds lists the types)");
        }
        checked = Create<StringValue>(value);
    }
    else
    {
        checked = ReadCheckedValue("--" + name, global->GetChecker(), global->GetHelp(), value);
    }
    if (!GlobalValue::BindFailSafe(name, *checked))
    {
        throw std::invalid_argument("--" + name + " could not be set to '" + Abbreviate(value) +
                                    "'");
    }
}

/// Checks NS_LOG as ns-3 will (log.cc, CheckEnvironmentVariables), in words.
void
CheckLogVariable(const std::string& env)
{
    static const std::set<std::string> levels{
        "error",        "warn",        "debug",         "info",           "function",
        "logic",        "all",         "prefix_func",   "func",           "prefix_time",
        "time",         "prefix_node", "node",          "prefix_level",   "level",
        "prefix_all",   "level_error", "level_warn",    "level_debug",    "level_info",
        "level_function", "level_logic", "level_all",   "*",              "**"};
    const LogComponent::ComponentList* components = LogComponent::GetComponentList();
    for (const std::string& item : SplitItems(env, ':'))
    {
        const size_t eq = item.find('=');
        const std::string component = item.substr(0, eq);
        if (component != "*" && component != "***" && components->count(component) == 0)
        {
            throw std::invalid_argument(
                "NS_LOG names the log component '" + Abbreviate(component) +
                "', which this program does not have; give components of "
                "--PrintHelp's program, e.g. NS_LOG=AllReduceController=info (see ns-3's "
                "manual, Logging), or unset NS_LOG");
        }
        std::string rest = eq == std::string::npos ? "" : item.substr(eq + 1);
        while (eq != std::string::npos)
        {
            const size_t bar = std::min(rest.find('|'), rest.size());
            const std::string level = rest.substr(0, bar);
            if (levels.count(level) == 0)
            {
                throw std::invalid_argument(
                    "NS_LOG gives component " + component + " the level '" +
                    Abbreviate(level) + "', which ns-3 does not have; give error, warn, info, "
                    "debug, function, logic or all (and prefix_func, prefix_time, prefix_node, "
                    "prefix_level, prefix_all), joined with '|'");
            }
            if (bar == rest.size())
            {
                break;
            }
            rest = rest.substr(bar + 1);
        }
    }
}

} // namespace

bool
IsGlobalValueName(const std::string& name)
{
    return FindGlobalValue(name) != nullptr;
}

Ptr<AttributeValue>
ReadCheckedValue(const std::string& subject,
                 Ptr<const AttributeChecker> checker,
                 const std::string& help,
                 const std::string& text)
{
    const Ptr<AttributeValue> value = ReadKnownKind(subject, checker, text);
    if (!value || !checker->Check(*value))
    {
        throw std::invalid_argument(subject + " must be " + DescribeAccepted(checker) + " (" +
                                    help + "), got '" + Abbreviate(text) + "'");
    }
    return value;
}

Ptr<AttributeValue>
ReadAttributeValue(const std::string& subject,
                   const TypeId::AttributeInformation& info,
                   const std::string& text)
{
    return ReadCheckedValue(subject, info.checker, info.help, text);
}

std::optional<std::string>
TakeNs3Argument(const std::string& arg)
{
    const size_t start = arg.find_first_not_of('-');
    const size_t eq = arg.find('=');
    const std::string name =
        start == std::string::npos ? "" : arg.substr(start, eq == std::string::npos ? eq : eq - start);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if ((name == "PrintAttributes" || name == "PrintGroup") && value.empty())
    {
        throw std::invalid_argument("--" + name + " needs a " +
                                    (name == "PrintGroup" ? "group (--PrintGroups lists them)"
                                                          : "type (--PrintTypeIds lists them)"));
    }
    if (name == "PrintAttributes" || name == "PrintGroup")
    {
        CheckPrintArgument(name, value);
        return std::nullopt; // ns-3 prints it
    }
    if (IsGlobalValueName(name))
    {
        SetGlobalValue(name, value);
        return name;
    }
    if (name.rfind("ns3::", 0) != 0)
    {
        return std::nullopt;
    }
    const size_t cut = name.rfind("::");
    const std::string typeName = name.substr(0, cut);
    const std::string attribute = cut < 5 ? "" : name.substr(cut + 2);
    TypeId tid;
    if (cut < 5 || !TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw std::invalid_argument("--" + Abbreviate(name) + ": no ns-3 type '" +
                                    Abbreviate(typeName) + "'; give --ns3::TYPE::ATTRIBUTE=VALUE "
                                    "with a type of --PrintTypeIds");
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(attribute, &info))
    {
        throw std::invalid_argument("--" + Abbreviate(name) + ": " + typeName +
                                    " has no attribute '" + Abbreviate(attribute) +
                                    "'; see --PrintAttributes=" + typeName);
    }
    if (!(info.flags & TypeId::ATTR_CONSTRUCT))
    {
        throw std::invalid_argument("--" + Abbreviate(name) + ": " + attribute +
                                    " cannot be set from the command line (it has no initial "
                                    "value); see --PrintAttributes=" + typeName);
    }
    const Ptr<AttributeValue> checked = ReadNamedValue("--" + name, tid, info, value);
    if (!Config::SetDefaultFailSafe(name, *checked))
    {
        throw std::invalid_argument("--" + Abbreviate(name) + " could not be set to '" +
                                    Abbreviate(value) + "'");
    }
    return name;
}

void
CheckNs3Environment()
{
    const char* log = std::getenv("NS_LOG");
    if (log && *log)
    {
        CheckLogVariable(log);
    }
    // ns-3 applies NS_GLOBAL_VALUE's values before main (a value it cannot parse aborts there,
    // out of our reach) and skips names it does not know: those are refused here.
    const char* globals = std::getenv("NS_GLOBAL_VALUE");
    for (const std::string& item : SplitItems(globals ? globals : "", ';'))
    {
        const std::string name = item.substr(0, item.find('='));
        if (item.find('=') == std::string::npos || !FindGlobalValue(name))
        {
            throw std::invalid_argument("NS_GLOBAL_VALUE holds '" + Abbreviate(item) +
                                        "'; give NAME=VALUE items separated by ';' where NAME "
                                        "is an ns-3 global value (--PrintGlobals lists them), "
                                        "or unset NS_GLOBAL_VALUE");
        }
    }
    const char* defaults = std::getenv("NS_ATTRIBUTE_DEFAULT");
    if (!defaults || !*defaults)
    {
        return;
    }
    for (const std::string& item : SplitItems(defaults, ';'))
    {
        if (item.find('=') == std::string::npos || item.rfind("ns3::", 0) != 0)
        {
            throw std::invalid_argument("NS_ATTRIBUTE_DEFAULT holds '" + Abbreviate(item) +
                                        "'; give ns3::TYPE::ATTRIBUTE=VALUE items separated "
                                        "by ';'");
        }
        try
        {
            TakeNs3Argument("--" + item);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("NS_ATTRIBUTE_DEFAULT: ") + e.what());
        }
    }
    // Checked and set: ns-3 must not read the raw text again (it would abort on what it
    // cannot parse, and an environment default would win over the command line).
    unsetenv("NS_ATTRIBUTE_DEFAULT");
}

void
ParseCheckedCommandLine(CommandLine& cmd,
                        int argc,
                        char* argv[],
                        const std::vector<std::string>& setHere)
{
    CheckNs3Environment();
    std::vector<char*> rest{argv[0]};
    std::set<std::string> seen;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg.size() < 2 || arg[0] != '-')
        {
            throw std::invalid_argument("unexpected argument '" + Abbreviate(arg) +
                                        "': options take the form --name=value (no space "
                                        "before the value), see --help");
        }
        const size_t start = arg.find_first_not_of('-');
        const size_t eq = arg.find('=');
        if (start == std::string::npos || start == eq)
        {
            throw std::invalid_argument("'" + Abbreviate(arg) + "' names no option; see --help");
        }
        const std::string name =
            arg.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
        if (!seen.insert(name).second)
        {
            throw std::invalid_argument("--" + Abbreviate(name) + " is given twice; give it once");
        }
        if (HasControlCharacter(arg))
        {
            throw std::invalid_argument("'" + Abbreviate(arg) + "' holds a control character; "
                                        "give printable text");
        }
        const std::optional<std::string> taken = TakeNs3Argument(arg);
        if (taken && std::find(setHere.begin(), setHere.end(), *taken) != setHere.end())
        {
            throw std::invalid_argument("--" + *taken + " has no effect: this program sets it "
                                        "itself; change it in the program's code");
        }
        if (!taken)
        {
            rest.push_back(argv[i]);
        }
    }
    cmd.Parse(static_cast<int>(rest.size()), rest.data());
}

QueueSize
ParseQueueSize(const std::string& subject, const std::string& text)
{
    uint64_t n = 0;
    const bool packets = !text.empty() && text.back() == 'p';
    uint64_t bytes = 0;
    if (packets ? !ParseWholeNumber(text.substr(0, text.size() - 1), UINT32_MAX, n)
                : Quantity::Parse(text, Quantity::SizeUnits(), UINT32_MAX, bytes) != Quantity::OK)
    {
        throw std::invalid_argument(subject + " must be a count of packets such as 1000p (a "
                                    "lower-case p) or a size in bytes such as 4MB or 64KiB, at "
                                    "most 4294967295 of either, got '" + Abbreviate(text) + "'");
    }
    n = packets ? n : bytes;
    if (n == 0)
    {
        throw std::invalid_argument(subject + " must be above 0 (a queue of 0 drops every "
                                    "packet), got '" + Abbreviate(text) + "'");
    }
    if (!packets && n < 1502)
    {
        throw std::invalid_argument(subject + " must hold at least one full packet (1502 bytes: "
                                    "the links' 1500-byte MTU and the 2-byte point-to-point "
                                    "header), got '" + Abbreviate(text) + "'");
    }
    return QueueSize(packets ? QueueSizeUnit::PACKETS : QueueSizeUnit::BYTES,
                     static_cast<uint32_t>(n));
}

} // namespace ns3
