// CollapsePerfScript (judge/perf_collapse.h): real perf script output
// captured on Debian 12 (fixtures/perf/README.md) and hand-written edge
// cases, folded and compared byte for byte with fixtures/golden/perf_*.folded;
// then the naming rules one by one and the refusals with their line.
#include "support/judge/perf_collapse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/unit/golden.h"

namespace fvbench::perf_collapse_test {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  std::ifstream in(testing_golden::FixturesDir() + "/perf/" + name, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read fixtures/perf/" << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

FoldedStacks Collapse(const std::string& name) {
  auto r = CollapsePerfScript(Fixture(name), name);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : FoldedStacks{};
}

TEST(PerfCollapse, GoldenFiles) {
  for (const char* name : {"nginx_lua_worker", "system_wide_pid_cpu", "empty", "no_frames", "truncated", "crlf",
                           "odd_symbols"}) {
    SCOPED_TRACE(name);
    testing_golden::CompareGolden(std::string("perf_") + name + ".folded",
                                  WriteFolded(Collapse(std::string(name) + ".script")));
  }
}

// The real worker capture: every sample counted, kernel frames marked, the
// unresolved perf map folded to [JIT], unnamed code named by its dso.
TEST(PerfCollapse, RealNginxWorker) {
  FoldedStacks f = Collapse("nginx_lua_worker.script");
  EXPECT_EQ(f.total(), 61u);
  EXPECT_EQ(f.counts.at("nginx;[JIT]"), 40u);
  const std::string kernel_stack =
      "nginx;[unknown];[unknown];[unknown];__GI___writev;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]";
  bool kernel = false;
  for (const auto& [stack, n] : f.counts) {
    EXPECT_EQ(stack.rfind("nginx;", 0), 0u) << stack;
    EXPECT_EQ(stack.find("+0x"), std::string::npos) << stack;
    if (stack.rfind(kernel_stack, 0) == 0) kernel = true;
  }
  EXPECT_TRUE(kernel) << WriteFolded(f);
  EXPECT_NE(WriteFolded(f).find("[unknown] (libluajit-5.1.so.2.1.0)"), std::string::npos);
  EXPECT_NE(WriteFolded(f).find("[unknown] (nginx)"), std::string::npos);
}

TEST(PerfCollapse, RealSystemWideHeaders) {
  FoldedStacks f = Collapse("system_wide_pid_cpu.script");
  EXPECT_EQ(f.total(), 9u);
  uint64_t swapper = 0, memfd = 0;
  for (const auto& [stack, n] : f.counts) {
    if (stack.rfind("swapper;", 0) == 0) swapper += n;
    if (stack.rfind("memfd:sealed-91;", 0) == 0) memfd += n;
  }
  EXPECT_EQ(swapper, 3u);
  EXPECT_EQ(memfd, 1u);
}

TEST(PerfCollapse, EdgeCases) {
  EXPECT_TRUE(Collapse("empty.script").counts.empty());
  FoldedStacks none = Collapse("no_frames.script");
  EXPECT_EQ(none.counts.at("nginx"), 1u);
  EXPECT_EQ(none.counts.at("nginx;__GI___writev;pvm_irq_enable_[k]"), 1u);
  FoldedStacks cut = Collapse("truncated.script");
  EXPECT_EQ(cut.counts.at("nginx;[unknown] (nginx);[JIT]"), 2u);
  EXPECT_EQ(cut.counts.at("nginx;[unknown] (nginx);lj_str_new"), 1u);
  EXPECT_EQ(WriteFolded(Collapse("crlf.script")), "nginx;__GI___writev;pvm_irq_enable_[k] 1\n");
}

// The naming rules, leaf first in the input, one sample each.
TEST(PerfCollapse, FrameNames) {
  auto fold = [](const std::string& frame) {
    auto r = CollapsePerfScript("app 7 1.5: 1 cpu-clock:\n\t" + frame + "\n", "t");
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() && r->counts.size() == 1 ? r->counts.begin()->first : std::string("?");
  };
  EXPECT_EQ(fold("7f00 ngx_http_lua_content_handler+0x1a (/usr/lib/x.so)"), "app;ngx_http_lua_content_handler");
  EXPECT_EQ(fold("7f00 operator+ (/usr/lib/x.so)"), "app;operator+");
  EXPECT_EQ(fold("7f00 f+0xzz (/usr/lib/x.so)"), "app;f+0xzz");
  EXPECT_EQ(fold("7f00 f   +0x41 (/usr/lib/x.so)"), "app;f");  // found by perf_collapse_fuzz
  EXPECT_EQ(fold("7f00 +0x41 (/usr/lib/x.so)"), "app;+0x41");
  EXPECT_EQ(fold("ffffffff81000000 do_idle+0x1 ([kernel.kallsyms])"), "app;do_idle_[k]");
  EXPECT_EQ(fold("ffffffffc0000000 nft_do_chain+0x1 ([nf_tables])"), "app;nft_do_chain_[k]");
  EXPECT_EQ(fold("7f00 [unknown] ([JIT] tid 7)"), "app;[JIT]");
  EXPECT_EQ(fold("7f00 [unknown] (//anon)"), "app;[JIT]");
  EXPECT_EQ(fold("7f00 [unknown] (/tmp/perf-7.map)"), "app;[JIT]");
  EXPECT_EQ(fold("7f00 [unknown] (/tmp/perf-x.map)"), "app;[unknown] (perf-x.map)");
  EXPECT_EQ(fold("7f00 TRACE_3::@/a.lua:5 (/tmp/perf-7.map)"), "app;TRACE_3::@/a.lua:5");
  EXPECT_EQ(fold("7f00 [unknown] (/usr/lib/libc.so.6)"), "app;[unknown] (libc.so.6)");
  EXPECT_EQ(fold("7f00 [unknown] ([unknown])"), "app;[unknown]");
  EXPECT_EQ(fold("7f00"), "app;[unknown]");
  EXPECT_EQ(fold("7f00 a;b (/lib/c;d.so)"), "app;a:b");
  EXPECT_EQ(fold("7f00 [unknown] (/lib/c;d.so)"), "app;[unknown] (c:d.so)");
  EXPECT_EQ(fold("7f00 f(int) const (/lib/x.so (deleted))"), "app;f(int) const");
  EXPECT_EQ(fold("7f00 f(int)"), "app;f(int)");
}

TEST(PerfCollapse, HeaderVariants) {
  for (const auto& [header, comm] : std::vector<std::pair<std::string, std::string>>{
           {"nginx  6949 37166.169034:    1001001 cpu-clock: ", "nginx"},
           {"nginx  6949 37166.169034: cpu-clock: ", "nginx"},
           {"swapper     0/0     [001] 37221.233335:    1001001 cpu-clock: ", "swapper"},
           {"swapper     0 [001] 37221.233335: cpu-clock:", "swapper"},
           {"nginx: worker process 12/13 [000] 1.0: 1 cycles:ppp:", "nginx: worker process"},
           {"Worker 3  1234/1234 [000] 1.0: 1 cpu-clock:", "Worker 3"},
           {"a;b 5 1.0: cpu-clock:", "a:b"}}) {
    auto r = CollapsePerfScript(header + "\n\t7f00 f (/x)\n\n", "t");
    ASSERT_TRUE(r.ok()) << header << ": " << r.error().message;
    EXPECT_EQ(WriteFolded(*r), comm + ";f 1\n") << header;
  }
}

TEST(PerfCollapse, RefusesNamingTheLine) {
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"\t7f00 f (/x)\n", "where.txt: line 1: a stack frame before any sample header"},
           {"# comment\n\n   7f00 f (/x)\n", "where.txt: line 3: a stack frame before any sample header"},
           {"app 7 1.0: cpu-clock:\n\t7f00 f (/x)\n\nnot a header\n", "where.txt: line 4: 'not a header' is not a sample header"},
           {"app 7 1.0: cpu-clock:\n\tzz00 f (/x)\n", "where.txt: line 2: frame address 'zz00' is not hexadecimal"},
           {"app 7\n", "where.txt: line 1: 'app 7' is not a sample header"},
           {"7 app 1.0:\n", "where.txt: line 1: '7 app 1.0:' is not a sample header"}}) {
    auto r = CollapsePerfScript(text, "where.txt");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.error().message, HasSubstr(why)) << text;
  }
}

}  // namespace
}  // namespace fvbench::perf_collapse_test
