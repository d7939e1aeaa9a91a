#include "support/judge/validity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "support/core/units_format.h"
#include "support/judge/interval_checks.h"
#include "support/judge/kernel_counters.h"
#include "support/judge/proc_sample.h"

namespace fvbench {
namespace {

using detail::FormatFixed;
using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Fractions are shown as percentages, everything else as a number with its unit.
bool IsFraction(const std::string& name) {
  return name == "policy_evidence" || name == "achieved_rate" || name == "loadgen_cpu" || name == "sut_quiet" ||
         name == "limit_over_admission" || name == "rate_drift" || name == "p99_drift";
}

// A check's name without the "loadgen <host>#<i>: " of one load generator's
// own checks (loadgen_merge.h): they read in the phase's units.
std::string BaseName(const std::string& name) {
  if (name.rfind("loadgen ", 0) != 0) return name;
  const size_t colon = name.rfind(": ");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

std::string Value(const ValidityCheck& c, double v) {
  if (std::isnan(v)) return "not measured";
  const std::string name = BaseName(c.name);
  if (IsFraction(name)) return FormatPercent(v);
  if (name == "error_log_rate") return FormatNumber(v) + " lines/s";
  if (name == "engine_kept_up" && c.detail.find("behind schedule") != std::string::npos) return FormatPercent(v);
  return FormatNumber(v);
}

ValidityCheck Make(std::string name, double measured, const char* op, double limit, std::string detail) {
  ValidityCheck c;
  c.name = std::move(name);
  c.op = op;
  c.measured = measured;
  c.limit = limit;
  c.detail = std::move(detail);
  if (std::isnan(measured)) {
    c.passed = false;
  } else if (c.op == ">=") {
    c.passed = measured >= limit;
  } else if (c.op == "<=") {
    c.passed = measured <= limit;
  } else if (c.op == "<") {
    c.passed = measured < limit;
  } else {
    c.passed = measured == limit;
  }
  return c;
}

// A check that is reported, never failed: its detail says everything.
ValidityCheck Informational(std::string name, std::string detail) {
  ValidityCheck c;
  c.name = std::move(name);
  c.informational = true;
  c.passed = true;
  c.measured = kNaN;
  c.limit = kNaN;
  c.detail = std::move(detail);
  return c;
}

// RateLimit headers on enough responses (fairvisor scenarios).
void EvidenceCheck(const LoadResult& load, const ValidityParams& p, std::vector<ValidityCheck>& out) {
  if (!load.ratelimit_evidence) {
    out.push_back(Make("policy_evidence", kNaN, ">=", p.min_evidence_share,
                       fmt::format("the {} engine did not count responses with RateLimit headers", load.engine)));
    return;
  }
  double share = load.requests > 0 ? static_cast<double>(*load.ratelimit_evidence) / load.requests : kNaN;
  out.push_back(Make("policy_evidence", share, ">=", p.min_evidence_share,
                     fmt::format("{} of {} responses carried RateLimit headers", *load.ratelimit_evidence,
                                 load.requests)));
}

// Successful responses against rate x duration.
ValidityCheck EnoughRequests(const LoadResult& load, const PhaseContext& ctx, const ValidityParams& p) {
  const double duration = ctx.planned_duration_s > 0 ? ctx.planned_duration_s : load.duration_s;
  const double expected = load.target_rps * duration;
  // Successful responses: counted per scheduled request by the parsers; a
  // result without that accounting (scheduled 0) has requests - failed.
  const std::string successful =
      load.scheduled > 0
          ? fmt::format("{} of {} scheduled: {} failed at the SUT, {} never sent by the engine{}", load.succeeded,
                        load.scheduled, load.failed_sut, load.failed_engine,
                        load.interrupted > 0 ? fmt::format("; {} in flight at the end, not counted", load.interrupted)
                                             : "")
          : fmt::format("{} requests - {} failed", load.requests, load.failed);
  double ok = load.scheduled > 0
                  ? static_cast<double>(load.succeeded)
                  : static_cast<double>(load.requests >= load.failed ? load.requests - load.failed : 0);
  if (ctx.rejections_expected) ok += static_cast<double>(load.non_2xx);
  return Make("enough_requests", ok, ">=", std::floor(p.min_success_fraction * expected),
              fmt::format("{} responses ({}{}) vs {} x {} RPS x {} s",
                          ctx.rejections_expected ? "answered" : "successful", successful,
                          ctx.rejections_expected ? fmt::format("; {} non-2xx answers counted", load.non_2xx) : "",
                          FormatNumber(p.min_success_fraction), FormatNumber(load.target_rps),
                          FormatNumber(duration)));
}

// The engine kept up with its schedule (wrk: pace.lua's late sends; k6: dropped iterations).
ValidityCheck EngineKeptUp(const LoadResult& load) {
  if (load.engine != "wrk") {
    ValidityCheck c = Make("engine_kept_up", static_cast<double>(load.dropped_iterations), "<=", 0,
                           "k6 dropped_iterations (arrivals the engine had no VU for)");
    c.passed = load.kept_up && load.dropped_iterations == 0;
    return c;
  }
  ValidityCheck c = Make("engine_kept_up", load.late_send_share, "<=", kDefaultMaxLateShare,
                         fmt::format("wrk pace.lua share of sends > 10 ms behind schedule; worst lag {}",
                                     FormatUs(load.max_send_lag_us)));
  c.passed = load.kept_up;  // the parser's verdict also covers an unpaced run and running ahead
  if (load.max_early_send_us > kDefaultMaxSendLagUs) {
    c.detail += fmt::format("; the schedule RAN AHEAD by up to {} (sends before their slot: more than the "
                            "target rate was offered)",
                            FormatUs(load.max_early_send_us));
  } else if (!load.kept_up && load.late_send_share <= kDefaultMaxLateShare) {
    c.detail += " (run was not paced)";
  }
  return c;
}

ValidityCheck LoadgenCpu(const PhaseObservation& obs, const PhaseContext& ctx, const ValidityParams& p) {
  const std::string what =
      fmt::format("busy share of the engine's cpus ({} on host {}, {} cpus; {} samples, peak interval {})",
                  obs.loadgen_cpuset.empty() ? "all" : obs.loadgen_cpuset, obs.loadgen_host, obs.loadgen_cpus,
                  obs.samples, FormatPercent(obs.loadgen_busy_peak));
  ValidityCheck c = Make("loadgen_cpu", *obs.loadgen_busy, "<=", p.max_loadgen_busy, what);
  // Unpinned on the SUT's host, the engine's cpus are all cpus: their busy share
  // is the SUT's work plus the engine's and says nothing about the engine
  // alone. Reported, not gated (the run is labelled as sharing cores; the
  // engine_kept_up check still catches an engine that fell behind). Cpusets
  // that overlap on purpose stay gated: that configuration is the problem.
  if (!ctx.sharing.empty() && obs.loadgen_cpuset.empty()) {
    c.informational = true;
    // Informational checks print their detail only: the number and the limit go in it.
    c.detail = fmt::format("{} {}; the engine is unpinned on the SUT's machine: this includes the SUT's cpu use, so it "
                           "is not gated (limit {} when pinned)",
                           FormatPercent(*obs.loadgen_busy), what, FormatPercent(p.max_loadgen_busy));
  }
  return c;
}

ValidityCheck SutQuiet(const QuietOutcome& q, const ValidityParams& p) {
  ValidityCheck c = Make("sut_quiet", q.busy_per_core, "<=", p.quiet_max_per_core,
                         fmt::format("SUT cpu busy per core over {} s before the load ({} cpus), {} after waiting "
                                     "{} s (QUIET_TIMEOUT {} s); load1 per core {}",
                                     FormatNumber(q.window_s), q.cpus, q.reached ? "quiet" : "still busy",
                                     FormatNumber(q.waited_s),
                                     FormatNumber(p.quiet_timeout_s), FormatNumber(q.load1_per_core)));
  c.passed = q.reached;
  return c;
}

// The SUT's error.log: growth rate and alert lines.
void LogChecks(const PhaseObservation& obs, const ValidityParams& p, std::vector<ValidityCheck>& out) {
  double worst = 0;
  std::string parts;
  for (const LogGrowth& g : obs.logs) {
    worst = std::max(worst, g.lines_per_s);
    parts += fmt::format("{}{} +{} lines", parts.empty() ? "" : ", ", g.service, g.lines);
  }
  out.push_back(Make("error_log_rate", worst, "<=", p.max_log_lines_per_s,
                     fmt::format("fastest-growing SUT error.log during the phase ({} in {} s)", parts,
                                 FormatNumber(obs.elapsed_s))));
  uint64_t alerts = 0;
  std::string quoted;
  for (const LogGrowth& g : obs.logs) {
    alerts += g.alert_count;
    for (const std::string& a : g.alerts) {
      if (quoted.size() < 600) quoted += fmt::format("\n  {}: {}", g.service, a);
    }
  }
  uint64_t exits = 0;
  std::string by_service;
  for (const LogGrowth& g : obs.logs) {
    exits += g.worker_exits;
    if (g.worker_exits > 0) by_service += fmt::format("{}{} {}", by_service.empty() ? "" : ", ", g.service, g.worker_exits);
  }
  out.push_back(Make("sut_worker_restarts", static_cast<double>(exits), "<=", 0,
                     exits == 0 ? "no SUT nginx worker exited on a signal during the phase"
                                : "SUT nginx workers that exited on a signal and were restarted during the phase: " +
                                      by_service));
  out.push_back(Make("nginx_alerts", static_cast<double>(alerts), "<=", 0,
                     alerts == 0 ? "no [alert]/[emerg]/worker_connections/\"Too many open files\" lines"
                                 : "alert lines in the SUT error.log:" + quoted));
}

// A counter's delta on a host; nullopt when it was not in both readings.
std::optional<uint64_t> DeltaOf(const HostKernelCounters& h, std::string_view name) {
  auto it = h.delta.deltas.find(std::string(name));
  if (it == h.delta.deltas.end()) return std::nullopt;
  return it->second;
}

std::string Shown(const std::optional<uint64_t>& v) { return v ? fmt::format("+{}", *v) : "not read"; }

std::string Roles(const HostKernelCounters& h) {
  return h.sut && h.loadgen ? "SUT and load generator" : h.sut ? "SUT" : "load generator";
}

// Listen-queue drops on the SUT host: the kernel dropped a SYN (or the
// final ACK) because a listening socket's accept queue was full, and the
// client retries only after 1 s, then 3 s. The kernel counts each overflow
// in ListenOverflows and again in ListenDrops (with the other drops), so the
// measured value is the larger of the two, not their sum.
ValidityCheck ListenDrops(const std::vector<const HostKernelCounters*>& sut) {
  uint64_t worst = 0;
  std::string parts;
  for (const HostKernelCounters* h : sut) {
    const auto overflows = DeltaOf(*h, kListenOverflows);
    const auto drops = DeltaOf(*h, kListenDrops);
    worst = std::max({worst, overflows.value_or(0), drops.value_or(0)});
    parts += fmt::format("{}host {}: ListenOverflows {}, ListenDrops {}", parts.empty() ? "" : "; ", h->host,
                         Shown(overflows), Shown(drops));
  }
  ValidityCheck c =
      Make("kernel_listen_drops", static_cast<double>(worst), "<=", 0,
           "connections the SUT host's kernel dropped at a full listen queue (/proc/net/netstat): " + parts);
  if (worst > 0) {
    c.detail += "; each dropped SYN is retried by the client after 1 s: raise the listen backlog (nginx `listen ... "
                "backlog=`) and net.core.somaxconn on the SUT host";
  }
  return c;
}

// SYN retransmissions on a load-generator host: a connection attempt went
// unanswered and was sent again after 1 s, which those requests' latency holds.
ValidityCheck SynRetrans(const std::vector<const HostKernelCounters*>& loadgens) {
  uint64_t total = 0;
  std::string parts;
  for (const HostKernelCounters* h : loadgens) {
    const auto syn = DeltaOf(*h, kSynRetrans);
    total += syn.value_or(0);
    parts += fmt::format("{}host {}: TCPSynRetrans {}", parts.empty() ? "" : "; ", h->host, Shown(syn));
  }
  ValidityCheck c = Make("kernel_syn_retrans", static_cast<double>(total), "<=", 0,
                         "SYNs the load generators' kernels sent again (/proc/net/netstat): " + parts);
  if (total > 0) {
    c.detail += "; the client retried a SYN, adding ~1 s to those requests: the SUT's listen queue or the network "
                "dropped it (see kernel_listen_drops)";
  }
  return c;
}

// The counters that distort without failing (kDistortingCounters), per
// host: the ones that moved, and what could not be compared.
ValidityCheck KernelCounterList(const PhaseObservation& obs) {
  std::string parts;
  for (const HostKernelCounters& h : obs.kernel) {
    std::string moved;
    for (std::string_view name : kDistortingCounters) {
      const auto d = DeltaOf(h, name);
      if (d && *d > 0) moved += fmt::format("{}{} +{}", moved.empty() ? "" : ", ", name, *d);
    }
    parts += fmt::format("{}host {} ({}): {} counters read, {}", parts.empty() ? "" : "; ", h.host, Roles(h),
                         h.delta.deltas.size(), moved.empty() ? "none watched moved" : "moved: " + moved);
    if (!h.delta.went_back.empty()) parts += fmt::format("; went back: {}", fmt::join(h.delta.went_back, ", "));
    if (!h.delta.vanished.empty()) parts += fmt::format("; gone at the end: {}", fmt::join(h.delta.vanished, ", "));
  }
  return Informational("kernel_counters",
                       fmt::format("{}; watched (they distort a measurement without failing it; /proc/net/netstat, "
                                   "snmp, dev, stat/nf_conntrack): {}",
                                   parts, fmt::join(kDistortingCounters, ", ")));
}

// A threshold profile's maximum for one counter: the largest delta of any
// host it was read on; not read on any host, the check fails (not measured).
ValidityCheck CounterLimit(const PhaseObservation& obs, const KernelCounterLimit& l) {
  std::optional<uint64_t> worst;
  std::string parts;
  for (const HostKernelCounters& h : obs.kernel) {
    const auto d = DeltaOf(h, l.counter);
    if (d) worst = std::max(worst.value_or(0), *d);
    parts += fmt::format("{}host {}: {} {}", parts.empty() ? "" : "; ", h.host, l.counter, Shown(d));
  }
  return Make("kernel_" + l.counter, worst ? static_cast<double>(*worst) : kNaN, l.op.c_str(),
              static_cast<double>(l.limit),
              fmt::format("the largest delta of {} over the phase on any host (/proc/net/netstat, snmp, dev, "
                          "stat/nf_conntrack) "
                          "against the threshold profile's maximum: {}",
                          l.counter, parts));
}

// The kernel's network counters (kernel_counters.h): listen-queue drops on
// the SUT host, SYN retransmissions on a load-generator host; the rest listed,
// and gated where the threshold profile sets a maximum.
void KernelChecks(const PhaseObservation& obs, const PhaseContext& ctx, std::vector<ValidityCheck>& out) {
  std::vector<const HostKernelCounters*> sut, loadgens;
  for (const HostKernelCounters& h : obs.kernel) {
    if (h.sut) sut.push_back(&h);
    if (h.loadgen) loadgens.push_back(&h);
  }
  if (!sut.empty()) out.push_back(ListenDrops(sut));
  if (!loadgens.empty()) out.push_back(SynRetrans(loadgens));
  out.push_back(KernelCounterList(obs));
  for (const KernelCounterLimit& l : ctx.kernel_limits) out.push_back(CounterLimit(obs, l));
}

}  // namespace

std::vector<ValidityCheck> CheckPhase(const LoadResult& load, const PhaseObservation& obs,
                                      const PhaseContext& ctx, const ValidityParams& p) {
  std::vector<ValidityCheck> out;
  if (ctx.expect_evidence) EvidenceCheck(load, p, out);
  out.push_back(EnoughRequests(load, ctx, p));
  out.push_back(EngineKeptUp(load));
  double achieved = load.target_rps > 0 ? load.achieved_rps / load.target_rps : kNaN;
  out.push_back(Make("achieved_rate", achieved, ">=", p.min_achieved_fraction,
                     fmt::format("achieved {} of target {} RPS", FormatNumber(load.achieved_rps),
                                 FormatNumber(load.target_rps))));
  for (ValidityCheck& c : IntervalChecks(load)) out.push_back(std::move(c));
  if (obs.loadgen_busy) out.push_back(LoadgenCpu(obs, ctx, p));
  if (obs.quiet) out.push_back(SutQuiet(*obs.quiet, p));
  if (!obs.logs.empty()) LogChecks(obs, p, out);
  if (!obs.kernel.empty()) KernelChecks(obs, ctx, out);
  if (!ctx.sharing.empty()) {
    out.push_back(Informational("shared_cores", ctx.sharing + "; the numbers include the engine's contention with the SUT"));
  }
  return out;
}

Result<std::string> MachineCoreSharing(const std::string& machine, const std::string& sut_cpuset,
                                const std::string& loadgen_cpuset) {
  if (machine.empty()) return std::string();
  if (sut_cpuset.empty() && loadgen_cpuset.empty()) {
    return fmt::format("{} without pinning: the load engine and the SUT share all cores", machine);
  }
  if (sut_cpuset.empty() || loadgen_cpuset.empty()) {
    return fmt::format("{}: only {} is pinned ({}); the other runs on all cores, sharing them", machine,
                       sut_cpuset.empty() ? "the engine" : "the SUT",
                       sut_cpuset.empty() ? "K6_CPUSET=" + loadgen_cpuset : "ORESTY_CPUSET=" + sut_cpuset);
  }
  auto a = detail::ParseCpuList(sut_cpuset);
  if (!a) return Error{"ORESTY_CPUSET: " + a.error().message};
  auto b = detail::ParseCpuList(loadgen_cpuset);
  if (!b) return Error{"K6_CPUSET: " + b.error().message};
  std::vector<int> both;
  std::set_intersection(a->begin(), a->end(), b->begin(), b->end(), std::back_inserter(both));
  if (both.empty()) return std::string();
  return fmt::format("{}: cpusets overlap: ORESTY_CPUSET={} and K6_CPUSET={} share cpu(s) {}", machine, sut_cpuset,
                     loadgen_cpuset, fmt::join(both, ","));
}

Result<std::string> CoreSharing(bool same_host, const std::string& sut_cpuset, const std::string& loadgen_cpuset) {
  return MachineCoreSharing(same_host ? "local mode" : "", sut_cpuset, loadgen_cpuset);
}

bool ValidityPassed(const std::vector<ValidityCheck>& checks) {
  for (const ValidityCheck& c : checks) {
    if (!c.informational && !c.passed) return false;
  }
  return true;
}

std::string DescribeValidity(const ValidityCheck& c) {
  if (c.informational) return fmt::format("{}: {}", c.name, c.detail);
  if (c.passed) return fmt::format("{}: ok, {} {} {} ({})", c.name, Value(c, c.measured), c.op, Value(c, c.limit),
                                   c.detail);
  if (std::isnan(c.measured) && std::isnan(c.limit)) return fmt::format("{}: not measured ({})", c.name, c.detail);
  return fmt::format("{}: measured {}, limit {} {} ({})", c.name, Value(c, c.measured), c.op, Value(c, c.limit),
                     c.detail);
}

std::string DescribeUsage(const std::vector<ServiceUsage>& usage) {
  std::string out;
  for (const ServiceUsage& u : usage) {
    out += fmt::format("{}{}: {} processes, {} cores, RSS {} MiB (peak {})", out.empty() ? "" : "; ", u.service,
                       u.processes, FormatFixed(u.cpu_cores, 2), FormatFixed(u.rss_mib, 1),
                       FormatFixed(u.rss_peak_mib, 1));
  }
  return out;
}

std::string FailedValidity(const std::vector<ValidityCheck>& checks) {
  std::string out;
  for (const ValidityCheck& c : checks) {
    if (c.informational || c.passed) continue;
    out += (out.empty() ? "" : "; ") + DescribeValidity(c);
  }
  return out;
}

}  // namespace fvbench
