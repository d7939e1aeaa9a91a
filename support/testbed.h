// Testbed: the hosts of one run and what was learned provisioning them.
// Local mode: one LocalHost plays the SUT and the load-generator role.
// Remote mode (FAIRVISOR_REMOTE / LOADGEN_REMOTE) needs the SSH host.
//
// Open() provisions both roles (idempotent: on an already provisioned host it
// only checks versions, see provision.h), creates the load engine and the
// directories:
//   BENCH_DIR/results/             raw engine outputs and request bodies, on the loadgen host
//   BENCH_DIR/controller-results/  per-scenario results (<id>.json) and raw copies (raw/), on the controller
//   BENCH_DIR/run/<service>/       rendered configs and logs, on the SUT host
//   BENCH_DIR/report/              the end-of-run report, on the controller
#pragma once

#include <memory>
#include <string>

#include "support/config.h"
#include "support/host.h"
#include "support/load_engine.h"
#include "support/provision.h"
#include "support/result.h"
#include "support/run_meta.h"

namespace fvbench {

class Testbed {
 public:
  // Err names the host and step that failed (unreachable host, failed install...).
  static Result<std::unique_ptr<Testbed>> Open(const Config& config);

  const Config& config() const { return config_; }
  Host& sut() { return *sut_; }
  Host& loadgen() { return *loadgen_; }
  LoadEngine& engine() { return *engine_; }
  const ProvisionInfo& sut_info() const { return sut_info_; }
  const ProvisionInfo& loadgen_info() const { return loadgen_info_; }
  bool edge_available() const { return edge_available_; }
  // What was applied for pinning, for the report: "sut=0-3 engine=4-7 (auto)"
  // or "unpinned: the engine and the SUT share all cores".
  std::string PinningNote() const;
  RunMeta Meta() const;

  std::string controller_dir() const { return config_.bench_dir + "/controller-results"; }
  std::string raw_dir() const { return controller_dir() + "/raw"; }
  std::string loadgen_dir() const { return config_.bench_dir + "/results"; }
  std::string report_dir() const { return config_.bench_dir + "/report"; }

 private:
  Testbed() = default;
  Config config_;
  std::unique_ptr<Host> owned_host_;
  Host* sut_ = nullptr;
  Host* loadgen_ = nullptr;
  std::unique_ptr<LoadEngine> engine_;
  ProvisionInfo sut_info_;
  ProvisionInfo loadgen_info_;
  bool edge_available_ = true;
};

// Reads the configuration from the process environment (LoadConfig) with this
// machine's core count and real file checks.
Result<Config> ConfigFromEnvironment();

}  // namespace fvbench
