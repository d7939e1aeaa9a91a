#include "support/history/run_record.h"

#include <openssl/sha.h>

#include <fmt/format.h>

#include "support/judge/ratios.h"
#include "support/report/results_io.h"
#include "support/judge/verdict.h"

namespace fvbench {
namespace {

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  for (unsigned char b : digest) hex += fmt::format("{:02x}", b);
  return hex;
}

// "" when the scenario's numbers are evidence, else why not.
std::string UnusableReason(const ScenarioResult& r, double run_started_unix) {
  if (!r.measured) return "not measured";
  // An earlier ctest run's result merged into this report (`-R latency`, then
  // `-R throughput` into one BENCH_DIR): recorded with that run, not again.
  if (FromEarlierRun(r, run_started_unix)) return "from an earlier ctest run";
  if (WasInterrupted(r)) return "interrupted";
  if (ScenarioVerdict(r) == Verdict::kInvalid) return "INVALID: " + VerdictReason(r);
  return "";
}

void AddMetrics(const ScenarioResult& r, const std::string& reason, std::vector<MetricRow>& out) {
  auto add = [&](const char* metric, double v) { out.push_back({r.id, metric, v, reason.empty(), reason}); };
  if (!r.measured) {
    // Recorded so the history shows the gap; never evidence.
    add("p99_us", 0);
    return;
  }
  add("p50_us", r.load.latency_us.p50);
  add("p99_us", r.load.latency_us.p99);
  add("p999_us", r.load.latency_us.p999);
  add("error_rate", r.load.error_rate);
  if (r.id.rfind("throughput.", 0) == 0) add("max_rps", r.throughput_rps);
  for (const ServiceUsage& u : r.sut_usage) {
    if (u.service == "fv") add("edge_cpu_cores", u.cpu_cores);
  }
}

}  // namespace

bool HigherIsWorse(std::string_view metric) { return metric != "max_rps"; }

Result<RunRecord> RunRecordFromResultsJson(std::string_view text, const std::string& source) {
  auto run = RunResultsFromJson(text, source);
  if (!run.ok()) return run.error();
  const RunMeta& m = run->meta;
  if (!(m.started_unix > 0)) return Error{fmt::format("{}: meta.started_unix: missing or 0; a run without a time cannot be ordered", source)};
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
  rec.results_json = std::string(text);
  for (const ScenarioResult& r : run->scenarios) {
    const std::string reason = UnusableReason(r, m.started_unix);
    AddMetrics(r, reason, rec.metrics);
    if (!reason.empty()) {
      rec.usable = false;
      rec.note += fmt::format("{}{}: {}", rec.note.empty() ? "" : "; ", r.id, reason);
    }
  }
  return rec;
}

}  // namespace fvbench
