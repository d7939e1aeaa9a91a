// Histories for the results-history tests: copies of a real run
// (fixtures/report/recorded_local_run.json, a local run of this suite against
// fairvisor edge) with perturbed values. Not measurements: run i (and each of its
// scenarios) starts one hour after run i-1, has edge commit "c0ffee<i as 4 digits>000...", and every latency value
// times (1 + 2 % Gaussian noise); from run `slow_from` on, decision_service's
// p99 also times `slow_factor`.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "tests/unit/detection_study.h"
#include "fvbench/source_dir.h"

namespace fvbench::history_samples {

inline std::string RecordedRunPath() {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return std::string(dir ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/report/recorded_local_run.json";
}

inline const nlohmann::json& RecordedRun() {
  static const nlohmann::json doc = [] {
    auto text = detail::ReadTextFile(RecordedRunPath());
    if (!text.ok()) std::abort();
    return nlohmann::json::parse(*text);
  }();
  return doc;
}

inline std::string Commit(int i) { return fmt::format("c0ffee{:04d}{}", i, std::string(30, '0')); }

inline std::string PerturbedRun(int i, detection_study::Rng& rng, int slow_from = -1, double slow_factor = 1.0,
                                double noise = 0.02) {
  nlohmann::json d = RecordedRun();
  d["meta"]["started_unix"] = 1796033501.0 + 3600.0 * i;
  d["meta"]["finished_unix"] = 1796033788.0 + 3600.0 * i;
  d["meta"]["edge_commit"] = Commit(i);
  for (auto& s : d["scenarios"]) {
    s["started_unix"] = s["started_unix"].get<double>() + 3600.0 * i;
    s["finished_unix"] = s["finished_unix"].get<double>() + 3600.0 * i;
    for (const char* p : {"p50", "p90", "p99", "p999", "max"}) {
      double v = s["load"]["latency_us"][p].get<double>() * (1 + noise * rng.Normal());
      if (s["id"] == "latency.decision_service" && std::string(p) == "p99" && slow_from >= 0 && i >= slow_from) {
        v *= slow_factor;
      }
      s["load"]["latency_us"][p] = std::round(v);
    }
    if (s["throughput_rps"].get<double>() > 0) {
      s["throughput_rps"] = s["throughput_rps"].get<double>() * (1 + noise * rng.Normal());
    }
  }
  return d.dump(2);
}

// `results_json` with meta "environment": the SUT host "local" on kernel
// `kernel_release` (the rest of the machine as on the recording's VM).
inline std::string WithKernel(const std::string& results_json, const std::string& kernel_release) {
  nlohmann::json d = nlohmann::json::parse(results_json);
  d["meta"]["environment"] = nlohmann::json::array(
      {{{"role", "sut"}, {"host", "local"}, {"values", {{"kernel_release", kernel_release}, {"clocksource", "kvm-clock"}}}},
       {{"role", "loadgen"}, {"host", "local"}, {"values", {{"kernel_release", kernel_release}}}}});
  return d.dump(2);
}

// A run of PerturbedRun on kernel "6.1.0-18" before run `new_kernel_from`
// and "6.8.0-31" from it on (never when it is negative).
inline std::string RunOnKernel(int i, detection_study::Rng& rng, int slow_from, double slow_factor,
                               int new_kernel_from) {
  const bool changed = new_kernel_from >= 0 && i >= new_kernel_from;
  return WithKernel(PerturbedRun(i, rng, slow_from, slow_factor), changed ? "6.8.0-31" : "6.1.0-18");
}

}  // namespace fvbench::history_samples
