// Text into GitHub-flavoured Markdown (GFM, as cmark-gfm and GitHub render
// it) so that what is shown is what was written: table cells, inline code,
// fenced blocks, and a report cut to the size a CI job summary accepts.
// Used by report.md (markdown_report.h) and its A/B section (ab_report.h).
// Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fvbench::detail {

// Longest text of one table cell, in bytes of the input: a longer one is cut
// at a UTF-8 boundary and ends "… (N more bytes; the whole text is in
// results.json)". A cell is one line of Markdown, so the report's size limit
// (FitMarkdownSections) can only drop whole cells.
inline constexpr size_t kMaxCellBytes = 4096;

// Text for one cell (or any inline text) that renders as exactly `text`:
//  - "\" is doubled first, then "|", "`", "*", "~", "[", "]", "$" get a
//    backslash (GFM: every ASCII punctuation character may be escaped);
//  - "_" gets one unless both neighbours are ASCII letters or digits
//    (intraword, never emphasis: p99_us stays p99_us);
//  - "<" before a letter, "/", "!" or "?" (an HTML tag or autolink) is
//    "&lt;", "&" before a letter or "#" (an entity) is "\&";
//  - a line break is "<br>" (trailing ones dropped), "\r" is dropped.
// Cut at kMaxCellBytes as said above. Leading and trailing spaces of a cell
// are not kept by GFM tables.
std::string MarkdownCell(std::string_view text);
void AppendMarkdownCell(std::string& out, std::string_view text);

// `text` as a GFM code span that shows it verbatim: delimited by one more
// backtick than its longest run of backticks, padded with a space when it
// starts or ends with a backtick. Line breaks become spaces (a code span is
// one line; GFM does the same).
std::string MarkdownCodeSpan(std::string_view text);

// The fence for a fenced code block holding `text`: backticks, one more than
// the longest run in `text`, at least three (so no line of `text` closes it).
std::string MarkdownFence(std::string_view text);

// A part of a Markdown document that may be shortened line by line.
struct MarkdownSection {
  std::string text;
  // Where the whole text is, for the line that says it was shortened, e.g.
  // "scenarios[].steps". "" = never shortened (headers, the verdict line).
  std::string whole_text_in;
};

// The sections joined, at most `max_bytes` long (when the unshortenable ones
// fit). When they do not fit, the longest sections are shortened to one cap
// (the largest that fits) by dropping whole lines at their end; a fenced code
// block or <details> open at the cut is closed, and a paragraph says how many
// lines were left out and where the whole text is:
//   *[report.md shortened to stay within N bytes: 120 of 20004 lines of this
//   section shown; the whole text is in results.json beside this file
//   (scenarios[].steps)]*
std::string FitMarkdownSections(const std::vector<MarkdownSection>& sections, size_t max_bytes);

}  // namespace fvbench::detail
