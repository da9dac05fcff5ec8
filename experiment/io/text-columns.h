/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_TEXT_COLUMNS_H
#define NS3_ALLREDUCE_TEXT_COLUMNS_H

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup allreduce-experiment
 * A table of text cells that prints itself for a person (columns aligned to their widest
 * cell) or as CSV (RFC 4180: a cell with a comma, quote or line break is quoted).
 */
class TextColumns
{
  public:
    /// How a column's cells line up when printed for a person.
    enum Align
    {
        LEFT,
        RIGHT
    };

    /**
     * \param header the column's header
     * \param align LEFT for names, RIGHT for numbers
     */
    void AddColumn(const std::string& header, Align align = RIGHT);

    /**
     * \param cells one cell per column
     * \throws std::invalid_argument when the count differs from the columns'
     */
    void AddRow(std::vector<std::string> cells);

    /**
     * Prints the table for a person: a header line and one line per row, columns separated
     * by at least two spaces.
     * \param os where to print
     */
    void Print(std::ostream& os) const;

    /**
     * Writes the table as CSV, the header line first.
     * \param os where to write
     */
    void WriteCsv(std::ostream& os) const;

  private:
    /// \return the cell quoted as CSV needs it
    static std::string CsvCell(const std::string& cell);

    std::vector<std::string> m_headers;          //!< column headers
    std::vector<Align> m_align;                  //!< column alignment
    std::vector<std::vector<std::string>> m_rows; //!< the cells
};

} // namespace ns3

#endif /* NS3_ALLREDUCE_TEXT_COLUMNS_H */
