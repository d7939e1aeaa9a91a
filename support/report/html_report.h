// report.html: report.md as one self-contained HTML page a browser shows
// with no network and no other file: the Markdown rendered by cmark-gfm
// (libcmark-gfm, GitHub's GFM renderer, with its table, strikethrough and
// autolink extensions; raw HTML is filtered as said below, not by the
// tagfilter extension, which would also break an SVG's <title>), every SVG
// of the report directory that report.md links or shows put into the page,
// and a small inline stylesheet.
// Pure: the caller reads report.md and the SVG files (report_step.cc).
//
// What reaches the page:
//  - text of report.md (scenario ids, notes, error messages) only as text:
//    raw HTML in the Markdown is kept only when it is made of the tags
//    report.md writes itself, without attributes (<details>, <summary>,
//    <br>, their end tags; kAllowedHtmlTags); any other raw HTML (a note
//    holding "<script>") is shown as the text it is;
//  - a link or image to a local SVG (IsLocalReportPath, a key of `svgs`):
//    the SVG markup itself (from its "<svg" to its last "</svg>", so without
//    an XML declaration), as an image in place, or for a link as a <figure
//    id="figure-<name>"> after the block holding the first link to it, the
//    link then pointing to that figure. An SVG without "<svg ... </svg>" is
//    not put in: the link stays a link to the file beside the page;
//  - other links: "#anchor", http(s) and mailto as they are (followed only
//    when clicked); a local path (a file beside the page, e.g. a .folded)
//    as a relative link; anything else (an absolute path, "..", file:,
//    javascript:, data:) loses its target and keeps its text;
//  - an image that is not a local SVG is never loaded: its alt text and
//    address are shown as text.
// The page's Content-Security-Policy (kHtmlReportCsp) allows no script, no
// request of any kind and only inline styles and data: images: whatever got
// through the rules above can neither run nor fetch.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

inline constexpr char kHtmlReportCsp[] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

// The raw-HTML tags of report.md kept in the page (without attributes).
inline constexpr const char* kAllowedHtmlTags[] = {"details", "summary", "br"};

// True when `url` names a file in the report directory or below it: made of
// ASCII letters, digits, '.', '_', '-' and '/' only, not starting with '/',
// no empty, "." or ".." segment. So no scheme, query, fragment, escape or
// absolute path.
bool IsLocalReportPath(std::string_view url);

// The page. `markdown`: report.md's text; `svgs`: file name (relative to the
// report directory, as report.md links it) -> SVG text; `title`: the page's
// <title>. An error only when cmark-gfm cannot parse (out of memory) or its
// extensions are missing.
Result<std::string> RenderHtmlReport(std::string_view markdown, const std::map<std::string, std::string>& svgs,
                                     std::string_view title);

}  // namespace fvbench
