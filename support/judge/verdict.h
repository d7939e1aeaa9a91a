// The verdict of one scenario's result, as every report states it:
//
//   FAIL     the scenario produced no number (failed before measuring, was
//            interrupted, not run because the environment failed), or it
//            recorded an error after measuring, or a threshold check or a
//            same-run ratio check failed;
//   INVALID  it measured, but a validity check of the reported phase failed
//            (validity.h: the number is not worth reporting), and nothing
//            above made it FAIL;
//   PASS     measured, valid, every check passed.
//
// A classification of the result model, not a measurement: reporters and the
// baseline command use it so they all say the same thing. Pure.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

enum class Verdict { kPass, kFail, kInvalid };

Verdict ScenarioVerdict(const ScenarioResult& r);
// "PASS" | "FAIL" | "INVALID".
const char* VerdictName(Verdict v);
// One line: why the verdict is not PASS, e.g. "not measured: <error>",
// "interrupted: <error>", "2 threshold checks failed (p99_us, rps)",
// "validity failed: engine_kept_up"; "" for PASS.
std::string VerdictReason(const ScenarioResult& r);

// True when the result records an interrupted run (the message the
// interrupt cleanup writes starts with "interrupted").
bool WasInterrupted(const ScenarioResult& r);

struct VerdictCounts {
  int pass = 0;
  int fail = 0;
  int invalid = 0;
};
VerdictCounts CountVerdicts(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
