#include "support/judge/limit_accuracy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/core/units_format.h"
#include "support/judge/policy_rule.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatPercentLimit;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ValidityCheck Make(const char* name, double measured, const char* op, double limit, bool passed,
                   std::string detail) {
  ValidityCheck c;
  c.name = name;
  c.op = op;
  c.measured = measured;
  c.limit = limit;
  c.passed = passed && !std::isnan(measured);
  c.detail = std::move(detail);
  return c;
}

// A positive finite number at `field` of `obj`, or "" with `value` set;
// else what is wrong.
std::string PositiveNumber(const nlohmann::json& obj, const char* field, double& value) {
  const auto it = obj.find(field);
  if (it == obj.end()) return fmt::format("algorithm_config has no `{}`", field);
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0) {
    return fmt::format("algorithm_config.{} is {}, not a positive number", field, it->dump());
  }
  value = it->get<double>();
  return "";
}

// Whether a token_bucket rule's algorithm_config makes one request one token.
std::string CostProblem(const nlohmann::json& config) {
  if (const auto it = config.find("cost_source"); it != config.end() && *it != "fixed") {
    return fmt::format("algorithm_config.cost_source is {}: a request's cost is not 1 token", it->dump());
  }
  if (const auto it = config.find("fixed_cost"); it != config.end() && !(it->is_number() && *it == 1)) {
    return fmt::format("algorithm_config.fixed_cost is {}: a request's cost is not 1 token", it->dump());
  }
  return "";
}

Result<TokenBucketLimit> BucketOfRule(const nlohmann::json& rule, const std::string& where) {
  const auto config = rule.find("algorithm_config");
  if (config == rule.end() || !config->is_object()) {
    return Error{fmt::format("{}: the token_bucket rule has no algorithm_config object", where)};
  }
  TokenBucketLimit limit;
  const char* rate_field = config->contains("tokens_per_second") || !config->contains("rps") ? "tokens_per_second"
                                                                                              : "rps";
  if (std::string why = PositiveNumber(*config, rate_field, limit.rate_per_s); !why.empty()) {
    return Error{fmt::format("{}: {}", where, why)};
  }
  if (std::string why = PositiveNumber(*config, "burst", limit.burst); !why.empty()) {
    return Error{fmt::format("{}: {}", where, why)};
  }
  if (limit.burst < limit.rate_per_s) {
    return Error{fmt::format("{}: burst {} is below the rate {}/s (edge refuses it)", where,
                             FormatNumber(limit.burst), FormatNumber(limit.rate_per_s))};
  }
  if (std::string why = CostProblem(*config); !why.empty()) return Error{fmt::format("{}: {}", where, why)};
  return limit;
}

double Median(std::vector<uint64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n % 2 == 1) return static_cast<double>(v[n / 2]);
  return (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

// The most admitted in any `w` consecutive bins (all of them when fewer).
uint64_t WorstWindow(const std::vector<uint64_t>& bins, size_t w) {
  uint64_t sum = 0, worst = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    sum += bins[i];
    if (i >= w) sum -= bins[i - w];
    worst = std::max(worst, sum);
  }
  return worst;
}

// All keys' admitted counts per whole second from first_unix: bin i falls
// in second floor(i * bin_s) (a hair of tolerance against 0.1 * 30 landing
// below 3). Empty without a bin width.
std::vector<uint64_t> AdmittedPerSecond(const AccessLogCounts& log) {
  std::vector<uint64_t> out;
  if (!(log.bin_s > 0)) return out;
  for (const KeyCounts& k : log.keys) {
    for (size_t i = 0; i < k.admitted_per_bin.size(); ++i) {
      const auto second = static_cast<size_t>(std::floor(static_cast<double>(i) * log.bin_s + 1e-9));
      if (second >= out.size()) out.resize(second + 1, 0);
      out[second] += k.admitted_per_bin[i];
    }
  }
  return out;
}

std::string KeyList(const AccessLogCounts& log, size_t most) {
  std::string out;
  for (size_t i = 0; i < log.keys.size() && i < most; ++i) out += (i > 0 ? ", " : "") + log.keys[i].key;
  if (log.keys.size() > most) out += fmt::format(", ... {} more", log.keys.size() - most);
  return out;
}

std::string Bucket(const TokenBucketLimit& l) {
  return fmt::format("{}/s, burst {}", FormatNumber(l.rate_per_s), FormatNumber(l.burst));
}

}  // namespace

Result<TokenBucketLimit> TokenBucketOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                             std::string_view key_header) {
  const std::string where = fmt::format("policy '{}'", policy_id);
  auto rule = OneRuleOfPolicy(policy_json, policy_id, "token_bucket");
  if (!rule) return rule.error();
  if (!key_header.empty()) {
    if (std::string why = KeyHeaderProblem(*rule, key_header); !why.empty()) {
      return Error{fmt::format("{}: {}", where, why)};
    }
  }
  return BucketOfRule(*rule, where);
}

LimitAccuracy AssessLimits(const AccessLogCounts& log, const TokenBucketLimit& limit, int keys_planned,
                           double offered_rps) {
  LimitAccuracy a;
  a.limit = limit;
  a.keys_planned = keys_planned;
  a.keys_seen = static_cast<int>(log.keys.size());
  a.window_s = std::max(0.0, log.last_unix - log.first_unix);
  a.offered_rps = offered_rps;
  a.allowed_per_key = limit.rate_per_s * a.window_s + limit.burst;
  a.floor_per_key = std::max(0.0, limit.rate_per_s * a.window_s - limit.burst);
  a.bin_s = log.bin_s;
  a.window_bins = log.bin_s > 0 ? std::max(1, static_cast<int>(std::lround(1.0 / log.bin_s))) : 1;
  a.window_allowed = limit.rate_per_s * (a.window_bins * log.bin_s) + limit.burst;

  std::vector<uint64_t> admitted;
  const double over_base = std::max(1.0, a.allowed_per_key);
  for (const KeyCounts& k : log.keys) {
    admitted.push_back(k.admitted);
    a.admitted += k.admitted;
    a.rejected += k.rejected;
    a.other += k.other;
    const double n = static_cast<double>(k.admitted);
    if (n > a.allowed_per_key) {
      ++a.keys_over;
      const double over = (n - a.allowed_per_key) / over_base;
      if (over > a.over_admission) {
        a.over_admission = over;
        a.over_admission_key = k.key;
        a.over_admission_key_admitted = k.admitted;
      }
    }
    if (a.floor_per_key > 0 && n < a.floor_per_key) {
      ++a.keys_under;
      a.under_admission = std::max(a.under_admission, (a.floor_per_key - n) / a.floor_per_key);
    }
    const uint64_t worst = WorstWindow(k.admitted_per_bin, static_cast<size_t>(a.window_bins));
    if (worst > a.worst_window_admitted || a.worst_window_key.empty()) {
      a.worst_window_admitted = worst;
      a.worst_window_key = k.key;
    }
  }
  // Keys planned but never in the log: admitted 0.
  const int unseen = std::max(0, keys_planned - a.keys_seen);
  if (unseen > 0 && a.floor_per_key > 0) {
    a.keys_under += unseen;
    a.under_admission = 1;
  }
  a.admitted_per_key = admitted;
  std::sort(a.admitted_per_key.begin(), a.admitted_per_key.end());
  a.admitted_per_second = AdmittedPerSecond(log);
  if (!admitted.empty()) {
    a.admitted_min = static_cast<double>(*std::min_element(admitted.begin(), admitted.end()));
    a.admitted_max = static_cast<double>(*std::max_element(admitted.begin(), admitted.end()));
    a.admitted_median = Median(std::move(admitted));
  }
  const double responses = static_cast<double>(a.admitted + a.rejected + a.other);
  a.reject_share = responses > 0 ? static_cast<double>(a.rejected) / responses : 0;
  const double offered = offered_rps * a.window_s;
  a.expected_reject_share =
      offered > 0 ? std::max(0.0, 1 - static_cast<double>(keys_planned) * a.allowed_per_key / offered) : 0;
  return a;
}

ValidityCheck KeysArrivedCheck(const AccessLogCounts& log, int keys_planned) {
  const size_t seen = log.keys.size();
  std::string detail = fmt::format("the access log saw {} key{}{} where {} {} sent", seen, seen == 1 ? "" : "s",
                                   seen > 0 ? " (" + KeyList(log, 5) + ")" : "", keys_planned,
                                   keys_planned == 1 ? "was" : "were");
  if (log.without_key > 0) {
    detail += fmt::format("; {} of {} lines without the key header: the key header did not reach edge",
                          log.without_key, log.lines);
  }
  if (log.malformed > 0) {
    detail += fmt::format("; {} malformed lines (not \"<msec> <status> <key>\": the access log's format is not "
                          "the one the reducer reads)",
                          log.malformed);
  }
  if (seen > static_cast<size_t>(std::max(0, keys_planned))) {
    detail += ": requests other than the engine's, or keys it did not plan, reached edge";
  }
  const bool passed = static_cast<int64_t>(seen) == keys_planned && log.without_key == 0 && log.malformed == 0;
  return Make("limit_keys_arrived", static_cast<double>(seen), "==", keys_planned, passed, detail);
}

ValidityCheck OverloadCheck(const LimitAccuracy& acc, double min_ratio) {
  const double per_key =
      acc.keys_planned > 0 ? acc.offered_rps / acc.keys_planned * acc.window_s : std::numeric_limits<double>::quiet_NaN();
  const double ratio = acc.allowed_per_key > 0 ? per_key / acc.allowed_per_key : std::numeric_limits<double>::quiet_NaN();
  const bool passed = ratio >= min_ratio;  // NaN fails
  std::string detail = fmt::format(
      "each key was offered {} in the {} s window, {} x what the bucket ({}/s, burst {}) allows ({})",
      detail::FormatNumber(std::round(per_key)), detail::FormatNumber(acc.window_s), detail::FormatNumber(ratio),
      detail::FormatNumber(acc.limit.rate_per_s), detail::FormatNumber(acc.limit.burst),
      detail::FormatNumber(acc.allowed_per_key));
  if (!passed) {
    detail += fmt::format(": a limiter that admits everything would look correct; raise LIMITS_OVERLOAD or "
                          "LIMITS_DUR (at least {} x is needed)",
                          detail::FormatNumber(min_ratio));
  }
  return Make("limit_overload", ratio, ">=", min_ratio, passed, detail);
}

Result<void> CheckPlannedOverload(double overload, double dur_s, const TokenBucketLimit& limit, double min_ratio) {
  const double offered = overload * limit.rate_per_s * dur_s;
  const double allowed = limit.rate_per_s * dur_s + limit.burst;
  if (allowed > 0 && offered >= min_ratio * allowed) return Ok();
  using detail::FormatNumber;
  return Error{fmt::format(
      "LIMITS_OVERLOAD={} with LIMITS_DUR={} s offers each key {} requests, under {} x the {} its bucket ({} "
      "tokens/s, burst {}) allows: a limiter that admits everything would look correct; raise LIMITS_OVERLOAD or "
      "LIMITS_DUR",
      FormatNumber(overload), FormatNumber(dur_s), FormatNumber(offered), FormatNumber(min_ratio),
      FormatNumber(allowed), FormatNumber(limit.rate_per_s), FormatNumber(limit.burst))};
}

ValidityCheck LogAgreesWithEngineCheck(const AccessLogCounts& log, uint64_t engine_2xx, uint64_t engine_429,
                                       uint64_t engine_other, uint64_t in_flight, double tolerance_fraction) {
  uint64_t log_2xx = 0, log_429 = 0, log_other = 0;
  for (const KeyCounts& k : log.keys) {
    log_2xx += k.admitted;
    log_429 += k.rejected;
    log_other += k.other;
  }
  const uint64_t engine_total = engine_2xx + engine_429 + engine_other;
  const double allowed = tolerance_fraction * static_cast<double>(engine_total) + static_cast<double>(in_flight);
  const char* names[] = {"2xx", "429", "other"};
  const uint64_t logs[] = {log_2xx, log_429, log_other};
  const uint64_t engines[] = {engine_2xx, engine_429, engine_other};
  double worst = 0;
  const char* worst_name = "none";
  for (size_t i = 0; i < 3; ++i) {
    const double d = std::fabs(static_cast<double>(logs[i]) - static_cast<double>(engines[i]));
    if (d > worst) {
      worst = d;
      worst_name = names[i];
    }
  }
  std::string detail = fmt::format(
      "2xx / 429 / other: the access log {} / {} / {}, the engine {} / {} / {}; largest difference {} ({}); "
      "allowed {} of the engine's {} responses + {} in flight at the phase's ends",
      log_2xx, log_429, log_other, engine_2xx, engine_429, engine_other, FormatNumber(worst), worst_name,
      FormatPercentLimit(tolerance_fraction), engine_total, in_flight);
  if (log.without_key + log.malformed > 0) {
    detail += fmt::format("; {} log lines without a key or malformed not compared", log.without_key + log.malformed);
  }
  return Make("limit_log_agrees", worst, "<=", allowed, worst <= allowed, detail);
}

ValidityCheck LogAgreesWithEngineCheck(const AccessLogCounts& log, const std::map<int, uint64_t>& status_counts,
                                       uint64_t in_flight, double tolerance_fraction) {
  if (status_counts.empty()) {
    return Make("limit_log_agrees", kNaN, "<=", kNaN, false,
                "the engine did not count responses per status (pace.lua status_counts): nothing to compare the "
                "access log with");
  }
  uint64_t ok = 0, limited = 0, other = 0;
  for (const auto& [status, n] : status_counts) {
    if (status >= 200 && status <= 299) {
      ok += n;
    } else if (status == 429) {
      limited += n;
    } else {
      other += n;
    }
  }
  return LogAgreesWithEngineCheck(log, ok, limited, other, in_flight, tolerance_fraction);
}

ValidityCheck OverAdmissionCheck(const LimitAccuracy& acc, double max_fraction) {
  if (acc.keys_seen == 0) {
    return Make("limit_over_admission", kNaN, "<=", max_fraction, false,
                "no key in the access log: nothing admitted to judge");
  }
  std::string detail =
      acc.keys_over == 0
          ? fmt::format("no key admitted more than the bucket ({}) allows in {} s: {} (most admitted: {})",
                        Bucket(acc.limit), FormatNumber(acc.window_s), FormatNumber(acc.allowed_per_key),
                        FormatNumber(acc.admitted_max))
          : fmt::format("key {} admitted {} where the bucket ({}) allows {} in {} s: {} over; {} of {} keys over",
                        acc.over_admission_key, acc.over_admission_key_admitted, Bucket(acc.limit),
                        FormatNumber(acc.allowed_per_key), FormatNumber(acc.window_s),
                        FormatPercent(acc.over_admission), acc.keys_over, acc.keys_seen);
  return Make("limit_over_admission", acc.over_admission, "<=", max_fraction, acc.over_admission <= max_fraction,
              detail);
}

ValidityCheck WindowCheck(const LimitAccuracy& acc, double max_fraction) {
  const double limit = acc.window_allowed * (1 + max_fraction);
  if (acc.keys_seen == 0) {
    return Make("limit_window", kNaN, "<=", limit, false, "no key in the access log: nothing admitted to judge");
  }
  const double measured = static_cast<double>(acc.worst_window_admitted);
  return Make("limit_window", measured, "<=", limit, measured <= limit,
              fmt::format("key {} was admitted {} in one {} s window ({} bins of {} ms); the bucket ({}) allows {}, "
                          "{} more tolerated",
                          acc.worst_window_key, acc.worst_window_admitted,
                          FormatNumber(acc.window_bins * acc.bin_s), acc.window_bins,
                          FormatNumber(acc.bin_s * 1000), Bucket(acc.limit), FormatNumber(acc.window_allowed),
                          FormatPercentLimit(max_fraction)));
}

}  // namespace fvbench
