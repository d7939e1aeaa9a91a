#include "support/sut/perf_capture.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "support/core/profile_params.h"
#include "support/core/text.h"
#include "support/host/file_caps.h"
#include "support/judge/proc_sample.h"
#include "support/sut/step_runner.h"

namespace fvbench {

namespace {

using std::chrono::seconds;

std::optional<int> IntOf(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return std::nullopt;
  }
  return std::stoi(s);
}

bool Absolute(const std::string& p) { return !p.empty() && p[0] == '/'; }

// A kernel release as a package-name part: [A-Za-z0-9.+_-], starting alphanumeric.
bool PlainRelease(const std::string& r) {
  if (r.empty() || !std::isalnum(static_cast<unsigned char>(r[0]))) return false;
  for (char ch : r) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '+' && ch != '_' && ch != '-') {
      return false;
    }
  }
  return true;
}

std::string PackageHint(const detail::PerfHostFacts& f) {
  auto os = ClassifyOs(f.os, "os-release");
  if (!os) return "the package that provides perf (Debian: linux-perf; Ubuntu: linux-tools-common and "
                  "linux-tools-$(uname -r); Amazon Linux / RHEL: perf)";
  auto pkgs = detail::PerfPackages(*os, f.uname_r);
  if (!pkgs) return pkgs.error().message;
  return fmt::format("{} ({})", fmt::join(*pkgs, " "), os->Describe());
}

// The first lines of a command's stderr (or stdout), for an error.
std::string Said(const ExecResult& e) {
  std::string s(detail::TrimSpace(e.err.empty() ? e.out : e.err));
  if (s.size() > 600) s = s.substr(0, 600) + " ...";
  return s.empty() ? fmt::format("exit {}", e.exit_code) : s;
}

}  // namespace

namespace detail {

Result<std::vector<std::string>> PerfPackages(const HostOs& os, const std::string& uname_r) {
  if (os.distro == "debian") return std::vector<std::string>{"linux-perf"};
  if (os.distro == "ubuntu") {
    if (!PlainRelease(uname_r)) {
      return Error{fmt::format("perf on {}: the kernel release `uname -r` printed ('{}') cannot name its "
                               "linux-tools package; install linux-tools-common and linux-tools-$(uname -r)",
                               os.Describe(), uname_r)};
    }
    return std::vector<std::string>{"linux-tools-common", "linux-tools-" + uname_r};
  }
  return std::vector<std::string>{"perf"};  // amzn, RHEL-compatible
}

const char kPerfCheckScript[] = R"SH(
p() { printf '%s=%s\n' "$1" "$2"; }
v=$(perf --version 2>&1); rc=$?
p perf_rc "$rc"
p perf_out "$(printf '%s\n' "$v" | head -n 2 | tr '\n' ' ')"
p uid "$(id -u 2>/dev/null)"
p paranoid "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
p uname_r "$(uname -r 2>/dev/null)"
{ cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null; } | sed 's/^/os_release./'
)SH";

PerfHostFacts ParsePerfFacts(const std::string& out) {
  const std::map<std::string, std::string> kv = ParseKeyValues(out);
  auto get = [&](const std::string& k) {
    auto it = kv.find(k);
    return it == kv.end() ? std::string() : std::string(TrimSpace(it->second));
  };
  PerfHostFacts f;
  f.perf_rc = IntOf(get("perf_rc"));
  f.perf_out = get("perf_out");
  f.uid = IntOf(get("uid"));
  f.paranoid = IntOf(get("paranoid"));
  f.uname_r = get("uname_r");
  std::string rel;
  for (const auto& [k, v] : kv) {
    if (k.rfind("os_release.", 0) == 0) rel += k.substr(11) + "=" + v + "\n";
  }
  f.os = ParseOsRelease(rel);
  return f;
}

Result<void> JudgePerfFacts(const PerfHostFacts& f, const std::string& host) {
  if (!f.perf_rc || *f.perf_rc != 0) {
    return Error{fmt::format("perf on host {}: `perf --version` {} ('{}'); install {}", host,
                             f.perf_rc ? fmt::format("exited {}", *f.perf_rc) : std::string("did not run"),
                             f.perf_out, PackageHint(f))};
  }
  if (f.uid && *f.uid == 0) return Ok();
  if (!f.paranoid) {
    return Error{fmt::format("perf on host {}: /proc/sys/kernel/perf_event_paranoid could not be read, so whether "
                             "user {} may sample is unknown; run as root or check that file",
                             host, f.uid ? std::to_string(*f.uid) : std::string("?"))};
  }
  if (*f.paranoid > 1) {
    return Error{fmt::format("perf on host {}: kernel.perf_event_paranoid is {}: user {} may not sample with kernel "
                             "frames (needs <= 1 without CAP_PERFMON); run `sudo sysctl -w "
                             "kernel.perf_event_paranoid=1` on that host, or run the suite as root there",
                             host, *f.paranoid, f.uid ? std::to_string(*f.uid) : std::string("?"))};
  }
  return Ok();
}

Result<std::vector<std::string>> PerfRecordArgv(int hz, const std::vector<int>& pids, const std::string& data_path,
                                                double secs, CallGraph call_graph) {
  if (hz < 1 || hz > kMaxProfileHz) return Error{fmt::format("perf record: {} Hz is outside 1..{}", hz, kMaxProfileHz)};
  if (pids.empty()) return Error{"perf record: no process to sample"};
  std::vector<std::string> ids;
  for (int p : pids) {
    if (p <= 1) return Error{fmt::format("perf record: pid {} is not a worker", p)};
    ids.push_back(std::to_string(p));
  }
  if (!Absolute(data_path)) return Error{fmt::format("perf record: output path '{}' is not absolute", data_path)};
  if (!(secs >= 1) || secs != std::floor(secs) || secs > 86400) {
    return Error{fmt::format("perf record: {} s is not a whole number of seconds 1..86400", secs)};
  }
  return std::vector<std::string>{"perf", "record", "-e", "cpu-clock", "-F", std::to_string(hz), "--call-graph",
                                  call_graph == CallGraph::kDwarf ? "dwarf" : "fp", "-N",
                                  "-p", fmt::format("{}", fmt::join(ids, ",")), "-o", data_path,
                                  "--", "sleep", fmt::format("{}", static_cast<long>(secs))};
}

Result<std::vector<std::string>> PerfScriptArgv(const std::string& data_path, const std::string& text_path) {
  for (const std::string* p : {&data_path, &text_path}) {
    if (!Absolute(*p)) return Error{fmt::format("perf script: path '{}' is not absolute", *p)};
  }
  return std::vector<std::string>{"sh", "-c", "exec perf script -i \"$1\" > \"$2\"", "sh", data_path, text_path};
}

std::string PerfDataPath(const std::string& run_dir, const std::string& service) {
  return run_dir + "/" + service + ".perf.data";
}
std::string PerfTextPath(const std::string& dir, const std::string& service) {
  return dir + "/" + service + ".perf.txt";
}

}  // namespace detail

Result<void> CheckPerfUsable(Host& host) {
  Command c;
  c.argv = {"sh", "-c", detail::kPerfCheckScript};
  c.timeout = seconds(30);
  auto r = host.Run(c);
  if (!r) return Error{fmt::format("perf check on host {}: {}", host.name(), r.error().message)};
  return detail::JudgePerfFacts(detail::ParsePerfFacts(r->out), host.name());
}

Result<std::vector<int>> WorkerPids(Host& host, int master_pid) {
  Command c;
  c.argv = {"sh", "-c", "cat /proc/[0-9]*/stat 2>/dev/null; true"};
  c.timeout = seconds(30);
  auto r = host.Run(c);
  if (!r) return Error{fmt::format("host {}: listing processes: {}", host.name(), r.error().message)};
  const detail::ProcSample all = detail::ParseProcSample(r->out);
  return detail::Descendants(all.procs, master_pid);
}

PerfProfiler::PerfProfiler(Host& sut, std::vector<PerfTarget> targets, PerfOptions options)
    : sut_(sut), targets_(std::move(targets)), opt_(options) {}

PerfProfiler::~PerfProfiler() {
  for (Recording& r : recordings_) {
    if (r.run.valid()) r.run.wait();
  }
}

Result<void> PerfProfiler::Prepare() {
  recordings_.clear();
  if (!opt_.dry_run) {
    if (auto ok = CheckPerfUsable(sut_); !ok) return ok;
  } else {
    (void)CheckPerfUsable(sut_);  // recorded in the plan; a dry run reads nothing
  }
  std::vector<std::string> missing;
  for (const PerfTarget& t : targets_) {
    Recording rec;
    rec.target = t;
    if (opt_.dry_run) {
      rec.pids = {t.master_pid};
    } else {
      auto pids = WorkerPids(sut_, t.master_pid);
      if (!pids) return pids.error();
      rec.pids = std::move(*pids);
    }
    if (rec.pids.empty()) {
      missing.push_back(fmt::format("{} (master pid {})", t.service, t.master_pid));
      continue;
    }
    recordings_.push_back(std::move(rec));
  }
  if (recordings_.empty()) {
    return Error{fmt::format("perf on host {}: no worker processes of {} found in /proc", sut_.name(),
                             fmt::join(missing, ", "))};
  }
  return Ok();
}

Result<void> PerfProfiler::Start(double secs) {
  seconds_ = secs;
  for (Recording& rec : recordings_) {
    auto argv = detail::PerfRecordArgv(opt_.hz, rec.pids, detail::PerfDataPath(rec.target.run_dir, rec.target.service),
                                       secs, opt_.call_graph);
    if (!argv) return argv.error();
    Command c;
    c.argv = std::move(*argv);
    c.timeout = std::chrono::milliseconds(static_cast<long long>((secs + 60) * 1000));
    if (opt_.dry_run) {  // recorded in the plan now, before the load it samples
      std::promise<Result<ExecResult>> done;
      done.set_value(sut_.Run(c));
      rec.run = done.get_future();
    } else {
      rec.run = std::async(std::launch::async, [this, c] { return sut_.Run(c); });
    }
  }
  return Ok();
}

// One recording: its end, perf script on the host, the fetch, the removal.
Result<ProfileFile> PerfProfiler::Collect(Recording& rec, const std::string& local_dir) {
  const std::string data = detail::PerfDataPath(rec.target.run_dir, rec.target.service);
  const std::string text = detail::PerfTextPath(rec.target.run_dir, rec.target.service);
  Result<void> outcome = Ok();
  auto ran = rec.run.valid() ? rec.run.get() : Result<ExecResult>(Error{"perf record was not started"});
  if (!ran) {
    outcome = Error{fmt::format("perf record on host {}: {}", sut_.name(), ran.error().message)};
  } else if (!ran->success()) {
    outcome = Error{fmt::format("perf record on host {} ({} pids of {}): {}{}", sut_.name(), rec.pids.size(),
                                rec.target.service, ran->timed_out ? "timed out; " : "", Said(*ran))};
  }
  if (outcome) {
    auto argv = detail::PerfScriptArgv(data, text);
    if (!argv) return argv.error();
    Command c;
    c.argv = std::move(*argv);
    c.timeout = seconds(300);
    auto script = sut_.Run(c);
    if (!script) {
      outcome = Error{fmt::format("perf script on host {}: {}", sut_.name(), script.error().message)};
    } else if (!script->success()) {
      outcome = Error{fmt::format("perf script on host {} ({}): {}", sut_.name(), data, Said(*script))};
    }
  }
  const std::string local = detail::PerfTextPath(local_dir, rec.target.service);
  if (outcome) {
    std::error_code ec;
    std::filesystem::create_directories(local_dir, ec);
    if (ec) outcome = Error{fmt::format("creating {}: {}", local_dir, ec.message())};
  }
  if (outcome) {
    auto fetched = sut_.Fetch(text, local, PerfScriptCap(opt_.hz, seconds_, rec.pids.size()));
    if (!fetched) outcome = fetched.error();
  }
  Command rm;
  rm.argv = {"rm", "-f", "--", data, text};
  rm.timeout = seconds(30);
  auto removed = sut_.Run(rm);
  if (outcome && (!removed || !removed->success())) {
    outcome = Error{fmt::format("host {}: removing {} and {}: {}", sut_.name(), data, text,
                                removed ? Said(*removed) : removed.error().message)};
  }
  if (!outcome) return outcome.error();
  return ProfileFile{rec.target.service, name(), local};
}

ProfileFetch PerfProfiler::Finish(const std::string& local_dir) {
  ProfileFetch got;
  for (Recording& rec : recordings_) {
    auto f = Collect(rec, local_dir);
    if (f) {
      got.files.push_back(std::move(*f));
    } else {
      got.errors.push_back(f.error().message);
    }
  }
  recordings_.clear();
  return got;
}

}  // namespace fvbench
