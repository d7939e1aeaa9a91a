#include "support/judge/verdict.h"

#include <fmt/format.h>

#include "support/judge/ab_compare.h"
#include "support/judge/thresholds.h"
#include "support/judge/validity.h"

namespace fvbench {
namespace {

std::string FirstLine(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.empty() ? "(no error message recorded)" : line;
}

// Each part below adds its one-line summary part to `parts` (when it has
// one) and its lines to j.failures / j.warnings.

void JudgeError(const ScenarioResult& r, std::vector<std::string>& parts, Judgement& j) {
  if (!r.error.empty()) {
    parts.push_back("error after measuring: " + FirstLine(r.error));
    j.failures.push_back(r.error);
  } else if (!r.measured) {
    j.failures.push_back("not measured: " + FirstLine(r.error));
  }
}

// Threshold checks and same-run ratio checks.
void JudgeChecks(const ScenarioResult& r, std::vector<std::string>& parts, Judgement& j) {
  std::vector<std::string> failed;
  for (const ThresholdCheck& c : r.checks) {
    if (c.passed) continue;
    failed.push_back(c.metric);
    j.failures.push_back(DescribeCheck(c));
  }
  for (const RatioCheck& c : r.ratio_checks) {
    if (c.passed) continue;
    failed.push_back(c.metric + " / " + c.ratio_to);
    j.failures.push_back("ratio check failed: " + DescribeRatioCheck(c));
  }
  if (failed.empty()) return;
  parts.push_back(fmt::format("{} check{} failed ({})", failed.size(), failed.size() == 1 ? "" : "s",
                              fmt::join(failed, ", ")));
}

// A metric the gate is on fails; one it is not on is a note (AB_GATE_METRICS).
void JudgeAbGate(const ScenarioResult& r, std::vector<std::string>& parts, Judgement& j) {
  if (!r.ab || !r.ab->gate) return;
  std::vector<std::string> worse;
  for (const AbComparison& c : r.ab->metrics) {
    if (c.verdict != AbVerdict::kBWorse) continue;
    if (!r.ab->Gates(c.metric)) {
      j.warnings.push_back("A/B: B worse, not gated (AB_GATE_METRICS): " + DescribeAbMetric(c));
      continue;
    }
    worse.push_back(AbMetricLabel(c.metric));
    j.failures.push_back("A/B regression (AB_GATE=1): " + DescribeAbMetric(c));
  }
  if (worse.empty()) return;
  parts.push_back(fmt::format("A/B gate failed (AB_GATE=1): B worse in {}", fmt::join(worse, ", ")));
}

// True when a validity check failed.
bool JudgeValidity(const ScenarioResult& r, const GatePolicy& policy, std::vector<std::string>& parts, Judgement& j) {
  std::vector<std::string> invalid;
  for (const ValidityCheck& v : r.validity) {
    if (v.informational || v.passed) continue;
    invalid.push_back(v.name);
    if (policy.validity == ValidityMode::kWarn) {
      j.warnings.push_back("INVALID (VALIDITY=warn, not failed): " + DescribeValidity(v));
    } else {
      j.failures.push_back("validity check failed: " + DescribeValidity(v));
    }
  }
  if (invalid.empty()) return false;
  parts.push_back(fmt::format("validity failed: {}", fmt::join(invalid, ", ")));
  return true;
}

}  // namespace

Judgement JudgeScenario(const ScenarioResult& r, const GatePolicy& policy) {
  Judgement j;
  std::vector<std::string> parts;
  JudgeError(r, parts, j);
  JudgeChecks(r, parts, j);
  JudgeAbGate(r, parts, j);
  const bool failing = !j.failures.empty();  // before validity, whose lines depend on VALIDITY
  const bool invalid = JudgeValidity(r, policy, parts, j);
  j.verdict = failing ? Verdict::kFail : invalid ? Verdict::kInvalid : Verdict::kPass;
  // A scenario without a number is summed up by why it has none.
  if (!r.measured) j.summary = (r.interrupted ? "interrupted: " : "not measured: ") + FirstLine(r.error);
  else j.summary = fmt::format("{}", fmt::join(parts, "; "));
  return j;
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kInvalid: return "INVALID";
  }
  return "FAIL";
}

VerdictCounts CountVerdicts(const std::vector<ScenarioResult>& results) {
  VerdictCounts n;
  for (const ScenarioResult& r : results) {
    switch (JudgeScenario(r).verdict) {
      case Verdict::kPass: ++n.pass; break;
      case Verdict::kFail: ++n.fail; break;
      case Verdict::kInvalid: ++n.invalid; break;
    }
  }
  return n;
}

void AddRunChecks(ScenarioResult& r, const ThresholdProfile* profile, const Reference* reference, bool ab_gate,
                  const std::vector<std::string>& ab_gate_metrics) {
  if (profile) r.checks = Evaluate(*profile, r, reference);
  if (!r.ab) return;
  r.ab->gate = ab_gate;
  r.ab->gate_metrics = ab_gate ? ab_gate_metrics : std::vector<std::string>{};
}

}  // namespace fvbench
