// CheckPolicyDir: the policy bundles are read and parsed before any host is
// touched, each failure naming the variable, the file and the place.
#include "support/sut/policy_files.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/core/config.h"
#include "fvbench/source_dir.h"

namespace fvbench::policy_files_test {
namespace {

namespace fs = std::filesystem;

class PolicyDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fvb-policy-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : kPolicyFiles) Write(f, R"({"bundle_version": 1, "policies": []})");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string Check() {
    auto r = CheckPolicyDir("FVBENCH_POLICY_DIR", dir_.string());
    return r.ok() ? "" : r.error().message;
  }
  fs::path dir_;
};

TEST_F(PolicyDir, BundlesWithAPoliciesArrayPass) { EXPECT_EQ(Check(), ""); }

TEST_F(PolicyDir, TextThatIsNotJsonIsNamedWithItsLine) {
  Write("complex.json", "{\"policies\": [\n");
  const std::string e = Check();
  EXPECT_NE(e.find("FVBENCH_POLICY_DIR='" + dir_.string() + "': " + (dir_ / "complex.json").string() +
                   ": not valid JSON"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
}

TEST_F(PolicyDir, JsonThatIsNoBundleIsNamed) {
  Write("llm.json", R"({"bad": 1})");
  EXPECT_NE(Check().find("llm.json: no \"policies\" array"), std::string::npos) << Check();
  Write("llm.json", "[1, 2]");
  EXPECT_NE(Check().find("llm.json: not a JSON object"), std::string::npos) << Check();
}

TEST_F(PolicyDir, AMissingFileOrAFileForTheDirectoryIsNamed) {
  fs::remove(dir_ / "simple.json");
  EXPECT_NE(Check().find("simple.json: cannot open for reading"), std::string::npos) << Check();
  auto r = CheckPolicyDir("FVBENCH_POLICY_DIR_B", (dir_ / "llm.json").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "FVBENCH_POLICY_DIR_B='" + (dir_ / "llm.json").string() + "': not a directory");
}

TEST_F(PolicyDir, TheShippedDefaultsPass) {
  const char* fixtures = std::getenv("FVBENCH_FIXTURES");
  const std::string dir = std::string(fixtures != nullptr ? fixtures : FVBENCH_SOURCE_DIR "/fixtures") + "/policies";
  auto r = CheckPolicyDir("FVBENCH_POLICY_DIR", dir);
  EXPECT_TRUE(r.ok()) << r.error().message;
}

}  // namespace
}  // namespace fvbench::policy_files_test
