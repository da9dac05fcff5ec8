/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEXT_FILE_H
#define NS3_ALLREDUCE_TEXT_FILE_H

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup allreduce-common
 * Reads a whole text file the module takes as input (topology files, schedule files).
 * \param path the file
 * \param what what it is, for errors, e.g. "schedule file"
 * \param maxBytes the largest file accepted
 * \return its text, without a leading UTF-8 byte-order mark
 * \throws std::invalid_argument naming the file and what is wrong: missing or unreadable, a
 *         directory, larger than maxBytes, or a read error with the system's reason
 */
std::string ReadTextFile(const std::string& path, const std::string& what, uint64_t maxBytes);

/**
 * \ingroup allreduce-common
 * Tries whether a file can be made beside path, before a long run writes there: makes a file
 * of a name of its own (path + ".write-check-" + the process id) and removes it.
 * \param path a file's path (or a prefix of files' names)
 * \return "" when it could, else the system's reason (strerror)
 */
std::string ProbeWritable(const std::string& path);

/**
 * \ingroup allreduce-common
 * Writes a whole text file the module produces (schedule, topology, MSCCL files) atomically:
 * into a temporary file beside it, then renamed over it, so that a failed write leaves the old
 * file (or none) and never half of a new one.
 * \param path the file
 * \param what what it is, for errors, e.g. "schedule file"
 * \param write writes the text; may throw, and then nothing is written
 * \throws std::invalid_argument naming the file and the system's reason when it cannot be
 *         written; what write throws, after the temporary file is removed
 */
void WriteTextFile(const std::string& path,
                   const std::string& what,
                   const std::function<void(std::ostream&)>& write);

/**
 * \ingroup allreduce-common
 * \param a a path \param b another
 * \return true when both name one existing file (the same inode, however spelled)
 */
bool IsSameFile(const std::string& a, const std::string& b);

/**
 * \ingroup allreduce-common
 * Drops a leading UTF-8 byte-order mark (EF BB BF), which some editors write.
 * \param text the text
 */
void StripByteOrderMark(std::string& text);

/**
 * \ingroup allreduce-common
 * The part of a line of a text file that carries data, for the readers of line formats
 * (topology files, job traces).
 * \param line a line as read, without its newline
 * \param lineNo its number, from 1 (line 1 may start with a byte-order mark)
 * \return the line without a leading byte-order mark, a trailing carriage return (Windows line
 *         ends) and a '#' comment
 */
std::string LineContent(std::string line, uint64_t lineNo);

/**
 * \ingroup allreduce-common
 * \param text a value from the user
 * \param most the most characters to show
 * \return the value, cut to its first `most` characters with "... (N characters)" after it when
 *         longer, so that an error message never echoes megabytes; control characters (ESC,
 *         BEL, newlines ...) written as \xNN so that none reaches the terminal raw
 */
std::string Abbreviate(const std::string& text, size_t most = 60);

/**
 * \ingroup allreduce-common
 * \param text a name from a file (a topology's, a scheduler's, an algorithm's)
 * \return true when it holds a control character (ESC, BEL, a newline, a tab ...), which would
 *         act on the terminal when the name is printed in a report
 */
bool HasControlCharacter(const std::string& text);

/**
 * \ingroup allreduce-common
 * \param text a field as read
 * \return the text without blanks (spaces, tabs) at either end
 */
std::string Trim(const std::string& text);

/**
 * \ingroup allreduce-common
 * \param text a value from the user
 * \param[out] value the number, when it is one
 * \return true when text is a plain, finite decimal number (digits, one point, an exponent,
 *         a sign): not blank-led, "inf", "nan" or hexadecimal, as strtod would also read
 */
bool ParseDecimal(const std::string& text, double& value);

/**
 * \ingroup allreduce-common
 * \param text digits only, at most 20 (no sign, point or exponent)
 * \param max the largest value accepted
 * \param[out] value the number, when it is one
 * \return false when text is not a whole number or exceeds max
 */
bool ParseWholeNumber(const std::string& text, uint64_t max, uint64_t& value);

} // namespace ns3

#endif /* NS3_ALLREDUCE_TEXT_FILE_H */
