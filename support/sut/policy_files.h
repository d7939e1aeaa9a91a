// The policy bundles fvbench gives fairvisor edge (core/config.h
// kPolicyFiles in FVBENCH_POLICY_DIR, FVBENCH_POLICY_DIR_B), checked before
// any host is touched: a bundle edge cannot parse otherwise shows only as a
// readiness timeout (HEALTH_TIMEOUT) per edge scenario, naming no file.
#pragma once

#include <string>

#include "support/core/result.h"

namespace fvbench {

// Each of kPolicyFiles in `dir` is a regular file holding one JSON object
// with a "policies" array (edge's bundle: fixtures/policies/*.json). Edge
// validates the rest. Error: "<variable>='<dir>': <file>: <what>", with the
// line and column for text that is not JSON; "not a directory" for a file.
Result<void> CheckPolicyDir(const char* variable, const std::string& dir);

}  // namespace fvbench
