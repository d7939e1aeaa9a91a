#include "support/run/scenario_plan.h"

namespace fvbench {

const char* const kLlmBody =
    R"({"model":"gpt-4o-mini","max_tokens":64,"messages":[)"
    R"({"role":"system","content":"You are a concise assistant for a rate limiting benchmark."},)"
    R"({"role":"user","content":"Summarise in two sentences why a gateway should estimate tokens before forwarding a request to a model provider."}]})";

const std::vector<ScenarioPlan>& AllScenarios() {
  static const std::vector<ScenarioPlan> kAll = {
      {"latency.raw_nginx", "Raw nginx", ScenarioKind::kLatency, SutSetup::kBaseline, "", "",
       RequestKind::kGet, "GET", "/", false, false},
      {"latency.decision_service", "Decision Svc", ScenarioKind::kLatency, SutSetup::kDecisionService,
       "simple.json", "bench-simple", RequestKind::kDecision, "POST", "/v1/decision", true, false},
      {"latency.reverse_proxy", "Reverse Proxy", ScenarioKind::kLatency, SutSetup::kReverseProxy,
       "simple.json", "bench-simple", RequestKind::kGet, "GET", "/", true, false},
      {"throughput.simple", "Simple rate limit (1 rule)", ScenarioKind::kThroughput,
       SutSetup::kReverseProxy, "simple.json", "bench-simple", RequestKind::kGet, "GET", "/", false, false},
      {"throughput.complex", "Complex policy (5 rules, JWT + loop detection)", ScenarioKind::kThroughput,
       SutSetup::kReverseProxy, "complex.json", "bench-complex", RequestKind::kGet, "GET", "/", true, false},
      {"throughput.llm", "LLM token estimation (token_bucket_llm)", ScenarioKind::kThroughput,
       SutSetup::kReverseProxy, "llm.json", "bench-llm", RequestKind::kPostJson, "POST",
       "/v1/chat/completions", true, true},
      {"limits.accuracy", "Limiter accuracy (token bucket per key)", ScenarioKind::kLimits,
       SutSetup::kReverseProxy, "limits.json", "bench-limits", RequestKind::kGet, "GET", "/", false, false},
      {"limits.llm", "Limiter accuracy (token_bucket_llm per key)", ScenarioKind::kLimits, SutSetup::kReverseProxy,
       "limits_llm.json", "bench-limits-llm", RequestKind::kPostJson, "POST", "/v1/chat/completions", false, true,
       "token_bucket_llm"},
      {"limits.reject_cost", "What a rejection costs (2xx vs 429 at one rate)", ScenarioKind::kRejectCost,
       SutSetup::kReverseProxy, "limits.json", "bench-limits", RequestKind::kGet, "GET", "/", false, false},
      {"limits.keys", "Limiter state at scale (key count sweep)", ScenarioKind::kKeySweep, SutSetup::kReverseProxy,
       "limits_keys.json", "bench-limits-keys", RequestKind::kGet, "GET", "/", false, false},
  };
  return kAll;
}

const ScenarioPlan* FindScenario(const std::string& id) {
  for (const auto& s : AllScenarios()) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

}  // namespace fvbench
