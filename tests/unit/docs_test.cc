// The documentation stays true: README.md, CONTRIBUTING.md and docs/*.md
// (and the other Markdown files of the tree) render with cmark-gfm, GitHub's
// own renderer, without markup left showing as text; every relative link
// resolves to a file or folder of the tree and, with a #fragment, to a
// heading of that file as GitHub names its anchors; every section a source
// file names (`README.md "Section"`, `docs/page.md "Section"`) exists; and
// the README's test command is what .ci/run runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/unit/external_tool.h"
#include "tests/unit/gfm_render.h"
#include "fvbench/source_dir.h"

namespace fvbench::docs_test {
namespace {

namespace fs = std::filesystem;
using testing_gfm::GfmNode;

const fs::path kSource = FVBENCH_SOURCE_DIR;

std::string Relative(const fs::path& p) { return fs::relative(p, kSource).string(); }

// The Markdown files people read: README.md, CONTRIBUTING.md, docs/, and the
// READMEs beside the files they describe (thresholds/, fixtures/*/).
std::vector<fs::path> MarkdownFiles() {
  std::vector<fs::path> out = {kSource / "README.md", kSource / "CONTRIBUTING.md"};
  for (const auto& e : fs::directory_iterator(kSource / "docs")) {
    if (e.path().extension() == ".md") out.push_back(e.path());
  }
  out.push_back(kSource / "thresholds" / "README.md");
  for (const auto& e : fs::directory_iterator(kSource / "fixtures")) {
    if (e.is_directory() && fs::exists(e.path() / "README.md")) out.push_back(e.path() / "README.md");
  }
  std::sort(out.begin() + 2, out.end());
  return out;
}

struct Page {
  std::string text;
  GfmNode doc;
};

const Page& Rendered(const fs::path& p) {
  static std::map<fs::path, Page> cache;
  auto it = cache.find(p);
  if (it != cache.end()) return it->second;
  Page page;
  page.text = testing_tools::ReadWholeFile(p.string());
  page.doc = testing_gfm::RenderGfm(page.text);
  return cache.emplace(p, std::move(page)).first->second;
}

// GitHub's anchor of a heading: its text lower-cased, every character that
// is not a letter, digit, '_', '-' or space dropped, spaces turned into '-'
// (a repeated anchor gets -1, -2, ...). Non-ASCII: letters are kept, the
// punctuation and symbol blocks this project's text uses (Latin-1 symbols,
// U+2000..U+2BFF: dashes, quotes, arrows, math) dropped.
std::string Anchor(const std::string& heading) {
  std::string out;
  for (size_t i = 0; i < heading.size();) {
    const unsigned char ch = heading[i];
    if (ch < 0x80) {
      if (std::isalnum(ch) || ch == '_' || ch == '-') out += static_cast<char>(std::tolower(ch));
      if (ch == ' ') out += '-';
      ++i;
      continue;
    }
    const size_t len = ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : 2;
    unsigned cp = ch & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < len && i + k < heading.size(); ++k) cp = (cp << 6) | (heading[i + k] & 0x3F);
    const bool symbol = (cp >= 0xA0 && cp <= 0xBF && cp != 0xB5) || cp == 0xD7 || cp == 0xF7 ||
                        (cp >= 0x2000 && cp <= 0x2BFF);
    if (!symbol) out += heading.substr(i, len);
    i += len;
  }
  return out;
}

std::vector<std::string> Headings(const fs::path& p) {
  std::vector<const GfmNode*> nodes;
  testing_gfm::Collect(Rendered(p).doc, "heading", nodes);
  std::vector<std::string> out;
  for (const GfmNode* h : nodes) out.push_back(testing_gfm::ShownText(*h));
  return out;
}

std::set<std::string> Anchors(const fs::path& p) {
  std::set<std::string> out;
  std::map<std::string, int> seen;
  for (const std::string& h : Headings(p)) {
    std::string a = Anchor(h);
    const int n = seen[a]++;
    out.insert(n == 0 ? a : a + "-" + std::to_string(n));
  }
  return out;
}

TEST(Docs, AnchorsAreGithubs) {
  EXPECT_EQ(Anchor("A/B mode"), "ab-mode");
  EXPECT_EQ(Anchor("Remote mode (two hosts over SSH)"), "remote-mode-two-hosts-over-ssh");
  EXPECT_EQ(Anchor("The load generator's own limits"), "the-load-generators-own-limits");
  EXPECT_EQ(Anchor("Step 1 – probe × 2"), "step-1--probe--2");
  EXPECT_EQ(Anchor("p99 in µs"), "p99-in-µs");
  EXPECT_EQ(Anchor("FVBENCH_AB and REPEAT"), "fvbench_ab-and-repeat");
}

TEST(Docs, EveryPageRendersWithCmarkGfm) {
  const std::regex fence(R"(^ {0,3}(```|~~~))");
  for (const fs::path& p : MarkdownFiles()) {
    const Page& page = Rendered(p);
    ASSERT_EQ(page.doc.name, "document") << Relative(p) << ": " << page.doc.name;
    // An unclosed fence turns the rest of the page into code.
    std::istringstream lines(page.text);
    std::string line;
    int fences = 0;
    while (std::getline(lines, line)) fences += std::regex_search(line, fence) ? 1 : 0;
    EXPECT_EQ(fences % 2, 0) << Relative(p) << ": a code fence (```) is not closed";
    // Markup GitHub would show as text: a link or a table that did not parse.
    std::vector<const GfmNode*> texts;
    testing_gfm::Collect(page.doc, "text", texts);
    for (const GfmNode* t : texts) {
      EXPECT_EQ(t->text.find("]("), std::string::npos) << Relative(p) << ": a link shows as text: " << t->text;
      const bool row = t->text.size() > 1 && t->text.front() == '|' && t->text.back() == '|';
      EXPECT_FALSE(row) << Relative(p) << ": a table row shows as text (does the delimiter row have as many "
                        << "cells as the header?): " << t->text;
    }
  }
}

TEST(Docs, RelativeLinksResolve) {
  const std::regex scheme(R"(^[a-zA-Z][a-zA-Z0-9+.-]*:)");
  int checked = 0;
  for (const fs::path& p : MarkdownFiles()) {
    std::vector<const GfmNode*> links;
    testing_gfm::Collect(Rendered(p).doc, "link", links);
    testing_gfm::Collect(Rendered(p).doc, "image", links);
    for (const GfmNode* l : links) {
      const std::string dest = l->attrs.at("destination");
      if (std::regex_search(dest, scheme) || dest.rfind("//", 0) == 0) continue;
      ++checked;
      const size_t hash = dest.find('#');
      const std::string path = dest.substr(0, hash);
      const std::string fragment = hash == std::string::npos ? "" : dest.substr(hash + 1);
      const fs::path target = path.empty() ? p : (p.parent_path() / path).lexically_normal();
      const std::string where = Relative(p) + ": link " + dest;
      if (!fs::exists(target)) {
        ADD_FAILURE() << where << ": no such file or folder " << Relative(target);
        continue;
      }
      if (Relative(target).rfind("..", 0) == 0) ADD_FAILURE() << where << ": outside the repository";
      if (fragment.empty()) continue;
      if (target.extension() != ".md") {
        ADD_FAILURE() << where << ": a #fragment on a file that is not Markdown";
        continue;
      }
      const std::set<std::string> anchors = Anchors(target);
      EXPECT_TRUE(anchors.count(fragment)) << where << ": " << Relative(target) << " has no heading with anchor #"
                                           << fragment;
    }
  }
  EXPECT_GT(checked, 50) << "too few relative links found: is cmark-gfm's output parsed?";
}

// Source files that may name a section of the documentation.
bool MayNameSections(const fs::path& p) {
  const std::string name = p.filename().string(), ext = p.extension().string();
  return ext == ".cc" || ext == ".h" || ext == ".sh" || ext == ".lua" || ext == ".js" || name == "CMakeLists.txt" ||
         name == "run" || (ext == ".json" && name.find("Presets") != std::string::npos) || name == "configure.json";
}

// README "X", README: "X", docs/page.md "X", docs/page.md ("X"), CONTRIBUTING.md "X" (quotes
// escaped or not; X starts with a capital letter; a section named over two
// lines fails): the file must have a heading X. A directory's own README (thresholds/README.md) is not matched.
TEST(Docs, EverySectionTheSourcesNameExists) {
  const std::regex ref(R"re((^|[^A-Za-z0-9_./-])(README|CONTRIBUTING|docs/[a-z0-9-]+)(\.md)?(: *| +\(?)\\?"([A-Z][^"\\]*)\\?")re");
  std::vector<fs::path> files = {kSource / "CMakeLists.txt", kSource / "CMakePresets.json",
                                 kSource / "CTestPresets.json", kSource / ".ci" / "run"};
  for (const char* dir : {"support", "fixtures", "tests", "tools", "k6"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource / dir)) {
      // Not this file: its comments show the forms it matches.
      if (e.is_regular_file() && MayNameSections(e.path()) && e.path().string().find("/golden/") == std::string::npos &&
          e.path().string().find("/node_modules/") == std::string::npos && e.path().filename() != "docs_test.cc") {
        files.push_back(e.path());
      }
    }
  }
  int named = 0;
  for (const fs::path& f : files) {
    const std::string text = testing_tools::ReadWholeFile(f.string());
    for (std::sregex_iterator it(text.begin(), text.end(), ref), end; it != end; ++it) {
      const std::string doc = (*it)[2].str() + ".md", section = (*it)[5];
      ++named;
      const fs::path target = kSource / doc;
      const std::string where = Relative(f) + ": " + (*it)[2].str() + (*it)[3].str() + " \"" + section + "\"";
      if (!fs::exists(target)) {
        ADD_FAILURE() << where << ": no file " << doc;
        continue;
      }
      const std::vector<std::string> headings = Headings(target);
      EXPECT_TRUE(std::find(headings.begin(), headings.end(), section) != headings.end())
          << where << ": " << doc << " has no section \"" << section << "\"";
    }
  }
  EXPECT_GT(named, 10) << "too few section references found";
}

// A line of .ci/run as the command it runs: without `step <name> ` (the
// wrapper that keeps its output in build/ci-logs) and leading VAR=value
// assignments; `bash fixtures/secrets/watched-run.sh <preset>` runs
// `ctest --preset <preset>` under the command-line watcher.
std::string CiCommand(std::string line) {
  static const std::regex step(R"(^step [A-Za-z0-9_-]+ )");
  static const std::regex assignment(R"(^[A-Za-z_][A-Za-z0-9_]*=[^ ]* )");
  static const std::regex watched(R"(^bash fixtures/secrets/watched-run\.sh ([A-Za-z0-9_-]+)$)");
  line = std::regex_replace(line, step, "");
  while (std::regex_search(line, assignment)) line = std::regex_replace(line, assignment, "", std::regex_constants::format_first_only);
  std::smatch m;
  if (std::regex_match(line, m, watched)) return "ctest --preset " + m[1].str();
  return line;
}

// The README's test command (its first ```sh line running `ctest --preset
// unit`; fixtures/clean-root/run.sh reads it the same way) is what .ci/run
// runs: each of its `&&` parts is a line of .ci/run (CiCommand), in that order.
TEST(Docs, ReadmesTestCommandIsWhatCiRuns) {
  const std::string readme = testing_tools::ReadWholeFile((kSource / "README.md").string());
  const std::string ci = testing_tools::ReadWholeFile((kSource / ".ci" / "run").string());
  std::istringstream lines(readme);
  std::string line, command;
  bool in_sh = false;
  while (std::getline(lines, line)) {
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (in_sh && line.rfind("#", 0) != 0 && line.find("ctest --preset unit") != std::string::npos) {
      command = line;
      break;
    }
  }
  ASSERT_FALSE(command.empty()) << "README.md: no ```sh line with ctest --preset unit";
  std::vector<std::string> ci_lines;
  std::istringstream ci_in(ci);
  while (std::getline(ci_in, line)) ci_lines.push_back(CiCommand(line));
  size_t from = 0;
  size_t start = 0;
  while (start <= command.size()) {
    size_t amp = command.find(" && ", start);
    std::string part = command.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    auto found = std::find(ci_lines.begin() + static_cast<long>(from), ci_lines.end(), part);
    EXPECT_TRUE(found != ci_lines.end()) << "README.md's test command runs '" << part
                                     << "', which is not a line of .ci/run (after the parts before it)";
    if (found != ci_lines.end()) from = static_cast<size_t>(found - ci_lines.begin()) + 1;
    if (amp == std::string::npos) break;
    start = amp + 4;
  }
}

}  // namespace
}  // namespace fvbench::docs_test
