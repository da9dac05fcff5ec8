/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "checked-command-line.h"

#include "mpi-launch.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/integer.h"
#include "ns3/quantity.h"
#include "ns3/string.h"
#include "ns3/text-file.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace ns3
{

namespace
{

/// Options that ns-3's CommandLine itself answers.
bool
IsNs3Option(const std::string& name)
{
    return name.rfind("ns3::", 0) == 0 || name == "help" || name == "version" ||
           name.rfind("Print", 0) == 0 || IsGlobalValueName(name);
}

[[noreturn]] void
Refuse(const std::string& name, const std::string& text, const std::string& what)
{
    throw std::invalid_argument("--" + name + " " + what + ", got '" + Abbreviate(text) + "'");
}

/// \return a converter of an unsigned whole number in [min, max] into value
template <typename T>
std::function<void(const std::string&)>
WholeNumber(const std::string& name, T& value, uint64_t min, uint64_t max)
{
    return [name, min, max, &value](const std::string& text) {
        uint64_t v = 0;
        if (!ParseWholeNumber(text, std::numeric_limits<uint64_t>::max(), v) || v < min || v > max)
        {
            Refuse(name, text, "must be a whole number from " + std::to_string(min) + " to " +
                                   std::to_string(max));
        }
        value = static_cast<T>(v);
    };
}

/// \return "0s", "10s", "1us": a time as a user writes it, in a unit the parser reads
std::string
FormatTime(Time t)
{
    return t.IsZero() ? "0s" : Quantity::FormatTime(t.GetNanoSeconds());
}

} // namespace

uint64_t
ParseByteSize(const std::string& option, const std::string& text)
{
    return Quantity::ParseSize("--" + option, text);
}

Time
ParseTimeValue(const std::string& option, const std::string& text)
{
    return NanoSeconds(Quantity::ParseTimeNs("--" + option, text));
}

CheckedCommandLine::CheckedCommandLine(const std::string& program, const std::string& usage)
    : m_cmd(program),
      m_program(std::filesystem::path(program).stem().string())
{
    m_cmd.Usage(usage);
}

void
CheckedCommandLine::AcceptDistributedLaunch()
{
    m_distributedLaunch = true;
}

void
CheckedCommandLine::Add(const std::string& name,
                        const std::string& help,
                        const std::string& shown,
                        std::function<void(const std::string&)> convert)
{
    // ns-3.48's CommandLine aborts on a name added twice, where 3.37's kept the first: refuse
    // it here, in every version, as the programming error it is.
    for (const Option& option : m_options)
    {
        if (option.name == name)
        {
            throw std::logic_error("CheckedCommandLine: option --" + name + " added twice");
        }
    }
    const size_t index = m_options.size();
    m_options.push_back({name, std::move(convert), "", {}, false, false});
    // The callback keeps the text whole; conversion waits until Parse, so that every error is
    // ours and none is ns-3's abort. The lambda becomes the Callback AddValue takes, whose
    // argument is a std::string in ns-3.37 and a const std::string& in 3.48.
    m_cmd.AddValue(
        name,
        help,
        [this, index](const std::string& text) {
            m_options[index].text = text;
            m_options[index].texts.push_back(text);
            m_options[index].given = true;
            return true;
        },
        shown);
}

void
CheckedCommandLine::AddString(const std::string& name, const std::string& help, std::string& value)
{
    Add(name, help, value, [name, &value](const std::string& text) {
        if (text.empty())
        {
            // --out= or --schedule-out= would be taken as not given, silently.
            throw std::invalid_argument("--" + name + " is given empty; give a value, or leave "
                                        "--" + name + " out for its default");
        }
        value = text;
    });
}

void
CheckedCommandLine::AddRepeated(const std::string& name,
                                const std::string& help,
                                std::vector<std::string>& values)
{
    Add(name, help, "", [&values](const std::string& text) { values.push_back(text); });
    m_options.back().repeatable = true;
}

void
CheckedCommandLine::AddChoice(const std::string& name,
                              const std::string& help,
                              std::string& value,
                              const std::vector<std::string>& choices)
{
    std::string list;
    for (const auto& c : choices)
    {
        list += (list.empty() ? "" : ", ") + c;
    }
    const auto convert = [name, choices, list, &value](const std::string& text) {
        for (const auto& c : choices)
        {
            if (text == c)
            {
                value = text;
                return;
            }
        }
        Refuse(name, text, "must be one of " + list);
    };
    Add(name, help + " (" + list + ")", value, convert);
}

void
CheckedCommandLine::AddFlag(const std::string& name, const std::string& help, bool& value)
{
    Add(name, help, value ? "true" : "false", [name, &value](const std::string& text) {
        if (text.empty() || text == "true" || text == "1")
        {
            value = true;
        }
        else if (text == "false" || text == "0")
        {
            value = false;
        }
        else
        {
            Refuse(name, text, "is a flag: give --" + name + ", --" + name + "=true or --" +
                                   name + "=false");
        }
    });
}

void
CheckedCommandLine::AddInteger(const std::string& name,
                               const std::string& help,
                               uint64_t& value,
                               uint64_t min,
                               uint64_t max)
{
    Add(name, help, std::to_string(value), WholeNumber(name, value, min, max));
}

void
CheckedCommandLine::AddInteger(const std::string& name,
                               const std::string& help,
                               uint32_t& value,
                               uint32_t min,
                               uint32_t max)
{
    Add(name, help, std::to_string(value), WholeNumber(name, value, min, max));
}

void
CheckedCommandLine::AddInteger(const std::string& name,
                               const std::string& help,
                               int64_t& value,
                               int64_t min,
                               int64_t max)
{
    Add(name, help, std::to_string(value), [name, min, max, &value](const std::string& text) {
        const bool negative = !text.empty() && text[0] == '-';
        uint64_t magnitude = 0;
        const bool ok = ParseWholeNumber(negative ? text.substr(1) : text,
                                    uint64_t{1} << 62,
                                    magnitude);
        const int64_t v = negative ? -static_cast<int64_t>(magnitude)
                                   : static_cast<int64_t>(magnitude);
        if (!ok || v < min || v > max)
        {
            Refuse(name, text, "must be a whole number from " + std::to_string(min) + " to " +
                                   std::to_string(max));
        }
        value = v;
    });
}

void
CheckedCommandLine::AddReal(const std::string& name,
                            const std::string& help,
                            double& value,
                            double min,
                            double max)
{
    std::ostringstream shown;
    shown << value;
    Add(name, help, shown.str(), [name, min, max, &value](const std::string& text) {
        double v = 0;
        if (!ParseDecimal(text, v) || v < min || v > max)
        {
            std::ostringstream range;
            range << "must be a number from " << min << " to " << max;
            Refuse(name, text, range.str());
        }
        value = v;
    });
}

void
CheckedCommandLine::AddTime(const std::string& name,
                            const std::string& help,
                            Time& value,
                            Time min,
                            Time max)
{
    Add(name, help, FormatTime(value), [name, min, max, &value](const std::string& text) {
        const Time v = ParseTimeValue(name, text);
        if (v < min || v > max)
        {
            Refuse(name, text, "must be from " + FormatTime(min) + " to " + FormatTime(max));
        }
        value = v;
    });
}

void
CheckedCommandLine::AddBytes(const std::string& name,
                             const std::string& help,
                             uint64_t& value,
                             uint64_t min,
                             uint64_t max)
{
    Add(name, help, std::to_string(value), [name, min, max, &value](const std::string& text) {
        const uint64_t v = ParseByteSize(name, text);
        if (v < min || v > max)
        {
            Refuse(name, text, "must be from " + std::to_string(min) + " to " +
                                   std::to_string(max) + " bytes");
        }
        value = v;
    });
}

void
CheckedCommandLine::AddDataRate(const std::string& name, const std::string& help, DataRate& value)
{
    Add(name,
        help,
        Quantity::FormatRate(value.GetBitRate()),
        [name, &value](const std::string& text) {
            // Read by us: ns-3's DataRate reads neither Tbps nor exponents, and aborts on a typo.
            value = DataRate(Quantity::ParseRate("--" + name, text));
        });
}

void
CheckedCommandLine::AddQueueSize(const std::string& name,
                                 const std::string& help,
                                 std::optional<QueueSize>& value)
{
    std::ostringstream shown;
    if (value)
    {
        shown << *value;
    }
    Add(name, help, shown.str(), [name, &value](const std::string& text) {
        value = ParseQueueSize("--" + name, text);
    });
}

void
CheckedCommandLine::Parse(int argc, char* argv[])
{
    if (!m_distributedLaunch && GetLaunchRanks() > 1)
    {
        throw std::invalid_argument(
            m_program + " runs on one process, but was started on " +
            std::to_string(GetLaunchRanks()) + " ranks (mpirun); a distributed run is "
            "allreduce-packet's (doc/allreduce.rst, \"Distributed runs\")");
    }
    CheckNs3Environment();
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg.rfind("--SimulatorImplementationType", 0) == 0)
        {
            // A packet run chooses the simulator: ns-3's default, or its distributed one.
            throw std::invalid_argument(
                "--SimulatorImplementationType has no effect: " + m_program + " chooses ns-3's "
                "simulator itself (the distributed one for --distributed or mpirun, see "
                "--synchronizer); leave it out");
        }
        if (arg.empty() || arg[0] != '-')
        {
            throw std::invalid_argument(
                "unexpected argument '" + Abbreviate(arg) +
                "': options take the form --name=value (no space before the value; quote a "
                "value with spaces), see --help");
        }
        const size_t start = arg.find_first_not_of('-');
        const std::string name = arg.substr(start == std::string::npos ? arg.size() : start,
                                            arg.find('=') == std::string::npos
                                                ? std::string::npos
                                                : arg.find('=') - start);
        bool known = IsNs3Option(name);
        for (const Option& o : m_options)
        {
            known = known || o.name == name;
        }
        if (!known)
        {
            throw std::invalid_argument("unknown option '" + Abbreviate(arg) +
                                        "'; see --help for the options");
        }
    }
    for (Option& o : m_options)
    {
        o.given = false; // each Parse reads its own arguments
        o.texts.clear();
    }
    // ns-3 aborts on an attribute value or a type it cannot read: those arguments are ours.
    std::vector<char*> rest;
    m_attributesGiven.clear();
    for (int i = 0; i < argc; ++i)
    {
        const std::optional<std::string> attribute =
            i == 0 ? std::nullopt : TakeNs3Argument(argv[i]);
        if (attribute)
        {
            m_attributesGiven.push_back(*attribute);
        }
        else
        {
            rest.push_back(argv[i]);
        }
    }
    m_cmd.Parse(static_cast<int>(rest.size()), rest.data());
    for (const Option& o : m_options)
    {
        if (o.texts.size() > 1 && !o.repeatable)
        {
            // The last would win silently: refuse instead.
            throw std::invalid_argument("--" + o.name + " is given " +
                                        std::to_string(o.texts.size()) + " times ('" +
                                        Abbreviate(o.texts.front()) + "', then '" +
                                        Abbreviate(o.texts[1]) + "'); give it once");
        }
        for (const std::string& text : o.texts)
        {
            if (HasControlCharacter(text))
            {
                // It would reach the terminal raw in every message and file name printed.
                throw std::invalid_argument("--" + o.name + " holds a control character ('" +
                                            Abbreviate(text) + "'); give printable text");
            }
            o.convert(text);
        }
    }
}

bool
CheckedCommandLine::IsGiven(const std::string& name) const
{
    for (const Option& o : m_options)
    {
        if (o.name == name)
        {
            return o.given;
        }
    }
    throw std::invalid_argument("no option --" + name);
}

void
CheckedCommandLine::RefuseWith(const std::string& option,
                               const std::vector<std::string>& ignored,
                               const std::string& why) const
{
    if (!IsGiven(option))
    {
        return;
    }
    for (const std::string& other : ignored)
    {
        if (IsGiven(other))
        {
            throw std::invalid_argument("--" + other + " has no effect with --" + option + " (" +
                                        why + "); give one or the other");
        }
    }
}

void
CheckedCommandLine::RefuseWithout(const std::string& option,
                                  const std::vector<std::string>& needing) const
{
    for (const std::string& other : needing)
    {
        if (IsGiven(other))
        {
            throw std::invalid_argument("--" + other + " has no effect without --" + option +
                                        "; give --" + option + " too, or leave --" + other +
                                        " out");
        }
    }
}

void
CheckedCommandLine::CheckWritable(const std::vector<std::string>& outputs) const
{
    for (const Option& o : m_options)
    {
        if (!o.given || std::find(outputs.begin(), outputs.end(), o.name) == outputs.end())
        {
            continue;
        }
        struct stat st;
        if (stat(o.text.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        {
            throw std::invalid_argument("--" + o.name + "='" + Abbreviate(o.text) +
                                        "' is a directory; give the path of a file");
        }
        const std::string why = ProbeWritable(o.text);
        if (!why.empty())
        {
            throw std::invalid_argument("cannot write --" + o.name + "='" + Abbreviate(o.text) +
                                        "': " + why +
                                        " (check that its directory exists and is writable)");
        }
    }
}

void
CheckedCommandLine::RefuseAttributes(
    const std::vector<std::pair<std::string, std::string>>& overridden) const
{
    for (const auto& [attribute, instead] : overridden)
    {
        if (std::find(m_attributesGiven.begin(), m_attributesGiven.end(), attribute) !=
            m_attributesGiven.end())
        {
            throw std::invalid_argument("--" + attribute + " has no effect: this program sets "
                                        "it on every object it makes; give " + instead);
        }
    }
}

void
CheckedCommandLine::RefuseSameFile(const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs) const
{
    const auto textOf = [this](const std::string& name) {
        for (const Option& o : m_options)
        {
            if (o.name == name && o.given)
            {
                return o.text.rfind("file:", 0) == 0 ? o.text.substr(5) : o.text;
            }
        }
        return std::string();
    };
    for (const std::string& out : outputs)
    {
        for (const std::string& in : inputs)
        {
            const std::string written = textOf(out);
            const std::string read = textOf(in);
            if (!written.empty() && !read.empty() && IsSameFile(written, read))
            {
                throw std::invalid_argument("--" + out + " names the same file as --" + in +
                                            " ('" + Abbreviate(read) + "'), which this run "
                                            "reads; write to another file");
            }
        }
    }
}

void
CheckedCommandLine::SetAttributes(ObjectBase* object,
                                  const std::vector<std::pair<std::string, std::string>>& attributes,
                                  const std::string& owner) const
{
    std::string names;
    for (size_t i = 0; i < attributes.size(); ++i)
    {
        names += (i == 0 ? "--" : i + 1 == attributes.size() ? " and --" : ", --") +
                 attributes[i].first;
    }
    for (const Option& o : m_options)
    {
        for (const auto& [option, attribute] : attributes)
        {
            if (o.name != option || !o.given)
            {
                continue;
            }
            if (!object)
            {
                throw std::invalid_argument(names + (attributes.size() == 1 ? " is an option"
                                                                            : " are options") +
                                            " of " + owner);
            }
            TypeId::AttributeInformation info;
            if (!object->GetInstanceTypeId().LookupAttributeByName(attribute, &info) ||
                !object->SetAttributeFailSafe(attribute,
                                              *ReadAttributeValue("--" + o.name, info, o.text)))
            {
                throw std::invalid_argument("--" + o.name + " cannot be set on " + owner);
            }
        }
    }
}

std::vector<std::string>
ParseListValue(const std::string& option, const std::string& text, char sep, bool repeats)
{
    std::vector<std::string> items;
    size_t pos = 0;
    while (true)
    {
        const size_t end = std::min(text.find(sep, pos), text.size());
        std::string item = text.substr(pos, end - pos);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty())
        {
            throw std::invalid_argument("--" + option + " has an empty item in '" +
                                        Abbreviate(text) + "'; give items separated by single '" +
                                        std::string(1, sep) + "'");
        }
        if (!repeats && std::find(items.begin(), items.end(), item) != items.end())
        {
            throw std::invalid_argument("--" + option + " gives '" + Abbreviate(item) +
                                        "' twice; give each once");
        }
        items.push_back(item);
        if (end == text.size())
        {
            return items;
        }
        pos = end + 1;
    }
}

std::vector<uint32_t>
ParseRanksValue(const std::string& option, const std::string& text)
{
    std::vector<uint32_t> ids = ParseIdListValue(option, text);
    std::vector<uint32_t> sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
    if (twice != sorted.end())
    {
        throw std::invalid_argument("--" + option + " gives server " + std::to_string(*twice) +
                                    " twice ('" + Abbreviate(text) + "'); give each rank its "
                                    "own server, e.g. 0,4,8,12 or 0-7");
    }
    return ids;
}

std::vector<uint32_t>
ParseIdListValue(const std::string& option, const std::string& text)
{
    constexpr uint64_t MOST = uint64_t{1} << 24;
    std::vector<uint32_t> ids;
    for (const std::string& item : ParseListValue(option, text, ',', true))
    {
        const size_t dash = item.find('-');
        uint64_t first = 0;
        uint64_t last = 0;
        const bool ok = dash == std::string::npos
                            ? ParseWholeNumber(item, UINT32_MAX - 1, first)
                            : ParseWholeNumber(item.substr(0, dash), UINT32_MAX - 1, first) &&
                                  ParseWholeNumber(item.substr(dash + 1), UINT32_MAX - 1, last);
        if (!ok || (dash != std::string::npos && last < first))
        {
            throw std::invalid_argument("--" + option + ": '" + Abbreviate(item) +
                                        "' is not an id or a range of ids (e.g. 3 or 4-11)");
        }
        if (dash == std::string::npos)
        {
            last = first;
        }
        if (ids.size() + (last - first + 1) > MOST)
        {
            throw std::invalid_argument("--" + option + " lists more than " +
                                        std::to_string(MOST) + " ids");
        }
        for (uint64_t id = first; id <= last; ++id)
        {
            ids.push_back(static_cast<uint32_t>(id));
        }
    }
    return ids;
}

} // namespace ns3
