#include "support/judge/host_facts.h"

#include <map>
#include <vector>

#include "support/core/text.h"

namespace fvbench {
namespace {

using Sections = std::map<std::string, std::vector<std::string>, std::less<>>;

// The probe's output as section -> its '|' lines (the '|' dropped). Lines
// before the first section and lines of neither form are ignored.
Sections SplitSections(std::string_view text) {
  Sections out;
  std::vector<std::string>* current = nullptr;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] == '@') {
      current = &out[std::string(detail::TrimSpace(line.substr(1)))];
    } else if (line[0] == '|' && current != nullptr) {
      current->push_back(std::string(line.substr(1)));
    }
  }
  return out;
}

const std::vector<std::string>* Lines(const Sections& s, std::string_view name) {
  auto it = s.find(name);
  return it == s.end() ? nullptr : &it->second;
}

// The first non-blank line of a section, cleaned and trimmed.
std::string FirstLine(const Sections& s, std::string_view name) {
  const std::vector<std::string>* lines = Lines(s, name);
  if (lines == nullptr) return "";
  for (const std::string& l : *lines) {
    std::string v(detail::TrimSpace(detail::CleanHostText(l)));
    if (!v.empty()) return v;
  }
  return "";
}

// The value after ':' of the first cpuinfo line whose name is `field`.
std::string CpuinfoField(const Sections& s, std::string_view field) {
  const std::vector<std::string>* lines = Lines(s, "cpuinfo");
  if (lines == nullptr) return "";
  for (const std::string& l : *lines) {
    const size_t colon = l.find(':');
    if (colon == std::string::npos || detail::TrimSpace(std::string_view(l).substr(0, colon)) != field) continue;
    return std::string(detail::TrimSpace(detail::CleanHostText(std::string_view(l).substr(colon + 1))));
  }
  return "";
}

std::string Vulnerabilities(const Sections& s) {
  const std::vector<std::string>* lines = Lines(s, "cpu_vulnerabilities");
  if (lines == nullptr) return "";
  std::string out;
  size_t seen = 0;
  for (const std::string& raw : *lines) {
    const std::string l = detail::CleanHostText(raw);
    const size_t colon = l.find(':');
    if (colon == std::string::npos) continue;
    std::string_view name = detail::TrimSpace(std::string_view(l).substr(0, colon));
    if (const size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    const std::string_view state = detail::TrimSpace(std::string_view(l).substr(colon + 1));
    if (name.empty() || state.empty()) continue;
    ++seen;
    if (state == "Not affected") continue;
    if (!out.empty()) out += "; ";
    out += std::string(name) + ": " + std::string(state);
  }
  if (seen == 0) return "";
  if (out.empty()) return "all Not affected";
  return detail::CleanHostText(out);
}

bool HasWord(std::string_view text, std::string_view word) {
  size_t pos = 0;
  while ((pos = text.find(word, pos)) != std::string_view::npos) {
    const bool start = pos == 0 || text[pos - 1] == ' ';
    const size_t end = pos + word.size();
    if (start && (end == text.size() || text[end] == ' ')) return true;
    pos = end;
  }
  return false;
}

std::string Virtualization(const Sections& s) {
  std::string v = FirstLine(s, "detect_virt");
  if (!v.empty()) return v;
  const std::vector<std::string>* cpuinfo = Lines(s, "cpuinfo");
  if (cpuinfo == nullptr) return "";
  const std::string flags = CpuinfoField(s, "flags");
  if (flags.empty()) return "";
  return HasWord(flags, "hypervisor") ? "hypervisor (CPU flag)" : "none (no hypervisor CPU flag)";
}

std::string Boost(const Sections& s) {
  std::string boost = FirstLine(s, "boost");
  if (!boost.empty()) return boost;
  const std::string no_turbo = FirstLine(s, "no_turbo");
  if (no_turbo == "0") return "1";
  if (no_turbo == "1") return "0";
  return "";
}

std::string JoinedLines(const Sections& s, std::string_view name) {
  const std::vector<std::string>* lines = Lines(s, name);
  if (lines == nullptr) return "";
  std::string out;
  for (const std::string& l : *lines) {
    std::string v(detail::TrimSpace(detail::CleanHostText(l)));
    if (v.empty()) continue;
    if (!out.empty()) out += "; ";
    out += v;
  }
  return detail::CleanHostText(out);
}

// "key=value" of the luajit section.
std::string LuajitValue(const Sections& s, std::string_view key) {
  const std::vector<std::string>* lines = Lines(s, "luajit");
  if (lines == nullptr) return "";
  for (const std::string& l : *lines) {
    const size_t eq = l.find('=');
    if (eq == std::string::npos || detail::TrimSpace(std::string_view(l).substr(0, eq)) != key) continue;
    return std::string(detail::TrimSpace(detail::CleanHostText(std::string_view(l).substr(eq + 1))));
  }
  return "";
}

}  // namespace

namespace detail {

std::string CleanHostText(std::string_view text, size_t max) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max) break;
    if (c == '\t') c = ' ';
    if (c >= 0x20 && c < 0x7f) out += c;
  }
  return out;
}

std::string SelectedWord(std::string_view line) {
  const size_t open = line.find('[');
  const size_t close = open == std::string_view::npos ? open : line.find(']', open + 1);
  if (close == std::string_view::npos) return std::string(TrimSpace(line));
  return std::string(TrimSpace(line.substr(open + 1, close - open - 1)));
}

}  // namespace detail

HostEnvironment ParseHostFacts(std::string_view probe_output) {
  const Sections s = SplitSections(probe_output);
  HostEnvironment e;
  for (const EnvironmentKey& k : kEnvironmentKeys) {
    std::string v;
    if (k.key == "thp_enabled" || k.key == "thp_defrag") {
      v = detail::SelectedWord(FirstLine(s, k.key));
    } else if (k.key == "cpu_vulnerabilities") {
      v = Vulnerabilities(s);
    } else if (k.key == "virtualization") {
      v = Virtualization(s);
    } else if (k.key == "cpu_model") {
      v = CpuinfoField(s, "model name");
    } else if (k.key == "cpu_boost") {
      v = Boost(s);
    } else if (k.key == "nginx_build") {
      v = JoinedLines(s, "nginx_v");
    } else if (k.key == "luajit_version") {
      v = LuajitValue(s, "version");
    } else if (k.key == "luajit_jit") {
      v = LuajitValue(s, "jit");
    } else if (k.key == "luajit_gc64") {
      v = LuajitValue(s, "gc64");
    } else if (k.key == "nginx_worker_processes") {
      v = "";  // the running edge's, not this probe's (environment_probe.h)
    } else {
      v = FirstLine(s, k.key);
    }
    e.values.push_back({std::string(k.key), std::move(v)});
  }
  return e;
}

}  // namespace fvbench
