// LoadConfig's A/B mode (config.h, config_parts.h): FVBENCH_AB and the *_B
// variables, each B value validated like A's; AB_GATE and AB_GATE_METRICS
// (AB_GATE=1 without A/B mode is refused: it would gate nothing).
// REPEAT: default 5 in A/B mode, at least 3.
#include <fmt/format.h>

#include <string_view>

#include "support/core/command_values.h"
#include "support/core/config_parts.h"
#include "support/core/metric_names.h"

namespace fvbench::detail {
namespace {

constexpr const char* kBVars[] = {"FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF_B", "FVBENCH_POLICY_DIR_B", "FV_DIR_B"};

// The first *_B variable set, "" when none; refuses set-but-empty ones
// (FAIRVISOR_EDGE_REF_B=$PR_HEAD with PR_HEAD unset would silently mean
// "B = A" or no A/B run at all) and ones that would change nothing.
Result<std::string> SetBVariable(const EnvReader& r, const Config& c, bool ab_off) {
  std::string b_var;
  for (const char* v : kBVars) {
    if (r.set_but_empty(v)) {
      return Error{fmt::format("{}='': set but empty; unset it (side B then uses side A's value), or give side B's "
                               "value (an empty variable is usually a script bug)", v)};
    }
    if (r.has(v) && b_var.empty()) b_var = v;
  }
  if (ab_off && !b_var.empty()) {
    return Error{fmt::format("FVBENCH_AB=0 but {}='{}' is set: unset it, or set FVBENCH_AB=1 for an A/B run", b_var,
                             r.str(b_var.c_str(), ""))};
  }
  // Only the fairvisor edge scenarios have sides (FVBENCH_AB=1 alone stays
  // valid: the A/B self-test preset skips its edge scenarios the same way).
  if (c.edge_skipped && !b_var.empty()) {
    return Error{fmt::format("{}='{}' is set, but no A/B comparison would run: FAIRVISOR_EDGE_SRC is not set and "
                             "FVBENCH_EDGE_OPTIONAL=1 skips the fairvisor edge scenarios (raw nginx has no sides); "
                             "set FAIRVISOR_EDGE_SRC to side A's edge checkout or git URL, or unset {}",
                             b_var, r.str(b_var.c_str(), ""), b_var)};
  }
  return b_var;
}

// Side B's tree, directory and policies.
Result<void> CheckSideB(const ConfigInputs& in, Config& c) {
  auto dir = CheckedDir("FV_DIR_B", c.fv_dir_b);
  if (!dir) return dir.error();
  if (*dir == c.fv_dir) {
    return Error{fmt::format("FV_DIR_B='{}': the same directory as FV_DIR; B's clone needs its own", c.fv_dir_b)};
  }
  c.fv_dir_b = *dir;
  if (auto ref = CheckGitRef("FAIRVISOR_EDGE_REF_B", c.edge_ref_b); !ref) return ref;
  auto kind = CheckEdgeSource("FAIRVISOR_EDGE_SRC_B", c.edge_src_b);
  if (!kind) return kind.error();
  const bool url = *kind == EdgeSourceKind::kUrl;
  if (!url) {
    auto src = CheckedDir("FAIRVISOR_EDGE_SRC_B", c.edge_src_b);
    if (!src) return src.error();
    c.edge_src_b = *src;
  }
  if (!url && !c.remote() && !c.edge_skipped) {
    if (auto e = CheckLocalEdgeCheckout("FAIRVISOR_EDGE_SRC_B", c.edge_src_b, in); !e) return e;
  }
  if (c.policy_dir_b.empty() || c.policy_dir_b[0] != '/') {
    return Error{fmt::format("FVBENCH_POLICY_DIR_B='{}': must be an absolute path (tests run in the build tree, not "
                             "where ctest was started)", c.policy_dir_b)};
  }
  for (const char* p : kPolicyFiles) {
    std::string f = c.policy_dir_b + "/" + p;
    if (in.file_exists && !in.file_exists(f)) {
      return Error{fmt::format("FVBENCH_POLICY_DIR_B='{}': missing policy file {}", c.policy_dir_b, f)};
    }
  }
  return Ok();
}

// "(expected a comma-separated list of A/B metrics: p50_us, ..., fv_cpu_us_per_request)".
std::string AllowedGateMetrics() {
  return fmt::format("(expected a comma-separated list of A/B metrics, each once: {})",
                     fmt::join(kAbMetricNames, ", "));
}

// AB_GATE_METRICS: unset = {} (every metric). Refused: set but empty, set
// without AB_GATE=1, an empty item, a name that is no A/B metric, a name
// given twice; the error names the item (1-based) and the allowed names.
Result<std::vector<std::string>> LoadGateMetrics(const EnvReader& r, bool gate) {
  constexpr const char* kVar = "AB_GATE_METRICS";
  if (r.set_but_empty(kVar)) {
    return Error{fmt::format("{}='': set but empty; unset it (AB_GATE=1 then gates on every A/B metric), or name "
                             "the metrics to gate on {}", kVar, AllowedGateMetrics())};
  }
  if (!r.has(kVar)) return std::vector<std::string>{};
  const std::string text = r.str(kVar, "");
  if (!gate) {
    return Error{fmt::format("{}='{}' is set but AB_GATE is not 1: it names the metrics AB_GATE=1 fails a scenario "
                             "on; set AB_GATE=1, or unset {}", kVar, text, kVar)};
  }
  std::vector<std::string> metrics;
  std::string_view rest = text;
  for (int i = 1;; ++i) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const std::string name(item);
    const std::string where = fmt::format("{}='{}': item {}", kVar, text, i);
    if (name.empty()) return Error{fmt::format("{} is empty {}", where, AllowedGateMetrics())};
    if (!IsAbMetricName(name)) {
      // A report's label ("p99") for its key ("p99_us").
      std::string hint;
      for (const LatencyMetric& m : kLatencyMetrics) {
        if (name == m.label && IsAbMetricName(m.name)) hint = fmt::format(" (the key of {} is {})", m.label, m.name);
      }
      return Error{fmt::format("{} '{}' is not an A/B metric{} {}", where, name, hint, AllowedGateMetrics())};
    }
    for (const std::string& m : metrics) {
      if (m == name) return Error{fmt::format("{} '{}' is given twice {}", where, name, AllowedGateMetrics())};
    }
    metrics.push_back(name);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return metrics;
}

}  // namespace

Result<void> LoadAbConfig(const ConfigInputs& in, const EnvReader& r, Config& c) {
  auto ab = r.OneOf("FVBENCH_AB", "", {"", "0", "1"}, "0 or 1");
  if (!ab) return ab.error();
  auto b_var = SetBVariable(r, c, *ab == "0");
  if (!b_var) return b_var.error();
  c.ab = *ab == "1" || !b_var->empty();
  c.edge_src_b = r.str("FAIRVISOR_EDGE_SRC_B", c.edge_src);
  c.edge_ref_b = r.str("FAIRVISOR_EDGE_REF_B", c.edge_ref);
  c.policy_dir_b = r.str("FVBENCH_POLICY_DIR_B", c.policy_dir);
  c.fv_dir_b = r.str("FV_DIR_B", c.fv_dir + "-b");
  auto gate = r.Flag("AB_GATE", c.ab_gate);
  if (!gate) return gate.error();
  c.ab_gate = *gate;
  auto gate_metrics = LoadGateMetrics(r, c.ab_gate);
  if (!gate_metrics) return gate_metrics.error();
  c.ab_gate_metrics = std::move(*gate_metrics);
  if (!c.ab && c.ab_gate) {
    // Without A/B mode no scenario has sides, so the gate would check nothing
    // and a CI job that forgot FVBENCH_AB=1 would read as gated.
    const std::string metrics =
        r.has("AB_GATE_METRICS") ? fmt::format(" (with AB_GATE_METRICS='{}')", r.str("AB_GATE_METRICS", "")) : "";
    return Error{fmt::format("AB_GATE=1{} is set but A/B mode is off (FVBENCH_AB is {} and no *_B variable is set): "
                             "the gate would check nothing; set FVBENCH_AB=1 or a *_B variable ({}) for an A/B run, "
                             "or unset AB_GATE",
                             metrics, *ab == "0" ? "0" : "unset", fmt::join(kBVars, ", "))};
  }
  if (!c.ab) return Ok();
  if (!r.has("REPEAT")) {
    c.repeat = 5;
  } else if (c.repeat < 3) {
    return Error{fmt::format("REPEAT='{}': A/B mode needs at least 3 pairs per phase (a confidence interval from "
                             "fewer is too wide to call anything; default 5)", r.str("REPEAT", ""))};
  }
  if (auto b = CheckSideB(in, c); !b) return b;
  auto fraction = r.Number("AB_RATE_FRACTION", c.ab_rate_fraction, {0, 1, true}, "a fraction of A's searched maximum, 0 < x <= 1");
  if (!fraction) return fraction.error();
  c.ab_rate_fraction = *fraction;
  return Ok();
}

}  // namespace fvbench::detail
