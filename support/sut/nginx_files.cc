#include "support/sut/nginx_files.h"

#include <array>

namespace fvbench {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// What nginx reads of a line: '#' starts a comment only where a word would
// start (after a blank, ';', '{', '}' or at the line's start) and outside
// quotes; inside a word ("/tmp/a#b") it is part of the word (nginx
// src/core/ngx_conf_file.c, ngx_conf_read_token: sharp_comment is set only
// when last_space).
std::string_view StripComment(std::string_view line) {
  char quote = 0;
  bool word_start = true;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      word_start = false;
      continue;
    }
    if (c == '#' && word_start) return line.substr(0, i);
    word_start = c == ' ' || c == '\t' || c == ';' || c == '{' || c == '}';
  }
  return line;
}

// The words of a directive line after its name, quotes removed, ';' dropped.
std::vector<std::string> Arguments(std::string_view line) {
  std::vector<std::string> args;
  std::string cur;
  char quote = 0;
  bool in_word = false;
  for (char c : StripComment(line)) {
    if (quote) {
      if (c == quote) quote = 0; else cur += c;
      continue;
    }
    if (c == '"' || c == '\'') { quote = c; in_word = true; continue; }
    if (c == ' ' || c == '\t' || c == ';' || c == '{' || c == '}') {
      if (in_word) args.push_back(cur);
      cur.clear();
      in_word = false;
      if (c == ';' || c == '{' || c == '}') break;
      continue;
    }
    cur += c;
    in_word = true;
  }
  if (in_word) args.push_back(cur);
  if (!args.empty()) args.erase(args.begin());  // the directive's name
  return args;
}

std::string DirectoryOfPackageEntry(const std::string& entry) {
  std::string head = entry.substr(0, entry.find('?'));
  size_t slash = head.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : head.substr(0, slash);
}

}  // namespace

std::string DirectiveName(std::string_view line) {
  line = StripComment(line);
  size_t b = line.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = line.find_first_of(" \t;{}", b);
  return std::string(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
}

bool IsFileDirective(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kExact = {
      "include", "pid", "error_log", "access_log", "load_module", "root", "alias",
      "lua_package_path", "lua_package_cpath"};
  for (std::string_view e : kExact) {
    if (name == e) return true;
  }
  if (EndsWith(name, "_by_lua_file") || EndsWith(name, "_temp_path") || EndsWith(name, "_user_file")) return true;
  if (StartsWith(name, "ssl_") || StartsWith(name, "proxy_ssl_") || StartsWith(name, "lua_ssl_") ||
      StartsWith(name, "grpc_ssl_") || StartsWith(name, "uwsgi_ssl_")) {
    return Contains(name, "certificate") || Contains(name, "dhparam") || Contains(name, "crl") ||
           Contains(name, "password_file") || Contains(name, "ticket_key");
  }
  return false;
}

std::vector<FileReference> ReferencedFiles(std::string_view conf) {
  std::vector<FileReference> out;
  size_t line_no = 0;
  size_t start = 0;
  while (start < conf.size()) {
    size_t nl = conf.find('\n', start);
    std::string_view line = conf.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? conf.size() : nl + 1;
    ++line_no;
    std::string name = DirectiveName(line);
    const bool package = name == "lua_package_path" || name == "lua_package_cpath";
    if (!(package || name == "include" || name == "load_module" || EndsWith(name, "_by_lua_file"))) continue;
    std::vector<std::string> args = Arguments(line);
    if (args.empty()) continue;
    if (!package) {
      // Relative paths and globs are nginx's to resolve (`nginx -t` reads includes).
      if (StartsWith(args[0], "/") && args[0].find_first_of("$*?[") == std::string::npos) {
        out.push_back({line_no, name, args[0]});
      }
      continue;
    }
    std::string_view list = args[0];
    while (!list.empty()) {
      size_t semi = list.find(';');
      std::string entry(list.substr(0, semi));
      list = semi == std::string_view::npos ? std::string_view() : list.substr(semi + 1);
      if (entry.empty() || Contains(entry, "$")) continue;
      out.push_back({line_no, name, DirectoryOfPackageEntry(entry)});
    }
  }
  return out;
}

}  // namespace fvbench
