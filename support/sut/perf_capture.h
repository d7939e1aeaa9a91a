// CPU flame profiles of the SUT's nginx workers with Linux perf: the "cpu"
// Profiler (profiler.h), thin I/O over the Host interface (host.h). The
// command lines and the judgement of the host's facts are pure functions
// below (detail::), unit-tested directly.
//
// On the SUT host, per profiled service (fv, backend, baseline):
//   perf record -e cpu-clock -F <hz> --call-graph dwarf -N -p <pid,pid,...>
//               -o <BENCH_DIR/run/<service>>/<service>.perf.data -- sleep <seconds>
//   (--call-graph fp, perf's -g, with PerfOptions::call_graph = kFramePointers)
//   sh -c 'exec perf script -i "$1" > "$2"' sh <...>.perf.data <...>.perf.txt
//   Host::Fetch <...>.perf.txt -> <local_dir>/<service>.perf.txt (the controller)
//   rm -f -- <...>.perf.data <...>.perf.txt
// `cpu-clock` is the kernel's software timer event: virtual machines often
// expose no hardware counters (`cycles` then fails to open), and a timer
// samples the same on every host. Call chains (kernel and user frames)
// are unwound from DWARF CFI by default: Debian's nginx and LuaJIT are
// built without frame pointers, so perf's -g (frame pointers) loses the
// user stack above the sampled function. Measured on one Debian nginx
// worker under wrk, 3 s at 99 Hz: -g gave 192 samples, 8 with an
// ngx_http_ frame, 37 KB of perf.data; dwarf 216 samples, 117 with one,
// 1.8 MB (it copies 8 KiB of user stack per sample). -N (--no-buildid-cache) leaves the SUT user's ~/.debug alone: perf
// script reads the symbols from the binaries on the same host. `-- sleep
// <seconds>` bounds the recording: with -p, perf samples the pids only and
// stops when the command exits. Every value is an argv word of its own
// after a fixed option (-p, -o, -i) or `--`, and a path must be absolute, so
// no pid list or path is ever read as an option; perf script's stdout goes
// to the file through the shell's redirection of a fixed script whose
// paths are its positional parameters, never spliced into it.
//
// The workers: every descendant of the service's recorded master pid (the
// phase monitor's way, phase_monitor.h: one `cat /proc/[0-9]*/stat`,
// judge/proc_sample.h Descendants), found at Prepare.
//
// Who may sample (Linux Documentation/admin-guide/sysctl/kernel.rst,
// "perf_event_paranoid"; perf_event_open(2)):
//   -1  (almost) all events by all users
//   >=0 no ftrace function tracepoints / raw tracepoints without CAP_PERFMON
//   >=1 no CPU-wide events without CAP_PERFMON
//   >=2 no kernel profiling without CAP_PERFMON (the upstream default)
//   Debian's and Ubuntu's kernels add higher values (3, and Ubuntu's 4) that
//   refuse perf_event_open to unprivileged users altogether.
// Attaching to a process also needs ptrace read access to it (the same
// user, or CAP_SYS_PTRACE). So: root may always sample; another user needs
// perf_event_paranoid <= 1 for the kernel frames of a process it owns (the
// suite starts nginx as itself, so its workers are its own), else the
// error says `sudo sysctl -w kernel.perf_event_paranoid=1` or run as root.
//
// perf's package (provisioning installs it only with FVBENCH_PROFILE=cpu or
// both, provision.cc): Debian `linux-perf`; Ubuntu `linux-tools-common` and
// `linux-tools-<uname -r>` (the first is only a wrapper that refuses to run
// without the second, so the check runs `perf --version`, not `command -v`);
// Amazon Linux and RHEL-compatible `perf`.
#pragma once

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/host/host.h"
#include "support/sut/os_release.h"
#include "support/sut/profiler.h"

namespace fvbench {

// One service to profile: its name and its nginx master on the SUT host.
struct PerfTarget {
  std::string service;  // fv | backend | baseline
  int master_pid = 0;   // ServiceHandle::pid
  std::string run_dir;  // SutServices::run_dir(service): where perf writes on the SUT host
};

enum class CallGraph { kDwarf, kFramePointers };

struct PerfOptions {
  int hz = 99;           // FVBENCH_PROFILE_HZ
  bool dry_run = false;  // DRY_RUN: commands are only recorded; the master stands for its workers
  CallGraph call_graph = CallGraph::kDwarf;
};

// The "cpu" profiler: one perf record per target, in parallel.
class PerfProfiler : public Profiler {
 public:
  PerfProfiler(Host& sut, std::vector<PerfTarget> targets, PerfOptions options);
  ~PerfProfiler() override;  // waits for a recording still running
  std::string name() const override { return "cpu"; }
  // CheckPerfUsable, then each target's worker pids. Err when perf cannot
  // run, or no target has a worker.
  Result<void> Prepare() override;
  Result<void> Start(double seconds) override;
  ProfileFetch Finish(const std::string& local_dir) override;

 private:
  struct Recording {
    PerfTarget target;
    std::vector<int> pids;
    std::future<Result<ExecResult>> run;
  };
  Result<ProfileFile> Collect(Recording& rec, const std::string& local_dir);

  Host& sut_;
  std::vector<PerfTarget> targets_;
  PerfOptions opt_;
  std::vector<Recording> recordings_;
  double seconds_ = 0;
};

// Whether perf can sample the SUT's workers on `host` (one command): Err
// naming the package to install (per OS family) when perf does not run, or
// the sysctl to change when the user may not sample.
Result<void> CheckPerfUsable(Host& host);

// Every descendant of `master_pid` on `host` (nginx's workers and helpers).
Result<std::vector<int>> WorkerPids(Host& host, int master_pid);

namespace detail {

// The packages that give `perf` on `os`; uname_r is the running kernel's
// release (`uname -r`), needed on Ubuntu. Err for an Ubuntu kernel release
// that is not a plain package-name part.
Result<std::vector<std::string>> PerfPackages(const HostOs& os, const std::string& uname_r);

// What CheckPerfUsable's command printed (kPerfCheckScript, key=value lines).
struct PerfHostFacts {
  std::optional<int> perf_rc;  // `perf --version`'s exit status (127: not found)
  std::string perf_out;        // its first lines
  std::optional<int> uid;      // `id -u`
  std::optional<int> paranoid; // /proc/sys/kernel/perf_event_paranoid
  std::string uname_r;
  OsRelease os;
};
extern const char kPerfCheckScript[];
PerfHostFacts ParsePerfFacts(const std::string& out);
// Ok when perf runs and this user may sample its own processes with kernel
// frames (rules in the header); else the Error naming the fix on `host`.
Result<void> JudgePerfFacts(const PerfHostFacts& f, const std::string& host);

// The command lines (the header's first block). Err for a pid <= 1, no pid,
// hz outside 1..kMaxProfileHz, seconds < 1 or not whole, a path that is not
// absolute.
Result<std::vector<std::string>> PerfRecordArgv(int hz, const std::vector<int>& pids, const std::string& data_path,
                                                double seconds, CallGraph call_graph = CallGraph::kDwarf);
Result<std::vector<std::string>> PerfScriptArgv(const std::string& data_path, const std::string& text_path);
// <run_dir>/<service>.perf.data and .perf.txt; <local_dir>/<service>.perf.txt.
std::string PerfDataPath(const std::string& run_dir, const std::string& service);
std::string PerfTextPath(const std::string& dir, const std::string& service);

}  // namespace detail
}  // namespace fvbench
