// The limiter under load. limits.accuracy (limits_phase.h): the keys' token bucket from the
// policy, LIMITS_KEYS keys offered LIMITS_OVERLOAD x their rate for
// LIMITS_DUR s, the SUT's access log counting what edge admitted and
// rejected per key; edge with all its workers, then with one.
#include <gtest/gtest.h>

#include "fixtures/fvbench_environment.h"

namespace fvbench {

// Admitted per key against rate x window + burst, the worst 1 s window,
// the 429 share against the expected one (fixtures/policies/limits.json).
TEST(limits, accuracy) { RunScenarioTest("limits.accuracy"); }

// The same for the LLM limiter (token_bucket_llm): its bucket in tokens
// divided by a request's cost, default_max_completion
// (fixtures/policies/limits_llm.json, docs/limits.md "The LLM limiter").
TEST(limits, llm) { RunScenarioTest("limits.llm"); }

// What a rejection costs (judge/reject_cost.h): at LATENCY_RPS for
// LIMITS_DUR s, keys each offered half their rate (all admitted), then keys
// each offered 20 x it (mostly 429); latency and edge's CPU per request of
// both, and the ratios.
TEST(limits, reject_cost) { RunScenarioTest("limits.reject_cost"); }

// limits.keys: LIMITS_KEYS_SWEEP key counts at LIMITS_KEYS_RPS against
// fixtures/policies/limits_keys.json's small bucket, one judged phase per
// point, the key count at which accuracy or p99 breaks (key_sweep_break.h).
TEST(limits, keys) { RunScenarioTest("limits.keys"); }

}  // namespace fvbench
