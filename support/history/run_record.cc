#include "support/history/run_record.h"

#include <openssl/sha.h>

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/metric_names.h"
#include "support/core/plausible.h"
#include "support/judge/thresholds.h"
#include "support/judge/ratios.h"
#include "support/report/results_io.h"
#include "support/judge/verdict.h"

namespace fvbench {
namespace {

// "" when the scenario's numbers are evidence, else why not.
std::string UnusableReason(const ScenarioResult& r, double run_started_unix) {
  if (!r.measured) return "not measured";
  // An earlier ctest run's result merged into this report (`-R latency`, then
  // `-R throughput` into one BENCH_DIR): recorded with that run, not again.
  if (FromEarlierRun(r, run_started_unix)) return "from an earlier ctest run";
  if (r.interrupted) return "interrupted";
  if (const Judgement j = JudgeScenario(r); j.verdict == Verdict::kInvalid) return "INVALID: " + j.summary;
  return "";
}

// A recorded text as messages show it: JSON-quoted (a newline shows as \n), at most 80 characters.
std::string Shown(std::string_view value) {
  std::string text(value.substr(0, 80));
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
         (value.size() > 80 ? "..." : "");
}

bool IsWordText(std::string_view s) {
  if (s.size() > 32) return false;
  for (unsigned char c : s) {
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

bool IsPlainText(std::string_view s) {
  if (s.size() > 4096) return false;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

constexpr double SecondsIn9999() { return 253402300799; }  // 9999-12-31T23:59:59Z

Result<void> CheckMeta(const RunMeta& m, const std::string& source) {
  auto refuse = [&](const char* field, std::string_view value, const char* expected) {
    return Error{fmt::format("{}: meta.{}: {} is not {}; not recorded", source, field, Shown(value), expected)};
  };
  if (!IsEdgeCommitText(m.edge_commit)) {
    return refuse("edge_commit", m.edge_commit, "a git commit (7 to 64 hex digits, optionally followed by \" (dirty)\")");
  }
  if (!IsWordText(m.engine)) return refuse("engine", m.engine, "an engine name (letters, digits, _ - .)");
  if (!IsWordText(m.mode)) return refuse("mode", m.mode, "a mode (letters, digits, _ - .)");
  const std::pair<const char*, const std::string*> texts[] = {{"ab.edge_ref_a", &m.edge_ref},
                                                              {"sut_host", &m.sut_host},
                                                              {"loadgen_host", &m.loadgen_host},
                                                              {"thresholds_profile", &m.thresholds_profile}};
  for (const auto& [field, value] : texts) {
    if (!IsPlainText(*value)) return refuse(field, *value, "text without control characters of at most 4096 bytes");
  }
  if (m.started_unix == 0) {
    return Error{fmt::format("{}: meta.started_unix: missing or 0; a run without a time cannot be ordered", source)};
  }
  if (std::string why = WhyOutOfRange(m.started_unix, 1, SecondsIn9999()); !why.empty()) {
    return Error{fmt::format("{}: meta.started_unix: {} (a run's start: Unix seconds, 1970 to 9999); not recorded",
                             source, why)};
  }
  if (m.finished_unix != 0) {
    if (std::string why = WhyOutOfRange(m.finished_unix, 1, SecondsIn9999()); !why.empty()) {
      return Error{fmt::format("{}: meta.finished_unix: {} (Unix seconds); not recorded", source, why)};
    }
  }
  return Ok();
}

// One metric and where in results.json it comes from.
struct MetricSource {
  const char* metric;
  double value;
  std::string field;
  double max;
  double min = 0;
};

// The lowest 429 share of the phases; NaN without a phase.
double LowestRejectShare(const ScenarioResult& r) {
  double lowest = std::nan("");
  for (const LimitRun& run : r.limits) {
    if (std::isnan(lowest) || run.accuracy.reject_share < lowest) lowest = run.accuracy.reject_share;
  }
  return lowest;
}

std::vector<MetricSource> MetricsOf(const ScenarioResult& r) {
  std::vector<MetricSource> out = {
      {"p50_us", r.load.latency_us.p50, "load.latency_us.p50", kMaxLatencyUs},
      {"p99_us", r.load.latency_us.p99, "load.latency_us.p99", kMaxLatencyUs},
      {"p999_us", r.load.latency_us.p999, "load.latency_us.p999", kMaxLatencyUs},
      {"error_rate", r.load.error_rate, "load.error_rate", 1},
  };
  if (r.id.rfind("throughput.", 0) == 0) out.push_back({"max_rps", r.throughput_rps, "throughput_rps", kMaxRateRps});
  if (!r.limits.empty()) {
    // A fraction of a bucket: far beyond any a limiter that limits at all
    // admits (1e6 x what the bucket allows) is not a measurement.
    constexpr double kMaxExcess = 1e6;
    out.push_back({kMetricOverAdmission, MetricValue(r, kMetricOverAdmission), "limits[].accuracy.over_admission",
                   kMaxExcess});
    out.push_back({kMetricUnderAdmission, MetricValue(r, kMetricUnderAdmission),
                   "limits[].accuracy.under_admission", 1});
    out.push_back({kMetricWindowExcess, MetricValue(r, kMetricWindowExcess),
                   "limits[].accuracy.worst_window_admitted / window_allowed - 1", kMaxExcess, -1});
    out.push_back({"reject_share", LowestRejectShare(r), "limits[].accuracy.reject_share", 1});
  }
  for (size_t i = 0; i < r.sut_usage.size(); ++i) {
    if (r.sut_usage[i].service == "fv") {
      out.push_back({"edge_cpu_cores", r.sut_usage[i].cpu_cores, fmt::format("sut_usage[{}].cpu_cores", i), 1e6});
    }
  }
  return out;
}

// The scenario's metric rows; an unmeasured scenario gets one row, 0 and not
// evidence, so the history shows the gap.
Result<void> AddMetrics(const ScenarioResult& r, const std::string& reason, const std::string& at,
                        const std::string& source, std::vector<MetricRow>& out) {
  if (!r.measured) {
    out.push_back({r.id, "p99_us", 0, false, reason});
    return Ok();
  }
  for (const MetricSource& m : MetricsOf(r)) {
    if (std::isnan(m.value)) {
      out.push_back({r.id, m.metric, 0, false, reason.empty() ? "no value (null in results.json)" : reason});
      continue;
    }
    if (std::string why = WhyOutOfRange(m.value, m.min, m.max); !why.empty()) {
      return Error{fmt::format("{}: {}.{} ({} of {}): {}; not recorded", source, at, m.field, m.metric, r.id, why)};
    }
    out.push_back({r.id, m.metric, m.value, reason.empty(), reason});
  }
  return Ok();
}

}  // namespace

bool HigherIsWorse(std::string_view metric) { return metric != "max_rps" && metric != "reject_share"; }

bool ChangeIsAbsolute(std::string_view metric) {
  return metric == kMetricOverAdmission || metric == kMetricUnderAdmission || metric == kMetricWindowExcess ||
         metric == "reject_share";
}

bool IsEdgeCommitText(std::string_view s) {
  if (s.empty()) return true;
  constexpr std::string_view kDirty = " (dirty)";
  if (s.size() > kDirty.size() && s.substr(s.size() - kDirty.size()) == kDirty) s.remove_suffix(kDirty.size());
  if (s.size() < 7 || s.size() > 64) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  for (unsigned char b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}

bool IsScenarioId(std::string_view s) {
  if (s.empty() || s.size() > 128 || !std::isalnum(static_cast<unsigned char>(s[0]))) return false;
  if (s.find("..") != std::string_view::npos) return false;
  for (unsigned char c : s) {
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

Result<RunRecord> RunRecordFromResultsJson(std::string_view text, const std::string& source) {
  auto run = RunResultsFromJson(text, source);
  if (!run.ok()) return run.error();
  const RunMeta& m = run->meta;
  if (auto c = CheckMeta(m, source); !c.ok()) return c.error();
  if (run->scenarios.empty()) return Error{fmt::format("{}: scenarios: empty; nothing to record", source)};
  RunRecord rec;
  rec.run_key = Sha256Hex(text);
  rec.started_unix = m.started_unix;
  rec.finished_unix = m.finished_unix;
  rec.edge_commit = m.edge_commit;
  rec.edge_ref = m.edge_ref;
  rec.engine = m.engine;
  rec.mode = m.mode;
  rec.sut_host = m.sut_host;
  rec.loadgen_host = m.loadgen_host;
  rec.profile = m.thresholds_profile;
  rec.environments = m.environments;
  rec.results_json = std::string(text);
  std::set<std::string> ids;
  for (size_t i = 0; i < run->scenarios.size(); ++i) {
    const ScenarioResult& r = run->scenarios[i];
    const std::string at = fmt::format("scenarios[{}]", i);
    if (!IsScenarioId(r.id)) {
      return Error{fmt::format("{}: {}.id: {} is not a scenario id (letters, digits, _ - ., starting with a letter "
                               "or digit, no \"..\"); not recorded",
                               source, at, Shown(r.id))};
    }
    if (!ids.insert(r.id).second) {
      return Error{fmt::format("{}: {}.id: {} appears twice; a run measures a scenario once; not recorded", source,
                               at, Shown(r.id))};
    }
    const std::string reason = UnusableReason(r, m.started_unix);
    if (auto a = AddMetrics(r, reason, at, source, rec.metrics); !a.ok()) return a.error();
    if (!reason.empty()) {
      rec.usable = false;
      rec.note += fmt::format("{}{}: {}", rec.note.empty() ? "" : "; ", r.id, reason);
    }
  }
  return rec;
}

}  // namespace fvbench
