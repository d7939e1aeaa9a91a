// fixtures/check-setup-packages.sh (run by .ci/run right after
// support/setup-debian.sh) passes on this checkout, and fails, naming command
// and package, on a copy of the setup script without openssh-server: the gap
// that once left the SSH test hosts without sshd on a fresh machine.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "fvbench/source_dir.h"

namespace fvbench::check_setup_packages_test {
namespace {

namespace fs = std::filesystem;

class CheckSetupPackages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v dpkg-query >/dev/null 2>&1") != 0) GTEST_SKIP() << "not a Debian/Ubuntu machine";
    dir_ = fs::temp_directory_path() / ("fvbench-setup-check-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Exit code of the script with `env` prepended; its output in out_.
  int Run(const std::string& env) {
    const std::string log = (dir_ / "log").string();
    int st = std::system((env + " bash '" FVBENCH_SOURCE_DIR "/fixtures/check-setup-packages.sh' '" FVBENCH_SOURCE_DIR
                          "' > '" + log + "' 2>&1")
                             .c_str());
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    out_ = ss.str();
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  fs::path dir_;
  std::string out_;
};

TEST_F(CheckSetupPackages, ThisCheckoutPasses) {
  EXPECT_EQ(Run(""), 0) << out_;
  EXPECT_NE(out_.find("commands, each from a package support/setup-debian.sh installs"), std::string::npos) << out_;
}

TEST_F(CheckSetupPackages, SetupScriptWithoutOpensshServerFailsNamingSshd) {
  std::ifstream in(FVBENCH_SOURCE_DIR "/support/setup-debian.sh");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string without = std::regex_replace(ss.str(), std::regex("openssh-server "), "");
  ASSERT_NE(without, ss.str()) << "setup-debian.sh no longer names openssh-server";
  const fs::path copy = dir_ / "setup-debian.sh";
  std::ofstream(copy) << without;
  EXPECT_EQ(Run("FVBENCH_SETUP_SCRIPT='" + copy.string() + "'"), 1) << out_;
  EXPECT_NE(out_.find("sshd (/usr/sbin/sshd) comes from package openssh-server, which support/setup-debian.sh does "
                      "not install"),
            std::string::npos)
      << out_;
}

}  // namespace
}  // namespace fvbench::check_setup_packages_test
