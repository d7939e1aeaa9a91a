#include "support/judge/verdict.h"

#include <fmt/format.h>

#include "support/judge/validity.h"

namespace fvbench {

bool WasInterrupted(const ScenarioResult& r) { return r.error.rfind("interrupted", 0) == 0; }

Verdict ScenarioVerdict(const ScenarioResult& r) {
  if (!r.measured || !r.error.empty()) return Verdict::kFail;
  for (const ThresholdCheck& c : r.checks) {
    if (!c.passed) return Verdict::kFail;
  }
  for (const RatioCheck& c : r.ratio_checks) {
    if (!c.passed) return Verdict::kFail;
  }
  if (!ValidityPassed(r.validity)) return Verdict::kInvalid;
  return Verdict::kPass;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kInvalid: return "INVALID";
  }
  return "FAIL";
}

namespace {

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.empty() ? "(no error message recorded)" : line;
}

}  // namespace

std::string VerdictReason(const ScenarioResult& r) {
  if (WasInterrupted(r)) return "interrupted: " + FirstLine(r.error);
  if (!r.measured) return "not measured: " + FirstLine(r.error);
  std::vector<std::string> parts;
  if (!r.error.empty()) parts.push_back("error after measuring: " + FirstLine(r.error));
  std::vector<std::string> failed;
  for (const ThresholdCheck& c : r.checks) {
    if (!c.passed) failed.push_back(c.metric);
  }
  for (const RatioCheck& c : r.ratio_checks) {
    if (!c.passed) failed.push_back(c.metric + " / " + c.ratio_to);
  }
  if (!failed.empty()) {
    parts.push_back(fmt::format("{} check{} failed ({})", failed.size(), failed.size() == 1 ? "" : "s",
                                fmt::join(failed, ", ")));
  }
  std::vector<std::string> invalid;
  for (const ValidityCheck& v : r.validity) {
    if (!v.informational && !v.passed) invalid.push_back(v.name);
  }
  if (!invalid.empty()) parts.push_back(fmt::format("validity failed: {}", fmt::join(invalid, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

VerdictCounts CountVerdicts(const std::vector<ScenarioResult>& results) {
  VerdictCounts n;
  for (const ScenarioResult& r : results) {
    switch (ScenarioVerdict(r)) {
      case Verdict::kPass: ++n.pass; break;
      case Verdict::kFail: ++n.fail; break;
      case Verdict::kInvalid: ++n.invalid; break;
    }
  }
  return n;
}

}  // namespace fvbench
