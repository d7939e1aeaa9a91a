// The command runner's protocol (remote_runner.h), pure: frames, requests,
// replies. The runner program itself: runner_process_test.cc.
#include "support/host/remote_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::remote_runner_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace runner;

TEST(RunnerFrames, AnyBytesRoundTrip) {
  const std::vector<std::string> fields = {"run", "", std::string("a\0b\n\n12\n", 8), "\xff\xfe", "5\n"};
  std::string buf = EncodeFrame(fields) + EncodeFrame({"read", "/proc/stat"});
  auto first = TakeFrame(buf);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ(**first, fields);
  auto second = TakeFrame(buf);
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_THAT(**second, ElementsAre("read", "/proc/stat"));
  EXPECT_TRUE(buf.empty());
}

TEST(RunnerFrames, PartialFramesWaitMalformedOnesFail) {
  const std::string whole = EncodeFrame({"hello", kRunnerVersion, "123"});
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    std::string buf = whole.substr(0, cut);
    auto r = TakeFrame(buf);
    ASSERT_TRUE(r.ok()) << cut;
    EXPECT_FALSE(r->has_value()) << cut;
    EXPECT_EQ(buf.size(), cut);  // nothing taken
  }
  for (std::string bad : {std::string("x\n"), std::string("12a\n"), std::string("\n"), std::string("9999999999999\n"),
                          std::string("4\n9\nab")}) {
    auto r = TakeFrame(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
}

TEST(RunnerRequests, RunCarriesEnvAndCwdAsFieldsAndRefusesWhatCannotRun) {
  Command c;
  c.argv = {"sh", "-c", "echo \"$X\""};
  c.env = {{"X", "secret value"}};
  c.cwd = "/tmp/a b";
  c.timeout = std::chrono::milliseconds(1500);
  auto req = RunRequest(c);
  ASSERT_TRUE(req.ok());
  EXPECT_THAT(*req, ElementsAre("run", "1500", "/tmp/a b", "3", "sh", "-c", "echo \"$X\"", "X", "secret value"));
  // On the wire with its id second; a reply's id taken off again.
  std::string buf = WithId(*req, "7");
  auto f = TakeFrame(buf);
  ASSERT_TRUE(f.ok() && f->has_value());
  EXPECT_EQ((**f)[1], "7");
  EXPECT_EQ(TakeId(**f), std::optional<std::string>("7"));
  EXPECT_EQ(**f, *req);
  std::vector<std::string> bare = {"run"};
  EXPECT_FALSE(TakeId(bare));

  Command empty;
  EXPECT_FALSE(RunRequest(empty).ok());
  Command nul;
  nul.argv = {"printf", std::string("a\0b", 3)};
  EXPECT_THAT(RunRequest(nul).error().message, HasSubstr("argv[1] contains a NUL byte"));
  Command bad_env;
  bad_env.argv = {"true"};
  bad_env.env = {{"1X", "v"}};
  EXPECT_THAT(RunRequest(bad_env).error().message, HasSubstr("bad environment variable name '1X'"));
  bad_env.env = {{"X", std::string("a\0b", 3)}};
  EXPECT_THAT(RunRequest(bad_env).error().message, HasSubstr("'X' contains a NUL byte"));
}

TEST(RunnerReplies, RunOutcomes) {
  auto ok = ParseRunReply({"run", "ok", "3", "0", "0", "out", "err"}, "'x'");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 3);
  EXPECT_EQ(ok->term_signal, 0);
  EXPECT_EQ(ok->out, "out");
  EXPECT_EQ(ok->err, "err");
  auto sig = ParseRunReply({"run", "ok", "-1", "9", "0", "", ""}, "'x'");
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->exit_code, -1);
  EXPECT_EQ(sig->term_signal, 9);
  auto late = ParseRunReply({"run", "ok", "0", "0", "1", "part", ""}, "'x'");
  ASSERT_TRUE(late.ok());
  EXPECT_TRUE(late->timed_out);
  EXPECT_EQ(late->exit_code, -1);
  EXPECT_FALSE(late->success());
  EXPECT_THAT(ParseRunReply({"run", "notfound No such file or directory", "-1", "0", "0", "", ""}, "'frob'")
                  .error()
                  .message,
              HasSubstr("command not found in the remote PATH ('frob'"));
  EXPECT_THAT(ParseRunReply({"run", "nocwd Permission denied", "-1", "0", "0", "", ""}, "'x'").error().message,
              HasSubstr("working directory"));
  EXPECT_FALSE(ParseRunReply({"run", "ok", "x", "0", "0", "", ""}, "'x'").ok());
  EXPECT_FALSE(ParseRunReply({"read", "ok"}, "'x'").ok());
}

TEST(RunnerReplies, ReadOutcomes) {
  auto r = ParseReadReply({"read", "ok", "cpu 1 2", "err No such file or directory", ""}, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].ok);
  EXPECT_EQ((*r)[0].contents, "cpu 1 2");
  EXPECT_FALSE((*r)[1].ok);
  EXPECT_EQ((*r)[1].error, "No such file or directory");
  EXPECT_FALSE(ParseReadReply({"read", "ok", "x"}, 2).ok());
  EXPECT_FALSE(ParseReadReply({"read", "maybe", "x"}, 1).ok());
}

TEST(RunnerStart, ScriptStartsPerlOrSaysItIsMissing) {
  const std::string s = RunnerStartScript();
  EXPECT_THAT(s, HasSubstr("command -v perl"));
  EXPECT_THAT(s, HasSubstr("no perl on this host"));
  EXPECT_THAT(s, HasSubstr("exec perl -e '"));
}

}  // namespace
}  // namespace fvbench::remote_runner_test
