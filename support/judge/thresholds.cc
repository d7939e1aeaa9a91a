#include "support/judge/thresholds.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/metric_names.h"
#include "support/core/json_fields.h"
#include "support/core/plausible.h"
#include "support/core/units_format.h"
#include "support/judge/p99_drift.h"

namespace fvbench {

using ojson = nlohmann::ordered_json;

namespace {

// The metrics a rule may name (metric_names.h), per scenario kind.
std::vector<std::string> LatencyNames(size_t count) {
  std::vector<std::string> v;
  for (size_t i = 0; i < count; ++i) v.push_back(kLatencyMetrics[i].name);
  return v;
}
std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
const std::vector<std::string> kLatencyRuleMetrics =
    Concat(LatencyNames(std::size(kLatencyMetrics)), {kMetricErrorRate, kMetricAchievedRps, kMetricP99Drift});
const std::vector<std::string> kThroughputRuleMetrics =
    Concat({kMetricRps, kMetricErrorRate}, LatencyNames(std::size(kLatencyMetrics)));
const std::vector<std::string> kLimitsRuleMetrics =
    Concat({kMetricOverAdmission, kMetricUnderAdmission, kMetricWindowExcess}, LatencyNames(std::size(kLatencyMetrics)));
const std::vector<std::string> kRejectCostRuleMetrics =
    Concat({kMetricRejectP50Ratio, kMetricRejectP99Ratio, kMetricRejectCpuRatio}, LatencyNames(std::size(kLatencyMetrics)));
const std::vector<std::string> kOperators = {"<=", "<", ">=", ">"};

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Join(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

std::vector<std::string> AllScenarioIds() {
  std::vector<std::string> ids;
  for (const char* id : kLatencyScenarios) ids.emplace_back(id);
  for (const char* id : kThroughputScenarios) ids.emplace_back(id);
  for (const char* id : kLimitsScenarios) ids.emplace_back(id);
  return ids;
}

bool IsLatency(const std::string& id) { return id.rfind("latency.", 0) == 0; }
bool IsLimits(const std::string& id) { return id.rfind("limits.", 0) == 0; }
bool IsRejectCost(const std::string& id) { return id == "limits.reject_cost"; }
// The kind a scenario id starts with: "latency", "throughput" or "limits".
std::string KindOf(const std::string& id) { return id.substr(0, id.find('.')); }

const std::vector<std::string>& RuleMetricsOf(const std::string& id) {
  return IsLatency(id)      ? kLatencyRuleMetrics
         : IsRejectCost(id) ? kRejectCostRuleMetrics
         : IsLimits(id)     ? kLimitsRuleMetrics
                            : kThroughputRuleMetrics;
}

bool IsLimitsMetric(const std::string& metric) {
  return metric == kMetricOverAdmission || metric == kMetricUnderAdmission || metric == kMetricWindowExcess;
}

bool IsRejectCostMetric(const std::string& metric) {
  return metric == kMetricRejectP50Ratio || metric == kMetricRejectP99Ratio || metric == kMetricRejectCpuRatio;
}

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw detail::JsonFieldError{fmt::format("{}: {}", path, what)};
}

// What a limit of `metric` can be (plausible.h): latencies 0..1e15 µs, the
// error rate a fraction 0..1, rates 0..1e9 RPS.
struct LimitRange {
  double hi;
  const char* what;
};
LimitRange RangeOf(const std::string& metric) {
  if (metric == "error_rate") return {1, "an error rate is a fraction 0..1"};
  if (metric == "rps" || metric == "achieved_rps") return {kMaxRateRps, "a rate is 0..1e9 requests per second"};
  if (IsLimitsMetric(metric)) return {1000, "a share of what the bucket allows is 0..1000"};
  if (IsRejectCostMetric(metric)) return {1000, "a ratio of the rejected phase to the admitted one is 0..1000"};
  if (metric == kMetricP99Drift) return {1000, "a drift is a fraction |second half's p99 / first half's - 1|, 0..1000"};
  return {kMaxLatencyUs, "a latency is 0..1e15 µs"};
}

// "" when `limit` is a limit `metric` can have; else why not.
std::string WhyNotALimit(const std::string& metric, double limit) {
  const LimitRange r = RangeOf(metric);
  std::string why = WhyOutOfRange(limit, 0, r.hi);
  return why.empty() ? "" : fmt::format("{} ({})", why, r.what);
}

// A factor (x_reference, ratio_to's factor): finite, > 0, normal, at most
// kMaxLimitFactor.
void CheckFactor(const ojson& f, const std::string& path) {
  if (!f.is_number() || !std::isfinite(f.get<double>()) || f.get<double>() <= 0) {
    Fail(path, fmt::format("expected a finite number > 0, got {}", f.dump()));
  }
  if (std::string why = WhyNotPositive(f.get<double>(), kMaxLimitFactor); !why.empty()) {
    Fail(path, fmt::format("{} (a factor is a number > 0 up to {})", why, detail::FormatNumber(kMaxLimitFactor)));
  }
}

// {"ratio_to": "<scenario id of the same kind>", "factor": <finite number > 0>}
void ParseRatioLimit(const ojson& limit, const std::string& id, const std::string& metric, const std::string& opath,
                     ThresholdRule& rule) {
  // A drift is a property of one phase, near 0 when steady: another
  // scenario's is no yardstick, and a report read back from results.json
  // has no latency per interval to evaluate it from.
  if (metric == kMetricP99Drift) Fail(opath, "p99_drift takes an absolute limit, not a ratio limit");
  for (const auto& [k, _] : limit.items()) {
    if (k != "ratio_to" && k != "factor") Fail(opath + "." + k, "unknown key of a ratio limit (allowed: ratio_to, factor)");
  }
  auto to = limit.find("ratio_to");
  if (to == limit.end()) Fail(opath, "ratio limit without ratio_to (the scenario of this run to compare with)");
  if (!to->is_string()) Fail(opath + ".ratio_to", fmt::format("expected a scenario id, got {}", to->dump()));
  std::string target = to->get<std::string>();
  std::vector<std::string> same_kind;
  for (const std::string& other : AllScenarioIds()) {
    if (other != id && KindOf(other) == KindOf(id)) same_kind.push_back(other);
  }
  if (!Contains(same_kind, target)) {
    Fail(opath + ".ratio_to",
         fmt::format("'{}' is not a scenario to compare {} with in the same run (allowed: {})", target, id,
                     Join(same_kind)));
  }
  auto f = limit.find("factor");
  if (f == limit.end()) Fail(opath, "ratio limit without factor (limit = factor x the other scenario's value)");
  CheckFactor(*f, opath + ".factor");
  rule.ratio_to = target;
  rule.factor = f->get<double>();
}

// {"x_reference": <finite number > 0>} on a metric a reference carries.
void ParseReferenceLimit(const ojson& limit, const std::string& id, const std::string& metric,
                         const std::string& opath, ThresholdRule& rule) {
  for (const auto& [k, _] : limit.items()) {
    if (k != "x_reference") {
      Fail(opath + "." + k, "unknown key of a reference limit (allowed: x_reference alone)");
    }
  }
  const std::vector<std::string> carried = IsLatency(id)  ? LatencyNames(kPercentileCount)
                                           : IsLimits(id) ? std::vector<std::string>{}
                                                          : std::vector<std::string>{kMetricRps};
  if (!Contains(carried, metric)) {
    Fail(opath + ".x_reference", fmt::format("a reference has no {} for {} scenarios (x_reference allowed on: {})",
                                             metric, KindOf(id), carried.empty() ? "none" : Join(carried)));
  }
  const ojson& f = limit["x_reference"];
  CheckFactor(f, opath + ".x_reference");
  rule.x_reference = f.get<double>();
}

// "kernel_counters": {"Tcp.RetransSegs": {"<=": 100}, ...}: maxima for the
// counters of kDistortingCounters, whole numbers 0..2^53.
std::vector<KernelCounterLimit> ParseKernelLimits(const ojson& k) {
  std::vector<std::string> watched(kDistortingCounters.begin(), kDistortingCounters.end());
  if (!k.is_object()) Fail("kernel_counters", fmt::format("expected an object of counter -> {{\"<=\": <max>}}, got {}",
                                                         k.type_name()));
  std::vector<KernelCounterLimit> out;
  for (const auto& [counter, ops] : k.items()) {
    const std::string cpath = "kernel_counters." + counter;
    if (!Contains(watched, counter)) Fail(cpath, fmt::format("not a watched kernel counter (allowed: {})", Join(watched)));
    if (!ops.is_object() || ops.empty()) Fail(cpath, "expected an object of operator -> maximum, e.g. {\"<=\": 100}");
    for (const auto& [op, limit] : ops.items()) {
      const std::string opath = cpath + "." + op;
      if (op != "<=" && op != "<") Fail(opath, "unknown operator (a kernel counter takes a maximum: <=, <)");
      constexpr double kMax = 9007199254740992.0;  // 2^53: exact in a double
      if (!limit.is_number() || limit.get<double>() < 0 || limit.get<double>() > kMax ||
          std::floor(limit.get<double>()) != limit.get<double>()) {
        Fail(opath, fmt::format("limit must be a whole number 0..2^53 (a count over the phase), got {}", limit.dump()));
      }
      out.push_back(KernelCounterLimit{counter, op, static_cast<uint64_t>(limit.get<double>())});
    }
  }
  return out;
}

ThresholdProfile ParseDoc(const ojson& doc, const std::string& source_name) {
  ThresholdProfile p;
  p.source_name = source_name;
  if (!doc.is_object()) Fail("(top level)", fmt::format("expected an object, got {}", doc.type_name()));
  for (const auto& [key, v] : doc.items()) {
    if (key != "schema_version" && key != "description" && key != "scenarios" && key != "kernel_counters") {
      Fail(key, "unknown key (allowed: schema_version, description, scenarios, kernel_counters)");
    }
  }
  auto sv = doc.find("schema_version");
  if (sv == doc.end()) Fail("schema_version", "missing (expected 1)");
  if (!sv->is_number_integer() || sv->get<int64_t>() != 1) {
    Fail("schema_version", fmt::format("unsupported value {} (this fvbench reads 1)", sv->dump()));
  }
  if (auto d = doc.find("description"); d != doc.end()) {
    if (!d->is_string()) Fail("description", fmt::format("expected a string, got {}", d->type_name()));
    p.description = d->get<std::string>();
  }
  auto sc = doc.find("scenarios");
  if (sc == doc.end()) Fail("scenarios", "missing");
  if (!sc->is_object()) Fail("scenarios", fmt::format("expected an object, got {}", sc->type_name()));
  const std::vector<std::string> ids = AllScenarioIds();
  for (const auto& [id, metrics] : sc->items()) {
    std::string spath = "scenarios." + id;
    if (!Contains(ids, id)) Fail(spath, fmt::format("unknown scenario (allowed: {})", Join(ids)));
    if (!metrics.is_object()) Fail(spath, fmt::format("expected an object of metrics, got {}", metrics.type_name()));
    const auto& allowed = RuleMetricsOf(id);
    ScenarioThresholds st;
    st.scenario_id = id;
    for (const auto& [metric, ops] : metrics.items()) {
      std::string mpath = spath + "." + metric;
      if (!Contains(allowed, metric)) {
        Fail(mpath, fmt::format("unknown metric (allowed for {} scenarios: {})", KindOf(id), Join(allowed)));
      }
      if (!ops.is_object() || ops.empty()) {
        Fail(mpath, fmt::format("expected an object of operator -> limit, e.g. {{\"<=\": 20000}} (operators: {})",
                                Join(kOperators)));
      }
      for (const auto& [op, limit] : ops.items()) {
        std::string opath = mpath + "." + op;
        if (!Contains(kOperators, op)) Fail(opath, fmt::format("unknown operator (allowed: {})", Join(kOperators)));
        ThresholdRule rule;
        rule.metric = metric;
        rule.op = op;
        if (limit.is_object() && limit.contains("x_reference")) {
          ParseReferenceLimit(limit, id, metric, opath, rule);
          st.rules.push_back(std::move(rule));
          continue;
        }
        if (limit.is_object()) {
          ParseRatioLimit(limit, id, metric, opath, rule);
          st.rules.push_back(std::move(rule));
          continue;
        }
        if (!limit.is_number()) {
          Fail(opath, fmt::format("limit must be a number, got {} (or a ratio limit "
                                  "{{\"ratio_to\": \"<scenario>\", \"factor\": <number>}}, or a reference limit "
                                  "{{\"x_reference\": <number>}})",
                                  limit.dump()));
        }
        double d = limit.get<double>();
        if (std::string why = WhyNotALimit(metric, d); !why.empty()) Fail(opath, "limit " + why);
        rule.limit = d;
        st.rules.push_back(std::move(rule));
      }
    }
    p.scenarios.push_back(std::move(st));
  }
  if (auto k = doc.find("kernel_counters"); k != doc.end()) p.kernel_limits = ParseKernelLimits(*k);
  return p;
}

bool Compare(double measured, const std::string& op, double limit) {
  if (std::isnan(measured)) return false;
  if (op == "<=") return measured <= limit;
  if (op == "<") return measured < limit;
  if (op == ">=") return measured >= limit;
  if (op == ">") return measured > limit;
  return false;  // unreachable for a parsed profile
}

enum class Unit { kUs, kFraction, kRps, kNone };

Unit UnitOf(const std::string& metric) {
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0) return Unit::kUs;
  if (metric == kMetricErrorRate || metric == kMetricP99Drift) return Unit::kFraction;
  if (metric == "rps" || metric == "achieved_rps") return Unit::kRps;
  return Unit::kNone;
}

std::string WithUnit(double v, Unit u, bool is_limit) {
  switch (u) {
    case Unit::kUs: return detail::FormatNumber(v) + " µs";
    case Unit::kFraction: return is_limit ? detail::FormatPercentLimit(v) : detail::FormatPercent(v);
    case Unit::kRps: return detail::FormatNumber(v) + " RPS";
    case Unit::kNone: break;
  }
  return detail::FormatNumber(v);
}

}  // namespace

const std::vector<ThresholdRule>* ThresholdProfile::rules_for(const std::string& scenario_id) const {
  for (const auto& s : scenarios) {
    if (s.scenario_id == scenario_id) return &s.rules;
  }
  return nullptr;
}

Result<ThresholdProfile> ParseThresholdProfile(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseOrderedJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  try {
    return ParseDoc(*doc, source_name);
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  }
}

Result<ThresholdProfile> LoadThresholdProfile(const std::string& path) {
  auto text = detail::ReadTextFile(path);
  if (!text.ok()) return text.error();
  return ParseThresholdProfile(*text, path);
}

namespace {

// A limits metric over the scenario's phases: the worst (largest); NaN
// without a phase.
double WorstLimitFigure(const ScenarioResult& r, const std::string& metric) {
  double worst = std::numeric_limits<double>::quiet_NaN();
  for (const LimitRun& run : r.limits) {
    const LimitAccuracy& a = run.accuracy;
    const double v = metric == kMetricOverAdmission    ? a.over_admission
                     : metric == kMetricUnderAdmission ? a.under_admission
                     : a.window_allowed > 0 ? static_cast<double>(a.worst_window_admitted) / a.window_allowed - 1
                                            : std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(worst) || v > worst) worst = v;
  }
  return worst;
}

// limits.reject_cost's ratio (rejected / admitted); NaN without its figures.
double RejectCostFigure(const ScenarioResult& r, const std::string& metric) {
  if (!r.reject_cost) return std::numeric_limits<double>::quiet_NaN();
  const RejectCostRun& c = *r.reject_cost;
  return metric == kMetricRejectP50Ratio ? c.p50_ratio : metric == kMetricRejectP99Ratio ? c.p99_ratio : c.cpu_ratio;
}

}  // namespace

double MetricValue(const ScenarioResult& r, const std::string& metric) {
  const LoadResult& l = r.load;
  if (const LatencyMetric* m = FindLatencyMetric(metric)) return l.latency_us.*m->field;
  if (metric == kMetricErrorRate) return l.error_rate;
  if (metric == kMetricAchievedRps) return l.achieved_rps;
  if (metric == kMetricRps) return r.throughput_rps;
  if (IsLimitsMetric(metric)) return WorstLimitFigure(r, metric);
  if (IsRejectCostMetric(metric)) return RejectCostFigure(r, metric);
  if (metric == kMetricP99Drift) {
    const P99Drift d = MeasureP99Drift(l);
    return d.judged ? d.drift : std::numeric_limits<double>::quiet_NaN();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<ThresholdCheck> Evaluate(const ThresholdProfile& profile, const ScenarioResult& r,
                                     const Reference* reference) {
  std::vector<ThresholdCheck> out;
  const auto* rules = profile.rules_for(r.id);
  if (rules == nullptr) return out;
  out.reserve(rules->size());
  for (const ThresholdRule& rule : *rules) {
    if (!rule.ratio_to.empty()) continue;  // EvaluateRatios, at report time
    ThresholdCheck c;
    c.metric = rule.metric;
    c.op = rule.op;
    c.limit = rule.limit;
    c.measured = r.measured ? MetricValue(r, rule.metric) : std::numeric_limits<double>::quiet_NaN();
    if (reference != nullptr) c.reference = reference->value(r.id, rule.metric);
    if (rule.x_reference > 0) {
      c.limit = c.reference ? rule.x_reference * *c.reference : std::numeric_limits<double>::quiet_NaN();
    }
    c.censored = r.measured && rule.metric != "error_rate" && rule.metric != "achieved_rps" &&
                 rule.metric != "rps" && !IsFractionMetric(rule.metric) && !IsRejectCostMetric(rule.metric) &&
                 r.load.latency_us.IsCensored(c.measured);
    // Never passes against a limit that is not a finite number, and a lower
    // bound (censored) proves nothing against an upper limit.
    const bool upper = rule.op == "<" || rule.op == "<=";
    c.passed = std::isfinite(c.limit) && !(c.censored && upper) && Compare(c.measured, rule.op, c.limit);
    out.push_back(std::move(c));
  }
  return out;
}

Result<void> CheckReferenceCovers(const ThresholdProfile& profile, const Reference& reference) {
  for (const ScenarioThresholds& st : profile.scenarios) {
    for (const ThresholdRule& rule : st.rules) {
      if (rule.x_reference <= 0) continue;
      auto ref = reference.value(st.scenario_id, rule.metric);
      if (!ref) {
        return Error{fmt::format("{}: scenarios.{}.{}.{}: limit {} x the reference, but reference {} has no {} value "
                                 "for {}",
                                 profile.source_name, st.scenario_id, rule.metric, rule.op,
                                 detail::FormatNumber(rule.x_reference), reference.source_name, rule.metric,
                                 st.scenario_id)};
      }
      const double limit = rule.x_reference * *ref;
      if (std::string why = WhyNotALimit(rule.metric, limit); !why.empty()) {
        return Error{fmt::format("{}: scenarios.{}.{}.{}: limit {} x the reference's {} = {}: {}", profile.source_name,
                                 st.scenario_id, rule.metric, rule.op, detail::FormatNumber(rule.x_reference),
                                 detail::FormatNumber(*ref), detail::FormatNumber(limit), why)};
      }
    }
  }
  return Ok();
}

std::vector<RatioCheck> EvaluateRatios(const ThresholdProfile& profile, const ScenarioResult& r,
                                       const std::vector<ScenarioResult>& run, std::vector<std::string>* skipped) {
  std::vector<RatioCheck> out;
  const auto* rules = profile.rules_for(r.id);
  if (rules == nullptr) return out;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const ThresholdRule& rule : *rules) {
    if (rule.ratio_to.empty()) continue;
    const ScenarioResult* base = nullptr;
    for (const ScenarioResult& x : run) {
      if (x.id == rule.ratio_to) base = &x;
    }
    if (base == nullptr) {
      if (skipped != nullptr) {
        skipped->push_back(fmt::format("{} {} {} x {} not evaluated: {} was not run", rule.metric, rule.op,
                                       detail::FormatNumber(rule.factor), rule.ratio_to, rule.ratio_to));
      }
      continue;
    }
    RatioCheck c;
    c.metric = rule.metric;
    c.op = rule.op;
    c.ratio_to = rule.ratio_to;
    c.factor = rule.factor;
    c.measured = r.measured ? MetricValue(r, rule.metric) : nan;
    c.base = base->measured ? MetricValue(*base, rule.metric) : nan;
    c.limit = rule.factor * c.base;
    c.passed = std::isfinite(c.limit) && Compare(c.measured, rule.op, c.limit);
    out.push_back(std::move(c));
  }
  return out;
}

std::string DescribeRatioCheck(const RatioCheck& c) {
  Unit u = UnitOf(c.metric);
  std::string measured = std::isnan(c.measured) ? "not measured" : WithUnit(c.measured, u, false);
  std::string s = fmt::format("{} = {}", c.metric, measured);
  if (!std::isnan(c.measured) && !std::isnan(c.base) && c.base != 0) {
    s += fmt::format(" = {} x {}", detail::FormatFixed(c.measured / c.base, 2), c.ratio_to);
  }
  if (std::isnan(c.base)) {
    return s + fmt::format(" (limit {} {} x {}, which was not measured)", c.op, detail::FormatNumber(c.factor),
                           c.ratio_to);
  }
  return s + fmt::format(" (limit {} {} x {}'s {} = {})", c.op, detail::FormatNumber(c.factor), c.ratio_to,
                         WithUnit(c.base, u, false), WithUnit(c.limit, u, true));
}

std::string DescribeCheck(const ThresholdCheck& c) {
  Unit u = UnitOf(c.metric);
  std::string measured = std::isnan(c.measured) ? "not measured" : WithUnit(c.measured, u, false);
  if (c.censored) measured = ">= " + measured + " (requests timed out at the engine's timeout)";
  std::string limit = std::isfinite(c.limit)                  ? WithUnit(c.limit, u, true)
                      : std::isnan(c.limit) && !c.reference ? "a multiple of the reference, which has no value"
                                                            : "a number that is not finite (never passes)";
  std::string s = fmt::format("{} = {} (limit {} {}", c.metric, measured, c.op, limit);
  if (c.reference) s += fmt::format("; reference {}", WithUnit(*c.reference, u, false));
  s += ")";
  return s;
}

}  // namespace fvbench
