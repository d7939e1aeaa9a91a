// Synthetic but plausible results for the report-side tests and benchmarks
// (results_io, summary table, thresholds). Numbers are made up; they are not
// measurements and must never be shown as such.
#pragma once

#include <string>
#include <vector>

#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"

namespace fvbench::testing_samples {

inline LoadResult SampleLoad(double target, double achieved, double p50, double p99, double error_rate) {
  LoadResult l;
  l.engine = "k6";
  l.engine_version = "k6 v0.54.0 (go1.22.5, linux/amd64)";
  l.target_rps = target;
  l.duration_s = 60;
  l.requests = static_cast<uint64_t>(achieved * 60);
  l.failed = static_cast<uint64_t>(static_cast<double>(l.requests) * error_rate);
  l.non_2xx = l.failed;
  l.achieved_rps = achieved;
  l.error_rate = error_rate;
  l.latency_us = {p50, p50 * 1.8, p99, p99 * 3.5, p99 * 9.25};
  l.raw_path = "/tmp/fv-bench/controller-results/raw.json";
  return l;
}

inline ScenarioResult SampleLatency(const std::string& id, double p50, double p99, double error_rate = 0) {
  ScenarioResult r;
  r.id = id;
  r.measured = true;
  r.load = SampleLoad(10000, 9998.5, p50, p99, error_rate);
  r.notes = {"pinned: SUT 0-3, engine 4-7"};
  r.started_unix = 1772600000;
  r.finished_unix = 1772600070;
  return r;
}

// A measured limits.reject_cost: the admitted phase all 2xx, the rejected
// one 95 % 429, edge's CPU per request halved, p99 1.25 x.
inline ScenarioResult SampleRejectCost() {
  ScenarioResult r = SampleLatency("limits.reject_cost", 400, 1200);
  RejectCostRun run;
  run.limit = TokenBucketLimit{10, 20};
  run.rate_rps = 10000;
  run.admitted.name = "admitted";
  run.admitted.phase = "limits_reject_cost_admitted";
  run.admitted.keys = 2000;
  run.admitted.offered_per_key_rps = 5;
  run.admitted.load = r.load;
  run.admitted.load.status_counts = {{200, 599910}};
  run.admitted.ok = 599910;
  run.admitted.reject_share = 0;
  run.admitted.fv_cpu_cores = 1.5;
  run.admitted.cpu_us_per_request = 150;
  run.rejected = run.admitted;
  run.rejected.name = "rejected";
  run.rejected.phase = "limits_reject_cost_rejected";
  run.rejected.keys = 50;
  run.rejected.offered_per_key_rps = 200;
  run.rejected.load = SampleLoad(10000, 9998.5, 300, 1500, 0.95);
  run.rejected.load.status_counts = {{200, 29990}, {429, 569900}, {502, 20}};
  run.rejected.ok = 29990;
  run.rejected.rejected = 569900;
  run.rejected.other = 20;
  run.rejected.reject_share = 569900.0 / 599910;
  run.rejected.fv_cpu_cores = 0.75;
  run.rejected.cpu_us_per_request = 75;
  run.p50_ratio = 0.75;
  run.p99_ratio = 1.25;
  run.cpu_ratio = 0.5;
  r.reject_cost = run;
  return r;
}

inline ScenarioResult SampleThroughput(const std::string& id, std::vector<double> achieved_per_step,
                                       int failing_step, bool ceiling) {
  static constexpr int kPct[] = {50, 70, 90, 100, 115, 130};
  ScenarioResult r;
  r.id = id;
  r.measured = true;
  r.policy = "fixtures/policies/simple.json";
  for (size_t i = 0; i < achieved_per_step.size(); ++i) {
    StepResult s;
    s.target_rps = 1000.0 * kPct[i] / 100;
    bool fail = static_cast<int>(i) == failing_step;
    s.load = SampleLoad(s.target_rps, achieved_per_step[i], 300, fail ? 1.5e6 : 900, fail ? 0.032 : 0);
    s.passed = !fail;
    s.verdict = fail ? "fail: error_rate 3.20% >= 1%, p99 1500000 µs >= 1000000 µs"
                     : "pass: error_rate 0.00% < 1%, p99 900 µs < 1000000 µs";
    r.steps.push_back(s);
  }
  int best = failing_step < 0 ? static_cast<int>(r.steps.size()) - 1 : failing_step - 1;
  if (best >= 0) {
    r.load = r.steps[best].load;
    r.throughput_rps = r.steps[best].load.achieved_rps;
  }
  r.ceiling_reached = ceiling;
  r.started_unix = 1772600100;
  r.finished_unix = 1772600220;
  return r;
}

// A bisect search (throughput_search.h) of 10 steps, rates times `scale`:
// bracket 500 / 1000 / 2000 (fails), bisect 1500 1750x 1625 1688x 1656 1672x,
// then a passing confirmation at 1656 (twice as long). Resolution 1 %.
inline ScenarioResult SampleBisectThroughput(const std::string& id, double scale) {
  struct S {
    const char* role;
    double target;
    bool pass;
  };
  static constexpr S kSteps[] = {{"bracket", 500, true},  {"bracket", 1000, true}, {"bracket", 2000, false},
                                 {"bisect", 1500, true},  {"bisect", 1750, false}, {"bisect", 1625, true},
                                 {"bisect", 1688, false}, {"bisect", 1656, true},  {"bisect", 1672, false},
                                 {"confirm", 1656, true}};
  ScenarioResult r;
  r.id = id;
  r.measured = true;
  r.search = "bisect";
  r.policy = "fixtures/policies/simple.json";
  for (const S& x : kSteps) {
    StepResult s;
    s.role = x.role;
    s.target_rps = x.target * scale;
    s.load = SampleLoad(s.target_rps, s.target_rps * (x.pass ? 0.999 : 0.93), 310, x.pass ? 950 : 2.5e5,
                        x.pass ? 0 : 0.021);
    s.load.duration_s = s.role == "confirm" ? 40 : 20;
    s.passed = x.pass;
    s.verdict = x.pass ? "pass: error_rate 0.00% < 1%, p99 950 µs < 1000000 µs"
                       : "fail: error_rate 2.10% >= 1%";
    r.steps.push_back(s);
  }
  r.load = r.steps.back().load;
  r.throughput_rps = r.load.achieved_rps;
  r.confirmed = true;
  r.search_resolution = (1672.0 - 1656.0) / 1656.0;
  r.search_load_s = 220;
  r.started_unix = 1772600300;
  r.finished_unix = 1772600560;
  return r;
}

inline RunMeta SampleMeta() {
  RunMeta m;
  m.fvbench_version = "0.1.0";
  m.engine = "k6";
  m.engine_version = "k6 v0.54.0 (go1.22.5, linux/amd64)";
  m.sut_runtime = "openresty";
  m.sut_runtime_version = "openresty/1.25.3.2";
  m.lua_module_version = "0.10.26";
  m.edge_source = "https://github.com/fairvisor/edge";
  m.edge_commit = "0123456789abcdef0123456789abcdef01234567";
  m.mode = "local";
  m.sut_host = "local";
  m.loadgen_host = "local";
  m.sut_cores = 8;
  m.loadgen_cores = 8;
  m.sut_cpuset = "0-3";
  m.loadgen_cpuset = "4-7";
  m.cpusets_auto = true;
  m.latency_rps = 10000;
  m.latency_dur_s = 60;
  m.warmup_s = 10;
  m.step_dur_s = 20;
  m.search_max = 1000;
  m.thresholds_profile = "thresholds/portable.json";
  m.reference_source = "reference.json";
  m.started_unix = 1772600000;
  m.finished_unix = 1772600900;
  return m;
}

// Five of the six scenarios, covering every table state: measured, knee,
// ceiling, failed before measuring, and not run (throughput.llm is absent).
inline std::vector<ScenarioResult> SampleRun() {
  std::vector<ScenarioResult> v;
  v.push_back(SampleLatency("latency.raw_nginx", 71.4, 446.2));
  v.push_back(SampleLatency("latency.decision_service", 304, 2000, 0.0004));
  ScenarioResult rp;
  rp.id = "latency.reverse_proxy";
  rp.measured = false;
  rp.error = "fairvisor edge did not become healthy on 127.0.0.1:8080 within 20 s: "
             "nginx: [emerg] unknown directive \"lua_shared_dict\"";
  v.push_back(rp);
  v.push_back(SampleThroughput("throughput.simple", {500, 699.8, 897, 1001.2, 1131}, 4, false));
  v.push_back(SampleThroughput("throughput.complex", {499.9, 700, 899, 998.7, 1149, 1296.5}, -1, true));
  return v;
}

// All six scenarios measured (for benchmarks: the full-size table and document).
inline std::vector<ScenarioResult> SampleRunAllMeasured() {
  std::vector<ScenarioResult> v;
  v.push_back(SampleLatency("latency.raw_nginx", 71.4, 446.2));
  v.push_back(SampleLatency("latency.decision_service", 304, 2000, 0.0004));
  v.push_back(SampleLatency("latency.reverse_proxy", 302, 1790));
  v.push_back(SampleThroughput("throughput.simple", {500, 699.8, 897, 1001.2, 1131}, 4, false));
  v.push_back(SampleThroughput("throughput.complex", {499.9, 700, 899, 998.7, 1149, 1296.5}, -1, true));
  v.push_back(SampleThroughput("throughput.llm", {500, 698}, 1, false));
  return v;
}

// All six scenarios measured, the throughput ones by a 10-step bisect search
// (for benchmarks of the full report).
inline std::vector<ScenarioResult> SampleRunBisect() {
  std::vector<ScenarioResult> v;
  v.push_back(SampleLatency("latency.raw_nginx", 71.4, 446.2));
  v.push_back(SampleLatency("latency.decision_service", 304, 2000, 0.0004));
  v.push_back(SampleLatency("latency.reverse_proxy", 302, 1790));
  v.push_back(SampleBisectThroughput("throughput.simple", 60));
  v.push_back(SampleBisectThroughput("throughput.complex", 35));
  v.push_back(SampleBisectThroughput("throughput.llm", 25));
  return v;
}

// A limits.accuracy result: edge with 2 workers over-admitting (a bucket
// per worker), then 1 worker keeping to the bucket (10/s, burst 20, 6 keys,
// a 9.5 s window: allowed 115, floor 75); with the plots' series.
inline ScenarioResult SampleLimits() {
  ScenarioResult r;
  r.id = "limits.accuracy";
  r.measured = true;
  for (int workers : {2, 1}) {
    LimitRun lr;
    lr.workers = workers;
    lr.phase = "limits_accuracy_w" + std::to_string(workers);
    lr.load = SampleLoad(240, 240, 150, 900, 0.7);
    LimitAccuracy& a = lr.accuracy;
    a.limit = {10, 20};
    a.keys_planned = 6;
    a.keys_seen = 6;
    a.window_s = 9.5;
    a.offered_rps = 240;
    a.allowed_per_key = 115;
    a.floor_per_key = 75;
    a.admitted_per_key = workers == 2 ? std::vector<uint64_t>{150, 170, 190, 205, 210, 230}
                                      : std::vector<uint64_t>{108, 110, 112, 113, 114, 115};
    a.admitted_per_second = workers == 2 ? std::vector<uint64_t>{300, 120, 118, 121, 119, 120, 122, 118, 120, 97}
                                         : std::vector<uint64_t>{180, 60, 61, 59, 60, 60, 61, 59, 60, 52};
    a.admitted_min = static_cast<double>(a.admitted_per_key.front());
    a.admitted_max = static_cast<double>(a.admitted_per_key.back());
    a.admitted_median = (a.admitted_per_key[2] + a.admitted_per_key[3]) / 2.0;
    a.keys_over = workers == 2 ? 6 : 0;
    a.over_admission = workers == 2 ? (230 - 115) / 115.0 : 0;
    a.over_admission_key = workers == 2 ? "k4" : "";
    a.over_admission_key_admitted = workers == 2 ? 230 : 0;
    a.bin_s = 0.1;
    a.window_bins = 10;
    a.worst_window_admitted = workers == 2 ? 58 : 30;
    a.window_allowed = 30;
    a.worst_window_key = "k4";
    a.admitted = workers == 2 ? 1155 : 672;
    a.rejected = 2280 - a.admitted;
    a.reject_share = static_cast<double>(a.rejected) / 2280;
    a.expected_reject_share = 1 - 6 * 115 / 2280.0;
    r.limits.push_back(lr);
  }
  r.load = r.limits.front().load;
  return r;
}

}  // namespace fvbench::testing_samples
