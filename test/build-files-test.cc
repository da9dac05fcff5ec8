/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// The CMake lists and the wscript (for waf-based ns-3) must name the same files.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace
{

std::string
Slurp(const std::string& relative)
{
    const std::string path = std::string(ALLREDUCE_SOURCE_DIR) + "/" + relative;
    std::ifstream is(path);
    EXPECT_TRUE(is.good()) << "cannot read " << path;
    std::stringstream ss;
    ss << is.rdbuf();
    return ss.str();
}

/// The words of CMake's `set(NAME word word ...)`.
std::set<std::string>
CMakeList(const std::string& text, const std::string& name)
{
    const std::regex block("set\\(" + name + "\\s+([^)]*)\\)");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, block)) << "no set(" << name << " ...) in CMake";
    std::set<std::string> words;
    std::istringstream ss(m.size() > 1 ? m[1].str() : "");
    for (std::string w; ss >> w;)
    {
        words.insert(w);
    }
    return words;
}

/// The quoted strings of `<prefix> [ '...', ... ]` in a wscript.
std::set<std::string>
WafList(const std::string& text, const std::string& prefix)
{
    const std::regex block(prefix + "\\s*=?\\s*\\[([^\\]]*)\\]");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, block)) << "no '" << prefix << "' list in wscript";
    std::set<std::string> words;
    const std::string body = m.size() > 1 ? m[1].str() : "";
    const std::regex quoted("'([^']*)'|\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), quoted);
         it != std::sregex_iterator();
         ++it)
    {
        words.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
    return words;
}

} // namespace

TEST(BuildFiles, WscriptAndCMakeListTheSameModuleSources)
{
    const std::string cmake = Slurp("CMakeLists.txt");
    const std::string waf = Slurp("wscript");
    EXPECT_EQ(WafList(waf, "module.source"), CMakeList(cmake, "ALLREDUCE_SOURCES"));
    EXPECT_EQ(WafList(waf, "headers.source"), CMakeList(cmake, "ALLREDUCE_HEADERS"));
    EXPECT_EQ(WafList(waf, "module_test.source"), CMakeList(cmake, "ALLREDUCE_TEST_SOURCES"));
    EXPECT_EQ(WafList(waf, "experiment.source"),
              CMakeList(cmake, "ALLREDUCE_EXPERIMENT_SOURCES"));
    EXPECT_EQ(WafList(waf, "EXPERIMENT_DIRS"), CMakeList(cmake, "ALLREDUCE_EXPERIMENT_DIRS"));
    // The ns-3 modules: ${lib<module>} in CMake's allreduce_ns3_libraries, a list in waf.
    std::set<std::string> cmakeModules;
    const std::regex lib("\\$\\{lib([a-z0-9-]+)\\}");
    const std::string macro = cmake.substr(cmake.find("macro(allreduce_ns3_libraries"));
    const std::string body = macro.substr(0, macro.find("endmacro"));
    for (auto it = std::sregex_iterator(body.begin(), body.end(), lib);
         it != std::sregex_iterator();
         ++it)
    {
        cmakeModules.insert((*it)[1].str());
    }
    // netanim is optional in CMake (ALLREDUCE_OPTIONAL_NS3_MODULES), a plain module in waf.
    const std::set<std::string> optional = CMakeList(cmake, "ALLREDUCE_OPTIONAL_NS3_MODULES");
    cmakeModules.insert(optional.begin(), optional.end());
    EXPECT_EQ(WafList(waf, "create_ns3_module\\('allreduce',"), cmakeModules);
}

TEST(BuildFiles, WscriptAndCMakeListTheSameExamples)
{
    const std::string cmake = Slurp("examples/CMakeLists.txt");
    const std::string waf = Slurp("examples/wscript");
    std::set<std::string> wafExamples;
    const std::regex program("create_ns3_program\\('([^']+)'");
    for (auto it = std::sregex_iterator(waf.begin(), waf.end(), program);
         it != std::sregex_iterator();
         ++it)
    {
        wafExamples.insert((*it)[1].str());
    }
    // ALLREDUCE_EXAMPLES starts with ${ALLREDUCE_API_EXAMPLES}: expand it.
    std::set<std::string> cmakeExamples = CMakeList(cmake, "ALLREDUCE_EXAMPLES");
    EXPECT_EQ(cmakeExamples.erase("${ALLREDUCE_API_EXAMPLES}"), 1U);
    const std::set<std::string> api = CMakeList(cmake, "ALLREDUCE_API_EXAMPLES");
    cmakeExamples.insert(api.begin(), api.end());
    EXPECT_EQ(wafExamples, cmakeExamples);
}

TEST(BuildFiles, EveryListedFileExists)
{
    const std::string cmake = Slurp("CMakeLists.txt");
    for (const char* list : {"ALLREDUCE_SOURCES",
                             "ALLREDUCE_HEADERS",
                             "ALLREDUCE_EXPERIMENT_SOURCES",
                             "ALLREDUCE_EXPERIMENT_HEADERS",
                             "ALLREDUCE_TEST_SOURCES"})
    {
        for (const auto& file : CMakeList(cmake, list))
        {
            std::ifstream is(std::string(ALLREDUCE_SOURCE_DIR) + "/" + file);
            EXPECT_TRUE(is.good()) << file << " is listed in " << list << " but does not exist";
        }
    }
}

// fuzz/CMakeLists.txt compiles a plain C++ core of its own (no ns-3): every module header its
// files include must be in it, or the fuzzing build (CI's last stage) fails.
TEST(BuildFiles, FuzzCoreHoldsEveryModuleHeaderItsFilesInclude)
{
    const std::string fuzz = Slurp("fuzz/CMakeLists.txt");
    std::set<std::string> names; // what the core copies to include/ns3/
    const std::set<std::string> core = CMakeList(fuzz, "core_sources");
    for (const auto& path : core)
    {
        names.insert(path.substr(path.rfind('/') + 1) + ".h");
    }
    const std::regex copied("configure_file\\(\\$\\{repo\\}/model/[a-z-]+/([a-z-]+\\.h)");
    for (auto it = std::sregex_iterator(fuzz.begin(), fuzz.end(), copied);
         it != std::sregex_iterator();
         ++it)
    {
        names.insert((*it)[1].str());
    }
    const std::regex include("#include \"ns3/([^\"]+)\"");
    for (const auto& path : core)
    {
        for (const char* suffix : {".h", ".cc"})
        {
            const std::string file = "model/" + path + suffix;
            const std::string text = Slurp(file);
            for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
                 it != std::sregex_iterator();
                 ++it)
            {
                EXPECT_TRUE(names.count((*it)[1].str()) == 1)
                    << file << " includes ns3/" << (*it)[1].str()
                    << ", which fuzz/CMakeLists.txt's core_sources does not compile";
            }
        }
    }
}
