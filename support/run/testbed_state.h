// What provisioning established, kept for the later processes of the same
// run: BENCH_DIR/controller-results/testbed_state.json, written by the
// process that provisioned (the CTest fixture fvbench.provision) and read by
// each scenario process, which then connects, runs one fingerprint command
// per host (ProvisionFingerprintScript, provision.h: one round trip) and
// reuses the hosts' ProvisionInfo when every output is the one recorded and
// the configuration and shipped files are the ones provisioned for (`key`).
// Anything else (another configuration, a host re-installed or rebooted, a
// file changed or missing, an unreadable state) means provisioning again, as
// before: the state only ever saves work, never trusts more than the check.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/core/config.h"
#include "support/core/host_environment.h"
#include "support/core/result.h"
#include "support/sut/provision.h"

namespace fvbench {

// One host of the testbed as provisioning left it.
struct HostRecord {
  std::string role;         // "sut", "sut_b" (A/B side B's edge), "loadgen"
  std::string host;         // Host::name()
  ProvisionInfo info;       // what provisioning learned
  std::vector<std::string> files;  // the files shipped there (remote paths), in the fingerprint
  std::string fingerprint;  // ProvisionFingerprintScript's output after provisioning
};

struct TestbedState {
  std::string key;  // ProvisionKey() of the configuration provisioned for
  std::vector<HostRecord> hosts;
  // The hosts' machine facts read at provisioning (Testbed::environments()):
  // a later process reuses them with the rest, for its preflight lint.
  std::vector<HostEnvironment> environments;
};

// The configuration that provisioning and shipping depend on, as text: hosts
// and SSH options, engine and runtime, edge source/ref/dir (and side B's),
// BENCH_DIR, pins given, perf when FVBENCH_PROFILE needs it; `shipped_digest` is the SHA-256 of the local files
// shipped (LocalFilesDigest).
std::string ProvisionKey(const Config& c, const std::string& shipped_digest);

// SHA-256 (hex) over the paths and contents of local files; Err names an
// unreadable one.
Result<std::string> LocalFilesDigest(const std::vector<std::string>& paths);

std::string TestbedStateToJson(const TestbedState& s);
// Err (naming `source`) for text that is not a state of this schema.
Result<TestbedState> TestbedStateFromJson(std::string_view text, const std::string& source);

}  // namespace fvbench
