/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "table-experiment.h"

#include "ns3/progress-reporter.h"
#include "report-format.h"

namespace ns3
{

bool
IsSeededSpec(const std::string& spec)
{
    return spec.rfind("jellyfish", 0) == 0;
}

uint32_t
SeedsOf(const std::string& spec, uint32_t seeds)
{
    return IsSeededSpec(spec) ? seeds : 1;
}

std::string
WithSeed(const std::string& spec, uint32_t seed)
{
    return IsSeededSpec(spec) ? spec.substr(0, spec.rfind("seed=")) + "seed=" + std::to_string(seed)
                              : spec;
}

std::string
NameOverSeeds(const std::string& name, uint32_t seeds)
{
    return seeds > 1 ? name.substr(0, name.rfind("seed=")) + "seed=1.." + std::to_string(seeds) +
                           ")"
                     : name;
}

void
TableExperiment::RunAndWrite(const std::string& program,
                             const std::string& prefix,
                             std::ostream& out,
                             std::ostream& err)
{
    CheckOutputPrefix(prefix, "out"); // before the runs, not after them
    ProgressReporter progress(err, program, GetNSteps());
    Run(&progress);
    Print(out);
    WriteOutputFile(prefix + ".csv", "out", [this](std::ostream& os) { WriteCsv(os); });
    WriteOutputFile(prefix + ".json", "out", [this](std::ostream& os) { WriteJson(os); });
    const std::string figure = WriteFigure(prefix); // before the line that names it
    out << "\nwrote " << prefix << ".csv\nwrote " << prefix << ".json\nfigure: " << figure
        << "\n";
}

} // namespace ns3
