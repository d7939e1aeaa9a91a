// report.md as GitHub shows it, for tests: cmark-gfm (Debian package
// cmark-gfm, GitHub's own GFM renderer) turns the Markdown into its XML
// tree, which is parsed here. ShownText() is what a reader sees of a node:
// text and code, a <br> as a line break; anything that is markup of the
// input (emphasis, a link, raw HTML) keeps only its text or shows as
// "<html:...>", so it cannot equal the input it came from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tests/unit/external_tool.h"

namespace fvbench::testing_gfm {

struct GfmNode {
  std::string name;  // "table", "table_row", "table_cell", "text", "code", "emph", ...
  std::map<std::string, std::string> attrs;
  std::string text;  // character data directly inside (entities decoded)
  std::vector<GfmNode> children;
};

namespace internal {

inline std::string DecodeEntities(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string ent = s.substr(i + 1, semi - i - 1);
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (!ent.empty() && ent[0] == '#') {
      unsigned long cp = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X') ? std::stoul(ent.substr(2), nullptr, 16)
                                                                           : std::stoul(ent.substr(1));
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    } else {
      out += "&" + ent + ";";
    }
    i = semi;
  }
  return out;
}

// Parses the element starting at xml[pos] ('<'); pos ends after its end tag.
inline GfmNode ParseElement(const std::string& xml, size_t& pos) {
  GfmNode n;
  size_t close = xml.find('>', pos);
  std::string tag = xml.substr(pos + 1, close - pos - 1);
  pos = close + 1;
  bool self_closing = !tag.empty() && tag.back() == '/';
  if (self_closing) tag.pop_back();
  size_t sp = tag.find(' ');
  n.name = tag.substr(0, sp);
  while (sp != std::string::npos) {
    size_t eq = tag.find('=', sp);
    if (eq == std::string::npos) break;
    size_t q1 = tag.find('"', eq), q2 = tag.find('"', q1 + 1);
    std::string key = tag.substr(sp + 1, eq - sp - 1);
    while (!key.empty() && key.front() == ' ') key.erase(0, 1);
    n.attrs[key] = DecodeEntities(tag.substr(q1 + 1, q2 - q1 - 1));
    sp = tag.find(' ', q2);
  }
  if (self_closing) return n;
  while (pos < xml.size()) {
    size_t lt = xml.find('<', pos);
    n.text += DecodeEntities(xml.substr(pos, lt - pos));
    pos = lt;
    if (xml.compare(pos, 2, "</") == 0) {
      pos = xml.find('>', pos) + 1;
      break;
    }
    n.children.push_back(ParseElement(xml, pos));
  }
  return n;
}

}  // namespace internal

// cmark-gfm with GitHub's extensions, as XML, parsed: the "document" node.
// An empty node named "error: ..." when cmark-gfm is missing or fails.
inline GfmNode RenderGfm(const std::string& markdown) {
  if (!testing_tools::HaveTool("cmark-gfm")) return {"error: cmark-gfm not found (Debian package cmark-gfm)", {}, {}, {}};
  auto r = testing_tools::RunTool(
      "cmark-gfm -e table -e strikethrough -e autolink -e tagfilter -e tasklist -e footnotes -t xml", markdown);
  if (r.exit_code != 0) return {"error: cmark-gfm failed: " + r.err, {}, {}, {}};
  size_t pos = r.out.find("<document");
  if (pos == std::string::npos) return {"error: no <document> in cmark-gfm's output", {}, {}, {}};
  return internal::ParseElement(r.out, pos);
}

// What a reader sees of `n`.
inline std::string ShownText(const GfmNode& n) {
  if (n.name == "text" || n.name == "code" || n.name == "code_block") return n.text;
  if (n.name == "softbreak" || n.name == "linebreak") return "\n";
  if (n.name == "html_inline") return n.text == "<br>" || n.text == "<br />" ? "\n" : "<html:" + n.text + ">";
  if (n.name == "html_block") return "<html:" + n.text + ">";
  std::string s;
  for (const GfmNode& c : n.children) s += ShownText(c);
  return s;
}

// Every node named `name` under `n`, in document order.
inline void Collect(const GfmNode& n, const std::string& name, std::vector<const GfmNode*>& out) {
  if (n.name == name) out.push_back(&n);
  for (const GfmNode& c : n.children) Collect(c, name, out);
}

// A table's rows (the header first) as the texts of their cells.
inline std::vector<std::vector<std::string>> TableRows(const GfmNode& table) {
  std::vector<std::vector<std::string>> rows;
  for (const GfmNode& row : table.children) {
    std::vector<std::string> cells;
    for (const GfmNode& cell : row.children) cells.push_back(ShownText(cell));
    rows.push_back(std::move(cells));
  }
  return rows;
}

// The tables of a rendered document whose header's first cell is `first`.
inline std::vector<std::vector<std::vector<std::string>>> TablesHeaded(const GfmNode& doc, const std::string& first) {
  std::vector<const GfmNode*> tables;
  Collect(doc, "table", tables);
  std::vector<std::vector<std::vector<std::string>>> out;
  for (const GfmNode* t : tables) {
    auto rows = TableRows(*t);
    if (!rows.empty() && !rows[0].empty() && rows[0][0] == first) out.push_back(std::move(rows));
  }
  return out;
}

}  // namespace fvbench::testing_gfm
