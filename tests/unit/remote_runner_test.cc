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
  EXPECT_THAT(ReadRequest({"/proc/stat"}, 4096), ElementsAre("read", "4096", "/proc/stat"));
  auto r = ParseReadReply({"read", "ok", "cpu 1 2", "err No such file or directory", "", "type link", "",
                           "type directory", "", "type special", "", "big 1073741824", "", "swapped", ""},
                          7);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].kind, ReadOutcome::kOk);
  EXPECT_EQ((*r)[0].contents, "cpu 1 2");
  EXPECT_EQ((*r)[1].kind, ReadOutcome::kError);
  EXPECT_EQ((*r)[1].error, "No such file or directory");
  EXPECT_EQ((*r)[2].kind, ReadOutcome::kSymlink);
  EXPECT_EQ((*r)[3].kind, ReadOutcome::kDirectory);
  EXPECT_EQ((*r)[4].kind, ReadOutcome::kSpecial);
  EXPECT_EQ((*r)[5].kind, ReadOutcome::kOverStated);
  EXPECT_EQ((*r)[5].stated_bytes, 1073741824u);
  EXPECT_EQ((*r)[6].kind, ReadOutcome::kSwapped);
  EXPECT_FALSE(ParseReadReply({"read", "ok", "x"}, 2).ok());
  EXPECT_FALSE(ParseReadReply({"read", "maybe", "x"}, 1).ok());
  EXPECT_FALSE(ParseReadReply({"read", "big -1", ""}, 1).ok());
  EXPECT_FALSE(ParseReadReply({"read", "big", ""}, 1).ok());
  EXPECT_FALSE(ParseReadReply({"read", "type fifo", ""}, 1).ok());
}

// The most a reply to a read of a cap's bytes can hold: the whole reply
// with the cap and one byte, and an errno text, fits within it.
TEST(RunnerReplies, ReadReplyBoundHoldsTheLargestReply) {
  const std::string full = EncodeFrame({"read", "18446744073709551615", "ok", std::string(4097, 'x')});
  const std::string err = EncodeFrame({"read", "18446744073709551615", "err " + std::string(120, 'e'), ""});
  for (const std::string& f : {full, err}) {
    std::string buf = f;
    auto head = PeekFrameHead(buf);
    ASSERT_TRUE(head.ok() && head->has_value());
    EXPECT_LE((*head)->payload_bytes, ReadReplyBound(1, 4096));
  }
  EXPECT_GT(ReadReplyBound(1, 4096), 4097u);
  EXPECT_LT(ReadReplyBound(1, 4096), 4096u + 512u);
}

// The head of a frame (its size, kind and id) is known from its first bytes:
// a reply too large is refused before its body arrives.
TEST(RunnerFrames, HeadIsKnownBeforeTheBody) {
  const std::string whole = EncodeFrame({"read", "12", "ok", std::string(100000, 'z')});
  std::string head_only = whole.substr(0, 40);
  auto h = PeekFrameHead(head_only);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_TRUE(h->has_value());
  EXPECT_EQ((*h)->kind, "read");
  EXPECT_EQ((*h)->id, "12");
  EXPECT_GT((*h)->payload_bytes, 100000u);
  for (size_t cut = 0; cut < 14; ++cut) {
    auto p = PeekFrameHead(whole.substr(0, cut));
    ASSERT_TRUE(p.ok()) << cut;
    EXPECT_FALSE(p->has_value()) << cut;
  }
  EXPECT_FALSE(PeekFrameHead("x\n").ok());
  EXPECT_FALSE(PeekFrameHead("10\n999\nab").ok());  // a field longer than its frame
}

TEST(RunnerStart, ScriptStartsPerlOrSaysItIsMissing) {
  const std::string s = RunnerStartScript();
  EXPECT_THAT(s, HasSubstr("command -v perl"));
  EXPECT_THAT(s, HasSubstr("no perl on this host"));
  EXPECT_THAT(s, HasSubstr("exec perl -e '"));
}

}  // namespace
}  // namespace fvbench::remote_runner_test
