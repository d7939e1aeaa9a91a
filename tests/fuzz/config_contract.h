// The contract of LoadConfig (support/core/config.h) over any environment
// map, checked by tests/fuzz/config_fuzz.cc and by the unit test
// ConfigFuzzSeeds over the seed corpus. Input: "NAME=VALUE" lines (the first
// '=' splits; NAME may be any of the variables or anything else). LoadConfig
// returns a Config or an Error naming a variable of the input; it never
// crashes or throws (cases 03: ORESTY_CPUSET=99999999999 escaped as
// std::out_of_range), and an accepted Config holds only values in their
// documented ranges.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/core/command_values.h"
#include "support/core/config.h"
#include "support/core/cpu_list.h"
#include "support/core/env_reader.h"
#include "support/core/plausible.h"

namespace fvbench::fuzz::detail_config {

inline void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "LoadConfig: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline bool InRange(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

inline void CheckAccepted(const fvbench::Config& c) {
  using namespace fvbench;
  for (int p : {c.fv_port, c.backend_port, c.nginx_port}) {
    if (p < 1 || p > 65535) Fail("port out of range", std::to_string(p));
  }
  if (c.fv_port == c.backend_port || c.fv_port == c.nginx_port || c.backend_port == c.nginx_port) Fail("ports", "equal");
  for (double r : {c.latency_rps, c.throughput_search_max}) {
    if (!InRange(r, kMinRateRps, kMaxRateRps)) Fail("rate", std::to_string(r));
  }
  for (double s : {c.latency_dur_s, c.step_dur_s.value_or(c.latency_dur_s), c.confirm_dur_s.value_or(c.latency_dur_s),
                   c.throughput_budget_s, c.health_timeout_s}) {
    if (!InRange(s, kMinSeconds, kMaxPhaseSeconds)) Fail("duration", std::to_string(s));
  }
  if (c.warmup_dur_s != 0 && !InRange(c.warmup_dur_s, kMinSeconds, kMaxPhaseSeconds)) Fail("warmup", std::to_string(c.warmup_dur_s));
  if (c.repeat < 1 || c.repeat > 100) Fail("repeat", std::to_string(c.repeat));
  if (!(c.throughput_resolution > 0) || !InRange(c.throughput_resolution, 0, 0.5)) Fail("resolution", std::to_string(c.throughput_resolution));
  for (const std::string* cpus : {&c.oresty_cpuset, &c.loadgen_cpuset}) {
    if (!cpus->empty() && !ParseCpuList(*cpus).ok()) Fail("cpuset", *cpus);
  }
  if (c.jwt_secret.size() < kMinJwtSecretBytes) Fail("jwt secret", "shorter than 32 bytes");
  if (c.bench_dir.empty() || c.bench_dir[0] != '/' || c.bench_dir == "/") Fail("BENCH_DIR", c.bench_dir);
  // No value that reaches a command is option-shaped (core/command_values.h),
  // and an edge source is a URL or an absolute path.
  for (const std::string* v : {&c.bench_dir, &c.fv_dir, &c.fv_dir_b, &c.edge_src, &c.edge_src_b, &c.edge_ref,
                               &c.edge_ref_b, &c.policy_dir, &c.policy_dir_b, &c.thresholds, &c.reference,
                               &c.baseline, &c.k6_release_url, &c.fairvisor_target_host, &c.listen_addr,
                               &c.fairvisor_remote}) {
    if (!v->empty() && (*v)[0] == '-') Fail("option-shaped value accepted", *v);
  }
  for (const std::string& t : c.loadgen_remotes) {
    if (!t.empty() && t[0] == '-') Fail("option-shaped LOADGEN_REMOTE accepted", t);
  }
  for (const std::string* src : {&c.edge_src, &c.edge_src_b}) {
    if (src->empty() && src == &c.edge_src_b && !c.ab) continue;
    if (!IsGitUrl(*src) && (src->empty() || (*src)[0] != '/')) Fail("edge source neither URL nor path", *src);
  }
}

}  // namespace fvbench::fuzz::detail_config

namespace fvbench::fuzz {

// Runs LoadConfig over `text` ("NAME=VALUE" lines) and aborts, saying why,
// when the contract above is broken. Used by config_fuzz and, over the seed
// corpus fixtures/fuzz/config/, by the unit test ConfigFuzzSeeds.
inline void CheckConfigContract(const std::string& text) {
  using namespace detail_config;
  fvbench::ConfigInputs in;
  in.source_dir = "/src";
  in.cpus = {0, 1};
  in.cores = 2;
  in.file_exists = [](const std::string&) { return true; };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    const size_t eq = line.find('=');
    if (eq != std::string::npos && eq > 0) in.env[line.substr(0, eq)] = line.substr(eq + 1);
  }
  auto c = fvbench::LoadConfig(in);
  if (c.ok()) {
    CheckAccepted(*c);
    return;
  }
  // The error names a variable the input set (or, for a TIMEOUT, its cache name).
  const std::string& m = c.error().message;
  bool named = false;
  for (const auto& [name, value] : in.env) {
    if (m.find(name) != std::string::npos) named = true;
    if (name.size() > 2 && name.compare(name.size() - 2, 2, "_S") == 0 && m.find(name.substr(0, name.size() - 2)) != std::string::npos) named = true;
  }
  if (!named) Fail("error names no variable of the input", m);
}

}  // namespace fvbench::fuzz
