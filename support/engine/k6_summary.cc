#include "support/engine/k6_summary.h"


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/outcomes.h"

namespace fvbench {
namespace {

using Json = nlohmann::json;

constexpr double kUsPerMs = 1000.0;

const char* TypeName(const Json& j) { return j.type_name(); }

// "p(99.9)" -> 99.9; nullopt for anything that is not exactly p(<number>).
std::optional<double> PercentileOf(const std::string& key) {
  if (key.size() < 4 || key.compare(0, 2, "p(") != 0 || key.back() != ')') return std::nullopt;
  const std::string inner = key.substr(2, key.size() - 3);
  if (inner.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(inner.c_str(), &end);
  if (end != inner.c_str() + inner.size() || !std::isfinite(v) || v < 0 || v > 100) {
    return std::nullopt;
  }
  return v;
}

std::string PercentileLabel(double p) { return fmt::format("p({})", p); }

class Parser {
 public:
  Parser(const std::string& source) : source_(source) {}

  Result<K6Summary> Parse(std::string_view text, double target_rps);

 private:
  Error Fail(const std::string& path, const std::string& what) const {
    return Error{fmt::format("{}: {}: {}", source_, path, what)};
  }

  // metrics.<name>, and the object holding its values (".values" in the
  // handleSummary shape, the metric itself in the export shape).
  struct Metric {
    const Json* metric = nullptr;
    const Json* values = nullptr;
    std::string values_path;
  };
  Result<std::optional<Metric>> FindMetric(const std::string& name,
                                           const char* expected_type) const;
  Result<Metric> RequireMetric(const std::string& name, const char* expected_type,
                               const char* why_missing) const;

  Result<double> Number(const Json& obj, const std::string& obj_path, const std::string& key,
                        bool allow_null, bool* was_null) const;
  Result<uint64_t> Count(const Json& obj, const std::string& obj_path,
                         const std::string& key) const;
  Result<LatencyUs> Latency(const Metric& m) const;
  Result<void> Thresholds(std::vector<std::string>* failed) const;
  Result<void> CheckTimeUnit() const;
  // The pieces of Parse, in order.
  Result<void> ParseRoot(std::string_view text);
  Result<void> RequestsAndDuration(LoadResult& lr) const;
  Result<uint64_t> Failures(LoadResult& lr) const;  // returns http_req_failed.passes
  Result<std::optional<std::string>> OptionalCount(const char* name, uint64_t* out) const;
  Result<void> Counters(LoadResult& lr, uint64_t failed_passes) const;

  const std::string& source_;
  const Json* metrics_ = nullptr;
  Json root_;
  K6SummaryShape shape_ = K6SummaryShape::kHandleSummary;
};

Result<std::optional<Parser::Metric>> Parser::FindMetric(const std::string& name,
                                                         const char* expected_type) const {
  const std::string path = "metrics." + name;
  auto it = metrics_->find(name);
  if (it == metrics_->end()) return std::optional<Metric>();
  if (!it->is_object()) return Fail(path, fmt::format("expected an object, got {}", TypeName(*it)));
  Metric m;
  m.metric = &*it;
  if (shape_ == K6SummaryShape::kSummaryExport) {
    m.values = &*it;
    m.values_path = path;
    return std::optional<Metric>(m);
  }
  if (auto t = it->find("type"); t != it->end()) {
    if (!t->is_string()) return Fail(path + ".type", fmt::format("expected a string, got {}", TypeName(*t)));
    if (t->get_ref<const std::string&>() != expected_type) {
      return Fail(path + ".type", fmt::format("'{}', expected '{}'", t->get_ref<const std::string&>(),
                                              expected_type));
    }
  }
  auto v = it->find("values");
  if (v == it->end()) return Fail(path, "missing 'values'");
  if (!v->is_object()) return Fail(path + ".values", fmt::format("expected an object, got {}", TypeName(*v)));
  m.values = &*v;
  m.values_path = path + ".values";
  return std::optional<Metric>(m);
}

Result<Parser::Metric> Parser::RequireMetric(const std::string& name, const char* expected_type,
                                             const char* why_missing) const {
  auto m = FindMetric(name, expected_type);
  if (!m.ok()) return m.error();
  if (!m->has_value()) return Fail("metrics." + name, fmt::format("missing ({})", why_missing));
  return **m;
}

Result<double> Parser::Number(const Json& obj, const std::string& obj_path, const std::string& key,
                              bool allow_null, bool* was_null) const {
  if (was_null) *was_null = false;
  auto it = obj.find(key);
  if (it == obj.end()) return Fail(obj_path, fmt::format("missing '{}'", key));
  if (it->is_null()) {
    if (allow_null && was_null) {
      *was_null = true;
      return 0.0;
    }
    return Fail(obj_path + "." + key, "null (no samples), expected a number");
  }
  if (!it->is_number()) {
    return Fail(obj_path + "." + key, fmt::format("expected a number, got {}", TypeName(*it)));
  }
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < 0) return Fail(obj_path + "." + key, fmt::format("{} is not a number >= 0", v));
  return v;
}

Result<uint64_t> Parser::Count(const Json& obj, const std::string& obj_path,
                               const std::string& key) const {
  auto v = Number(obj, obj_path, key, false, nullptr);
  if (!v.ok()) return v.error();
  // Counts arrive as JSON numbers written from float64; accept integral values only.
  if (*v != std::floor(*v) || *v > 9007199254740992.0) {
    return Fail(obj_path + "." + key, fmt::format("{} is not a whole count", *v));
  }
  return static_cast<uint64_t>(*v);
}

Result<LatencyUs> Parser::Latency(const Metric& m) const {
  if (shape_ == K6SummaryShape::kHandleSummary) {
    if (auto c = m.metric->find("contains"); c != m.metric->end()) {
      if (!c->is_string() || c->get_ref<const std::string&>() != "time") {
        return Fail("metrics.http_req_duration.contains",
                    fmt::format("{}, expected \"time\" (milliseconds)", c->dump()));
      }
    }
  }
  // Collect p(N) keys by number, and med/max.
  struct Key {
    double p;
    const std::string* name;
    const Json* value;
  };
  std::vector<Key> keys;
  for (auto it = m.values->begin(); it != m.values->end(); ++it) {
    if (auto p = PercentileOf(it.key())) keys.push_back({*p, &it.key(), &it.value()});
  }
  auto ms_value = [&](const std::string& key, const Json& v) -> Result<double> {
    const std::string path = fmt::format("{}[\"{}\"]", m.values_path, key);
    if (v.is_null()) return Fail(path, "null (no samples), expected milliseconds");
    if (!v.is_number()) return Fail(path, fmt::format("expected a number of milliseconds, got {}", TypeName(v)));
    const double ms = v.get<double>();
    if (!std::isfinite(ms) || ms < 0) return Fail(path, fmt::format("{} is not a duration >= 0", ms));
    return ms * kUsPerMs;  // the one ms -> µs conversion
  };
  auto percentile = [&](double p, bool med_fallback) -> Result<double> {
    for (const Key& k : keys) {
      if (std::fabs(k.p - p) < 1e-9) return ms_value(*k.name, *k.value);
    }
    if (med_fallback) {
      if (auto it = m.values->find("med"); it != m.values->end()) return ms_value("med", *it);
    }
    return Fail(m.values_path, fmt::format("missing percentile {} (summaryTrendStats must include it)",
                                           PercentileLabel(p)));
  };
  LatencyUs lat;
  struct Want {
    double p;
    double* out;
  };
  for (Want w : {Want{50, &lat.p50}, Want{90, &lat.p90}, Want{99, &lat.p99}, Want{99.9, &lat.p999}}) {
    auto v = percentile(w.p, w.p == 50);
    if (!v.ok()) return v.error();
    *w.out = *v;
  }
  auto max_it = m.values->find("max");
  if (max_it == m.values->end()) {
    return Fail(m.values_path, "missing 'max' (summaryTrendStats must include it)");
  }
  auto mx = ms_value("max", *max_it);
  if (!mx.ok()) return mx.error();
  lat.max = *mx;
  // The mean, when summaryTrendStats asked for it (k6/constant_rate.js does).
  if (auto avg_it = m.values->find("avg"); avg_it != m.values->end() && !avg_it->is_null()) {
    auto avg = ms_value("avg", *avg_it);
    if (!avg.ok()) return avg.error();
    lat.mean = *avg;
  }
  return lat;
}

Result<void> Parser::Thresholds(std::vector<std::string>* failed) const {
  for (auto it = metrics_->begin(); it != metrics_->end(); ++it) {
    if (!it->is_object()) continue;  // reported when the metric is needed
    auto th = it->find("thresholds");
    if (th == it->end()) continue;
    const std::string path = fmt::format("metrics.{}.thresholds", it.key());
    if (!th->is_object()) return Fail(path, fmt::format("expected an object, got {}", TypeName(*th)));
    for (auto t = th->begin(); t != th->end(); ++t) {
      const std::string tpath = fmt::format("{}[\"{}\"]", path, t.key());
      bool did_fail = false;
      if (shape_ == K6SummaryShape::kSummaryExport) {
        // Legacy export: the boolean answers "did it fail?".
        if (!t->is_boolean()) return Fail(tpath, fmt::format("expected a boolean, got {}", TypeName(*t)));
        did_fail = t->get<bool>();
      } else {
        auto ok = t->is_object() ? t->find("ok") : t->end();
        if (!t->is_object() || ok == t->end() || !ok->is_boolean()) {
          return Fail(tpath, fmt::format("expected {{\"ok\": <bool>}}, got {}", t->dump()));
        }
        did_fail = !ok->get<bool>();
      }
      if (did_fail) failed->push_back(fmt::format("{}: {}", it.key(), t.key()));
    }
  }
  return Ok();
}

Result<void> Parser::CheckTimeUnit() const {
  auto opts = root_.find("options");
  if (opts == root_.end() || !opts->is_object()) return Ok();
  auto unit = opts->find("summaryTimeUnit");
  if (unit == opts->end() || unit->is_null()) return Ok();
  if (!unit->is_string()) {
    return Fail("options.summaryTimeUnit", fmt::format("expected a string, got {}", TypeName(*unit)));
  }
  const std::string& u = unit->get_ref<const std::string&>();
  if (!u.empty() && u != "ms") {
    return Fail("options.summaryTimeUnit",
                fmt::format("'{}': trend values may not be milliseconds; leave it unset", u));
  }
  return Ok();
}

// The document, its metrics object, its shape and the time unit.
Result<void> Parser::ParseRoot(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Error{fmt::format("{}: empty file (k6 wrote no summary)", source_)};
  }
  if (auto nul = detail::RefuseNulBytes(text, source_); !nul) return nul.error();
  try {
    root_ = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    return Error{fmt::format("{}: not valid JSON (truncated or not a k6 summary): {}{}", source_, e.what(),
                             detail::AfterDocumentHint(e.what()))};
  }
  if (!root_.is_object()) {
    return Error{fmt::format("{}: top level is {}, expected a k6 summary object", source_, TypeName(root_))};
  }
  auto mit = root_.find("metrics");
  // k6 >= 1.5 can emit a different "machine-readable" shape when
  // --new-machine-readable-summary / K6_NEW_MACHINE_READABLE_SUMMARY is on;
  // the engine turns it off, and it is rejected here rather than guessed at.
  constexpr const char* kShapeHint =
      " (not the handleSummary/--summary-export shape; is K6_NEW_MACHINE_READABLE_SUMMARY set?)";
  if (mit == root_.end()) return Fail("metrics", std::string("missing") + kShapeHint);
  if (!mit->is_object()) {
    return Fail("metrics", fmt::format("expected an object, got {}{}", TypeName(*mit), kShapeHint));
  }
  metrics_ = &*mit;

  // Shape: handleSummary metrics carry a "values" object; the export
  // flattens them. Decided on http_reqs, which both shapes must have.
  auto reqs_it = metrics_->find("http_reqs");
  if (reqs_it == metrics_->end()) {
    return Fail("metrics.http_reqs", "missing (k6 completed no HTTP request, or not a k6 HTTP test)");
  }
  shape_ = (reqs_it->is_object() && reqs_it->contains("values")) ? K6SummaryShape::kHandleSummary
                                                                  : K6SummaryShape::kSummaryExport;
  return CheckTimeUnit();
}

// http_reqs count and rate; the duration from state.testRunDurationMs, else
// requests / rate.
Result<void> Parser::RequestsAndDuration(LoadResult& lr) const {
  auto reqs = RequireMetric("http_reqs", "counter", "no HTTP request completed");
  if (!reqs.ok()) return reqs.error();
  auto count = Count(*reqs->values, reqs->values_path, "count");
  if (!count.ok()) return count.error();
  if (*count == 0) return Fail(reqs->values_path + ".count", "0 requests completed; nothing was measured");
  lr.requests = *count;
  bool rate_null = false;
  std::optional<double> reqs_rate;
  if (reqs->values->contains("rate")) {
    auto r = Number(*reqs->values, reqs->values_path, "rate", true, &rate_null);
    if (!r.ok()) return r.error();
    if (!rate_null) reqs_rate = *r;
  }
  std::optional<double> duration_s;
  if (auto st = root_.find("state"); st != root_.end()) {
    if (!st->is_object()) return Fail("state", fmt::format("expected an object, got {}", TypeName(*st)));
    if (st->contains("testRunDurationMs")) {
      auto ms = Number(*st, "state", "testRunDurationMs", false, nullptr);
      if (!ms.ok()) return ms.error();
      if (*ms <= 0) return Fail("state.testRunDurationMs", "0: the test did not run");
      duration_s = *ms / 1000.0;
    }
  }
  if (!duration_s) {
    if (!reqs_rate || *reqs_rate <= 0) {
      return Fail(reqs->values_path + ".rate",
                  "missing or zero and no state.testRunDurationMs: cannot tell the run's duration");
    }
    duration_s = static_cast<double>(lr.requests) / *reqs_rate;
  }
  lr.duration_s = *duration_s;
  lr.achieved_rps = reqs_rate ? *reqs_rate : static_cast<double>(lr.requests) / lr.duration_s;
  return Ok();
}

// Failures: http_req_failed.passes counts FAILED requests.
Result<uint64_t> Parser::Failures(LoadResult& lr) const {
  auto failed = RequireMetric("http_req_failed", "rate",
                              "k6 >= v0.31 records it for every request; older k6, or responseCallback: null?");
  if (!failed.ok()) return failed.error();
  auto passes = Count(*failed->values, failed->values_path, "passes");
  if (!passes.ok()) return passes.error();
  auto fails = Count(*failed->values, failed->values_path, "fails");
  if (!fails.ok()) return fails.error();
  const char* rate_key = shape_ == K6SummaryShape::kHandleSummary ? "rate" : "value";
  bool failed_rate_null = false;
  auto frate = Number(*failed->values, failed->values_path, rate_key, true, &failed_rate_null);
  if (!frate.ok()) return frate.error();
  if (failed_rate_null) {
    return Fail(failed->values_path + "." + rate_key,
                fmt::format("null (no samples) although http_reqs counted {} requests", lr.requests));
  }
  if (*passes + *fails != lr.requests) {
    return Fail(failed->values_path,
                fmt::format("passes {} + fails {} != http_reqs count {}: the counters disagree", *passes,
                            *fails, lr.requests));
  }
  lr.failed = *passes;
  lr.error_rate = static_cast<double>(lr.failed) / static_cast<double>(lr.requests);
  return *passes;
}

// An optional counter's count into *out; returns the path of its values
// when present, none when absent (*out untouched).
Result<std::optional<std::string>> Parser::OptionalCount(const char* name, uint64_t* out) const {
  auto m = FindMetric(name, "counter");
  if (!m.ok()) return m.error();
  if (!m->has_value()) return std::optional<std::string>();
  auto n = Count(*(*m)->values, (*m)->values_path, "count");
  if (!n.ok()) return n.error();
  *out = *n;
  return std::optional<std::string>((*m)->values_path);
}

// dropped_iterations, non_2xx, ratelimit_evidence; the per-scheduled-request outcomes.
Result<void> Parser::Counters(LoadResult& lr, uint64_t failed_passes) const {
  if (auto d = OptionalCount("dropped_iterations", &lr.dropped_iterations); !d.ok()) return d.error();
  lr.kept_up = lr.dropped_iterations == 0;
  uint64_t non2xx = 0;
  auto has_non2xx = OptionalCount("non_2xx", &non2xx);
  if (!has_non2xx.ok()) return has_non2xx.error();
  if (has_non2xx->has_value()) {
    if (non2xx > lr.requests) {
      return Fail(**has_non2xx + ".count", fmt::format("{} exceeds http_reqs count {}", non2xx, lr.requests));
    }
    lr.non_2xx = non2xx;
  } else {
    lr.non_2xx = lr.failed;
  }
  // One request per iteration (k6/constant_rate.js): the schedule offered
  // every iteration that ran plus every one k6 dropped.
  AccountPerScheduledRequest(lr, lr.requests + lr.dropped_iterations, lr.requests,
                             std::max(lr.non_2xx, failed_passes));
  uint64_t evidence = 0;
  auto has_evidence = OptionalCount("ratelimit_evidence", &evidence);
  if (!has_evidence.ok()) return has_evidence.error();
  if (has_evidence->has_value()) lr.ratelimit_evidence = evidence;
  return Ok();
}

Result<K6Summary> Parser::Parse(std::string_view text, double target_rps) {
  if (auto r = ParseRoot(text); !r.ok()) return r.error();
  K6Summary out;
  out.shape = shape_;
  LoadResult& lr = out.load;
  lr.engine = "k6";
  lr.target_rps = target_rps;
  lr.raw_path = source_;
  if (auto r = RequestsAndDuration(lr); !r.ok()) return r.error();
  auto passes = Failures(lr);
  if (!passes.ok()) return passes.error();
  auto dur = RequireMetric("http_req_duration", "trend", "no HTTP request completed");
  if (!dur.ok()) return dur.error();
  auto lat = Latency(*dur);
  if (!lat.ok()) return lat.error();
  lr.latency_us = *lat;
  if (auto r = Counters(lr, *passes); !r.ok()) return r.error();
  if (auto r = Thresholds(&out.failed_thresholds); !r.ok()) return r.error();
  return out;
}

}  // namespace

Result<K6Summary> ParseK6SummaryDetailed(std::string_view text, const std::string& source_name,
                                         double target_rps) {
  Parser p(source_name);
  return p.Parse(text, target_rps);
}

Result<LoadResult> ParseK6Summary(std::string_view text, const std::string& source_name,
                                  double target_rps) {
  auto r = ParseK6SummaryDetailed(text, source_name, target_rps);
  if (!r.ok()) return r.error();
  return std::move(r->load);
}

const char* K6SummaryShapeName(K6SummaryShape shape) {
  switch (shape) {
    case K6SummaryShape::kHandleSummary: return "handleSummary";
    case K6SummaryShape::kSummaryExport: return "summary-export";
  }
  return "?";
}

}  // namespace fvbench
