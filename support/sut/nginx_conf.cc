#include "support/sut/nginx_conf.h"

#include "support/core/cpu_list.h"
#include "support/core/text.h"

#include "support/sut/lua_profile.h"
#include "support/sut/nginx_files.h"

#include <fmt/format.h>

#include <cctype>
#include <regex>
#include <vector>

namespace fvbench {

std::string ListenBacklogParam(int backlog) {
  return backlog > 0 ? fmt::format(" backlog={}", backlog) : "";
}

std::string LimitsLogPath(const std::string& prefix) { return prefix + "/logs/limits.log"; }

std::string NginxWorkerProcesses(const std::string& cpuset, int usable_cpus) {
  if (!cpuset.empty()) {
    if (auto cpus = ParseCpuList(cpuset); cpus && !cpus->empty()) return std::to_string(cpus->size());
  }
  return usable_cpus > 0 ? std::to_string(usable_cpus) : "auto";
}
namespace {

std::string Common(const NginxParams& p) {
  return fmt::format(
      "worker_processes {wp};\n"
      "error_log {pfx}/logs/error.log {lvl};\n"
      "pid       {pfx}/logs/nginx.pid;\n"
      "events {{ worker_connections {wc}; use epoll; multi_accept on; }}\n",
      fmt::arg("wp", p.worker_processes), fmt::arg("pfx", p.prefix), fmt::arg("lvl", p.log_level),
      fmt::arg("wc", p.worker_connections));
}

std::string HttpHead(const NginxParams& p) {
  return fmt::format(
      "http {{\n"
      "  access_log off;\n"
      "  keepalive_timeout 65;\n"
      "  keepalive_requests {kr};\n"
      "  client_body_temp_path {pfx}/tmp/client_body;\n"
      "  proxy_temp_path {pfx}/tmp/proxy;\n"
      "  server {{\n"
      "    listen {addr}:{port}{backlog};\n"
      "    location = /livez {{ default_type text/plain; return 200 \"ok\\n\"; }}\n",
      fmt::arg("kr", p.keepalive_requests), fmt::arg("pfx", p.prefix),
      fmt::arg("addr", p.listen_addr), fmt::arg("port", p.port),
      fmt::arg("backlog", ListenBacklogParam(p.listen_backlog)));
}

// Escapes a string for a double-quoted nginx argument.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) {
      if (start < s.size()) lines.push_back(s.substr(start));
      break;
    }
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

bool IsComment(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  return i != std::string::npos && line[i] == '#';
}

// The Docker image's edge tree (edge's docker/Dockerfile copies src/ there).
constexpr char kDockerEdgeRoot[] = "/opt/fairvisor/";

// On a Lua directive (`*_by_lua_file`, lua_package_path/cpath), points each
// path under the Docker image's edge tree at <fv_dir>/. True when the line is
// such a directive and had at least one path to place; paths are rewritten by
// the directive they belong to, so fv_dir may equal the Docker path itself.
bool PlaceUnderEdgeDir(std::string& line, const std::string& fv_dir) {
  std::string name = DirectiveName(line);
  if (!(name == "lua_package_path" || name == "lua_package_cpath" ||
        (name.size() > 12 && name.compare(name.size() - 12, 12, "_by_lua_file") == 0))) {
    return false;
  }
  const std::string root = kDockerEdgeRoot;
  int placed = 0;
  for (size_t pos = line.find(root); pos != std::string::npos; pos = line.find(root, pos)) {
    line.replace(pos, root.size(), fv_dir + "/");
    pos += fv_dir.size() + 1;
    ++placed;
  }
  return placed > 0;
}

}  // namespace

const char kBackendChatCompletionJson[] =
    R"({"id":"chatcmpl-bench","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}})"
    "\n";

std::string RenderStatusServer(const std::string& socket, const std::string& indent, bool lua_profile) {
  if (socket.empty()) return "";
  std::string profile;
  if (lua_profile) {
    for (const char* what : {"start", "stop", "state"}) {
      profile += fmt::format("{0}  location = /fvbench_profile/{1} {{ content_by_lua_block {{ "
                             "require(\"{2}\").http_{1}() }} }}\n",
                             indent, what, kLuaProfileModuleName);
    }
  }
  return fmt::format(
      "{0}server {{  # fvbench status listener (progress lines), off the measured path\n"
      "{0}  listen unix:{1};\n"
      "{0}  access_log off;\n"
      "{0}  location = /fvbench_status {{ stub_status; }}\n"
      "{2}"
      "{0}  location / {{ return 404; }}\n"
      "{0}}}\n",
      indent, socket, profile);
}

std::string RenderBaselineConf(const NginxParams& p) {
  return Common(p) + HttpHead(p) +
         "    location / { default_type text/plain; return 200 \"ok\\n\"; }\n"
         "  }\n" +
         RenderStatusServer(p.status_socket) +
         "}\n";
}

std::string RenderBackendConf(const NginxParams& p) {
  return Common(p) + HttpHead(p) +
         fmt::format("    location / {{ default_type application/json; return 200 {}; }}\n",
                     Quote(kBackendChatCompletionJson)) +
         "  }\n" +
         RenderStatusServer(p.status_socket) +
         "}\n";
}

std::map<std::string, std::string> FairvisorTemplateVars(const FairvisorParams& p) {
  return {
      {"FAIRVISOR_SHARED_DICT_SIZE", p.shared_dict_size},
      {"FAIRVISOR_LOG_LEVEL", p.log_level},
      {"FAIRVISOR_MODE", p.mode},
      {"FAIRVISOR_BACKEND_URL", p.backend_url},
      {"FAIRVISOR_WORKER_PROCESSES", p.worker_processes},
  };
}

namespace detail {

std::string EnvSubst(std::string_view text, const std::map<std::string, std::string>& vars) {
  auto is_start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto is_ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    if (text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close != std::string_view::npos) {
        std::string name(text.substr(i + 2, close - i - 2));
        auto it = vars.find(name);
        if (it != vars.end()) {
          out += it->second;
          i = close + 1;
          continue;
        }
      }
    } else if (is_start(text[i + 1])) {
      size_t j = i + 1;
      while (j < text.size() && is_ident(text[j])) ++j;
      auto it = vars.find(std::string(text.substr(i + 1, j - i - 1)));
      if (it != vars.end()) {
        out += it->second;
        i = j;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace detail

namespace {
// RenderStatusServer as a std::regex_replace format string: `$` doubled, no
// trailing newline (the line is joined with one).
std::string StatusServerForRegex(const std::string& socket, bool lua_profile) {
  std::string out;
  for (char c : RenderStatusServer(socket, "  ", lua_profile)) {
    if (c == '$') out += '$';
    out += c;
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The access log lines of the http block as a std::regex_replace format
// string (`$1` the block's indentation, nginx's `$` doubled), no trailing
// newline: edge's image's access.log, or the limits log.
std::string AccessLogForRegex(const FairvisorParams& p) {
  if (!p.limits_log) return "$1  access_log " + p.prefix + "/logs/access.log;";
  std::string format;
  for (const char* c = kLimitsLogFormat; *c; ++c) format += *c == '$' ? std::string("$$") : std::string(1, *c);
  return fmt::format("$1  log_format {0} '{1}';\n$1  access_log {2} {0};", kLimitsLogFormatName, format,
                     LimitsLogPath(p.prefix));
}

constexpr char kTemplateSrc[] = "fairvisor edge docker/nginx.conf.template";

// A ${...} left over is a variable this renderer does not know about.
Result<void> CheckNoVariableLeft(const std::vector<std::string>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsComment(lines[i])) continue;
    size_t d = lines[i].find("${");
    if (d != std::string::npos) {
      size_t close = lines[i].find('}', d);
      return Error{fmt::format(
          "{} line {}: variable {} is not one of the five envsubst substitutes (edge's template "
          "changed?): '{}'",
          kTemplateSrc, i + 1, lines[i].substr(d, close == std::string::npos ? 2 : close - d + 1), lines[i])};
    }
  }
  return Ok();
}

struct Rewrite {
  const char* what;      // for messages
  std::regex re;
  std::string replacement;  // regex format string
  int min_count;
  int max_count;         // 0 = unlimited
  int count = 0;
  std::vector<size_t> at;
};

// The directives moved out of the Docker image's layout: logs, pid, listen,
// the geo / asn includes, worker_connections, temp paths and the access log
// (+ the status server) in http {, the resolver. The template names no
// access_log: in edge's OpenResty image nginx then writes logs/access.log
// under its prefix (a link to the container's stdout), one line per request.
// The same line is written here to <prefix>/logs/access.log; Debian's nginx
// would otherwise open its compiled-in /var/log/nginx/access.log, which only
// root may write and which no run removes. With limits_log, the limits log
// takes its place: one access log per request either way.
std::vector<Rewrite> Rewrites(const FairvisorParams& p) {
  const std::string pfx = p.prefix;
  std::vector<Rewrite> rewrites;
  auto add = [&](const char* what, const char* re, std::string replacement, int min_count, int max_count) {
    rewrites.push_back(Rewrite{what, std::regex(re), std::move(replacement), min_count, max_count, 0, {}});
  };
  add("error_log <path> <level>;", R"(^(\s*)error_log\s+[^\s;]+(\s+[^;]*)?;)",
                      "$1error_log " + pfx + "/logs/error.log$2;", 1, 0);
  add("pid <path>;", R"(^(\s*)pid\s+[^\s;]+\s*;)",
                      "$1pid " + pfx + "/logs/nginx.pid;", 1, 1);
  add("listen <port>;", R"(^(\s*)listen\s+[^\s;]+([^;]*);)",
                      fmt::format("$1listen {}:{}$2{};", p.listen_addr, p.port, ListenBacklogParam(p.listen_backlog)), 1, 1);
  add("include .../tor_exits.geo;", R"(^(\s*)include\s+[^\s;]*tor_exits\.geo\s*;)",
                      "$1include " + p.tor_geo_path + ";", 1, 0);
  add("include .../asn_type.map;", R"(^(\s*)include\s+[^\s;]*asn_type\.map\s*;)",
                      "$1include " + p.asn_map_path + ";", 1, 0);
  add("worker_connections <n>;", R"(^(\s*)worker_connections\s+[^\s;]+\s*;)",
                      fmt::format("$1worker_connections {};", p.worker_connections), 1, 1);
  add("http {", R"(^(\s*)http\s*\{\s*$)",
                      fmt::format("$1http {{\n$1  client_body_temp_path {0}/tmp/client_body;\n"
                                  "$1  proxy_temp_path {0}/tmp/proxy;\n"
                                  "{1}{2}{3}",
                                  pfx, AccessLogForRegex(p),
                                  p.status_socket.empty() ? "" : "\n" + StatusServerForRegex(p.status_socket, p.lua_profile),
                                  p.lua_profile ? fmt::format("\n$1  lua_shared_dict {} {};", kLuaProfileDict,
                                                              kLuaProfileDictSize)
                                                : ""),
                      1, 1);
  add("resolver ...;", R"(^(\s*)resolver\s+[^;]*;)",
                      p.resolver.empty()
                          ? std::string("$1# resolver dropped by fvbench (Docker's embedded DNS)")
                          : "$1resolver " + p.resolver + ";",
                      0, 0);
  return rewrites;
}

// Applies the first matching rewrite to each line, else places an edge path
// under the checkout; marks the lines changed. Returns the edge placements.
int ApplyRewrites(std::vector<std::string>& lines, std::vector<Rewrite>& rewrites, const std::string& fv_dir,
                  std::vector<bool>& rewritten) {
  rewritten.assign(lines.size(), false);
  int edge_count = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    if (IsComment(line)) continue;
    for (Rewrite& r : rewrites) {
      if (std::regex_search(line, r.re)) {
        line = std::regex_replace(line, r.re, r.replacement, std::regex_constants::format_first_only);
        ++r.count;
        r.at.push_back(i + 1);
        rewritten[i] = true;
        break;
      }
    }
    if (!rewritten[i] && PlaceUnderEdgeDir(line, fv_dir)) {
      rewritten[i] = true;
      ++edge_count;
    }
  }
  return edge_count;
}

// Every rewrite found as often as expected, the edge placed, and no file
// directive left pointing into the Docker image's file system.
Result<void> CheckRewrites(const std::vector<std::string>& lines, const std::vector<Rewrite>& rewrites,
                           const std::vector<bool>& rewritten, int edge_count) {
  for (const Rewrite& r : rewrites) {
    if (r.count < r.min_count) {
      return Error{fmt::format("{}: no '{}' directive found to rewrite (edge's template changed)", kTemplateSrc,
                               r.what)};
    }
    if (r.max_count > 0 && r.count > r.max_count) {
      std::string where;
      for (size_t n : r.at) where += (where.empty() ? "" : ", ") + std::to_string(n);
      return Error{fmt::format("{}: expected at most {} '{}' directive(s), found {} (lines {})", kTemplateSrc,
                               r.max_count, r.what, r.count, where)};
    }
  }
  if (edge_count == 0) {
    return Error{fmt::format("{}: no Lua file or lua_package_path under '{}' found to point at the edge checkout "
                             "(edge's template changed)",
                             kTemplateSrc, kDockerEdgeRoot)};
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string name = DirectiveName(lines[i]);
    if (rewritten[i] || !IsFileDirective(name)) continue;
    return Error{fmt::format("{} line {}: '{}': the renderer does not know where directive '{}' should point "
                             "outside Docker (edge's template changed?)",
                             kTemplateSrc, i + 1, detail::Trim(lines[i], " \t"), name)};
  }
  return Ok();
}

// A Lua double-quoted string literal of `s`.
std::string LuaString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + "\"";
}

// lua_package_path's first entry becomes the module's directory.
Result<void> PrependLuaPackagePath(std::vector<std::string>& lines, const std::string& module_dir) {
  int found = 0;
  for (std::string& line : lines) {
    if (IsComment(line) || DirectiveName(line) != "lua_package_path") continue;
    ++found;
    size_t at = line.find("lua_package_path") + std::string("lua_package_path").size();
    at = line.find_first_not_of(" \t", at);
    if (at == std::string::npos) break;
    if (line[at] == '"' || line[at] == '\'') ++at;
    line.insert(at, module_dir + "/?.lua;");
  }
  if (found != 1) {
    return Error{fmt::format("{}: Lua profile: expected exactly one lua_package_path directive to put {} first, "
                             "found {} (edge's template changed)",
                             kTemplateSrc, module_dir, found)};
  }
  return Ok();
}

// Edge's init_worker_by_lua_file becomes a block that starts the profiler's
// control first (nginx_conf.h says why); none: the block is added after the dict.
Result<void> WrapInitWorker(std::vector<std::string>& lines, const FairvisorParams& p) {
  const std::string control =
      fmt::format("require({}).init_worker({})", LuaString(kLuaProfileModuleName),
                  LuaString(LuaProfileOutputDir(p.prefix)));
  std::vector<size_t> at;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsComment(lines[i])) continue;
    std::string name = DirectiveName(lines[i]);
    if (name.rfind("init_worker_by_lua", 0) != 0) continue;
    if (name != "init_worker_by_lua_file") {
      return Error{fmt::format("{} line {}: Lua profile: '{}' cannot be wrapped to start the profiler (only "
                               "init_worker_by_lua_file can; edge's template changed)",
                               kTemplateSrc, i + 1, detail::Trim(lines[i], " \t"))};
    }
    at.push_back(i);
  }
  if (at.size() > 1) {
    return Error{fmt::format("{}: Lua profile: {} init_worker_by_lua_file directives (nginx takes one)",
                             kTemplateSrc, at.size())};
  }
  if (at.empty()) {
    const std::string dict = fmt::format("lua_shared_dict {} ", kLuaProfileDict);
    for (std::string& line : lines) {
      const size_t d = line.find(dict);
      if (d == std::string::npos) continue;
      const size_t nl = line.rfind('\n', d);
      const size_t start = nl == std::string::npos ? 0 : nl + 1;
      const std::string indent = line.substr(start, d - start);
      line += fmt::format("\n{0}# fvbench: the Lua profiler's control (a `#` inside the block would be Lua)\n"
                          "{0}init_worker_by_lua_block {{\n"
                          "{0}  {1}\n{0}}}",
                          indent, control);
      return Ok();
    }
    return Error{fmt::format("{}: Lua profile: no `{}` line to add init_worker after", kTemplateSrc, dict)};
  }
  std::string& line = lines[at[0]];
  static const std::regex re(R"(^(\s*)init_worker_by_lua_file\s+("[^"]*"|'[^']*'|[^\s;]+)\s*;\s*$)");
  std::smatch m;
  if (!std::regex_match(line, m, re)) {
    return Error{fmt::format("{} line {}: Lua profile: expected `init_worker_by_lua_file <file>;`: '{}'",
                             kTemplateSrc, at[0] + 1, detail::Trim(line, " \t"))};
  }
  std::string file = m[2].str();
  if (file.size() >= 2 && (file[0] == '"' || file[0] == '\'')) file = file.substr(1, file.size() - 2);
  const std::string indent = m[1].str();
  line = fmt::format("{0}# fvbench: the Lua profiler's control, then edge's init_worker_by_lua_file\n"
                     "{0}init_worker_by_lua_block {{\n"
                     "{0}  {1}\n"
                     "{0}  dofile({2})\n"
                     "{0}}}",
                     indent, control, LuaString(file));
  return Ok();
}

}  // namespace

Result<std::string> RenderFairvisorConf(std::string_view template_text, const FairvisorParams& p) {
  std::vector<std::string> lines = SplitLines(detail::EnvSubst(template_text, FairvisorTemplateVars(p)));
  if (auto r = CheckNoVariableLeft(lines); !r.ok()) return r.error();
  std::vector<Rewrite> rewrites = Rewrites(p);
  std::vector<bool> rewritten;
  const int edge_count = ApplyRewrites(lines, rewrites, p.fv_dir, rewritten);
  if (auto r = CheckRewrites(lines, rewrites, rewritten, edge_count); !r.ok()) return r.error();
  if (p.lua_profile) {
    if (p.status_socket.empty()) {
      return Error{"Lua profile: needs the status listener (status_socket), which drives the profile"};
    }
    if (auto r = PrependLuaPackagePath(lines, LuaProfileModuleDir(p.prefix)); !r.ok()) return r.error();
    if (auto r = WrapInitWorker(lines, p); !r.ok()) return r.error();
  }
  std::string out;
  if (p.load_lua_modules) {
    out += fmt::format("load_module {}/ndk_http_module.so;\nload_module {}/ngx_http_lua_module.so;\n",
                       p.module_dir, p.module_dir);
  }
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace fvbench
