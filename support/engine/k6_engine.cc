#include "support/engine/k6_engine.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "support/core/json_fields.h"
#include "support/engine/jwt.h"
#include "support/engine/k6_summary.h"
#include "support/engine/wrk_engine.h"
#include "support/host/dry_run_host.h"
#include "support/core/plausible.h"
#include "support/host/shell_quote.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

constexpr int kExitThresholdsFailed = 99;  // go.k6.io/k6/errext/exitcodes ThresholdsHaveFailed
constexpr double kTimeoutSlackS = kK6GracefulStopS + kK6StartupS;
constexpr size_t kStderrTailBytes = 1500;

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

// Last kStderrTailBytes of `s`, starting at a line boundary when possible.
std::string Tail(const std::string& s) {
  if (s.size() <= kStderrTailBytes) return s;
  std::string t = s.substr(s.size() - kStderrTailBytes);
  if (auto nl = t.find('\n'); nl != std::string::npos && nl + 1 < t.size()) t = t.substr(nl + 1);
  return "..." + t;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == '\n' || s[i] == ' ')) ++i;
  return s.substr(i);
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

  Result<std::string> version() override {
    if (!version_.empty()) return version_;
    Command cmd;
    cmd.argv = {"k6", "version"};
    cmd.env = {{"K6_NO_USAGE_REPORT", "true"}};
    cmd.timeout = std::chrono::seconds(30);
    auto r = host_.run(cmd);
    if (!r.ok()) return Error{fmt::format("k6 version on {}: {}", host_.name(), r.error().message)};
    const std::string out = Trim(r->out);
    if (!r->success() || out.rfind("k6 ", 0) != 0) {
      return Error{fmt::format("k6 version on {}: {}; stdout: '{}'; stderr: {}", host_.name(),
                               DescribeExit(*r, 30), Tail(out), Tail(r->err))};
    }
    version_ = out.substr(0, out.find('\n'));
    return version_;
  }

  Result<void> warmup(const LoadSpec& spec) override {
    if (spec.duration_s <= 0) return Ok();
    const std::string body_path = "/tmp/fvbench-k6-" + spec.phase + ".warmup.body.json";
    auto cmd = PlanK6Command(spec, scripts_dir_, "", body_path);
    if (!cmd.ok()) return cmd.error();
    if (auto ok = CheckLimits(spec); !ok) return Fail(spec, "warmup refused before load: " + ok.error().message);
    if (spec.kind == RequestKind::kPostJson) {
      if (auto w = host_.write_file(body_path, spec.body); !w.ok()) {
        return Fail(spec, fmt::format("writing the warmup body {}: {}", body_path, w.error().message));
      }
    }
    auto r = host_.run(*cmd);
    if (!r.ok()) return Fail(spec, fmt::format("warmup could not start k6: {}", r.error().message));
    if (auto ok = CheckExit(spec, *cmd, *r, "warmup"); !ok.ok()) return ok.error();
    return Ok();
  }

  Result<LoadResult> run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    const std::string summary = remote_dir + "/" + spec.phase + ".json";
    const std::string body_path = remote_dir + "/" + spec.phase + ".body.json";
    auto cmd = PlanK6Command(spec, scripts_dir_, summary, body_path);
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

    // Loadgen side: the directory, no stale summary, the body.
    for (const std::vector<std::string>& argv :
         {std::vector<std::string>{"mkdir", "-p", remote_dir}, std::vector<std::string>{"rm", "-f", summary}}) {
      Command prep;
      prep.argv = argv;
      prep.timeout = std::chrono::seconds(30);
      auto r = host_.run(prep);
      if (!r.ok() || !r->success()) {
        return Fail(spec, fmt::format("'{}' failed: {}", ShellJoin(argv),
                                      r.ok() ? DescribeExit(*r, 30) + "; " + Tail(r->err) : r.error().message));
      }
    }
    if (spec.kind == RequestKind::kPostJson) {
      if (auto w = host_.write_file(body_path, spec.body); !w.ok()) {
        return Fail(spec, fmt::format("writing the request body {}: {}", body_path, w.error().message));
      }
    }

    const auto t0 = std::chrono::steady_clock::now();
    auto r = host_.run(*cmd);
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) return Fail(spec, fmt::format("could not start k6: {}", r.error().message));
    (void)detail::WriteTextFile(controller_dir + "/" + spec.phase + ".k6.log",
                         RedactSecrets("== stdout ==\n" + r->out + "\n== stderr ==\n" + r->err));
    if (auto ok = CheckExit(spec, *cmd, *r, "run"); !ok.ok()) return ok.error();

    if (auto f = host_.fetch(summary, local_summary); !f.ok()) {
      return Fail(spec, fmt::format("k6 {} but its summary {} could not be fetched: {}; stderr: {}",
                                    DescribeExit(*r, 0), summary, f.error().message, Tail(r->err)));
    }
    auto text = detail::ReadTextFile(local_summary);
    if (!text.ok()) return Fail(spec, text.error().message);
    auto parsed = ParseK6Summary(*text, local_summary, static_cast<double>(std::lround(spec.rate_rps)));
    if (!parsed.ok()) return Fail(spec, parsed.error().message);
    LoadResult out = std::move(parsed).value();
    out.engine_version = version_;
    out.raw_path = local_summary;
    out.wall_s = wall_s;
    out.connections = static_cast<uint64_t>(K6VusFor(std::lround(spec.rate_rps), spec.connections).max);
    return out;
  }

 private:
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

Result<Command> PlanK6Command(const LoadSpec& spec, const std::string& scripts_dir,
                              const std::string& summary_out, const std::string& body_path) {
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
  if (spec.kind == RequestKind::kPostJson && spec.body.empty()) return bad("post request without a body");
  if (scripts_dir.empty()) return bad("no k6 scripts directory");

  const long rate = std::lround(spec.rate_rps);
  const K6Vus vus = K6VusFor(rate, spec.connections);
  const bool measured = !summary_out.empty();

  Command cmd;
  if (!spec.cpuset.empty()) cmd.argv = {"taskset", "-c", spec.cpuset};
  for (const char* a : {"k6", "run", "--quiet", "--no-color"}) cmd.argv.push_back(a);
  auto env = [&](const std::string& k, const std::string& v) {
    cmd.argv.push_back("-e");
    cmd.argv.push_back(k + "=" + v);
  };
  env("TARGET_URL", spec.url);
  env("RATE", std::to_string(rate));
  env("DURATION", fmt::format("{}", spec.duration_s));
  env("KIND", KindName(spec.kind));
  if (!spec.jwt.empty()) env("JWT", spec.jwt);
  if (spec.kind == RequestKind::kPostJson) env("BODY_FILE", body_path);
  env("PRE_VUS", std::to_string(vus.pre));
  env("MAX_VUS", std::to_string(vus.max));
  if (measured) {
    env("SUMMARY_OUT", summary_out);
    env("COUNT_RATELIMIT", spec.count_ratelimit ? "1" : "0");
  }
  cmd.argv.push_back(scripts_dir + (measured ? "/constant_rate.js" : "/warmup.js"));
  cmd.env = {{"K6_NO_USAGE_REPORT", "true"}, {"K6_NEW_MACHINE_READABLE_SUMMARY", "false"}};
  cmd.timeout = std::chrono::milliseconds(
      static_cast<long long>(std::ceil((spec.duration_s + kTimeoutSlackS) * 1000)));
  return cmd;
}

std::string K6CommandLine(const Command& cmd) {
  std::vector<std::string> words;
  for (const auto& [k, v] : cmd.env) words.push_back(k + "=" + v);
  for (const auto& a : cmd.argv) words.push_back(a.rfind("JWT=", 0) == 0 ? "JWT=<redacted>" : a);
  return ShellJoin(words);
}

std::unique_ptr<LoadEngine> MakeK6Engine(Host& loadgen, std::string scripts_dir) {
  return std::make_unique<K6Engine>(loadgen, std::move(scripts_dir));
}

}  // namespace fvbench
