#include "support/run/testbed.h"

#include "support/run/loadgen_processes.h"
#include "support/run/testbed_state.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <algorithm>
#include <filesystem>
#include <future>
#include <thread>
#include <vector>

#include "support/core/cpu_list.h"
#include "support/core/json_fields.h"
#include "support/engine/jwt.h"
#include "support/engine/k6_engine.h"
#include "support/judge/throughput_search.h"
#include "support/host/dir_check.h"
#include "support/host/local_host.h"
#include "support/host/usable_cpus.h"
#include "support/host/ssh_host.h"
#include "support/sut/environment_probe.h"
#include "support/sut/nginx_conf.h"
#include "fvbench/k6_reduce_bin.h"
#include "fvbench/source_dir.h"

namespace fvbench {

Result<Config> ConfigFromEnvironment() {
  ConfigInputs in;
  in.env = CurrentEnvironment();
  in.source_dir = FVBENCH_SOURCE_DIR;
  in.cpus = UsableCpusOfThisProcess();  // affinity within the cgroup cpuset, not the online count
  in.cores = static_cast<int>(in.cpus.size());
  in.have_taskset = access("/usr/bin/taskset", X_OK) == 0 || access("/bin/taskset", X_OK) == 0;
  in.file_exists = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
  };
  in.uid = static_cast<unsigned>(::geteuid());
  auto config = LoadConfig(in);
  if (config) SetBenchJwtSecret(config->jwt_secret);
  return config;
}

namespace {

// Forwards to a host, adding PATH to every command that does not set one
// (k6 installed off the ssh session's PATH).
class PathHost : public Host {
 public:
  PathHost(Host& inner, std::string path) : inner_(inner), path_(std::move(path)) {}
  // Owning `inner` (a further connection opened for one engine process).
  PathHost(std::unique_ptr<Host> inner, std::string path)
      : owned_(std::move(inner)), inner_(*owned_), path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  std::string name() const override { return inner_.name(); }
  Result<ExecResult> Run(const Command& cmd) override { return inner_.Run(WithPath(cmd)); }
  Result<void> WriteFile(const std::string& p, const std::string& c, int mode) override {
    return inner_.WriteFile(p, c, mode);
  }
  Result<std::string> ReadFile(const std::string& p, const FileCap& cap) override {
    return inner_.ReadFile(p, cap);
  }
  Result<void> Fetch(const std::string& r, const std::string& l, const FileCap& cap) override {
    return inner_.Fetch(r, l, cap);
  }
  Result<ServiceHandle> StartService(const std::string& n, const Command& cmd, const std::string& o,
                                      const std::string& e) override {
    return inner_.StartService(n, WithPath(cmd), o, e);
  }
  Result<void> StopService(const ServiceHandle& s, std::chrono::milliseconds g) override {
    return inner_.StopService(s, g);
  }
  bool IsAlive(const ServiceHandle& s) override { return inner_.IsAlive(s); }
  Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds timeout) override {
    return inner_.ExchangeClock(rounds, timeout);
  }

 private:
  Command WithPath(Command cmd) const {
    cmd.env.emplace("PATH", path_);
    return cmd;
  }
  std::unique_ptr<Host> owned_;
  Host& inner_;
  std::string path_;
};

// DRY_RUN: the real engine records its commands on the dry-run host; the
// output it would parse does not exist, so once its load command is in the
// plan a placeholder result at the target rate stands in (every search step
// "passes": the plan shows the longest search). Nothing of it is reported.
class DryRunEngine : public LoadEngine {
 public:
  DryRunEngine(std::unique_ptr<LoadEngine> inner, std::shared_ptr<DryRunPlan> plan)
      : inner_(std::move(inner)), plan_(std::move(plan)) {}
  std::string name() const override { return inner_->name(); }
  Result<std::string> Version() override { return inner_->name() + " (dry run: version not asked)"; }
  Result<void> Warmup(const LoadSpec& spec, const std::string& remote_dir) override {
    return inner_->Warmup(spec, remote_dir);
  }
  Result<LoadResult> Run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    const size_t before = plan_->lines().size();
    auto r = inner_->Run(spec, remote_dir, controller_dir);
    const std::vector<std::string> lines = plan_->lines();
    const std::string mark = inner_->name() == "k6" ? "k6 run " : "wrk -t";
    bool ran = false;
    for (size_t i = before; i < lines.size(); ++i) {
      if (lines[i].find("] run: ") != std::string::npos && lines[i].find(mark) != std::string::npos) ran = true;
    }
    if (!ran) {
      if (!r) return r.error();
      return Error{fmt::format("dry run: the {} command of phase {} was not planned", inner_->name(), spec.phase)};
    }
    plan_->add(fmt::format("[controller] parse: {}/{}.json (dry run: no output, nothing measured)",
                           controller_dir, spec.phase));
    LoadResult p;
    p.engine = inner_->name();
    p.target_rps = spec.rate_rps;
    p.duration_s = spec.duration_s;
    p.requests = static_cast<uint64_t>(spec.rate_rps * spec.duration_s);
    p.achieved_rps = spec.rate_rps;
    return p;
  }

 private:
  std::unique_ptr<LoadEngine> inner_;
  std::shared_ptr<DryRunPlan> plan_;
};

// The ssh settings a host of `role` is reached with: the destination, SSH_OPTS
// and the user's ssh config, resolved; no connection.
Result<SshTarget> SshSettings(const std::string& role, const std::string& destination, const Config& config) {
  auto target = LoadSshTarget(destination, config.ssh_opts);
  if (!target) {
    return Error{fmt::format("{} host {}: ssh settings (SSH_OPTS / ~/.ssh/config): {}", role, destination,
                             target.error().message)};
  }
  return target;
}

Result<std::unique_ptr<Host>> ConnectSsh(const std::string& role, const std::string& destination,
                                         const Config& config) {
  auto target = SshSettings(role, destination, config);
  if (!target) return target.error();
  auto host = SshHost::Connect(*target);
  if (!host) return Error{fmt::format("{} host: {}", role, host.error().message)};  // names the target
  return std::unique_ptr<Host>(std::move(*host));
}

}  // namespace

namespace detail {

std::string RedactPlan(std::string text) { return RedactSecrets(std::move(text)); }

Result<void> CheckCpusetOnHost(const char* name, const std::string& cpuset, const std::vector<int>& usable,
                               const std::string& host) {
  if (cpuset.empty() || usable.empty()) return Ok();
  auto cpus = ParseCpuList(cpuset);
  if (!cpus) return Error{fmt::format("{}='{}': {}", name, cpuset, cpus.error().message)};
  for (int cpu : *cpus) {
    if (std::binary_search(usable.begin(), usable.end(), cpu)) continue;
    return Error{fmt::format("{}='{}': CPU {} does not exist or may not be used on host {} (its processes may use "
                             "CPUs {}: their affinity within their cgroup's cpuset)",
                             name, cpuset, cpu, host, FormatCpuList(usable))};
  }
  return Ok();
}

Result<SutCpuset> SutCpusetOf(const Config& c, const ProvisionInfo& sut, const std::string& host) {
  if (!c.remote()) return SutCpuset{c.oresty_cpuset, c.cpusets_auto};
  if (!c.dry_run) {
    if (auto e = CheckCpusetOnHost("ORESTY_CPUSET", c.oresty_cpuset, sut.cpus, host); !e) return e.error();
  }
  if (!c.oresty_cpuset.empty()) return SutCpuset{c.oresty_cpuset, false};
  SutCpuset split{AutoCpuset(sut.cpus, sut.have_taskset, true), false};
  split.automatic = !split.cpuset.empty();
  return split;
}

}  // namespace detail

Result<std::unique_ptr<Testbed>> Testbed::Open(const Config& config, Provisioning p) {
  return Open(config, ConnectSsh, p);
}

Result<std::unique_ptr<Testbed>> Testbed::Open(const Config& config, const HostConnector& connect, Provisioning p) {
  const bool remote = config.remote();
  if (remote && (config.fairvisor_remote.empty() || config.loadgen_remotes.empty())) {
    return Error{fmt::format("remote mode needs both hosts: FAIRVISOR_REMOTE='{}' LOADGEN_REMOTE='{}' ({} is missing)",
                             config.fairvisor_remote, config.LoadgenRemoteText(),
                             config.fairvisor_remote.empty() ? "FAIRVISOR_REMOTE" : "LOADGEN_REMOTE")};
  }
  SetBenchJwtSecret(config.jwt_secret);  // the token sent and what RedactSecrets hides
  std::unique_ptr<Testbed> tb(new Testbed());
  tb->config_ = config;
  tb->run_plan_ = RunPlanOf(config);
  tb->edge_available_ = !config.edge_skipped;
  tb->connect_ = connect;
  if (auto r = tb->ConnectHosts(connect); !r) return r.error();
  if (auto r = tb->CheckHostDirs(); !r) return r.error();
  // The controller's folders too, before the record of an earlier process
  // is read or removed there.
  if (auto r = tb->MakeDirs(); !r) return r.error();
  // Provisioning once per run: a later process reuses the first one's after
  // checking each host (testbed_state.h); the key is the configuration as
  // given (before PinHosts fills in automatic cpusets).
  std::string key;
  bool reused = false;
  if (!config.dry_run && p == Provisioning::kProvision) {
    std::error_code ec;
    std::filesystem::remove(layout::TestbedStatePath(tb->config().bench_dir), ec);
    tb->provisioning_note_ = "provisioned (the run's first process)";
  }
  if (!config.dry_run) {
    std::vector<std::string> locals;
    for (const Shipment& s : tb->Shipments()) locals.push_back(s.local);
    auto digest = LocalFilesDigest(locals);
    if (digest) {
      key = ProvisionKey(config, *digest);
      reused = p == Provisioning::kReuse && tb->ReuseProvisioning(key);
    } else {
      tb->provisioning_note_ = "provisioned (" + digest.error().message + ")";
    }
  }
  if (!reused) {
    if (auto r = tb->ProvisionHosts(); !r) return r.error();
    tb->ReadEnvironments();
  }
  if (!config.dry_run) tb->ReadControllerBootId();
  if (auto r = tb->PinHosts(); !r) return r.error();
  if (!config.dry_run) tb->KeepControllerOffSutCpus();
  if (remote && config.engine == Engine::kK6 && !config.dry_run) {
    for (LoadgenHost& lg : tb->loadgens_) tb->FindRemoteK6(lg);
  }
  if (!reused) {
    if (auto r = tb->ShipFiles(); !r) return r.error();
  }
  if (auto r = tb->MakeEngine(); !r) return r.error();
  if (!reused && !key.empty()) tb->SaveProvisioning(key);
  return tb;
}

Result<std::unique_ptr<Testbed>> Testbed::OnHosts(const Config& config, Host& sut, Host& loadgen,
                                                  const ProvisionInfo& sut_info, const ProvisionInfo& loadgen_info) {
  if (config.dry_run) return Error{"Testbed::OnHosts: not for DRY_RUN (use Open)"};
  std::unique_ptr<Testbed> tb(new Testbed());
  tb->config_ = config;
  tb->run_plan_ = RunPlanOf(config);
  tb->edge_available_ = !config.edge_skipped;
  tb->sut_ = &sut;
  tb->sut_info_ = sut_info;
  LoadgenHost lg;
  lg.target = config.remote() ? loadgen.name() : "local";
  lg.host = &loadgen;
  lg.info = loadgen_info;
  tb->loadgens_.push_back(std::move(lg));
  if (auto r = tb->PinHosts(); !r) return r.error();
  if (auto r = tb->ShipFiles(); !r) return r.error();
  if (auto r = tb->MakeEngine(); !r) return r.error();
  if (auto r = tb->MakeDirs(); !r) return r.error();
  return tb;
}

// The load engine on the loadgen hosts, running the scripts ShipFiles put
// there: one process, or several (loadgen_processes.h), each on its own
// connection (DRY_RUN: wrapped to stand in for its output).
Result<void> Testbed::MakeEngine() {
  // Another connection to a loadgen host: SSH runs one command at a time per
  // session. It takes the PATH the host's first connection was given (k6 off
  // the session's PATH).
  auto another = [this](const LoadgenHost& lg) -> LoadgenConnector {
    const std::string target = lg.target;
    const std::string name = lg.host->name();
    const PathHost* path = dynamic_cast<const PathHost*>(lg.path.get());
    const std::string path_value = path != nullptr ? path->path() : "";
    return [this, target, name, path_value]() -> Result<std::unique_ptr<Host>> {
      if (config_.dry_run) return std::unique_ptr<Host>(std::make_unique<DryRunHost>(name, plan_));
      if (!config_.remote()) return std::unique_ptr<Host>(std::make_unique<LocalHost>());
      if (!connect_) return Error{"no connector to open another connection"};
      auto c = connect_("loadgen", target, config_);
      if (!c) return c;
      // One command now: an SSH session pays the host's login shell once,
      // when its command runner starts (ssh_host.h), and that belongs here,
      // not in a phase's launch (the lead kept for the run is measured on
      // sessions that are up, as the first connection is after provisioning).
      Command up;
      up.argv = {"true"};
      up.timeout = std::chrono::seconds(60);
      if (auto r = (*c)->Run(up); !r) return Error{"starting its first command: " + r.error().message};
      if (path_value.empty()) return c;
      return std::unique_ptr<Host>(std::make_unique<PathHost>(std::move(*c), path_value));
    };
  };
  std::vector<LoadgenHostSlot> slots;
  for (const LoadgenHost& lg : loadgens_) slots.push_back({&lg, another(lg)});
  auto engine = MakeLoadgenEngine(config_, slots, scripts_dir(), lead_path(), loadgen_connections_);
  if (!engine) return engine.error();
  engine_ = config_.dry_run ? std::make_unique<DryRunEngine>(std::move(*engine), plan_) : std::move(*engine);
  return Ok();
}

// The hosts of the two roles: dry-run hosts recording the plan, SSH hosts
// (`connect`), or this machine for both.
Result<void> Testbed::ConnectHosts(const HostConnector& connect) {
  const bool remote = config_.remote();
  if (config_.dry_run) plan_ = std::make_shared<DryRunPlan>();
  if (!remote) {
    owned_host_ = config_.dry_run ? std::unique_ptr<Host>(std::make_unique<DryRunHost>("local", plan_))
                                  : std::unique_ptr<Host>(std::make_unique<LocalHost>());
    sut_ = owned_host_.get();
    LoadgenHost lg;
    lg.target = "local";
    lg.host = sut_;
    loadgens_.push_back(std::move(lg));
    return Ok();
  }
  if (config_.dry_run) {
    // The settings a real run would connect with, refused as it would refuse them.
    if (auto t = SshSettings("SUT", config_.fairvisor_remote, config_); !t) {
      return Error{"connecting (FAIRVISOR_REMOTE): " + t.error().message};
    }
    owned_host_ = std::make_unique<DryRunHost>(config_.fairvisor_remote, plan_);
  } else {
    auto sut = connect("SUT", config_.fairvisor_remote, config_);
    if (!sut) return Error{"connecting (FAIRVISOR_REMOTE): " + sut.error().message};
    owned_host_ = std::move(*sut);
  }
  sut_ = owned_host_.get();
  const size_t n = config_.loadgen_remotes.size();
  for (size_t i = 0; i < n; ++i) {
    const std::string& target = config_.loadgen_remotes[i];
    LoadgenHost lg;
    lg.target = target;
    auto refused = [&](const Error& e) {
      return Error{n == 1 ? "connecting (LOADGEN_REMOTE): " + e.message
                          : fmt::format("connecting (LOADGEN_REMOTE, target {} of {}, {}): {}", i + 1, n, target,
                                        e.message)};
    };
    if (config_.dry_run) {
      if (auto t = SshSettings("loadgen", target, config_); !t) return refused(t.error());
      lg.owned = std::make_unique<DryRunHost>(target, plan_);
    } else {
      auto h = connect("loadgen", target, config_);
      if (!h) return refused(h.error());
      lg.owned = std::move(*h);
    }
    lg.host = lg.owned.get();
    loadgens_.push_back(std::move(lg));
  }
  return Ok();
}

// Provisions the SUT host (and A/B side B's edge) and the load generators.
Result<void> Testbed::ProvisionHosts() {
  auto sut = ProvisionSut(*sut_, config_);
  if (!sut) return Error{fmt::format("provisioning the SUT host ({}): {}", sut_->name(), sut.error().message)};
  sut_info_ = *sut;
  if (config_.ab && !config_.edge_skipped && !config_.ab_same_edge()) {
    Config b = config_;
    b.edge_src = config_.edge_src_b;
    b.edge_ref = config_.edge_ref_b;
    b.fv_dir = config_.fv_dir_b;
    auto sb = ProvisionSut(*sut_, b);
    if (!sb) {
      return Error{fmt::format("provisioning A/B side B (FAIRVISOR_EDGE_SRC_B={} FAIRVISOR_EDGE_REF_B={} FV_DIR_B={}) "
                               "on the SUT host ({}): {}",
                               config_.edge_src_b, config_.edge_ref_b.empty() ? "''" : config_.edge_ref_b,
                               config_.fv_dir_b, sut_->name(), sb.error().message)};
    }
    sut_info_b_ = *sb;
  }
  return ProvisionLoadgens();
}

// Every loadgen host for the loadgen role, in parallel (one after another
// in a dry run: its plan is recorded in order). They must run one engine
// version.
Result<void> Testbed::ProvisionLoadgens() {
  const size_t n = loadgens_.size();
  std::vector<Result<ProvisionInfo>> infos(n, Error{"not provisioned"});
  auto one = [&](size_t i) { infos[i] = ProvisionLoadgen(*loadgens_[i].host, config_); };
  if (config_.dry_run || n == 1) {
    for (size_t i = 0; i < n; ++i) one(i);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < n; ++i) threads.emplace_back(one, i);
    for (auto& t : threads) t.join();
  }
  for (size_t i = 0; i < n; ++i) {
    if (!infos[i]) {
      return Error{n == 1 ? fmt::format("provisioning the load-generator host ({}): {}", loadgens_[i].host->name(),
                                        infos[i].error().message)
                          : fmt::format("provisioning load-generator host {} of {} ({}): {}", i + 1, n,
                                        loadgens_[i].host->name(), infos[i].error().message)};
    }
    loadgens_[i].info = *infos[i];
  }
  for (size_t i = 1; i < n && !config_.dry_run; ++i) {
    if (loadgens_[i].info.engine_version != loadgens_[0].info.engine_version) {
      return Error{fmt::format("load-generator hosts run different engines: {} has '{}', {} has '{}' (every "
                               "loadgen host of a phase must run the same engine version)",
                               loadgens_[0].host->name(), loadgens_[0].info.engine_version, loadgens_[i].host->name(),
                               loadgens_[i].info.engine_version)};
    }
  }
  return Ok();
}

// Each distinct host's machine facts, all at once (one command per host):
// the SUT host, then each loadgen host that is another host. A loadgen on
// the SUT's host (local mode) is recorded as that host's facts under the
// role "loadgen" too, without the SUT runtime's keys: the preflight lint
// judges each role's values (ports and nofile for a loadgen). A host whose
// probe fails is left out, saying so on stderr: the facts describe a run,
// they never stop one. DRY_RUN: the probes are in the plan, one after
// another, and nothing read is recorded (a dry-run host answers nothing).
void Testbed::ReadEnvironments() {
  std::vector<std::pair<Host*, std::string>> hosts = {{sut_, "sut"}};
  std::vector<std::string> loadgen_names;  // distinct, in LOADGEN_REMOTE's order
  for (LoadgenHost& lg : loadgens_) {
    Host* own = lg.owned ? lg.owned.get() : lg.host;
    bool named = false;
    for (const std::string& n : loadgen_names) named = named || n == own->name();
    if (!named) loadgen_names.push_back(own->name());
    bool seen = false;
    for (const auto& [h, role] : hosts) seen = seen || h == own || h->name() == own->name();
    if (!seen) hosts.push_back({own, "loadgen"});
  }
  const auto policy = config_.dry_run ? std::launch::deferred : std::launch::async;
  std::vector<std::future<Result<HostEnvironment>>> reads;
  for (const auto& [h, role] : hosts) {
    ProvisionInfo info = role == "sut" ? sut_info_ : ProvisionInfo{};
    reads.push_back(std::async(policy, [h = h, role = role, info]() { return ReadHostEnvironment(*h, role, info); }));
  }
  std::vector<HostEnvironment> read;
  for (auto& f : reads) {
    auto e = f.get();
    if (!e) {
      std::fprintf(stderr, "fvbench: %s (left out of the run meta's environment)\n", e.error().message.c_str());
    } else {
      read.push_back(std::move(*e));
    }
  }
  environments_.clear();
  if (config_.dry_run) return;
  for (const HostEnvironment& e : read) {
    if (e.role == "sut") environments_.push_back(e);
  }
  for (const std::string& name : loadgen_names) {
    for (const HostEnvironment& e : read) {
      if (e.host != name) continue;
      HostEnvironment lg = e;
      if (lg.role == "sut") {
        lg.role = "loadgen";
        for (const char* k : {"nginx_build", "luajit_version", "luajit_jit", "luajit_gc64", "nginx_worker_processes"}) {
          lg.Set(k, "");
        }
      }
      environments_.push_back(std::move(lg));
      break;
    }
  }
}

// This machine's kernel boot_id, compared with the hosts' (MachineNote).
void Testbed::ReadControllerBootId() {
  auto text = detail::ReadTextFile("/proc/sys/kernel/random/boot_id");
  if (!text) return;
  std::string id = *text;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  controller_boot_id_ = detail::CheckedBootId(id);
}

// The cpusets of every host, the processes' parts, how the engine shares the
// SUT's machine, and the pinning note. Config is never written: the cpusets
// applied are the Testbed's (sut_cpuset_, loadgens_).
Result<void> Testbed::PinHosts() {
  const bool remote = config_.remote();
  auto sut = detail::SutCpusetOf(config_, sut_info_, sut_->name());
  if (!sut) return sut.error();
  sut_cpuset_ = sut->cpuset;
  sut_cpuset_auto_ = sut->automatic;
  if (auto r = PinLoadgenHosts(config_, loadgens_); !r) return r;
  if (auto r = SplitProcessCpusets(config_.procs_per_host, loadgens_); !r) return r;
  auto sharing = SutSharing(remote, sut_cpuset_, sut_info_, loadgens_);
  if (!sharing) return sharing.error();
  core_sharing_ = *sharing;
  if (remote) {
    machine_note_ = MachineNote(config_.fairvisor_remote, sut_info_, loadgens_, controller_boot_id_);
    pinning_ = RemotePinningNote(sut_->name(), sut_cpuset_, sut_cpuset_auto_, sut_info_, loadgens_,
                                 machine_note_);
  }
  return Ok();
}

// k6 off the ssh session's PATH (found only at the install path) on one loadgen host.
void Testbed::FindRemoteK6(LoadgenHost& lg) {
  if (lg.info.engine_bin.empty()) return;
  Command which;
  which.argv = {"sh", "-c", "command -v k6"};
  which.timeout = std::chrono::seconds(30);
  auto w = lg.host->Run(which);
  if (w && !w->success()) {
    const std::string bin = lg.info.engine_bin;
    const std::string dir = bin.substr(0, bin.find_last_of('/'));
    lg.path = std::make_unique<PathHost>(
        *lg.host, fmt::format("{}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", dir.empty() ? "/" : dir));
    lg.host = lg.path.get();
  }
}

// What ShipFiles puts on the hosts, in order: the engine runs copies of the
// suite's static scripts shipped to BENCH_DIR/scripts on each loadgen host,
// so the scripts actually run are kept with the results (as the seed kept
// its generated ones); several k6 instances reduce their raw samples on
// their loadgen host (k6_engine.h, wrapper step 6) with the
// fvbench_k6_reduce built beside this suite (a host where it cannot run, of
// another architecture or libc, leaves no histogram, and the engine fetches
// and reduces the CSV on the controller instead); the SUT host gets the
// policies edge loads (sides A and B).
std::vector<Testbed::Shipment> Testbed::Shipments() const {
  std::vector<Shipment> out;
  const bool k6 = config_.engine == Engine::kK6;
  const std::vector<std::string> scripts =
      k6 ? std::vector<std::string>{"k6/common.js", "k6/constant_rate.js", "k6/warmup.js"}
         : std::vector<std::string>{"support/engine/pace.lua"};
  for (const std::string& f : scripts) {
    for (const LoadgenHost& lg : loadgens_) {
      out.push_back({lg.host, false, config_.source_dir + "/" + f,
                     scripts_dir() + "/" + std::filesystem::path(f).filename().string(), 0644, "engine scripts"});
    }
  }
  if (k6 && config_.LoadgenProcesses() >= 2) {
    for (const LoadgenHost& lg : loadgens_) {
      out.push_back({lg.host, false, FVBENCH_K6_REDUCE_BIN, scripts_dir() + "/" + std::string(kK6ReduceTool), 0755,
                     "the k6 sample reducer " + std::string(kK6ReduceTool)});
    }
  }
  if (edge_available_) {
    for (const char* f : kPolicyFiles) {
      out.push_back({sut_, true, config_.policy_dir + "/" + f, policy_dir() + "/" + f, 0644,
                     "policies (FVBENCH_POLICY_DIR)"});
    }
    for (const char* f : kLimitsPolicyFiles) {
      if (!config_.limits) break;
      out.push_back({sut_, true, config_.policy_dir + "/" + f, policy_dir() + "/" + f, 0644,
                     "policies (FVBENCH_POLICY_DIR)"});
    }
    if (config_.ab) {
      for (const char* f : kPolicyFiles) {
        out.push_back({sut_, true, config_.policy_dir_b + "/" + f, policy_dir_b() + "/" + f, 0644,
                       "side B's policies (FVBENCH_POLICY_DIR_B)"});
      }
    }
  }
  return out;
}

Result<void> Testbed::ShipFiles() {
  for (const Shipment& s : Shipments()) {
    auto text = detail::ReadTextFile(s.local);
    if (!text) return Error{"shipping " + s.what + ": " + text.error().message};
    if (auto w = s.host->WriteFile(s.remote, *text, s.mode); !w) {
      return Error{fmt::format("shipping {} to {}: {}", s.what, s.host->name(), w.error().message)};
    }
  }
  return Ok();
}

// ------------------------------------------------- provisioning, once ---

// The hosts provisioning covers, each with what it learned there and the
// files shipped to it: sut, sut_b (A/B side B's edge tree), every loadgen.
std::vector<Testbed::Provisioned> Testbed::ProvisionedHosts() {
  std::vector<Provisioned> out{{"sut", sut_, &sut_info_, {}}};
  if (config_.ab && !config_.edge_skipped && !config_.ab_same_edge()) out.push_back({"sut_b", sut_, &sut_info_b_, {}});
  // Each loadgen's own connection, not the PATH wrapper (FindRemoteK6): the
  // fingerprint is taken the same way before and after it.
  for (LoadgenHost& lg : loadgens_) {
    Host* own = lg.owned ? lg.owned.get() : owned_host_ ? owned_host_.get() : lg.host;
    out.push_back({"loadgen", own, &lg.info, {}});
  }
  for (const Shipment& s : Shipments()) {
    for (Provisioned& p : out) {
      if (p.host->name() == s.host->name() && p.role == (s.to_sut ? "sut" : "loadgen")) p.files.push_back(s.remote);
    }
  }
  return out;
}

namespace {

// Each host's fingerprint, all at once (one command per host).
std::vector<Result<std::string>> Fingerprints(const std::vector<std::pair<Host*, std::string>>& scripts) {
  std::vector<std::future<Result<std::string>>> runs;
  for (const auto& [host, script] : scripts) {
    runs.push_back(std::async(std::launch::async, [host = host, script = script]() -> Result<std::string> {
      Command c;
      c.argv = {"sh", "-c", script};
      c.timeout = std::chrono::seconds(60);
      auto r = host->Run(c);
      if (!r) return r.error();
      if (!r->success()) return Error{fmt::format("exit {}: {}", r->exit_code, r->err.substr(0, 300))};
      return r->out;
    }));
  }
  std::vector<Result<std::string>> out;
  for (auto& f : runs) out.push_back(f.get());
  return out;
}

}  // namespace

// An earlier process's provisioning (the fixture's): reused when the state
// file names this configuration and every host's fingerprint is the one
// recorded. Sets the hosts' ProvisionInfo; provisioning_note_ says what happened.
bool Testbed::ReuseProvisioning(const std::string& key) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string path = layout::TestbedStatePath(config_.bench_dir);
  auto text = detail::ReadTextFile(path);
  if (!text) {
    provisioning_note_ = "provisioned (no state of an earlier process: " + text.error().message + ")";
    return false;
  }
  auto state = TestbedStateFromJson(*text, path);
  if (!state) {
    provisioning_note_ = "provisioned (" + state.error().message + ")";
    return false;
  }
  if (state->key != key) {
    provisioning_note_ = "provisioned (" + path + " was made for another configuration or other files)";
    return false;
  }
  std::vector<Provisioned> hosts = ProvisionedHosts();
  if (hosts.size() != state->hosts.size()) {
    provisioning_note_ = "provisioned (" + path + " has other hosts)";
    return false;
  }
  std::vector<std::pair<Host*, std::string>> scripts;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const HostRecord& r = state->hosts[i];
    if (r.role != hosts[i].role || r.host != hosts[i].host->name() || r.files != hosts[i].files) {
      provisioning_note_ = "provisioned (" + path + " has other hosts)";
      return false;
    }
    scripts.push_back({hosts[i].host, ProvisionFingerprintScript(r.info, r.files)});
  }
  std::vector<Result<std::string>> prints = Fingerprints(scripts);
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (!prints[i] || *prints[i] != state->hosts[i].fingerprint) {
      provisioning_note_ = fmt::format("provisioned ({} host {} changed since it was provisioned{})",
                                       hosts[i].role, hosts[i].host->name(),
                                       prints[i] ? "" : ": " + prints[i].error().message);
      return false;
    }
  }
  for (size_t i = 0; i < hosts.size(); ++i) *hosts[i].info = state->hosts[i].info;
  environments_ = state->environments;
  provisioning_note_ = fmt::format("provisioning of this run reused: {} host(s) checked in {:.2f} s (one fingerprint "
                                   "command each)",
                                   hosts.size(),
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return true;
}

// Records this process's provisioning for the later ones (not fatal: they
// then provision again, saying why).
void Testbed::SaveProvisioning(const std::string& key) {
  std::vector<Provisioned> hosts = ProvisionedHosts();
  std::vector<std::pair<Host*, std::string>> scripts;
  for (const Provisioned& p : hosts) scripts.push_back({p.host, ProvisionFingerprintScript(*p.info, p.files)});
  std::vector<Result<std::string>> prints = Fingerprints(scripts);
  TestbedState state;
  state.key = key;
  state.environments = environments_;
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (!prints[i]) {
      provisioning_note_ += fmt::format("; not recorded for later processes ({} host {}: {})", hosts[i].role,
                                        hosts[i].host->name(), prints[i].error().message);
      return;
    }
    state.hosts.push_back({hosts[i].role, hosts[i].host->name(), *hosts[i].info, hosts[i].files, *prints[i]});
  }
  const std::string path = layout::TestbedStatePath(config_.bench_dir);
  if (auto w = detail::WriteTextFile(path, TestbedStateToJson(state)); !w) {
    provisioning_note_ += "; not recorded for later processes: " + w.error().message;
  }
}

Result<void> PrepareControllerDirs(const Config& config) {
  LocalHost here;
  if (auto ok = EnsurePrivateDirs(here, DirChain(config.bench_dir, layout::ControllerFolders(config.dry_run))); !ok) {
    return Error{"BENCH_DIR on the controller: " + ok.error().message};
  }
  return Ok();
}

// BENCH_DIR's folders on the SUT and loadgen hosts (local mode: both on
// this machine), before provisioning writes anything.
Result<void> Testbed::CheckHostDirs() {
  auto check = [&](Host& h, const char* role, const std::vector<BenchFolder>& folders) -> Result<void> {
    if (auto ok = EnsurePrivateDirs(h, DirChain(config_.bench_dir, folders)); !ok) {
      return Error{fmt::format("BENCH_DIR on the {} host: {}", role, ok.error().message)};
    }
    return Ok();
  };
  const std::vector<BenchFolder> sut = layout::SutFolders(config_.ab);
  if (!config_.remote()) {
    std::vector<BenchFolder> both = sut;
    const std::vector<BenchFolder> lg = layout::LoadgenFolders();
    both.insert(both.end(), lg.begin() + 1, lg.end());
    return check(*sut_, "SUT and loadgen", both);
  }
  if (auto ok = check(*sut_, "SUT", sut); !ok) return ok;
  for (const LoadgenHost& lg : loadgens_) {
    if (auto ok = check(*lg.host, "loadgen", layout::LoadgenFolders()); !ok) return ok;
  }
  return Ok();
}

// BENCH_DIR's controller-side directories.
Result<void> Testbed::MakeDirs() { return PrepareControllerDirs(config_); }

std::string Testbed::TakePlan() {
  if (!plan_) return "";
  std::vector<std::string> lines = plan_->lines();
  std::string out;
  for (size_t i = plan_taken_; i < lines.size(); ++i) out += lines[i] + "\n";
  plan_taken_ = lines.size();
  return detail::RedactPlan(out);
}

Result<void> Testbed::WritePlanSection(const std::string& title, const std::string& text, bool truncate) const {
  std::string section = "# " + title + "\n" + text;
  std::printf("%s", section.c_str());
  std::fflush(stdout);
  // Rewritten whole through a new file (json_fields.h WriteTextFile), never
  // opened for appending: nothing is written through a link at its name.
  std::string plan;
  if (!truncate) {
    if (auto earlier = detail::ReadTextFile(plan_path()); earlier) plan = std::move(*earlier);
  }
  if (auto w = detail::WriteTextFile(plan_path(), plan + section); !w) {
    return Error{fmt::format("cannot write the dry-run plan: {}", w.error().message)};
  }
  return Ok();
}

// Pinned on the SUT's machine (local mode, or remote with the controller
// on the SUT host's kernel) with both the SUT's and the engine's cpusets:
// this process (every thread) and what it starts unpinned (the phase
// monitor's `cat /proc/...` twice a second, the ticker's stub_status curl
// every second, ss) leave the SUT's CPUs: to the CPUs outside both
// cpusets, or, with none (2 CPUs: 0 and 1), to the engine's. A curl costs
// tens of ms of CPU; on the SUT's only CPU that is a stall of the SUT's, on
// the engine's a hiccup at most (EngineHiccup, step_search.h), and the
// engine's CPU is gated at LOADGEN_MAX_BUSY. The nginx processes and the
// engine keep their own `taskset -c`. The pinning note says where it went.
void Testbed::KeepControllerOffSutCpus() {
  const Config& c = config_;
  const bool same_machine = !c.remote() || (!controller_boot_id_.empty() && controller_boot_id_ == sut_info_.boot_id);
  const std::string& loadgen_cpuset = loadgens_.front().cpuset;
  if (!same_machine || sut_cpuset_.empty() || loadgen_cpuset.empty()) return;
  auto sut = ParseCpuList(sut_cpuset_);
  auto engine = ParseCpuList(loadgen_cpuset);
  if (!sut || !engine) return;  // validated by Config; nothing to do with a list that does not parse
  const std::vector<int> off_sut = CpusOutside(UsableCpusOfThisProcess(), *sut);
  const std::vector<int> free = CpusOutside(off_sut, *engine);
  const std::vector<int>& to = free.empty() ? off_sut : free;
  if (to.empty()) {
    controller_note_ = "; fvbench's own sampling shares the SUT's CPUs (no other CPU usable)";
  } else if (auto r = RunThisProcessOn(to); !r) {
    controller_note_ = "; fvbench's own sampling runs unpinned (" + r.error().message + ")";
  } else if (free.empty()) {
    controller_note_ = fmt::format("; fvbench's own sampling on CPUs {}, the engine's (none outside both cpusets)",
                                   FormatCpuList(to));
  } else {
    controller_note_ = fmt::format("; fvbench's own sampling on CPUs {}, off the SUT's and the engine's",
                                   FormatCpuList(to));
  }
  if (!pinning_.empty()) pinning_ += controller_note_;
}

std::vector<std::string> Testbed::CommandPathNotes() const {
  std::vector<std::string> out;
  std::vector<std::pair<const char*, const Host*>> hosts = {{"SUT", owned_host_.get()}};
  for (const LoadgenHost& lg : loadgens_) hosts.push_back({"loadgen", lg.owned.get()});
  for (const auto& [role, h] : hosts) {
    const auto* ssh = dynamic_cast<const SshHost*>(h);
    if (ssh == nullptr || ssh->runner_note().empty()) continue;
    out.push_back(fmt::format("{} {}: {}", role, ssh->name(), ssh->runner_note()));
  }
  return out;
}

std::string Testbed::PinningNote() const {
  const Config& c = config_;
  if (!pinning_.empty()) return pinning_;
  const LoadgenHost& lg = loadgens_.front();
  if (sut_cpuset_.empty() && lg.cpuset.empty()) {
    return c.remote() ? "unpinned" : "unpinned: the load engine and the SUT share all cores";
  }
  std::string processes;
  if (lg.process_cpusets.size() > 1 && !lg.cpuset.empty()) {
    processes = fmt::format(" [processes: {}]", fmt::join(lg.process_cpusets, " "));
  }
  return fmt::format("nginx cpuset={} engine cpuset={}{}{}{}", sut_cpuset_.empty() ? "all" : sut_cpuset_,
                     lg.cpuset.empty() ? "all" : lg.cpuset, processes, c.cpusets_auto ? " (auto 50/50 split)" : "",
                     controller_note_);
}

std::string Testbed::sut_cpus() const {
  return sut_cpuset_.empty() ? FormatCpuList(sut_info_.cpus) : sut_cpuset_;
}

RunMeta Testbed::Meta() const {
  RunMeta m;
  m.fvbench_version = "0.1.0";
  const ProvisionInfo& lg = loadgens_.front().info;
  m.engine = lg.engine;
  m.engine_version = lg.engine_version;
  if (m.engine == "k6") m.k6_pinned = config_.k6_version;
  m.sut_os = sut_info_.os;
  m.loadgen_os = lg.os;
  m.sut_runtime = sut_info_.runtime;
  m.sut_runtime_version = sut_info_.runtime_version;
  m.lua_module_version = sut_info_.lua_module_version;
  m.edge_source = edge_available_ ? config_.edge_src : "";
  m.edge_commit = sut_info_.edge_commit + (sut_info_.edge_dirty ? " (dirty)" : "");
  m.mode = config_.remote() ? "remote" : "local";
  m.sut_host = sut_->name();
  m.loadgen_host.clear();
  for (const LoadgenHost& h : loadgens_) m.loadgen_host += (m.loadgen_host.empty() ? "" : ", ") + h.host->name();
  m.sut_cores = sut_info_.cores;
  m.loadgen_cores = lg.cores;
  m.sut_cpuset = sut_cpuset_;
  m.loadgen_cpuset = LoadgenCpusetsText(loadgens_);
  m.cpusets_auto = sut_cpuset_auto_;
  for (const LoadgenHost& h : loadgens_) m.cpusets_auto = m.cpusets_auto || h.cpuset_auto;
  m.machines = config_.remote() ? machine_note_ : "";
  m.environments = environments_;
  // What SutServices gives every nginx (sut/nginx_conf.h NginxWorkerProcesses).
  const std::string workers = NginxWorkerProcesses(sut_cpuset_, sut_info_.cores);
  if (workers != "auto") {
    m.sut_nginx_workers = std::stoi(workers);
    m.sut_nginx_cpus = m.sut_nginx_workers;
    m.sut_edge_workers = config_.fv_worker_processes == "auto" ? m.sut_nginx_workers
                                                               : std::stoi(config_.fv_worker_processes);
  }
  for (HostEnvironment& e : m.environments) {
    if (e.role == "sut" && m.sut_edge_workers > 0) e.Set("nginx_worker_processes", std::to_string(m.sut_edge_workers));
  }
  m.latency_rps = config_.latency_rps;
  m.latency_dur_s = config_.latency_dur_s;
  m.warmup_s = config_.warmup_dur_s;
  // The search's step length as it runs (run_plan.h).
  m.step_dur_s = run_plan_.search.lengths.step_s;
  m.search_max = config_.throughput_search_max;
  m.thresholds_profile = config_.thresholds;
  m.reference_source = config_.reference;
  if (config_.ab && edge_available_) {
    const ProvisionInfo& b = sut_info_b();
    m.ab = true;
    m.edge_ref = config_.edge_ref;
    m.policy_dir = config_.policy_dir;
    m.edge_source_b = config_.edge_src_b;
    m.edge_ref_b = config_.edge_ref_b;
    m.edge_commit_b = b.edge_commit + (b.edge_dirty ? " (dirty)" : "");
    m.policy_dir_b = config_.policy_dir_b;
    m.ab_pairs = run_plan_.ab_pairs;
    m.ab_rate_fraction = config_.ab_rate_fraction;
    m.ab_gate = config_.ab_gate;
    if (config_.ab_gate) m.ab_gate_metrics = config_.ab_gate_metrics;
  }
  return m;
}

}  // namespace fvbench
