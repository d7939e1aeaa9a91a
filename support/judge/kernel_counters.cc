#include "support/judge/kernel_counters.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace fvbench {
namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// A line's "<Prefix>:" (without the colon) and the fields after it; "" when
// the first field does not end in ':'.
std::string_view Prefix(const std::vector<std::string_view>& fields) {
  if (fields.empty() || fields[0].size() < 2 || fields[0].back() != ':') return {};
  return fields[0].substr(0, fields[0].size() - 1);
}

bool ToInt(std::string_view s, int64_t& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

std::string Quoted(std::string_view s) { return std::string(s.substr(0, 60)) + (s.size() > 60 ? "..." : ""); }

}  // namespace

Result<KernelCounters> ParseKernelCounters(std::string_view text, std::string_view source) {
  KernelCounters out;
  std::vector<std::string_view> lines;  // the non-blank ones
  std::vector<size_t> numbers;          // each one's line number, from 1
  size_t number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    ++number;
    if (!Fields(line).empty()) {
      lines.push_back(line);
      numbers.push_back(number);
    }
    pos = nl + 1;
  }
  if (lines.empty()) return Error{fmt::format("{}: no counter lines (empty)", source)};
  for (size_t i = 0; i < lines.size(); i += 2) {
    const std::vector<std::string_view> names = Fields(lines[i]);
    const std::string_view prefix = Prefix(names);
    if (prefix.empty()) {
      return Error{fmt::format("{}: line {}: '{}' does not open with \"<Prefix>:\"", source, numbers[i], Quoted(lines[i]))};
    }
    if (i + 1 >= lines.size()) {
      return Error{fmt::format("{}: line {}: the header of '{}:' has no value line after it", source, numbers[i], prefix)};
    }
    const std::vector<std::string_view> values = Fields(lines[i + 1]);
    if (Prefix(values) != prefix) {
      return Error{fmt::format("{}: line {}: the header of '{}:' is followed by '{}', not its values", source, numbers[i + 1],
                               prefix, Quoted(lines[i + 1]))};
    }
    if (names.size() != values.size()) {
      return Error{fmt::format("{}: line {}: '{}:' has {} names but {} values", source, numbers[i + 1], prefix,
                               names.size() - 1, values.size() - 1)};
    }
    for (size_t k = 1; k < names.size(); ++k) {
      int64_t v = 0;
      if (!ToInt(values[k], v)) {
        return Error{fmt::format("{}: line {}: {}.{} is '{}', not an integer", source, numbers[i + 1], prefix, names[k],
                                 Quoted(values[k]))};
      }
      out[fmt::format("{}.{}", prefix, names[k])] = v;
    }
  }
  return out;
}

bool IsKernelGauge(std::string_view name) {
  return name == "Tcp.CurrEstab" || name == "Tcp.MaxConn" || name == "Tcp.RtoAlgorithm" || name == "Tcp.RtoMin" ||
         name == "Tcp.RtoMax" || name == "Ip.Forwarding" || name == "Ip.DefaultTTL";
}

CounterDelta KernelCounterDelta(const KernelCounters& before, const KernelCounters& after) {
  CounterDelta d;
  for (const auto& [name, was] : before) {
    if (IsKernelGauge(name)) continue;
    auto it = after.find(name);
    if (it == after.end()) {
      d.vanished.push_back(name);
    } else if (it->second < was) {
      d.went_back.push_back(fmt::format("{} {} -> {}", name, was, it->second));
    } else {
      d.deltas[name] = static_cast<uint64_t>(it->second) - static_cast<uint64_t>(was);
    }
  }
  return d;
}

}  // namespace fvbench
