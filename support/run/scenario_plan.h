// The scenarios as data: what runs on the SUT, what the load engine
// sends, and which policy must be proven live first. Pure.
#pragma once

#include <string>
#include <vector>

#include "support/engine/load_engine.h"

namespace fvbench {

enum class ScenarioKind {
  kLatency,     // one phase at LATENCY_RPS
  kThroughput,  // the step search
  kLimits,      // the limiter at LIMITS_OVERLOAD x its keys' rate, all workers then one (limits_flow.h)
  kRejectCost,  // what a rejection costs: all-admitted then mostly-rejected keys, both at LATENCY_RPS
  kKeySweep,    // limits.keys: one limits phase per LIMITS_KEYS_SWEEP point at LIMITS_KEYS_RPS (core/key_sweep.h)
};
// The kinds whose phases are judged by the SUT's access log (limits_phase.h).
inline bool IsAccessLogJudged(ScenarioKind k) { return k == ScenarioKind::kLimits || k == ScenarioKind::kKeySweep; }
// The limits scenarios' kinds: a finite token bucket loaded with keyed
// requests (X-Bench-Key), 429s expected, no A/B mode, left out by LIMITS=0.
inline bool IsLimitsKind(ScenarioKind k) { return IsAccessLogJudged(k) || k == ScenarioKind::kRejectCost; }
enum class SutSetup {
  kBaseline,           // raw nginx on NGINX_PORT, returns 200 "ok"
  kDecisionService,    // fairvisor FAIRVISOR_MODE=decision_service on FV_PORT
  kReverseProxy,       // fairvisor FAIRVISOR_MODE=reverse_proxy on FV_PORT + backend nginx on BACKEND_PORT
};

struct ScenarioPlan {
  std::string id;            // "latency.raw_nginx", ... (scenario_result.h)
  std::string title;         // for the table and logs
  ScenarioKind kind;
  SutSetup sut;
  std::string policy_file;   // file name in Config::policy_dir; empty for raw nginx
  std::string policy_id;     // the policy's id; its RateLimit evidence names it
  RequestKind request;
  std::string method;        // as sent (probe and engine agree)
  std::string path;          // request path on the SUT
  bool with_jwt = false;     // Authorization: Bearer <bench JWT>
  bool chat_body = false;    // POST body: a chat-completion request (kLlmBody)
  // Limits scenarios: the algorithm of the policy's rule whose bucket the
  // figures are judged by (limits_phase.h ReadTokenBucket): "token_bucket"
  // or "token_bucket_llm".
  std::string limit_algorithm = "token_bucket";
};

// A chat-completion request body for the LLM policy's simple_word estimator.
extern const char* const kLlmBody;

// The six, then the limits scenarios, in the order a full run executes them.
const std::vector<ScenarioPlan>& AllScenarios();
// nullptr when `id` is unknown.
const ScenarioPlan* FindScenario(const std::string& id);

}  // namespace fvbench
