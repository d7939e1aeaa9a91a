#include "support/judge/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fvbench {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): a small generator with a fixed,
// platform-independent output sequence.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) by multiply-shift (Lemire); the bias is below 2^-50 here.
  size_t Below(size_t bound) { return static_cast<size_t>((static_cast<unsigned __int128>(Next()) * bound) >> 64); }

 private:
  uint64_t s_;
};

uint64_t MixSeed(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  SplitMix64 g(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull));
  return g.Next();
}

// All splits of one segment in O(n log n): W_left[t] = sum_{i<j<t}|x_i-x_j|
// by adding one run at a time and asking a Fenwick tree over the runs' ranks
// for the count and sum of the smaller values already in; W_right likewise
// from the end. The cross sum is W_total - W_left[t] - W_right[t].
class SplitScanner {
 public:
  // The distances are between the runs' values on `scale` (ChangePointOptions):
  // a function of the segment's multiset, so the same in any order and the
  // permutation test stays exact. Ranks are of the original values (clipping
  // and mid-ranks keep their order).
  SplitScanner(std::span<const double> x, ChangePointOptions::Scale scale, double winsor_k)
      : n_(x.size()), values_(x.begin(), x.end()), ranks_(n_) {
    std::vector<size_t> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values_[a] < values_[b]; });
    for (size_t r = 0; r < n_; ++r) ranks_[order[r]] = r;
    if (scale == ChangePointOptions::Scale::kRanks) ToMidRanks(order);
    if (scale == ChangePointOptions::Scale::kWinsorized) Winsorize(order, winsor_k);
    double largest = 0;
    for (double v : values_) largest = std::max(largest, std::fabs(v));
    tolerance_ = 1e-9 * static_cast<double>(n_) * largest;
    cnt_.resize(n_ + 1);
    sum_.resize(n_ + 1);
    left_.resize(n_ + 1);
    right_.resize(n_ + 1);
  }
  size_t size() const { return n_; }
  // Q is a difference of sums of n^2 distances: rounding leaves it off by
  // about 1e-16 x n x the largest |value| (a constant series of 0.37 gives
  // Q near 1e-16, not 0). Values of Q within this tolerance are equal, and
  // a split whose Q is within it of 0 separates nothing.
  double tolerance() const { return tolerance_; }

  void ToMidRanks(const std::vector<size_t>& order) {
    std::vector<double> mid(n_);
    for (size_t a = 0; a < n_;) {
      size_t b = a + 1;
      while (b < n_ && values_[order[b]] == values_[order[a]]) ++b;
      for (size_t r = a; r < b; ++r) mid[order[r]] = 0.5 * static_cast<double>(a + b - 1);
      a = b;
    }
    values_ = std::move(mid);
  }
  // Clip to median +- k x 1.4826 x MAD (the MAD scaled to a normal's sd).
  void Winsorize(const std::vector<size_t>& order, double k) {
    if (n_ < 3) return;
    auto median_of = [](std::vector<double> v) {
      const size_t h = v.size() / 2;
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
      const double hi = v[h];
      if (v.size() % 2) return hi;
      return (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h))) / 2;
    };
    std::vector<double> sorted(n_);
    for (size_t r = 0; r < n_; ++r) sorted[r] = values_[order[r]];
    const double med = median_of(sorted);
    for (double& v : sorted) v = std::fabs(v - med);
    const double bound = k * 1.4826 * median_of(sorted);
    if (!(bound > 0)) return;
    for (double& v : values_) v = std::clamp(v, med - bound, med + bound);
  }

  // Fisher-Yates over values and ranks together.
  void Shuffle(SplitMix64& rng) {
    for (size_t i = n_; i > 1; --i) {
      size_t j = rng.Below(i);
      std::swap(values_[i - 1], values_[j]);
      std::swap(ranks_[i - 1], ranks_[j]);
    }
  }

  // Fills left_/right_ for the current order.
  void Scan() {
    Pass(false, left_);
    Pass(true, right_);
  }
  // Q at tau after Scan(); 0 when a side has fewer than 2 runs.
  double Q(size_t tau) const {
    const double m = static_cast<double>(tau), k = static_cast<double>(n_ - tau);
    if (m < 2 || k < 2) return 0;
    const double wl = left_[tau], wr = right_[tau];
    const double cross = left_[n_] - wl - wr;
    const double e = 2 * cross / (m * k) - wl / (m * (m - 1) / 2) - wr / (k * (k - 1) / 2);
    return m * k / (m + k) * e;
  }
  Split Best(size_t min_segment) const {
    Split best;
    for (size_t t = min_segment; t + min_segment <= n_; ++t) {
      double q = Q(t);
      if (best.tau == 0 || q > best.q) best = {t, q};
    }
    return best;
  }

 private:
  // w[t] for t in [0, n]: the within sum of the first t runs (from_end: of the
  // runs t..n-1, walking from the end).
  void Pass(bool from_end, std::vector<double>& w) {
    std::fill(cnt_.begin(), cnt_.end(), 0);
    std::fill(sum_.begin(), sum_.end(), 0.0);
    double total = 0, acc = 0;
    w[from_end ? n_ : 0] = 0;
    for (size_t s = 0; s < n_; ++s) {
      const size_t i = from_end ? n_ - 1 - s : s;
      const double v = values_[i];
      size_t below_n = 0;
      double below_sum = 0;
      for (size_t p = ranks_[i]; p > 0; p -= p & (~p + 1)) {
        below_n += cnt_[p];
        below_sum += sum_[p];
      }
      const double in = static_cast<double>(s);
      acc += (static_cast<double>(below_n) * v - below_sum) + ((total - below_sum) - (in - below_n) * v);
      for (size_t p = ranks_[i] + 1; p <= n_; p += p & (~p + 1)) {
        ++cnt_[p];
        sum_[p] += v;
      }
      total += v;
      w[from_end ? i : i + 1] = acc;
    }
  }

  size_t n_;
  double tolerance_ = 0;
  std::vector<double> values_;
  std::vector<size_t> ranks_;
  std::vector<size_t> cnt_;
  std::vector<double> sum_;
  std::vector<double> left_, right_;
};

struct Tested {
  double p_value = 1;
  bool significant = false;
};

// Permutation test: the observed statistic against the best Q of each
// shuffled segment (a permutation within the tolerance of the observed Q
// counts as at least as large). Stops once #{>=} exceeds what a significant p allows.
Tested PermutationTest(SplitScanner& scanner, double observed, const ChangePointOptions& o, uint64_t seed) {
  SplitMix64 rng(seed);
  const int allowed = static_cast<int>(std::floor(o.max_p_value * (o.permutations + 1) + 1e-9)) - 1;
  int at_least = 0, done = 0;
  while (done < o.permutations) {
    scanner.Shuffle(rng);
    scanner.Scan();
    ++done;
    if (scanner.Best(static_cast<size_t>(o.min_segment)).q >= observed - scanner.tolerance()) {
      if (++at_least > allowed) break;
    }
  }
  Tested t;
  t.p_value = static_cast<double>(at_least + 1) / (done + 1);
  t.significant = at_least <= allowed && done == o.permutations;
  return t;
}

ChangePointOptions Clamped(ChangePointOptions o) {
  o.min_segment = std::max(o.min_segment, 2);
  o.window = std::max(o.window, 4 * o.min_segment);
  o.permutations = std::max(o.permutations, 19);
  return o;
}

// The windows only propose candidates: every one is re-tested with the full
// permutation count in the merge (Retest), so the windows' tests use half of
// it (at least 99): a shift seen by two overlapping windows costs one full
// test and two halves instead of three full ones.
ChangePointOptions Screening(ChangePointOptions o) {
  o.permutations = std::max(99, o.permutations / 2);
  return o;
}

// Hierarchical E-Divisive inside [lo, hi) of x: split the segment with the
// largest Q while its split is significant. Appends absolute indices.
void DivideWindow(std::span<const double> x, size_t lo, size_t hi, const ChangePointOptions& o,
                  std::vector<size_t>& out) {
  struct Segment {
    size_t lo, hi;
    Split split;
  };
  const size_t min_seg = static_cast<size_t>(o.min_segment);
  auto make = [&](size_t a, size_t b) {
    Segment s{a, b, {}};
    if (b - a >= 2 * min_seg) {
      SplitScanner sc(x.subspan(a, b - a), o.scale, o.winsor_k);
      sc.Scan();
      const Split best = sc.Best(min_seg);
      if (best.q > sc.tolerance()) s.split = best;
    }
    return s;
  };
  std::vector<Segment> segments{make(lo, hi)};
  for (;;) {
    auto it = std::max_element(segments.begin(), segments.end(), [](const Segment& a, const Segment& b) {
      return (a.split.tau ? a.split.q : -1) < (b.split.tau ? b.split.q : -1);
    });
    if (it == segments.end() || it->split.tau == 0) return;
    Segment s = *it;
    SplitScanner sc(x.subspan(s.lo, s.hi - s.lo), o.scale, o.winsor_k);
    if (!PermutationTest(sc, s.split.q, Screening(o), MixSeed(o.seed, s.lo, s.hi, 1)).significant) return;
    const size_t cut = s.lo + s.split.tau;
    out.push_back(cut);
    *it = make(s.lo, cut);
    segments.push_back(make(cut, s.hi));
  }
}

// Re-test of candidate c between its neighbours a and b (each side clipped
// to `window` runs): the observed Q at c against the permutations' best Q.
Tested Retest(std::span<const double> x, size_t a, size_t c, size_t b, const ChangePointOptions& o) {
  const size_t w = static_cast<size_t>(o.window), min_seg = static_cast<size_t>(o.min_segment);
  const size_t lo = std::max(a, c > w ? c - w : 0), hi = std::min(b, c + w);
  if (c - lo < min_seg || hi - c < min_seg) return {};
  SplitScanner sc(x.subspan(lo, hi - lo), o.scale, o.winsor_k);
  sc.Scan();
  const double observed = sc.Q(c - lo);
  if (observed <= sc.tolerance()) return {};
  return PermutationTest(sc, observed, o, MixSeed(o.seed, lo, hi, c + 2));
}

double Mean(std::span<const double> x, size_t a, size_t b) {
  double s = 0;
  for (size_t i = a; i < b; ++i) s += x[i];
  return b > a ? s / static_cast<double>(b - a) : 0;
}

std::vector<size_t> WindowCandidates(std::span<const double> x, const ChangePointOptions& o) {
  const size_t n = x.size(), w = static_cast<size_t>(o.window), step = w / 2;
  std::vector<size_t> found;
  if (n <= w) {
    DivideWindow(x, 0, n, o, found);
  } else {
    for (size_t start = 0;; start += step) {
      const size_t lo = std::min(start, n - w);
      DivideWindow(x, lo, lo + w, o, found);
      if (lo + w >= n) break;
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

// Each kept change point moves to the best split between its neighbours
// (each side clipped to `window` runs): a window may have seen the shift near
// its edge, where the argmax is least precise.
void Relocate(std::span<const double> x, std::vector<size_t>& cps, const ChangePointOptions& o) {
  const size_t w = static_cast<size_t>(o.window), min_seg = static_cast<size_t>(o.min_segment);
  for (size_t i = 0; i < cps.size(); ++i) {
    const size_t a = i ? cps[i - 1] : 0, b = i + 1 < cps.size() ? cps[i + 1] : x.size(), c = cps[i];
    const size_t lo = std::max(a, c > w ? c - w : 0), hi = std::min(b, c + w);
    if (hi - lo < 2 * min_seg) continue;
    Split best = BestSplit(x.subspan(lo, hi - lo), o.min_segment, o.scale, o.winsor_k);
    if (best.tau) cps[i] = lo + best.tau;
  }
}

}  // namespace

std::vector<double> SplitStatistics(std::span<const double> x, ChangePointOptions::Scale scale, double winsor_k) {
  SplitScanner sc(x, scale, winsor_k);
  sc.Scan();
  std::vector<double> q(x.size() + 1);
  for (size_t t = 0; t <= x.size(); ++t) q[t] = sc.Q(t);
  return q;
}

Split BestSplit(std::span<const double> x, int min_segment, ChangePointOptions::Scale scale, double winsor_k) {
  const size_t min_seg = static_cast<size_t>(std::max(min_segment, 2));
  if (x.size() < 2 * min_seg) return {};
  SplitScanner sc(x, scale, winsor_k);
  sc.Scan();
  return sc.Best(min_seg);
}

std::vector<ChangePoint> FindChangePoints(std::span<const double> series, const ChangePointOptions& options) {
  const ChangePointOptions o = Clamped(options);
  const size_t n = series.size();
  if (n < 2 * static_cast<size_t>(o.min_segment)) return {};
  std::vector<size_t> cps = WindowCandidates(series, o);
  // Merge (Otava): re-test each candidate against its neighbours' segments,
  // drop the weakest non-significant one, re-test its neighbours, repeat.
  std::vector<Tested> tests(cps.size());
  std::vector<bool> stale(cps.size(), true);
  for (;;) {
    for (size_t i = 0; i < cps.size(); ++i) {
      if (!stale[i]) continue;
      tests[i] = Retest(series, i ? cps[i - 1] : 0, cps[i], i + 1 < cps.size() ? cps[i + 1] : n, o);
      stale[i] = false;
    }
    size_t weakest = cps.size();
    for (size_t i = 0; i < cps.size(); ++i) {
      if (!tests[i].significant && (weakest == cps.size() || tests[i].p_value > tests[weakest].p_value)) weakest = i;
    }
    if (weakest == cps.size()) break;
    cps.erase(cps.begin() + static_cast<std::ptrdiff_t>(weakest));
    tests.erase(tests.begin() + static_cast<std::ptrdiff_t>(weakest));
    stale.erase(stale.begin() + static_cast<std::ptrdiff_t>(weakest));
    if (weakest > 0) stale[weakest - 1] = true;
    if (weakest < cps.size()) stale[weakest] = true;
  }
  Relocate(series, cps, o);
  std::vector<ChangePoint> out;
  for (size_t i = 0; i < cps.size(); ++i) {
    ChangePoint cp;
    cp.index = cps[i];
    cp.p_value = tests[i].p_value;
    cp.mean_before = Mean(series, i ? cps[i - 1] : 0, cps[i]);
    cp.mean_after = Mean(series, cps[i], i + 1 < cps.size() ? cps[i + 1] : n);
    cp.relative_change = cp.mean_before != 0 ? (cp.mean_after - cp.mean_before) / std::fabs(cp.mean_before) : 0;
    out.push_back(cp);
  }
  return out;
}

}  // namespace fvbench
