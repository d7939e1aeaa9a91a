#include "support/run/limits_phase.h"

#include <fmt/format.h>

#include <cmath>

#include "support/engine/load_engine.h"
#include "support/host/file_caps.h"
#include "support/judge/limit_accuracy.h"
#include "support/judge/limits_log_parse.h"
#include "support/judge/llm_bucket.h"
#include "support/run/limits_log.h"

namespace fvbench {

Result<PolicyBucket> ReadTokenBucket(Host& sut, const std::string& policy_path, const std::string& policy_id,
                                     const std::string& algorithm) {
  const auto refused = [&](const Error& e) {
    return Error{fmt::format("{}: {}: {}", sut.name(), policy_path, e.message)};
  };
  if (algorithm != "token_bucket" && algorithm != "token_bucket_llm") {
    return refused(Error{fmt::format("no limits scenario judges the algorithm '{}'", algorithm)});
  }
  auto text = sut.ReadFile(policy_path, kPolicyFileCap);
  if (!text) return text.error();
  if (algorithm == "token_bucket_llm") {
    auto llm = LlmBucketOfPolicy(*text, policy_id, kBenchKeyHeader);
    if (!llm) return refused(llm.error());
    return PolicyBucket{llm->per_request, DescribeLlmBucket(*llm)};
  }
  auto limit = TokenBucketOfPolicy(*text, policy_id, kBenchKeyHeader);
  if (!limit) return refused(limit.error());
  return PolicyBucket{*limit, ""};
}

Result<LimitAccuracy> JudgeLimitPhase(Host& sut, const std::string& log_path, const TokenBucketLimit& limit,
                                      int keys, MeasuredPhase& phase) {
  // The measured window and the requests still in flight after it: lines
  // older than that are an earlier attempt's (multi_loadgen.h runs a phase
  // again when a load generator started late).
  const int window_ms = static_cast<int>(std::ceil(phase.load.duration_s * 1000)) + kLimitsWindowSlackMs;
  auto text = ReduceLimitsLog(sut, log_path, kLimitsBinMs, window_ms);
  if (!text) return text.error();
  auto counts = ParseLimitsLog(*text, log_path);
  if (!counts) {
    return Error{fmt::format("the access log {} reduced on {}: {}", log_path, sut.name(), counts.error().message)};
  }
  const LoadResult& load = phase.load;
  phase.validity.push_back(KeysArrivedCheck(*counts, keys));
  // Requests outstanding when the engine stopped: nginx logs them, the
  // engine never counts them (each connection has at most one).
  phase.validity.push_back(LogAgreesWithEngineCheck(*counts, load.status_counts, load.connections));
  LimitAccuracy acc = AssessLimits(*counts, limit, keys, load.target_rps);
  acc.before_window = counts->before_window;
  phase.validity.push_back(OverloadCheck(acc));
  // What the figures mean, said beside the phase's checks; the threshold
  // profile's over_admission and window_excess rules decide whether they fail.
  for (ValidityCheck c : {OverAdmissionCheck(acc), WindowCheck(acc)}) {
    c.informational = true;
    phase.validity.push_back(std::move(c));
  }
  return acc;
}

}  // namespace fvbench
