#include "support/judge/kernel_counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <vector>
#include "support/core/text.h"

namespace fvbench {
namespace {

using detail::SplitFields;

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
    if (!SplitFields(line).empty()) {
      lines.push_back(line);
      numbers.push_back(number);
    }
    pos = nl + 1;
  }
  if (lines.empty()) return Error{fmt::format("{}: no counter lines (empty)", source)};
  for (size_t i = 0; i < lines.size(); i += 2) {
    const std::vector<std::string_view> names = SplitFields(lines[i]);
    const std::string_view prefix = Prefix(names);
    if (prefix.empty()) {
      return Error{fmt::format("{}: line {}: '{}' does not open with \"<Prefix>:\"", source, numbers[i], Quoted(lines[i]))};
    }
    if (i + 1 >= lines.size()) {
      return Error{fmt::format("{}: line {}: the header of '{}:' has no value line after it", source, numbers[i], prefix)};
    }
    const std::vector<std::string_view> values = SplitFields(lines[i + 1]);
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

namespace {

// The lines of `text`, split at '\n'.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

bool ToHex(std::string_view s, uint64_t& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v, 16);
  return ec == std::errc() && p == end;
}

// a + b, or Err when the sum does not fit the counters' int64.
bool AddChecked(int64_t& sum, uint64_t v) {
  if (v > static_cast<uint64_t>(INT64_MAX) || sum > INT64_MAX - static_cast<int64_t>(v)) return false;
  sum += static_cast<int64_t>(v);
  return true;
}

}  // namespace

Result<KernelCounters> ParseNetDev(std::string_view text, std::string_view source) {
  // After "<iface>:" come 8 receive fields then 8 transmit fields (proc(5)):
  // bytes packets errs drop fifo frame compressed multicast | bytes packets
  // errs drop fifo colls carrier compressed.
  constexpr size_t kFields = 16, kRxErrs = 2, kRxDrop = 3, kTxErrs = 10, kTxDrop = 11;
  KernelCounters out{{"Dev.RxErrs", 0}, {"Dev.RxDrop", 0}, {"Dev.TxErrs", 0}, {"Dev.TxDrop", 0}};
  const std::vector<std::string_view> lines = Lines(text);
  size_t interfaces = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (lines[i].find('|') != std::string_view::npos || SplitFields(lines[i]).empty()) continue;  // the two headers
    if (colon == std::string_view::npos) {
      return Error{fmt::format("{}: line {}: '{}' does not open with \"<interface>:\"", source, i + 1, Quoted(lines[i]))};
    }
    const std::vector<std::string_view> f = SplitFields(lines[i].substr(colon + 1));
    if (f.size() < kFields) {
      return Error{fmt::format("{}: line {}: {} fields after the interface, not {}", source, i + 1, f.size(), kFields)};
    }
    for (auto [index, name] : {std::pair{kRxErrs, "Dev.RxErrs"}, std::pair{kRxDrop, "Dev.RxDrop"},
                               std::pair{kTxErrs, "Dev.TxErrs"}, std::pair{kTxDrop, "Dev.TxDrop"}}) {
      int64_t v = 0;
      if (!ToInt(f[index], v) || v < 0 || !AddChecked(out[name], static_cast<uint64_t>(v))) {
        return Error{fmt::format("{}: line {}: '{}' is not a count", source, i + 1, Quoted(f[index]))};
      }
    }
    ++interfaces;
  }
  if (interfaces == 0) return Error{fmt::format("{}: no interface lines", source)};
  return out;
}

Result<KernelCounters> ParseConntrackStat(std::string_view text, std::string_view source) {
  std::vector<std::string_view> lines;
  for (std::string_view l : Lines(text)) {
    if (!SplitFields(l).empty()) lines.push_back(l);
  }
  if (lines.empty()) return Error{fmt::format("{}: empty", source)};
  const std::vector<std::string_view> names = SplitFields(lines[0]);
  if (names.empty() || names[0] != "entries") {
    return Error{fmt::format("{}: line 1: '{}' is not the header (entries ...)", source, Quoted(lines[0]))};
  }
  KernelCounters out;
  for (size_t k = 0; k < names.size(); ++k) out[fmt::format("Conntrack.{}", names[k])] = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string_view> values = SplitFields(lines[i]);
    if (values.size() != names.size()) {
      return Error{fmt::format("{}: line {}: {} values for {} names", source, i + 1, values.size(), names.size())};
    }
    for (size_t k = 0; k < names.size(); ++k) {
      uint64_t v = 0;
      if (!ToHex(values[k], v)) {
        return Error{fmt::format("{}: line {}: {} is '{}', not hexadecimal", source, i + 1, names[k], Quoted(values[k]))};
      }
      // entries is the table's size, the same on every CPU's line.
      int64_t& slot = out[fmt::format("Conntrack.{}", names[k])];
      if (k == 0) {
        slot = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
      } else if (!AddChecked(slot, v)) {
        return Error{fmt::format("{}: line {}: {} does not fit 64 bits", source, i + 1, names[k])};
      }
    }
  }
  return out;
}

bool IsKernelGauge(std::string_view name) {
  return name == "Conntrack.entries" || name == "Tcp.CurrEstab" || name == "Tcp.MaxConn" || name == "Tcp.RtoAlgorithm" || name == "Tcp.RtoMin" ||
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
