#include "support/host/interrupts.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "support/host/local_host.h"

namespace fvbench::interrupts_test {
namespace {

// A child process installs the handler, runs a long command through
// LocalHost (like a load engine) and registers a cleanup; SIGTERM to the
// child must kill the command's process group, run the cleanup and exit 143.
TEST(Interrupts, SigtermStopsChildGroupsRunsCleanupsAndExitsNonZero) {
  char tmpl[] = "/tmp/fvbench-int-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string marker = dir + "/cleanup-ran";
  const std::string pidfile = dir + "/sleep.pid";

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstallInterruptCleanup();
    RegisterCleanup([&] { std::ofstream(marker) << "yes\n"; });
    LocalHost host;
    Command c;
    c.argv = {"sh", "-c", "echo $$ > " + pidfile + "; sleep 30"};
    c.timeout = std::chrono::seconds(60);
    (void)host.Run(c);  // blocks until the interrupt kills it
    _exit(3);           // not reached when the handler works
  }
  std::string grandchild;
  for (int i = 0; i < 100 && grandchild.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(pidfile);
    std::getline(in, grandchild);
  }
  ASSERT_FALSE(grandchild.empty()) << "the child never started its command";
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_TRUE(std::ifstream(marker).good()) << "the registered cleanup did not run";
  // The command (its own process group) is gone or a zombie awaiting init.
  const pid_t sh = std::stoi(grandchild);
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(sh) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    auto close = text.rfind(')');
    gone = text.empty() || (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z');
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(gone) << "the command the interrupted process ran is still alive (pid " << sh << ")";
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace fvbench::interrupts_test
