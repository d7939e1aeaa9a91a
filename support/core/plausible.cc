#include "support/core/plausible.h"

#include <fmt/format.h>

#include <cfloat>
#include <cmath>

#include "support/core/units_format.h"

namespace fvbench {

using detail::FormatNumber;

std::string WhyOutOfRange(double v, double lo, double hi) {
  if (std::isnan(v)) return "not a number";
  if (!std::isfinite(v)) return fmt::format("{} is not a finite number", v > 0 ? "+infinity" : "-infinity");
  if (v != 0 && std::fabs(v) < DBL_MIN) {
    return fmt::format("{} is subnormal (closer to 0 than any measured or meant value)", FormatNumber(v));
  }
  if (v < lo) return fmt::format("{} is below {}", FormatNumber(v), FormatNumber(lo));
  if (v > hi) return fmt::format("{} is above {}", FormatNumber(v), FormatNumber(hi));
  return "";
}

std::string WhyNotPositive(double v, double hi) {
  if (std::string why = WhyOutOfRange(v, 0, hi); !why.empty()) return why;
  if (v == 0) return "0 is not > 0";
  return "";
}

std::optional<Implausible> CheckLatencyUs(const LatencyUs& l, bool with_max) {
  struct Key {
    const char* name;
    double v;
  };
  const Key keys[] = {{"p50", l.p50}, {"p90", l.p90}, {"p99", l.p99}, {"p999", l.p999}, {"max", l.max}};
  const size_t n = with_max ? 5 : 4;
  for (size_t i = 0; i < n; ++i) {
    if (std::string why = WhyNotPositive(keys[i].v, kMaxLatencyUs); !why.empty()) {
      return Implausible{keys[i].name, why + " (a latency in µs)"};
    }
    if (i > 0 && keys[i].v < keys[i - 1].v) {
      return Implausible{keys[i].name, fmt::format("{} µs is below {}'s {} µs (percentiles must not decrease: "
                                                   "p50 <= p90 <= p99 <= p999 <= max)",
                                                   FormatNumber(keys[i].v), keys[i - 1].name,
                                                   FormatNumber(keys[i - 1].v))};
    }
  }
  return std::nullopt;
}

}  // namespace fvbench
