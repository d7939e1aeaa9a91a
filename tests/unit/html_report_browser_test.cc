// report.html in a real browser: Debian's chromium, headless. The report
// step writes the report of the recorded full local run
// (fixtures/report/recorded_local_run.json, one note holding "<script>"),
// then chromium loads report.html once, dumping the DOM after load, taking a
// screenshot and logging the page's console to stderr. The page passes when
// the console says nothing (report.html has no script, so any console line
// is the browser's complaint: a blocked load, a policy violation, a script),
// the DOM holds the verdict, each scenario's row, every table of report.md
// and each plot as an inline <svg> figure, and no element came of the note.
// Two pages show that the checks can fail: one with a deliberate script
// error, and report.html with an image on the network added.
// The screenshot and the page stay in FVBENCH_BROWSER_OUT (build/html-report-browser/).
// chromium missing fails the tests, naming support/setup-debian.sh.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>

#include "support/core/json_fields.h"
#include "support/report/html_report.h"
#include "support/report/markdown_report.h"
#include "support/report/report_step.h"
#include "support/report/results_io.h"
#include "tests/unit/external_tool.h"
#include "tests/unit/golden.h"
#include "fvbench/source_dir.h"

namespace fvbench::html_report_browser_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNote[] = "operator note: <script>alert('x')</script> & <b>bold</b>";

struct BrowserRun {
  int exit_code = -1;
  std::string dom;
  std::string console;  // the stderr lines of the page's console
  std::string log;      // all of stderr
};

// chromium --headless on `page`: the DOM after load, the console, a screenshot into `png`.
BrowserRun OpenInChromium(const fs::path& page, const fs::path& png) {
  BrowserRun run;
  const fs::path profile = fs::path(::testing::TempDir()) / ("fvb-chromium-" + std::to_string(::getpid()));
  fs::remove_all(profile);
  // --no-sandbox: chromium refuses to run as root with its sandbox (CI runs as root).
  const std::string cmd = "timeout 90 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
                          "--enable-logging=stderr --v=0 --user-data-dir='" + profile.string() +
                          "' --window-size=1280,2000 --screenshot='" + png.string() + "' --dump-dom 'file://" +
                          page.string() + "'";
  testing_tools::ToolRun r = testing_tools::RunTool(cmd, "");
  fs::remove_all(profile);
  run.exit_code = r.exit_code;
  run.dom = r.out;
  run.log = r.err;
  // [pid:tid:date:INFO:CONSOLE:1] "message", source: ... (chromium 156; older ones CONSOLE(1)).
  static const std::regex console_line(R"(^\[[^\]]*:CONSOLE[(:][^\]]*\].*$)", std::regex::multiline);
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), console_line), end; it != end; ++it) {
    run.console += it->str() + "\n";
  }
  return run;
}

bool ChromiumInstalled() {
  if (testing_tools::HaveTool("chromium")) return true;
  ADD_FAILURE() << "chromium not found: install it with support/setup-debian.sh (Debian package chromium)";
  return false;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

class HtmlReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = fs::path(FVBENCH_BROWSER_OUT);
    bench_ = out_ / "bench";
    fs::remove_all(bench_);
    fs::create_directories(bench_ / "controller-results");
    const std::string recorded = testing_golden::FixturesDir() + "/report/recorded_local_run.json";
    auto text = detail::ReadTextFile(recorded);
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto run = RunResultsFromJson(*text, recorded);
    ASSERT_TRUE(run.ok()) << run.error().message;
    run_ = *run;
    ASSERT_FALSE(run_.scenarios.empty());
    run_.scenarios[0].notes.push_back(kNote);
    ASSERT_TRUE(detail::WriteTextFile((bench_ / "controller-results/run_meta.json").string(),
                                      RunMetaToJson(run_.meta)).ok());
    for (const ScenarioResult& r : run_.scenarios) {
      ASSERT_TRUE(SaveScenarioResult((bench_ / "controller-results" / (r.id + ".json")).string(), r).ok());
    }
    Config config;
    config.bench_dir = bench_.string();
    config.reference = FVBENCH_SOURCE_DIR "/reference.json";
    config.thresholds = FVBENCH_SOURCE_DIR "/thresholds/portable.json";
    ::testing::internal::CaptureStdout();
    WriteRunReport(config);
    ::testing::internal::GetCapturedStdout();
    report_ = bench_ / "report";
    ASSERT_TRUE(fs::exists(report_ / "report.html")) << "the report step wrote no report.html";
  }

  fs::path out_, bench_, report_;
  RunResults run_;
};

TEST_F(HtmlReportBrowser, LoadsWithoutConsoleMessagesAndShowsVerdictTablesAndFigures) {
  if (!ChromiumInstalled()) return;
  const fs::path png = out_ / "report.png";
  fs::remove(png);
  BrowserRun b = OpenInChromium(report_ / "report.html", png);
  ASSERT_EQ(b.exit_code, 0) << b.log;
  EXPECT_EQ(b.console, "") << "the page's console is not empty";
  // The screenshot, for the test log.
  ASSERT_TRUE(fs::exists(png)) << b.log;
  EXPECT_GT(fs::file_size(png), 20000u);
  EXPECT_EQ(testing_tools::ReadWholeFile(png.string()).substr(1, 3), "PNG");
  std::printf("report.html: %s\nscreenshot of report.html (chromium, 1280x2000): %s\n",
              (report_ / "report.html").c_str(), png.c_str());
  RecordProperty("screenshot", png.string());

  const std::string& dom = b.dom;
  auto md = detail::ReadTextFile((report_ / "report.md").string());
  ASSERT_TRUE(md.ok()) << md.error().message;
  // The verdict line: "**FAIL** — 2 PASS, ..." in report.md.
  std::smatch verdict;
  ASSERT_TRUE(std::regex_search(*md, verdict, std::regex(R"(\n\*\*(PASS|FAIL|INVALID)\*\* ([^\n]*))"))) << *md;
  EXPECT_THAT(dom, HasSubstr("<strong>" + verdict[1].str() + "</strong> " + verdict[2].str()));
  // Each scenario's row of the verdict table.
  for (const ScenarioResult& r : run_.scenarios) EXPECT_THAT(dom, HasSubstr("<td>" + r.id + "</td>")) << r.id;
  // Every table of report.md.
  size_t md_tables = 0;
  for (size_t p = md->find("\n|---"); p != std::string::npos; p = md->find("\n|---", p + 1)) ++md_tables;
  EXPECT_GT(md_tables, 5u);
  EXPECT_EQ(Count(dom, "<table>"), md_tables);
  // Each plot of the scenarios run, as an inline SVG in its figure.
  const std::vector<std::string> plots = PlotFilesOfRun(run_.scenarios);
  EXPECT_GE(plots.size(), 4u);
  for (std::string f : plots) {
    for (char& c : f) c = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
    size_t at = dom.find("<figure id=\"figure-" + f + "\">");
    ASSERT_NE(at, std::string::npos) << f;
    EXPECT_EQ(dom.find("<svg", at), dom.find('>', at) + 1) << f << ": no <svg> in its figure";
  }
  // Nothing loaded from anywhere: no img, script, link, iframe, object.
  for (const char* tag : {"<img", "<script", "<link", "<iframe", "<object", "<embed"}) {
    EXPECT_THAT(dom, Not(HasSubstr(tag))) << tag;
  }
  // The note is text.
  EXPECT_THAT(dom, HasSubstr("operator note: &lt;script&gt;alert('x')&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"));
  EXPECT_THAT(dom, Not(HasSubstr("<b>bold")));
}

// The console check sees a script error (so an empty console means something).
TEST_F(HtmlReportBrowser, ConsoleCheckCatchesAScriptError) {
  if (!ChromiumInstalled()) return;
  const fs::path page = out_ / "script-error.html";
  ASSERT_TRUE(detail::WriteTextFile(page.string(),
                                    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>e</title></head>"
                                    "<body><p>x</p><script>throw new Error('deliberate error');</script></body></html>")
                  .ok());
  BrowserRun b = OpenInChromium(page, out_ / "script-error.png");
  ASSERT_EQ(b.exit_code, 0) << b.log;
  EXPECT_THAT(b.console, HasSubstr("Uncaught Error: deliberate error")) << b.log;
}

// report.html's policy stops a load from the network, and the console says so.
TEST_F(HtmlReportBrowser, PageLoadsNothingFromTheNetwork) {
  if (!ChromiumInstalled()) return;
  auto html = detail::ReadTextFile((report_ / "report.html").string());
  ASSERT_TRUE(html.ok()) << html.error().message;
  std::string page_text = *html;
  page_text.insert(page_text.find("</body>"),
                   "<img src=\"http://127.0.0.1:9/fvbench-must-not-load.png\"><script>document.title='ran'</script>");
  const fs::path page = out_ / "report-with-network-image.html";
  ASSERT_TRUE(detail::WriteTextFile(page.string(), page_text).ok());
  BrowserRun b = OpenInChromium(page, out_ / "report-with-network-image.png");
  ASSERT_EQ(b.exit_code, 0) << b.log;
  EXPECT_THAT(b.console, HasSubstr("fvbench-must-not-load.png' violates the following Content Security Policy"))
      << b.log;
  EXPECT_THAT(b.console, HasSubstr("Executing inline script violates")) << b.log;
  EXPECT_THAT(b.dom, Not(HasSubstr("<title>ran</title>")));
}

}  // namespace
}  // namespace fvbench::html_report_browser_test
