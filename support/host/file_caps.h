// What a host may send back, per kind of file: the one place where each cap
// is stated with its reasoning. Host::ReadFile and Host::Fetch take the cap
// of the kind they read; the bytes are counted as they arrive (a size the
// host states is only used to refuse early), so a file over its cap is
// refused after at most one read chunk past the cap, naming the file, the
// host, the kind, the cap and the bytes received, and is never stored whole.
//
// A cap is what the kind can hold when it is what fvbench expects, with room
// to spare; a file beyond it is not a result but a fault or an attack (a
// loadgen that pads its result with 1 GiB of NUL bytes).
//
//   kind                          cap      why
//   wrk result (pace.lua JSON)    2 MiB    fixed fields < 8 KiB; status_counts: at most the
//                                          500 codes 100..599, ~20 B each; the optional
//                                          histogram: at most 31,744 buckets of "index,count"
//                                          (<= 5 + 1 + 16 + 1 B) = 730 KB
//   latency histogram JSON        2 MiB    the same histogram (fvbench_k6_reduce's output on
//                                          a k6 loadgen host) plus a few counts
//   k6 summary JSON               1 MiB    one entry per metric (k6's ~20 built-ins, the
//                                          scripts' own, threshold submetrics), < 1 KiB each;
//                                          those seen are 3 KiB
//   k6 samples CSV                per phase (K6SamplesCap): k6 writes one line per metric
//                                          sample, 13 per request with the suite's scripts
//                                          (16 allowed), each < 512 B (the URL is the
//                                          longest field), for rate x (duration + 60 s)
//                                          requests; at least 1 MiB
//   engine script (pace.lua)      1 MiB    the suite's own script read back (~30 KiB)
//   edge nginx.conf.template      1 MiB    edge's template (~3 KiB)
//   policy file                   16 MiB   the policy edge loaded, shipped by this run from
//                                          FVBENCH_POLICY_DIR (the suite's are ~1 KiB)
//   nginx pid file                64 B     "<pid>\n"; pid_max is at most 4194304
//   service owner file            512 B    "<hostname> <pid>\n"; a host name is < 256 B
//   perf script text              per capture (PerfScriptCap): at most hz x (seconds + 5)
//                                 samples per worker (one thread each, so at most one CPU),
//                                 each a header line and at most 127 frames
//                                 (kernel.perf_event_max_stack's default) of < 128 B: 16 KiB
//                                 a sample; at least 1 MiB
//   /proc file                    4 MiB    /proc/stat: ~100 B per CPU (8192 CPUs: 800 KiB)
//                                          plus one count per interrupt; /proc/<pid>/cmdline
//                                          is at most ARG_MAX (2 MiB with an 8 MiB stack)
//
// Text a command prints is bounded by the command, with the same reasoning:
//   error.log tail shown          1 MiB    the last bytes of what a service logged since it
//                                          started (errors show its last 20 lines)
//   error.log growth in a phase   16 MiB   counted for the flood check: 16 MiB are >100k
//                                          lines, far past any rate the check allows
#pragma once

#include <cstddef>
#include <cstdint>

namespace fvbench {

struct FileCap {
  const char* kind;    // named in errors: "wrk result JSON"
  uint64_t max_bytes;  // more received is refused
};

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;

inline constexpr FileCap kWrkResultCap{"wrk result JSON", 2 * kMiB};
inline constexpr FileCap kHistogramCap{"latency histogram JSON", 2 * kMiB};
inline constexpr FileCap kK6SummaryCap{"k6 summary JSON", 1 * kMiB};
inline constexpr FileCap kEngineScriptCap{"engine script", 1 * kMiB};
inline constexpr FileCap kEdgeTemplateCap{"edge nginx.conf.template", 1 * kMiB};
inline constexpr FileCap kPolicyFileCap{"policy file", 16 * kMiB};
inline constexpr FileCap kPidFileCap{"nginx pid file", 64};
inline constexpr FileCap kOwnerFileCap{"service owner file", 512};
inline constexpr FileCap kProcFileCap{"/proc file", 4 * kMiB};

inline constexpr uint64_t kErrorLogTailBytes = 1 * kMiB;
inline constexpr uint64_t kErrorLogGrowthBytes = 16 * kMiB;

// k6's raw samples of one phase (k6_engine.h): 16 lines of < 512 B for each
// request of rate x (duration + 60 s), at least 1 MiB.
inline constexpr uint64_t kK6SampleLinesPerRequest = 16;
inline constexpr uint64_t kK6SampleLineBytes = 512;
FileCap K6SamplesCap(double rate_rps, double duration_s);

// perf script's text of one capture (perf_capture.h): 16 KiB per sample,
// hz x (seconds + 5) samples per worker pid, at least 1 MiB.
inline constexpr uint64_t kPerfSampleBytes = 16 * kKiB;
FileCap PerfScriptCap(int hz, double seconds, size_t pids);

}  // namespace fvbench
