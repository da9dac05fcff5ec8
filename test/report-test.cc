/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The report library the examples print and write with: tables as text and CSV, figures,
// statistics, progress lines, and the headline experiment's table.

#include "aggregation-table.h"
#include "bar-chart.h"
#include "checked-command-line.h"
#include "learning-curve-chart.h"
#include "packet-table.h"
#include "paper-topologies.h"
#include "ns3/progress-reporter.h"
#include "report-format.h"
#include "rounds-table.h"
#include "text-columns.h"

#include "ns3/allreduce-module.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>

using namespace ns3;

TEST(TextColumns, AlignsColumnsToTheirWidestCell)
{
    TextColumns t;
    t.AddColumn("topology", TextColumns::LEFT);
    t.AddColumn("rounds");
    t.AddRow({"bcube(3,1)", "11"});
    t.AddRow({"jellyfish(10,4,1,1..5)", "20.8±0.4"});
    std::ostringstream os;
    t.Print(os);
    // "±" is one character on a terminal though two bytes.
    EXPECT_EQ(os.str(),
              "topology                  rounds\n"
              "bcube(3,1)                    11\n"
              "jellyfish(10,4,1,1..5)  20.8±0.4\n");
    EXPECT_THROW(t.AddRow({"one cell"}), std::invalid_argument);
    EXPECT_THROW(t.AddColumn("late"), std::logic_error);
}

TEST(TextColumns, WritesCsvQuotedWhereNeeded)
{
    TextColumns t;
    t.AddColumn("topology");
    t.AddColumn("note");
    t.AddRow({"bcube(n=3,k=1)", "said \"hi\""});
    t.AddRow({"plain", ""});
    std::ostringstream os;
    t.WriteCsv(os);
    EXPECT_EQ(os.str(), "topology,note\n\"bcube(n=3,k=1)\",\"said \"\"hi\"\"\"\nplain,\n");
}

TEST(ReportFormat, StatisticsAndLabels)
{
    EXPECT_DOUBLE_EQ(Mean({1, 2, 3, 4}), 2.5);
    EXPECT_DOUBLE_EQ(Mean({}), 0);
    EXPECT_NEAR(StandardDeviation({20, 21, 21, 21, 21}), 0.4472, 1e-4);
    EXPECT_DOUBLE_EQ(StandardDeviation({5}), 0);
    EXPECT_NEAR(GeometricMean({1, 4}), 2, 1e-12);
    EXPECT_EQ(FormatMeanStd({11, 11}, 1), "11");
    EXPECT_EQ(FormatMeanStd({20, 21, 21, 21, 21}, 1), "20.8±0.4");
    EXPECT_EQ(ShortLabel("jellyfish(switches=10,degree=4,servers=1,seed=1..5)"),
              "jellyfish(10,4,1,1..5)");
    EXPECT_EQ(ShortLabel("file(two-switches)"), "file(two-switches)");
    EXPECT_EQ(ParseListValue("schedulers", " ps, ring ", ','),
              (std::vector<std::string>{"ps", "ring"}));
    EXPECT_THROW(ParseListValue("schedulers", "ps,,ring", ','), std::invalid_argument);
}

TEST(ReportFormat, OutputFilesGetTheirDirectoryOrAClearError)
{
    const auto dir = std::filesystem::temp_directory_path() / "allreduce-report-test" / "a";
    std::filesystem::remove_all(dir.parent_path());
    WriteOutputFile((dir / "x.csv").string(), "out", [](std::ostream& os) { os << "ok\n"; });
    EXPECT_TRUE(std::filesystem::exists(dir / "x.csv"));
    try
    {
        WriteOutputFile("/proc/no/such/x.csv", "out", [](std::ostream& os) { os << "x"; });
        ADD_FAILURE() << "an unwritable file was opened";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("cannot write the file of --out '/proc/no/such/x.csv'"),
                  std::string::npos)
            << e.what();
    }
    std::filesystem::remove_all(dir.parent_path());
}

TEST(ProgressReporter, ALongStepSaysItIsStillRunning)
{
    std::ostringstream os;
    {
        ProgressReporter progress(os, "allreduce-table", 2);
        progress.SetHeartbeat(0.05);
        progress.Begin("balanced on fattree(k=8)");
        std::this_thread::sleep_for(std::chrono::milliseconds(180));
    } // the thread ends with the reporter: read only then
    const std::string text = os.str();
    const size_t beats = std::count(text.begin(), text.end(), '\n') - 1;
    EXPECT_GE(beats, 2u) << text;
    EXPECT_LE(beats, 4u) << text;
    EXPECT_NE(text.find("allreduce-table: [1/2] balanced on fattree(k=8) still running, 0 s on "
                        "this step; 0 s elapsed\n"),
              std::string::npos)
        << text;
    std::ostringstream quiet;
    {
        ProgressReporter progress(quiet, "allreduce-table", 1);
        progress.SetHeartbeat(0);
        progress.Begin("ps on bcube(n=3,k=1)");
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
    }
    const std::string one = quiet.str();
    EXPECT_EQ(std::count(one.begin(), one.end(), '\n'), 1) << one;
}

TEST(ProgressReporter, SaysWhatRunsNOfMAndTheTimeLeft)
{
    std::ostringstream os;
    ProgressReporter progress(os, "allreduce-table", 3);
    progress.Begin("ps on bcube(n=3,k=1)");
    progress.Begin("ring on bcube(n=3,k=1)");
    const std::string text = os.str();
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "allreduce-table: [1/3] ps on bcube(n=3,k=1); 0 s elapsed");
    EXPECT_NE(text.find("allreduce-table: [2/3] ring on bcube(n=3,k=1); 0 s elapsed, about 0 s "
                        "left\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(ProgressReporter::FormatDuration(42.4), "42 s");
    EXPECT_EQ(ProgressReporter::FormatDuration(185), "3 min 5 s");
    EXPECT_EQ(ProgressReporter::FormatDuration(7800), "2 h 10 min");
}

TEST(BarChart, RefusesValuesThatDoNotFitAndWritesDataAndScript)
{
    BarChart chart("rounds / bound", {"bcube(3,1)", "dcell(4,1)"}, {"ps", "balanced"});
    EXPECT_THROW(chart.AddPanel("one series", {{1, 2}}), std::invalid_argument);
    EXPECT_THROW(chart.AddPanel("short", {{1}, {2}}), std::invalid_argument);
    chart.AddPanel("AllReduce", {{2, 2.79}, {1.38, 1.32}});
    chart.SetReferenceLine(1, "bound");
    const auto dir = std::filesystem::temp_directory_path() / "allreduce-bar-chart-test";
    std::filesystem::remove_all(dir);
    const std::string prefix = (dir / "chart").string();
    const std::string said = chart.Write(prefix);
    std::ifstream dat(prefix + ".dat");
    std::stringstream data;
    data << dat.rdbuf();
    EXPECT_EQ(data.str(),
              "# AllReduce: category \"ps\" \"balanced\"\n"
              "\"bcube(3,1)\" 2 1.38\n"
              "\"dcell(4,1)\" 2.79 1.32\n\n\n");
    std::ifstream plt(prefix + ".plt");
    std::stringstream script;
    script << plt.rdbuf();
    EXPECT_NE(script.str().find("using 2:xtic(1) title \"ps\", '' index 0 using 3 title "
                                "\"balanced\", 1 with lines"),
              std::string::npos)
        << script.str();
    // With gnuplot the figure exists; without, the sentence says where the data is.
    EXPECT_TRUE(said.rfind(prefix + ".png", 0) == 0 || said.rfind("no figure", 0) == 0) << said;
    std::filesystem::remove_all(dir);
}

TEST(PaperTable, OneRowPerPaperTopologyWithItsNumbers)
{
    ASSERT_EQ(GetPaperTopologies().size(), 9u);
    const PaperTopology* bcube = FindPaperTopology("bcube:n=3,k=1");
    ASSERT_NE(bcube, nullptr);
    EXPECT_EQ(bcube->GetSizeText(), "(15,18)");
    EXPECT_DOUBLE_EQ(bcube->ps, 16.8);
    EXPECT_DOUBLE_EQ(bcube->rl, 10.2);
}

TEST(RoundsTable, RunsTheHeadlineAndWritesWhatItPrints)
{
    RoundsTableConfig config;
    config.schedulers = {"ps", "balanced"};
    config.seeds = 2;
    RoundsTable table(config);
    EXPECT_EQ(table.GetNSteps(), 6u * 2 + 3u * 2 * 2);
    std::ostringstream progress;
    ProgressReporter reporter(progress, "test", table.GetNSteps());
    table.Run(&reporter);
    EXPECT_NE(progress.str().find("[24/24] balanced on jellyfish"), std::string::npos);
    ASSERT_EQ(table.GetRows().size(), 9u);
    EXPECT_TRUE(table.GetFailure().empty());
    const RoundsTableRow& bcube = table.GetRows().front();
    EXPECT_EQ(bcube.cells.at("balanced").rounds, std::vector<double>{11});
    EXPECT_EQ(bcube.cells.at("ps").rounds, std::vector<double>{16});
    EXPECT_EQ(table.GetRows().back().seeds, 2u);
    std::ostringstream text;
    table.Print(text);
    EXPECT_NE(text.str().find("bcube(3,1)"), std::string::npos);
    EXPECT_NE(text.str().find("16.8/18/10.2"), std::string::npos) << "the paper's numbers";
    std::ostringstream csv;
    table.WriteCsv(csv);
    EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
              "topology,nodes,links,servers,workloads,bound_bandwidth,ps_rounds_mean,ps_rounds_std,"
              "ps_ratio,balanced_rounds_mean,balanced_rounds_std,balanced_ratio,"
              "certified_lower_mean,best_known_mean,best_by,paper_ps,paper_ring,paper_rl");
    // BCube(3,1): the certified interval [8, 11], balanced's 11 the best of the two.
    EXPECT_NE(csv.str().find("\"bcube(n=3,k=1)\",15,18,9,144,8,16,0,2,11,0,1.375,8,11,balanced,"
                             "16.8,18,10.2"),
              std::string::npos)
        << csv.str();
    EXPECT_EQ(bcube.lower, std::vector<double>{8});
    EXPECT_EQ(bcube.best, std::vector<double>{11});
    EXPECT_EQ(bcube.bestBy, std::vector<std::string>{"balanced"});
    EXPECT_NE(text.str().find("certified interval per row"), std::string::npos);
    std::ostringstream json;
    table.WriteJson(json);
    EXPECT_NE(json.str().find("\"rounds_mean\": 11.0"), std::string::npos);
    EXPECT_NE(json.str().find("\"best_by\""), std::string::npos);
    EXPECT_NE(json.str().find("\"gap_to_lower\": 1.0"), std::string::npos) << "ps: 16 / 8 - 1";
    EXPECT_THROW(RoundsTable(RoundsTableConfig{{"no-such"}}), std::invalid_argument);
}

TEST(AggregationTable, ComparesAggregationWithServerOnlyMergeAndWritesWhatItPrints)
{
    AggregationTableConfig config;
    config.specs = {"jellyfish:switches=10,degree=4,servers=1,seed=1", "fattree:k=4"};
    config.seeds = 2;
    AggregationTable table(config);
    const std::vector<std::string> columns{"ps", "ring", "balanced", "ps ina=all",
                                           "balanced ina=all", "ps ina=0.5",
                                           "balanced ina=0.5"};
    EXPECT_EQ(table.GetColumns(), columns);
    EXPECT_EQ(table.GetNSteps(), (2u + 1u) * 7u);
    std::ostringstream progress;
    ProgressReporter reporter(progress, "test", table.GetNSteps());
    table.Run(&reporter);
    EXPECT_NE(progress.str().find("[21/21] balanced on fattree(k=4),ina=0.5"), std::string::npos)
        << progress.str();
    EXPECT_TRUE(table.GetFailure().empty()) << table.GetFailure();
    ASSERT_EQ(table.GetRows().size(), 2u);
    const AggregationTableRow& jellyfish = table.GetRows().front();
    EXPECT_EQ(jellyfish.seeds, 2u);
    EXPECT_EQ(jellyfish.rounds.at("balanced ina=all").size(), 2u);
    EXPECT_EQ(jellyfish.rounds.at("balanced ina=all").front(), 19); // the manual's table
    EXPECT_EQ(jellyfish.bound.front(), 18);                         // 2*10*9 / 10 ports
    EXPECT_EQ(jellyfish.inaBound.front(), 10);                      // 10*10 / 10
    const AggregationTableRow& fattree = table.GetRows().back();
    EXPECT_EQ(fattree.name, "fattree(k=4)");
    EXPECT_EQ(fattree.bound, std::vector<double>{30});    // 2*16*15 / 16 ports
    EXPECT_EQ(fattree.inaBound, std::vector<double>{16}); // 16*16 / 16
    // The fat-tree's shortest-path trees spread the way up (FlowTree::Ties::SPREAD): ps
    // reaches the bound (96 rounds when every tie went to the lowest id).
    EXPECT_EQ(fattree.rounds.at("ps"), std::vector<double>{30});
    EXPECT_EQ(fattree.rounds.at("ring"), std::vector<double>{30});
    EXPECT_EQ(table.GetBest(fattree, false), std::vector<double>{30}); // ring
    for (const auto& row : table.GetRows())
    {
        for (uint32_t s = 0; s < row.seeds; ++s)
        {
            EXPECT_GE(table.GetBest(row, false)[s], row.bound[s]);
            EXPECT_GE(table.GetBest(row, true)[s], row.inaBound[s]);
        }
    }
    std::ostringstream text;
    table.Print(text);
    EXPECT_NE(text.str().find("balanced ina=0.5"), std::string::npos);
    EXPECT_NE(text.str().find("every schedule validated: yes"), std::string::npos);
    std::ostringstream csv;
    table.WriteCsv(csv);
    EXPECT_EQ(csv.str().rfind("topology,servers,switches,bound,bound_ina,ps_rounds_mean,", 0),
              0u);
    EXPECT_NE(csv.str().find("balanced_ina=0.5_rounds_mean"), std::string::npos);
    std::ostringstream json;
    table.WriteJson(json);
    EXPECT_NE(json.str().find("\"bound_bandwidth_ina\": 16.0"), std::string::npos) << json.str();
}

TEST(AggregationTable, SharesAreAllOrAFraction)
{
    EXPECT_NO_THROW(CheckAggregationShares({"all", "0.25"}));
    EXPECT_NO_THROW(CheckAggregationShares({"1", "0.5"}));
    for (const char* bad : {"0", "1.5", "half", "", "-0.5"})
    {
        try
        {
            CheckAggregationShares({bad});
            ADD_FAILURE() << "'" << bad << "' accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_EQ(std::string(e.what()),
                      std::string("aggregation share '") + bad +
                          "' is neither 'all' nor a fraction in (0, 1] (e.g. 0.5)");
        }
    }
    // One share in two spellings would give two identical columns.
    for (const std::vector<std::string>& twice :
         {std::vector<std::string>{"all", "1"}, std::vector<std::string>{"0.5", ".50"}})
    {
        try
        {
            CheckAggregationShares(twice);
            ADD_FAILURE() << "'" << twice[0] << "' and '" << twice[1] << "' accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_NE(std::string(e.what()).find("are the same share of switches"),
                      std::string::npos)
                << e.what();
        }
    }
    AggregationTableConfig config;
    config.shares = {"all", "2"};
    EXPECT_THROW(AggregationTable{config}, std::invalid_argument);
}

TEST(PacketTable, RunsTheTopologiesAgainWithAggregationAndComparesTheFastest)
{
    PacketTableConfig config;
    config.schedulers = {"ps", "ring"};
    config.modes = {"barrier"};
    config.topologies = {"bcube:n=2,k=1"};
    config.shares = {"all"};
    config.run.gradientBytes = 8192;
    PacketTable table(config);
    EXPECT_EQ(table.GetNSteps(), 3u); // ps and ring; ps with every switch aggregating
    table.Run(nullptr);
    EXPECT_TRUE(table.GetFailure().empty()) << table.GetFailure();
    ASSERT_EQ(table.GetRows().size(), 3u);
    const PacketTableRow& aggregating = table.GetRows().back();
    EXPECT_EQ(aggregating.scheduler, "ps");
    EXPECT_EQ(aggregating.share, "all");
    EXPECT_EQ(aggregating.base, "bcube(n=2,k=1)");
    EXPECT_EQ(aggregating.topology, "bcube(n=2,k=1),ina=all");
    EXPECT_TRUE(aggregating.IsVerified());
    std::ostringstream text;
    table.Print(text);
    EXPECT_NE(text.str().find("Aggregation in the network"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("with aggregation: ps (ring is unchanged"), std::string::npos);
    EXPECT_FALSE(PacketTable::RunsWithAggregation("ring"));
    EXPECT_TRUE(PacketTable::RunsWithAggregation("balanced"));
    config.shares = {"none"};
    EXPECT_THROW(PacketTable{config}, std::invalid_argument);
}

TEST(LearningCurveChart, OneLinePerTopologyFamily)
{
    // Two BCubes and a DCell: two families; a family's point is the mean of its topologies'
    // decoded rounds over their bounds; rows without per-topology rounds are left out.
    LearningCurveChart chart({"bcube(n=3,k=1)", "dcell(n=4,k=1)", "bcube(n=4,k=1)"},
                             {8, 19, 15});
    EXPECT_EQ(chart.GetFamilies(), (std::vector<std::string>{"bcube", "dcell"}));
    chart.Add(0, {10, 25, 18});
    chart.Add(1, {});
    chart.Add(2, {9, 24, 16});
    const auto bcube = chart.GetCurve("bcube");
    ASSERT_EQ(bcube.size(), 2u);
    EXPECT_DOUBLE_EQ(bcube[0].first, 0);
    EXPECT_DOUBLE_EQ(bcube[0].second, (10.0 / 8 + 18.0 / 15) / 2);
    EXPECT_DOUBLE_EQ(bcube[1].first, 2);
    EXPECT_DOUBLE_EQ(chart.GetCurve("dcell")[1].second, 24.0 / 19);
    EXPECT_THROW(chart.Add(3, {1, 2}), std::invalid_argument);
    EXPECT_THROW(LearningCurveChart({"a"}, {0}), std::invalid_argument);
    EXPECT_EQ(TopologyFamily("jellyfish(switches=10,degree=4,servers=1,seed=1)"), "jellyfish");
    EXPECT_EQ(TopologyFamily("my-file"), "my-file");
    // The data file has one block per family, and the script names them.
    const std::string prefix = ::testing::TempDir() + "/learning-curve-test";
    chart.Write(prefix, "test");
    std::ifstream plt(prefix + ".plt");
    const std::string script((std::istreambuf_iterator<char>(plt)), {});
    EXPECT_NE(script.find("title \"bcube\""), std::string::npos) << script;
    EXPECT_NE(script.find("title \"dcell\""), std::string::npos) << script;
    EXPECT_TRUE(std::ifstream(prefix + ".dat").good());
}

TEST(ProgressReporter, QuietStepsPrintAtMostOneLinePerInterval)
{
    // Many quick steps with a quiet time: no line until the quiet time has passed, then
    // one, and the step count goes on counting every step.
    std::ostringstream os;
    {
        ProgressReporter progress(os, "allreduce-rounds", 100);
        progress.SetHeartbeat(0);
        progress.SetQuiet(0.1);
        for (int i = 0; i < 50; ++i)
        {
            progress.Begin("step " + std::to_string(i + 1));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        for (int i = 50; i < 60; ++i)
        {
            progress.Begin("step " + std::to_string(i + 1));
        }
    }
    const std::string text = os.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_NE(text.find("allreduce-rounds: [51/100] step 51; "), std::string::npos) << text;
}
