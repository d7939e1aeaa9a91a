// LoadEngine: runs one load phase on the load-generator host and returns an
// engine-neutral LoadResult. Implementations: K6Engine (k6_engine.h, primary)
// and WrkEngine (wrk_engine.h, the offline engine: Debian's wrk + a pacing
// Lua script). Both drive an open model: requests are scheduled at a
// constant arrival rate (k6 `constant-arrival-rate`; wrk pacing script), and
// the engine reports whether it kept to that schedule.
#pragma once

#include <memory>
#include <string>

#include <fmt/format.h>

#include "support/core/config.h"
#include "support/engine/loadgen_limits.h"
#include "support/host/host.h"
#include "support/core/load_result.h"
#include "support/core/result.h"

namespace fvbench {

enum class RequestKind {
  kGet,       // GET url (Authorization: Bearer <jwt> when jwt is set)
  kDecision,  // POST url body "{}" with X-Original-Method: POST, X-Original-URI:
              // /v1/chat/completions, X-Forwarded-For: 203.0.113.<1..254>, Bearer jwt
  kPostJson,  // POST url with `body` (Content-Type: application/json), Bearer jwt
};

// Rate-limit keys (LoadSpec::keys > 0): every request carries the header
// `X-Bench-Key: k<i>`, i = 0..keys-1, the keys taken in turn so that each
// gets rate_rps / keys (edge's limits policy keys on it:
// fixtures/policies/limits.json, limit_keys ["header:X-Bench-Key"]; the SUT
// logs it as nginx's $http_x_bench_key). How each engine spreads them:
// pace.lua (FVBENCH_KEYS) and k6/common.js (KEYS).
inline constexpr const char kBenchKeyHeader[] = "X-Bench-Key";
// At most this many keys: wrk's pace.lua builds every key's request once per
// thread (about 100-300 bytes each) before the load starts.
inline constexpr int kMaxBenchKeys = 100000;

// The value of the key header for key i: "k<i>".
inline std::string BenchKey(int i) { return fmt::format("k{}", i); }


struct LoadSpec {
  std::string phase;         // file-safe phase name, e.g. "latency_raw_nginx", "throughput_simple_s03"
  std::string url;           // full URL as seen from the loadgen host
  RequestKind kind = RequestKind::kGet;
  std::string jwt;           // empty = no Authorization header
  std::string body;          // kPostJson only
  double rate_rps = 0;       // constant arrival rate, requests/s
  double duration_s = 0;     // seconds
  int connections = 0;       // wrk connections / k6 preAllocatedVUs; 0 = engine derives from rate
  std::string cpuset;        // taskset -c list for the engine; empty = unpinned
  bool count_ratelimit = false;  // count responses carrying a RateLimit header
  // wrk: pace.lua also writes its mergeable latency histogram (FVBENCH_HISTOGRAM=1,
  // core/latency_histogram_json.h). Off by default: it costs time after -d.
  bool latency_histogram = false;
  // Several load generators (multi_loadgen.h): a common start on
  // the wall clock (µs since the Unix epoch; 0 = the engine starts its
  // schedule when it is ready), this instance's schedule offset after it
  // (µs), and the longest the engine may wait for the start after its launch
  // (s; wrk's -d = ceil(start_wait_s + duration_s + 0.25) covers that wait,
  // the schedule window stays duration_s).
  double start_epoch_us = 0;
  double offset_us = 0;
  double start_wait_s = 0;
  // k6 only (k6_engine.h): this instance's execution segment of one
  // sequence (`--execution-segment`, `--execution-segment-sequence`), as
  // PlanShards gives them ("1/2:1", "0,1/2,1"); empty = the whole test. With
  // a segment, rate_rps (and connections) stay this instance's share; k6 is
  // given the whole test's and splits them itself.
  std::string k6_segment;
  std::string k6_sequence;
  // > 0: each request carries X-Bench-Key: k<i>, i cycling over 0..keys-1
  // (kBenchKeyHeader above); 0: no such header.
  int keys = 0;
  // wrk: the width of pace.lua's counts per interval (µs, whole, 1000 ..
  // 3600e6; FVBENCH_INTERVAL_US); 0: pace.lua's own 1 s. The scenarios set
  // it from FVBENCH_INTERVAL_S (config.h interval_s).
  double interval_us = 0;
};

// keys within [0, kMaxBenchKeys]; the error names the number and the bound.
inline Result<void> CheckBenchKeys(int keys) {
  if (keys < 0 || keys > kMaxBenchKeys) {
    return Error{fmt::format("keys {}: the number of {} keys must be between 0 (none) and {}", keys,
                             kBenchKeyHeader, kMaxBenchKeys)};
  }
  return Ok();
}

class LoadEngine {
 public:
  virtual ~LoadEngine() = default;
  virtual std::string name() const = 0;  // "k6" | "wrk"
  // The engine's version line, e.g. "k6 v0.54.0 (...)", "wrk 4.1.0".
  virtual Result<std::string> Version() = 0;
  // Unmeasured warmup at spec.rate_rps for spec.duration_s; output discarded.
  // A POST body is written on the loadgen host under `remote_dir` (as Run()
  // does: BENCH_DIR's results folder), never outside BENCH_DIR.
  virtual Result<void> Warmup(const LoadSpec& spec, const std::string& remote_dir) = 0;
  // Measured phase. Raw output is written on the loadgen host under
  // `remote_dir`, fetched to `controller_dir`, parsed there. The returned
  // LoadResult has raw_path = the controller-side copy. An engine failure
  // (non-zero exit other than k6's 99 "thresholds failed", timeout, no output)
  // is an Error naming the phase, the command's exit status and its stderr tail.
  virtual Result<LoadResult> Run(const LoadSpec& spec, const std::string& remote_dir,
                                 const std::string& controller_dir) = 0;
};

// scripts_dir: directory on the loadgen host holding the suite's k6/ scripts
// (K6) or support/engine/ scripts (wrk).
std::unique_ptr<LoadEngine> MakeK6Engine(Host& loadgen, std::string scripts_dir);
std::unique_ptr<LoadEngine> MakeWrkEngine(Host& loadgen, std::string scripts_dir);

// The loadgen host's open-files limits, ephemeral port range and CPUs
// (loadgen_limits.h), as the shell the engine runs in sees them. Both engines
// check a phase's needs against them before its load (warmup included) and
// refuse it naming the host and both numbers.
Result<LoadgenLimits> ProbeLoadgenLimits(Host& loadgen);

}  // namespace fvbench
