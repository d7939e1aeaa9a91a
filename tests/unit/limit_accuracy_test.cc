// AssessLimits and the limits checks (judge/limit_accuracy.h) on synthetic
// access logs: a tiny token-bucket simulator offers every key 4x its rate,
// decides each request with a correct bucket or a broken one, reduces the
// decisions to the text the SUT host writes (judge/limits_log_parse.h) and parses
// it back. A correct limiter passes; a bucket per worker and a bucket whose
// state is forgotten every second are caught, with the figure. Also
// TokenBucketOfPolicy on the real policy fixture and its refusals.
#include "support/judge/limit_accuracy.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/judge/limits_log_parse.h"
#include "fvbench/source_dir.h"

namespace fvbench::limit_accuracy_test {
namespace {

using ::testing::HasSubstr;

constexpr TokenBucketLimit kBucket{10, 20};  // the bench-limits policy
constexpr int64_t kStartMs = 1733251234000;

// edge's token_bucket.lua: starts full, refills continuously up to burst, a
// request takes one token.
struct Bucket {
  double tokens = -1;  // < 0: no state yet
  int64_t last_ms = 0;
  bool Take(const TokenBucketLimit& l, int64_t now_ms) {
    if (tokens < 0) {
      tokens = l.burst;
    } else {
      tokens = std::min(l.burst, tokens + (now_ms - last_ms) / 1000.0 * l.rate_per_s);
    }
    last_ms = now_ms;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  }
};

enum class Limiter {
  kCorrect,
  kBucketPerWorker,  // two nginx workers, each with its own full bucket; requests alternate
  kForgetsEverySecond,  // the bucket's state is lost at every whole second of the phase
};

struct Request {
  int64_t ms;
  std::string key;
  int status;
};

// Every key offered 4 x the bucket's rate, evenly spaced with a phase of its
// own, for duration_s seconds, decided by `limiter`.
std::vector<Request> Simulate(Limiter limiter, int keys, double duration_s, const TokenBucketLimit& l = kBucket) {
  const double interval_ms = 1000.0 / (4 * l.rate_per_s);
  std::vector<Request> out;
  for (int k = 0; k < keys; ++k) {
    Bucket buckets[2];
    int64_t forgotten_at_s = -1;
    const double offset_ms = std::fmod(k * 7.0, interval_ms);
    for (int i = 0; offset_ms + i * interval_ms < duration_s * 1000; ++i) {
      const int64_t ms = kStartMs + static_cast<int64_t>(offset_ms + i * interval_ms);
      Bucket* b = &buckets[0];
      if (limiter == Limiter::kBucketPerWorker) b = &buckets[i % 2];
      if (limiter == Limiter::kForgetsEverySecond && (ms - kStartMs) / 1000 != forgotten_at_s) {
        forgotten_at_s = (ms - kStartMs) / 1000;
        *b = Bucket{};
      }
      out.push_back({ms, "k" + std::to_string(k), b->Take(l, ms) ? 200 : 429});
    }
  }
  std::sort(out.begin(), out.end(), [](const Request& a, const Request& b) { return a.ms < b.ms; });
  return out;
}

// What the SUT host's reducer writes for these requests (limits_log.h).
std::string Reduce(const std::vector<Request>& requests, int64_t bin_ms = 100) {
  if (requests.empty()) {
    return fmt::format("fvbench-limits 1 {}\nlines 0 first 0 last 0 nokey 0 malformed 0\n", bin_ms);
  }
  const int64_t first = requests.front().ms, last = requests.back().ms;
  std::map<std::string, std::array<uint64_t, 3>> counts;
  std::map<std::pair<std::string, int64_t>, uint64_t> bins;
  for (const Request& r : requests) {
    const int cls = r.status / 100 == 2 ? 0 : r.status == 429 ? 1 : 2;
    ++counts[r.key][cls];
    if (cls == 0) ++bins[{r.key, (r.ms - first) / bin_ms}];
  }
  std::string text = fmt::format("fvbench-limits 1 {}\nlines {} first {}.{:03} last {}.{:03} nokey 0 malformed 0\n",
                                 bin_ms, requests.size(), first / 1000, first % 1000, last / 1000, last % 1000);
  for (const auto& [kb, n] : bins) text += fmt::format("b {} {} {}\n", kb.first, kb.second, n);
  for (const auto& [key, c] : counts) text += fmt::format("k {} {} {} {}\n", key, c[0], c[1], c[2]);
  return text;
}

AccessLogCounts Log(const std::vector<Request>& requests, int64_t bin_ms = 100) {
  auto r = ParseLimitsLog(Reduce(requests, bin_ms), "sim");
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : AccessLogCounts{};
}

constexpr int kKeys = 10;
constexpr double kSeconds = 20;
constexpr double kOfferedRps = kKeys * 4 * 10;  // 4 x the rate per key

TEST(LimitAccuracy, CorrectBucketPasses) {
  const AccessLogCounts log = Log(Simulate(Limiter::kCorrect, kKeys, kSeconds));
  const LimitAccuracy a = AssessLimits(log, kBucket, kKeys, kOfferedRps);
  EXPECT_EQ(a.keys_seen, kKeys);
  EXPECT_NEAR(a.window_s, kSeconds, 0.05);
  EXPECT_DOUBLE_EQ(a.allowed_per_key, 10 * a.window_s + 20);
  EXPECT_DOUBLE_EQ(a.floor_per_key, 10 * a.window_s - 20);
  EXPECT_EQ(a.over_admission, 0);
  EXPECT_EQ(a.keys_over, 0);
  EXPECT_EQ(a.over_admission_key, "");
  EXPECT_EQ(a.keys_under, 0);
  EXPECT_EQ(a.under_admission, 0);
  // Each key: the full burst, then the rate: 20 + 10 x ~20 s.
  EXPECT_NEAR(a.admitted_median, 20 + 10 * kSeconds, 2);
  EXPECT_LE(a.admitted_max, a.allowed_per_key);
  EXPECT_GE(a.admitted_min, a.floor_per_key);
  EXPECT_EQ(a.window_bins, 10);
  EXPECT_DOUBLE_EQ(a.window_allowed, 30);
  EXPECT_LE(a.worst_window_admitted, 30u);
  EXPECT_GE(a.worst_window_admitted, 29u);  // the first second: the burst and the refill
  EXPECT_NEAR(a.reject_share, 0.75 - 20.0 / (4 * 10 * kSeconds), 0.01);
  EXPECT_NEAR(a.expected_reject_share, a.reject_share, 0.01);
  EXPECT_TRUE(OverAdmissionCheck(a).passed) << OverAdmissionCheck(a).detail;
  EXPECT_TRUE(WindowCheck(a).passed) << WindowCheck(a).detail;
  EXPECT_TRUE(KeysArrivedCheck(log, kKeys).passed) << KeysArrivedCheck(log, kKeys).detail;
}

TEST(LimitAccuracy, BucketPerWorkerIsCaughtAtTwiceTheBound) {
  const AccessLogCounts log = Log(Simulate(Limiter::kBucketPerWorker, kKeys, kSeconds));
  const LimitAccuracy a = AssessLimits(log, kBucket, kKeys, kOfferedRps);
  EXPECT_EQ(a.keys_over, kKeys);
  EXPECT_NEAR(a.over_admission, 1.0, 0.05);  // two full buckets: ~2 x allowed
  const ValidityCheck over = OverAdmissionCheck(a);
  EXPECT_FALSE(over.passed);
  EXPECT_EQ(over.name, "limit_over_admission");
  EXPECT_DOUBLE_EQ(over.measured, a.over_admission);
  EXPECT_DOUBLE_EQ(over.limit, 0.02);
  EXPECT_THAT(over.detail, HasSubstr(fmt::format("key {} admitted {} where the bucket (10/s, burst 20) allows",
                                                 a.over_admission_key, a.over_admission_key_admitted)));
  EXPECT_THAT(over.detail, HasSubstr("10 of 10 keys over"));
  const ValidityCheck window = WindowCheck(a);
  EXPECT_FALSE(window.passed);
  // Each worker's bucket is offered half the key's 40/s, 20/s: both admit
  // everything for the first 2 s, 40 in the first second.
  EXPECT_NEAR(window.measured, 40, 1);
  EXPECT_DOUBLE_EQ(window.limit, 30 * 1.02);
  EXPECT_THAT(window.detail, HasSubstr("in one 1 s window (10 bins of 100 ms); the bucket (10/s, burst 20) allows 30"));
}

TEST(LimitAccuracy, BucketForgottenEverySecondIsCaughtByTheTotal) {
  const AccessLogCounts log = Log(Simulate(Limiter::kForgetsEverySecond, kKeys, kSeconds));
  const LimitAccuracy a = AssessLimits(log, kBucket, kKeys, kOfferedRps);
  // A full bucket every second at 40/s offered, one request per 25 ms: 26
  // admitted in the first 625 ms (20 tokens + 6.25 refilled), then one per
  // 100 ms: ~29 a second against 10/s, (580 - 220) / 220 over a 20 s window.
  EXPECT_NEAR(a.admitted_median / kSeconds, 29, 0.5);
  EXPECT_NEAR(a.over_admission, (29 * kSeconds - a.allowed_per_key) / a.allowed_per_key, 0.05);
  const ValidityCheck over = OverAdmissionCheck(a);
  EXPECT_FALSE(over.passed);
  EXPECT_THAT(over.detail, HasSubstr("10 of 10 keys over"));
  // Within any 1 s the bucket looks right (at most one refill to burst): the
  // window check alone would not catch this limiter.
  EXPECT_LE(a.worst_window_admitted, 31u);
}

TEST(LimitAccuracy, LooserBoundsOrFinerBinsDoNotChangeACorrectVerdict) {
  const std::vector<Request> requests = Simulate(Limiter::kCorrect, 3, 5);
  for (int64_t bin_ms : {1, 10, 50, 1000}) {
    const LimitAccuracy a = AssessLimits(Log(requests, bin_ms), kBucket, 3, 3 * 40);
    EXPECT_EQ(a.window_bins, 1000 / bin_ms) << bin_ms;
    EXPECT_DOUBLE_EQ(a.window_allowed, 30) << bin_ms;
    EXPECT_TRUE(WindowCheck(a).passed) << bin_ms << ": " << WindowCheck(a).detail;
    EXPECT_TRUE(OverAdmissionCheck(a).passed) << bin_ms;
  }
}

TEST(LimitAccuracy, NoKeyHit) {
  const AccessLogCounts log = Log({});
  const LimitAccuracy a = AssessLimits(log, kBucket, 50, 2000);
  EXPECT_EQ(a.keys_seen, 0);
  EXPECT_EQ(a.window_s, 0);
  EXPECT_EQ(a.admitted_median, 0);
  EXPECT_EQ(a.keys_under, 0);  // a 0 s window has no floor
  EXPECT_EQ(a.expected_reject_share, 0);
  const ValidityCheck keys = KeysArrivedCheck(log, 50);
  EXPECT_FALSE(keys.passed);
  EXPECT_EQ(keys.detail, "the access log saw 0 keys where 50 were sent");
  for (const ValidityCheck& c : {OverAdmissionCheck(a), WindowCheck(a)}) {
    EXPECT_FALSE(c.passed) << c.name;
    EXPECT_TRUE(std::isnan(c.measured)) << c.name;
    EXPECT_THAT(c.detail, HasSubstr("no key in the access log")) << c.name;
  }
}

TEST(LimitAccuracy, KeySeenOnlyAtTheStartIsUnderAdmitted) {
  std::vector<Request> requests = Simulate(Limiter::kCorrect, 3, 10);
  // k9 sends 25 requests in the first 100 ms, then nothing: 20 admitted.
  Bucket b;
  for (int i = 0; i < 25; ++i) {
    requests.push_back({kStartMs + 2 * i, "k9", b.Take(kBucket, kStartMs + 2 * i) ? 200 : 429});
  }
  std::sort(requests.begin(), requests.end(), [](const Request& x, const Request& y) { return x.ms < y.ms; });
  const AccessLogCounts log = Log(requests);
  ASSERT_EQ(log.keys.size(), 4u);
  EXPECT_EQ(log.keys[3].key, "k9");
  EXPECT_EQ(log.keys[3].admitted_per_bin[0], 20u);
  const LimitAccuracy a = AssessLimits(log, kBucket, 4, 4 * 40);
  EXPECT_EQ(a.admitted_min, 20);
  EXPECT_EQ(a.keys_under, 1);
  EXPECT_NEAR(a.under_admission, (a.floor_per_key - 20) / a.floor_per_key, 1e-9);
  EXPECT_TRUE(OverAdmissionCheck(a).passed);
  EXPECT_TRUE(WindowCheck(a).passed);
}

TEST(LimitAccuracy, PlannedKeysNeverSeenCountAsAdmittedNothing) {
  const AccessLogCounts log = Log(Simulate(Limiter::kCorrect, 3, 10));
  const LimitAccuracy a = AssessLimits(log, kBucket, 5, 5 * 40);
  EXPECT_EQ(a.keys_seen, 3);
  EXPECT_EQ(a.keys_under, 2);
  EXPECT_EQ(a.under_admission, 1);
  EXPECT_GT(a.admitted_min, a.floor_per_key);  // over the keys seen only
}

TEST(LimitAccuracy, WindowWhereFirstIsLast) {
  std::vector<Request> requests;
  Bucket b;
  for (int i = 0; i < 25; ++i) requests.push_back({kStartMs, "k0", b.Take(kBucket, kStartMs) ? 200 : 429});
  const AccessLogCounts log = Log(requests);
  ASSERT_EQ(log.keys[0].admitted_per_bin.size(), 1u);
  const LimitAccuracy a = AssessLimits(log, kBucket, 1, 100);
  EXPECT_EQ(a.window_s, 0);
  EXPECT_EQ(a.allowed_per_key, 20);
  EXPECT_EQ(a.floor_per_key, 0);
  EXPECT_EQ(a.admitted_max, 20);
  EXPECT_EQ(a.worst_window_admitted, 20u);  // one bin, fewer than the window's 10
  EXPECT_EQ(a.over_admission, 0);
  EXPECT_EQ(a.expected_reject_share, 0);  // offered x 0 s
  EXPECT_NEAR(a.reject_share, 5.0 / 25, 1e-12);
}

TEST(LimitAccuracy, OverAdmissionOfAHandMadeLog) {
  AccessLogCounts log;
  log.bin_s = 0.5;
  log.first_unix = 100;
  log.last_unix = 102;  // allowed 10 x 2 + 20 = 40
  log.keys = {{"a", 40, 0, 0, {20, 10, 5, 5, 0}}, {"b", 50, 0, 0, {30, 10, 5, 5, 0}},
              {"c", 44, 0, 0, {4, 10, 10, 10, 10}}, {"d", 10, 0, 1, {10, 0, 0, 0, 0}}};
  const LimitAccuracy a = AssessLimits(log, kBucket, 4, 0);
  EXPECT_EQ(a.keys_over, 2);
  EXPECT_DOUBLE_EQ(a.over_admission, 0.25);
  EXPECT_EQ(a.over_admission_key, "b");
  EXPECT_EQ(a.over_admission_key_admitted, 50u);
  EXPECT_EQ(a.admitted_median, 42);  // (40 + 44) / 2
  EXPECT_EQ(a.admitted_min, 10);
  EXPECT_EQ(a.admitted_max, 50);
  EXPECT_EQ(a.window_bins, 2);
  EXPECT_EQ(a.worst_window_admitted, 40u);  // b's bins 0 and 1
  EXPECT_EQ(a.worst_window_key, "b");
  EXPECT_EQ(a.floor_per_key, 0);  // 10 x 2 - 20
  EXPECT_EQ(a.keys_under, 0);
  EXPECT_EQ(a.other, 1u);
  EXPECT_EQ(OverAdmissionCheck(a, 0.25).passed, true);
  EXPECT_EQ(OverAdmissionCheck(a, 0.24).passed, false);
  EXPECT_EQ(WindowCheck(a, 0.02).passed, false);  // 40 > 30.6
  EXPECT_EQ(WindowCheck(a, 0.34).passed, true);   // 40 <= 40.2
}

TEST(LimitAccuracy, WorstWindowSlidesAcrossWholeSeconds) {
  AccessLogCounts log;
  log.bin_s = 0.25;  // 4 bins a window
  log.first_unix = 0;
  log.last_unix = 1.9;
  // Whole seconds [0, 1) and [1, 2) hold 20 each; bins 2..5 hold 40.
  log.keys = {{"a", 40, 0, 0, {0, 0, 20, 0, 0, 20, 0, 0}}, {"b", 31, 0, 0, {8, 8, 8, 7, 0, 0, 0, 0}}};
  const LimitAccuracy a = AssessLimits(log, kBucket, 2, 0);
  EXPECT_EQ(a.window_bins, 4);
  EXPECT_EQ(a.worst_window_admitted, 40u);
  EXPECT_EQ(a.worst_window_key, "a");
  EXPECT_FALSE(WindowCheck(a).passed);
  // One key's bins never add to another's.
  log.keys[0].admitted_per_bin = {0, 0, 20, 0, 0, 0, 0, 0};
  log.keys[0].admitted = 20;
  EXPECT_EQ(AssessLimits(log, kBucket, 2, 0).worst_window_admitted, 31u);
  EXPECT_EQ(AssessLimits(log, kBucket, 2, 0).worst_window_key, "b");
}

TEST(LimitAccuracy, PlotSeriesArePerKeyAscendingAndPerWholeSecond) {
  AccessLogCounts log;
  log.bin_s = 0.5;
  log.first_unix = 100;
  log.last_unix = 102;
  // Keys of different bin counts; admitted need not be the bins' sum.
  log.keys = {{"a", 40, 0, 0, {20, 10, 5, 5, 0}}, {"b", 50, 0, 0, {30, 10, 5}}, {"c", 7, 0, 0, {}}};
  const LimitAccuracy a = AssessLimits(log, kBucket, 4, 0);
  EXPECT_EQ(a.admitted_per_key, (std::vector<uint64_t>{7, 40, 50}));
  // Second 0: bins 0, 1; second 1: bins 2, 3; second 2: bin 4.
  EXPECT_EQ(a.admitted_per_second, (std::vector<uint64_t>{70, 15, 0}));
  // 0.1 s bins: 0.1 x 30 is 3.0000000000000004 and 0.1 x 10 is 1, each bin
  // lands in its own second.
  AccessLogCounts fine;
  fine.bin_s = 0.1;
  fine.last_unix = 3.05;
  fine.keys = {{"a", 31, 0, 0, std::vector<uint64_t>(31, 1)}};
  EXPECT_EQ(AssessLimits(fine, kBucket, 1, 0).admitted_per_second, (std::vector<uint64_t>{10, 10, 10, 1}));
  fine.bin_s = 0;
  EXPECT_TRUE(AssessLimits(fine, kBucket, 1, 0).admitted_per_second.empty());
  EXPECT_TRUE(AssessLimits(AccessLogCounts{}, kBucket, 1, 0).admitted_per_key.empty());
}

TEST(LimitChecks, KeysArrivedNamesWhatArrived) {
  AccessLogCounts log;
  log.lines = 2001;
  log.without_key = 2000;
  log.keys = {{"k0", 1, 0, 0, {1}}};
  const ValidityCheck c = KeysArrivedCheck(log, 50);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.name, "limit_keys_arrived");
  EXPECT_EQ(c.measured, 1);
  EXPECT_EQ(c.limit, 50);
  EXPECT_EQ(c.detail,
            "the access log saw 1 key (k0) where 50 were sent; 2000 of 2001 lines without the key header: the key "
            "header did not reach edge");
  // All keys, but malformed lines: still fails.
  log.without_key = 0;
  log.malformed = 3;
  EXPECT_FALSE(KeysArrivedCheck(log, 1).passed);
  EXPECT_THAT(KeysArrivedCheck(log, 1).detail, HasSubstr("3 malformed lines"));
  log.malformed = 0;
  EXPECT_TRUE(KeysArrivedCheck(log, 1).passed);
  // More keys than planned.
  for (int i = 1; i < 8; ++i) log.keys.push_back({"k" + std::to_string(i), 1, 0, 0, {1}});
  const ValidityCheck more = KeysArrivedCheck(log, 2);
  EXPECT_FALSE(more.passed);
  EXPECT_THAT(more.detail, HasSubstr("saw 8 keys (k0, k1, k2, k3, k4, ... 3 more) where 2 were sent: requests other"));
}

AccessLogCounts CountsLog(uint64_t ok, uint64_t limited, uint64_t other) {
  AccessLogCounts log;
  log.keys = {{"k0", ok, limited, other, {}}};
  return log;
}

TEST(LimitChecks, LogAgreesWithEngineWithinTolerance) {
  const AccessLogCounts log = CountsLog(1000, 9000, 0);
  // Allowed: 1 % of the engine's 9910 responses + 4 in flight = 103.1.
  ValidityCheck c = LogAgreesWithEngineCheck(log, 1000, 8910, 0, 4);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_EQ(c.name, "limit_log_agrees");
  EXPECT_EQ(c.measured, 90);
  EXPECT_NEAR(c.limit, 103.1, 1e-9);
  // 1 % of 9890 + 4 = 102.9 < 110.
  c = LogAgreesWithEngineCheck(log, 1000, 8890, 0, 4);
  EXPECT_FALSE(c.passed) << c.detail;
  EXPECT_EQ(c.measured, 110);
  EXPECT_THAT(c.detail, HasSubstr("the access log 1000 / 9000 / 0, the engine 1000 / 8890 / 0; largest difference "
                                  "110 (429); allowed 1% of the engine's 9890 responses + 4 in flight"));
  // A limiter that admits what the engine saw rejected: caught per status.
  EXPECT_FALSE(LogAgreesWithEngineCheck(log, 5000, 5000, 0, 64).passed);
}

TEST(LimitChecks, LogAgreesWithEngineFromStatusCounts) {
  const AccessLogCounts log = CountsLog(1000, 9000, 7);
  const std::map<int, uint64_t> statuses = {{200, 990}, {204, 10}, {429, 9000}, {503, 7}};
  ValidityCheck c = LogAgreesWithEngineCheck(log, statuses, 0, 0);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_EQ(c.measured, 0);
  c = LogAgreesWithEngineCheck(log, std::map<int, uint64_t>{{200, 1000}, {429, 9000}}, 0, 0);
  EXPECT_FALSE(c.passed);
  EXPECT_THAT(c.detail, HasSubstr("largest difference 7 (other)"));
  c = LogAgreesWithEngineCheck(log, std::map<int, uint64_t>{}, 64);
  EXPECT_FALSE(c.passed);
  EXPECT_TRUE(std::isnan(c.measured));
  EXPECT_THAT(c.detail, HasSubstr("did not count responses per status"));
}

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  const std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LimitPolicy, TokenBucketOfTheLimitsFixture) {
  auto r = TokenBucketOfPolicy(Fixture("policies/limits.json"), "bench-limits");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rate_per_s, 10);
  EXPECT_EQ(r->burst, 20);
}

std::string Bundle(const std::string& rules, const std::string& id = "p") {
  return R"({"bundle_version": 1, "policies": [{"id": ")" + id + R"(", "spec": {"rules": [)" + rules + "]}}]}";
}

const char kRule[] =
    R"({"name": "r1", "algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 8}})";

// The scenario's keys travel in X-Bench-Key: a rule that limits by anything
// else would let them share fewer buckets, and is refused by name.
TEST(LimitPolicy, TheRuleMustLimitByTheKeyHeader) {
  auto fixture = TokenBucketOfPolicy(Fixture("policies/limits.json"), "bench-limits", "X-Bench-Key");
  ASSERT_TRUE(fixture.ok()) << fixture.error().message;
  const std::string cfg = R"("algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 8})";
  EXPECT_TRUE(TokenBucketOfPolicy(Bundle(R"({"name": "r", "limit_keys": ["header:x-bench-key"], )" + cfg + "}"), "p",
                                  "X-Bench-Key")
                  .ok());
  for (const char* keys : {R"("limit_keys": ["ip:address"], )", R"("limit_keys": ["header:X-Bench-Key", "jwt:sub"], )",
                           ""}) {
    auto r = TokenBucketOfPolicy(Bundle(std::string(R"({"name": "r", )") + keys + cfg + "}"), "p", "X-Bench-Key");
    ASSERT_FALSE(r.ok()) << keys;
    EXPECT_THAT(r.error().message, HasSubstr("policy 'p': its token_bucket rule \"r\" limits by ")) << keys;
    EXPECT_THAT(r.error().message, HasSubstr("the rule must limit by exactly [\"header:X-Bench-Key\"]")) << keys;
  }
  // Without a key header, the keys are not looked at.
  EXPECT_TRUE(TokenBucketOfPolicy(Bundle(R"({"name": "r", "limit_keys": ["ip:address"], )" + cfg + "}"), "p").ok());
}

// Offered per key against allowed: below 1.25 x, a limiter that admits
// everything would read as correct.
// Before the load: the defaults (4 x for 10 s at 10/s burst 20: 400 of 120)
// pass; 1.5 x for 1 s (15 of 30) is refused naming both variables.
TEST(LimitChecks, PlannedOverloadRefusesWhatCouldNotShowOverAdmission) {
  EXPECT_TRUE(CheckPlannedOverload(4, 10, {10, 20}).ok());
  EXPECT_TRUE(CheckPlannedOverload(1.3, 1000, {10, 20}).ok());    // 13000 >= 1.25 x 10020
  EXPECT_FALSE(CheckPlannedOverload(1.25, 1000, {10, 20}).ok());  // 12500 < 1.25 x 10020: the burst counts
  auto low = CheckPlannedOverload(1.5, 1, {10, 20});
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message,
            "LIMITS_OVERLOAD=1.5 with LIMITS_DUR=1 s offers each key 15 requests, under 1.25 x the 30 its bucket (10 "
            "tokens/s, burst 20) allows: a limiter that admits everything would look correct; raise LIMITS_OVERLOAD "
            "or LIMITS_DUR");
  EXPECT_FALSE(CheckPlannedOverload(4, 10, {0, 0}).ok());  // a bucket that allows nothing: nothing to judge
}

TEST(LimitChecks, OverloadTooLowToShowOverAdmissionIsInvalid) {
  LimitAccuracy a;
  a.limit = {10, 20};
  a.keys_planned = 300;
  a.window_s = 4;
  a.offered_rps = 4500;  // 1.5 x: 60 per key in 4 s
  a.allowed_per_key = 60;
  ValidityCheck c = OverloadCheck(a);
  EXPECT_EQ(c.name, "limit_overload");
  EXPECT_FALSE(c.passed);
  EXPECT_DOUBLE_EQ(c.measured, 1.0);
  EXPECT_THAT(c.detail, HasSubstr("each key was offered 60 in the 4 s window, 1 x what the bucket (10/s, burst 20) "
                                  "allows (60): a limiter that admits everything would look correct"));
  a.offered_rps = 7500;  // 2.5 x
  c = OverloadCheck(a);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_NEAR(c.measured, 100.0 / 60, 1e-9);
  a.keys_planned = 0;
  EXPECT_FALSE(OverloadCheck(a).passed);
}

TEST(LimitPolicy, RpsAliasAndOtherAlgorithmsBeside) {
  auto r = TokenBucketOfPolicy(Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"rps": 3, "burst": 3}},
                                         {"algorithm": "concurrency", "algorithm_config": {"max": 1}})"),
                               "p");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rate_per_s, 3);
  EXPECT_EQ(r->burst, 3);
}

TEST(LimitPolicy, Refusals) {
  const struct {
    std::string json;
    const char* id;
    const char* what;
  } cases[] = {
      {"{", "p", "policy 'p': the bundle is not valid JSON"},
      {"[]", "p", "policy 'p': the bundle has no `policies` list"},
      {Bundle(kRule, "other"), "p", "policy 'p': not in the bundle (its policies: other)"},
      {R"({"policies": [{"id": "p", "spec": {"rules": []}}, {"id": "p", "spec": {"rules": []}}]})", "p",
       "two policies of that id"},
      {R"({"policies": [{"id": "p", "spec": {}}]})", "p", "policy 'p': no `spec.rules` list"},
      {Bundle(R"({"algorithm": "sliding_window"})"), "p", "policy 'p': no rule with \"algorithm\": \"token_bucket\""},
      {Bundle(std::string(kRule) + ", " + R"({"name": "r2", "algorithm": "token_bucket"})"), "p",
       "policy 'p': 2 token_bucket rules (\"r1\", \"r2\"), expected exactly one"},
      {Bundle(R"({"algorithm": "token_bucket"})"), "p", "the token_bucket rule has no algorithm_config object"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5}})"), "p",
       "policy 'p': algorithm_config has no `burst`"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"burst": 5}})"), "p",
       "algorithm_config has no `tokens_per_second`"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": "5", "burst": 5}})"), "p",
       "algorithm_config.tokens_per_second is \"5\", not a positive number"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 0}})"), "p",
       "algorithm_config.burst is 0, not a positive number"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 4}})"), "p",
       "burst 4 is below the rate 5/s"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 5,
                  "cost_source": "header:X-Cost"}})"),
       "p", "cost_source is \"header:X-Cost\": a request's cost is not 1 token"},
      {Bundle(R"({"algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 5, "burst": 5,
                  "fixed_cost": 2}})"),
       "p", "fixed_cost is 2"},
  };
  for (const auto& c : cases) {
    auto r = TokenBucketOfPolicy(c.json, c.id);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_THAT(r.error().message, HasSubstr(c.what));
  }
}

}  // namespace
}  // namespace fvbench::limit_accuracy_test
