#include "support/engine/k6_engine.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/engine/jwt.h"
#include "support/engine/k6_samples.h"
#include "support/engine/k6_summary.h"
#include "support/core/latency_histogram_json.h"
#include "support/engine/wrk_engine.h"
#include "support/host/dry_run_host.h"
#include "support/core/plausible.h"
#include "support/core/text.h"
#include "support/host/shell_quote.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

constexpr int kExitThresholdsFailed = 99;  // go.k6.io/k6/errext/exitcodes ThresholdsHaveFailed
constexpr double kTimeoutSlackS = kK6GracefulStopS + kK6StartupS;
constexpr size_t kStderrTailBytes = 1500;

// k6's output in an error message: its last kStderrTailBytes, from a line start.
std::string Tail(const std::string& s) { return detail::TailBytesFromLine(s, kStderrTailBytes); }

const char* KindName(RequestKind k) {
  switch (k) {
    case RequestKind::kGet: return "get";
    case RequestKind::kDecision: return "decision";
    case RequestKind::kPostJson: return "post";
  }
  return "get";
}

bool FileSafe(const std::string& s) {
  if (s.empty() || s[0] == '.') return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A fetched file as errors name it: the controller's copy and what it copies.
std::string FetchedName(const std::string& local, const std::string& host, const std::string& remote) {
  return fmt::format("{} (fetched from {}:{})", local, host, remote);
}

// A k6 CSV file on the controller, reduced to the histogram and its
// intervals on `grid`; `source` names it in errors.
Result<K6Reduction> ReduceK6SamplesFile(const std::string& path, const std::string& source,
                                        const K6IntervalGrid& grid) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) return Error{fmt::format("{}: cannot open: {}", path, std::strerror(errno))};
  K6SampleReducer reducer(K6SampleReducer::Format::kCsv, source, grid);
  if (auto r = reducer.FeedFile(in.get()); !r) return r.error();
  return reducer.FinishReduction();
}

// The per-interval grid of a synchronised run: from the common start on the
// loadgen host's clock, FVBENCH_INTERVAL_S wide (pace.lua's 1 s when unset).
K6IntervalGrid GridOf(const LoadSpec& spec) {
  return {std::round(spec.start_epoch_us), spec.interval_us > 0 ? std::round(spec.interval_us) : 1e6};
}

std::string DescribeExit(const ExecResult& r, double timeout_s) {
  if (r.timed_out) return fmt::format("timed out after {} s and was killed", timeout_s);
  if (r.term_signal != 0) return fmt::format("was killed by signal {}", r.term_signal);
  return fmt::format("exited with status {}", r.exit_code);
}

class K6Engine : public LoadEngine {
 public:
  K6Engine(Host& host, std::string scripts_dir) : host_(host), scripts_dir_(std::move(scripts_dir)) {}

  std::string name() const override { return "k6"; }

  Result<std::string> Version() override {
    if (!version_.empty()) return version_;
    Command cmd;
    cmd.argv = {"k6", "version"};
    cmd.env = {{"K6_NO_USAGE_REPORT", "true"}};
    cmd.timeout = std::chrono::seconds(30);
    auto r = host_.Run(cmd);
    if (!r.ok()) return Error{fmt::format("k6 version on {}: {}", host_.name(), r.error().message)};
    const std::string out(detail::TrimLeft(detail::TrimRight(r->out, "\n\r "), "\n "));
    if (!r->success() || out.rfind("k6 ", 0) != 0) {
      return Error{fmt::format("k6 version on {}: {}; stdout: '{}'; stderr: {}", host_.name(),
                               DescribeExit(*r, 30), Tail(out), Tail(r->err))};
    }
    version_ = out.substr(0, out.find('\n'));
    return version_;
  }

  Result<void> Warmup(const LoadSpec& spec, const std::string& remote_dir) override {
    if (spec.duration_s <= 0) return Ok();
    const std::string body_path = remote_dir + "/" + spec.phase + ".body.json";
    auto cmd = PlanK6Command(spec, scripts_dir_, "", body_path);
    if (!cmd.ok()) return cmd.error();
    if (auto ok = CheckLimits(spec); !ok) return Fail(spec, "warmup refused before load: " + ok.error().message);
    if (spec.kind == RequestKind::kPostJson) {
      if (auto w = host_.WriteFile(body_path, spec.body); !w.ok()) {
        return Fail(spec, fmt::format("writing the warmup body {}: {}", body_path, w.error().message));
      }
    }
    auto r = host_.Run(*cmd);
    if (!r.ok()) return Fail(spec, fmt::format("warmup could not start k6: {}", r.error().message));
    if (auto ok = CheckExit(spec, *cmd, *r, "warmup"); !ok.ok()) return ok.error();
    return Ok();
  }

  Result<LoadResult> Run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    const std::string summary = remote_dir + "/" + spec.phase + ".json";
    const std::string body_path = remote_dir + "/" + spec.phase + ".body.json";
    const bool synchronised = spec.start_epoch_us > 0;
    const std::string samples = synchronised ? remote_dir + "/" + spec.phase + ".samples.csv" : "";
    const std::string histogram = synchronised ? remote_dir + "/" + spec.phase + ".histogram.json" : "";
    auto cmd = PlanK6Command(spec, scripts_dir_, summary, body_path, samples, histogram);
    if (!cmd.ok()) return cmd.error();
    if (remote_dir.empty() || controller_dir.empty()) {
      return Fail(spec, "remote_dir and controller_dir must be set");
    }
    if (auto ok = CheckLimits(spec); !ok) return Fail(spec, "refused before load: " + ok.error().message);

    // Controller side first: the command line is kept even if the run fails.
    std::error_code ec;
    std::filesystem::create_directories(controller_dir, ec);
    if (ec) return Fail(spec, fmt::format("cannot create {}: {}", controller_dir, ec.message()));
    const std::string local_summary = controller_dir + "/" + spec.phase + ".json";
    std::filesystem::remove(local_summary, ec);  // never parse a previous run's copy
    if (auto w = detail::WriteTextFile(controller_dir + "/" + spec.phase + ".cmd.txt", K6CommandLine(*cmd) + "\n");
        !w.ok()) {
      return Fail(spec, w.error().message);
    }

    // Loadgen side, in one command: the directory, no stale summary; then the body.
    {
      Command prep;
      prep.argv = {"sh", "-c", "mkdir -p -- \"$1\" && shift && rm -f -- \"$@\"", "sh", remote_dir, summary};
      if (synchronised) prep.argv.insert(prep.argv.end(), {samples, histogram});
      prep.timeout = std::chrono::seconds(30);
      auto r = host_.Run(prep);
      if (!r.ok() || !r->success()) {
        return Fail(spec, fmt::format("creating {} and removing a stale {} failed: {}", remote_dir, summary,
                                      r.ok() ? DescribeExit(*r, 30) + "; " + Tail(r->err) : r.error().message));
      }
    }
    if (spec.kind == RequestKind::kPostJson) {
      if (auto w = host_.WriteFile(body_path, spec.body); !w.ok()) {
        return Fail(spec, fmt::format("writing the request body {}: {}", body_path, w.error().message));
      }
    }

    const auto t0 = std::chrono::steady_clock::now();
    auto r = host_.Run(*cmd);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) return Fail(spec, fmt::format("could not start k6: {}", r.error().message));
    (void)detail::WriteTextFile(controller_dir + "/" + spec.phase + ".k6.log",
                         RedactSecrets("== stdout ==\n" + r->out + "\n== stderr ==\n" + r->err));
    if (auto ok = CheckExit(spec, *cmd, *r, "run"); !ok.ok()) return ok.error();

    if (auto f = host_.Fetch(summary, local_summary, kK6SummaryCap); !f.ok()) {
      return Fail(spec, fmt::format("k6 {} but its summary {} could not be fetched: {}; stderr: {}",
                                    DescribeExit(*r, 0), summary, f.error().message, Tail(r->err)));
    }
    auto text = detail::ReadTextFile(local_summary);
    if (!text.ok()) return Fail(spec, text.error().message);
    // A segment's target is its share of the whole test's integer rate.
    const double target = spec.k6_segment.empty() ? static_cast<double>(std::lround(spec.rate_rps)) : spec.rate_rps;
    auto parsed = ParseK6Summary(*text, FetchedName(local_summary, host_.name(), summary), target);
    if (!parsed.ok()) return Fail(spec, parsed.error().message);
    LoadResult out = std::move(parsed).value();
    out.engine_version = version_;
    out.raw_path = local_summary;
    out.wall_s = wall_s;
    out.connections = static_cast<uint64_t>(K6VusFor(std::lround(spec.rate_rps), spec.connections).max);
    if (synchronised) {
      auto kept = KeepInstance(spec, r->err, samples, histogram, controller_dir);
      if (!kept) return kept.error();
      out.intervals = std::move(kept->intervals);  // on the loadgen host's clock; multi_loadgen maps it
    }
    return out;
  }

 private:
  // A synchronised run's start (the wrapper's fvbench-ready / fvbench-resumed
  // lines on stderr) and its histogram -> <phase>.instance.json on the
  // controller. The histogram is the loadgen host's reduction when the tool
  // was there and succeeded, else the samples are fetched and reduced here.
  Result<K6InstanceRun> KeepInstance(const LoadSpec& spec, const std::string& err, const std::string& samples,
                                     const std::string& histogram, const std::string& controller_dir) {
    K6InstanceRun run;
    std::istringstream lines(err);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string tag;
      words >> tag;
      if (tag == "fvbench-ready") words >> run.ready_epoch_us;
      if (tag == "fvbench-resumed") words >> run.resume_sent_epoch_us >> run.resumed_epoch_us;
    }
    if (!(run.ready_epoch_us > 0) || !(run.resumed_epoch_us > 0)) {
      return Fail(spec, "k6 ran but the wrapper printed no fvbench-ready / fvbench-resumed line; stderr: " + Tail(err));
    }
    const std::string local_hist = controller_dir + "/" + spec.phase + ".histogram.json";
    std::error_code ec;
    std::filesystem::remove(local_hist, ec);
    if (auto f = host_.Fetch(histogram, local_hist, kHistogramCap); f.ok()) {
      auto text = detail::ReadTextFile(local_hist);
      if (!text) return Fail(spec, text.error().message);
      auto h = ParseK6ReductionJson(*text, FetchedName(local_hist, host_.name(), histogram));
      if (!h) return Fail(spec, h.error().message);
      run.histogram = std::move(h->histogram);
      run.intervals = std::move(h->intervals);
      run.intervals_absent = std::move(h->intervals_absent);
      run.reduced_on = "loadgen host";
    } else {
      const std::string local_samples = controller_dir + "/" + spec.phase + ".samples.csv";
      if (auto g = host_.Fetch(samples, local_samples, K6SamplesCap(spec.rate_rps, spec.duration_s)); !g.ok()) {
        return Fail(spec, fmt::format("no histogram {} and the samples {} could not be fetched: {}", histogram,
                                      samples, g.error().message));
      }
      auto h = ReduceK6SamplesFile(local_samples, FetchedName(local_samples, host_.name(), samples), GridOf(spec));
      if (!h) return Fail(spec, h.error().message);
      run.histogram = std::move(h->histogram);
      run.intervals = std::move(h->intervals);
      run.intervals_absent = std::move(h->intervals_absent);
      run.reduced_on = "controller";
    }
    if (auto w = detail::WriteTextFile(K6InstancePath(controller_dir, spec.phase), K6InstanceToJson(run).dump(2) + "\n");
        !w) {
      return Fail(spec, w.error().message);
    }
    return run;
  }

  Error Fail(const LoadSpec& spec, const std::string& what) const {
    return Error{fmt::format("k6 phase '{}' on {}: {}", spec.phase, host_.name(), what)};
  }

  Result<void> CheckExit(const LoadSpec& spec, const Command& cmd, const ExecResult& r,
                         const char* what) const {
    const bool ok = !r.timed_out && r.term_signal == 0 &&
                    (r.exit_code == 0 || r.exit_code == kExitThresholdsFailed);
    if (ok) return Ok();
    const double timeout_s = std::chrono::duration<double>(cmd.timeout).count();
    return Fail(spec, fmt::format("{}: k6 {} (command: {}); stderr tail: {}", what,
                                  DescribeExit(r, timeout_s), K6CommandLine(cmd),
                                  r.err.empty() ? "(empty)" : Tail(r.err)));
  }

  // maxVUs (each VU holds a connection to the SUT) against the host's limits
  // (loadgen_limits.h: k6 runs on the hard open-files limit), probed once.
  Result<void> CheckLimits(const LoadSpec& spec) {
    if (dynamic_cast<DryRunHost*>(&host_) != nullptr) return Ok();
    if (!limits_) {
      auto l = ProbeLoadgenLimits(host_);
      if (!l) return l.error();
      limits_ = *l;
    }
    LoadgenNeeds n;
    n.engine = "k6";
    n.connections = static_cast<uint64_t>(K6VusFor(std::lround(spec.rate_rps), spec.connections).max);
    n.open_files = n.connections + kK6OwnFiles;
    if (auto cpus = CountCpuList(spec.cpuset); !spec.cpuset.empty() && cpus) n.pinned_cpus = *cpus;
    return CheckLoadgenLimits(host_.name(), n, *limits_);
  }

  Host& host_;
  std::string scripts_dir_;
  std::string version_;
  std::optional<LoadgenLimits> limits_;
};

}  // namespace

Result<K6Segment> ParseK6Segment(const std::string& segment) {
  // One bound: "0", "1" or "p/q" (what PlanShards writes).
  auto bound = [](const std::string& t, double& v) {
    const auto slash = t.find('/');
    const std::string num = t.substr(0, slash);
    const std::string den = slash == std::string::npos ? "1" : t.substr(slash + 1);
    auto digits = [](const std::string& d) {
      return !d.empty() && d.size() <= 6 && d.find_first_not_of("0123456789") == std::string::npos;
    };
    if (!digits(num) || !digits(den) || std::stol(den) == 0) return false;
    v = static_cast<double>(std::stol(num)) / static_cast<double>(std::stol(den));
    return v >= 0 && v <= 1;
  };
  const auto colon = segment.find(':');
  K6Segment seg;
  if (colon == std::string::npos || !bound(segment.substr(0, colon), seg.from) ||
      !bound(segment.substr(colon + 1), seg.to) || !(seg.from < seg.to)) {
    return Error{fmt::format("execution segment '{}': expected <from>:<to>, each 0, 1 or p/q, from < to", segment)};
  }
  seg.index = static_cast<size_t>(std::lround(seg.from / (seg.to - seg.from)));
  return seg;
}

std::string K6ApiAddress(const LoadSpec& spec) {
  size_t index = 0;
  if (auto seg = ParseK6Segment(spec.k6_segment); !spec.k6_segment.empty() && seg) index = seg->index;
  return fmt::format("127.0.0.1:{}", kK6ApiBasePort + index);
}

std::string K6InstancePath(const std::string& controller_dir, const std::string& phase) {
  return controller_dir + "/" + phase + ".instance.json";
}

nlohmann::json K6InstanceToJson(const K6InstanceRun& run) {
  K6Reduction reduction;
  reduction.histogram = run.histogram;
  reduction.intervals = run.intervals;
  reduction.intervals_absent = run.intervals_absent;
  return {{"schema", "fvbench.k6-instance/1"},
          {"ready_epoch_us", static_cast<int64_t>(std::llround(run.ready_epoch_us))},
          {"resume_sent_epoch_us", static_cast<int64_t>(std::llround(run.resume_sent_epoch_us))},
          {"resumed_epoch_us", static_cast<int64_t>(std::llround(run.resumed_epoch_us))},
          {"reduced_on", run.reduced_on},
          {"histogram", K6ReductionToJson(reduction)}};
}

Result<K6InstanceRun> ParseK6InstanceJson(std::string_view text, const std::string& source) {
  if (auto nul = detail::RefuseNulBytes(text, source); !nul) return nul.error();
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Error{source + ": not a JSON object"};
  if (doc.value("schema", "") != "fvbench.k6-instance/1") return Error{source + ": schema is not fvbench.k6-instance/1"};
  K6InstanceRun run;
  for (auto [key, field] : {std::pair{"ready_epoch_us", &run.ready_epoch_us},
                            std::pair{"resume_sent_epoch_us", &run.resume_sent_epoch_us},
                            std::pair{"resumed_epoch_us", &run.resumed_epoch_us}}) {
    if (!doc.contains(key) || !doc[key].is_number() || !(doc[key].get<double>() > 0)) {
      return Error{fmt::format("{}: field `{}`: missing or not a positive number", source, key)};
    }
    *field = doc[key].get<double>();
  }
  run.reduced_on = doc.value("reduced_on", "");
  if (!doc.contains("histogram")) return Error{source + ": no field `histogram`"};
  auto h = K6ReductionFromJson(doc["histogram"], source + ": histogram");
  if (!h) return h.error();
  run.histogram = std::move(h->histogram);
  run.intervals = std::move(h->intervals);
  run.intervals_absent = std::move(h->intervals_absent);
  return run;
}

K6Vus K6VusFor(long rate, int connections) {
  K6Vus v;
  if (connections > 0) {
    v.pre = connections;
  } else {
    v.pre = std::max<long>(kK6MinPreVus, static_cast<long>(std::ceil(rate / kK6RatePerVu)));
  }
  v.max = v.pre * kK6MaxVusFactor;
  return v;
}

namespace {

// The synchronised instance as one bash command on the loadgen host (see
// k6_engine.h "Synchronised start"); `run` is the k6 run command with
// --paused --address. bash, not sh: `kill -0` must fail once k6 exited, and
// bash reaps its background children as they exit (dash keeps them until `wait`).
Command SynchronisedK6Command(const LoadSpec& spec, const Command& run, const std::string& scripts_dir,
                              const std::string& samples_out, const std::string& histogram_out) {
  const std::string addr = K6ApiAddress(spec);
  const std::string pin = spec.cpuset.empty() ? "" : "taskset -c " + ShellQuote(spec.cpuset) + " ";
  const std::string status = pin + "k6 status --address " + addr + " >/dev/null 2>&1";
  const std::string reduce = ShellQuote(scripts_dir + "/" + std::string(kK6ReduceTool));
  const std::string now_us = "$(( $(date +%s%N) / 1000 ))";
  std::string sh;
  sh += fmt::format("if {}; then echo 'fvbench-k6: a k6 already answers at {} (a stale run?)' >&2; exit 3; fi\n",
                    status, addr);
  sh += ShellJoin(run.argv) + " &\n";
  sh += "pid=$!\n";
  sh += "tries=0\n";
  sh += fmt::format("until {}; do\n", status);
  sh += "  tries=$((tries + 1))\n";
  sh += "  if ! kill -0 $pid 2>/dev/null; then\n";
  sh += "    wait $pid; rc=$?\n";
  sh += fmt::format("    echo \"fvbench-k6: k6 exited (status $rc) before its REST API at {} answered\" >&2\n", addr);
  sh += "    exit $(( rc ? rc : 3 ))\n";
  sh += "  fi\n";
  sh += fmt::format("  if [ $tries -ge {} ]; then\n", kK6ApiReadyTries);
  sh += fmt::format("    echo 'fvbench-k6: the REST API at {} did not answer in {} tries' >&2\n", addr, kK6ApiReadyTries);
  sh += "    kill $pid 2>/dev/null; wait $pid; exit 3\n";
  sh += "  fi\n";
  sh += "  sleep 0.1\n";
  sh += "done\n";
  sh += fmt::format("echo \"fvbench-ready {}\" >&2\n", now_us);
  sh += fmt::format("wait_us=$(( {} - {} ))\n", static_cast<int64_t>(std::llround(spec.start_epoch_us)), now_us);
  sh += "if [ $wait_us -gt 0 ]; then sleep $((wait_us / 1000000)).$(printf %06d $((wait_us % 1000000))); fi\n";
  sh += fmt::format("sent_us={}\n", now_us);
  sh += fmt::format("if ! {}k6 resume --address {} >/dev/null; then\n", pin, addr);
  sh += fmt::format("  echo 'fvbench-k6: k6 resume --address {} failed' >&2; kill $pid 2>/dev/null; wait $pid; exit 3\n",
                    addr);
  sh += "fi\n";
  sh += fmt::format("echo \"fvbench-resumed $sent_us {}\" >&2\n", now_us);
  sh += "wait $pid\n";
  sh += "rc=$?\n";
  // The reducer writes its output as a new file renamed into place (never
  // through a link at that name); a failed reduction leaves none.
  const K6IntervalGrid grid = GridOf(spec);
  sh += fmt::format("if [ -x {} ]; then {} --origin-us {:.0f} --width-us {:.0f} -o {} -- csv {}; fi\n", reduce, reduce,
                    grid.origin_epoch_us, grid.width_us, ShellQuote(histogram_out), ShellQuote(samples_out));
  sh += "exit $rc\n";
  Command cmd;
  cmd.argv = {"bash", "-c", sh};
  cmd.env = run.env;
  cmd.timeout = run.timeout;
  return cmd;
}

}  // namespace

Result<Command> PlanK6Command(const LoadSpec& spec, const std::string& scripts_dir,
                              const std::string& summary_out, const std::string& body_path,
                              const std::string& samples_out, const std::string& histogram_out) {
  auto bad = [&](const std::string& what) {
    return Error{fmt::format("k6 phase '{}': {}", spec.phase, what)};
  };
  if (!FileSafe(spec.phase)) return bad("phase name must be non-empty [A-Za-z0-9._-], not starting with '.'");
  if (spec.url.empty()) return bad("no target URL");
  // Before any conversion (std::lround of a larger rate is undefined): k6's
  // duration is int64 nanoseconds, its rate an int64, the timeout below int64
  // milliseconds; plausible.h's bounds fit all of them.
  if (spec.duration_s > kMaxPhaseSeconds || spec.rate_rps > kMaxRateRps) {
    return bad(fmt::format("duration {} s at {} RPS: above the longest phase ({} s) or the highest rate ({} RPS) "
                           "fvbench plans",
                           detail::FormatNumber(spec.duration_s), detail::FormatNumber(spec.rate_rps),
                           detail::FormatNumber(kMaxPhaseSeconds), detail::FormatNumber(kMaxRateRps)));
  }
  if (!std::isfinite(spec.rate_rps) || std::lround(spec.rate_rps) < 1) {
    return bad(fmt::format("rate {} req/s: k6 needs an integer rate >= 1", spec.rate_rps));
  }
  if (!std::isfinite(spec.duration_s) || spec.duration_s <= 0) {
    return bad(fmt::format("duration {} s must be > 0", spec.duration_s));
  }
  if (spec.connections < 0) return bad(fmt::format("connections {} must be >= 0", spec.connections));
  if (auto k = CheckBenchKeys(spec.keys); !k) return bad(k.error().message);
  if (spec.kind == RequestKind::kPostJson && spec.body.empty()) return bad("post request without a body");
  if (scripts_dir.empty()) return bad("no k6 scripts directory");

  // With a segment, k6 is given the whole test (rate, VUs) and runs this
  // segment's share of it (k6 docs, k6 options reference: "Execution
  // segment"); spec.rate_rps and spec.connections are the share.
  double width = 1;
  if (!spec.k6_segment.empty()) {
    auto seg = ParseK6Segment(spec.k6_segment);
    if (!seg) return bad(seg.error().message);
    if (spec.k6_sequence.empty()) return bad("an execution segment without its sequence");
    width = seg->to - seg->from;
  }
  const long rate = std::lround(spec.rate_rps / width);
  if (rate < 1) return bad(fmt::format("rate {} req/s: k6 needs an integer rate >= 1", spec.rate_rps / width));
  const K6Vus vus =
      K6VusFor(rate, spec.connections > 0 ? static_cast<int>(std::lround(spec.connections / width)) : 0);
  const bool measured = !summary_out.empty();
  const bool synchronised = measured && spec.start_epoch_us > 0;
  if (synchronised && samples_out.empty()) return bad("a synchronised run needs its samples file");

  Command cmd;
  if (!spec.cpuset.empty()) cmd.argv = {"taskset", "-c", spec.cpuset};
  // The JWT reaches the script through k6's environment (below), never its
  // argv: k6 run puts the environment into __ENV with this flag (its default
  // for `run`, said explicitly so K6_INCLUDE_SYSTEM_ENV_VARS=false cannot
  // drop the token).
  for (const char* a : {"k6", "run", "--quiet", "--no-color", "--include-system-env-vars"}) cmd.argv.push_back(a);
  if (synchronised) {
    for (const std::string& a : {std::string("--paused"), std::string("--address"), K6ApiAddress(spec)}) {
      cmd.argv.push_back(a);
    }
  }
  if (!spec.k6_segment.empty()) {
    for (const std::string& a : {std::string("--execution-segment"), spec.k6_segment,
                                 std::string("--execution-segment-sequence"), spec.k6_sequence}) {
      cmd.argv.push_back(a);
    }
  }
  if (synchronised) {
    cmd.argv.push_back("--out");
    cmd.argv.push_back("csv=" + samples_out);
  }
  auto env = [&](const std::string& k, const std::string& v) {
    cmd.argv.push_back("-e");
    cmd.argv.push_back(k + "=" + v);
  };
  env("TARGET_URL", spec.url);
  env("RATE", std::to_string(rate));
  env("DURATION", fmt::format("{}", spec.duration_s));
  env("KIND", KindName(spec.kind));
  if (spec.kind == RequestKind::kPostJson) env("BODY_FILE", body_path);
  env("PRE_VUS", std::to_string(vus.pre));
  env("MAX_VUS", std::to_string(vus.max));
  // Always set (0: none), so a KEYS in the caller's environment never
  // reaches the script (--include-system-env-vars).
  env("KEYS", std::to_string(spec.keys));
  if (measured) {
    env("SUMMARY_OUT", summary_out);
    env("COUNT_RATELIMIT", spec.count_ratelimit ? "1" : "0");
  }
  cmd.argv.push_back(scripts_dir + (measured ? "/constant_rate.js" : "/warmup.js"));
  // JWT always set (empty: no Authorization header), so a JWT in the
  // caller's environment never reaches the script.
  cmd.env = {{"K6_NO_USAGE_REPORT", "true"}, {"K6_NEW_MACHINE_READABLE_SUMMARY", "false"}, {"JWT", spec.jwt}};
  // The samples' timestamps in µs (k6_engine.h "Synchronised start"), so the
  // reducer can place each in its interval.
  if (synchronised) cmd.env["K6_CSV_TIME_FORMAT"] = "unix_micro";
  cmd.timeout = std::chrono::milliseconds(static_cast<long long>(
      std::ceil((spec.duration_s + kTimeoutSlackS + (synchronised ? spec.start_wait_s : 0)) * 1000)));
  if (synchronised) return SynchronisedK6Command(spec, cmd, scripts_dir, samples_out, histogram_out);
  return cmd;
}

std::string K6CommandLine(const Command& cmd) {
  // NAME=value stays an assignment only if NAME is not quoted: quote values only.
  std::string line;
  for (const auto& [k, v] : cmd.env) line += k + "=" + ShellQuote(k == "JWT" && !v.empty() ? "<redacted>" : v) + " ";
  return RedactSecrets(line + ShellJoin(cmd.argv));
}

std::unique_ptr<LoadEngine> MakeK6Engine(Host& loadgen, std::string scripts_dir) {
  return std::make_unique<K6Engine>(loadgen, std::move(scripts_dir));
}

}  // namespace fvbench
