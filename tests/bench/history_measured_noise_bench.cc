// The history gate (`fvbench_history check`: support/history/gate.h
// FindRegressions and GateSensitivity, change points from
// support/judge/change_points.h with its defaults) on MEASURED run-to-run
// noise: the runs of fixtures/history/measured-runs.csv (wrk, 3 s runs,
// pinned, one 2-core machine; latency.decision_service at 2000 RPS in A/A
// sets and in sets whose side B burns 8 or 17 us of CPU per request,
// latency.reverse_proxy at 2000 RPS and throughput.simple at a fixed 2607 RPS
// in A/A sets; the file's header says how they were measured). Runs whose
// validity failed are left out, as the history never takes an INVALID run as
// evidence. Prints the tables of
// docs/history.md "The gate on measured noise"; deterministic (fixed seeds,
// own generator):
//
//   build/tests/history_measured_noise_bench
//
// The gate as `check` applies it: the last change point lies among the newest
// k = 10 runs, goes up (every metric here is worse up) and moves the mean by
// >= 3 %. Metrics: the history's p50_us, p99_us, p999_us, edge_cpu_cores, and
// cpu_us_per_req (edge CPU per request; derived, not kept by the history).
//
//   1. Noise: per A/A pool, per metric, the CV (sample SD and 1.4826 x MAD
//      over the mean, the latter as check prints it), lag-1 autocorrelation;
//      the per-set means show the drift between sets of one scenario.
//   2. As measured: each A/A pool in run order, checked after every run from
//      the 6th on (as a CI job checks after each record): the checks that fail.
//   3. Resampled A/A: series of the pool's length (at most 64, the detector's
//      window), m = L - 10 reference runs and the newest k = 10, drawn by
//        shuffle  a random permutation of the pool, its first L runs
//                 (runs exchangeable: no order kept)
//        block    circular moving-block bootstrap, blocks of 5 consecutive
//                 runs at uniform starts (keeps short-range dependence and
//                 the drift within a block)
//      200 series per (pool, method, metric), seeded. Each series as drawn
//      (false alarms), and with its newest 10 runs multiplied by 1.03, 1.05,
//      1.10, and by 1 + 1x, 1.5x, 2x the detectable shift check prints for
//      that series (GateSensitivity: floored at 3 %): caught / 200.
//   4. Real injections: an A/A part followed by the measured runs of side B
//      of an injected set (edge burning 8 or 17 us per request), checked
//      after each appended run, as CI would after each record; controls
//      append A/A runs of another set instead. Per metric: the measured
//      shift (mean appended / mean before - 1), the detectable shift
//      predicted from the runs before (the last 64 - k of them, k =
//      min(10, appended)), what check prints after k appended runs (from the
//      last change point before the newest 10 on), and after which appended
//      runs check fails.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/history/gate.h"
#include "support/judge/change_points.h"
#include "support/judge/detectable_shift.h"
#include "support/judge/repeats.h"
#include "support/judge/sample_stats.h"
#include "tests/unit/detection_study.h"

namespace fvbench {
namespace {

constexpr const char* kCsv = FVBENCH_FIXTURES "/history/measured-runs.csv";
const char* const kMetrics[] = {"p50_us", "p99_us", "p999_us", "edge_cpu_cores", "cpu_us_per_req"};
constexpr size_t kRecent = 10;   // GateOptions::recent_runs
constexpr size_t kMaxLength = 64;  // ChangePointOptions::window
constexpr int kResamples = 200;
constexpr size_t kBlock = 5;

struct Run {
  std::string set;
  std::string scenario;
  std::string side;
  std::string edge;
  double start = 0;
  bool valid = true;
  std::map<std::string, double> values;
};

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) out.push_back(field);
  return out;
}

// The runs of the fixture, in file order; aborts naming the line on a bad one
// (a fixture of this repository, not user input).
std::vector<Run> LoadRuns() {
  std::ifstream in(kCsv);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", kCsv);
    std::abort();
  }
  std::vector<std::string> header;
  std::vector<Run> runs;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = SplitCsvLine(line);
    if (header.empty()) {
      header = f;
      continue;
    }
    if (f.size() != header.size()) {
      std::fprintf(stderr, "%s:%d: %zu fields, the header has %zu\n", kCsv, number, f.size(), header.size());
      std::abort();
    }
    Run r;
    for (size_t i = 0; i < f.size(); ++i) {
      const std::string& col = header[i];
      if (col == "set") r.set = f[i];
      else if (col == "scenario") r.scenario = f[i];
      else if (col == "side") r.side = f[i];
      else if (col == "edge") r.edge = f[i];
      else if (col == "edge_commit") continue;
      else if (col == "validity") r.valid = f[i] == "ok";
      else if (col == "start_unix") r.start = std::stod(f[i]);
      else r.values[col] = std::stod(f[i]);
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

bool IsAA(const Run& r) { return r.edge == "edge"; }

// Valid runs passing `keep`, by start time.
template <typename Keep>
std::vector<const Run*> Select(const std::vector<Run>& runs, Keep keep) {
  std::vector<const Run*> out;
  for (const Run& r : runs) {
    if (r.valid && keep(r)) out.push_back(&r);
  }
  std::stable_sort(out.begin(), out.end(), [](const Run* a, const Run* b) { return a->start < b->start; });
  return out;
}

std::vector<double> Values(const std::vector<const Run*>& runs, const std::string& metric) {
  std::vector<double> out;
  for (const Run* r : runs) out.push_back(r->values.at(metric));
  return out;
}

// One series through the gate, as `check` sees it.
struct GateCall {
  bool fired = false;
  ChangePoint change;        // fired: the regression's change point
  DetectableShift shift;     // what check prints for the series
};

GateCall Check(const std::vector<double>& x, const std::string& metric) {
  MetricSeries s;
  s.scenario = "measured";
  s.metric = metric;
  for (size_t i = 0; i < x.size(); ++i) s.points.push_back({static_cast<int64_t>(i + 1), static_cast<double>(i), "", x[i]});
  s.change_points = FindChangePoints(x);
  const std::vector<MetricSeries> one = {s};
  GateCall out;
  const std::vector<Regression> r = FindRegressions(one);
  if (!r.empty()) {
    out.fired = true;
    out.change = r.front().change;
  }
  out.shift = GateSensitivity(one).front().shift;
  return out;
}

double Lag1(const std::vector<double>& x) {
  const double mean = SampleMean(x);
  double num = 0, den = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    den += (x[i] - mean) * (x[i] - mean);
    if (i + 1 < x.size()) num += (x[i] - mean) * (x[i + 1] - mean);
  }
  return den > 0 ? num / den : 0;
}

std::string Pct(double f) { return fmt::format("{:.1f} %", 100 * f); }

struct Pool {
  std::string name;
  std::vector<const Run*> runs;
};

std::vector<Pool> AAPools(const std::vector<Run>& runs) {
  return {
      {"aa20 (one set, 20 A/A pairs)", Select(runs, [](const Run& r) { return r.set == "aa20"; })},
      {"all decision_service A/A (5 sets)",
       Select(runs, [](const Run& r) { return IsAA(r) && r.scenario == "latency.decision_service"; })},
      {"rp20 (reverse_proxy, 20 A/A pairs)", Select(runs, [](const Run& r) { return r.set == "rp20"; })},
      {"tp20 (throughput.simple at 2607 RPS, 20 A/A pairs)", Select(runs, [](const Run& r) { return r.set == "tp20"; })},
  };
}

std::string NoiseTable(const std::vector<Run>& runs) {
  std::string out = "### 1. Noise of the A/A runs\n\n| pool | metric | runs | mean | CV (SD) | CV (1.4826 MAD) | lag-1 autocorrelation |\n|---|---|---|---|---|---|---|\n";
  for (const Pool& p : AAPools(runs)) {
    for (const char* m : kMetrics) {
      const std::vector<double> x = Values(p.runs, m);
      const double mean = SampleMean(x);
      out += fmt::format("| {} | {} | {} | {:.4g} | {} | {} | {:+.2f} |\n", p.name, m, x.size(), mean,
                         Pct(SampleStdDev(x) / mean), Pct(MadSd(x) / mean), Lag1(x));
    }
  }
  out += "\nMean of each set's A/A runs (edge f3116f9), in the order the sets ran:\n\n| set | runs |";
  for (const char* m : kMetrics) out += fmt::format(" {} |", m);
  out += "\n|---|---|";
  for (size_t i = 0; i < std::size(kMetrics); ++i) out += "---|";
  out += "\n";
  for (const char* set : {"d3r10pin2k", "inj8", "inj17", "aa20", "inj8n20"}) {
    const auto r = Select(runs, [&](const Run& x) { return x.set == set && IsAA(x); });
    out += fmt::format("| {} | {} |", set, r.size());
    for (const char* m : kMetrics) out += fmt::format(" {:.4g} |", SampleMean(Values(r, m)));
    out += "\n";
  }
  return out;
}

// What check prints for a series' newest runs: "9.6 %", or "? (m=4)" with too few runs to tell.
std::string PrintedShift(const DetectableShift& d) {
  if (d.status == DetectableShift::Status::kOk) return Pct(d.shift);
  return fmt::format("? (m={})", d.reference_runs);
}

std::string AsMeasuredTable(const std::vector<Run>& runs) {
  std::string out = "\n### 2. The gate on the A/A series as measured (checked after every run from the 6th on)\n\n"
                    "| pool | metric | checks failing | at runs | check after the last run prints |\n|---|---|---|---|---|\n";
  for (const Pool& p : AAPools(runs)) {
    for (const char* m : kMetrics) {
      const std::vector<double> x = Values(p.runs, m);
      int checks = 0, failing = 0;
      std::string at;
      for (size_t n = 6; n <= x.size(); ++n) {
        const GateCall g = Check(std::vector<double>(x.begin(), x.begin() + static_cast<long>(n)), m);
        ++checks;
        if (g.fired) {
          ++failing;
          at += fmt::format("{}{} ({:+.1f} %)", at.empty() ? "" : ", ", n, 100 * g.change.relative_change);
        }
      }
      const GateCall last = Check(x, m);
      out += fmt::format("| {} | {} | {} of {} | {} | {} |\n", p.name, m, failing, checks, at.empty() ? "-" : at,
                         PrintedShift(last.shift));
    }
  }
  return out;
}

enum class Resample { kShuffle, kBlock };

std::vector<double> Draw(const std::vector<double>& pool, size_t length, Resample how, detection_study::Rng& rng) {
  std::vector<double> out;
  if (how == Resample::kShuffle) {
    std::vector<double> p = pool;
    for (size_t i = p.size(); i > 1; --i) std::swap(p[i - 1], p[static_cast<size_t>(rng.Uniform() * static_cast<double>(i))]);
    p.resize(length);
    return p;
  }
  while (out.size() < length) {
    const size_t start = static_cast<size_t>(rng.Uniform() * static_cast<double>(pool.size()));
    for (size_t j = 0; j < kBlock && out.size() < length; ++j) out.push_back(pool[(start + j) % pool.size()]);
  }
  return out;
}

std::vector<double> ShiftNewest(std::vector<double> x, double shift) {
  for (size_t i = x.size() - kRecent; i < x.size(); ++i) x[i] *= 1 + shift;
  return x;
}

std::string ResampledTable(const std::vector<Run>& runs) {
  std::string out = fmt::format(
      "\n### 3. The gate on resampled A/A series ({} per row, seeded; newest {} runs shifted up)\n\n"
      "| pool (length L, m + k) | resampling | metric | false alarms | +3 % | +5 % | +10 % | printed shift (median) | "
      "1x printed | 1.5x | 2x |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
      kResamples, kRecent);
  uint64_t seed = 3400;
  for (const Pool& p : AAPools(runs)) {
    const size_t length = std::min(p.runs.size(), kMaxLength);
    for (Resample how : {Resample::kShuffle, Resample::kBlock}) {
      for (const char* m : kMetrics) {
        const std::vector<double> pool = Values(p.runs, m);
        detection_study::Rng rng(++seed);
        const double fixed[] = {0, 0.03, 0.05, 0.10};
        int caught_fixed[4] = {}, caught_scaled[3] = {};
        const double scales[] = {1.0, 1.5, 2.0};
        std::vector<double> printed;
        for (int s = 0; s < kResamples; ++s) {
          const std::vector<double> x = Draw(pool, length, how, rng);
          const GateCall base = Check(x, m);
          caught_fixed[0] += base.fired;
          printed.push_back(base.shift.shift);
          for (int i = 1; i < 4; ++i) caught_fixed[i] += Check(ShiftNewest(x, fixed[i]), m).fired;
          for (int i = 0; i < 3; ++i) caught_scaled[i] += Check(ShiftNewest(x, scales[i] * base.shift.shift), m).fired;
        }
        out += fmt::format("| {} ({}, {} + {}) | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", p.name, length,
                           length - kRecent, kRecent, how == Resample::kShuffle ? "shuffle" : "block 5", m,
                           caught_fixed[0], caught_fixed[1], caught_fixed[2], caught_fixed[3], Pct(Median(printed)),
                           caught_scaled[0], caught_scaled[1], caught_scaled[2]);
      }
    }
  }
  return out;
}

// "4-13" from the sorted positions 4, 5, ..., 13; "-" for none.
std::string Ranges(const std::vector<size_t>& at) {
  if (at.empty()) return "-";
  std::string out;
  for (size_t i = 0; i < at.size();) {
    size_t j = i;
    while (j + 1 < at.size() && at[j + 1] == at[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", at[i] == at[j] ? fmt::format("{}", at[i])
                                                                          : fmt::format("{}-{}", at[i], at[j]));
    i = j + 1;
  }
  return out;
}

struct Injection {
  std::string name;
  std::vector<const Run*> before;
  std::vector<const Run*> appended;
};

std::vector<Injection> Injections(const std::vector<Run>& runs) {
  auto of = [&](const char* set, bool aa) {
    return Select(runs, [=](const Run& r) { return r.set == set && IsAA(r) == aa; });
  };
  auto join = [](std::vector<const Run*> a, const std::vector<const Run*>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const auto aa20 = of("aa20", true);
  return {
      {"aa20 -> inj8n20 B (+8 us)", aa20, of("inj8n20", false)},
      {"aa20, inj8n20 A -> inj8n20 B (+8 us)", join(aa20, of("inj8n20", true)), of("inj8n20", false)},
      {"inj8n20 A -> inj8n20 B (+8 us)", of("inj8n20", true), of("inj8n20", false)},
      {"aa20 -> inj8 B (+8 us)", aa20, of("inj8", false)},
      {"aa20 -> inj17 B (+17 us)", aa20, of("inj17", false)},
      {"aa20, inj17 A -> inj17 B (+17 us)", join(aa20, of("inj17", true)), of("inj17", false)},
      {"inj17 A -> inj17 B (+17 us)", of("inj17", true), of("inj17", false)},
      {"control: aa20 -> inj8n20 A (A/A)", aa20, of("inj8n20", true)},
      {"control: aa20 -> inj17 A (A/A)", aa20, of("inj17", true)},
      {"control: aa20 -> d3r10pin2k (A/A)", aa20, of("d3r10pin2k", true)},
  };
}

std::string InjectionTable(const std::vector<Run>& runs) {
  std::string out =
      "\n### 4. Real injected runs appended to A/A runs (checked after each appended run)\n\n"
      "| series (runs before -> runs appended) | metric | measured shift | predicted from the runs before | "
      "check prints (newest 10) | check fails after appended run |\n"
      "|---|---|---|---|---|---|\n";
  for (const Injection& c : Injections(runs)) {
    for (const char* m : kMetrics) {
      const std::vector<double> before = Values(c.before, m), appended = Values(c.appended, m);
      std::vector<double> x = before;
      std::vector<size_t> failing;
      DetectableShift printed;
      for (size_t j = 0; j < appended.size(); ++j) {
        x.push_back(appended[j]);
        const GateCall g = Check(x, m);
        if (g.fired) failing.push_back(j + 1);
        if (j + 1 == std::min(kRecent, appended.size())) printed = g.shift;
      }
      // The shift check would print with the newest runs injected and no change point among the runs before:
      // SmallestDetectableShift of the last (window - k) runs before them.
      const size_t k = std::min(kRecent, appended.size());
      const size_t ref = std::min(before.size(), kMaxLength - k);
      const DetectableShift predicted =
          SmallestDetectableShift(std::vector<double>(before.end() - static_cast<long>(ref), before.end()), k);
      out += fmt::format("| {} ({} -> {}) | {} | {:+.1f} % | {} | {} | {} |\n", c.name, before.size(), appended.size(), m,
                         100 * (SampleMean(appended) / SampleMean(before) - 1), PrintedShift(predicted),
                         PrintedShift(printed), Ranges(failing));
    }
  }
  return out;
}

void BM_MeasuredNoiseStudy(benchmark::State& state) {
  static bool printed = false;
  const std::vector<Run> runs = LoadRuns();
  for (auto _ : state) {
    std::string out = NoiseTable(runs) + AsMeasuredTable(runs) + ResampledTable(runs) + InjectionTable(runs);
    if (!printed) {
      std::printf("%s", out.c_str());
      printed = true;
    }
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_MeasuredNoiseStudy)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace fvbench
