#include "support/judge/reject_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/core/units_format.h"

namespace fvbench {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

int ClampKeys(double keys) {
  return static_cast<int>(std::clamp(keys, 1.0, static_cast<double>(kMaxRejectCostKeys)));
}

bool Positive(double v) { return std::isfinite(v) && v > 0; }

double Ratio(double num, double den) { return std::isnan(num) || !(den > 0) ? kNaN : num / den; }

std::string Counts(const RejectCostPhase& p) {
  return fmt::format("{} 2xx / {} {} / {} other over {} key{} at {} RPS each", p.ok, p.rejected,
                     p.by_status ? "429" : "non-2xx", p.other, p.keys, p.keys == 1 ? "" : "s",
                     detail::FormatNumber(p.offered_per_key_rps));
}

ValidityCheck ShareCheck(const RejectCostPhase& p, const char* name, const char* op, double limit, bool passed) {
  ValidityCheck v;
  v.name = name;
  v.op = op;
  v.limit = limit;
  v.measured = p.reject_share;
  v.passed = !std::isnan(p.reject_share) && passed;
  const std::string share = std::isnan(p.reject_share) ? "not known (no response)"
                                                       : detail::FormatPercent(p.reject_share);
  v.detail = fmt::format("429 share {} ({}), must be {} {}{}", share, Counts(p), op,
                         detail::FormatPercent(limit), v.passed ? "" : ": the phase is INVALID");
  return v;
}

}  // namespace

int AdmittedPhaseKeys(double rate_rps, double rate_per_s) {
  if (!Positive(rate_rps) || !Positive(rate_per_s)) return 0;
  return ClampKeys(std::ceil(rate_rps / (kAdmittedKeyLoad * rate_per_s)));
}

int RejectedPhaseKeys(double rate_rps, double rate_per_s) {
  if (!Positive(rate_rps) || !Positive(rate_per_s)) return 0;
  return ClampKeys(std::floor(rate_rps / (kRejectedKeyLoad * rate_per_s)));
}

RejectCostPhase MakeRejectCostPhase(std::string name, std::string phase, int keys, const LoadResult& load,
                                    double fv_cpu_cores) {
  RejectCostPhase p;
  p.name = std::move(name);
  p.phase = std::move(phase);
  p.keys = keys;
  p.offered_per_key_rps = keys > 0 ? load.target_rps / keys : 0;
  p.load = load;
  p.by_status = !load.status_counts.empty();
  if (p.by_status) {
    for (const auto& [status, n] : load.status_counts) {
      (status >= 200 && status <= 299 ? p.ok : status == 429 ? p.rejected : p.other) += n;
    }
  } else {
    p.ok = load.requests >= load.non_2xx ? load.requests - load.non_2xx : 0;
    p.rejected = load.non_2xx;
  }
  const uint64_t all = p.ok + p.rejected + p.other;
  p.reject_share = all > 0 ? static_cast<double>(p.rejected) / static_cast<double>(all) : kNaN;
  p.fv_cpu_cores = fv_cpu_cores;
  p.cpu_us_per_request = Ratio(fv_cpu_cores * 1e6, load.achieved_rps);
  return p;
}

void SetRejectCostRatios(RejectCostRun& run) {
  const LatencyUs& a = run.admitted.load.latency_us;
  const LatencyUs& r = run.rejected.load.latency_us;
  run.p50_ratio = Ratio(r.p50, a.p50);
  run.p99_ratio = Ratio(r.p99, a.p99);
  run.cpu_ratio = Ratio(run.rejected.cpu_us_per_request, run.admitted.cpu_us_per_request);
}

ValidityCheck AdmittedPhaseCheck(const RejectCostPhase& p) {
  return ShareCheck(p, "reject_cost_admitted", "<", kAdmittedMaxRejectShare,
                    p.reject_share < kAdmittedMaxRejectShare);
}

ValidityCheck RejectedPhaseCheck(const RejectCostPhase& p) {
  return ShareCheck(p, "reject_cost_rejected", ">=", kRejectedMinRejectShare,
                    p.reject_share >= kRejectedMinRejectShare);
}

}  // namespace fvbench
