// report.html from report.md (support/report/html_report.h): tables
// rendered, local SVGs put into the page, references outside the report
// directory and on the network never embedded or loaded, results text never
// becoming markup, the page's policy; and the golden report.md rendered.
#include "support/report/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/core/json_fields.h"
#include "tests/unit/golden.h"

namespace fvbench::html_report_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kSvg[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\" viewBox=\"0 0 10 10\">"
    "<title>plot-marker</title><rect width=\"10\" height=\"10\"/></svg>\n";

std::string Render(const std::string& md, const std::map<std::string, std::string>& svgs = {}) {
  auto html = RenderHtmlReport(md, svgs, "t");
  EXPECT_TRUE(html.ok()) << html.error().message;
  return html.ok() ? *html : "";
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(HtmlReport, RendersGfmTables) {
  std::string html = Render("| Scenario | Verdict |\n|---|---:|\n| latency.raw_nginx | PASS |\n");
  EXPECT_THAT(html, HasSubstr("<table>"));
  EXPECT_THAT(html, HasSubstr("<th>Scenario</th>"));
  EXPECT_THAT(html, HasSubstr("<td>latency.raw_nginx</td>"));
  EXPECT_THAT(html, HasSubstr("<td align=\"right\">PASS</td>"));
}

TEST(HtmlReport, IsOnePageWithItsPolicyAndStyleInside) {
  std::string html = Render("# x\n");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_THAT(html, HasSubstr(std::string("http-equiv=\"Content-Security-Policy\" content=\"") + kHtmlReportCsp));
  EXPECT_THAT(html, HasSubstr("<style>"));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(std::string(kHtmlReportCsp), HasSubstr("default-src 'none'"));
}

TEST(HtmlReport, LinkedSvgBecomesAFigureAfterItsParagraphOnce) {
  std::string html = Render("Plots: [latency.svg](latency.svg), again [here](latency.svg).\n\nnext\n",
                            {{"latency.svg", kSvg}});
  EXPECT_EQ(Count(html, "<svg"), 1u) << html;
  EXPECT_THAT(html, HasSubstr("<figure id=\"figure-latency-svg\"><svg xmlns="));
  EXPECT_THAT(html, HasSubstr("<title>plot-marker</title>"));  // not escaped by a tag filter
  EXPECT_THAT(html, Not(HasSubstr("<?xml")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"latency.svg\"")));
  EXPECT_EQ(Count(html, "href=\"#figure-latency-svg\""), 2u);
  EXPECT_LT(html.find("</p>"), html.find("<figure"));
  EXPECT_LT(html.find("<figure"), html.find("<p>next</p>"));
}

TEST(HtmlReport, FiguresFollowInTheOrderOfTheirLinks) {
  std::string html = Render("[a](a.svg), [b](b.svg), [c](c.svg)\n", {{"a.svg", kSvg}, {"b.svg", kSvg}, {"c.svg", kSvg}});
  size_t a = html.find("id=\"figure-a-svg\""), b = html.find("id=\"figure-b-svg\""), c = html.find("id=\"figure-c-svg\"");
  ASSERT_NE(c, std::string::npos) << html;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

TEST(HtmlReport, ImageOfALocalSvgIsTheSvgInPlace) {
  std::string html = Render("![the plot](plots/a.svg)\n", {{"plots/a.svg", kSvg}});
  EXPECT_THAT(html, HasSubstr("<p><svg xmlns="));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
}

TEST(HtmlReport, ReferencesOutsideTheReportDirectoryAreNeitherEmbeddedNorLoaded) {
  // Each is a key of `svgs`, so only the path rule keeps them out.
  const std::map<std::string, std::string> svgs = {{"../x.svg", kSvg},
                                                   {"/etc/x.svg", kSvg},
                                                   {"http://example.com/x.svg", kSvg},
                                                   {"a/../../x.svg", kSvg},
                                                   {"file:///etc/x.svg", kSvg}};
  std::string html = Render(
      "[up](../x.svg) [abs](/etc/x.svg) [net](http://example.com/x.svg) [mid](a/../../x.svg) [file](file:///etc/x.svg) "
      "[js](javascript:alert(1))\n\n"
      "![img up](../x.svg) ![img net](http://example.com/x.svg)\n",
      svgs);
  EXPECT_THAT(html, Not(HasSubstr("<svg"))) << html;
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"../")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"/etc")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"a/..")));
  EXPECT_THAT(html, Not(HasSubstr("href=\"file:")));
  EXPECT_THAT(html, Not(HasSubstr("javascript:alert(1)\"")));
  // Their texts stay; a network link stays a link (followed only on a click).
  EXPECT_THAT(html, HasSubstr("up abs <a href=\"http://example.com/x.svg\">net</a> mid file js"));
  EXPECT_THAT(html, HasSubstr("[image not embedded: img up (../x.svg)]"));
  EXPECT_THAT(html, HasSubstr("[image not embedded: img net (http://example.com/x.svg)]"));
}

TEST(HtmlReport, LocalNonSvgFileStaysALinkBesideThePage) {
  std::string html = Render("[folded](flame_a.folded)\n");
  EXPECT_THAT(html, HasSubstr("<a href=\"flame_a.folded\">folded</a>"));
}

TEST(HtmlReport, FileThatIsNoSvgIsNotPutIn) {
  std::string html = Render("[p](p.svg)\n", {{"p.svg", "<html><script>x</script>"}});
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("<a href=\"p.svg\">p</a>"));
}

TEST(HtmlReport, IsLocalReportPath) {
  for (const char* ok : {"latency.svg", "flame_latency.raw_nginx_fv_cpu.svg", "a/b-c.svg"}) {
    EXPECT_TRUE(IsLocalReportPath(ok)) << ok;
  }
  for (const char* bad : {"", "/x.svg", "../x.svg", "a/../x.svg", "./x.svg", "a//x.svg", "a/", "http://h/x.svg",
                          "x.svg?a", "x.svg#f", "%2e%2e/x.svg", "a\\x.svg", "x y.svg"}) {
    EXPECT_FALSE(IsLocalReportPath(bad)) << bad;
  }
}

// A note or a scenario id holding HTML shows as text: no element comes of it.
TEST(HtmlReport, ResultsTextWithHtmlIsShownAsText) {
  std::string html = Render(
      "## run <b>x</b>\n\n"
      "| Scenario | Note |\n|---|---|\n| lat<script>alert(1)</script> | a<img src=x onerror=alert(1)> & b |\n\n"
      "<script>alert(2)</script>\n\n"
      "<details onclick=\"alert(3)\"><summary>s</summary>\n\nx\n\n</details>\n\n"
      "<iframe src=\"http://example.com\"></iframe>\n");
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<iframe")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, Not(HasSubstr("<details onclick")));
  EXPECT_THAT(html, HasSubstr("lat&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("a&lt;img src=x onerror=alert(1)&gt; &amp; b"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(2)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("run &lt;b&gt;x&lt;/b&gt;"));
}

// The tags report.md writes itself stay markup.
TEST(HtmlReport, ReportsOwnDetailsAndLineBreaksStayMarkup) {
  std::string html = Render(
      "<details><summary>throughput.simple: 3 steps</summary>\n\n| a |\n|---|\n| 1<br>2 |\n\n</details>\n");
  EXPECT_THAT(html, HasSubstr("<details><summary>throughput.simple: 3 steps</summary>"));
  EXPECT_THAT(html, HasSubstr("<td>1<br>2</td>"));
  EXPECT_THAT(html, HasSubstr("</details>"));
}

TEST(HtmlReport, TitleIsEscaped) {
  auto html = RenderHtmlReport("x", {}, "a</title><script>");
  ASSERT_TRUE(html.ok());
  EXPECT_THAT(*html, HasSubstr("<title>a&lt;/title&gt;&lt;script&gt;</title>"));
}

// The golden report.md (markdown_report_test): every table of it is in the
// page, its error message with "<html>" stays text.
TEST(HtmlReport, GoldenReportRendersEveryTable) {
  auto md = detail::ReadTextFile(testing_golden::FixturesDir() + "/golden/report.md");
  ASSERT_TRUE(md.ok()) << md.error().message;
  std::string html = Render(*md);
  size_t md_tables = 0;
  for (size_t p = md->find("\n|---"); p != std::string::npos; p = md->find("\n|---", p + 1)) ++md_tables;
  ASSERT_GT(md_tables, 3u);
  EXPECT_EQ(Count(html, "<table>"), md_tables);
  EXPECT_THAT(html, HasSubstr("<strong>FAIL</strong>"));
  EXPECT_THAT(html, Not(HasSubstr("<html>")));
}

}  // namespace
}  // namespace fvbench::html_report_test
