// report.md as GitHub shows it: rendered by cmark-gfm (tests/unit/gfm_render.h),
// every cell and list item that carries text from the results or the run's
// meta must show exactly that text; and the report stays within the size a
// CI job summary accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "support/core/json_fields.h"
#include "support/report/markdown_report.h"
#include "support/judge/reference.h"
#include "support/report/results_io.h"
#include "support/judge/thresholds.h"
#include "support/judge/verdict.h"
#include "tests/unit/golden.h"
#include "tests/unit/golden_run.h"
#include "tests/unit/gfm_render.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::markdown_gfm_test {
namespace {

using testing_gfm::GfmNode;
using testing_gfm::RenderGfm;
using testing_gfm::ShownText;
using testing_gfm::TablesHeaded;

// What a cell shows of `text`: GFM drops "\r" and trims the cell; a line
// break shows as one (<br>), trailing ones are dropped.
std::string Shown(std::string text) {
  std::erase(text, '\r');
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  while (!text.empty() && text.front() == ' ') text.erase(0, 1);
  return text;
}

// Texts with every character GFM gives a meaning to, alone and combined.
const std::vector<std::string> kTricky = {
    "prof\\|x.json", "a|b", "||", "|", "\\|", "\\\\|", "a\\b", "\\", "ends with \\", "a\\*b",
    "*x*", "**bold**", "_x_", "__x__", "p99_us", "snake_case_name", "_leading", "trailing_", "a _b_ c",
    "[a](b)", "![i](j)", "[^1]", "[ref]", "`code`", "``x``", "` `", "<b>bold</b>", "<!-- c -->", "<http://a.b>",
    "a <= 5 > 3", "<", "&lt;", "&amp;", "&#65;", "&#x41;", "a & b", "~~s~~", "~s~", "$x$", "$$y$$",
    "http://example.com/a_b_c", "www.example.com", "mail@example.com", "# not a heading", "- not a list",
    "1. one", "> quote", "line1\nline2", "two\n\nbreaks", "ünï *cødé* 𝄞", "{{x}} %s %n", "[x] task", "a:b:c:",
    "\x1b[31mred\x1b[0m"};

TEST(MarkdownGfm, CellsShowWhatWasWritten) {
  std::string md = "| text |\n|---|\n";
  for (const std::string& t : kTricky) md += "| " + detail::MarkdownCell(t) + " |\n";
  GfmNode doc = RenderGfm(md);
  ASSERT_EQ(doc.name, "document") << doc.name;
  auto tables = TablesHeaded(doc, "text");
  ASSERT_EQ(tables.size(), 1u) << md;
  ASSERT_EQ(tables[0].size(), kTricky.size() + 1) << md;
  for (size_t i = 0; i < kTricky.size(); ++i) {
    EXPECT_EQ(tables[0][i + 1][0], Shown(kTricky[i])) << "markdown: " << detail::MarkdownCell(kTricky[i]);
  }
}

TEST(MarkdownGfm, CodeSpansShowWhatWasWritten) {
  std::string md;
  for (const std::string& t : {std::string("a`b"), std::string("``x``"), std::string("`"), std::string("p*q|r"),
                               std::string("https://github.com/fairvisor/edge")}) {
    md += "- " + detail::MarkdownCodeSpan(t) + "\n";
  }
  GfmNode doc = RenderGfm(md);
  std::vector<const GfmNode*> codes;
  testing_gfm::Collect(doc, "code", codes);
  ASSERT_EQ(codes.size(), 5u) << md;
  EXPECT_EQ(codes[0]->text, "a`b");
  EXPECT_EQ(codes[1]->text, "``x``");
  EXPECT_EQ(codes[2]->text, "`");
  EXPECT_EQ(codes[3]->text, "p*q|r");
}

// Every table cell of a rendered report: no markup that came from the input
// (only the report's own bold FAIL / INVALID).
void ExpectNoMarkupInCells(const GfmNode& doc) {
  std::vector<const GfmNode*> cells;
  testing_gfm::Collect(doc, "table_cell", cells);
  ASSERT_FALSE(cells.empty());
  for (const GfmNode* cell : cells) {
    for (const char* markup : {"emph", "image", "strikethrough", "code", "footnote_reference"}) {
      std::vector<const GfmNode*> found;
      testing_gfm::Collect(*cell, markup, found);
      EXPECT_TRUE(found.empty()) << markup << " in cell '" << ShownText(*cell) << "'";
    }
    // A URL GitHub makes clickable (the autolink extension) shows as written.
    std::vector<const GfmNode*> links;
    testing_gfm::Collect(*cell, "link", links);
    for (const GfmNode* l : links) {
      const std::string text = ShownText(*l), dest = l->attrs.at("destination");
      EXPECT_TRUE(dest.size() >= text.size() && dest.compare(dest.size() - text.size(), text.size(), text) == 0)
          << "link '" << text << "' to '" << dest << "' in cell '" << ShownText(*cell) << "'";
    }
    std::vector<const GfmNode*> strong;
    testing_gfm::Collect(*cell, "strong", strong);
    for (const GfmNode* s : strong) {
      std::string t = ShownText(*s);
      EXPECT_TRUE(t == "FAIL" || t == "INVALID") << "bold '" << t << "' in cell '" << ShownText(*cell) << "'";
    }
    EXPECT_EQ(ShownText(*cell).find("<html:"), std::string::npos) << "raw HTML in cell '" << ShownText(*cell) << "'";
  }
}

// The cells that carry text from the results and the meta show it as written:
// the verdict table (id, verdict, why), every search step's verdict, the
// environment's profile and comparison, each note, each error message.
void ExpectTextAsWritten(const std::vector<ScenarioResult>& run, const RunMeta& meta, const Reference* cmp) {
  const std::string md = RenderMarkdownReport(run, meta, cmp);
  GfmNode doc = RenderGfm(md);
  ASSERT_EQ(doc.name, "document") << doc.name;
  ExpectNoMarkupInCells(doc);

  auto verdicts = TablesHeaded(doc, "Scenario");
  ASSERT_FALSE(verdicts.empty());
  ASSERT_EQ(verdicts[0].size(), run.size() + 1);
  for (size_t i = 0; i < run.size(); ++i) {
    const Judgement j = JudgeScenario(run[i]);
    const std::string& why = j.summary;
    EXPECT_EQ(verdicts[0][i + 1], (std::vector<std::string>{Shown(run[i].id), VerdictName(j.verdict),
                                                            why.empty() ? "—" : Shown(why)}));
  }

  auto steps = TablesHeaded(doc, "#");
  size_t t = 0;
  for (const char* id : kThroughputScenarios) {  // the report's order
    auto it = std::find_if(run.begin(), run.end(), [&](const ScenarioResult& x) { return x.id == id; });
    if (it == run.end() || it->steps.empty()) continue;
    const ScenarioResult& r = *it;
    ASSERT_LT(t, steps.size()) << r.id;
    ASSERT_EQ(steps[t].size(), r.steps.size() + 1) << r.id;
    for (size_t i = 0; i < r.steps.size(); ++i) {
      const StepResult& s = r.steps[i];
      EXPECT_EQ(steps[t][i + 1].back(), Shown(s.verdict.empty() ? (s.passed ? "pass" : "fail") : s.verdict));
    }
    ++t;
  }

  auto env = TablesHeaded(doc, "");
  ASSERT_EQ(env.size(), 1u);
  std::map<std::string, std::string> rows;
  for (const auto& row : env[0]) rows[row[0]] = row[1];
  EXPECT_EQ(rows["Thresholds"], meta.thresholds_profile.empty() ? "none" : Shown(meta.thresholds_profile));
  if (cmp != nullptr) {
    EXPECT_EQ(rows[cmp->baseline ? "Baseline" : "Reference"], Shown(cmp->describe()));
  }

  std::vector<std::string> items, want_items;
  std::vector<const GfmNode*> paragraphs;
  testing_gfm::Collect(doc, "item", paragraphs);
  for (const GfmNode* item : paragraphs) {
    if (!item->children.empty()) items.push_back(ShownText(item->children[0]));
  }
  for (const ScenarioResult& r : run) {
    if (!r.measured || !r.error.empty()) {
      want_items.push_back(r.id + " (" + (r.measured ? "after measuring" : "FAILED before measuring") + "):");
    }
  }
  for (const ScenarioResult& r : run) {
    for (const std::string& n : r.notes) want_items.push_back(r.id + ": " + Shown(n));
  }
  EXPECT_EQ(items, want_items);

  std::vector<const GfmNode*> blocks;
  testing_gfm::Collect(doc, "code_block", blocks);
  size_t b = 0;
  for (const ScenarioResult& r : run) {
    if (r.measured && r.error.empty()) continue;
    ASSERT_LT(b, blocks.size());
    EXPECT_EQ(blocks[b]->text, (r.error.empty() ? "(no error message recorded)" : r.error) + "\n");
    ++b;
  }
}

// The recorded local run (fixtures/report/recorded_local_run.json) as if its
// profile had been thresholds-name-backslash-pipe.json saved as prof\|x.json.
TEST(MarkdownGfm, RecordedRunShowsTextAsWritten) {
  const std::string path = testing_golden::FixturesDir() + "/report/recorded_local_run.json";
  auto text = detail::ReadTextFile(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto rec = RunResultsFromJson(*text, path);
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  auto ref = LoadReference(FVBENCH_SOURCE_DIR "/reference.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  rec->meta.thresholds_profile = "/path/to/fvbench/thresholds/prof\\|x.json";
  ExpectTextAsWritten(rec->scenarios, rec->meta, &*ref);
}

// The golden run (fixtures/golden/report.md) with every character GFM gives
// a meaning to in its messages, notes, step verdicts, validity details and
// environment.
TEST(MarkdownGfm, GoldenRunWithTrickyTextShowsTextAsWritten) {
  auto run = testing_samples::GoldenRun();
  ASSERT_EQ(run[2].id, "latency.reverse_proxy");
  run[2].error = "edge said *x* [a](b) `x` <b>y</b> a|b prof\\|x ~~s~~ $m$\nsecond ``` line";
  run[0].notes = kTricky;
  run[1].error = "after: _u_ & &amp;";
  ASSERT_EQ(run[3].id, "throughput.simple");
  for (size_t i = 0; i < run[3].steps.size(); ++i) run[3].steps[i].verdict = kTricky[i % kTricky.size()];
  run[4].validity = {{"loadgen_cpu", false, false, "<=", 0.97, 0.8, "cpus *0-1* [busy](x) |"}};
  RunMeta meta = testing_samples::SampleMeta();
  meta.thresholds_profile = "/p/prof\\|x *y* [z](w).json";
  meta.engine_version = "wrk `4.1` <b>";
  Reference ref = testing_samples::TestReference();
  ref.meta["source"] = "ref _with_ *marks* | [and](links)";
  ExpectTextAsWritten(run, meta, &ref);
}

// fixtures/odd_inputs/thresholds-name-backslash-pipe.json used as a profile
// named prof\|x.json: report.md wrote prof\\|x.json, which GFM shows as
// prof|x.json.
TEST(MarkdownGfm, ProfileNamedWithBackslashPipeShowsItsName) {
  const std::string dir = ::testing::TempDir() + "fvbench_md_profile/";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "prof\\|x.json";
  std::filesystem::copy_file(testing_golden::FixturesDir() + "/odd_inputs/thresholds-name-backslash-pipe.json", path,
                             std::filesystem::copy_options::overwrite_existing);
  auto profile = LoadThresholdProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  auto run = testing_samples::SampleRunAllMeasured();
  for (ScenarioResult& r : run) r.checks = Evaluate(*profile, r, nullptr);
  RunMeta meta = testing_samples::SampleMeta();
  meta.thresholds_profile = path;
  GfmNode doc = RenderGfm(RenderMarkdownReport(run, meta, nullptr));
  auto env = TablesHeaded(doc, "");
  ASSERT_EQ(env.size(), 1u);
  bool found = false;
  for (const auto& row : env[0]) {
    if (row[0] != "Thresholds") continue;
    found = true;
    EXPECT_EQ(row[1], path);
  }
  EXPECT_TRUE(found);
  std::filesystem::remove_all(dir);
}

// A section cut inside a fenced block and inside <details>: both are closed,
// the note is a paragraph of its own, the next section renders as written.
TEST(MarkdownGfm, ShortenedSectionClosesItsBlocks) {
  std::string details = "<details><summary>steps</summary>\n\n| # | Step |\n|---|---|\n";
  for (int i = 0; i < 200; ++i) details += "| " + std::to_string(i) + " | pass |\n";
  details += "\n</details>\n\n";
  std::string fenced = "- `x` (FAILED before measuring):\n\n  ````text\n";
  for (int i = 0; i < 200; ++i) fenced += "  line " + std::to_string(i) + " ``` not a fence\n";
  fenced += "  ````\n\n";
  std::vector<detail::MarkdownSection> sections = {{"## head\n\n", ""},
                                                   {details, "scenarios[].steps"},
                                                   {fenced, "scenarios[].error"},
                                                   {"| | |\n|---|---|\n| last | row |\n", ""}};
  const std::string md = detail::FitMarkdownSections(sections, 4000);
  EXPECT_LE(md.size(), 4000u);
  GfmNode doc = RenderGfm(md);
  auto last = TablesHeaded(doc, "");
  ASSERT_EQ(last.size(), 1u) << md;
  EXPECT_EQ(last[0][1], (std::vector<std::string>{"last", "row"}));
  std::vector<const GfmNode*> paragraphs;
  testing_gfm::Collect(doc, "paragraph", paragraphs);
  int notes = 0;
  for (const GfmNode* p : paragraphs) notes += ShownText(*p).rfind("(shortened: ", 0) == 0;
  EXPECT_EQ(notes, 2) << md;
  std::vector<const GfmNode*> blocks;
  testing_gfm::Collect(doc, "code_block", blocks);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0]->text.rfind("line 0 ``` not a fence\n", 0), 0u);
  // Everything fits: joined unchanged.
  EXPECT_EQ(detail::FitMarkdownSections(sections, 1 << 20), sections[0].text + details + fenced + sections[3].text);
}

// A run that would write megabytes: 20000 search steps, a 3 MB error
// message, 20000 notes, a 100 kB note. report.md stays within
// kMaxReportMdBytes, every shortened section says where the whole text is,
// and what follows a shortened section still renders (fences and <details>
// were closed).
TEST(MarkdownGfm, LongReportIsShortenedToFitAJobSummary) {
  auto run = testing_samples::SampleRunAllMeasured();
  ScenarioResult& simple = run[3];
  const StepResult step = simple.steps[0];
  simple.steps.assign(20000, step);
  run[2].measured = false;
  run[2].error = "```\n" + std::string(3000000, 'e');
  run[0].notes.push_back(std::string(100000, 'n'));
  for (int i = 0; i < 20000; ++i) run[0].notes.push_back("note " + std::to_string(i) + " *kept as written*");
  const std::string md = RenderMarkdownReport(run, testing_samples::SampleMeta(), nullptr);
  EXPECT_LE(md.size(), kMaxReportMdBytes);
  EXPECT_GT(md.size(), kMaxReportMdBytes * 9 / 10) << "shortened far more than needed";
  GfmNode doc = RenderGfm(md);
  ASSERT_EQ(doc.name, "document") << doc.name;
  std::vector<const GfmNode*> paragraphs;
  testing_gfm::Collect(doc, "paragraph", paragraphs);
  std::set<std::string> shortened;
  for (const GfmNode* p : paragraphs) {
    std::string t = ShownText(*p);
    if (t.rfind("(shortened: ", 0) == 0) {
      EXPECT_NE(t.find("the whole text is in results.json beside this file: scenarios[]."), std::string::npos) << t;
      shortened.insert(t.substr(t.rfind(": ") + 2));
    }
  }
  EXPECT_TRUE(shortened.count("scenarios[].steps)")) << md.substr(0, 2000);
  EXPECT_TRUE(shortened.count("scenarios[].notes)"));
  // The error message is cut (16 KiB) before any section is shortened.
  EXPECT_NE(md.find("more bytes; the whole message is in results.json beside this file: scenarios[].error)"),
            std::string::npos);
  // The environment table, last in the report, still renders as a table.
  auto env = TablesHeaded(doc, "");
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(env[0][1][0], "Load engine");
  // A cell longer than kMaxCellBytes is cut, saying so.
  EXPECT_NE(md.find(" … (95904 more bytes; the whole text is in results.json)"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::markdown_gfm_test
