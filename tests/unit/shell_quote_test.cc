// ShellQuote: exact expected forms, and round trips through real shells.
#include "support/host/shell_quote.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "support/host/local_host.h"

namespace fvbench::shell_quote_test {
namespace {

const std::vector<std::string>& Awkward() {
  static const std::vector<std::string> words = {
      "plain",
      "with space",
      "it's",
      "'",
      "''",
      "\"double\"",
      "$HOME",
      "${HOME}",
      "`id`",
      "$(id)",
      "a;b",
      "a && b || c | d &",
      "line1\nline2\n",
      "back\\slash\\",
      "",
      " ",
      "\t",
      "tab\there",
      "*?[a-z]",
      "~",
      "~/x",
      "#not a comment",
      "!bang",
      "-n",
      "a=b",
      "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80",
      "'\\''",
      "%s %d",
  };
  return words;
}

TEST(ShellQuote, ExactForms) {
  EXPECT_EQ(ShellQuote("nginx"), "nginx");
  EXPECT_EQ(ShellQuote("/tmp/fv-bench/run.conf"), "/tmp/fv-bench/run.conf");
  EXPECT_EQ(ShellQuote("0-3"), "0-3");
  EXPECT_EQ(ShellQuote("KEY=v,a:b@c%d+e"), "KEY=v,a:b@c%d+e");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("/tmp/fv bench/run"), "'/tmp/fv bench/run'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(ShellQuote("~"), "'~'");
  EXPECT_EQ(ShellQuote("a\nb"), "'a\nb'");
}

TEST(ShellQuote, JoinQuotesEachWord) {
  EXPECT_EQ(ShellJoin({"taskset", "-c", "0-3", "nginx", "-p", "/tmp/fv bench/run"}),
            "taskset -c 0-3 nginx -p '/tmp/fv bench/run'");
  EXPECT_EQ(ShellJoin({}), "");
  EXPECT_EQ(ShellJoin({"", "x"}), "'' x");
}

// Every awkward word survives `<shell> -c 'printf %s <quoted>'` byte for byte.
void RoundTripThrough(const std::string& shell) {
  LocalHost host;
  for (const auto& w : Awkward()) {
    Command c;
    c.argv = {shell, "-c", "printf %s " + ShellQuote(w)};
    c.env = {{"HOME", "/home/should-not-appear"}};
    auto r = host.Run(c);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->exit_code, 0) << shell << " on " << ShellQuote(w) << ": " << r->err;
    EXPECT_EQ(r->out, w) << shell << " mangled " << ShellQuote(w);
  }
}

TEST(ShellQuote, RoundTripThroughBinSh) { RoundTripThrough("/bin/sh"); }

TEST(ShellQuote, RoundTripThroughBash) {
  if (::access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
  RoundTripThrough("/bin/bash");
}

TEST(ShellQuote, JoinRoundTripKeepsWordBoundaries) {
  LocalHost host;
  std::string expected;
  for (const auto& w : Awkward()) expected += "[" + w + "]";
  Command c;
  c.argv = {"/bin/sh", "-c", "for a in " + ShellJoin(Awkward()) + "; do printf '[%s]' \"$a\"; done"};
  auto r = host.Run(c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, expected) << r->err;
}

}  // namespace
}  // namespace fvbench::shell_quote_test
