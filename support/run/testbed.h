// Testbed: the hosts of one run and what was learned provisioning them.
// Local mode: one LocalHost plays the SUT and the load-generator role.
// Remote mode (FAIRVISOR_REMOTE and LOADGEN_REMOTE, both required): one
// SshHost per role (ssh_host.h; SSH_OPTS and ~/.ssh/config apply), the SUT
// host provisioned with ProvisionSut only, the loadgen with ProvisionLoadgen
// only. DRY_RUN=1: a DryRunHost per role (one for both in local mode) sharing
// one DryRunPlan; nothing is connected to, every command and transfer is
// recorded in order (dry_run_host.h); TakePlan() hands the lines out.
//
// Shipped under BENCH_DIR on the hosts (WriteFile, in both modes):
//   loadgen: BENCH_DIR/scripts/   the engine's static scripts (k6/*.js side by
//            side, so `import './common.js'` resolves; or wrk's pace.lua)
//   SUT:     BENCH_DIR/policies/  simple.json complex.json llm.json from
//            FVBENCH_POLICY_DIR; FAIRVISOR_CONFIG_FILE points here
// fairvisor edge in remote mode: a git URL is cloned on the SUT host; a path
// in FAIRVISOR_EDGE_SRC names a checkout ON THE SUT HOST (used in place, or
// cloned from when FAIRVISOR_EDGE_REF is set). Checkouts are never copied
// from the controller: a path missing on the SUT host stops provisioning
// with an Error naming the host (the namespace test hosts share this
// machine's filesystem, so a local path works there as is).
// k6 on a remote loadgen: when `k6` is not on the non-interactive PATH of
// the ssh session (k6 installed into /usr/local/bin is, on Debian), commands
// get PATH=<dir of the k6 found>:/usr/local/bin:/usr/bin:/bin.
//
// The load generators are one list (loadgens(), run/loadgen_hosts.h): each
// entry LOADGEN_REMOTE's target (this machine in local mode), its host, what
// provisioning learned there (CPUs, taskset, boot_id), the engine's cpuset
// there and each process's part of it.
//
// CPU pinning: local mode uses Config's split (config.h). Remote mode: per
// host, ORESTY_CPUSET / K6_CPUSET as given; when unset, split 50/50 of THAT
// host's cores when it has taskset and >= 8 cores (SUT: first half for nginx,
// each loadgen: the second half of its own for the engine; loadgen_hosts.h).
// Config is never written: the cpusets applied live here, the engine's in
// the list and the SUT's in sut_cpuset() (which the SUT's services are
// pinned to), so config() is what was loaded. PinningNote() and Meta() say
// what and why, naming every host.
//
// One machine: the controller and every host's kernel boot_id are compared.
// A loadgen host on the SUT's kernel (containers, network namespaces) shares
// its CPUs as local mode's engine does: core_sharing() says how (the phase's
// loadgen_cpu is then informational where it counts the SUT's work, the
// shared_cores note is added), and PinningNote() and Meta() name the
// machine. With the controller on the SUT's kernel too, this process keeps
// off the SUT's CPUs as in local mode (KeepControllerOffSutCpus).
//
// Open() provisions both roles (idempotent: on an already provisioned host it
// only checks versions, see provision.h), ships the files above, creates the
// load engine and the directories. Provisioning happens once per run: the
// process that provisioned (the fixture fvbench.provision) records it in
// BENCH_DIR/controller-results/testbed_state.json, and a later process of
// the same configuration reuses it after one fingerprint command per host
// (testbed_state.h; provisioning_note() says which). The directories:
//   BENCH_DIR/results/             raw engine outputs and request bodies, on the loadgen host
//   BENCH_DIR/controller-results/  per-scenario results (<id>.json) and raw copies (raw/), on the controller
//   BENCH_DIR/run/<service>/       rendered configs and logs, on the SUT host
//   BENCH_DIR/report/              the end-of-run report, on the controller
// Before anything is written there, BENCH_DIR and these folders are checked
// on every host (core/private_dirs.h: directories of the user fvbench runs
// as, not writable by others; the directories above BENCH_DIR owned by root
// or that user) and created where missing (host/dir_check.h), with the
// modes of core/bench_layout.h's ControllerFolders / LoadgenFolders / SutFolders: BENCH_DIR 0711
// (no one else may list it or create in it; nginx workers running as another
// user, nobody when the SUT runs as root, reach the policies and temp
// folders below by name), folders only fvbench reads 0700.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "support/core/bench_layout.h"
#include "support/core/config.h"
#include "support/core/host_environment.h"
#include "support/core/private_dirs.h"
#include "support/host/dry_run_host.h"
#include "support/run/loadgen_hosts.h"
#include "support/host/host.h"
#include "support/engine/load_engine.h"
#include "support/sut/provision.h"
#include "support/core/result.h"
#include "support/core/run_meta.h"
#include "support/core/run_plan.h"

namespace fvbench {

class Testbed {
 public:
  // kReuse: a later process of the run reuses the provisioning recorded by
  // the first after checking each host; kProvision: provision (the fixture
  // fvbench.provision, which starts a run: it removes the record first).
  enum class Provisioning { kReuse, kProvision };

  // Err names the host and step that failed (unreachable host, failed install...).
  static Result<std::unique_ptr<Testbed>> Open(const Config& config, Provisioning p = Provisioning::kReuse);

  // Opens the connection to one remote host; role is "SUT" or "loadgen",
  // destination FAIRVISOR_REMOTE / LOADGEN_REMOTE. The default connects an
  // SshHost (LoadSshTarget with SSH_OPTS, then SshHost::Connect).
  using HostConnector = std::function<Result<std::unique_ptr<Host>>(
      const std::string& role, const std::string& destination, const Config& config)>;
  static Result<std::unique_ptr<Testbed>> Open(const Config& config, const HostConnector& connect,
                                                Provisioning p = Provisioning::kReuse);

  // A Testbed on hosts that are already open and provisioned (the flow tests'
  // fake hosts): Open without connecting or provisioning; `info` is what
  // provisioning would have learned. Ships the files, makes the engine and
  // the directories as Open does. The hosts are not owned and must outlive
  // the Testbed; not for DRY_RUN (Error).
  static Result<std::unique_ptr<Testbed>> OnHosts(const Config& config, Host& sut, Host& loadgen,
                                                  const ProvisionInfo& sut_info,
                                                  const ProvisionInfo& loadgen_info);

  // The configuration as loaded, and what it resolves to (run_plan.h).
  const Config& config() const { return config_; }
  const RunPlan& run_plan() const { return run_plan_; }
  Host& sut() { return *sut_; }
  LoadEngine& engine() { return *engine_; }
  const ProvisionInfo& sut_info() const { return sut_info_; }
  // Every load generator, in LOADGEN_REMOTE's order (one in local mode).
  const std::vector<LoadgenHost>& loadgens() const { return loadgens_; }
  // The first of them: the host the phase monitor samples, and the one
  // engine of a phase that one process drives.
  Host& loadgen() { return *loadgens_.front().host; }
  const ProvisionInfo& loadgen_info() const { return loadgens_.front().info; }
  // How the engine and the SUT share one machine's cores (validity.h
  // PhaseContext::sharing): local mode, or a loadgen host on the SUT's kernel;
  // "" when they do not.
  const std::string& core_sharing() const { return core_sharing_; }
  // A/B mode (Config::ab): side B's edge tree on the SUT host, provisioned
  // like A's from FAIRVISOR_EDGE_SRC_B / FAIRVISOR_EDGE_REF_B into FV_DIR_B
  // (a local path without a ref is used in place); A's own info when B's
  // source and ref are A's (Config::ab_same_edge). B's policies are shipped
  // from FVBENCH_POLICY_DIR_B to policy_dir_b().
  const ProvisionInfo& sut_info_b() const { return config_.ab && !config_.ab_same_edge() ? sut_info_b_ : sut_info_; }
  bool edge_available() const { return edge_available_; }
  // How this process came by its hosts' provisioning: "provisioning of this
  // run reused: ..." (an earlier process's, checked), or "provisioned (why
  // not reused)"; "" in DRY_RUN.
  const std::string& provisioning_note() const { return provisioning_note_; }
  // How commands reach each SSH host ("SUT root@h: commands through one
  // runner process ..." or why each takes an exec channel), one line per
  // host; empty in local mode and DRY_RUN.
  std::vector<std::string> CommandPathNotes() const;
  // What was applied for pinning, for the report: "sut=0-3 engine=4-7 (auto)"
  // or "unpinned: the engine and the SUT share all cores".
  std::string PinningNote() const;
  RunMeta Meta() const;
  // The CPUs the SUT's nginx / the load engine on the first loadgen host may
  // use, as a CPU list: the cpuset when pinned, else the host's usable CPUs
  // (ProvisionInfo::cpus: affinity within the cgroup cpuset); "" when
  // unknown. The SUT's busy share per core and the engine's busy share are
  // taken over these.
  std::string sut_cpus() const;
  // The cpuset the SUT's nginx processes are pinned to ("" = unpinned):
  // local mode Config's ORESTY_CPUSET (or its 50/50 split); remote mode
  // ORESTY_CPUSET checked on the SUT host, or the first half of its CPUs
  // (detail::SutCpusetOf).
  const std::string& sut_cpuset() const { return sut_cpuset_; }
  // The machine facts of the SUT host, then of each loadgen host that is
  // another host (core/host_environment.h; sut/environment_probe.h), read
  // once by the process that provisions (which writes the run meta) and
  // kept with its record for the later processes that reuse it
  // (testbed_state.h); Meta() carries them. A loadgen on the SUT's host
  // (local mode) is that host's facts again under the role "loadgen",
  // without the SUT runtime's keys (one probe read them). Empty in DRY_RUN (the probes are in
  // the plan; a dry-run host answers nothing, so nothing is recorded) and
  // for a Testbed OnHosts.
  const std::vector<HostEnvironment>& environments() const { return environments_; }
  // Replaces them: the flow tests' synthetic facts (OnHosts reads none).
  void set_environments(std::vector<HostEnvironment> envs) { environments_ = std::move(envs); }
  std::string loadgen_cpus() const { return loadgens_.front().engine_cpus(); }

  // BENCH_DIR's paths (core/bench_layout.h) for this run.
  std::string controller_dir() const { return layout::ControllerDir(config_.bench_dir); }
  // Where the engines keep the raw outputs on the controller; DRY_RUN=1:
  // controller-results/dry-run/raw, so that a dry run overwrites nothing of
  // a measured run (bench_layout.h).
  std::string raw_dir() const {
    return config_.dry_run ? layout::DryRunRawDir(config_.bench_dir) : layout::RawDir(config_.bench_dir);
  }
  std::string loadgen_dir() const { return layout::LoadgenResultsDir(config_.bench_dir); }  // on the loadgen hosts
  std::string report_dir() const { return layout::ReportDir(config_.bench_dir); }
  std::string scripts_dir() const { return layout::ScriptsDir(config_.bench_dir); }  // on the loadgen hosts
  std::string policy_dir() const { return layout::PolicyDir(config_.bench_dir, false); }  // on the SUT host
  std::string policy_dir_b() const { return layout::PolicyDir(config_.bench_dir, true); }  // A/B side B, on the SUT host
  std::string plan_path() const { return layout::PlanPath(config_.bench_dir); }
  // The run's last measured loadgen launch (judge/loadgen_start.h), kept
  // across scenario processes.
  std::string lead_path() const {
    return config_.dry_run ? layout::DryRunLeadPath(config_.bench_dir) : layout::LeadPath(config_.bench_dir);
  }

  // DRY_RUN: the plan lines recorded since the last call, secrets redacted
  // (detail::RedactPlan), each ending in '\n'. Empty when not a dry run.
  std::string TakePlan();
  // Appends "# <title>\n" + text to plan_path() (truncating first when
  // `truncate`), and prints both to stdout.
  Result<void> WritePlanSection(const std::string& title, const std::string& text, bool truncate) const;

 private:
  Testbed() = default;
  // The pieces of Open, in order.
  Result<void> ConnectHosts(const HostConnector& connect);
  Result<void> CheckHostDirs();
  Result<void> ProvisionHosts();
  Result<void> ProvisionLoadgens();
  void ReadControllerBootId();
  void ReadEnvironments();
  Result<void> PinHosts();
  void KeepControllerOffSutCpus();
  void FindRemoteK6(LoadgenHost& lg);
  // A file ShipFiles puts on a host (to the SUT's role or a loadgen's).
  struct Shipment {
    Host* host;
    bool to_sut;
    std::string local;   // on the controller
    std::string remote;  // on the host
    int mode;
    std::string what;    // for messages
  };
  std::vector<Shipment> Shipments() const;
  Result<void> ShipFiles();
  // A host provisioning covers: its role, what it learned, what was shipped.
  struct Provisioned {
    std::string role;  // "sut", "sut_b", "loadgen"
    Host* host;
    ProvisionInfo* info;
    std::vector<std::string> files;
  };
  std::vector<Provisioned> ProvisionedHosts();
  bool ReuseProvisioning(const std::string& key);
  void SaveProvisioning(const std::string& key);
  std::string provisioning_note_;  // provisioning_note()
  Result<void> MakeEngine();
  Result<void> MakeDirs();
  Config config_;
  RunPlan run_plan_;
  std::unique_ptr<Host> owned_host_;
  std::shared_ptr<DryRunPlan> plan_;
  size_t plan_taken_ = 0;
  std::string pinning_;  // PinningNote() in remote / dry-run mode
  std::string controller_note_;  // pinned on the SUT's machine: where this process (its sampling commands) runs
  Host* sut_ = nullptr;
  std::vector<LoadgenHost> loadgens_;
  std::unique_ptr<LoadEngine> engine_;
  HostConnector connect_;  // Open's connector: more connections to a loadgen host (LOADGEN_PROCS_PER_HOST)
  std::vector<std::unique_ptr<Host>> loadgen_connections_;  // those connections
  ProvisionInfo sut_info_;
  std::string controller_boot_id_;  // this machine's kernel boot_id ("" unknown, dry run)
  std::string core_sharing_;        // core_sharing()
  std::string machine_note_;        // MachineNote(): which hosts are one machine
  std::string sut_cpuset_;          // sut_cpuset()
  std::vector<HostEnvironment> environments_;  // environments()
  bool sut_cpuset_auto_ = false;    // an automatic split (local mode: Config's cpusets_auto)
  ProvisionInfo sut_info_b_;  // A/B side B (sut_info_b())
  bool edge_available_ = true;
};

// BENCH_DIR and the controller's folders on this machine, checked and made
// (host/dir_check.h); every controller process calls it before writing
// there (provision, report, each scenario through Testbed::Open).
Result<void> PrepareControllerDirs(const Config& config);

namespace detail {
// RedactSecrets (jwt.h): the bench JWT secret and the tokens made from it replaced.
std::string RedactPlan(std::string text);
// A cpuset given for a remote host must name CPUs its processes may use.
Result<void> CheckCpusetOnHost(const char* name, const std::string& cpuset, const std::vector<int>& usable,
                               const std::string& host);
// The SUT's cpuset (Testbed::sut_cpuset) and whether it is an automatic
// split, from Config and what provisioning learned on the SUT host `host`.
// Pure: Config is read, never written. Error: ORESTY_CPUSET names a CPU the
// remote SUT host may not use (not checked in a dry run).
struct SutCpuset {
  std::string cpuset;
  bool automatic = false;
};
Result<SutCpuset> SutCpusetOf(const Config& c, const ProvisionInfo& sut, const std::string& host);
}  // namespace detail

// Reads the configuration from the process environment (LoadConfig) with this
// machine's core count and real file checks.
Result<Config> ConfigFromEnvironment();

}  // namespace fvbench
