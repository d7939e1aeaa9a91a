// LoadConfig's pieces (config.cc calls them in this order). Each reads its
// variables through EnvReader into `c` and returns the first bad value as an
// Error naming the variable and the value. Internal to core/config*.cc.
#pragma once

#include <string>

#include "support/core/config.h"
#include "support/core/env_reader.h"

namespace fvbench::detail {

// An absolute directory path, lexically normal, not "/", without characters
// nginx configs and shell lines would misread. Returns the normal path.
Result<std::string> CheckedDir(const char* name, const std::string& value);
// A path that names an edge checkout on this machine (local mode): it exists
// and holds docker/nginx.conf.template. Err names `name` and what is missing.
Result<void> CheckLocalEdgeCheckout(const char* name, const std::string& dir, const ConfigInputs& in);

// config_paths.cc
Result<void> LoadDirs(const ConfigInputs& in, const EnvReader& r, Config& c);         // BENCH_DIR, FV_DIR
Result<void> LoadEdgeSource(const ConfigInputs& in, const EnvReader& r, Config& c);   // FAIRVISOR_EDGE_*, OPTIONAL
Result<void> LoadInputFiles(const ConfigInputs& in, const EnvReader& r, Config& c);   // policies, profile, ...

// config_numbers.cc
Result<void> LoadPorts(const EnvReader& r, Config& c);
Result<void> LoadLatency(const EnvReader& r, Config& c);     // LATENCY_*, WARMUP_DUR, HEALTH_TIMEOUT, LIMITS_*
Result<void> LoadLimits(const EnvReader& r, Config& c);      // LIMITS_KEYS, LIMITS_OVERLOAD, LIMITS_DUR, LIMITS_KEYS_SWEEP, LIMITS_KEYS_RPS
Result<void> LoadSearch(const EnvReader& r, Config& c);      // THROUGHPUT_*, STEP_DUR, CONFIRM_DUR
Result<void> LoadCounts(const EnvReader& r, Config& c);      // REPEAT, LOADGEN_CONNECTIONS
Result<void> LoadScenarioTimeout(const EnvReader& r, Config& c);

// config_profile.cc
Result<void> LoadProfile(const EnvReader& r, Config& c);     // FVBENCH_PROFILE, FVBENCH_PROFILE_DUR, _FRACTION, _HZ

// config_hosts.cc
Result<void> LoadInstalls(const EnvReader& r, Config& c);    // K6_VER, K6_SOURCE, K6_RELEASE_URL,
                                                             // FVBENCH_PACKAGE_LOCK_WAIT_S
Result<void> LoadRemote(const EnvReader& r, Config& c);      // *_REMOTE, FVBENCH_MODE, DRY_RUN, addresses
Result<void> LoadCpusets(const ConfigInputs& in, const EnvReader& r, Config& c);
Result<void> LoadSut(const EnvReader& r, Config& c);         // NGINX_RUNTIME, FAIRVISOR_WORKER_PROCESSES, LOG_LEVEL, NGINX_LISTEN_BACKLOG
Result<void> LoadEngine(const EnvReader& r, Config& c);      // LOADGEN_ENGINE and the SLO below its timeout
Result<void> LoadJwtSecret(const EnvReader& r, Config& c);   // FVBENCH_JWT_SECRET
Result<void> CheckLoadgenShares(const Config& c);            // each engine process's share of the latency phase

// config_ab.cc
Result<void> LoadAbConfig(const ConfigInputs& in, const EnvReader& r, Config& c);

}  // namespace fvbench::detail
