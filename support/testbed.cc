#include "support/testbed.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "support/json_fields.h"
#include "support/local_host.h"

namespace fvbench {

Result<Config> ConfigFromEnvironment() {
  ConfigInputs in;
  in.env = CurrentEnvironment();
  in.source_dir = FVBENCH_SOURCE_DIR;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  in.cores = cores > 0 ? static_cast<int>(cores) : 1;
  in.have_taskset = access("/usr/bin/taskset", X_OK) == 0 || access("/bin/taskset", X_OK) == 0;
  in.file_exists = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
  };
  return LoadConfig(in);
}

Result<std::unique_ptr<Testbed>> Testbed::Open(const Config& config) {
  if (config.remote()) {
    return Error{fmt::format(
        "FAIRVISOR_REMOTE='{}' / LOADGEN_REMOTE='{}': remote mode needs the SSH host, which this "
        "build does not have yet; unset both to run locally",
        config.fairvisor_remote, config.loadgen_remote)};
  }
  if (config.dry_run) {
    return Error{"DRY_RUN=1: the dry-run plan belongs to remote mode and is not built yet; unset DRY_RUN"};
  }
  std::unique_ptr<Testbed> tb(new Testbed());
  tb->config_ = config;
  tb->owned_host_ = std::make_unique<LocalHost>();
  tb->sut_ = tb->owned_host_.get();
  tb->loadgen_ = tb->owned_host_.get();
  tb->edge_available_ = !config.edge_skipped;

  auto sut = ProvisionSut(*tb->sut_, config);
  if (!sut) return Error{fmt::format("provisioning the SUT host ({}): {}", tb->sut_->name(), sut.error().message)};
  tb->sut_info_ = *sut;
  auto lg = ProvisionLoadgen(*tb->loadgen_, config);
  if (!lg) {
    return Error{fmt::format("provisioning the load-generator host ({}): {}", tb->loadgen_->name(),
                             lg.error().message)};
  }
  tb->loadgen_info_ = *lg;

  // The engine runs copies of the suite's static scripts shipped to
  // BENCH_DIR/scripts on the loadgen host, so the scripts actually run are
  // kept with the results (as the seed kept its generated ones).
  const std::string scripts = config.bench_dir + "/scripts";
  const bool k6 = config.engine == Engine::kK6;
  const std::vector<std::string> files =
      k6 ? std::vector<std::string>{"k6/common.js", "k6/constant_rate.js", "k6/warmup.js"}
         : std::vector<std::string>{"support/wrk/pace.lua"};
  for (const std::string& f : files) {
    auto text = detail::ReadTextFile(config.source_dir + "/" + f);
    if (!text) return Error{"shipping engine scripts: " + text.error().message};
    std::string dest = scripts + "/" + std::filesystem::path(f).filename().string();
    if (auto w = tb->loadgen_->write_file(dest, *text, 0644); !w) {
      return Error{fmt::format("shipping engine scripts to {}: {}", tb->loadgen_->name(), w.error().message)};
    }
  }
  tb->engine_ = k6 ? MakeK6Engine(*tb->loadgen_, scripts) : MakeWrkEngine(*tb->loadgen_, scripts);
  std::error_code ec;
  for (const std::string& d : {tb->controller_dir(), tb->raw_dir(), tb->loadgen_dir(), tb->report_dir()}) {
    std::filesystem::create_directories(d, ec);
    if (ec) return Error{fmt::format("BENCH_DIR: cannot create {}: {}", d, ec.message())};
  }
  return tb;
}

std::string Testbed::PinningNote() const {
  const Config& c = config_;
  if (c.oresty_cpuset.empty() && c.k6_cpuset.empty()) {
    return c.remote() ? "unpinned" : "unpinned: the load engine and the SUT share all cores";
  }
  return fmt::format("nginx cpuset={} engine cpuset={}{}", c.oresty_cpuset.empty() ? "all" : c.oresty_cpuset,
                     c.k6_cpuset.empty() ? "all" : c.k6_cpuset, c.cpusets_auto ? " (auto 50/50 split)" : "");
}

RunMeta Testbed::Meta() const {
  RunMeta m;
  m.fvbench_version = "0.1.0";
  m.engine = loadgen_info_.engine;
  m.engine_version = loadgen_info_.engine_version;
  m.sut_runtime = sut_info_.runtime;
  m.sut_runtime_version = sut_info_.runtime_version;
  m.lua_module_version = sut_info_.lua_module_version;
  m.edge_source = edge_available_ ? config_.edge_src : "";
  m.edge_commit = sut_info_.edge_commit + (sut_info_.edge_dirty ? " (dirty)" : "");
  m.mode = config_.remote() ? "remote" : "local";
  m.sut_host = sut_->name();
  m.loadgen_host = loadgen_->name();
  m.sut_cores = sut_info_.cores;
  m.loadgen_cores = loadgen_info_.cores;
  m.sut_cpuset = config_.oresty_cpuset;
  m.loadgen_cpuset = config_.k6_cpuset;
  m.cpusets_auto = config_.cpusets_auto;
  m.latency_rps = config_.latency_rps;
  m.latency_dur_s = config_.latency_dur_s;
  m.warmup_s = config_.warmup_dur_s;
  m.step_dur_s = config_.step_dur_s;
  m.search_max = config_.throughput_search_max;
  m.thresholds_profile = config_.thresholds;
  m.reference_source = config_.reference;
  return m;
}

}  // namespace fvbench
