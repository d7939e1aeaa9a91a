#include "support/engine/wrk_engine.h"

#include "support/core/cpu_list.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "support/core/json_fields.h"
#include "support/host/dry_run_host.h"
#include "support/engine/jwt.h"
#include "support/core/plausible.h"
#include "support/core/text.h"
#include "support/host/shell_quote.h"
#include "support/core/units_format.h"
#include "support/engine/wrk_output.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using detail::TailBytes;

constexpr size_t kStderrTail = 2000;
// A synchronised phase's wrk runs at least this long after its window (s):
// two of wrk's 100 ms stop polls, time for the window's last responses.
constexpr double kSyncTailS = 0.25;

// A fetched file as errors name it: the controller's copy and what it copies.
std::string FetchedName(const std::string& local, const std::string& host, const std::string& remote) {
  return fmt::format("{} (fetched from {}:{})", local, host, remote);
}

const char* KindName(RequestKind kind) {
  switch (kind) {
    case RequestKind::kGet: return "get";
    case RequestKind::kDecision: return "decision";
    case RequestKind::kPostJson: return "post";
  }
  return "?";
}

std::string Describe(const ExecResult& r) {
  if (r.timed_out) return "timed out";
  if (r.term_signal != 0) return fmt::format("killed by signal {}", r.term_signal);
  return fmt::format("exit status {}", r.exit_code);
}

// Controller-side file I/O (controller_dir is on this machine).
Result<void> WriteLocal(const std::string& path, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Error{fmt::format("cannot create the directory of {}: {}", path, ec.message())};
  return detail::WriteTextFile(path, content);
}

// The seconds of wrk's -d in a planned command ("-d12s" -> "12").
std::string WrkSeconds(const Command& cmd) {
  for (const std::string& a : cmd.argv) {
    if (a.size() > 3 && a.rfind("-d", 0) == 0 && a.back() == 's') return a.substr(2, a.size() - 3);
  }
  return "?";
}

// The command run under bash, which prints its children's CPU times after
// it (bash builtin `times`: "0m1.512s 0m0.346s", user then system, on the
// second line) to stderr, keeping the command's exit status. --norc: a
// bash -c whose environment says sshd started it (SSH_CLIENT, SHLVL < 2, as
// a session's command runner leaves it) reads ~/.bashrc otherwise (Debian's
// SSH_SOURCE_BASHRC), a conda or pyenv start-up that the warmup's command,
// run without this wrapper, does not pay: every phase's launch would.
std::vector<std::string> WithCpuTimes(const std::vector<std::string>& argv) {
  std::vector<std::string> out{"bash", "--norc", "-c", "\"$@\"; rc=$?; times >&2; exit $rc", "fvbench-wrk"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace

std::optional<double> ChildCpuSeconds(std::string_view stderr_text) {
  // The last line of the form "<m>m<s>s <m>m<s>s" is the children's.
  std::optional<double> found;
  size_t pos = 0;
  while (pos <= stderr_text.size()) {
    size_t end = stderr_text.find('\n', pos);
    if (end == std::string_view::npos) end = stderr_text.size();
    const std::string line(stderr_text.substr(pos, end - pos));
    double um = 0, us = 0, sm = 0, ss = 0;
    char c1 = 0, c2 = 0;
    int n = 0;
    if (std::sscanf(line.c_str(), "%lfm%lf%c %lfm%lf%c%n", &um, &us, &c1, &sm, &ss, &c2, &n) == 6 && c1 == 's' &&
        c2 == 's' && static_cast<size_t>(n) == line.size()) {
      found = um * 60 + us + sm * 60 + ss;
    }
    pos = end + 1;
  }
  return found;
}

namespace {

class WrkEngine : public LoadEngine {
 public:
  WrkEngine(Host& host, std::string scripts_dir) : host_(host), scripts_dir_(std::move(scripts_dir)) {}

  std::string name() const override { return "wrk"; }

  Result<std::string> Version() override {
    if (version_) return *version_;
    Command cmd;
    cmd.argv = {"wrk", "--version"};
    cmd.timeout = std::chrono::seconds(30);
    auto r = host_.Run(cmd);
    if (!r) return Error{fmt::format("wrk --version on {}: {}", host_.name(), r.error().message)};
    auto v = ParseWrkVersion(r->out + "\n" + r->err);
    if (!v) {
      return Error{fmt::format("wrk --version on {} ({}): {}; stderr: {}", host_.name(),
                               Describe(*r), v.error().message, TailBytes(r->err, kStderrTail))};
    }
    version_ = *v;
    return *v;
  }

  Result<void> Warmup(const LoadSpec& spec, const std::string& remote_dir) override {
    if (auto ok = CheckScript(); !ok) return ok.error();
    if (auto ok = CheckLimits(spec); !ok) {
      return Error{fmt::format("wrk warmup {}: refused before load: {}", spec.phase, ok.error().message)};
    }
    std::string body_path;
    if (spec.kind == RequestKind::kPostJson) {
      body_path = fmt::format("{}/{}.body.json", remote_dir, spec.phase);
      if (auto ok = PrepareDir(remote_dir, ""); !ok) {
        return Error{fmt::format("wrk warmup {}: {}", spec.phase, ok.error().message)};
      }
      if (auto w = host_.WriteFile(body_path, spec.body); !w) {
        return Error{fmt::format("wrk warmup {}: writing the body on {}: {}", spec.phase,
                                 host_.name(), w.error().message)};
      }
    }
    auto cmd = PlanWrkCommand(spec, scripts_dir_, "/dev/null", body_path);
    if (!cmd) return Error{fmt::format("wrk warmup {}: {}", spec.phase, cmd.error().message)};
    auto r = host_.Run(*cmd);
    if (!r) {
      return Error{fmt::format("wrk warmup {} on {}: {}", spec.phase, host_.name(), r.error().message)};
    }
    if (!r->success()) {
      return Error{fmt::format("wrk warmup {} on {} failed ({}): {}; stderr: {}", spec.phase,
                               host_.name(), Describe(*r), WrkCommandLine(*cmd),
                               TailBytes(r->err, kStderrTail))};
    }
    return Ok();
  }

  Result<LoadResult> Run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    auto fail = [&](const std::string& what) {
      return Error{fmt::format("wrk phase {} on {}: {}", spec.phase, host_.name(), what)};
    };
    if (auto ok = CheckScript(); !ok) return ok.error();
    if (auto ok = CheckLimits(spec); !ok) return fail("refused before load: " + ok.error().message);
    if (remote_dir.empty() || controller_dir.empty()) {
      return fail("remote_dir and controller_dir must be set");
    }
    const std::string remote_json = remote_dir + "/" + spec.phase + ".json";
    const std::string local_base = controller_dir + "/" + spec.phase;
    std::string body_path;
    if (spec.kind == RequestKind::kPostJson) {
      body_path = remote_dir + "/" + spec.phase + ".body.json";
      if (auto w = host_.WriteFile(body_path, spec.body); !w) {
        return fail("writing the body: " + w.error().message);
      }
    }
    auto cmd = PlanWrkCommand(spec, scripts_dir_, remote_json, body_path);
    if (!cmd) return fail(cmd.error().message);
    if (spec.start_epoch_us > 0) cmd->argv = WithCpuTimes(cmd->argv);
    const std::string line = WrkCommandLine(*cmd);
    if (auto w = WriteLocal(local_base + ".cmd.txt", line + "\n"); !w) return fail(w.error().message);
    if (auto ok = PrepareDir(remote_dir, remote_json); !ok) return fail(ok.error().message);

    const auto t0 = std::chrono::steady_clock::now();
    auto r = host_.Run(*cmd);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r) return fail(r.error().message);
    // Synchronised: wrk's own summary spans its whole -d, not the window.
    const std::string note =
        spec.start_epoch_us > 0
            ? fmt::format("# fvbench: wrk's own summary below spans its whole -d{}s: the wait for the common start, "
                          "the {} s schedule window and the tail; its Requests/sec is not the phase's rate (the "
                          "JSON's `window` and the merged <phase>.json are)\n",
                          WrkSeconds(*cmd), FormatNumber(spec.duration_s))
            : "";
    if (auto w = WriteLocal(local_base + ".stdout.txt", note + RedactSecrets(r->out)); !w) return fail(w.error().message);
    if (r->timed_out) {
      const double d = std::stod(WrkSeconds(*cmd));
      return fail(fmt::format("cut: wrk still ran {} s after its -d{}s and was killed (bound: -d + {} s); no "
                              "result; stderr: {}",
                              FormatNumber(wall_s - d), d,
                              FormatNumber(std::chrono::duration<double>(cmd->timeout).count() - d),
                              TailBytes(r->err, kStderrTail)));
    }
    if (!r->success()) {
      return fail(fmt::format("{} ({}); stderr: {}", line, Describe(*r), TailBytes(r->err, kStderrTail)));
    }
    const std::string local_json = local_base + ".json";
    if (auto f = host_.Fetch(remote_json, local_json, kWrkResultCap); !f) {
      return fail(fmt::format("no output fetched from {} ({}); stderr: {}", remote_json,
                              f.error().message, TailBytes(r->err, kStderrTail)));
    }
    auto text = detail::ReadTextFile(local_json);
    if (!text) return fail(text.error().message);
    // Named as what it is a copy of: a refusal names the file and the host.
    auto parsed = ParseWrkOutput(*text, FetchedName(local_json, host_.name(), remote_json), spec.rate_rps,
                                 kDefaultMaxLateShare);
    if (!parsed) return fail(parsed.error().message);
    LoadResult result = std::move(*parsed);
    result.raw_path = local_json;
    result.wall_s = wall_s;
    if (spec.start_epoch_us > 0) result.engine_cpu_s = ChildCpuSeconds(r->err).value_or(-1);
    if (auto v = Version(); v) result.engine_version = *v;
    return result;
  }

 private:
  // The output directory must exist (pace.lua only opens the file), and a
  // stale file from an earlier run (`stale`; "" for none) must not pass for
  // this run's output.
  Result<void> PrepareDir(const std::string& dir, const std::string& stale) {
    Command prep;
    prep.argv = {"sh", "-c", "mkdir -p -- \"$1\" && rm -f -- \"$2\"", "sh", dir, stale};
    prep.timeout = std::chrono::seconds(30);
    if (auto r = host_.Run(prep); !r || !r->success()) {
      return Error{stale.empty() ? fmt::format("cannot create {}", dir)
                                 : fmt::format("cannot create {} / remove a stale {}", dir, stale)};
    }
    return Ok();
  }

  // wrk runs a script that fails to load closed-loop and unpaced, so the
  // script's presence is checked before any load is sent.
  Result<void> CheckScript() {
    if (script_checked_) return Ok();
    const std::string path = scripts_dir_ + "/pace.lua";
    auto text = host_.ReadFile(path, kEngineScriptCap);
    if (!text && dynamic_cast<DryRunHost*>(&host_) != nullptr) {
      return Ok();  // DRY_RUN: the read is in the plan; nothing exists to check
    }
    if (!text) {
      return Error{fmt::format("wrk: pacing script {} not readable on {}: {}", path, host_.name(),
                               text.error().message)};
    }
    if (text->find("function delay()") == std::string::npos) {
      return Error{fmt::format("wrk: {} on {} has no delay() function: not the pacing script",
                               path, host_.name())};
    }
    script_checked_ = true;
    return Ok();
  }

  // The phase's connections and threads against the host's limits
  // (loadgen_limits.h), probed once. A bad spec is left to PlanWrkCommand.
  Result<void> CheckLimits(const LoadSpec& spec) {
    if (dynamic_cast<DryRunHost*>(&host_) != nullptr) return Ok();
    auto threads = WrkThreadsFor(spec.cpuset);
    if (!threads) return Ok();
    if (!limits_) {
      auto l = ProbeLoadgenLimits(host_);
      if (!l) return l.error();
      limits_ = *l;
    }
    LoadgenNeeds n;
    n.engine = "wrk";
    n.connections = static_cast<uint64_t>(WrkConnectionsFor(spec.rate_rps, *threads, spec.connections));
    n.open_files = n.connections + static_cast<uint64_t>(*threads) + kWrkOwnFiles;
    if (auto cpus = CountCpuList(spec.cpuset); !spec.cpuset.empty() && cpus) n.pinned_cpus = *cpus;
    return CheckLoadgenLimits(host_.name(), n, *limits_);
  }

  Host& host_;
  std::string scripts_dir_;
  bool script_checked_ = false;
  std::optional<LoadgenLimits> limits_;
  std::optional<std::string> version_;
};

}  // namespace

Result<int> CountCpuList(std::string_view s) {
  auto cpus = ParseCpuList(s);  // core/cpu_list.h
  if (!cpus) return Error{fmt::format("cpu list \"{}\": {}", s, cpus.error().message)};
  return static_cast<int>(cpus->size());
}

Result<int> WrkThreadsFor(const std::string& cpuset) {
  if (cpuset.empty()) return kWrkDefaultThreads;
  auto n = CountCpuList(cpuset);
  if (!n) return n;
  return std::min(*n, kWrkMaxThreads);
}

int WrkConnectionsFor(double rate_rps, int threads, int requested) {
  threads = std::max(threads, 1);
  long c = requested;
  if (c <= 0) {
    double derived = std::ceil(rate_rps / kWrkRatePerConnection);
    c = static_cast<long>(std::clamp(derived, 2.0 * threads, static_cast<double>(kWrkMaxConnections)));
  }
  c = std::max<long>(c, threads);
  c = (c + threads - 1) / threads * threads;  // each thread gets c / threads
  return static_cast<int>(c);
}

Result<std::string> ParseWrkVersion(std::string_view output) {
  size_t pos = 0;
  while (pos < output.size()) {
    size_t end = output.find('\n', pos);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(pos, end - pos);
    if (line.substr(0, 4) == "wrk ") {
      size_t cut = line.find(" Copyright");
      std::string_view v = line.substr(0, cut);
      while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
      return std::string(v);
    }
    pos = end + 1;
  }
  return Error{"no line starting with \"wrk \" in its output"};
}

Result<Command> PlanWrkCommand(const LoadSpec& spec, const std::string& scripts_dir,
                               const std::string& out_path, const std::string& body_path) {
  if (spec.phase.empty() || spec.phase.find_first_of("/ \t\n") != std::string::npos) {
    return Error{fmt::format("phase \"{}\" is not a file-safe name", spec.phase)};
  }
  if (spec.url.empty()) return Error{"url is empty"};
  if (!(spec.rate_rps > 0) || !std::isfinite(spec.rate_rps)) {
    return Error{fmt::format("rate_rps {} is not a positive rate", spec.rate_rps)};
  }
  if (!(spec.duration_s > 0) || !std::isfinite(spec.duration_s)) {
    return Error{fmt::format("duration_s {} is not a positive duration", spec.duration_s)};
  }
  // -d is whole seconds (wrk sleeps for them: an unsigned int), the timeout
  // below int64 milliseconds: both hold kMaxPhaseSeconds (plausible.h).
  if (spec.duration_s > kMaxPhaseSeconds || spec.rate_rps > kMaxRateRps) {
    return Error{fmt::format("duration {} s at {} RPS: above the longest phase ({} s) or the highest rate ({} RPS) "
                             "fvbench plans",
                             FormatNumber(spec.duration_s), FormatNumber(spec.rate_rps),
                             FormatNumber(kMaxPhaseSeconds), FormatNumber(kMaxRateRps))};
  }
  if (spec.connections < 0) return Error{fmt::format("connections {} < 0", spec.connections)};
  if (auto k = CheckBenchKeys(spec.keys); !k) return k.error();
  if (spec.interval_us != 0 &&
      !(spec.interval_us >= 1000 && spec.interval_us <= 3600e6 && spec.interval_us == std::floor(spec.interval_us))) {
    return Error{fmt::format("interval_us {} is not a whole number of µs in 1000..3600000000", spec.interval_us)};
  }
  if (spec.kind == RequestKind::kPostJson && body_path.empty()) {
    return Error{"post phase without a body file"};
  }
  auto threads = WrkThreadsFor(spec.cpuset);
  if (!threads) return Error{"cpuset: " + threads.error().message};
  const int conns = WrkConnectionsFor(spec.rate_rps, *threads, spec.connections);
  const long secs = static_cast<long>(std::ceil(spec.duration_s));
  const bool synchronised = spec.start_epoch_us > 0;
  if (synchronised && (!(spec.offset_us >= 0) || !std::isfinite(spec.offset_us) || !(spec.start_wait_s >= 0) ||
                       !std::isfinite(spec.start_wait_s) || spec.start_wait_s > kMaxPhaseSeconds)) {
    return Error{fmt::format("synchronised start: offset {} µs and start wait {} s must be finite and >= 0",
                             spec.offset_us, spec.start_wait_s)};
  }
  // Synchronised: wrk (whose -d runs from its own start, after its launch)
  // runs through the wait for the common start, the window and at least
  // kSyncTailS for the window's last responses; pace.lua claims no slot
  // after the window, so the rest of the whole second sends nothing.
  const long wrk_secs =
      synchronised ? static_cast<long>(std::ceil(spec.start_wait_s + spec.duration_s + kSyncTailS)) : secs;

  Command cmd;
  if (!spec.cpuset.empty()) cmd.argv = {"taskset", "-c", spec.cpuset};
  for (std::string a : {std::string("wrk"), fmt::format("-t{}", *threads), fmt::format("-c{}", conns),
                        fmt::format("-d{}s", wrk_secs),
                        fmt::format("--timeout={}s", static_cast<long>(kWrkRequestTimeoutUs / 1e6)),
                        std::string("--latency"), std::string("-s"),
                        scripts_dir + "/pace.lua", spec.url}) {
    cmd.argv.push_back(std::move(a));
  }
  cmd.env = {
      {"FVBENCH_RATE", fmt::format("{}", spec.rate_rps)},
      {"FVBENCH_THREADS", fmt::format("{}", *threads)},
      {"FVBENCH_CONNECTIONS", fmt::format("{}", conns)},
      {"FVBENCH_KIND", KindName(spec.kind)},
      {"FVBENCH_JWT", spec.jwt},
      {"FVBENCH_BODY_FILE", spec.kind == RequestKind::kPostJson ? body_path : ""},
      {"FVBENCH_OUT", out_path},
      {"FVBENCH_COUNT_RATELIMIT", spec.count_ratelimit ? "1" : "0"},
      {"FVBENCH_TIMEOUT_US", fmt::format("{}", static_cast<long>(kWrkRequestTimeoutUs))},
      {"FVBENCH_DURATION_S", fmt::format("{}", secs)},
      {"FVBENCH_KEYS", fmt::format("{}", spec.keys)},
  };
  if (spec.latency_histogram) cmd.env["FVBENCH_HISTOGRAM"] = "1";
  if (spec.interval_us > 0) cmd.env["FVBENCH_INTERVAL_US"] = fmt::format("{:.0f}", spec.interval_us);
  if (synchronised) {
    cmd.env["FVBENCH_START_EPOCH_US"] = fmt::format("{:.0f}", spec.start_epoch_us);
    cmd.env["FVBENCH_OFFSET_US"] = fmt::format("{:.3f}", spec.offset_us);
  }
  // wrk ends at -d by itself; what is left after a grace is a stuck engine.
  // The command may also take its login shell's start to begin
  // (kWrkStartupS), and, synchronised, up to the lead (a process launched
  // that late still meets the start and then runs its whole -d).
  const long startup = static_cast<long>(kWrkStartupS) +
                       (synchronised ? static_cast<long>(std::ceil(spec.start_wait_s)) : 0);
  cmd.timeout = std::chrono::seconds(wrk_secs + startup) + std::chrono::seconds(static_cast<long>(kPhaseGraceS));
  return cmd;
}

std::string WrkCommandLine(const Command& cmd) {
  // NAME=value stays an assignment only if NAME is not quoted: quote values only.
  std::string line;
  for (const auto& [k, v] : cmd.env) {
    line += k + "=" + ShellQuote(k == "FVBENCH_JWT" && !v.empty() ? "<redacted>" : v) + " ";
  }
  return line + ShellJoin(cmd.argv);
}

std::unique_ptr<LoadEngine> MakeWrkEngine(Host& loadgen, std::string scripts_dir) {
  return std::make_unique<WrkEngine>(loadgen, std::move(scripts_dir));
}

}  // namespace fvbench
