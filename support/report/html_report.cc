#include "support/report/html_report.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <set>
#include <vector>

#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Raw HTML made only of kAllowedHtmlTags (start or end tags, no attributes)
// and text without '<' or '>' between them.
bool AllowedRawHtml(std::string_view html) {
  size_t i = 0;
  while (i < html.size()) {
    if (html[i] == '>') return false;
    if (html[i] != '<') {
      ++i;
      continue;
    }
    size_t close = html.find('>', i);
    if (close == std::string_view::npos) return false;
    std::string_view tag = html.substr(i + 1, close - i - 1);
    if (StartsWith(tag, "/")) {
      tag.remove_prefix(1);
    } else if (tag.size() > 1 && tag.substr(tag.size() - 2) == " /") {
      tag.remove_suffix(2);
    } else if (!tag.empty() && tag.back() == '/') {
      tag.remove_suffix(1);
    }
    if (std::none_of(std::begin(kAllowedHtmlTags), std::end(kAllowedHtmlTags),
                     [&](const char* t) { return tag == t; })) {
      return false;
    }
    i = close + 1;
  }
  return true;
}

// The SVG element of an SVG file: from "<svg" to the end of its last
// "</svg>"; "" when there is none.
std::string SvgElement(const std::string& svg) {
  size_t start = svg.find("<svg");
  size_t end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos || end < start) return "";
  char after = start + 4 < svg.size() ? svg[start + 4] : '\0';
  if (after != ' ' && after != '\n' && after != '\t' && after != '\r' && after != '>') return "";
  return svg.substr(start, end + 6 - start);
}

std::string FigureId(const std::string& name) {
  std::string id = "figure-";
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
  return id;
}

cmark_node* NewNode(cmark_node_type type, const std::string& literal) {
  cmark_node* n = cmark_node_new(type);
  cmark_node_set_literal(n, literal.c_str());
  return n;
}

// `node` replaced by `with`.
void Replace(cmark_node* node, cmark_node* with) {
  cmark_node_insert_before(node, with);
  cmark_node_free(node);
}

// `link` replaced by its children (its text stays, its target goes).
void Unlink(cmark_node* link) {
  while (cmark_node* child = cmark_node_first_child(link)) {
    cmark_node_unlink(child);
    cmark_node_insert_before(link, child);
  }
  cmark_node_free(link);
}

// The block directly under the document that holds `node`.
cmark_node* TopBlock(cmark_node* node) {
  while (cmark_node_parent(node) && cmark_node_get_type(cmark_node_parent(node)) != CMARK_NODE_DOCUMENT) {
    node = cmark_node_parent(node);
  }
  return node;
}

// The text a reader sees of an image: its alt text (the image's children).
std::string AltText(cmark_node* image) {
  std::string alt;
  cmark_iter* it = cmark_iter_new(image);
  for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
    cmark_node* n = cmark_iter_get_node(it);
    if (ev == CMARK_EVENT_ENTER && (cmark_node_get_type(n) == CMARK_NODE_TEXT || cmark_node_get_type(n) == CMARK_NODE_CODE)) {
      alt += cmark_node_get_literal(n);
    }
  }
  cmark_iter_free(it);
  return alt;
}

class Page {
 public:
  explicit Page(const std::map<std::string, std::string>& svgs) : svgs_(svgs) {}

  // Applies the rules of html_report.h to the document's nodes.
  void Rewrite(cmark_node* doc) {
    std::vector<cmark_node*> nodes;
    cmark_iter* it = cmark_iter_new(doc);
    for (cmark_event_type ev; (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
      if (ev == CMARK_EVENT_ENTER) nodes.push_back(cmark_iter_get_node(it));
    }
    cmark_iter_free(it);
    // Images first: an image inside a link is replaced before the link moves it.
    for (cmark_node* n : nodes) {
      if (cmark_node_get_type(n) == CMARK_NODE_IMAGE) Image(n);
    }
    for (cmark_node* n : nodes) {
      switch (cmark_node_get_type(n)) {
        case CMARK_NODE_HTML_INLINE: RawHtml(n, CMARK_NODE_TEXT); break;
        case CMARK_NODE_HTML_BLOCK: RawHtml(n, CMARK_NODE_CODE_BLOCK); break;
        case CMARK_NODE_LINK: Link(n); break;
        default: break;
      }
    }
  }

 private:
  // The SVG element of a local file of `svgs`, or "".
  std::string Svg(const char* url) const {
    if (url == nullptr || !IsLocalReportPath(url)) return "";
    auto f = svgs_.find(url);
    return f == svgs_.end() ? "" : SvgElement(f->second);
  }

  void RawHtml(cmark_node* n, cmark_node_type shown_as) {
    const char* literal = cmark_node_get_literal(n);
    std::string text = literal ? literal : "";
    if (AllowedRawHtml(text)) return;
    if (shown_as == CMARK_NODE_TEXT) {
      Replace(n, NewNode(CMARK_NODE_TEXT, text));
    } else {
      Replace(n, NewNode(CMARK_NODE_CODE_BLOCK, text));
    }
  }

  void Image(cmark_node* n) {
    const char* url = cmark_node_get_url(n);
    std::string svg = Svg(url);
    if (!svg.empty()) {
      Replace(n, NewNode(CMARK_NODE_HTML_INLINE, svg));
      return;
    }
    Replace(n, NewNode(CMARK_NODE_TEXT, "[image not embedded: " + AltText(n) + " (" + (url ? url : "") + ")]"));
  }

  void Link(cmark_node* n) {
    const char* u = cmark_node_get_url(n);
    const std::string url = u ? u : "";
    if (StartsWith(url, "#") || StartsWith(url, "http://") || StartsWith(url, "https://") ||
        StartsWith(url, "mailto:")) {
      return;
    }
    if (!IsLocalReportPath(url)) {
      Unlink(n);
      return;
    }
    std::string svg = Svg(url.c_str());
    if (svg.empty()) return;  // a file beside the page
    const std::string id = FigureId(url);
    if (placed_.insert(url).second) {
      std::string figure = "<figure id=\"" + id + "\">" + svg + "<figcaption>" + fvbench::svg::Escape(url) +
                           "</figcaption></figure>";
      // After the block and the figures already put after it, in link order.
      cmark_node* block = TopBlock(n);
      cmark_node*& last = last_after_[block];
      cmark_node* node = NewNode(CMARK_NODE_HTML_BLOCK, figure);
      cmark_node_insert_after(last != nullptr ? last : block, node);
      last = node;
    }
    cmark_node_set_url(n, ("#" + id).c_str());
  }

  const std::map<std::string, std::string>& svgs_;
  std::set<std::string> placed_;
  std::map<cmark_node*, cmark_node*> last_after_;  // block -> the last figure put after it
};

constexpr char kStyle[] = R"CSS(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 15px; line-height: 1.45;
       color: #1f2328; margin: 2em auto; max-width: 1240px; padding: 0 1em; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h3, h4 { margin-top: 1.6em; }
table { border-collapse: collapse; margin: .8em 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; vertical-align: top; }
th { background: #f6f8fa; }
tr:nth-child(2n) td { background: #fbfcfd; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 90%; background: #f6f8fa; }
pre { padding: .6em; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 1em 0; }
figcaption { color: #59636e; font-size: 90%; }
svg { max-width: 100%; height: auto; }
details { margin: .6em 0; }
summary { cursor: pointer; }
)CSS";

}  // namespace

bool IsLocalReportPath(std::string_view url) {
  if (url.empty() || url.front() == '/') return false;
  size_t start = 0;
  while (start <= url.size()) {
    size_t slash = url.find('/', start);
    std::string_view seg = url.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    for (char c : seg) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

Result<std::string> RenderHtmlReport(std::string_view markdown, const std::map<std::string, std::string>& svgs,
                                     std::string_view title) {
  cmark_gfm_core_extensions_ensure_registered();
  std::unique_ptr<cmark_parser, decltype(&cmark_parser_free)> parser(cmark_parser_new(CMARK_OPT_DEFAULT),
                                                                        &cmark_parser_free);
  if (!parser) return Error{"report.html: cmark-gfm could not start a parser"};
  for (const char* name : {"table", "strikethrough", "autolink"}) {
    cmark_syntax_extension* ext = cmark_find_syntax_extension(name);
    if (ext == nullptr) return Error{std::string("report.html: cmark-gfm has no extension '") + name + "'"};
    cmark_parser_attach_syntax_extension(parser.get(), ext);
  }
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  std::unique_ptr<cmark_node, decltype(&cmark_node_free)> doc(cmark_parser_finish(parser.get()), &cmark_node_free);
  if (!doc) return Error{"report.html: cmark-gfm could not parse report.md"};
  Page(svgs).Rewrite(doc.get());
  // Unsafe: the raw HTML left is only what Rewrite allowed (html_report.h).
  char* body = cmark_render_html(doc.get(), CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser.get()));
  if (body == nullptr) return Error{"report.html: cmark-gfm could not render report.md"};
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += std::string("<meta http-equiv=\"Content-Security-Policy\" content=\"") + kHtmlReportCsp + "\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + fvbench::svg::Escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  html += body;
  html += "</body>\n</html>\n";
  std::free(body);
  return html;
}

}  // namespace fvbench
