// RenderFlameSvg and RenderDiffFlameSvg (report/flame_svg.h): golden files of
// small profiles (fixtures/golden/flame_*.svg), then the layout rules read
// back from the SVG: widths proportional to samples, roots at the bottom,
// omitted narrow frames and their footnote, escaping, differential colours.
#include "support/report/flame_svg.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/unit/golden.h"

namespace fvbench::flame_svg_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

FoldedStacks Small() {
  FoldedStacks f;
  f.counts = {{"nginx;ngx_worker_process_cycle;ngx_http_lua_content_handler;@/srv/edge/rate.lua:12;[JIT]", 50},
              {"nginx;ngx_worker_process_cycle;ngx_http_lua_content_handler;lj_str_new", 15},
              {"nginx;ngx_worker_process_cycle;__GI___writev;entry_SYSCALL_64_after_hwframe_[k];tcp_sendmsg_[k]", 25},
              {"nginx;ngx_worker_process_cycle", 10}};
  return f;
}

FlameSvgOptions Options() {
  FlameSvgOptions o;
  o.title = "edge CPU";
  o.subtitle = "edge, 10 s at 2000 RPS, 100 samples";
  return o;
}

// The element of the frame whose tooltip starts with `title`: "<g><title>..</g>".
std::string Frame(const std::string& svg, const std::string& title) {
  size_t at = svg.find("<g><title>" + title);
  if (at == std::string::npos) return "";
  return svg.substr(at, svg.find("</g>", at) - at);
}

double Attr(const std::string& element, const std::string& name) {
  size_t at = element.find(" " + name + "=\"");
  if (at == std::string::npos) return -1;
  return std::atof(element.c_str() + at + name.size() + 3);
}

std::string AttrText(const std::string& element, const std::string& name) {
  size_t at = element.find(" " + name + "=\"");
  if (at == std::string::npos) return "";
  at += name.size() + 3;
  return element.substr(at, element.find('"', at) - at);
}

TEST(FlameSvg, GoldenFiles) {
  testing_golden::CompareGolden("flame_small.svg", RenderFlameSvg(Small(), Options()));
  FoldedStacks b = Small();
  b.counts["nginx;ngx_worker_process_cycle;ngx_http_lua_content_handler;lj_str_new"] = 60;
  b.counts.erase("nginx;ngx_worker_process_cycle");
  testing_golden::CompareGolden("flame_diff_small.svg", RenderDiffFlameSvg(Small(), 1000, b, 1000, Options()));
}

TEST(FlameSvg, WidthsAreProportionalAndRootsAtTheBottom) {
  const std::string svg = RenderFlameSvg(Small(), Options());
  EXPECT_EQ(svg, RenderFlameSvg(Small(), Options()));
  const std::string all = Frame(svg, "all (100 samples, 100.0 %)");
  const std::string writev = Frame(svg, "__GI___writev (25 samples, 25.0 %)");
  const std::string lj = Frame(svg, "lj_str_new (15 samples, 15.0 %)");
  ASSERT_FALSE(all.empty()) << svg;
  ASSERT_FALSE(writev.empty()) << svg;
  ASSERT_FALSE(lj.empty()) << svg;
  EXPECT_DOUBLE_EQ(Attr(all, "width"), 1180.0);
  EXPECT_DOUBLE_EQ(Attr(writev, "width"), 295.0);
  EXPECT_DOUBLE_EQ(Attr(lj, "width"), 177.0);
  EXPECT_GT(Attr(all, "y"), Attr(writev, "y"));
  EXPECT_DOUBLE_EQ(Attr(all, "y") - Attr(Frame(svg, "nginx ("), "y"), 16.0);
  // Siblings by name: __GI___writev (uppercase first) left of ngx_http_lua_content_handler.
  EXPECT_LT(Attr(writev, "x"), Attr(Frame(svg, "ngx_http_lua_content_handler ("), "x"));
  // Families: kernel orange (red 235..255, blue < 25), Lua green, JIT aqua.
  EXPECT_THAT(AttrText(Frame(svg, "tcp_sendmsg_[k] ("), "fill"), ::testing::MatchesRegex("rgb\\(2[3-5][0-9],1[5-9][0-9],[0-9]+\\)"));
  EXPECT_THAT(AttrText(Frame(svg, "@/srv/edge/rate.lua:12 ("), "fill"),
              ::testing::MatchesRegex("rgb\\(([7-9][0-9]|1[0-2][0-9]),(1[7-9][0-9]|2[0-2][0-9]),([6-9][0-9]|1[01][0-9])\\)"));
  EXPECT_THAT(AttrText(Frame(svg, "[JIT] ("), "fill"),
              ::testing::MatchesRegex("rgb\\(([6-9][0-9]|1[01][0-9]),(1[7-9][0-9]|20[0-9]|210),(20[5-9]|2[1-3][0-9]|240)\\)"));
  EXPECT_THAT(svg, HasSubstr("edge, 10 s at 2000 RPS, 100 samples"));
  EXPECT_THAT(svg, Not(HasSubstr("not drawn")));
}

TEST(FlameSvg, NarrowFramesAreOmittedWithAFootnote) {
  FoldedStacks f;
  f.counts = {{"app;big", 9990}, {"app;tiny;above_tiny", 7}, {"app;small", 3}};
  FlameSvgOptions o;
  const std::string svg = RenderFlameSvg(f, o);
  EXPECT_THAT(svg, HasSubstr("<title>big (9990 samples"));
  EXPECT_THAT(svg, Not(HasSubstr("<title>tiny")));
  EXPECT_THAT(svg, Not(HasSubstr("<title>above_tiny")));
  EXPECT_THAT(svg, Not(HasSubstr("<title>small")));
  EXPECT_THAT(svg, HasSubstr("10 samples (0.1 %) in frames narrower than 0.1 % of the width are not drawn."));
  o.min_width_share = 0.0005;
  const std::string wider = RenderFlameSvg(f, o);
  EXPECT_THAT(wider, HasSubstr("<title>above_tiny (7 samples"));
  EXPECT_THAT(wider, HasSubstr("3 samples (0.030 %) in frames narrower than 0.050 % of the width"));
}

TEST(FlameSvg, EscapesNamesAndCutsLongOnes) {
  FoldedStacks f;
  f.counts = {{"app;operator<<(std::ostream&, \"x\")", 1},
              {"app;" + std::string(400, 'n'), 1}};
  FlameSvgOptions o;
  o.title = "a <b> & \"c\"";
  const std::string svg = RenderFlameSvg(f, o);
  EXPECT_THAT(svg, HasSubstr("<title>operator&lt;&lt;(std::ostream&amp;, &quot;x&quot;) (1 samples, 50.0 %)</title>"));
  EXPECT_THAT(svg, HasSubstr("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
  EXPECT_THAT(svg, Not(HasSubstr("<<")));
  EXPECT_THAT(svg, Not(HasSubstr("\"x\"")));
  EXPECT_THAT(svg, HasSubstr("nnn…</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(std::string(400, 'n') + "</text>")));
}

TEST(FlameSvg, EmptyProfileAndNoRequests) {
  EXPECT_THAT(RenderFlameSvg(FoldedStacks{}, Options()), HasSubstr("No samples."));
  EXPECT_THAT(RenderDiffFlameSvg(Small(), 0, Small(), 10, Options()),
              HasSubstr("Side A served no requests"));
  EXPECT_THAT(RenderDiffFlameSvg(Small(), 10, Small(), 0, Options()), Not(HasSubstr("<g>")));
}

// B: twice A's requests; lj_str_new's samples per request doubled, the
// writev stack halved, the rest the same per request, a frame only in A.
TEST(FlameSvg, DiffColoursByChangePerRequest) {
  FoldedStacks a = Small();
  a.counts["nginx;gone"] = 5;
  FoldedStacks b;
  for (const auto& [stack, n] : Small().counts) b.counts[stack] = 2 * n;
  b.counts["nginx;ngx_worker_process_cycle;ngx_http_lua_content_handler;lj_str_new"] = 60;
  b.counts["nginx;ngx_worker_process_cycle;__GI___writev;entry_SYSCALL_64_after_hwframe_[k];tcp_sendmsg_[k]"] = 25;
  const std::string svg = RenderDiffFlameSvg(a, 1000, b, 2000, Options());
  const std::string grew = Frame(svg, "lj_str_new (B 0.03, A 0.015 samples/request, +100.0 %)");
  const std::string shrank = Frame(svg, "__GI___writev (B 0.0125, A 0.025 samples/request, -50.0 %)");
  const std::string same = Frame(svg, "[JIT] (B 0.05, A 0.05 samples/request, +0.0 %)");
  ASSERT_FALSE(grew.empty()) << svg;
  ASSERT_FALSE(shrank.empty()) << svg;
  ASSERT_FALSE(same.empty()) << svg;
  EXPECT_EQ(AttrText(grew, "fill"), "rgb(255,150,150)");  // |0.03 - 0.015| / 0.03 = 0.5 of 210
  EXPECT_EQ(AttrText(shrank, "fill"), "rgb(150,150,255)");
  EXPECT_EQ(AttrText(same, "fill"), "rgb(250,250,250)");
  EXPECT_THAT(svg, Not(HasSubstr("<title>gone")));
  EXPECT_THAT(svg, HasSubstr("Stacks only in A (0.005 samples/request, 4.8 % of A) are not drawn."));
}

// A stack deeper than kMaxFlameDepth is cut there (the tree is drawn recursively).
TEST(FlameSvg, VeryDeepStacksAreCut) {
  FoldedStacks f;
  std::string stack = "app";
  for (size_t i = 1; i < 100000; ++i) stack += ";f" + std::to_string(i);
  f.counts[stack] = 1;
  const std::string svg = RenderFlameSvg(f, FlameSvgOptions{});
  EXPECT_THAT(svg, HasSubstr("<title>f" + std::to_string(kMaxFlameDepth - 1) + " (1 samples"));
  EXPECT_THAT(svg, Not(HasSubstr("<title>f" + std::to_string(kMaxFlameDepth) + " (")));
}

// rsvg-convert (librsvg) must accept the graphs: well-formed XML, valid SVG.
TEST(FlameSvg, RsvgConvertAccepts) {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "rsvg-convert not installed (apt-get install librsvg2-bin); not checked";
  }
  FoldedStacks odd = Small();
  odd.counts["nginx;<&\"'>\x01;x"] = 30;
  for (const auto& [name, svg] : std::vector<std::pair<std::string, std::string>>{
           {"flame.svg", RenderFlameSvg(odd, Options())},
           {"flame_diff.svg", RenderDiffFlameSvg(Small(), 10, odd, 20, Options())}}) {
    std::string in = ::testing::TempDir() + "flame_svg_" + name;
    std::ofstream(in, std::ios::binary | std::ios::trunc) << svg;
    std::string cmd = "rsvg-convert -f png -o '" + in + ".png' '" + in + "' 2>'" + in + ".err'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << name << " (input kept at " << in << ")";
    std::ifstream err(in + ".err");
    std::stringstream e;
    e << err.rdbuf();
    EXPECT_TRUE(e.str().empty()) << name << ": " << e.str();
  }
}

}  // namespace
}  // namespace fvbench::flame_svg_test
