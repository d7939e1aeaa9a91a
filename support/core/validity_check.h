// One validity check of a measured phase; its own header so that
// load_result.h can carry the per-load-generator checks of a phase driven by
// several load generators without including scenario_result.h.
#pragma once

#include <string>

namespace fvbench {

// One validity check of a measured phase (support/judge/validity.h CheckPhase):
// was the number worth reporting? `measured` and `limit` are in the unit the
// name says (fraction 0..1, requests, lines/s, load per core); NaN when not
// applicable. An informational entry (e.g. "unpinned": engine and SUT share
// cores) is recorded and shown but never fails the phase.
struct ValidityCheck {
  std::string name;    // "policy_evidence", "enough_requests", "engine_kept_up", ...
  bool passed = true;
  bool informational = false;
  std::string op;      // ">=", "<=", "==" ("" for informational entries)
  double measured = 0;
  double limit = 0;
  std::string detail;  // human-readable: what was measured, from where
};

}  // namespace fvbench
