// The variables table (support/core/variables.h) against what the code
// reads: every name LoadConfig asks for is listed (recorded through
// ConfigInputs::names_read on environments that take each of its branches),
// every listed name is asked for, every variable-name literal in a file that
// reads through EnvReader and every getenv() of support/ and fixtures/ is
// listed (or documented by hand on the page), the listed defaults are the
// defaults, and docs/variables.md holds the generated tables.
#include "support/core/variables.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "support/core/config.h"
#include "fvbench/source_dir.h"

namespace fvbench::variables_test {
namespace {

namespace fs = std::filesystem;

const std::string kSource = FVBENCH_SOURCE_DIR;
const char kRegenerate[] =
    "rewrite the page with: build/apps/fvbench_fixture variables --markdown-page docs/variables.md";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> Listed() {
  std::set<std::string> names;
  for (const VariableDoc& v : Variables()) names.insert(v.name);
  return names;
}

ConfigInputs Inputs(EnvMap env, EnvNamesRead* read) {
  ConfigInputs in;
  in.env = std::move(env);
  in.source_dir = "/src";
  in.cpus = {0, 1};
  in.cores = 2;
  in.file_exists = [](const std::string&) { return true; };
  in.names_read = read;
  return in;
}

// Environments that together take every branch of LoadConfig that reads a
// variable: the defaults; A/B with both sides set, under a ctest TIMEOUT;
// remote mode with the seed search and wrk. Each must be accepted (a refused
// one stops reading at its error).
std::vector<EnvMap> Environments() {
  return {
      {},
      {{"FVBENCH_AB", "1"},
       {"FAIRVISOR_EDGE_SRC", "/edge"},
       {"FAIRVISOR_EDGE_REF", "main"},
       {"FAIRVISOR_EDGE_SRC_B", "/edge-b"},
       {"FAIRVISOR_EDGE_REF_B", "pr"},
       {"FVBENCH_POLICY_DIR_B", "/policies-b"},
       {"FV_DIR_B", "/opt/fairvisor-pr"},
       {"AB_RATE_FRACTION", "0.5"},
       {"AB_GATE", "1"},
       {"AB_GATE_METRICS", "fv_cpu_us_per_request,p99_us"},
       {"REPEAT", "3"},
       {"FVBENCH_SCENARIO_TIMEOUT_S", "1000000"},
       {"FAIRVISOR_WORKER_PROCESSES", "2"},
       {"FVBENCH_PROGRESS_S", "2"},
       {"ORESTY_CPUSET", "0"},
       {"K6_CPUSET", "1"}},
      {{"FVBENCH_MODE", "remote"},
       {"FAIRVISOR_REMOTE", "u@sut"},
       {"LOADGEN_REMOTE", "u@lg1,u@lg2"},
       {"LOADGEN_ENGINE", "wrk"},
       {"THROUGHPUT_SEARCH", "seed"},
       {"FVBENCH_EDGE_OPTIONAL", "1"}},
  };
}

std::set<std::string> NamesLoadConfigReads() {
  std::set<std::string> read;
  for (const EnvMap& env : Environments()) {
    auto c = LoadConfig(Inputs(env, &read));
    EXPECT_TRUE(c.ok()) << c.error().message;
  }
  return read;
}

TEST(Variables, EveryVariableLoadConfigReadsIsListed) {
  const std::set<std::string> listed = Listed();
  for (const std::string& name : NamesLoadConfigReads()) {
    EXPECT_TRUE(listed.count(name)) << "LoadConfig reads " << name
                                    << ", which support/core/variables.cc does not list: add its row to kVariables "
                                       "(name, group, default, unit, meaning, value in effect), then "
                                    << kRegenerate;
  }
}

TEST(Variables, EveryListedVariableIsRead) {
  const std::set<std::string> read = NamesLoadConfigReads();
  for (const std::string& name : Listed()) {
    EXPECT_TRUE(read.count(name)) << name << " is listed in support/core/variables.cc but LoadConfig never asks "
                                  << "for it (on the environments of this test): remove the row, or add an "
                                     "environment here that reaches where it is read";
  }
}

// Literal names that are not variables, in the files scanned below.
const std::set<std::string> kNotVariables = {"RPS", "HS256"};
// Variables read with getenv() outside Config: not the suite's knobs, so not
// in the table; docs/variables.md ("Other variables") names each.
const std::set<std::string> kReadOutsideConfig = {"FVBENCH_GTEST_XML_DIR", "HOME", "USER", "SSH_AUTH_SOCK"};

std::vector<fs::path> SourcesUnder(const std::string& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kSource + "/" + dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".cc" || ext == ".h")) out.push_back(e.path());
  }
  return out;
}

// A variable added to a reading file without a row fails here even on a
// branch the environments above do not take.
TEST(Variables, EveryNameInTheReadingSourcesIsListed) {
  const std::set<std::string> listed = Listed();
  const std::regex literal(R"re("([A-Z][A-Z0-9_]{2,})")re");
  int files = 0;
  for (const fs::path& p : SourcesUnder("support")) {
    const std::string text = ReadFile(p);
    if (text.find("EnvReader") == std::string::npos || p.filename() == "variables.cc") continue;
    ++files;
    for (std::sregex_iterator it(text.begin(), text.end(), literal), end; it != end; ++it) {
      const std::string name = (*it)[1];
      if (kNotVariables.count(name)) continue;
      EXPECT_TRUE(listed.count(name)) << p.string() << " names \"" << name
                                      << "\", which support/core/variables.cc does not list; " << kRegenerate;
    }
  }
  EXPECT_GE(files, 5) << "the files that read through EnvReader (config*.cc, validity_params.cc, ...) were not found "
                         "under " << kSource << "/support";
}

TEST(Variables, EveryGetenvIsListedOrDocumentedByHand) {
  const std::set<std::string> listed = Listed();
  const std::string page = ReadFile(kSource + "/docs/variables.md");
  const std::regex getenv_call(R"re(getenv\("([A-Za-z0-9_]+)"\))re");
  for (const char* dir : {"support", "fixtures"}) {
    for (const fs::path& p : SourcesUnder(dir)) {
      const std::string text = ReadFile(p);
      for (std::sregex_iterator it(text.begin(), text.end(), getenv_call), end; it != end; ++it) {
        const std::string name = (*it)[1];
        EXPECT_TRUE(listed.count(name) || kReadOutsideConfig.count(name))
            << p.string() << " reads " << name << " with getenv(): read it in Config (support/core/config*.cc) and "
            << "list it in support/core/variables.cc, or add it to kReadOutsideConfig here and to \"Other "
               "variables\" in docs/variables.md";
      }
    }
  }
  for (const std::string& name : kReadOutsideConfig) {
    EXPECT_NE(page.find("`" + name + "`"), std::string::npos) << "docs/variables.md does not name " << name;
  }
}

TEST(Variables, RowsAreCompleteAndGroupsAdjacent) {
  std::set<std::string> names, groups_done;
  std::string group;
  for (const VariableDoc& v : Variables()) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name << " is listed twice";
    EXPECT_TRUE(*v.default_text && *v.unit && *v.meaning && v.value != nullptr) << v.name << ": an empty field";
    if (v.group != group) {
      EXPECT_TRUE(groups_done.insert(v.group).second) << v.name << ": group \"" << v.group
                                                      << "\" again after another one; keep a group's rows together";
      group = v.group;
    }
  }
}

// A default written in the table is the default the code applies.
TEST(Variables, WrittenDefaultsAreTheDefaults) {
  auto c = LoadConfig(Inputs({}, nullptr));
  ASSERT_TRUE(c.ok()) << c.error().message;
  for (const VariableDoc& v : Variables()) {
    if (v.default_derived) continue;
    EXPECT_EQ(v.default_text, v.value(*c)) << v.name << ": the table's default differs from the value a Config "
                                           << "loaded from an empty environment holds";
  }
}

TEST(Variables, DocsPageHoldsTheGeneratedTables) {
  const std::string page = ReadFile(kSource + "/docs/variables.md");
  auto want = WithVariablesMarkdown(page);
  ASSERT_TRUE(want.ok()) << "docs/variables.md: " << want.error().message;
  if (*want == page) return;
  std::istringstream g(*want), w(page);
  std::string gl, wl;
  int line = 0;
  while (std::getline(g, gl) && std::getline(w, wl) && gl == wl) ++line;
  ADD_FAILURE() << "docs/variables.md differs from the variables table (support/core/variables.cc) at line "
                << line + 1 << ":\n  page:  " << wl << "\n  table: " << gl << "\n" << kRegenerate;
}

TEST(Variables, TextShowsTheValueInEffectAndNoSecret) {
  const std::string secret = "a-secret-of-at-least-thirty-two-bytes-0123";
  const EnvMap env = {{"LATENCY_RPS", "2000"}, {"FVBENCH_JWT_SECRET", secret}, {"STEP_DUR", "5"}};
  auto c = LoadConfig(Inputs(env, nullptr));
  ASSERT_TRUE(c.ok()) << c.error().message;
  const std::string text = VariablesText(&*c, env);
  EXPECT_NE(text.find("  LATENCY_RPS = 2000   (set; default 10000; RPS)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  CONFIRM_DUR = 10   (not set; default 2 × the step; s)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("FVBENCH_JWT_SECRET = (set, 42 bytes, not shown)"), std::string::npos) << text;
  EXPECT_EQ(text.find(secret), std::string::npos);
  // Refused configuration: the environment's text, never a secret's.
  const std::string refused = VariablesText(nullptr, env);
  EXPECT_NE(refused.find("  LATENCY_RPS = 2000   (set;"), std::string::npos) << refused;
  EXPECT_NE(refused.find("  WARMUP_DUR = (default)   (not set;"), std::string::npos) << refused;
  EXPECT_NE(refused.find("FVBENCH_JWT_SECRET = (set, not shown)"), std::string::npos) << refused;
  EXPECT_EQ(refused.find(secret), std::string::npos);
}

TEST(Variables, MarkdownTablesAndPageRewrite) {
  const std::string md = VariablesMarkdown();
  EXPECT_NE(md.find("\n### Load\n\n| variable | default | unit | meaning |\n|---|---|---|---|\n| `LATENCY_RPS` | "
                    "10000 | RPS | arrival rate of the latency scenarios and of limits.reject_cost's two phases |\n"),
            std::string::npos)
      << md;
  auto page = WithVariablesMarkdown("intro\n" + std::string(kVariablesBegin) + "\nOLD-TABLE\n" + kVariablesEnd + "\nafter\n");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->find("OLD-TABLE"), std::string::npos);
  EXPECT_EQ(page->rfind("intro\n", 0), 0u);
  EXPECT_FALSE(WithVariablesMarkdown("no markers\n").ok());
}

}  // namespace
}  // namespace fvbench::variables_test
