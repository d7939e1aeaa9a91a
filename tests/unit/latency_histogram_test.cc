#include "support/core/latency_histogram.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "support/core/latency_histogram_json.h"
#include "support/core/outcomes.h"

namespace fvbench::latency_histogram_test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The layout tiles [0, 2^40) ns without gaps, every bucket at most 1/1024 of its lowest value wide.
TEST(LatencyHistogram, LayoutTilesTheRangeWithinPrecision) {
  uint64_t next = 0;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    ASSERT_EQ(LatencyHistogram::BucketLowestNs(i), next) << i;
    const uint64_t width = LatencyHistogram::BucketWidthNs(i);
    if (i >= 2048) {
      ASSERT_LE(static_cast<double>(width) / static_cast<double>(next), 1.0 / 1024) << i;
    }
    ASSERT_EQ(LatencyHistogram::BucketIndex(next), i);
    ASSERT_EQ(LatencyHistogram::BucketIndex(next + width - 1), i);
    next += width;
  }
  EXPECT_EQ(next, uint64_t{1} << 40);
  EXPECT_EQ(LatencyHistogram::BucketIndex(uint64_t{1} << 50), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, QuantileRankIsNearestRankWithoutFloatingPointCreep) {
  EXPECT_EQ(QuantileRank(0.99, 100), 99u);  // 0.99 * 100 = 99.00000000000001 in double
  EXPECT_EQ(QuantileRank(0.999, 1000), 999u);
  EXPECT_EQ(QuantileRank(0.5, 3), 2u);
  EXPECT_EQ(QuantileRank(0, 7), 1u);
  EXPECT_EQ(QuantileRank(1, 7), 7u);
  EXPECT_EQ(QuantileRank(0.5, 0), 0u);
}

// A sample set: latencies in µs; +inf marks a request that timed out.
using Samples = std::vector<double>;

// `all` sorted ascending.
QuantileValue ExactQuantile(const Samples& all, double q) {
  const uint64_t rank = QuantileRank(q, all.size());
  if (rank == 0) return {};
  const double v = all[rank - 1];
  return v == kInf ? QuantileValue{10e6, true} : QuantileValue{v, false};
}

LatencyHistogram Build(const Samples& s) {
  LatencyHistogram h;
  for (double v : s) {
    if (v == kInf) {
      EXPECT_TRUE(h.RecordTimeouts(1, 10e6).ok());
    } else {
      h.RecordUs(v);
    }
  }
  return h;
}

// Through the stored form, as the controller receives them.
LatencyHistogram RoundTrip(const LatencyHistogram& h) {
  auto back = ParseHistogramJson(HistogramToJson(h).dump(), "instance.json");
  EXPECT_TRUE(back.ok()) << back.error().message;
  return back.ok() ? *back : LatencyHistogram{};
}

Samples Draw(std::mt19937_64& rng, int shape, size_t n) {
  std::lognormal_distribution<double> lognormal(std::log(800.0), 0.6);
  std::uniform_real_distribution<double> uniform(0.0, 5000.0);
  std::exponential_distribution<double> tail(1.0 / 40000.0);
  std::uniform_real_distribution<double> unit(0, 1);
  Samples s;
  for (size_t i = 0; i < n; ++i) {
    switch (shape) {
      case 0: s.push_back(lognormal(rng)); break;
      case 1: s.push_back(std::round(uniform(rng))); break;  // wrk: whole µs, some below 2 µs
      case 2: s.push_back(unit(rng) < 0.97 ? lognormal(rng) : 2e5 + tail(rng)); break;  // bimodal
      default: s.push_back(unit(rng) < 0.995 ? lognormal(rng) : kInf); break;           // timeouts
    }
  }
  return s;
}

// The property merging must keep: merge the histograms of several sample sets; every
// reported percentile equals the exact percentile of their union within the
// precision (1/2048 relative, plus half a ns from rounding µs inputs to ns).
TEST(LatencyHistogram, MergedPercentilesEqualThoseOfTheUnion) {
  std::mt19937_64 rng(14);
  std::vector<double> qs = {0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1};
  std::uniform_real_distribution<double> any_q(0, 1);
  for (int i = 0; i < 30; ++i) qs.push_back(any_q(rng));
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const size_t parts = 1 + trial % 5;
    Samples all;
    LatencyHistogram merged;
    for (size_t p = 0; p < parts; ++p) {
      // Unequal shares and, per part, its own shape: instances see different distributions.
      const Samples s = Draw(rng, static_cast<int>((trial + p) % 4), 1 + (rng() % 4000));
      all.insert(all.end(), s.begin(), s.end());
      ASSERT_TRUE(merged.Merge(RoundTrip(Build(s))).ok());
    }
    ASSERT_EQ(merged.total(), all.size());
    std::sort(all.begin(), all.end());
    for (double q : qs) {
      const QuantileValue exact = ExactQuantile(all, q), got = merged.ValueAtQuantile(q);
      ASSERT_EQ(got.censored, exact.censored) << fmt::format("trial {} q {}", trial, q);
      ASSERT_LE(std::fabs(got.us - exact.us), exact.us / 2048 + 0.0005)
          << fmt::format("trial {} parts {} q {}: merged {} exact {}", trial, parts, q, got.us, exact.us);
      if (exact.us >= 1) {
        ASSERT_LE(std::fabs(got.us - exact.us) / exact.us, 0.001);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 40 * static_cast<int>(qs.size()));
}

TEST(LatencyHistogram, MergeOrderDoesNotMatter) {
  std::mt19937_64 rng(7);
  const Samples a = Draw(rng, 0, 500), b = Draw(rng, 2, 700), c = Draw(rng, 3, 900);
  LatencyHistogram abc, cba;
  for (const Samples* s : {&a, &b, &c}) ASSERT_TRUE(abc.Merge(Build(*s)).ok());
  for (const Samples* s : {&c, &b, &a}) ASSERT_TRUE(cba.Merge(Build(*s)).ok());
  EXPECT_EQ(HistogramToJson(abc), HistogramToJson(cba));
}

// Timeouts: ToLatencyUs censors exactly as CensorAtTimeout does for the parsers.
TEST(LatencyHistogram, TimeoutsAreCensoredLikeTheParsers) {
  LatencyHistogram h;
  for (int i = 1; i <= 990; ++i) h.RecordUs(100.0 + i);
  ASSERT_TRUE(h.RecordTimeouts(10, 10e6).ok());
  const LatencyUs l = h.ToLatencyUs();
  LatencyUs expected;
  expected.p50 = h.ValueAtQuantile(0.5).us;
  expected.p90 = h.ValueAtQuantile(0.9).us;
  expected.p99 = h.ValueAtQuantile(0.99).us;
  expected.p999 = 1;  // replaced: rank 999 of 1000 is a timeout
  CensorAtTimeout(expected, 990, 10, 10e6);
  EXPECT_EQ(l.p99, expected.p99);
  EXPECT_FALSE(l.IsCensored(l.p99));  // rank 990 is the last recorded sample
  EXPECT_EQ(l.p999, 10e6);
  EXPECT_TRUE(l.IsCensored(l.p999));
  EXPECT_EQ(l.max, 10e6);
  EXPECT_EQ(l.censored_at_us, 10e6);
}

TEST(LatencyHistogram, MergeRefusesDifferentTimeouts) {
  LatencyHistogram a, b;
  a.RecordUs(10);
  ASSERT_TRUE(a.RecordTimeouts(1, 10e6).ok());
  ASSERT_TRUE(b.RecordTimeouts(1, 60e6).ok());
  auto r = a.Merge(b);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("10000000 µs"), std::string::npos) << r.error().message;
  EXPECT_EQ(a.total(), 2u);  // unchanged
  EXPECT_FALSE(a.RecordTimeouts(1, 0).ok());
}

TEST(LatencyHistogram, EmptyAndExtremes) {
  LatencyHistogram h;
  EXPECT_EQ(h.ValueAtQuantile(0.5).us, 0);
  h.RecordUs(-3);
  h.RecordUs(kInf);
  EXPECT_EQ(h.ValueAtQuantile(0).us, 0);
  EXPECT_EQ(h.ValueAtQuantile(1).us, static_cast<double>(uint64_t{1} << 40) / 1000);
  EXPECT_EQ(RoundTrip(h).ValueAtQuantile(1).us, h.ValueAtQuantile(1).us);
  const LatencyHistogram empty = RoundTrip(LatencyHistogram{});
  EXPECT_EQ(empty.total(), 0u);
  EXPECT_EQ(empty.min_ns(), 0u);
}

// Bad stored forms are refused with the source and the field named.
TEST(LatencyHistogram, BadJsonIsNamed) {
  const std::string head =
      R"({"schema_version":1,"layout":"log-linear-ns-1024","min_ns":5,"max_ns":9,"timeouts":0,"timeout_us":0,)";
  const struct {
    std::string body, expected;
  } cases[] = {
      {R"("recorded":2,"buckets":[5,1,9])", "pairs"},
      {R"("recorded":2,"buckets":[5,1,40000,1])", "buckets[2]: index 40000 is outside the layout (0..31743)"},
      {R"("recorded":2,"buckets":[9,1,5,1])", "buckets[2]: index 5 does not follow 9"},
      {R"("recorded":1,"buckets":[5,1,9,0])", "buckets[3]: count 0"},
      {R"("recorded":3,"buckets":[5,1,9,1])", "counts sum to 2, recorded says 3"},
      {R"("recorded":2,"buckets":[5,-1,9,1])", "buckets[1]: expected a non-negative integer"},
      {R"("recorded":2,"buckets":[5,1,9,"1"])", "buckets[3]: expected a non-negative integer"},
  };
  for (const auto& c : cases) {
    auto r = ParseHistogramJson(head + c.body + "}", "lg2/hist.json");
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_NE(r.error().message.find("lg2/hist.json: histogram: "), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
  }
  auto layout = ParseHistogramJson(R"({"schema_version":1,"layout":"hdr-3","recorded":0,"buckets":[]})", "x");
  ASSERT_FALSE(layout.ok());
  EXPECT_NE(layout.error().message.find("layout: \"hdr-3\""), std::string::npos) << layout.error().message;
  auto timeouts = ParseHistogramJson(
      R"({"schema_version":1,"layout":"log-linear-ns-1024","min_ns":0,"max_ns":0,"recorded":0,"buckets":[],"timeouts":3})",
      "x");
  ASSERT_FALSE(timeouts.ok());
  EXPECT_NE(timeouts.error().message.find("3 requests timed out but timeout_us is 0"), std::string::npos);
  EXPECT_FALSE(ParseHistogramJson("[1,2]", "x").ok());
  EXPECT_FALSE(ParseHistogramJson(R"({"layout":"log-linear-ns-1024","recorded":0,"buckets":[]})", "x").ok());
}

}  // namespace
}  // namespace fvbench::latency_histogram_test
