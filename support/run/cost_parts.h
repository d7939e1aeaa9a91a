// Where a scenario's fixed cost goes (ScenarioResult::fixed_cost_parts_s):
// wall-clock seconds spent outside the configured load, summed by part
// while the scenario runs. TimedPart adds the wall time of its own scope to
// one part; AddCost adds a measured amount (an engine command's wall time
// beyond its configured duration). Part names are those documented at
// ScenarioResult::fixed_cost_parts_s.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <string>

namespace fvbench {

using CostParts = std::map<std::string, double>;  // part -> seconds

inline void AddCost(CostParts& parts, const std::string& part, double seconds) {
  parts[part] += std::max(0.0, seconds);
}

// The parts as measured, plus "other": what the scenario's fixed cost
// (`fixed_cost_s`) leaves beyond their sum (never below 0; parts are kept
// as measured even when they exceed it, e.g. by clock granularity).
inline CostParts SplitFixedCost(double fixed_cost_s, const CostParts& measured) {
  CostParts out = measured;
  double sum = 0;
  for (const auto& [part, seconds] : measured) sum += seconds;
  out["other"] = std::max(0.0, fixed_cost_s - sum);
  return out;
}

// Adds the wall time from construction to destruction to `part`.
class TimedPart {
 public:
  TimedPart(CostParts& parts, std::string part)
      : parts_(parts), part_(std::move(part)), t0_(std::chrono::steady_clock::now()) {}
  ~TimedPart() { AddCost(parts_, part_, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()); }
  TimedPart(const TimedPart&) = delete;
  TimedPart& operator=(const TimedPart&) = delete;

 private:
  CostParts& parts_;
  std::string part_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace fvbench
