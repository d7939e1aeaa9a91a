// Latency at a fixed arrival rate (LATENCY_RPS for LATENCY_DUR s after
// WARMUP_DUR s of warmup): p50/p90/p99/p99.9 in µs for three paths.
#include <gtest/gtest.h>

#include "fixtures/fvbench_environment.h"

namespace fvbench {

// Raw nginx on NGINX_PORT returning 200 "ok": the same-run yardstick.
TEST(latency, raw_nginx) { RunScenarioTest("latency.raw_nginx"); }

// fairvisor decision_service: POST /v1/decision with X-Original-Method,
// X-Original-URI, X-Forwarded-For and a Bearer HS256 JWT; simple policy.
TEST(latency, decision_service) { RunScenarioTest("latency.decision_service"); }

// fairvisor reverse_proxy in front of the backend nginx; simple policy.
TEST(latency, reverse_proxy) { RunScenarioTest("latency.reverse_proxy"); }

}  // namespace fvbench
