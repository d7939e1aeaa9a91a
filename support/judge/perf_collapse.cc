#include "support/judge/perf_collapse.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace fvbench {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// "<digits>" or "<digits>/<digits>".
bool IsPidTid(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return AllDigits(s);
  return AllDigits(s.substr(0, slash)) && AllDigits(s.substr(slash + 1));
}

bool IsCpu(std::string_view s) {
  return s.size() >= 3 && s.front() == '[' && s.back() == ']' && AllDigits(s.substr(1, s.size() - 2));
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// A field of a line and where it starts.
struct Field {
  std::string_view text;
  size_t at = 0;
};

std::vector<Field> Fields(std::string_view line) {
  std::vector<Field> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    size_t start = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    if (i > start) out.push_back({line.substr(start, i - start), start});
  }
  return out;
}

// ';' cannot be inside a frame; an empty name is "[unknown]".
std::string FrameText(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == ';') c = ':';
  }
  return out;
}

// The comm of a header line, or "" when the line is not a header.
std::string_view HeaderComm(std::string_view line) {
  std::vector<Field> f = Fields(line);
  for (size_t i = 1; i + 1 < f.size(); ++i) {
    if (!IsPidTid(f[i].text)) continue;
    std::string_view next = f[i + 1].text;
    if (IsCpu(next) || next.back() == ':') return TrimBlanks(line.substr(0, f[i].at));
  }
  return {};
}

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// stackcollapse-perf.pl's rule (a dso in brackets other than [unknown], or
// vmlinux), without JIT code, and with module files (*.ko).
bool IsKernelDso(std::string_view dso) {
  if (!dso.empty() && dso.front() == '[') {
    return dso.find("unknown") == std::string_view::npos && dso.rfind("[JIT]", 0) != 0;
  }
  return Basename(dso) == "vmlinux" || (dso.size() > 3 && dso.substr(dso.size() - 3) == ".ko");
}

bool IsJitDso(std::string_view dso) {
  if (dso.rfind("[JIT] tid ", 0) == 0 || dso.rfind("//anon", 0) == 0) return true;
  std::string_view base = Basename(dso);
  if (base.size() <= 9 || base.rfind("perf-", 0) != 0 || base.substr(base.size() - 4) != ".map") return false;
  return AllDigits(base.substr(5, base.size() - 9));
}

// The symbol without a trailing "+0x<hex>".
std::string_view WithoutOffset(std::string_view sym) {
  size_t plus = sym.rfind("+0x");
  if (plus == std::string_view::npos || plus == 0 || plus + 3 == sym.size()) return sym;
  for (size_t i = plus + 3; i < sym.size(); ++i) {
    if (!IsHex(sym[i])) return sym;
  }
  return sym.substr(0, plus);
}

// Splits "<symbol> (<dso>)" at its last balanced parenthesised group.
void SplitSymbolDso(std::string_view rest, std::string_view& sym, std::string_view& dso) {
  sym = rest;
  dso = {};
  if (rest.empty() || rest.back() != ')') return;
  int depth = 0;
  for (size_t i = rest.size(); i-- > 0;) {
    if (rest[i] == ')') ++depth;
    if (rest[i] == '(' && --depth == 0) {
      if (i > 0 && !IsBlank(rest[i - 1])) return;
      dso = rest.substr(i + 1, rest.size() - i - 2);
      sym = TrimBlanks(rest.substr(0, i));
      return;
    }
  }
}

std::string FrameName(std::string_view sym, std::string_view dso) {
  sym = TrimBlanks(WithoutOffset(TrimBlanks(sym)));  // "f +0x41" is "f", not "f "
  bool unknown = sym.empty() || sym == "[unknown]";
  std::string name;
  if (unknown && IsJitDso(dso)) {
    return "[JIT]";
  } else if (unknown && IsKernelDso(dso)) {
    name = "[unknown]";
  } else if (unknown) {
    name = dso.empty() || dso == "[unknown]" ? "[unknown]" : "[unknown] (" + FrameText(Basename(dso)) + ")";
  } else {
    name = FrameText(sym);
  }
  if (IsKernelDso(dso)) name += "_[k]";
  return name;
}

class Collapser {
 public:
  explicit Collapser(const std::string& where) : where_(where) {}

  Result<FoldedStacks> Run(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string_view::npos) eol = text.size();
      std::string_view line = text.substr(pos, eol - pos);
      pos = eol + 1;
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      Result<void> r = Line(line);
      if (!r) return r.error();
    }
    Finish();
    return std::move(out_);
  }

 private:
  Error Fail(const std::string& what) const { return Error{fmt::format("{}: line {}: {}", where_, line_no_, what)}; }

  Result<void> Line(std::string_view line) {
    if (TrimBlanks(line).empty()) {
      Finish();
      return Ok();
    }
    if (IsBlank(line.front())) return FrameLine(TrimBlanks(line));
    if (!in_sample_ && line.front() == '#') return Ok();
    Finish();
    std::string_view comm = HeaderComm(line);
    if (comm.empty()) {
      return Fail(fmt::format("'{}' is not a sample header 'comm [pid/]tid [cpu] time: [period] event:'",
                              line.substr(0, 80)));
    }
    in_sample_ = true;
    stack_ = FrameText(comm);
    frames_.clear();
    return Ok();
  }

  Result<void> FrameLine(std::string_view line) {
    if (!in_sample_) return Fail("a stack frame before any sample header");
    size_t sp = 0;
    while (sp < line.size() && !IsBlank(line[sp])) ++sp;
    std::string_view addr = line.substr(0, sp);
    for (char c : addr) {
      if (!IsHex(c)) return Fail(fmt::format("frame address '{}' is not hexadecimal", addr.substr(0, 40)));
    }
    std::string_view sym, dso;
    SplitSymbolDso(TrimBlanks(line.substr(sp)), sym, dso);
    frames_.push_back(FrameName(sym, dso));
    return Ok();
  }

  void Finish() {
    if (!in_sample_) return;
    in_sample_ = false;
    for (size_t i = frames_.size(); i-- > 0;) {
      stack_ += ';';
      stack_ += frames_[i];
    }
    uint64_t& n = out_.counts[stack_];
    if (n != UINT64_MAX) ++n;
  }

  const std::string& where_;
  size_t line_no_ = 0;
  bool in_sample_ = false;
  std::string stack_;
  std::vector<std::string> frames_;
  FoldedStacks out_;
};

}  // namespace

Result<FoldedStacks> CollapsePerfScript(std::string_view perf_script_text, const std::string& where) {
  return Collapser(where).Run(perf_script_text);
}

}  // namespace fvbench
