// LoadConfig's paths: the suite's directories, the edge source and the input
// files (config_parts.h).
#include <fmt/format.h>

#include <filesystem>

#include "support/core/command_values.h"
#include "support/core/config_parts.h"

namespace fvbench::detail {
namespace {

// A ctest-run test works in build/..., so a relative path would mislead.
Result<void> Absolute(const char* name, const std::string& v) {
  if (!v.empty() && v[0] == '/') return Ok();
  return Error{fmt::format("{}='{}': must be an absolute path (tests run in the build tree, not where ctest was "
                           "started)", name, v)};
}

}  // namespace

Result<std::string> CheckedDir(const char* name, const std::string& value) {
  if (value.empty() || value[0] != '/') return Error{fmt::format("{}='{}': must be an absolute path", name, value)};
  // Lexically normal ("/tmp/.." is "/"), without a trailing slash.
  std::string v = std::filesystem::path(value).lexically_normal().string();
  while (v.size() > 1 && v.back() == '/') v.pop_back();
  if (v == "/") return Error{fmt::format("{}='{}': refusing the root directory", name, value)};
  // The path is written into nginx configs and shell command lines.
  if (v.find_first_of(" \t\n\r'\";{}$`\\") != std::string::npos) {
    return Error{fmt::format("{}='{}': must not contain whitespace, quotes, ';', braces, '$', '`' or "
                             "backslashes (it is written into nginx configs)", name, value)};
  }
  return v;
}

Result<void> LoadDirs(const ConfigInputs& in, const EnvReader& r, Config& c) {
  if (c.bench_dir.empty()) c.bench_dir = DefaultBenchDir(in.uid);
  for (auto [name, val] : {std::pair{"BENCH_DIR", &c.bench_dir}, std::pair{"FV_DIR", &c.fv_dir}}) {
    // Set but empty (BENCH_DIR=$DIR with DIR unset) must not fall back to the default silently.
    if (r.set_but_empty(name)) {
      return Error{fmt::format("{}='': set but empty; unset it to use the default {}, or set an absolute path (an "
                               "empty variable is usually a script bug)", name, *val)};
    }
    auto dir = CheckedDir(name, r.str(name, *val));
    if (!dir) return dir.error();
    *val = *dir;
  }
  return Ok();
}

Result<void> CheckLocalEdgeCheckout(const char* name, const std::string& dir, const ConfigInputs& in) {
  if (!in.file_exists) return Ok();
  if (!in.file_exists(dir)) {
    return Error{fmt::format("{}='{}': no such file or directory on this machine (a path names an edge checkout here; "
                             "a git URL is cloned)", name, dir)};
  }
  if (!in.file_exists(dir + "/docker/nginx.conf.template")) {
    return Error{fmt::format("{}='{}': not a fairvisor edge checkout (no docker/nginx.conf.template)", name, dir)};
  }
  return Ok();
}

Result<void> LoadEdgeSource(const ConfigInputs& in, const EnvReader& r, Config& c) {
  auto optional = r.Flag("FVBENCH_EDGE_OPTIONAL", false);
  if (!optional) return optional.error();
  // Set but empty (FAIRVISOR_EDGE_SRC=$EDGE with EDGE unset) must not clone
  // upstream edge silently in place of the checkout meant.
  if (r.set_but_empty("FAIRVISOR_EDGE_SRC")) {
    return Error{fmt::format("FAIRVISOR_EDGE_SRC='': set but empty; unset it to use the default {}, or set an edge "
                             "checkout's absolute path or a git URL (an empty variable is usually a script bug)",
                             c.edge_src)};
  }
  c.edge_skipped = *optional && !r.has("FAIRVISOR_EDGE_SRC");
  c.edge_src = r.str("FAIRVISOR_EDGE_SRC", c.edge_src);
  c.edge_ref = r.str("FAIRVISOR_EDGE_REF", c.edge_ref);
  if (auto ref = CheckGitRef("FAIRVISOR_EDGE_REF", c.edge_ref); !ref) return ref;
  auto kind = CheckEdgeSource("FAIRVISOR_EDGE_SRC", c.edge_src);
  if (!kind) return kind.error();
  if (*kind == EdgeSourceKind::kUrl) return Ok();
  // A checkout used in place goes into nginx configs and shell lines like FV_DIR.
  auto dir = CheckedDir("FAIRVISOR_EDGE_SRC", c.edge_src);
  if (!dir) return dir.error();
  c.edge_src = *dir;
  // Remote mode: the path names a checkout on the SUT host (provision.h), not here.
  if (!c.remote()) return CheckLocalEdgeCheckout("FAIRVISOR_EDGE_SRC", c.edge_src, in);
  return Ok();
}

Result<void> LoadInputFiles(const ConfigInputs& in, const EnvReader& r, Config& c) {
  c.policy_dir = r.str("FVBENCH_POLICY_DIR", in.source_dir + "/fixtures/policies");
  c.thresholds = r.str("FVBENCH_THRESHOLDS", in.source_dir + "/thresholds/portable.json");
  c.reference = r.str("FVBENCH_REFERENCE", in.source_dir + "/reference.json");
  c.baseline = r.str("FVBENCH_BASELINE", "");  // validated as a results.json by the provision fixture (baseline.h)
  c.history = r.str("FVBENCH_HISTORY", "");  // support/history (docs/history.md "History and change points")
  for (auto [name, val] : {std::pair{"FVBENCH_POLICY_DIR", &c.policy_dir}, std::pair{"FVBENCH_THRESHOLDS", &c.thresholds},
                           std::pair{"FVBENCH_REFERENCE", &c.reference}, std::pair{"FVBENCH_BASELINE", &c.baseline}}) {
    if (val == &c.baseline && val->empty()) continue;
    if (auto a = Absolute(name, *val); !a) return a;
  }
  // An SQLite file is opened by the report and record steps, which run in
  // the build tree; a PostgreSQL URL is not a path (and may hold a password:
  // never echoed).
  const bool postgres = c.history.rfind("postgresql://", 0) == 0 || c.history.rfind("postgres://", 0) == 0;
  if (!c.history.empty() && !postgres) {
    if (auto a = Absolute("FVBENCH_HISTORY", c.history); !a) {
      return Error{a.error().message + "; or a postgresql:// URL"};
    }
  }
  if (!in.file_exists) return Ok();
  for (const char* p : kPolicyFiles) {
    std::string f = c.policy_dir + "/" + p;
    if (!in.file_exists(f)) return Error{fmt::format("FVBENCH_POLICY_DIR='{}': missing policy file {}", c.policy_dir, f)};
  }
  for (const char* f : {kLimitsPolicyFile, kLimitsKeysPolicyFile}) {
    if (c.limits && !in.file_exists(c.policy_dir + "/" + f)) {
      return Error{fmt::format("FVBENCH_POLICY_DIR='{}': missing policy file {}/{} (the limits scenarios' token "
                               "bucket; LIMITS=0 leaves them out)",
                               c.policy_dir, c.policy_dir, f)};
    }
  }
  for (auto [name, val] : {std::pair{"FVBENCH_THRESHOLDS", &c.thresholds}, std::pair{"FVBENCH_REFERENCE", &c.reference}}) {
    if (!in.file_exists(*val)) return Error{fmt::format("{}='{}': no such file", name, *val)};
  }
  return Ok();
}

}  // namespace fvbench::detail

namespace fvbench {

std::string DefaultBenchDir(unsigned uid) { return fmt::format("/tmp/fv-bench-{}", uid); }

}  // namespace fvbench
