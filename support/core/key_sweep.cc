#include "support/core/key_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "support/core/units_format.h"

namespace fvbench {

Result<std::vector<int>> ParseKeySweep(std::string_view text) {
  std::vector<int> points;
  size_t start = 0;
  for (int i = 1;; ++i) {
    const size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    long long v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    const std::string where = fmt::format("LIMITS_KEYS_SWEEP={}: element {} '{}'", text, i, item);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      return Error{where + fmt::format(" is not an integer 1..{}", kMaxSweepKeys)};
    }
    if (v < 1 || v > kMaxSweepKeys) return Error{where + fmt::format(" is outside 1..{}", kMaxSweepKeys)};
    if (!points.empty() && v <= points.back()) {
      return Error{where + fmt::format(" is not above the element before it ({}): the list ascends", points.back())};
    }
    points.push_back(static_cast<int>(v));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return points;
}

double SweepPointDuration(int keys, double rps, double limits_dur_s) {
  return std::ceil(std::max(limits_dur_s, kSweepRequestsPerKey * keys / rps));
}

double SweepPointWarmup(int keys, double rps, double warmup_dur_s) {
  return warmup_dur_s > 0 ? std::ceil(std::max(warmup_dur_s, keys / rps)) : 0;
}

double SweepLoadSeconds(const std::vector<int>& points, double rps, double limits_dur_s, double warmup_dur_s) {
  double s = 0;
  for (int k : points) s += SweepPointDuration(k, rps, limits_dur_s) + SweepPointWarmup(k, rps, warmup_dur_s);
  return s;
}

Result<void> CheckSweepLoad(const std::vector<int>& points, double rps, double limits_dur_s, double warmup_dur_s) {
  const double s = SweepLoadSeconds(points, rps, limits_dur_s, warmup_dur_s);
  if (s <= kMaxSweepLoadS) return Ok();
  using detail::FormatNumber;
  return Error{fmt::format(
      "limits.keys: the sweep LIMITS_KEYS_SWEEP over LIMITS_KEYS_RPS={} RPS plans {} s of load (each point max(LIMITS_DUR "
      "{}, {} x keys / rate) s and its warmup), above the bound of {} s: drop the largest points of LIMITS_KEYS_SWEEP "
      "or raise LIMITS_KEYS_RPS",
      FormatNumber(rps), FormatNumber(std::ceil(s)), FormatNumber(limits_dur_s), FormatNumber(kSweepRequestsPerKey),
      FormatNumber(kMaxSweepLoadS))};
}

}  // namespace fvbench
