// The limiter under load (limits_phase.h): the keys' token bucket from the
// policy, LIMITS_KEYS keys offered LIMITS_OVERLOAD x their rate for
// LIMITS_DUR s, the SUT's access log counting what edge admitted and
// rejected per key; edge with all its workers, then with one.
#include <gtest/gtest.h>

#include "fixtures/fvbench_environment.h"

namespace fvbench {

// Admitted per key against rate x window + burst, the worst 1 s window,
// the 429 share against the expected one (fixtures/policies/limits.json).
TEST(limits, accuracy) { RunScenarioTest("limits.accuracy"); }

// limits.keys: LIMITS_KEYS_SWEEP key counts at LIMITS_KEYS_RPS against
// fixtures/policies/limits_keys.json's small bucket, one judged phase per
// point, the key count at which accuracy or p99 breaks (key_sweep_break.h).
TEST(limits, keys) { RunScenarioTest("limits.keys"); }

}  // namespace fvbench
