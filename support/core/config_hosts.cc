// LoadConfig's hosts and processes: installs (k6's source, the package
// manager's lock wait), remote mode, CPU pinning, the SUT's nginx settings, the load engine and the JWT secret
// (config_parts.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

#include "support/core/command_values.h"
#include "support/core/config_parts.h"
#include "support/core/cpu_list.h"
#include "support/core/load_result.h"
#include "support/core/units_format.h"
#include "support/core/loadgen_share.h"

namespace fvbench::detail {

Result<void> LoadInstalls(const EnvReader& r, Config& c) {
  c.k6_version = r.str("K6_VER", c.k6_version);
  // The release tag names the archive and, without its v, the apt/dnf package version.
  static const std::regex kK6Tag(R"(v[0-9]+\.[0-9]+\.[0-9]+)");
  if (!std::regex_match(c.k6_version, kK6Tag)) {
    return Error{fmt::format("K6_VER='{}': expected a k6 release tag v<major>.<minor>.<patch>, e.g. v0.54.0",
                             c.k6_version)};
  }
  auto source = r.OneOf("K6_SOURCE", c.k6_source, {"repo", "archive"},
                        "repo (Grafana's package repository) or archive (the release archive, checksum-verified)");
  if (!source) return source.error();
  c.k6_source = *source;
  c.k6_release_url = r.str("K6_RELEASE_URL", c.k6_release_url);
  if (auto u = CheckDownloadUrl("K6_RELEASE_URL", c.k6_release_url); !u) return u;
  while (c.k6_release_url.size() > 1 && c.k6_release_url.back() == '/') c.k6_release_url.pop_back();
  auto wait = r.Integer("FVBENCH_PACKAGE_LOCK_WAIT_S", c.package_lock_wait_s, 0, 3600,
                        "seconds a package install waits for the package manager's lock, 0..3600");
  if (!wait) return wait.error();
  c.package_lock_wait_s = static_cast<int>(*wait);
  return Ok();
}

namespace {

// FVBENCH_MODE (set by the remote presets): remote requires both hosts, so a
// preset meant for two hosts never silently runs locally.
Result<void> CheckMode(const EnvReader& r, const Config& c) {
  auto mode = r.OneOf("FVBENCH_MODE", "", {"", "local", "remote"}, "local or remote");
  if (!mode) return mode.error();
  if (*mode == "remote" && !c.remote()) {
    return Error{"FVBENCH_MODE=remote (remote preset): FAIRVISOR_REMOTE and LOADGEN_REMOTE are not set; "
                 "set both to user@host[:port] (the SUT host and the load-generator host)"};
  }
  if (*mode == "local" && c.remote()) {
    return Error{fmt::format("FVBENCH_MODE=local but FAIRVISOR_REMOTE='{}' / LOADGEN_REMOTE='{}' are set; "
                             "unset them or use the remote preset", c.fairvisor_remote, c.LoadgenRemoteText())};
  }
  if (c.remote() && c.fairvisor_remote.empty()) {
    return Error{fmt::format("FAIRVISOR_REMOTE is not set but LOADGEN_REMOTE='{}' is: remote mode needs both "
                             "(FAIRVISOR_REMOTE=user@sut-host for the SUT host)", c.LoadgenRemoteText())};
  }
  if (c.remote() && c.loadgen_remotes.empty()) {
    return Error{fmt::format("LOADGEN_REMOTE is not set but FAIRVISOR_REMOTE='{}' is: remote mode needs both "
                             "(LOADGEN_REMOTE=user@loadgen-host for the load generator)", c.fairvisor_remote)};
  }
  return Ok();
}

// FAIRVISOR_TARGET_HOST's default: 127.0.0.1 locally, else the host of
// FAIRVISOR_REMOTE, read as an ssh destination is (host/ssh_target.h
// ParseDestination: user@ up to the last '@'; [host]:port; host:port with one
// ':'; more ':' a bare IPv6 address), an IPv6 address bracketed as a URL
// host needs it.
std::string DefaultTargetHost(const std::string& remote) {
  if (remote.empty()) return "127.0.0.1";
  std::string h = remote;
  if (auto at = h.rfind('@'); at != std::string::npos) h = h.substr(at + 1);
  if (!h.empty() && h[0] == '[') {
    const auto close = h.find(']');
    return close == std::string::npos ? h : h.substr(0, close + 1);
  }
  const auto colons = std::count(h.begin(), h.end(), ':');
  if (colons == 1) return h.substr(0, h.find(':'));
  if (colons > 1) return "[" + h + "]";
  return h;
}

// The host a target names, for telling two spellings of one host apart:
// without user@, lower case, ":22" (ssh's default port) dropped.
std::string HostOfTarget(std::string t) {
  if (auto at = t.rfind('@'); at != std::string::npos) t = t.substr(at + 1);
  for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (t.size() > 3 && t.compare(t.size() - 3, 3, ":22") == 0 && t.find(':') == t.size() - 3) t.resize(t.size() - 3);
  if (t.size() > 4 && t.front() == '[' && t.compare(t.size() - 4, 4, "]:22") == 0) t.resize(t.size() - 3);
  return t;
}

// LOADGEN_REMOTE: one SSH target, or several separated by commas (several
// loadgen hosts share each phase). Blanks around a target are
// dropped; an empty target, or a host given twice (in any spelling:
// HostOfTarget), is refused.
Result<std::vector<std::string>> SplitLoadgenTargets(const std::string& value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  size_t at = 0;
  while (true) {
    const size_t comma = value.find(',', at);
    std::string t = value.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    if (t.empty()) {
      return Error{fmt::format("LOADGEN_REMOTE='{}': target {} is empty (expected user@host[:port], several "
                               "separated by commas)",
                               value, out.size() + 1)};
    }
    for (const std::string& earlier : out) {
      if (HostOfTarget(earlier) == HostOfTarget(t)) {
        return Error{fmt::format("LOADGEN_REMOTE='{}': {} is given twice{} (each loadgen host once; "
                                 "LOADGEN_PROCS_PER_HOST runs several engine processes on one host)",
                                 value, t, earlier == t ? "" : fmt::format(" (as {})", earlier))};
      }
    }
    out.push_back(std::move(t));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace

Result<void> LoadRemote(const EnvReader& r, Config& c) {
  c.fairvisor_remote = r.str("FAIRVISOR_REMOTE", "");
  if (auto d = CheckSshDestination("FAIRVISOR_REMOTE", c.fairvisor_remote); !d) return d;
  auto targets = SplitLoadgenTargets(r.str("LOADGEN_REMOTE", ""));
  if (!targets) return targets.error();
  for (const std::string& t : *targets) {
    if (auto d = CheckSshDestination("LOADGEN_REMOTE", t); !d) return d;
  }
  c.loadgen_remotes = *targets;
  c.ssh_opts = r.str("SSH_OPTS", "");
  auto dry = r.Flag("DRY_RUN", c.dry_run);
  if (!dry) return dry.error();
  c.dry_run = *dry;
  if (auto m = CheckMode(r, c); !m) return m;
  c.listen_addr = r.str("FV_LISTEN_ADDR", c.remote() ? "0.0.0.0" : "127.0.0.1");
  if (auto a = CheckHostAddress("FV_LISTEN_ADDR", c.listen_addr); !a) return a;
  const bool target_set = r.has("FAIRVISOR_TARGET_HOST");
  c.fairvisor_target_host = r.str("FAIRVISOR_TARGET_HOST", DefaultTargetHost(c.fairvisor_remote));
  auto target = CheckHostAddress("FAIRVISOR_TARGET_HOST", c.fairvisor_target_host);
  if (target.ok() || target_set) return target;
  return Error{fmt::format("{} (not set: the host of FAIRVISOR_REMOTE='{}')", target.error().message,
                           c.fairvisor_remote)};
}

// ORESTY_CPUSET / K6_CPUSET: checked CPU lists, stored in the compact form.
// Locally each CPU must be one this process may use (ConfigInputs::cpus: its
// affinity within its cgroup's cpuset); remote hosts are checked by Testbed
// against their own. Seed behaviour: with taskset and >= 8 usable CPUs, split
// them 50/50 when unset (remote: per host, by Testbed).
Result<void> LoadCpusets(const ConfigInputs& in, const EnvReader& r, Config& c) {
  std::vector<int> usable = in.cpus;
  if (usable.empty()) {
    for (int i = 0; i < in.cores; ++i) usable.push_back(i);
  }
  for (auto [name, val] : {std::pair{"ORESTY_CPUSET", &c.oresty_cpuset}, std::pair{"K6_CPUSET", &c.loadgen_cpuset}}) {
    auto cpus = r.CpuList(name);
    if (!cpus) return cpus.error();
    if (!c.remote() && !usable.empty()) {
      for (int cpu : *cpus) {
        if (std::binary_search(usable.begin(), usable.end(), cpu)) continue;
        return Error{fmt::format("{}='{}': CPU {} does not exist or may not be used by this process here (it may "
                                 "use CPUs {}: its affinity within its cgroup's cpuset)",
                                 name, r.str(name, ""), cpu, FormatCpuList(usable))};
      }
    }
    *val = FormatCpuList(*cpus);
  }
  if (c.remote() || !in.have_taskset || usable.size() < 8) return Ok();
  const size_t half = usable.size() / 2;
  if (c.oresty_cpuset.empty()) {
    c.oresty_cpuset = FormatCpuList({usable.begin(), usable.begin() + half});
    c.cpusets_auto = true;
  }
  if (c.loadgen_cpuset.empty()) {
    c.loadgen_cpuset = FormatCpuList({usable.begin() + half, usable.end()});
    c.cpusets_auto = true;
  }
  return Ok();
}

// An nginx size (ngx_parse_size: digits, then k or m) that nginx accepts for
// a shared zone: at least 8 pages of 4 KiB (ngx_http_lua "too small"), at
// most 65536m. Only digits and one unit letter reach edge's nginx.conf.
static Result<void> LoadSharedDictSize(const EnvReader& r, Config& c) {
  const std::string v = r.str("FAIRVISOR_SHARED_DICT_SIZE", c.fv_shared_dict_size);
  const auto bad = [&](const char* why) {
    return Error{fmt::format("FAIRVISOR_SHARED_DICT_SIZE='{}': {} (an nginx size such as 256m, 512k or 1048576; "
                             "32k..65536m)", v, why)};
  };
  size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  const std::string unit = v.substr(digits);
  if (digits == 0 || digits > 11 || (unit != "" && unit != "k" && unit != "K" && unit != "m" && unit != "M")) {
    return bad("not an nginx size");
  }
  const double scale = unit.empty() ? 1 : (unit == "k" || unit == "K") ? 1024.0 : 1024.0 * 1024;
  const double bytes = std::stod(v.substr(0, digits)) * scale;
  if (bytes < 32 * 1024) return bad("below 32k, the smallest shared zone nginx accepts");
  if (bytes > 64.0 * 1024 * 1024 * 1024) return bad("above 65536m");
  c.fv_shared_dict_size = v;
  return Ok();
}

Result<void> LoadSut(const EnvReader& r, Config& c) {
  auto rt = r.OneOf("NGINX_RUNTIME", "auto", {"auto", "openresty", "nginx"}, "auto, openresty or nginx");
  if (!rt) return rt.error();
  c.runtime = *rt == "openresty" ? NginxRuntime::kOpenResty : *rt == "nginx" ? NginxRuntime::kDistro : NginxRuntime::kAuto;
  c.fv_worker_processes = r.str("FAIRVISOR_WORKER_PROCESSES", c.fv_worker_processes);
  if (c.fv_worker_processes != "auto") {
    auto v = r.Integer("FAIRVISOR_WORKER_PROCESSES", 1, 1, 1024, "auto or a worker count 1..1024");
    if (!v) return v.error();
  }
  if (auto dict = LoadSharedDictSize(r, c); !dict) return dict;
  auto level = r.OneOf("FAIRVISOR_LOG_LEVEL", c.fv_log_level,
                       {"debug", "info", "notice", "warn", "error", "crit", "alert", "emerg"},
                       "an nginx error_log level (debug info notice warn error crit alert emerg)");
  if (!level) return level.error();
  c.fv_log_level = *level;
  auto backlog = r.Integer("NGINX_LISTEN_BACKLOG", 0, 1, 65535, "a listen backlog 1..65535");
  if (!backlog) return backlog.error();
  c.nginx_listen_backlog = static_cast<int>(*backlog);
  return Ok();
}

namespace {

// wrk runs whole seconds (its -d): a fractional phase would run ceil(d) s
// while the report and the load accounting say d.
Result<void> WholeSecondsForWrk(const Config& c) {
  // The lengths taken from the budget are whole seconds (SearchDurationsFromBudget).
  const std::pair<const char*, double> durations[] = {{"LATENCY_DUR", c.latency_dur_s},
                                                      {"WARMUP_DUR", c.warmup_dur_s},
                                                      {"STEP_DUR", c.step_dur_s.value_or(0)},
                                                      {"CONFIRM_DUR", c.confirm_dur_s.value_or(0)},
                                                      {"LIMITS_DUR", c.limits_dur_s},
                                                      {"FVBENCH_PROFILE_DUR", c.profile.duration_s}};
  for (const auto& [name, seconds] : durations) {
    if (seconds != std::floor(seconds)) {
      // Only whole seconds that are accepted: never 0 for a phase (STEP_DUR=0.5 -> "use 1").
      const std::string use = std::floor(seconds) >= 1
                                  ? fmt::format("{} or {}", std::floor(seconds), std::ceil(seconds))
                                  : fmt::format("{}", std::ceil(seconds));
      return Error{fmt::format("{}={}: wrk runs whole seconds (its -d), so it would run {} s; use {} "
                               "(k6 takes fractions)",
                               name, seconds, std::ceil(seconds), use)};
    }
  }
  return Ok();
}

}  // namespace

Result<void> LoadEngine(const EnvReader& r, Config& c) {
  auto engine = r.OneOf("LOADGEN_ENGINE", EngineName(c.engine), {"k6", "wrk"}, "k6 or wrk (unknown engine)");
  if (!engine) return engine.error();
  c.engine = *engine == "wrk" ? Engine::kWrk : Engine::kK6;
  // A p99 at the engine's request timeout is censored there (load_result.h):
  // an SLO at or above the timeout could never fail.
  const double timeout_us = c.engine == Engine::kK6 ? kK6RequestTimeoutUs : kWrkRequestTimeoutUs;
  if (c.throughput_slo_p99_us >= timeout_us) {
    return Error{fmt::format("THROUGHPUT_SLO_P99_MS={}: at or above {}'s request timeout of {} ms, so no step "
                             "could fail it; choose an SLO below {} ms",
                             c.throughput_slo_p99_us / 1000.0, *engine, timeout_us / 1000.0, timeout_us / 1000.0)};
  }
  return c.engine == Engine::kWrk ? WholeSecondsForWrk(c) : Ok();
}

// Several engine processes share each phase (LOADGEN_REMOTE's hosts x
// LOADGEN_PROCS_PER_HOST): the latency phase's split must give each process
// enough requests to be judged (judge/loadgen_shards.h CheckShareSize). The
// search's steps are checked as they are planned (engine/multi_loadgen.h).
Result<void> CheckLoadgenShares(const Config& c) {
  const size_t n = c.LoadgenProcesses();
  const std::string what =
      fmt::format("LATENCY_RPS={} x LATENCY_DUR={} s (LOADGEN_PROCS_PER_HOST={} x {} loadgen host{})",
                  FormatNumber(c.latency_rps), FormatNumber(c.latency_dur_s), c.procs_per_host,
                  std::max<size_t>(c.loadgen_remotes.size(), 1), c.loadgen_remotes.size() > 1 ? "s" : "");
  return CheckShareSize(c.latency_rps, c.latency_dur_s, n, what);
}

// RFC 7518 section 3.2: "A key of the same size as the hash output (for
// instance, 256 bits for "HS256") or larger MUST be used with this algorithm."
Result<void> LoadJwtSecret(const EnvReader& r, Config& c) {
  if (r.set_but_empty("FVBENCH_JWT_SECRET")) {
    return Error{"FVBENCH_JWT_SECRET='': set but empty; unset it to use the built-in benchmark-only secret, or set "
                 "a secret of at least 32 bytes (an empty variable is usually a script bug)"};
  }
  const std::string s = r.str("FVBENCH_JWT_SECRET", c.jwt_secret);
  if (s.size() < kMinJwtSecretBytes) {
    // The value is a secret: named by its length only.
    return Error{fmt::format("FVBENCH_JWT_SECRET (a {}-byte value, not shown): shorter than {} bytes; an HS256 key "
                             "must be at least 256 bits (RFC 7518 section 3.2)",
                             s.size(), kMinJwtSecretBytes)};
  }
  c.jwt_secret = s;
  return Ok();
}

}  // namespace fvbench::detail
