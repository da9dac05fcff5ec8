/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "text-columns.h"

#include <algorithm>
#include <stdexcept>

namespace ns3
{

namespace
{

/// \return the characters a terminal shows for a UTF-8 string (continuation bytes not counted)
size_t
DisplayWidth(const std::string& s)
{
    return static_cast<size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

} // namespace

void
TextColumns::AddColumn(const std::string& header, Align align)
{
    if (!m_rows.empty())
    {
        throw std::logic_error("TextColumns: add every column before the first row");
    }
    m_headers.push_back(header);
    m_align.push_back(align);
}

void
TextColumns::AddRow(std::vector<std::string> cells)
{
    if (cells.size() != m_headers.size())
    {
        throw std::invalid_argument("TextColumns: a row of " + std::to_string(cells.size()) +
                                    " cells in a table of " + std::to_string(m_headers.size()) +
                                    " columns");
    }
    m_rows.push_back(std::move(cells));
}

void
TextColumns::Print(std::ostream& os) const
{
    std::vector<size_t> width(m_headers.size());
    for (size_t c = 0; c < m_headers.size(); ++c)
    {
        width[c] = DisplayWidth(m_headers[c]);
        for (const auto& row : m_rows)
        {
            width[c] = std::max(width[c], DisplayWidth(row[c]));
        }
    }
    const auto printLine = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (size_t c = 0; c < cells.size(); ++c)
        {
            const std::string pad(width[c] - DisplayWidth(cells[c]), ' ');
            line += (c ? "  " : "") + (m_align[c] == LEFT ? cells[c] + pad : pad + cells[c]);
        }
        line.erase(line.find_last_not_of(' ') + 1);
        os << line << "\n";
    };
    printLine(m_headers);
    for (const auto& row : m_rows)
    {
        printLine(row);
    }
}

void
TextColumns::WriteCsv(std::ostream& os) const
{
    const auto writeLine = [&os](const std::vector<std::string>& cells) {
        for (size_t c = 0; c < cells.size(); ++c)
        {
            os << (c ? "," : "") << CsvCell(cells[c]);
        }
        os << "\n";
    };
    writeLine(m_headers);
    for (const auto& row : m_rows)
    {
        writeLine(row);
    }
}

std::string
TextColumns::CsvCell(const std::string& cell)
{
    if (cell.find_first_of(",\"\r\n") == std::string::npos)
    {
        return cell;
    }
    std::string quoted = "\"";
    for (char c : cell)
    {
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return quoted + "\"";
}

} // namespace ns3
