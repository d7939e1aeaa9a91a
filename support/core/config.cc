#include "support/core/config.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "support/core/load_result.h"
#include "support/core/plausible.h"
#include "support/core/scenario_time.h"
#include "support/core/units_format.h"
#include "support/core/validity_params.h"

extern char** environ;

namespace fvbench {
namespace {

// 20 -> "20", 0.5 -> "0.5", 1e9 -> "1000000000".
std::string FormatShort(double v) { return detail::FormatNumber(v); }

class Reader {
 public:
  explicit Reader(const EnvMap& env) : env_(env) {}

  // Returns the value, or the default when the variable is unset or empty.
  std::string str(const char* name, const std::string& def) const {
    auto it = env_.find(name);
    return (it == env_.end() || it->second.empty()) ? def : it->second;
  }
  bool has(const char* name) const {
    auto it = env_.find(name);
    return it != env_.end() && !it->second.empty();
  }

  // A number > 0 and at most `hi` (plausible.h: what the integer types the
  // value ends up in hold), neither subnormal nor out of range.
  Result<double> positive(const char* name, double def, double hi, const char* what) const {
    if (!has(name)) return def;
    const std::string& s = env_.at(name);
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    // (An underflow, ERANGE with a subnormal or 0, is named below.)
    if (end == s.c_str() || *end != '\0' || !std::isfinite(v)) {
      return Error{fmt::format("{}='{}': not a number (expected {})", name, s, what)};
    }
    if (v <= 0) return Error{fmt::format("{}='{}': must be > 0 (expected {})", name, s, what)};
    if (std::string why = WhyNotPositive(v, hi); !why.empty()) {
      return Error{fmt::format("{}='{}': {} (expected {}, at most {})", name, s, why, what, FormatShort(hi))};
    }
    return v;
  }

  Result<int> integer(const char* name, int def, int lo, int hi, const char* what) const {
    if (!has(name)) return def;
    const std::string& s = env_.at(name);
    errno = 0;
    char* end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE) {
      return Error{fmt::format("{}='{}': not an integer (expected {})", name, s, what)};
    }
    if (v < lo || v > hi) {
      return Error{fmt::format("{}='{}': out of range {}..{} (expected {})", name, s, lo, hi, what)};
    }
    return static_cast<int>(v);
  }

 private:
  const EnvMap& env_;
};

// taskset -c list syntax: "0-3,6,8-9". Returns an error message or "".
std::string CheckCpuList(const std::string& s) {
  if (s.empty()) return "";
  size_t i = 0;
  auto number = [&]() -> bool {
    size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i > start;
  };
  while (true) {
    if (!number()) return "expected a cpu list like 0-3,6";
    if (i < s.size() && s[i] == '-') {
      ++i;
      if (!number()) return "expected a cpu list like 0-3,6";
    }
    if (i == s.size()) return "";
    if (s[i] != ',') return "expected a cpu list like 0-3,6";
    ++i;
  }
}

// A/B mode (config.h): FVBENCH_AB and the *_B variables, each B value
// validated like A's. REPEAT: default 5 in A/B mode, at least 3.
Result<void> LoadAbConfig(const ConfigInputs& in, const Reader& r, Config& c) {
  std::string ab = r.str("FVBENCH_AB", "");
  if (ab != "" && ab != "0" && ab != "1") return Error{fmt::format("FVBENCH_AB='{}': expected 0 or 1", ab)};
  std::string b_var;
  for (const char* v : {"FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF_B", "FVBENCH_POLICY_DIR_B", "FV_DIR_B"}) {
    // Set but empty (e.g. FAIRVISOR_EDGE_REF_B=$PR_HEAD with PR_HEAD unset)
    // would silently mean "B = A" or no A/B run at all.
    if (in.env.count(v) && !r.has(v)) {
      return Error{fmt::format("{}='': set but empty; unset it (side B then uses side A's value), or give side B's "
                               "value (an empty variable is usually a script bug)", v)};
    }
    if (r.has(v) && b_var.empty()) b_var = v;
  }
  if (ab == "0" && !b_var.empty()) {
    return Error{fmt::format("FVBENCH_AB=0 but {}='{}' is set: unset it, or set FVBENCH_AB=1 for an A/B run", b_var,
                             r.str(b_var.c_str(), ""))};
  }
  // Only the fairvisor edge scenarios have sides; without edge they skip and
  // a *_B variable would change nothing (FVBENCH_AB=1 alone stays valid:
  // the A/B self-test preset skips its edge scenarios the same way).
  if (c.edge_skipped && !b_var.empty()) {
    return Error{fmt::format("{}='{}' is set, but no A/B comparison would run: FAIRVISOR_EDGE_SRC is not set and "
                             "FVBENCH_EDGE_OPTIONAL=1 skips the fairvisor edge scenarios (raw nginx has no sides); "
                             "set FAIRVISOR_EDGE_SRC to side A's edge checkout or git URL, or unset {}",
                             b_var, r.str(b_var.c_str(), ""), b_var)};
  }
  c.ab = ab == "1" || !b_var.empty();
  c.edge_src_b = r.str("FAIRVISOR_EDGE_SRC_B", c.edge_src);
  c.edge_ref_b = r.str("FAIRVISOR_EDGE_REF_B", c.edge_ref);
  c.policy_dir_b = r.str("FVBENCH_POLICY_DIR_B", c.policy_dir);
  c.fv_dir_b = r.str("FV_DIR_B", c.fv_dir + "-b");
  std::string gate = r.str("AB_GATE", "0");
  if (gate != "0" && gate != "1") return Error{fmt::format("AB_GATE='{}': expected 0 or 1", gate)};
  c.ab_gate = gate == "1";
  if (!c.ab) return Ok();
  if (!r.has("REPEAT")) {
    c.repeat = 5;
  } else if (c.repeat < 3) {
    return Error{fmt::format("REPEAT='{}': A/B mode needs at least 3 pairs per phase (a confidence interval from "
                             "fewer is too wide to call anything; default 5)",
                             r.str("REPEAT", ""))};
  }
  {
    const std::string& v = c.fv_dir_b;
    if (v.empty() || v[0] != '/') return Error{fmt::format("FV_DIR_B='{}': must be an absolute path", v)};
    std::string n = std::filesystem::path(v).lexically_normal().string();
    while (n.size() > 1 && n.back() == '/') n.pop_back();
    if (n == "/") return Error{fmt::format("FV_DIR_B='{}': refusing the root directory", v)};
    if (n.find_first_of(" \t\n\r'\";{}$`\\") != std::string::npos) {
      return Error{fmt::format("FV_DIR_B='{}': must not contain whitespace, quotes, ';', braces, '$', '`' or "
                               "backslashes (it is written into nginx configs)", v)};
    }
    if (n == c.fv_dir) return Error{fmt::format("FV_DIR_B='{}': the same directory as FV_DIR; B's clone needs its own", v)};
    c.fv_dir_b = n;
  }
  const bool url = c.edge_src_b.find("://") != std::string::npos || c.edge_src_b.rfind("git@", 0) == 0;
  if (!url) {
    if (c.edge_src_b[0] != '/') {
      return Error{fmt::format("FAIRVISOR_EDGE_SRC_B='{}': expected a git URL or an absolute path", c.edge_src_b)};
    }
    if (!c.remote() && !c.edge_skipped && in.file_exists &&
        !in.file_exists(c.edge_src_b + "/docker/nginx.conf.template")) {
      return Error{fmt::format(
          "FAIRVISOR_EDGE_SRC_B='{}': not a fairvisor edge checkout (no docker/nginx.conf.template)", c.edge_src_b)};
    }
  }
  if (c.policy_dir_b.empty() || c.policy_dir_b[0] != '/') {
    return Error{fmt::format("FVBENCH_POLICY_DIR_B='{}': must be an absolute path (tests run in the build tree, not "
                             "where ctest was started)", c.policy_dir_b)};
  }
  if (in.file_exists) {
    for (const char* p : {"simple.json", "complex.json", "llm.json"}) {
      std::string f = c.policy_dir_b + "/" + p;
      if (!in.file_exists(f)) {
        return Error{fmt::format("FVBENCH_POLICY_DIR_B='{}': missing policy file {}", c.policy_dir_b, f)};
      }
    }
  }
  if (r.has("AB_RATE_FRACTION")) {
    auto v = r.positive("AB_RATE_FRACTION", c.ab_rate_fraction, DBL_MAX, "a fraction of A's maximum, 0 < x <= 1");
    if (!v) return v.error();
    if (*v > 1) {
      return Error{fmt::format("AB_RATE_FRACTION='{}': must be <= 1 (a fraction of A's searched maximum)",
                               r.str("AB_RATE_FRACTION", ""))};
    }
    c.ab_rate_fraction = *v;
  }
  return Ok();
}

// FVBENCH_SCENARIO_TIMEOUT_S (CTest sets it from the cache variable
// FVBENCH_SCENARIO_TIMEOUT, the scenarios' TIMEOUT): the durations must let
// every scenario finish within it (scenario_time.h). Unset: not under ctest,
// nothing to check.
Result<void> LoadScenarioTimeout(const EnvMap& env, const Reader& r, Config& c) {
  if (!r.has("FVBENCH_SCENARIO_TIMEOUT_S")) return Ok();
  auto t = r.positive("FVBENCH_SCENARIO_TIMEOUT_S", 0, kMaxPhaseSeconds,
                      "seconds > 0, the scenarios' ctest TIMEOUT (set by CTest from FVBENCH_SCENARIO_TIMEOUT)");
  if (!t) return t.error();
  c.scenario_timeout_s = *t;
  // QUIET_TIMEOUT is validated with the other validity variables (validity.h).
  auto vp = ValidityParamsFromEnv(env);
  const double quiet = vp ? vp->quiet_timeout_s : ValidityParams{}.quiet_timeout_s;
  ScenarioTimeInputs ti;
  ti.repeat = c.repeat;
  ti.ab = c.ab;
  ti.seed_search = c.throughput_search == ThroughputSearchKind::kSeed;
  ti.latency_dur_s = c.latency_dur_s;
  ti.warmup_dur_s = c.warmup_dur_s;
  ti.step_dur_s = c.step_dur_s;
  ti.confirm_dur_s = c.confirm_dur_s;
  ti.throughput_budget_s = c.throughput_budget_s;
  ti.health_timeout_s = c.health_timeout_s;
  return CheckScenarioTimeout(ti, c.scenario_timeout_s, quiet);
}

}  // namespace

const char* EngineName(Engine e) { return e == Engine::kK6 ? "k6" : "wrk"; }

EnvMap CurrentEnvironment() {
  EnvMap env;
  for (char** p = environ; p && *p; ++p) {
    std::string kv(*p);
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

Result<Config> LoadConfig(const ConfigInputs& in) {
  Config c;
  Reader r(in.env);
  c.source_dir = in.source_dir;

  c.bench_dir = r.str("BENCH_DIR", c.bench_dir);
  c.fv_dir = r.str("FV_DIR", c.fv_dir);
  for (auto [name, val] : {std::pair{"BENCH_DIR", &c.bench_dir}, std::pair{"FV_DIR", &c.fv_dir}}) {
    // Set but empty (BENCH_DIR=$DIR with DIR unset) must not fall back to the
    // default directory silently.
    if (in.env.count(name) && !r.has(name)) {
      return Error{fmt::format("{}='': set but empty; unset it to use the default {}, or set an absolute path (an "
                               "empty variable is usually a script bug)", name, *val)};
    }
    std::string v = *val;
    if (v.empty() || v[0] != '/') {
      return Error{fmt::format("{}='{}': must be an absolute path", name, *val)};
    }
    // Lexically normal ("/tmp/.." is "/"), without a trailing slash.
    v = std::filesystem::path(v).lexically_normal().string();
    while (v.size() > 1 && v.back() == '/') v.pop_back();
    if (v == "/") return Error{fmt::format("{}='{}': refusing the root directory", name, *val)};
    // The path is written into nginx configs and shell command lines.
    if (v.find_first_of(" \t\n\r'\";{}$`\\") != std::string::npos) {
      return Error{fmt::format("{}='{}': must not contain whitespace, quotes, ';', braces, '$', '`' or "
                               "backslashes (it is written into nginx configs)", name, *val)};
    }
    *val = v;
  }
  c.k6_version = r.str("K6_VER", c.k6_version);
  // The release tag names the archive and, without its v, the apt/dnf package version.
  static const std::regex kK6Tag(R"(v[0-9]+\.[0-9]+\.[0-9]+)");
  if (!std::regex_match(c.k6_version, kK6Tag)) {
    return Error{fmt::format("K6_VER='{}': expected a k6 release tag v<major>.<minor>.<patch>, e.g. v0.54.0",
                             c.k6_version)};
  }
  c.k6_source = r.str("K6_SOURCE", c.k6_source);
  if (c.k6_source != "repo" && c.k6_source != "archive") {
    return Error{fmt::format("K6_SOURCE='{}': expected repo (Grafana's package repository) or archive (the "
                             "release archive, checksum-verified)", c.k6_source)};
  }
  c.k6_release_url = r.str("K6_RELEASE_URL", c.k6_release_url);
  while (c.k6_release_url.size() > 1 && c.k6_release_url.back() == '/') c.k6_release_url.pop_back();

  auto port = [&](const char* name, int def, int* out) -> Result<void> {
    auto v = r.integer(name, def, 1, 65535, "a TCP port 1..65535");
    if (!v) return v.error();
    *out = *v;
    return Ok();
  };
  if (auto e = port("FV_PORT", c.fv_port, &c.fv_port); !e) return e.error();
  if (auto e = port("BACKEND_PORT", c.backend_port, &c.backend_port); !e) return e.error();
  if (auto e = port("NGINX_PORT", c.nginx_port, &c.nginx_port); !e) return e.error();
  if (c.fv_port == c.backend_port || c.fv_port == c.nginx_port || c.backend_port == c.nginx_port) {
    return Error{fmt::format("FV_PORT={}, BACKEND_PORT={}, NGINX_PORT={}: the three ports must differ",
                             c.fv_port, c.backend_port, c.nginx_port)};
  }

  // Durations, budgets and rates end up in integer types (wrk -d seconds,
  // k6 nanoseconds, timeouts in ms, k6's rate): plausible.h's bounds keep
  // every one of them in range.
  struct Num { const char* name; double* out; double def; double hi; const char* what; };
  constexpr double kMaxS = kMaxPhaseSeconds, kMaxRps = kMaxRateRps;
  double slo_ms = c.throughput_slo_p99_us / 1000.0;
  for (const Num& n : {
           Num{"LATENCY_RPS", &c.latency_rps, c.latency_rps, kMaxRps, "requests per second > 0"},
           Num{"LATENCY_DUR", &c.latency_dur_s, c.latency_dur_s, kMaxS, "seconds > 0"},
           Num{"THROUGHPUT_SEARCH_MAX", &c.throughput_search_max, c.throughput_search_max, kMaxRps,
               "requests per second > 0"},
           Num{"STEP_DUR", &c.step_dur_s, c.step_dur_s, kMaxS, "seconds > 0"},
           Num{"THROUGHPUT_SLO_P99_MS", &slo_ms, slo_ms, kMaxLatencyUs / 1000, "milliseconds > 0"},
           Num{"HEALTH_TIMEOUT", &c.health_timeout_s, c.health_timeout_s, kMaxS, "seconds > 0"},
       }) {
    auto v = r.positive(n.name, n.def, n.hi, n.what);
    if (!v) return v.error();
    *n.out = *v;
  }
  c.throughput_slo_p99_us = slo_ms * 1000.0;
  std::string search = r.str("THROUGHPUT_SEARCH", "bisect");
  if (search == "bisect") c.throughput_search = ThroughputSearchKind::kBisect;
  else if (search == "seed") c.throughput_search = ThroughputSearchKind::kSeed;
  else return Error{fmt::format("THROUGHPUT_SEARCH='{}': expected bisect or seed", search)};
  c.confirm_dur_s = 2 * c.step_dur_s;
  for (const Num& n : {
           Num{"THROUGHPUT_START", &c.throughput_start, 0, kMaxRps, "requests per second > 0"},
           Num{"THROUGHPUT_RESOLUTION", &c.throughput_resolution, c.throughput_resolution, DBL_MAX,
               "a fraction of the rate, 0 < x <= 0.5"},  // <= 0.5: below, naming the limit
           Num{"CONFIRM_DUR", &c.confirm_dur_s, c.confirm_dur_s, kMaxS, "seconds > 0"},
           Num{"THROUGHPUT_BUDGET_S", &c.throughput_budget_s, c.throughput_budget_s, kMaxS, "seconds > 0"},
       }) {
    auto v = r.positive(n.name, n.def, n.hi, n.what);
    if (!v) return v.error();
    *n.out = *v;
  }
  c.search_durations_auto = !r.has("STEP_DUR") && !r.has("CONFIRM_DUR");
  if (c.throughput_resolution > 0.5) {
    return Error{fmt::format("THROUGHPUT_RESOLUTION='{}': must be <= 0.5 (a fraction of the rate, e.g. 0.02 = 2 %)",
                             in.env.at("THROUGHPUT_RESOLUTION"))};
  }
  if (c.throughput_start > c.throughput_search_max) {
    return Error{fmt::format("THROUGHPUT_START='{}': above THROUGHPUT_SEARCH_MAX={} (the search's cap)",
                             in.env.at("THROUGHPUT_START"), FormatShort(c.throughput_search_max))};
  }
  if (c.throughput_search == ThroughputSearchKind::kBisect &&
      c.throughput_budget_s < c.step_dur_s + c.confirm_dur_s) {
    return Error{fmt::format("THROUGHPUT_BUDGET_S='{}': shorter than one step and one confirmation "
                             "(STEP_DUR {} s + CONFIRM_DUR {} s)",
                             r.str("THROUGHPUT_BUDGET_S", FormatShort(c.throughput_budget_s)),
                             FormatShort(c.step_dur_s), FormatShort(c.confirm_dur_s))};
  }
  if (auto v = r.integer("REPEAT", 1, 1, 100, "runs per measured phase, 1..100"); v) {
    c.repeat = *v;
  } else {
    return v.error();
  }
  // WARMUP_DUR may be 0 (no warmup).
  if (r.has("WARMUP_DUR") && std::strtod(in.env.at("WARMUP_DUR").c_str(), nullptr) == 0 &&
      in.env.at("WARMUP_DUR").find_first_not_of("0.") == std::string::npos) {
    c.warmup_dur_s = 0;
  } else {
    auto v = r.positive("WARMUP_DUR", c.warmup_dur_s, kMaxS, "seconds >= 0");
    if (!v) return v.error();
    c.warmup_dur_s = *v;
  }
  if (auto v = r.integer("LOADGEN_CONNECTIONS", 0, 0, 100000, "connections, 0 = derived from rate"); v) {
    c.connections = *v;
  } else {
    return v.error();
  }

  c.fairvisor_remote = r.str("FAIRVISOR_REMOTE", "");
  c.loadgen_remote = r.str("LOADGEN_REMOTE", "");
  c.ssh_opts = r.str("SSH_OPTS", "");
  std::string dry = r.str("DRY_RUN", "0");
  if (dry != "0" && dry != "1") return Error{fmt::format("DRY_RUN='{}': expected 0 or 1", dry)};
  c.dry_run = dry == "1";
  // FVBENCH_MODE (set by the remote presets): remote requires both hosts, so a
  // preset meant for two hosts never silently runs locally.
  std::string mode = r.str("FVBENCH_MODE", "");
  if (mode != "" && mode != "local" && mode != "remote") {
    return Error{fmt::format("FVBENCH_MODE='{}': expected local or remote", mode)};
  }
  if (mode == "remote" && c.fairvisor_remote.empty() && c.loadgen_remote.empty()) {
    return Error{"FVBENCH_MODE=remote (remote preset): FAIRVISOR_REMOTE and LOADGEN_REMOTE are not set; "
                 "set both to user@host[:port] (the SUT host and the load-generator host)"};
  }
  if (mode == "local" && c.remote()) {
    return Error{fmt::format("FVBENCH_MODE=local but FAIRVISOR_REMOTE='{}' / LOADGEN_REMOTE='{}' are set; "
                             "unset them or use the remote preset",
                             c.fairvisor_remote, c.loadgen_remote)};
  }
  if (c.remote() && c.fairvisor_remote.empty()) {
    return Error{fmt::format("FAIRVISOR_REMOTE is not set but LOADGEN_REMOTE='{}' is: remote mode needs both "
                             "(FAIRVISOR_REMOTE=user@sut-host for the SUT host)",
                             c.loadgen_remote)};
  }
  if (c.remote() && c.loadgen_remote.empty()) {
    return Error{fmt::format("LOADGEN_REMOTE is not set but FAIRVISOR_REMOTE='{}' is: remote mode needs both "
                             "(LOADGEN_REMOTE=user@loadgen-host for the load generator)",
                             c.fairvisor_remote)};
  }
  c.listen_addr = r.str("FV_LISTEN_ADDR", c.remote() ? "0.0.0.0" : "127.0.0.1");
  if (c.listen_addr.find_first_of(" \t\n;{}'\"") != std::string::npos) {
    return Error{fmt::format("FV_LISTEN_ADDR='{}': expected an IP address", c.listen_addr)};
  }
  c.fairvisor_target_host = r.str("FAIRVISOR_TARGET_HOST", "");
  if (c.fairvisor_target_host.empty()) {
    if (c.fairvisor_remote.empty()) {
      c.fairvisor_target_host = "127.0.0.1";
    } else {  // seed: strip user@ and :port
      std::string h = c.fairvisor_remote;
      if (auto at = h.find('@'); at != std::string::npos) h = h.substr(at + 1);
      if (auto colon = h.find(':'); colon != std::string::npos) h = h.substr(0, colon);
      c.fairvisor_target_host = h;
    }
  }

  c.oresty_cpuset = r.str("ORESTY_CPUSET", "");
  c.k6_cpuset = r.str("K6_CPUSET", "");
  for (auto [name, val] : {std::pair{"ORESTY_CPUSET", &c.oresty_cpuset}, std::pair{"K6_CPUSET", &c.k6_cpuset}}) {
    if (std::string why = CheckCpuList(*val); !why.empty()) {
      return Error{fmt::format("{}='{}': {}", name, *val, why)};
    }
    // Locally the CPUs must exist (remote hosts are checked by taskset there).
    if (!c.remote() && !val->empty() && in.cores > 0) {
      int highest = 0;
      for (size_t i = 0; i < val->size();) {
        if (std::isdigit(static_cast<unsigned char>((*val)[i]))) {
          size_t end = i;
          highest = std::max(highest, std::stoi(val->substr(i), &end));
          i += end;
        } else {
          ++i;
        }
      }
      if (highest >= in.cores) {
        return Error{fmt::format("{}='{}': CPU {} does not exist on this host ({} cores: 0-{})", name, *val,
                                 highest, in.cores, in.cores - 1)};
      }
    }
  }
  // Seed behaviour: with taskset and >= 8 cores, split 50/50 when unset.
  // Remote mode: each host's own core count decides, so Testbed does it after
  // provisioning (in.cores is the controller's).
  if (!c.remote() && in.have_taskset && in.cores >= 8) {
    if (c.oresty_cpuset.empty()) {
      c.oresty_cpuset = fmt::format("0-{}", in.cores / 2 - 1);
      c.cpusets_auto = true;
    }
    if (c.k6_cpuset.empty()) {
      c.k6_cpuset = fmt::format("{}-{}", in.cores / 2, in.cores - 1);
      c.cpusets_auto = true;
    }
  }

  std::string optional = r.str("FVBENCH_EDGE_OPTIONAL", "0");
  if (optional != "0" && optional != "1") {
    return Error{fmt::format("FVBENCH_EDGE_OPTIONAL='{}': expected 0 or 1", optional)};
  }
  c.edge_skipped = optional == "1" && !r.has("FAIRVISOR_EDGE_SRC");
  c.edge_src = r.str("FAIRVISOR_EDGE_SRC", c.edge_src);
  c.edge_ref = r.str("FAIRVISOR_EDGE_REF", "");
  bool edge_is_url = c.edge_src.find("://") != std::string::npos ||
                     c.edge_src.rfind("git@", 0) == 0;
  if (!edge_is_url) {
    if (c.edge_src[0] != '/') {
      return Error{fmt::format("FAIRVISOR_EDGE_SRC='{}': expected a git URL or an absolute path", c.edge_src)};
    }
    // Remote mode: the path names a checkout on the SUT host (provision.h), not here.
    if (!c.remote() && in.file_exists && !in.file_exists(c.edge_src + "/docker/nginx.conf.template")) {
      return Error{fmt::format(
          "FAIRVISOR_EDGE_SRC='{}': not a fairvisor edge checkout (no docker/nginx.conf.template)", c.edge_src)};
    }
  }

  std::string rt = r.str("NGINX_RUNTIME", "auto");
  if (rt == "auto") c.runtime = NginxRuntime::kAuto;
  else if (rt == "openresty") c.runtime = NginxRuntime::kOpenResty;
  else if (rt == "nginx") c.runtime = NginxRuntime::kDistro;
  else return Error{fmt::format("NGINX_RUNTIME='{}': expected auto, openresty or nginx", rt)};

  c.fv_worker_processes = r.str("FAIRVISOR_WORKER_PROCESSES", c.fv_worker_processes);
  if (c.fv_worker_processes != "auto") {
    auto v = r.integer("FAIRVISOR_WORKER_PROCESSES", 1, 1, 1024, "auto or a worker count");
    if (!v) return v.error();
  }
  c.fv_log_level = r.str("FAIRVISOR_LOG_LEVEL", c.fv_log_level);
  static const std::set<std::string> kLevels = {"debug", "info", "notice", "warn", "error", "crit", "alert", "emerg"};
  if (!kLevels.count(c.fv_log_level)) {
    return Error{fmt::format("FAIRVISOR_LOG_LEVEL='{}': expected an nginx error_log level "
                             "(debug info notice warn error crit alert emerg)", c.fv_log_level)};
  }

  std::string engine = r.str("LOADGEN_ENGINE", "k6");
  if (engine == "k6") c.engine = Engine::kK6;
  else if (engine == "wrk") c.engine = Engine::kWrk;
  else return Error{fmt::format("LOADGEN_ENGINE='{}': unknown engine (expected k6 or wrk)", engine)};
  // A p99 at the engine's request timeout is censored there (load_result.h):
  // an SLO at or above the timeout could never fail.
  const double engine_timeout_us = c.engine == Engine::kK6 ? kK6RequestTimeoutUs : kWrkRequestTimeoutUs;
  if (c.throughput_slo_p99_us >= engine_timeout_us) {
    return Error{fmt::format("THROUGHPUT_SLO_P99_MS={}: at or above {}'s request timeout of {} ms, so no step "
                             "could fail it; choose an SLO below {} ms",
                             c.throughput_slo_p99_us / 1000.0, engine, engine_timeout_us / 1000.0,
                             engine_timeout_us / 1000.0)};
  }

  c.policy_dir = r.str("FVBENCH_POLICY_DIR", in.source_dir + "/fixtures/policies");
  c.thresholds = r.str("FVBENCH_THRESHOLDS", in.source_dir + "/thresholds/portable.json");
  c.reference = r.str("FVBENCH_REFERENCE", in.source_dir + "/reference.json");
  for (auto [name, val] : {std::pair{"FVBENCH_POLICY_DIR", &c.policy_dir}, std::pair{"FVBENCH_THRESHOLDS", &c.thresholds},
                           std::pair{"FVBENCH_REFERENCE", &c.reference}}) {
    if (val->empty() || (*val)[0] != '/') {  // ctest runs tests in build/..., so a relative path would mislead
      return Error{fmt::format("{}='{}': must be an absolute path (tests run in the build tree, not where "
                               "ctest was started)", name, *val)};
    }
  }
  // Validated as a results.json by the provision fixture (baseline.h).
  c.history = r.str("FVBENCH_HISTORY", "");  // support/history (README "History and change points")
  c.baseline = r.str("FVBENCH_BASELINE", "");
  if (!c.baseline.empty() && c.baseline[0] != '/') {
    return Error{fmt::format("FVBENCH_BASELINE='{}': must be an absolute path (tests run in the build tree, not "
                             "where ctest was started)", c.baseline)};
  }
  if (in.file_exists) {
    for (const char* p : {"simple.json", "complex.json", "llm.json"}) {
      std::string f = c.policy_dir + "/" + p;
      if (!in.file_exists(f)) {
        return Error{fmt::format("FVBENCH_POLICY_DIR='{}': missing policy file {}", c.policy_dir, f)};
      }
    }
    if (!in.file_exists(c.thresholds)) {
      return Error{fmt::format("FVBENCH_THRESHOLDS='{}': no such file", c.thresholds)};
    }
    if (!in.file_exists(c.reference)) {
      return Error{fmt::format("FVBENCH_REFERENCE='{}': no such file", c.reference)};
    }
  }
  if (auto ab = LoadAbConfig(in, r, c); !ab) return ab.error();
  if (auto t = LoadScenarioTimeout(in.env, r, c); !t) return t.error();
  if (auto v = ValidityParamsFromEnv(in.env); v) c.validity = *v; else return v.error();
  if (auto p = ProgressParamsFromEnv(in.env); p) c.progress = *p; else return p.error();
  return c;
}

}  // namespace fvbench
