/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The source folders are the architecture (doc/allreduce.rst, "How the code is organized"):
// each folder may include its own headers and those of the folders before it, never one after
// it; the leaves of the model (learning, cluster, msccl, packet, rdma) share a place and do not
// include each other. Every header is installed flat (ns3/NAME.h), so names are unique.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace
{

namespace fs = std::filesystem;

/// Each source folder and its place in the dependency order; folders of one place are siblings.
const std::map<std::string, int> FOLDER_ORDER = {
    {"model/common", 0},
    {"model/topology", 1},
    {"model/workload", 2},
    {"model/flow", 3},
    {"model/schedule", 4},
    {"model/schedulers", 5},
    {"model/learning", 6},
    {"model/cluster", 6},
    {"model/msccl", 6},
    {"model/packet", 6},
    {"model/rdma", 6},
    {"helper", 7},
    {"experiment/io", 8},
    {"experiment/runs", 9},
    {"experiment/tables", 10},
};

/// \return whether a file name is a header's
bool
IsHeader(const std::string& name)
{
    return name.size() > 2 && name.compare(name.size() - 2, 2, ".h") == 0;
}

/// A source file: its folder (relative to the repository) and its text.
struct SourceFile
{
    std::string folder; //!< e.g. "model/topology"
    std::string name;   //!< e.g. "flow-tree.cc"
    std::string text;   //!< its contents
};

/**
 * Every include that runs against FOLDER_ORDER, one line each ("model/topology/flow-tree.h:
 * includes round-engine.h of model/flow, which comes later"). An include is the module's or the
 * experiment layer's when its file name (with or without "ns3/") is a header among the files.
 */
std::vector<std::string>
LayoutViolations(const std::vector<SourceFile>& files)
{
    std::map<std::string, std::string> folderOf; // header name -> folder
    for (const auto& f : files)
    {
        if (IsHeader(f.name))
        {
            folderOf[f.name] = f.folder;
        }
    }
    const std::regex include(R"re(^\s*#\s*include\s*[<"](?:ns3/)?([^">/]+\.h)[">])re");
    std::vector<std::string> out;
    for (const auto& f : files)
    {
        std::istringstream lines(f.text);
        std::string line;
        for (int n = 1; std::getline(lines, line); ++n)
        {
            std::smatch m;
            if (!std::regex_search(line, m, include))
            {
                continue;
            }
            const auto target = folderOf.find(m[1].str());
            if (target == folderOf.end() || target->second == f.folder)
            {
                continue;
            }
            const int from = FOLDER_ORDER.at(f.folder);
            const int to = FOLDER_ORDER.at(target->second);
            if (to >= from)
            {
                out.push_back(f.folder + "/" + f.name + ":" + std::to_string(n) + ": includes " +
                              m[1].str() + " of " + target->second +
                              (to == from ? ", a sibling it must not use"
                                          : ", which comes later in the folder order"));
            }
        }
    }
    return out;
}

/// The module's and the experiment layer's sources, read from the repository.
std::vector<SourceFile>
ReadSources()
{
    std::vector<SourceFile> files;
    const fs::path root(ALLREDUCE_SOURCE_DIR);
    for (const char* top : {"model", "helper", "experiment"})
    {
        for (const auto& entry : fs::recursive_directory_iterator(root / top))
        {
            const std::string ext = entry.path().extension().string();
            if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc"))
            {
                continue;
            }
            std::ifstream is(entry.path());
            std::stringstream text;
            text << is.rdbuf();
            files.push_back({entry.path().parent_path().lexically_relative(root).generic_string(),
                             entry.path().filename().string(),
                             text.str()});
        }
    }
    return files;
}

} // namespace

TEST(SourceLayout, EveryFolderHasItsPlaceInTheOrder)
{
    const auto files = ReadSources();
    ASSERT_GT(files.size(), 100u);
    for (const auto& f : files)
    {
        EXPECT_TRUE(FOLDER_ORDER.count(f.folder))
            << f.folder << "/" << f.name << ": the folder " << f.folder
            << " has no place in FOLDER_ORDER (test/layout-test.cc) and the manual's layout";
    }
}

TEST(SourceLayout, NoIncludeRunsAgainstTheFolderOrder)
{
    std::vector<SourceFile> files;
    for (auto& f : ReadSources())
    {
        if (FOLDER_ORDER.count(f.folder))
        {
            files.push_back(std::move(f));
        }
    }
    const auto violations = LayoutViolations(files);
    std::string all;
    for (const auto& v : violations)
    {
        all += "\n  " + v;
    }
    EXPECT_TRUE(violations.empty()) << violations.size() << " includes against the order:" << all;
}

TEST(SourceLayout, TheCheckFindsUpwardAndSiblingIncludes)
{
    const std::vector<SourceFile> files = {
        {"model/topology", "topology.h", "#include <cstdint>\n"},
        {"model/topology", "flow-tree.h", "#include \"topology.h\"\n#include \"ns3/round-engine.h\"\n"},
        {"model/flow", "round-engine.h", "#include \"ns3/topology.h\"\n"},
        {"model/cluster", "cluster-engine.cc", "#include \"ns3/allreduce-application.h\"\n"},
        {"model/packet", "allreduce-application.h", "#include \"ns3/round-engine.h\"\n"},
        {"helper", "allreduce-helper.cc", "#include \"report-format.h\"\n"},
        {"experiment/io", "report-format.h", "#include \"ns3/allreduce-application.h\"\n"},
    };
    const std::vector<std::string> expected = {
        "model/topology/flow-tree.h:2: includes round-engine.h of model/flow, which comes later "
        "in the folder order",
        "model/cluster/cluster-engine.cc:1: includes allreduce-application.h of model/packet, a "
        "sibling it must not use",
        "helper/allreduce-helper.cc:1: includes report-format.h of experiment/io, which comes "
        "later in the folder order",
    };
    EXPECT_EQ(LayoutViolations(files), expected);
}

TEST(SourceLayout, HeaderNamesAreUnique)
{
    std::map<std::string, std::string> seen;
    for (const auto& f : ReadSources())
    {
        if (IsHeader(f.name))
        {
            const auto [it, inserted] = seen.emplace(f.name, f.folder);
            EXPECT_TRUE(inserted) << f.name << " is in both " << it->second << " and " << f.folder
                                  << ": headers are installed flat as ns3/NAME.h";
        }
    }
}
