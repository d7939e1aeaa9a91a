#include "support/judge/loadgen_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "support/core/interval_latency.h"

namespace fvbench {
namespace {

LoadgenInstance Describe(const InstanceRun& run) {
  LoadgenInstance i = run.meta;
  const LoadResult& r = run.result;
  i.achieved_rps = r.achieved_rps;
  i.scheduled = r.scheduled;
  i.succeeded = r.succeeded;
  i.failed_sut = r.failed_sut;
  i.failed_engine = r.failed_engine;
  i.non_2xx = r.non_2xx;
  i.kept_up = r.kept_up;
  i.max_send_lag_us = r.max_send_lag_us;
  i.dropped_iterations = r.dropped_iterations;
  return i;
}

void AddCounts(LoadResult& m, const LoadResult& r, double& late_weighted) {
  m.requests += r.requests;
  m.scheduled += r.scheduled;
  m.succeeded += r.succeeded;
  m.failed_sut += r.failed_sut;
  m.failed_engine += r.failed_engine;
  m.interrupted += r.interrupted;
  m.failed += r.failed;
  m.non_2xx += r.non_2xx;
  for (const auto& [status, n] : r.status_counts) m.status_counts[status] += n;
  m.achieved_rps += r.achieved_rps;
  m.kept_up = m.kept_up && r.kept_up;
  m.dropped_iterations += r.dropped_iterations;
  m.max_send_lag_us = std::max(m.max_send_lag_us, r.max_send_lag_us);
  m.max_early_send_us = std::max(m.max_early_send_us, r.max_early_send_us);
  late_weighted += r.late_send_share * static_cast<double>(r.requests);
}

// Of all the instances' late sends, the share that found their pool
// exhausted (each instance's share weighted by its late sends); nullopt
// when an instance with late sends lacks the figure, or none was late.
std::optional<double> MergedPoolExhaustedShare(const std::vector<InstanceRun>& runs) {
  double late = 0, exhausted = 0;
  for (const InstanceRun& run : runs) {
    const LoadResult& r = run.result;
    const double n = r.late_send_share * static_cast<double>(r.requests);
    if (n <= 0) continue;
    if (!r.late_pool_exhausted_share) return std::nullopt;
    late += n;
    exhausted += n * *r.late_pool_exhausted_share;
  }
  if (late <= 0) return std::nullopt;
  return exhausted / late;
}

// The instances' pools together, and their mean latency weighted by their
// responses; 0 (not known) when any instance lacks its figure.
void MergePool(LoadResult& m, const std::vector<InstanceRun>& runs) {
  uint64_t pool = 0;
  double weighted = 0, answered = 0;
  for (const InstanceRun& run : runs) {
    const LoadResult& r = run.result;
    if (r.connections == 0 || !(r.latency_us.mean > 0)) return;
    pool += r.connections;
    weighted += r.latency_us.mean * static_cast<double>(r.requests);
    answered += static_cast<double>(r.requests);
  }
  m.connections = pool;
  if (answered > 0) m.latency_us.mean = weighted / answered;
}

std::vector<ValidityCheck> InstanceChecks(const LoadgenInstance& i, const LoadResult& r, const ValidityParams& p) {
  const std::string who = "loadgen " + i.name + ": ";
  std::vector<ValidityCheck> out;
  // In the units of the phase's own engine_kept_up (validity.h): wrk the
  // share of sends > 10 ms behind schedule, k6 its dropped iterations.
  ValidityCheck kept = r.engine == "k6"
      ? ValidityCheck{who + "engine_kept_up", r.kept_up, false, "<=", static_cast<double>(r.dropped_iterations), 0,
                      "k6 dropped_iterations"}
      : ValidityCheck{who + "engine_kept_up", r.kept_up, false, "<=", r.late_send_share, kDefaultMaxLateShare,
                      fmt::format("wrk pace.lua share of sends > 10 ms behind schedule; worst lag {:.0f} µs, "
                                  "earliest {:.0f} µs before its slot",
                                  r.max_send_lag_us, r.max_early_send_us)};
  out.push_back(kept);
  const double share = i.target_rps > 0 ? r.achieved_rps / i.target_rps : 0;
  out.push_back({who + "achieved_rate", share >= p.min_achieved_fraction, false, ">=", share,
                 p.min_achieved_fraction,
                 fmt::format("{:.1f} of its {:.1f} RPS", r.achieved_rps, i.target_rps)});
  if (i.cpu_busy >= 0) {
    out.push_back({who + "loadgen_cpu", i.cpu_busy <= p.max_loadgen_busy, false, "<=", i.cpu_busy,
                   p.max_loadgen_busy, "busy fraction of its CPUs"});
  }
  return out;
}

// Adds `from` into `into` from interval `at` on, growing it as needed.
void AddSeries(std::vector<uint64_t>& into, const std::vector<uint64_t>& from, size_t at) {
  if (into.size() < at + from.size()) into.resize(at + from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) into[at + i] += from[i];
}

}  // namespace

Result<IntervalSeries> MergeIntervalSeries(const std::vector<IntervalSeries>& series) {
  IntervalSeries out;
  if (series.empty()) return out;
  double earliest = series.front().start_epoch_us;
  for (const IntervalSeries& s : series) {
    if (s.empty()) return IntervalSeries{};
    if (s.width_us != series.front().width_us) {
      return Error{fmt::format("merging counts per interval: widths differ ({} µs and {} µs)",
                               series.front().width_us, s.width_us)};
    }
    earliest = std::min(earliest, s.start_epoch_us);
  }
  out.start_epoch_us = earliest;
  out.width_us = series.front().width_us;
  for (const IntervalSeries& s : series) {
    const auto at = static_cast<size_t>(std::llround((s.start_epoch_us - earliest) / out.width_us));
    AddSeries(out.scheduled, s.scheduled, at);
    AddSeries(out.sent, s.sent, at);
    AddSeries(out.completed, s.completed, at);
    AddSeries(out.late_10ms, s.late_10ms, at);
  }
  // one length: a series that ended earlier is 0 in the later intervals
  const size_t n = std::max({out.scheduled.size(), out.sent.size(), out.completed.size(), out.late_10ms.size()});
  for (auto* v : {&out.scheduled, &out.sent, &out.completed, &out.late_10ms}) v->resize(n, 0);
  for (const IntervalSeries& s : series) out.sends_counted = out.sends_counted && s.sends_counted;
  if (auto l = MergeIntervalLatencies(series, out); !l) return l.error();
  return out;
}

Result<void> MergeIntervalLatencies(const std::vector<IntervalSeries>& series, IntervalSeries& merged) {
  merged.latency.clear();
  merged.non_2xx.clear();
  for (const IntervalSeries& s : series) {
    if (!s.has_latency() || s.latency.size() != s.size() || s.non_2xx.size() != s.size()) return Ok();
  }
  const size_t n = merged.size();
  merged.latency.resize(n);
  merged.non_2xx.assign(n, 0);
  for (size_t k = 0; k < series.size(); ++k) {
    const IntervalSeries& s = series[k];
    const auto at = static_cast<size_t>(std::llround((s.start_epoch_us - merged.start_epoch_us) / merged.width_us));
    for (size_t i = 0; i < s.latency.size() && at + i < n; ++i) {
      if (auto m = MergeIntervalLatency(merged.latency[at + i], s.latency[i]); !m) {
        return Error{fmt::format("merging latencies per interval: series {}, interval {}: {}", k, i,
                                 m.error().message)};
      }
      merged.non_2xx[at + i] += s.non_2xx[i];
    }
  }
  return Ok();
}

Result<MergedPhase> MergeLoadgens(const std::vector<InstanceRun>& runs, const ValidityParams& params,
                                  double max_start_skew_us) {
  if (runs.empty()) return Error{"merging load generators: no instance ran"};
  MergedPhase out;
  LoadResult& m = out.merged;
  m.engine = runs.front().result.engine;
  m.engine_version = runs.front().result.engine_version;
  LatencyHistogram latency;
  double late_weighted = 0, earliest = runs.front().meta.start_epoch_us, latest = earliest;
  double first_end = runs.front().meta.end_epoch_us, longest = 0;
  bool evidence = true;
  uint64_t evidence_sum = 0;
  for (const InstanceRun& run : runs) {
    if (auto merged = latency.Merge(run.histogram); !merged.ok()) {
      return Error{fmt::format("loadgen {}: {}", run.meta.name, merged.error().message)};
    }
    m.target_rps += run.meta.target_rps;
    AddCounts(m, run.result, late_weighted);
    evidence = evidence && run.result.ratelimit_evidence.has_value();
    evidence_sum += run.result.ratelimit_evidence.value_or(0);
    earliest = std::min(earliest, run.meta.start_epoch_us);
    latest = std::max(latest, run.meta.start_epoch_us);
    first_end = std::min(first_end, run.meta.end_epoch_us);
    longest = std::max(longest, run.result.duration_s);
    m.loadgens.push_back(Describe(run));
    for (auto& c : InstanceChecks(m.loadgens.back(), run.result, params)) out.checks.push_back(std::move(c));
  }
  m.latency_us = latency.ToLatencyUs();
  std::vector<IntervalSeries> series;
  for (const InstanceRun& run : runs) series.push_back(run.result.intervals);
  auto intervals = MergeIntervalSeries(series);
  if (!intervals) return intervals.error();
  m.intervals = std::move(*intervals);
  MergePool(m, runs);
  m.late_pool_exhausted_share = MergedPoolExhaustedShare(runs);
  m.late_send_share = m.requests > 0 ? late_weighted / static_cast<double>(m.requests) : 0;
  m.error_rate = m.scheduled > 0 ? static_cast<double>(m.failed) / static_cast<double>(m.scheduled) : 1.0;
  if (evidence) m.ratelimit_evidence = evidence_sum;
  m.loadgen_start_skew_us = latest - earliest;
  out.window_s = first_end > latest ? (first_end - latest) / 1e6 : 0;
  m.duration_s = out.window_s > 0 ? out.window_s : longest;
  out.checks.push_back({"start_skew", m.loadgen_start_skew_us <= max_start_skew_us, false, "<=",
                        m.loadgen_start_skew_us, max_start_skew_us,
                        fmt::format("{} instances, latest start - earliest start (µs)", runs.size())});
  m.loadgen_checks = out.checks;
  return out;
}

}  // namespace fvbench
