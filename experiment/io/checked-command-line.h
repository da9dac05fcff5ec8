/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_CHECKED_COMMAND_LINE_H
#define NS3_ALLREDUCE_CHECKED_COMMAND_LINE_H

#include "ns3/checked-arguments.h"
#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/object-base.h"
#include "ns3/nstime.h"
#include "ns3/queue-size.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * The topology spec strings, for a program's description (doc/allreduce.rst, "Spec strings").
 */
inline const std::string TOPOLOGY_SPECS_HELP =
    "Specs: bcube:n=N,k=K  dcell:n=N,k=K  jellyfish:switches=S,degree=R[,servers=H][,seed=X]  "
    "fattree:k=K  random:switches=S[,links=L][,servers=H][,seed=X]  file:PATH";

/**
 * \ingroup allreduce-experiment
 * The command line of the module's programs: ns-3's CommandLine (usage, --help, --ns3::...
 * attributes) with every value parsed and range-checked by us before anything uses it.
 *
 * Each option reaches us as the text the user typed, spaces included (ns-3 would cut a
 * string at the first space and read "1.5" into an integer as 1). Parse() refuses unknown
 * options, positional arguments and values that do not parse or are out of range, each with a
 * std::invalid_argument that names the option, quotes the value and says what is accepted.
 */
class CheckedCommandLine
{
  public:
    /**
     * \param program the program's name (for --help)
     * \param usage what it does (for --help)
     */
    CheckedCommandLine(const std::string& program, const std::string& usage);

    /// A text option, kept as typed, not empty. \param name option \param help text \param value where
    void AddString(const std::string& name, const std::string& help, std::string& value);
    /**
     * A text option that may be given more than once (every other option given twice is
     * refused): each value is appended, in the order given.
     * \param name option \param help text \param values where
     */
    void AddRepeated(const std::string& name,
                     const std::string& help,
                     std::vector<std::string>& values);
    /**
     * A text option that must be one of a list.
     * \param name option \param help text \param value where \param choices the accepted values
     */
    void AddChoice(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   const std::vector<std::string>& choices);
    /**
     * A flag: --name, --name=true/false/1/0.
     * \param name option \param help text \param value where
     */
    void AddFlag(const std::string& name, const std::string& help, bool& value);
    /**
     * A whole number in [min, max] (no sign for unsigned, no fraction, no exponent).
     * \param name option \param help text \param value where \param min least \param max most
     */
    void AddInteger(const std::string& name,
                    const std::string& help,
                    uint32_t& value,
                    uint32_t min,
                    uint32_t max);
    /// \copydoc AddInteger
    void AddInteger(const std::string& name,
                    const std::string& help,
                    uint64_t& value,
                    uint64_t min,
                    uint64_t max);
    /// \copydoc AddInteger
    void AddInteger(const std::string& name,
                    const std::string& help,
                    int64_t& value,
                    int64_t min,
                    int64_t max);
    /**
     * A finite real number in [min, max].
     * \param name option \param help text \param value where \param min least \param max most
     */
    void AddReal(const std::string& name,
                 const std::string& help,
                 double& value,
                 double min,
                 double max);
    /**
     * A time such as 1us, 100ms or 2s (units ns, us, ms, s, min; no unit: seconds) in
     * [min, max].
     * \param name option \param help text \param value where \param min least \param max most
     */
    void AddTime(const std::string& name,
                 const std::string& help,
                 Time& value,
                 Time min,
                 Time max);
    /**
     * A size in bytes such as 4194304, 4MB or 4MiB, in [min, max].
     * \param name option \param help text \param value where \param min least \param max most
     */
    void AddBytes(const std::string& name,
                  const std::string& help,
                  uint64_t& value,
                  uint64_t min,
                  uint64_t max);
    /**
     * A link rate such as 10Gbps, 100Mbps or 1.6Tbps, above zero (Quantity::ParseRate).
     * \param name option \param help text \param value where
     */
    void AddDataRate(const std::string& name, const std::string& help, DataRate& value);
    /**
     * A queue's limit: packets such as 1000p, or bytes such as 4MB (ParseQueueSize).
     * \param name option \param help text \param value where (none: not given)
     */
    void AddQueueSize(const std::string& name,
                      const std::string& help,
                      std::optional<QueueSize>& value);

    /**
     * Parses the arguments (ns-3's --help and --ns3:: attribute options included).
     * \param argc from main \param argv from main
     * \throws std::invalid_argument for an unknown option, a positional argument, or a value
     *         that does not parse or is out of range
     */
    void Parse(int argc, char* argv[]);
    /**
     * Lets the program run under mpirun on several ranks (allreduce-packet: a distributed run);
     * without it, Parse refuses such a launch, so that N copies of a one-process program do
     * not run side by side.
     */
    void AcceptDistributedLaunch();

    /// \param name an option \return true when the user gave it
    bool IsGiven(const std::string& name) const;

    /**
     * Refuses options that would be ignored beside another one (call after Parse).
     * \param option the option that makes them pointless, e.g. "schedule-in"
     * \param ignored the options it makes pointless
     * \param why why, e.g. "the file holds the schedule"
     * \throws std::invalid_argument "--X has no effect with --OPTION (WHY); give one or the
     *         other" when option and one of them were both given
     */
    void RefuseWith(const std::string& option,
                    const std::vector<std::string>& ignored,
                    const std::string& why) const;

    /**
     * Refuses options that only act through another one that is not in effect (call after
     * Parse, when it is not: not given, or given as nothing, e.g. a load of 0).
     * \param option the option they act through, e.g. "background-load"
     * \param needing the options that need it
     * \throws std::invalid_argument "--X has no effect without --OPTION; give --OPTION too, or
     *         leave --X out" when one of them was given
     */
    void RefuseWithout(const std::string& option, const std::vector<std::string>& needing) const;

    /**
     * Refuses --ns3::TYPE::ATTRIBUTE options whose attribute the program sets itself, which
     * would be overridden without a word (call after Parse).
     * \param overridden pairs (attribute, what to give instead), e.g.
     *        {"ns3::PointToPointChannel::Delay", "--delay"}
     * \throws std::invalid_argument "--ns3::X has no effect: this program sets it; give Y"
     */
    void RefuseAttributes(
        const std::vector<std::pair<std::string, std::string>>& overridden) const;

    /**
     * Refuses output files that cannot be written, before any work rather than after it (call
     * after Parse): a directory, or a place where no file can be made (tried with a probe file
     * beside it, removed at once).
     * \param outputs options naming files written
     * \throws std::invalid_argument naming the option, the file and the system's reason
     */
    void CheckWritable(const std::vector<std::string>& outputs) const;

    /**
     * Refuses an output file that is one of the run's input files, which writing would destroy
     * before (or while) it is read (call after Parse).
     * \param inputs options naming files read (a topology spec "file:PATH" counts as PATH)
     * \param outputs options naming files written
     * \throws std::invalid_argument "--OUT names the same file as --IN ('PATH'), which this run
     *         reads; write to another file" when an output and an input are one existing file
     */
    void RefuseSameFile(const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) const;

    /**
     * Gives the options the user gave to an object's attributes (call after Parse): each
     * option's text as typed, already checked, converted by its attribute.
     * \param object the object, or nullptr when the options do not apply to what runs
     * \param attributes pairs (option, attribute name), e.g. {"samples", "Samples"}
     * \param owner what the options belong to, for the error, e.g. "--scheduler=drl"
     * \throws std::invalid_argument "--model and --samples are options of --scheduler=drl"
     *         when object is nullptr and one of them was given
     */
    void SetAttributes(ObjectBase* object,
                       const std::vector<std::pair<std::string, std::string>>& attributes,
                       const std::string& owner) const;

  private:
    /// One option: its name and how its text becomes its value.
    struct Option
    {
        std::string name;                                //!< without the dashes
        std::function<void(const std::string&)> convert; //!< throws for a bad value
        std::string text;                                //!< as typed (the last time)
        std::vector<std::string> texts;                  //!< every time it was given
        bool given{false};                               //!< seen on the command line
        bool repeatable{false};                          //!< may be given more than once
    };

    /// Registers an option with ns-3's CommandLine and our converter.
    void Add(const std::string& name,
             const std::string& help,
             const std::string& shown,
             std::function<void(const std::string&)> convert);

    CommandLine m_cmd;             //!< ns-3's parser
    std::string m_program;         //!< the program's name
    bool m_distributedLaunch{false}; //!< AcceptDistributedLaunch
    std::vector<std::string> m_attributesGiven; //!< every --ns3::TYPE::ATTRIBUTE given
    std::vector<Option> m_options; //!< every option, in order
};

/**
 * \ingroup allreduce-experiment
 * \param option the option's name, for errors \param text e.g. "16MB", "64KiB", "1000"
 * \return the bytes
 * \throws std::invalid_argument naming the option when text is not a size
 */
uint64_t ParseByteSize(const std::string& option, const std::string& text);

/**
 * \ingroup allreduce-experiment
 * \param option the option's name, for errors \param text e.g. "1us", "2.5ms", "3"
 * \return the time
 * \throws std::invalid_argument naming the option when text is not a time
 */
Time ParseTimeValue(const std::string& option, const std::string& text);

/**
 * \ingroup allreduce-experiment
 * Splits an option's list ("ps,ring" or "bcube:n=3,k=1;dcell:n=4,k=1") at sep, spaces around
 * the items dropped.
 * \param option the option's name, for errors \param text its value \param sep the separator
 * \param repeats whether an item may be given twice (a list of values, e.g. times); a list of
 *        things to run is not: "ring,ring" would run ring twice
 * \return the items, at least one
 * \throws std::invalid_argument for an empty list, an empty item ("ps,,ring", ",") or, unless
 *         repeats, an item given twice
 */
std::vector<std::string> ParseListValue(const std::string& option,
                                        const std::string& text,
                                        char sep,
                                        bool repeats = false);

/**
 * \ingroup allreduce-experiment
 * \param option the option's name, for errors
 * \param text ids and ranges separated by commas, e.g. "0,1,2,3" or "4-11,0"
 * \return the ids in the order given (ranges ascending), at most 1<<24 of them
 * \throws std::invalid_argument naming the option and the item that is not an id or a range
 */
std::vector<uint32_t> ParseIdListValue(const std::string& option, const std::string& text);

/**
 * \ingroup allreduce-experiment
 * ParseIdListValue for a list that gives one server per rank: no server twice.
 * \param option the option's name, for errors \param text e.g. "0,4,8,12" or "0-7"
 * \return the ids in the order given
 * \throws std::invalid_argument naming the option and the id given twice
 */
std::vector<uint32_t> ParseRanksValue(const std::string& option, const std::string& text);

} // namespace ns3

#endif /* NS3_ALLREDUCE_CHECKED_COMMAND_LINE_H */
