// BENCH_DIR's layout (support/core/bench_layout.h): every path a run writes
// lies in a folder its role's host checks and creates, parents first.
#include "support/core/bench_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace fvbench::bench_layout_test {
namespace {

const std::string kBench = "/srv/fv";

// The folder (relative to BENCH_DIR) a path under it sits in.
std::string FolderOf(const std::string& path) {
  const std::string rel = path.substr(kBench.size() + 1);
  const size_t slash = rel.rfind('/');
  return slash == std::string::npos ? "" : rel.substr(0, slash);
}

bool Holds(const std::vector<BenchFolder>& folders, const std::string& name) {
  return std::any_of(folders.begin(), folders.end(), [&](const BenchFolder& f) { return f.name == name; });
}

TEST(BenchLayout, ControllerFilesLieInTheControllersFolders) {
  const auto folders = layout::ControllerFolders();
  for (const std::string& p :
       {layout::ScenarioResultPath(kBench, "latency.raw_nginx"), layout::RunMetaPath(kBench), layout::PlanPath(kBench),
        layout::LeadPath(kBench), layout::TestbedStatePath(kBench), layout::ReportResultsPath(kBench),
        layout::RawDir(kBench) + "/x.json"}) {
    EXPECT_TRUE(Holds(folders, FolderOf(p))) << p;
  }
  EXPECT_EQ(layout::ScenarioResultPath(kBench, "latency.raw_nginx"), "/srv/fv/controller-results/latency.raw_nginx.json");
}

TEST(BenchLayout, HostFilesLieInTheirHostsFolders) {
  EXPECT_TRUE(Holds(layout::LoadgenFolders(), FolderOf(layout::LoadgenResultsDir(kBench) + "/x")));
  EXPECT_TRUE(Holds(layout::LoadgenFolders(), FolderOf(layout::ScriptsDir(kBench) + "/x")));
  EXPECT_TRUE(Holds(layout::SutFolders(false), FolderOf(layout::PolicyDir(kBench, false) + "/p.json")));
  EXPECT_FALSE(Holds(layout::SutFolders(false), FolderOf(layout::PolicyDir(kBench, true) + "/p.json")));
  EXPECT_TRUE(Holds(layout::SutFolders(true), FolderOf(layout::PolicyDir(kBench, true) + "/p.json")));
  for (const char* svc : {"baseline", "backend", "fv"}) {
    for (const char* sub : {"conf", "logs", "tmp"}) {
      EXPECT_TRUE(Holds(layout::SutFolders(false), FolderOf(layout::ServiceRunDir(kBench, svc) + "/" + sub + "/x")))
          << svc << "/" << sub;
    }
  }
}

TEST(BenchLayout, EveryFolderListComesParentsFirstFromBenchDir) {
  for (const auto& folders : {layout::ControllerFolders(), layout::LoadgenFolders(), layout::SutFolders(true)}) {
    ASSERT_FALSE(folders.empty());
    EXPECT_EQ(folders.front().name, "");
    for (size_t i = 1; i < folders.size(); ++i) {
      const std::string& name = folders[i].name;
      const size_t slash = name.rfind('/');
      const std::string parent = slash == std::string::npos ? "" : name.substr(0, slash);
      std::vector<BenchFolder> before(folders.begin(), folders.begin() + static_cast<long>(i));
      EXPECT_TRUE(Holds(before, parent)) << name << " comes before its parent";
    }
  }
}

}  // namespace
}  // namespace fvbench::bench_layout_test
