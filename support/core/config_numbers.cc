// LoadConfig's numbers: ports, rates, durations, the search's knobs, counts
// and the ctest TIMEOUT check (config_parts.h). Durations, budgets and rates
// end up in integer types (wrk -d seconds, k6 nanoseconds, timeouts in ms,
// k6's rate): EnvReader's Seconds and Rate keep them within plausible.h's bounds.
#include <cmath>

#include <fmt/format.h>

#include "support/core/config_parts.h"
#include "support/core/key_sweep.h"
#include "support/core/plausible.h"
#include "support/core/run_plan.h"
#include "support/core/scenario_time.h"
#include "support/core/search_defaults.h"
#include "support/core/units_format.h"

namespace fvbench::detail {

Result<void> LoadPorts(const EnvReader& r, Config& c) {
  for (auto [name, out] : {std::pair{"FV_PORT", &c.fv_port}, std::pair{"BACKEND_PORT", &c.backend_port},
                           std::pair{"NGINX_PORT", &c.nginx_port}}) {
    auto v = r.Integer(name, *out, 1, 65535, "a TCP port 1..65535");
    if (!v) return v.error();
    *out = static_cast<int>(*v);
  }
  if (c.fv_port == c.backend_port || c.fv_port == c.nginx_port || c.backend_port == c.nginx_port) {
    return Error{fmt::format("FV_PORT={}, BACKEND_PORT={}, NGINX_PORT={}: the three ports must differ", c.fv_port,
                             c.backend_port, c.nginx_port)};
  }
  return Ok();
}

Result<void> LoadLatency(const EnvReader& r, Config& c) {
  struct Knob {
    const char* name;
    double* out;
    bool rate;
    bool zero_ok;
  };
  for (const Knob& k : {Knob{"LATENCY_RPS", &c.latency_rps, true, false},
                        Knob{"LATENCY_DUR", &c.latency_dur_s, false, false},
                        Knob{"WARMUP_DUR", &c.warmup_dur_s, false, true},  // 0: no warmup
                        Knob{"HEALTH_TIMEOUT", &c.health_timeout_s, false, false}}) {
    auto v = k.rate ? r.Rate(k.name, *k.out) : r.Seconds(k.name, *k.out, k.zero_ok);
    if (!v) return v.error();
    *k.out = *v;
  }
  auto interval = r.Number("FVBENCH_INTERVAL_S", c.interval_s, NumRange{0.001, 3600},
                           "seconds per counting interval, a whole number of milliseconds");
  if (!interval) return interval.error();
  if (std::fabs(*interval * 1000 - std::round(*interval * 1000)) > 1e-6) {
    return Error{fmt::format("FVBENCH_INTERVAL_S={}: expected seconds per counting interval, a whole number of "
                             "milliseconds from 0.001 to 3600 (e.g. 1 or 0.1)",
                             r.str("FVBENCH_INTERVAL_S", ""))};
  }
  c.interval_s = std::round(*interval * 1000) / 1000;
  return LoadLimits(r, c);
}

Result<void> LoadLimits(const EnvReader& r, Config& c) {
  auto on = r.Flag("LIMITS", c.limits);
  if (!on) return on.error();
  c.limits = *on;
  auto keys = r.Integer("LIMITS_KEYS", c.limits_keys, 1, 100000, "rate-limit keys");
  if (!keys) return keys.error();
  c.limits_keys = static_cast<int>(*keys);
  auto overload = r.Number("LIMITS_OVERLOAD", c.limits_overload, NumRange{1, 100, true},
                           "offered load / the keys' allowed rate");
  if (!overload) return overload.error();
  c.limits_overload = *overload;
  auto dur = r.Seconds("LIMITS_DUR", c.limits_dur_s);
  if (!dur) return dur.error();
  c.limits_dur_s = *dur;
  if (r.has("LIMITS_KEYS_SWEEP") || r.set_but_empty("LIMITS_KEYS_SWEEP")) {
    auto sweep = ParseKeySweep(r.str("LIMITS_KEYS_SWEEP", ""));
    if (!sweep) return sweep.error();
    c.limits_keys_sweep = *sweep;
  }
  auto sweep_rps = r.Rate("LIMITS_KEYS_RPS", c.limits_keys_rps);
  if (!sweep_rps) return sweep_rps.error();
  c.limits_keys_rps = *sweep_rps;
  if (c.limits) return CheckSweepLoad(c.limits_keys_sweep, c.limits_keys_rps, c.limits_dur_s, c.warmup_dur_s);
  return Ok();
}

// The bisect search's lengths, as it will run them (STEP_DUR, or probes and
// steps from the budget; CONFIRM_DUR, or 2 x the step): a confirmation no
// shorter than a step (it is the longer run that shows the rate holds), and
// a budget of at least LeastSearchBudget (search_defaults.h): two first steps
// and a confirmation. Measured (fresh-user trial): THROUGHPUT_BUDGET_S=5 ran
// the warmup and then no step; STEP_DUR=2 CONFIRM_DUR=3 THROUGHPUT_BUDGET_S=5
// never had time for its confirmation.
static Result<void> CheckSearchLengths(const EnvReader& r, const Config& c) {
  const SearchPlan plan = RunPlanOf(c).search;
  const SearchDurations& d = plan.lengths;
  const bool auto_steps = plan.lengths_from_budget;
  const double first = auto_steps ? d.probe_s : d.step_s;
  const std::string step_text = auto_steps ? fmt::format("the {} s steps taken from THROUGHPUT_BUDGET_S={}",
                                                         FormatNumber(d.step_s), FormatNumber(c.throughput_budget_s))
                                           : fmt::format("STEP_DUR={}", FormatNumber(d.step_s));
  if (d.confirm_s < d.step_s) {
    return Error{fmt::format("CONFIRM_DUR='{}': shorter than {}; the confirmation is the longer run that shows the "
                             "rate holds (default 2 x the step)",
                             r.str("CONFIRM_DUR", FormatNumber(d.confirm_s)), step_text)};
  }
  const double least = LeastSearchBudget(first, d.confirm_s);
  if (c.throughput_budget_s < least) {
    return Error{fmt::format("THROUGHPUT_BUDGET_S='{}': shorter than two {} s {} and a {} s confirmation, plus "
                             "{} s for their overrun: at least {} s",
                             r.str("THROUGHPUT_BUDGET_S", FormatNumber(c.throughput_budget_s)), FormatNumber(first),
                             auto_steps ? "probes" : "steps (STEP_DUR)", FormatNumber(d.confirm_s),
                             FormatNumber(kBudgetOverrunS), FormatNumber(least))};
  }
  return Ok();
}

// THROUGHPUT_SEARCH_MAX, STEP_DUR, THROUGHPUT_SLO_P99_MS, THROUGHPUT_SEARCH,
// THROUGHPUT_START (<= the cap), THROUGHPUT_RESOLUTION (0 < x <= 0.5),
// CONFIRM_DUR (default 2 x STEP_DUR), THROUGHPUT_BUDGET_S (at most kMaxSearchBudgetS,
// search_defaults.h, refused before anything is derived from it); for the bisect
// search, CheckSearchLengths.
Result<void> LoadSearch(const EnvReader& r, Config& c) {
  auto cap = r.Rate("THROUGHPUT_SEARCH_MAX", c.throughput_search_max);
  auto step = r.Seconds("STEP_DUR", kSeedStepS);
  auto slo_ms = r.Number("THROUGHPUT_SLO_P99_MS", c.throughput_slo_p99_us / 1000, {0, kMaxLatencyUs / 1000, true},
                         "milliseconds > 0");
  auto kind = r.OneOf("THROUGHPUT_SEARCH", "bisect", {"bisect", "seed"}, "bisect or seed");
  for (const Result<double>* v : {&cap, &step, &slo_ms}) {
    if (!*v) return v->error();
  }
  if (!kind) return kind.error();
  c.throughput_search_max = *cap;
  if (r.has("STEP_DUR")) c.step_dur_s = *step;
  c.throughput_slo_p99_us = *slo_ms * 1000;
  c.throughput_search = *kind == "seed" ? ThroughputSearchKind::kSeed : ThroughputSearchKind::kBisect;
  auto start = r.Rate("THROUGHPUT_START", c.throughput_start);
  auto resolution = r.Number("THROUGHPUT_RESOLUTION", c.throughput_resolution, {0, 1e9, true},
                             "a fraction of the rate, 0 < x <= 0.5");
  auto confirm = r.Seconds("CONFIRM_DUR", 2 * *step);
  static_assert(kMaxSearchBudgetS == 86400, "the message below names 86400");
  auto budget = r.Number("THROUGHPUT_BUDGET_S", c.throughput_budget_s, {0, kMaxSearchBudgetS, true},
                         "seconds > 0, at most 86400 = 24 h: a search converges within minutes, a larger budget is "
                         "usually a slip");
  for (const Result<double>* v : {&start, &resolution, &confirm, &budget}) {
    if (!*v) return v->error();
  }
  c.throughput_start = *start;
  c.throughput_resolution = *resolution;
  if (r.has("CONFIRM_DUR")) c.confirm_dur_s = *confirm;
  c.throughput_budget_s = *budget;
  if (c.throughput_resolution > 0.5) {
    return Error{fmt::format("THROUGHPUT_RESOLUTION='{}': must be <= 0.5 (a fraction of the rate, e.g. 0.02 = 2 %)",
                             r.str("THROUGHPUT_RESOLUTION", ""))};
  }
  if (c.throughput_start > c.throughput_search_max) {
    return Error{fmt::format("THROUGHPUT_START='{}': above THROUGHPUT_SEARCH_MAX={} (the search's cap)",
                             r.str("THROUGHPUT_START", ""), FormatNumber(c.throughput_search_max))};
  }
  if (c.throughput_search == ThroughputSearchKind::kBisect) return CheckSearchLengths(r, c);
  return Ok();
}

Result<void> LoadCounts(const EnvReader& r, Config& c) {
  auto repeat = r.Integer("REPEAT", c.repeat, 1, 100, "runs per measured phase, 1..100");
  if (!repeat) return repeat.error();
  c.repeat = static_cast<int>(*repeat);
  auto conns = r.Integer("LOADGEN_CONNECTIONS", c.connections, 0, 100000, "connections, 0 = derived from rate");
  if (!conns) return conns.error();
  c.connections = static_cast<int>(*conns);
  auto procs = r.Integer("LOADGEN_PROCS_PER_HOST", c.procs_per_host, 1, 64,
                         "engine processes per loadgen host, 1..64");
  if (!procs) return procs.error();
  c.procs_per_host = static_cast<int>(*procs);
  return Ok();
}

// FVBENCH_SCENARIO_TIMEOUT_S (CTest sets it from the cache variable
// FVBENCH_SCENARIO_TIMEOUT, the scenarios' TIMEOUT): the durations must let
// every scenario finish within it (scenario_time.h). Unset: not under ctest.
Result<void> LoadScenarioTimeout(const EnvReader& r, Config& c) {
  if (!r.has("FVBENCH_SCENARIO_TIMEOUT_S")) return Ok();
  auto t = r.Number("FVBENCH_SCENARIO_TIMEOUT_S", 0, {0, kMaxPhaseSeconds, true},
                    "seconds > 0, the scenarios' ctest TIMEOUT (set by CTest from FVBENCH_SCENARIO_TIMEOUT)");
  if (!t) return t.error();
  c.scenario_timeout_s = *t;
  return CheckScenarioTimeout(ScenarioTimeInputsOf(c), c.scenario_timeout_s, c.validity.quiet_timeout_s);
}

}  // namespace fvbench::detail
