/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "table-experiment.h"

#include "progress-reporter.h"
#include "report-format.h"

namespace ns3
{

void
TableExperiment::RunAndWrite(const std::string& program,
                             const std::string& prefix,
                             std::ostream& out,
                             std::ostream& err)
{
    ProgressReporter progress(err, program, GetNSteps());
    Run(&progress);
    Print(out);
    std::ofstream csv = OpenOutputFile(prefix + ".csv", "out");
    WriteCsv(csv);
    std::ofstream json = OpenOutputFile(prefix + ".json", "out");
    WriteJson(json);
    out << "\nwrote " << prefix << ".csv\nwrote " << prefix << ".json\nfigure: "
        << WriteFigure(prefix) << "\n";
}

} // namespace ns3
