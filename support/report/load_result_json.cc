#include "support/report/load_result_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/core/interval_latency.h"
#include "support/core/plausible.h"
#include "support/core/units_format.h"
#include "support/report/loadgens_json.h"

namespace fvbench::detail {

using nlohmann::json;

void WriteLatencyUs(JsonWriter& w, const LatencyUs& l, bool with_max) {
  w.StartObject();
  w.Field("p50", l.p50);
  w.Field("p90", l.p90);
  w.Field("p99", l.p99);
  w.Field("p999", l.p999);
  if (with_max) w.Field("max", l.max);
  if (l.censored_at_us > 0) w.Field("censored_at_us", l.censored_at_us);  // values >= it are lower bounds
  w.EndObject();
}

namespace {

// Inside "intervals", when the engine gave latencies per interval (k6):
// "sends_counted": false (scheduled, sent, late_10ms not measured), and per
// interval "non_2xx", "timeouts" and "latency_us" {p50, p90, p99, p999, max,
// censored_at_us} (core/interval_latency.h IntervalLatencySummaries: from
// the interval's histogram, or as read back). Read back by
// ReadIntervalLatency: a reader gets the counts, sends_counted and these
// summaries, not the histograms.
void WriteIntervalLatency(JsonWriter& w, const IntervalSeries& s) {
  if (!s.sends_counted) w.Field("sends_counted", false);
  if (!s.has_latency()) return;
  w.Array("non_2xx", s.non_2xx, [&](uint64_t n) { w.Uint(n); });
  w.Array("timeouts", IntervalTimeouts(s), [&](uint64_t n) { w.Uint(n); });
  w.Array("latency_us", IntervalLatencySummaries(s), [&](const LatencyUs& l) { WriteLatencyUs(w, l, true); });
}

// "intervals": {start_epoch_us, width_us, scheduled: [...], sent, completed,
// late_10ms} (core/interval_series.h); absent when the engine wrote none.
void WriteIntervals(JsonWriter& w, const IntervalSeries& s) {
  w.Key("intervals");
  w.StartObject();
  w.Field("start_epoch_us", s.start_epoch_us);
  w.Field("width_us", s.width_us);
  w.Array("scheduled", s.scheduled, [&](uint64_t n) { w.Uint(n); });
  w.Array("sent", s.sent, [&](uint64_t n) { w.Uint(n); });
  w.Array("completed", s.completed, [&](uint64_t n) { w.Uint(n); });
  w.Array("late_10ms", s.late_10ms, [&](uint64_t n) { w.Uint(n); });
  WriteIntervalLatency(w, s);
  w.EndObject();
}

}  // namespace

void WriteLoadResult(JsonWriter& w, const LoadResult& r) {
  w.StartObject();
  w.Field("engine", r.engine);
  w.Field("engine_version", r.engine_version);
  w.Field("target_rps", r.target_rps);
  w.Field("duration_s", r.duration_s);
  w.Field("requests", r.requests);
  if (r.scheduled > 0) {  // outcomes per scheduled request (load_result.h); absent in older files
    w.Field("scheduled", r.scheduled);
    w.Field("succeeded", r.succeeded);
    w.Field("failed_sut", r.failed_sut);
    w.Field("failed_engine", r.failed_engine);
    w.Field("interrupted", r.interrupted);
  }
  w.Field("failed", r.failed);
  w.Field("non_2xx", r.non_2xx);
  if (!r.status_counts.empty()) {  // when counted (load_result.h)
    w.Key("status_counts");
    w.StartObject();
    for (const auto& [status, n] : r.status_counts) w.Field(std::to_string(status), n);
    w.EndObject();
  }
  w.Field("achieved_rps", r.achieved_rps);
  w.Field("error_rate", r.error_rate);
  w.Key("latency_us");
  WriteLatencyUs(w, r.latency_us, /*with_max=*/true);
  w.Field("kept_up", r.kept_up);
  w.Field("dropped_iterations", r.dropped_iterations);
  w.Field("max_send_lag_us", r.max_send_lag_us);
  w.Field("late_send_share", r.late_send_share);
  if (r.late_pool_exhausted_share) w.Field("late_pool_exhausted_share", *r.late_pool_exhausted_share);
  if (r.sut_cpu_share) w.Field("sut_cpu_share", *r.sut_cpu_share);
  if (r.sut_cpus_shared > 0) w.Field("sut_cpus_shared", r.sut_cpus_shared);
  if (r.max_early_send_us > 0) w.Field("max_early_send_us", r.max_early_send_us);
  if (r.wall_s > 0) w.Field("wall_s", r.wall_s);
  w.Field("ratelimit_evidence", r.ratelimit_evidence);
  w.Field("raw_path", r.raw_path);
  WriteLoadgens(w, r);  // several load generators only
  if (!r.intervals.empty()) WriteIntervals(w, r.intervals);
  w.EndObject();
}

namespace {

// A LoadResult read back must be one a run can have measured (plausible.h):
// rates and the error rate in range (null, written for a number that was not
// finite, stays NaN), and when it completed requests, latencies > 0, normal
// and in order. Throws naming the key.
void CheckPlausible(const LoadResult& r, const std::string& path) {
  struct Field {
    const char* key;
    double v, hi;
  };
  for (const Field& f : {Field{"target_rps", r.target_rps, kMaxRateRps}, Field{"achieved_rps", r.achieved_rps, kMaxRateRps},
                         Field{"error_rate", r.error_rate, 1}, Field{"duration_s", r.duration_s, kMaxPhaseSeconds}}) {
    if (std::isnan(f.v)) continue;
    if (std::string why = WhyOutOfRange(f.v, 0, f.hi); !why.empty()) {
      throw detail::JsonFieldError{fmt::format("{}: {}", detail::JoinPath(path, f.key), why)};
    }
  }
  if (r.requests == 0) return;  // nothing completed: no latency was measured (0 is what the parsers give)
  if (auto bad = CheckLatencyUs(r.latency_us, /*with_max=*/true)) {
    throw detail::JsonFieldError{fmt::format("{}: {}", detail::JoinPath(detail::JoinPath(path, "latency_us"), bad->key),
                                             bad->why)};
  }
}

// "status_counts": {"200": n, "429": n, ...}: keys are HTTP statuses
// (100..999), values counts. Throws naming the key.
std::map<int, uint64_t> ReadStatusCounts(const json& v, const std::string& path) {
  const std::string spath = detail::JoinPath(path, "status_counts");
  std::map<int, uint64_t> out;
  for (const auto& [key, n] : detail::GetObject(v, "status_counts", path).items()) {
    const bool digits = key.size() == 3 && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || key[0] == '0') {
      throw detail::JsonFieldError{fmt::format("{}: key \"{}\" is not an HTTP status", spath, key)};
    }
    out[std::stoi(key)] = detail::GetUint(v.at("status_counts"), key, spath);
  }
  return out;
}

// One array of counts of "intervals" (`o`, at ipath) into `out`. Throws
// naming the element.
void ReadCounts(const json& o, const char* key, const std::string& ipath, std::vector<uint64_t>& out) {
  const json& a = GetArray(o, key, ipath);
  const std::string apath = JoinPath(ipath, key);
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number_unsigned()) {
      throw JsonFieldError{fmt::format("{}[{}]: {} is not a count", apath, i, a[i].dump())};
    }
    out.push_back(a[i].get<uint64_t>());
  }
}

// One interval's "latency_us" object (at `path`): p50, p90, p99, p999, max
// each a latency in µs, finite, 0 (an interval without a sample) up to
// kMaxLatencyUs, not decreasing; censored_at_us (optional) likewise. Throws
// naming the key.
LatencyUs ReadIntervalLatencyUs(const json& v, const std::string& path) {
  RequireObject(v, path);
  LatencyUs l;
  const std::pair<const char*, double*> keys[] = {
      {"p50", &l.p50}, {"p90", &l.p90}, {"p99", &l.p99}, {"p999", &l.p999}, {"max", &l.max}};
  for (size_t k = 0; k < std::size(keys); ++k) {
    const auto& [key, value] = keys[k];
    *value = GetNumber(v, key, path);
    if (std::string why = WhyOutOfRange(*value, 0, kMaxLatencyUs); !why.empty()) {
      throw JsonFieldError{fmt::format("{}: {} (a latency in µs)", JoinPath(path, key), why)};
    }
    if (k > 0 && *value < *keys[k - 1].second) {
      throw JsonFieldError{fmt::format("{}: {} µs is below {}'s {} µs (percentiles must not decrease: "
                                       "p50 <= p90 <= p99 <= p999 <= max)",
                                       JoinPath(path, key), FormatNumber(*value), keys[k - 1].first,
                                       FormatNumber(*keys[k - 1].second))};
    }
  }
  if (v.contains("censored_at_us")) {
    l.censored_at_us = GetNumber(v, "censored_at_us", path);
    if (std::string why = WhyOutOfRange(l.censored_at_us, 0, kMaxLatencyUs); !why.empty()) {
      throw JsonFieldError{fmt::format("{}: {} (a latency in µs)", JoinPath(path, "censored_at_us"), why)};
    }
  }
  return l;
}

// The per-interval latency WriteIntervalLatency writes, into s (whose counts
// are read): "non_2xx", "timeouts" and "latency_us" all three or none, each
// one per interval, non_2xx at most completed. Throws naming the key.
void ReadIntervalLatency(const json& o, const std::string& ipath, IntervalSeries& s) {
  const bool any = o.contains("latency_us") || o.contains("timeouts") || o.contains("non_2xx");
  if (!any) return;
  ReadCounts(o, "non_2xx", ipath, s.non_2xx);
  ReadCounts(o, "timeouts", ipath, s.timeouts_read);
  const json& a = GetArray(o, "latency_us", ipath);
  const std::string apath = JoinPath(ipath, "latency_us");
  for (size_t i = 0; i < a.size(); ++i) {
    s.latency_read.push_back(ReadIntervalLatencyUs(a[i], fmt::format("{}[{}]", apath, i)));
  }
  const size_t n = s.size();
  for (const auto& [key, size] : {std::pair{"non_2xx", s.non_2xx.size()}, std::pair{"timeouts", s.timeouts_read.size()},
                                  std::pair{"latency_us", s.latency_read.size()}}) {
    if (size != n) {
      throw JsonFieldError{fmt::format("{}: {} intervals, the counts have {}", JoinPath(ipath, key), size, n)};
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (s.non_2xx[i] > s.completed[i]) {
      throw JsonFieldError{fmt::format("{}[{}]: {} is above completed's {}", JoinPath(ipath, "non_2xx"), i,
                                       s.non_2xx[i], s.completed[i])};
    }
  }
}

// "intervals" as WriteIntervals writes it: width > 0, four series of one
// length, and the per-interval latency when written. Throws naming the key.
IntervalSeries ReadIntervals(const json& v, const std::string& path) {
  const std::string ipath = JoinPath(path, "intervals");
  const json& o = GetObject(v, "intervals", path);
  IntervalSeries s;
  s.start_epoch_us = GetNumber(o, "start_epoch_us", ipath);
  s.width_us = GetNumber(o, "width_us", ipath);
  // An interval of 1 ms to a day (FVBENCH_INTERVAL_S is whole seconds or a
  // fraction of one); a start on the wall clock, not before the epoch.
  if (!(s.width_us >= 1e3 && s.width_us <= 86400e6)) {
    throw JsonFieldError{fmt::format("{}: width_us {} is not between 1000 (1 ms) and 86400000000 (a day)", ipath,
                                     s.width_us)};
  }
  if (!(s.start_epoch_us >= 0 && s.start_epoch_us <= kMaxEpochUs)) {
    throw JsonFieldError{fmt::format("{}: start_epoch_us {} is not a time since the Unix epoch in µs", ipath,
                                     s.start_epoch_us)};
  }
  ReadCounts(o, "scheduled", ipath, s.scheduled);
  ReadCounts(o, "sent", ipath, s.sent);
  ReadCounts(o, "completed", ipath, s.completed);
  ReadCounts(o, "late_10ms", ipath, s.late_10ms);
  if (o.contains("sends_counted")) s.sends_counted = GetBool(o, "sends_counted", ipath);
  const size_t n = s.scheduled.size();
  if (s.sent.size() != n || s.completed.size() != n || s.late_10ms.size() != n) {
    throw JsonFieldError{fmt::format("{}: series of different lengths", ipath)};
  }
  ReadIntervalLatency(o, ipath, s);
  return s;
}

}  // namespace

LoadResult LoadResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  LoadResult r;
  r.engine = GetString(v, "engine", path);
  r.engine_version = GetString(v, "engine_version", path);
  r.target_rps = GetNumberOrNaN(v, "target_rps", path);
  r.duration_s = GetNumberOrNaN(v, "duration_s", path);
  r.requests = GetUint(v, "requests", path);
  r.scheduled = OptUint(v, "scheduled", path, 0);
  r.succeeded = OptUint(v, "succeeded", path, 0);
  r.failed_sut = OptUint(v, "failed_sut", path, 0);
  r.failed_engine = OptUint(v, "failed_engine", path, 0);
  r.interrupted = OptUint(v, "interrupted", path, 0);
  r.failed = GetUint(v, "failed", path);
  r.non_2xx = GetUint(v, "non_2xx", path);
  if (v.contains("status_counts")) r.status_counts = ReadStatusCounts(v, path);
  r.achieved_rps = GetNumberOrNaN(v, "achieved_rps", path);
  r.error_rate = GetNumberOrNaN(v, "error_rate", path);
  std::string lpath = JoinPath(path, "latency_us");
  const json& l = GetObject(v, "latency_us", path);
  r.latency_us.p50 = GetNumberOrNaN(l, "p50", lpath);
  r.latency_us.p90 = GetNumberOrNaN(l, "p90", lpath);
  r.latency_us.p99 = GetNumberOrNaN(l, "p99", lpath);
  r.latency_us.p999 = GetNumberOrNaN(l, "p999", lpath);
  r.latency_us.max = GetNumberOrNaN(l, "max", lpath);
  if (l.contains("censored_at_us")) r.latency_us.censored_at_us = GetNumberOrNaN(l, "censored_at_us", lpath);
  r.kept_up = GetBool(v, "kept_up", path);
  r.dropped_iterations = GetUint(v, "dropped_iterations", path);
  r.max_send_lag_us = GetNumberOrNaN(v, "max_send_lag_us", path);
  // Optional: results written before late_send_share existed lack it.
  if (v.contains("late_send_share")) r.late_send_share = GetNumberOrNaN(v, "late_send_share", path);
  if (v.contains("sut_cpu_share")) r.sut_cpu_share = GetNumberOrNaN(v, "sut_cpu_share", path);
  if (v.contains("sut_cpus_shared")) r.sut_cpus_shared = static_cast<int>(GetUint(v, "sut_cpus_shared", path));
  if (v.contains("late_pool_exhausted_share")) {
    r.late_pool_exhausted_share = GetNumberOrNaN(v, "late_pool_exhausted_share", path);
  }
  if (v.contains("max_early_send_us")) r.max_early_send_us = GetNumberOrNaN(v, "max_early_send_us", path);
  if (v.contains("wall_s")) r.wall_s = GetNumberOrNaN(v, "wall_s", path);
  r.ratelimit_evidence = OptUintOrNull(v, "ratelimit_evidence", path);
  r.raw_path = GetString(v, "raw_path", path);
  ReadLoadgens(v, path, r);
  if (v.contains("intervals")) r.intervals = ReadIntervals(v, path);  // absent in older files and for k6
  CheckPlausible(r, path);
  return r;
}

}  // namespace fvbench::detail
