#include "support/judge/key_sweep_break.h"

#include <fmt/format.h>

#include <cmath>

#include "support/core/key_sweep.h"
#include "support/core/units_format.h"
#include "support/judge/limit_accuracy.h"

namespace fvbench {

KeySweepBreak FindKeySweepBreak(const std::vector<LimitRun>& runs, double max_over_admission, double p99_factor) {
  KeySweepBreak b;
  if (runs.empty()) return b;
  b.first_p99_us = runs.front().load.latency_us.p99;
  const bool p99_rule = std::isfinite(b.first_p99_us) && b.first_p99_us > 0;
  for (const LimitRun& run : runs) {
    const int keys = run.accuracy.keys_planned;
    b.up_to_keys = keys;
    if (!b.accuracy_keys && run.accuracy.over_admission > max_over_admission) {
      b.accuracy_keys = keys;
      b.over_admission = run.accuracy.over_admission;
    }
    const double p99 = run.load.latency_us.p99;
    if (!p99_rule) continue;
    if (!(p99 > p99_factor * b.first_p99_us)) {
      b.p99_keys.reset();  // the slow points before this one did not last
    } else if (!b.p99_keys) {
      b.p99_keys = keys;
      b.p99_us = p99;
    }
  }
  return b;
}

std::string DescribeKeySweepBreak(const KeySweepBreak& b, double max_over_admission, double p99_factor) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  using detail::FormatUs;
  if (b.up_to_keys == 0) return "no point measured";
  std::string s;
  if (b.accuracy_keys) {
    s = fmt::format("accuracy breaks at K={} (over-admission {} > {})", *b.accuracy_keys,
                    FormatPercent(b.over_admission), FormatPercent(max_over_admission));
  }
  if (b.p99_keys) {
    s += fmt::format("{}p99 breaks at K={} ({} > {} x {} at the first point)", s.empty() ? "" : "; ", *b.p99_keys,
                     FormatUs(b.p99_us), FormatNumber(p99_factor), FormatUs(b.first_p99_us));
  }
  return s.empty() ? fmt::format("no break up to K={}", b.up_to_keys) : s;
}

Result<void> CheckSweepOverload(const std::vector<int>& points, double rps, double limits_dur_s,
                                const TokenBucketLimit& limit, double min_ratio) {
  using detail::FormatNumber;
  for (int keys : points) {
    const double d = SweepPointDuration(keys, rps, limits_dur_s);
    const double offered = rps / keys * d;
    const double allowed = limit.rate_per_s * d + limit.burst;
    if (offered < min_ratio * allowed) {
      return Error{fmt::format(
          "limits.keys: at {} keys LIMITS_KEYS_RPS={} offers each key {} requests in {} s, under {} x the {} its "
          "bucket ({} tokens/s, burst {}) allows: over-admission could not show; raise LIMITS_KEYS_RPS or drop {} "
          "from LIMITS_KEYS_SWEEP",
          keys, FormatNumber(rps), FormatNumber(offered), FormatNumber(d), FormatNumber(min_ratio),
          FormatNumber(allowed), FormatNumber(limit.rate_per_s), FormatNumber(limit.burst), keys)};
    }
  }
  return Ok();
}

double SweepOverAdmissionLimit(const ScenarioResult& r) {
  for (const ThresholdCheck& c : r.checks) {
    if (c.metric == "over_admission") return c.limit;
  }
  return kMaxOverAdmission;
}

std::string KeySweepBreakLine(const ScenarioResult& r) {
  const double limit = SweepOverAdmissionLimit(r);
  return DescribeKeySweepBreak(FindKeySweepBreak(r.limits, limit), limit);
}

}  // namespace fvbench
