/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "text-file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ns3
{

std::string
ReadTextFile(const std::string& path, const std::string& what, uint64_t maxBytes)
{
    const std::string name = what + " '" + Abbreviate(path, 200) + "'";
    struct stat info
    {
    };
    if (stat(path.c_str(), &info) != 0)
    {
        throw std::invalid_argument("cannot open " + name + ": " + std::strerror(errno));
    }
    if (S_ISDIR(info.st_mode))
    {
        throw std::invalid_argument(name + " is a directory; give the path of a file");
    }
    if (S_ISREG(info.st_mode) && static_cast<uint64_t>(info.st_size) > maxBytes)
    {
        throw std::invalid_argument(name + " has " + std::to_string(info.st_size) +
                                    " bytes, more than the " + std::to_string(maxBytes) +
                                    " this reader accepts");
    }
    std::ifstream is(path, std::ios::binary);
    if (!is)
    {
        throw std::invalid_argument("cannot open " + name + ": " + std::strerror(errno));
    }
    std::string text;
    // Read in blocks, so that a pipe or device cannot grow the text past maxBytes either.
    char block[1 << 16];
    while (is.read(block, sizeof(block)) || is.gcount() > 0)
    {
        text.append(block, static_cast<size_t>(is.gcount()));
        if (text.size() > maxBytes)
        {
            throw std::invalid_argument(name + " has more than the " + std::to_string(maxBytes) +
                                        " bytes this reader accepts");
        }
    }
    if (is.bad())
    {
        throw std::invalid_argument("error reading " + name + ": " + std::strerror(errno));
    }
    StripByteOrderMark(text);
    return text;
}

void
StripByteOrderMark(std::string& text)
{
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
    {
        text.erase(0, 3);
    }
}

std::string
LineContent(std::string line, uint64_t lineNo)
{
    if (lineNo == 1)
    {
        StripByteOrderMark(line);
    }
    if (!line.empty() && line.back() == '\r')
    {
        line.pop_back();
    }
    const auto hash = line.find('#');
    if (hash != std::string::npos)
    {
        line.erase(hash);
    }
    return line;
}

std::string
Abbreviate(const std::string& text, size_t most)
{
    std::string shown;
    for (size_t i = 0; i < text.size() && i < most; ++i)
    {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f)
        {
            static const char HEX[] = "0123456789abcdef";
            shown += std::string("\\x") + HEX[c >> 4] + HEX[c & 15];
        }
        else
        {
            shown += text[i];
        }
    }
    if (text.size() <= most)
    {
        return shown;
    }
    return shown + "... (" + std::to_string(text.size()) + " characters)";
}

bool
HasControlCharacter(const std::string& text)
{
    return std::any_of(text.begin(), text.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c < 0x20 || c == 0x7f;
    });
}

std::string
ProbeWritable(const std::string& path)
{
    const std::string probe = path + ".write-check-" + std::to_string(getpid());
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
    {
        return std::strerror(errno);
    }
    close(fd);
    unlink(probe.c_str());
    return "";
}

void
WriteTextFile(const std::string& path,
              const std::string& what,
              const std::function<void(std::ostream&)>& write)
{
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    {
        // A device or a pipe (/dev/stdout, a FIFO) is written in place: a rename would replace
        // it with a regular file.
        std::ofstream os(path);
        if (os)
        {
            write(os);
            os.flush();
        }
        if (!os)
        {
            throw std::invalid_argument("cannot write " + what + " '" + Abbreviate(path) + "': " +
                                        (S_ISDIR(st.st_mode) ? std::string("it is a directory")
                                                             : std::strerror(errno)));
        }
        return;
    }
    const std::string part = path + ".part-" + std::to_string(getpid());
    const auto fail = [&](const std::string& why) {
        std::remove(part.c_str());
        throw std::invalid_argument("cannot write " + what + " '" + Abbreviate(path) + "': " +
                                    why);
    };
    {
        std::ofstream os(part);
        if (!os)
        {
            fail(std::string(std::strerror(errno)) +
                 " (check that its directory exists and is writable)");
        }
        try
        {
            write(os);
        }
        catch (...)
        {
            os.close();
            std::remove(part.c_str());
            throw;
        }
        os.flush();
        if (!os)
        {
            fail("the write failed (" + std::string(std::strerror(errno)) + ")");
        }
    }
    if (std::rename(part.c_str(), path.c_str()) != 0)
    {
        fail(std::strerror(errno));
    }
}

bool
IsSameFile(const std::string& a, const std::string& b)
{
    struct stat sa;
    struct stat sb;
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

bool
ParseDecimal(const std::string& text, double& value)
{
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())))
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    // strtod also reads "inf", "nan" and hexadecimal; a plain number starts with a digit, a
    // sign or a point, and has no x.
    const char first = text.front();
    const bool plain = (std::isdigit(static_cast<unsigned char>(first)) || first == '-' ||
                        first == '+' || first == '.') &&
                       text.find_first_of("xXnN") == std::string::npos;
    return plain && end == text.c_str() + text.size() && errno != ERANGE && std::isfinite(value);
}

std::string
Trim(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos)
    {
        return "";
    }
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool
ParseWholeNumber(const std::string& text, uint64_t max, uint64_t& value)
{
    if (text.empty() || text.size() > 20)
    {
        return false;
    }
    value = 0;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        const auto digit = static_cast<uint64_t>(c - '0');
        if (value > (max - digit) / 10)
        {
            return false;
        }
        value = value * 10 + digit;
    }
    return true;
}

} // namespace ns3
