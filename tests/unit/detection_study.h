// The detection study of the history gate, shared by
// change_points_test.cc (which asserts the goals) and
// tests/bench/change_points_bench.cc (which prints the table and times it).
//
// Synthetic series, not measurements: 200 runs of a metric around 1000 with
// 2 % run-to-run noise (Gaussian, or Student's t with 3 degrees of freedom
// scaled to the same 2 % standard deviation: the heavy-tailed variant), and
// one persistent shift of 3 %, 5 % or 10 % (up or down) at a known run drawn
// from [50, 150]; plus series with no shift for the false-alarm rate.
//
// Methods compared on the same series:
//   e-divisive       FindChangePoints (support/judge/change_points.h), defaults
//                    (on the values, Matteson & James as published)
//   e-div ranks      the same on mid-ranks (ChangePointOptions::Scale::kRanks)
//   e-div winsor     the same on values clipped to median +- 4 x MAD-sd (kWinsorized)
//   prev-run +-5%    alarm at run i when |x_i / x_{i-1} - 1| > 5 %
//   baseline +-5%    alarm at run i when |x_i / x_0 - 1| > 5 % (run 0 saved as the baseline)
// Scoring: a shift at run t is detected when an alarm falls within 3 runs of
// it (e-divisive: |cp - t| <= 3; the gates see runs one at a time, so
// t <= i <= t + 3). Any other alarm is spurious, except that the baseline
// gate keeps alarming after a real shift until the baseline is re-saved, so
// its alarms after t are not counted. False alarms per 1000 runs come from
// the series without a shift.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/judge/change_points.h"

namespace fvbench::detection_study {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return (static_cast<double>(Next() >> 11) + 0.5) * 0x1.0p-53; }
  double Normal() { return std::sqrt(-2 * std::log(Uniform())) * std::cos(6.283185307179586 * Uniform()); }
  // Student's t, 3 degrees of freedom, scaled to unit variance (var t3 = 3).
  double HeavyTailed() {
    double chi2 = 0;
    for (int i = 0; i < 3; ++i) {
      double z = Normal();
      chi2 += z * z;
    }
    return Normal() / std::sqrt(chi2 / 3) / std::sqrt(3.0);
  }

 private:
  uint64_t s_;
};

enum class Noise { kGaussian, kHeavyTailed };
inline const char* NoiseName(Noise n) { return n == Noise::kGaussian ? "gaussian" : "t3 heavy"; }

struct Series {
  std::vector<double> values;
  size_t shift_at = 0;  // 0: no shift
};

inline Series MakeSeries(Rng& rng, Noise noise, double shift, size_t runs = 200, double sd = 0.02) {
  Series s;
  double sign = rng.Uniform() < 0.5 ? -1 : 1;
  if (shift > 0) s.shift_at = 50 + static_cast<size_t>(rng.Uniform() * 101);
  for (size_t i = 0; i < runs; ++i) {
    double level = (s.shift_at && i >= s.shift_at) ? 1 + sign * shift : 1;
    double e = noise == Noise::kGaussian ? rng.Normal() : rng.HeavyTailed();
    s.values.push_back(1000 * level * (1 + sd * e));
  }
  return s;
}

enum class Method { kEDivisive, kEDivisiveRanks, kEDivisiveWinsor, kPrevRun, kBaseline };
inline bool IsEDivisive(Method m) {
  return m == Method::kEDivisive || m == Method::kEDivisiveRanks || m == Method::kEDivisiveWinsor;
}
inline const char* MethodName(Method m) {
  switch (m) {
    case Method::kEDivisive: return "e-divisive";
    case Method::kEDivisiveRanks: return "e-div ranks";
    case Method::kEDivisiveWinsor: return "e-div winsor";
    case Method::kPrevRun: return "prev-run +-5%";
    case Method::kBaseline: return "baseline +-5%";
  }
  return "?";
}

inline std::vector<size_t> Alarms(Method m, const std::vector<double>& x) {
  std::vector<size_t> out;
  if (IsEDivisive(m)) {
    ChangePointOptions o;
    if (m == Method::kEDivisiveRanks) o.scale = ChangePointOptions::Scale::kRanks;
    if (m == Method::kEDivisiveWinsor) o.scale = ChangePointOptions::Scale::kWinsorized;
    for (const ChangePoint& cp : FindChangePoints(x, o)) out.push_back(cp.index);
    return out;
  }
  for (size_t i = 1; i < x.size(); ++i) {
    double ref = m == Method::kPrevRun ? x[i - 1] : x[0];
    if (std::fabs(x[i] / ref - 1) > 0.05) out.push_back(i);
  }
  return out;
}

struct Score {
  int series = 0;
  int detected = 0;
  int missed = 0;
  int spurious = 0;   // alarms that match no shift
  long runs = 0;
};

inline void ScoreSeries(Method m, const Series& s, Score& score) {
  score.series++;
  score.runs += static_cast<long>(s.values.size());
  bool hit = false;
  for (size_t a : Alarms(m, s.values)) {
    bool near = false;
    if (s.shift_at) {
      long d = static_cast<long>(a) - static_cast<long>(s.shift_at);
      near = IsEDivisive(m) ? std::labs(d) <= 3 : (d >= 0 && d <= 3);
      if (m == Method::kBaseline && d > 3) continue;
    }
    if (near) hit = true;
    else score.spurious++;
  }
  if (s.shift_at) (hit ? score.detected : score.missed)++;
}

struct Row {
  Noise noise;
  Method method;
  double shift;  // 0: no-shift series
  Score score;
};

constexpr double kShifts[] = {0.0, 0.03, 0.05, 0.10};

// series_per_cell shifted series per (noise, shift) and `no_shift_series`
// without one (x 200 runs), seeded so the table is the same on every run.
inline std::vector<Row> RunStudy(int series_per_cell = 100, int no_shift_series = 50, uint64_t seed = 16) {
  std::vector<Row> rows;
  for (Noise noise : {Noise::kGaussian, Noise::kHeavyTailed}) {
    for (double shift : kShifts) {
      Rng rng(seed + static_cast<uint64_t>(shift * 1000) + (noise == Noise::kGaussian ? 0 : 7777));
      std::vector<Series> series;
      int count = shift > 0 ? series_per_cell : no_shift_series;
      for (int i = 0; i < count; ++i) series.push_back(MakeSeries(rng, noise, shift));
      for (Method m : {Method::kEDivisive, Method::kEDivisiveRanks, Method::kEDivisiveWinsor, Method::kPrevRun,
                       Method::kBaseline}) {
        Row row{noise, m, shift, {}};
        for (const Series& s : series) ScoreSeries(m, s, row.score);
        rows.push_back(row);
      }
    }
  }
  return rows;
}

inline double FalseAlarmsPer1000(const Score& s) { return s.runs ? 1000.0 * s.spurious / s.runs : 0; }

inline std::string FormatTable(const std::vector<Row>& rows) {
  std::string out = fmt::format("{:<9} {:<14} {:>6} {:>7} {:>9} {:>7} {:>9} {:>14}\n", "noise", "method", "shift",
                                "series", "detected", "missed", "spurious", "false/1000runs");
  for (const Row& r : rows) {
    const Score& s = r.score;
    if (r.shift > 0) {
      out += fmt::format("{:<9} {:<14} {:>5.0f}% {:>7} {:>9} {:>7} {:>9} {:>14}\n", NoiseName(r.noise),
                         MethodName(r.method), r.shift * 100, s.series, s.detected, s.missed, s.spurious, "");
    } else {
      out += fmt::format("{:<9} {:<14} {:>6} {:>7} {:>9} {:>7} {:>9} {:>14.2f}\n", NoiseName(r.noise),
                         MethodName(r.method), "none", s.series, "-", "-", s.spurious, FalseAlarmsPer1000(s));
    }
  }
  return out;
}

}  // namespace fvbench::detection_study
