// ParseWrkOutput / ParseWrkPaceOutput over real pace.lua recordings
// (fixtures/wrk/, see its README) and hand-made bad inputs.
#include "support/engine/wrk_output.h"
#include "fvbench/source_dir.h"

#include <cctype>
#include <cstdlib>
#include <ostream>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::wrk_output_test {
namespace {

using ::testing::HasSubstr;

std::string FixturePath(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::string base = (dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures";
  return base + "/wrk/" + name;
}

std::string Fixture(const std::string& name) {
  std::ifstream in(FixturePath(name), std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << FixturePath(name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A minimal valid document; tests edit one thing at a time.
std::string Doc(const std::string& requests = "1000", const std::string& errors =
                    R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})",
                const std::string& non_2xx = "0", const std::string& lag_max = "500",
                const std::string& sent = "1000") {
  return R"({"schema":"fvbench.wrk.pace/1","target_rate":500,"threads":2,"threads_requested":2,)"
         R"("requests":)" + requests + R"(,"sent":)" + sent +
         R"(,"duration_us":2000000,"errors":)" + errors + R"(,"non_2xx":)" + non_2xx +
         R"(,"non_2xx_source":"response","latency_us":{"p50":100,"p90":200,"p99":300,"p99_9":400,"max":500},)"
         R"("send_lag_us":{"max":)" + lag_max + R"(,"mean":10,"late_1ms":0,"late_10ms":0}})";
}

TEST(WrkOutput, PacedRecordingMapsEveryField) {
  auto r = ParseWrkPaceOutput(Fixture("paced_get_2000rps.json"), "paced.json", 2000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LoadResult& l = r->load;
  EXPECT_EQ(l.engine, "wrk");
  EXPECT_EQ(l.raw_path, "paced.json");
  EXPECT_EQ(l.target_rps, 2000);
  EXPECT_EQ(l.requests, 10012u);
  EXPECT_DOUBLE_EQ(l.duration_s, 5.007898);
  EXPECT_NEAR(l.achieved_rps, 10012 / 5.007898, 1e-9);
  // Per scheduled request: 2000 RPS x 5.007898 s = 10016 slots, 10012
  // responses, 10012 sends. The 4 slots never sent are the phase's start
  // (a thread's first slot comes when its first connection is up): the
  // engine's, and counted as not served, never as served.
  EXPECT_EQ(l.scheduled, 10016u);
  EXPECT_EQ(l.succeeded, 10012u);
  EXPECT_EQ(l.failed, 4u);
  EXPECT_EQ(l.failed_sut, 0u);
  EXPECT_EQ(l.failed_engine, 4u);
  EXPECT_EQ(l.non_2xx, 0u);
  EXPECT_DOUBLE_EQ(l.error_rate, 4.0 / 10016.0);
  // Already microseconds in the file: no conversion.
  EXPECT_EQ(l.latency_us.p50, 105);
  EXPECT_EQ(l.latency_us.p90, 179);
  EXPECT_EQ(l.latency_us.p99, 3441);
  EXPECT_EQ(l.latency_us.p999, 5575);
  EXPECT_EQ(l.latency_us.max, 7056);
  EXPECT_DOUBLE_EQ(l.latency_us.mean, 203.169);
  EXPECT_EQ(l.connections, 20u);  // the pool, for Little's law (step_search.h)
  EXPECT_DOUBLE_EQ(l.max_send_lag_us, 5532.013);
  EXPECT_TRUE(l.kept_up);  // 5.5 ms <= 10 ms default
  EXPECT_FALSE(l.ratelimit_evidence.has_value());
  EXPECT_EQ(r->sent, 10012u);
  EXPECT_EQ(r->threads, 2);
  EXPECT_EQ(r->connections, 20);
  EXPECT_EQ(r->send_lag.late_1ms, 717u);
  EXPECT_EQ(r->send_lag.late_10ms, 0u);
  EXPECT_DOUBLE_EQ(r->send_lag.max_early_us, 608.111);
  EXPECT_EQ(r->latency_samples, 10012u);
  EXPECT_EQ(r->latency_recorded, 10012u);
  EXPECT_EQ(r->non_2xx_source, "errors.status (status > 399 only)");
}

// Outputs without the mean latency or the connections (older pace.lua, no
// FVBENCH_CONNECTIONS): both 0, not known.
TEST(WrkOutput, MeanLatencyAndConnectionsAreOptional) {
  auto r = ParseWrkOutput(Doc(), "x.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->latency_us.mean, 0);
  EXPECT_EQ(r->connections, 0u);
}

// A send lag document: `late10` of 10000 sends were > 10 ms behind their slot.
std::string LagDoc(const std::string& late10, const std::string& lag_max) {
  std::string d = Doc("10000", R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})", "0", lag_max,
                      "10000");
  const std::string from = R"("late_10ms":0)";
  d.replace(d.find(from), from.size(), R"("late_10ms":)" + late10);
  return d;
}

// pace.lua's split of the late sends: those whose slot found every
// connection waiting for a response. Absent (older outputs): not known.
TEST(WrkOutput, LateSendsThatFoundThePoolExhausted) {
  auto with = [](const std::string& n) {
    std::string d = LagDoc("40", "60000");
    const std::string from = R"("late_10ms":40)";
    d.replace(d.find(from), from.size(), R"("late_10ms":40,"late_10ms_pool_exhausted":)" + n);
    return d;
  };
  auto r = ParseWrkOutput(with("30"), "stall.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->late_pool_exhausted_share.has_value());
  EXPECT_DOUBLE_EQ(*r->late_pool_exhausted_share, 0.75);
  auto old = ParseWrkOutput(LagDoc("40", "60000"), "old.json", 500);
  ASSERT_TRUE(old.ok());
  EXPECT_FALSE(old->late_pool_exhausted_share.has_value());
  auto bad = ParseWrkOutput(with("41"), "bad.json", 500);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "bad.json: send_lag_us.late_10ms_pool_exhausted 41 is more than late_10ms 40");
}

TEST(WrkOutput, LateSendShareDecidesKeptUp) {
  // One 60 ms descheduling that made 10 of 10000 sends late: p99.9 of send
  // lag is still <= 10 ms, the engine kept up (the bound is inclusive).
  auto hiccup = ParseWrkOutput(LagDoc("10", "60000"), "hiccup.json", 500);
  ASSERT_TRUE(hiccup.ok()) << hiccup.error().message;
  EXPECT_TRUE(hiccup->kept_up);
  EXPECT_DOUBLE_EQ(hiccup->late_send_share, 0.001);
  EXPECT_DOUBLE_EQ(hiccup->max_send_lag_us, 60000);
  // One more late send: over the default share.
  auto behind = ParseWrkOutput(LagDoc("11", "60000"), "behind.json", 500);
  ASSERT_TRUE(behind.ok());
  EXPECT_FALSE(behind->kept_up);
  // The share bound is a parameter.
  auto strict = ParseWrkOutput(LagDoc("1", "12000"), "strict.json", 500, /*max_late_share=*/0.0);
  ASSERT_TRUE(strict.ok());
  EXPECT_FALSE(strict->kept_up);
  // The recording: max lag 5.5 ms, no send > 10 ms late.
  auto rec = ParseWrkOutput(Fixture("paced_get_2000rps.json"), "paced.json", 2000);
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->kept_up);
  EXPECT_EQ(rec->late_send_share, 0.0);
}

TEST(WrkOutput, OverloadRecordingIsNotKeptUp) {
  auto r = ParseWrkPaceOutput(Fixture("overload_get_200000rps_4conn.json"), "overload.json", 200000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->load.kept_up);
  EXPECT_GT(r->load.max_send_lag_us, 1e6);  // the schedule fell seconds behind
  EXPECT_GT(r->load.late_send_share, 0.99);   // nearly every send was late
  EXPECT_LT(r->load.achieved_rps, 0.5 * 200000);
  // Every response was fine: the requests it never sent are the engine's.
  EXPECT_GT(r->load.failed_engine, r->load.scheduled / 2);
  EXPECT_LE(r->load.failed_sut, 4u);  // at most one in flight per connection at the end
  EXPECT_EQ(r->load.succeeded, r->load.requests);
  // wrk's stats_correct() invented samples; visible as samples > recorded.
  EXPECT_GT(r->latency_samples, r->latency_recorded);
}

TEST(WrkOutput, CountedStatusesAndRateLimitHeaders) {
  auto r = ParseWrkPaceOutput(Fixture("status_429_counted.json"), "429.json", 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->load.requests, 2002u);
  EXPECT_EQ(r->load.non_2xx, 2002u);
  EXPECT_EQ(r->load.failed, 2002u);
  EXPECT_DOUBLE_EQ(r->load.error_rate, 1.0);
  ASSERT_TRUE(r->load.ratelimit_evidence.has_value());
  EXPECT_EQ(*r->load.ratelimit_evidence, 2002u);
  EXPECT_EQ(r->non_2xx_source, "response");
  ASSERT_EQ(r->load.status_counts.size(), 1u);
  EXPECT_EQ(r->load.status_counts.at(429), 2002u);
}

TEST(WrkOutput, UncountedStatusesFallBackToWrkErrors) {
  auto r = ParseWrkPaceOutput(Fixture("status_429_uncounted.json"), "429u.json", 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->load.non_2xx, r->errors.status);
  EXPECT_EQ(r->load.non_2xx, 2002u);
  EXPECT_FALSE(r->load.ratelimit_evidence.has_value());
  EXPECT_THAT(r->non_2xx_source, HasSubstr("errors.status"));
}

TEST(WrkOutput, DecisionWithRateLimitHeadersOn200) {
  auto r = ParseWrkPaceOutput(Fixture("decision_ratelimit_headers.json"), "d.json", 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->load.non_2xx, 0u);
  ASSERT_TRUE(r->load.ratelimit_evidence.has_value());
  EXPECT_EQ(*r->load.ratelimit_evidence, r->load.requests);
  EXPECT_EQ(r->load.status_counts.at(200), r->load.requests);
}

// wrk's connect/read/write counters count socket attempts (a failed write is
// retried on a new connection and counted again): never failed requests.
TEST(WrkOutput, SocketErrorCountersAreAttemptsNotRequests) {
  // 1000 slots (500 RPS x 2 s), 1000 responses (10 non-2xx, 5 slower than
  // --timeout) and 25 socket errors: 15 of 1000 scheduled requests failed.
  auto r = ParseWrkOutput(
      Doc("1000", R"({"connect":20,"read":3,"write":2,"status":10,"timeout":5})", "10"), "x.json",
      500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->scheduled, 1000u);
  EXPECT_EQ(r->failed, 15u);
  EXPECT_EQ(r->failed_sut, 15u);
  EXPECT_DOUBLE_EQ(r->error_rate, 15.0 / 1000.0);
  EXPECT_TRUE(r->kept_up);
}

// Measured: 200 RPS for 4 s with a 200 ms SUT outage.
// wrk's counters said read 331 + write 5282 (88 % "errors"); about 40 of the
// ~804 scheduled requests got no response (~5 %).
TEST(WrkOutput, OutageIsCountedPerScheduledRequest) {
  auto r = ParseWrkPaceOutput(Fixture("04_wrk_200ms_outage_measured_4s.json"), "04.json", 200);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LoadResult& l = r->load;
  EXPECT_EQ(l.scheduled, 804u);  // 200 x 4.018533 s
  EXPECT_EQ(l.succeeded, 767u);
  EXPECT_EQ(l.failed_sut, 37u);  // sent (and retried), never answered: the SUT's
  EXPECT_EQ(l.failed_engine, 0u);
  EXPECT_NEAR(l.error_rate, 0.046, 0.001);
  EXPECT_NEAR(l.error_rate, 40.0 / 804.0, 0.01);  // within 1 point of the outage's share
  // The retries consumed schedule slots: the schedule ran 1.77 s ahead, i.e.
  // offered more than the target rate. Flagged like falling behind.
  EXPECT_NEAR(l.max_early_send_us, 1770919.818, 1e-3);
  EXPECT_FALSE(l.kept_up);
}

// The same outage: the counters over 60 s read 31.9 %; 0.33 % lost.
TEST(WrkOutput, BlipIsCountedPerScheduledRequest) {
  auto r = ParseWrkPaceOutput(Fixture("04_wrk_blip_60s.json"), "04b.json", 200);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->load.scheduled, 12000u);
  EXPECT_EQ(r->load.failed, 40u);
  EXPECT_NEAR(r->load.error_rate, 0.0033, 0.0001);
  EXPECT_TRUE(r->load.kept_up);  // 0.9 ms early is timer rounding
}

TEST(WrkOutput, NothingServedIsErrorRateOneNotZero) {
  auto none = ParseWrkOutput(Doc("0", R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})",
                                 "0", "0", "0"),
                             "x.json", 500);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->error_rate, 1.0);
  auto refused = ParseWrkOutput(
      Doc("0", R"({"connect":70,"read":0,"write":0,"status":0,"timeout":0})", "0", "0", "0"),
      "x.json", 500);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->failed, 1000u);      // every scheduled request
  EXPECT_EQ(refused->failed_sut, 1000u);  // connections refused: the SUT's
  EXPECT_EQ(refused->error_rate, 1.0);
}

TEST(WrkOutput, UnpacedRunIsNotKeptUp) {
  // requests completed but no paced send recorded: delay()/request() were not ours.
  auto r = ParseWrkOutput(Doc("1000", R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})",
                              "0", "0", "0"),
                          "x.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->kept_up);
}

struct BadCase {
  const char* fixture;
  const char* expect;  // substring of the error message
};

// Stable, readable names in gtest and CTest (not the struct's bytes).
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.fixture; }

class WrkOutputBadFixture : public ::testing::TestWithParam<BadCase> {};

TEST_P(WrkOutputBadFixture, ClearErrorNamingFileAndField) {
  const BadCase& c = GetParam();
  auto r = ParseWrkOutput(Fixture(c.fixture), c.fixture, 2000);
  ASSERT_FALSE(r.ok()) << c.fixture << " parsed";
  EXPECT_THAT(r.error().message, HasSubstr(c.fixture));
  EXPECT_THAT(r.error().message, HasSubstr(c.expect));
}

INSTANTIATE_TEST_SUITE_P(
    WrkRecorded, WrkOutputBadFixture,
    ::testing::Values(BadCase{"bad_empty.json", "empty output"},
                      BadCase{"bad_truncated.json", "not valid JSON at byte"},
                      BadCase{"paced_get_2000rps.stdout.txt", "not valid JSON"},
                      BadCase{"bad_missing_send_lag.json", "missing field `send_lag_us`"},
                      BadCase{"bad_requests_string.json", "field `requests` is a string"},
                      BadCase{"bad_p99_null.json", "field `latency_us.p99` is null"}),
    [](const ::testing::TestParamInfo<BadCase>& info) {
      std::string name = info.param.fixture;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(WrkOutput, HandMadeBadInputs) {
  struct Case {
    std::string text;
    double target;
    const char* expect;
  };
  const std::string good = Doc();
  const Case cases[] = {
      {"   \n", 500, "empty output"},
      {"[1,2]", 500, "top level is a array"},
      {R"({"schema":"other/1"})", 500, "field `schema` is \"other/1\""},
      {R"({"target_rate":500})", 500, "missing field `schema`"},
      {good, 1000, "field `target_rate` is 500 but the phase asked for 1000"},
      {Doc("-5"), 500, "field `requests` is -5"},
      {Doc("10.5"), 500, "field `requests` is 10.5"},
      {Doc("1000", R"({"connect":0,"read":0,"write":0,"status":0})"), 500,
       "missing field `errors.timeout`"},
      {Doc("1000", R"([0,0,0,0,0])"), 500, "`errors` is not an object"},
      {Doc("1000", R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})", "0", "-1"), 500,
       "field `send_lag_us.max` is -1"},
      {[&] {
         std::string t = good;
         t.replace(t.find(R"("threads":2)"), 11, R"("threads":1)");
         return t;
       }(),
       500, "field `threads` is 1 but `threads_requested`"},
      {[&] {
         std::string t = good;
         t.replace(t.find(R"("duration_us":2000000)"), 21, R"("duration_us":0)");
         return t;
       }(),
       500, "field `duration_us` is 0"},
  };
  for (const Case& c : cases) {
    auto r = ParseWrkOutput(c.text, "hand.json", c.target);
    ASSERT_FALSE(r.ok()) << "parsed: " << c.text;
    EXPECT_THAT(r.error().message, HasSubstr("hand.json")) << c.text;
    EXPECT_THAT(r.error().message, HasSubstr(c.expect)) << c.text;
  }
  // The unedited document is valid, so the cases above fail for their edit.
  auto ok = ParseWrkOutput(good, "hand.json", 500);
  EXPECT_TRUE(ok.ok()) << ok.error().message;
}

// Measured: 2 of 600 responses took 2.5 s (wrk's 2 s
// timeout). wrk's percentiles dropped them (p99.9 = max = 8.99 ms, the run
// passed). They are samples of at least 2 s: p99.9 and max read ">= 2 s".
TEST(WrkOutput, TimeoutsAreCensoredLatencyNotMissingSamples) {
  auto r = ParseWrkPaceOutput(Fixture("05_wrk_timeouts_measured.json"), "05.json", 100);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LatencyUs& l = r->load.latency_us;
  EXPECT_EQ(l.censored_at_us, 2e6);  // no timeout_us in this output: wrk's default
  EXPECT_TRUE(l.IsCensored(l.p999));
  EXPECT_EQ(l.p999, 2e6);
  EXPECT_TRUE(l.IsCensored(l.max));
  EXPECT_FALSE(l.IsCensored(l.p99));  // 598 / 600 > 0.99: p99 is a measured value
  EXPECT_EQ(l.p99, 3195);
  EXPECT_EQ(r->load.failed_sut, 2u + 1u);  // the 2 timeouts + 1 slot never answered
}

// 0.5 % timeouts. p99 stays measured; p99.9 and max are
// at least the timeout.
TEST(WrkOutput, HalfPercentTimeoutsCensorP999AndMaxOnly) {
  auto r = ParseWrkPaceOutput(Fixture("05_wrk_timeouts_half_percent.json"), "05b.json", 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LatencyUs& l = r->load.latency_us;
  EXPECT_EQ(l.p99, 1900);
  EXPECT_FALSE(l.IsCensored(l.p99));
  EXPECT_TRUE(l.IsCensored(l.p999));
  EXPECT_TRUE(l.IsCensored(l.max));
  EXPECT_EQ(l.p50, 410);
}

TEST(WrkOutput, TimeoutFieldSetsTheCensoringBound) {
  std::string doc = Doc("1000", R"({"connect":0,"read":0,"write":0,"status":0,"timeout":20})");
  doc.insert(doc.size() - 1, R"(,"timeout_us":10000000)");
  auto r = ParseWrkOutput(doc, "x.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->latency_us.censored_at_us, 1e7);
  EXPECT_EQ(r->latency_us.p99, 1e7);  // 20 of 1000 > 1 %: p99 among the timeouts
  EXPECT_EQ(r->latency_us.p90, 200);
  std::string bad = Doc();
  bad.insert(bad.size() - 1, R"(,"timeout_us":0)");
  EXPECT_FALSE(ParseWrkOutput(bad, "x.json", 500).ok());
}

// A request still in flight when wrk stops at -d (wrk does not wait for it)
// has no outcome: it leaves the count (LoadResult::interrupted), as long as
// nothing else can explain a missing response.
TEST(WrkOutput, RequestsInFlightAtTheEndAreInterruptedNotFailed) {
  const std::string clean = R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})";
  auto with_connections = [](std::string doc) {
    return doc.insert(1, R"("connections":4,)");
  };
  // 1000 slots (500 RPS x 2 s), all sent, 997 answered, 4 connections.
  auto r = ParseWrkOutput(with_connections(Doc("997", clean)), "x.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->interrupted, 3u);
  EXPECT_EQ(r->scheduled, 997u);
  EXPECT_EQ(r->failed, 0u);
  EXPECT_EQ(r->error_rate, 0.0);
  // More unanswered than connections: not all can have been in flight.
  auto lost = ParseWrkOutput(with_connections(Doc("995", clean)), "x.json", 500);
  ASSERT_TRUE(lost.ok()) << lost.error().message;
  EXPECT_EQ(lost->interrupted, 0u);
  EXPECT_EQ(lost->failed_sut, 5u);
  // A socket error or a timeout may explain them: the SUT's.
  auto reset = ParseWrkOutput(
      with_connections(Doc("997", R"({"connect":0,"read":1,"write":0,"status":0,"timeout":0})")), "x.json", 500);
  ASSERT_TRUE(reset.ok()) << reset.error().message;
  EXPECT_EQ(reset->interrupted, 0u);
  EXPECT_EQ(reset->failed_sut, 3u);
  // Connections unknown (an older output): nothing is assumed.
  auto old = ParseWrkOutput(Doc("997", clean), "x.json", 500);
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_EQ(old->interrupted, 0u);
  EXPECT_EQ(old->failed_sut, 3u);
  // With slots unsent too (the engine behind): the unanswered are still in
  // flight, not the SUT's errors (outcomes.h InFlightAtStop), the unsent
  // slots the engine's.
  auto behind = ParseWrkOutput(with_connections(Doc("990", clean, "0", "500", "992")), "x.json", 500);
  ASSERT_TRUE(behind.ok()) << behind.error().message;
  EXPECT_EQ(behind->interrupted, 2u);
  EXPECT_EQ(behind->failed_sut, 0u);
  EXPECT_EQ(behind->failed_engine, 8u);
  EXPECT_EQ(behind->scheduled, 998u);
}

// pace.lua leaves the slots whose timer wrk's stop cut off while on time out
// of `scheduled` and names them (unsent_at_stop): they are interrupted too.
TEST(WrkOutput, SlotsCutOffByWrksStopAreInterrupted) {
  const std::string clean = R"({"connect":0,"read":0,"write":0,"status":0,"timeout":0})";
  std::string doc = Doc("999", clean, "0", "500", "999");
  doc.insert(1, R"("connections":4,"scheduled":999,"unsent_at_stop":1,)");
  auto r = ParseWrkOutput(doc, "x.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->scheduled, 999u);
  EXPECT_EQ(r->failed, 0u);
  EXPECT_EQ(r->interrupted, 1u);
  doc.replace(doc.find("\"unsent_at_stop\":1"), 18, "\"unsent_at_stop\":-1");
  auto bad = ParseWrkOutput(doc, "x.json", 500);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("unsent_at_stop"));
}


// A document with a `window` (and a histogram) inserted before its end.
std::string WithFields(const std::string& fields) {
  std::string d = Doc();
  d.pop_back();
  return d + "," + fields + "}";
}

// Synchronised (several load generators): the schedule window is
// the phase's duration, not wrk's runtime (its -d also covered the wait for
// the common start).
TEST(WrkOutput, SynchronisedWindowIsTheDuration) {
  auto r = ParseWrkPaceOutput(
      WithFields(R"("window":{"synchronised":true,"start_epoch_us":1700000000000000,)"
                 R"("end_epoch_us":1700000001500000,"first_send_lag_us":-120})"),
      "w.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->window.synchronised);
  EXPECT_DOUBLE_EQ(r->load.duration_s, 1.5);
  EXPECT_DOUBLE_EQ(r->load.achieved_rps, 1000 / 1.5);
  ASSERT_TRUE(r->window.first_send_lag_us.has_value());
  EXPECT_EQ(*r->window.first_send_lag_us, -120);
  EXPECT_FALSE(r->histogram.has_value());
}

TEST(WrkOutput, UnsynchronisedWindowKeepsWrksRuntime) {
  auto r = ParseWrkPaceOutput(
      WithFields(R"("window":{"synchronised":false,"start_epoch_us":1700000000000000,)"
                 R"("end_epoch_us":1700000001500000,"first_send_lag_us":null})"),
      "w.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->window.synchronised);
  EXPECT_DOUBLE_EQ(r->load.duration_s, 2.0);
  EXPECT_FALSE(r->window.first_send_lag_us.has_value());
}

TEST(WrkOutput, HistogramIsRead) {
  auto r = ParseWrkPaceOutput(
      WithFields(R"("histogram":{"schema_version":1,"layout":"log-linear-ns-1024","recorded":3,"min_ns":1000,)"
                 R"("max_ns":3000,"timeouts":0,"timeout_us":10000000,"buckets":[1000,1,2048,1,2560,1]})"),
      "h.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->histogram.has_value());
  EXPECT_EQ(r->histogram->recorded(), 3u);
  EXPECT_EQ(r->histogram->max_ns(), 3000u);
}

TEST(WrkOutput, BadWindowOrHistogramNamesTheField) {
  struct Case {
    std::string fields, want;
  };
  for (const Case& c : std::vector<Case>{
           {R"("window":[])", "field `window` is not an object"},
           {R"("window":{"start_epoch_us":1,"end_epoch_us":2})", "window.synchronised"},
           {R"("window":{"synchronised":true,"start_epoch_us":5,"end_epoch_us":5})", "end_epoch_us 5 is not after"},
           {R"("window":{"synchronised":true,"start_epoch_us":1,"end_epoch_us":5,"first_send_lag_us":"x"})",
            "first_send_lag_us"},
           {R"("histogram":{"schema_version":1,"layout":"log-linear-ns-1024","recorded":2,"min_ns":1,"max_ns":1,)"
            R"("timeouts":0,"timeout_us":1,"buckets":[1,1]})",
            "field `histogram`"},
       }) {
    auto r = ParseWrkPaceOutput(WithFields(c.fields), "bad.json", 500);
    ASSERT_FALSE(r.ok()) << c.fields;
    EXPECT_THAT(r.error().message, HasSubstr(c.want)) << c.fields;
    EXPECT_THAT(r.error().message, HasSubstr("bad.json")) << c.fields;
  }
}

// Counts per interval (pace.lua "Results over time"): read as written;
// absent (an older pace.lua) is an empty series, not an error.
TEST(WrkOutput, IntervalsAreReadAndMayBeAbsent) {
  auto old = ParseWrkPaceOutput(Doc(), "old.json", 500);
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_TRUE(old->load.intervals.empty());
  auto r = ParseWrkPaceOutput(
      WithFields(R"("scheduled":1000,"intervals":{"start_epoch_us":1700000000000000,"width_us":1000000,)"
                 R"("scheduled":[500,500,0],"sent":[499,501,0],"completed":[498,500,2],"late_10ms":[0,0,0]})"),
      "iv.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const IntervalSeries& s = r->load.intervals;
  EXPECT_DOUBLE_EQ(s.start_epoch_us, 1700000000000000.0);
  EXPECT_DOUBLE_EQ(s.width_us, 1e6);
  EXPECT_EQ(s.scheduled, (std::vector<uint64_t>{500, 500, 0}));
  EXPECT_EQ(s.sent, (std::vector<uint64_t>{499, 501, 0}));
  EXPECT_EQ(s.completed, (std::vector<uint64_t>{498, 500, 2}));
  EXPECT_EQ(s.late_10ms, (std::vector<uint64_t>{0, 0, 0}));
}

// Recorded (fixtures/wrk/README.md): the series sum to the phase's counts.
TEST(WrkOutput, RecordedIntervalsSumToThePhase) {
  auto r = ParseWrkPaceOutput(Fixture("paced_get_500rps_intervals.json"), "iv.json", 500);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const IntervalSeries& s = r->load.intervals;
  ASSERT_EQ(s.size(), 4u);
  EXPECT_DOUBLE_EQ(s.width_us, 1e6);
  EXPECT_EQ(s.scheduled, (std::vector<uint64_t>{498, 500, 500, 13}));
  EXPECT_EQ(SeriesTotal(s.scheduled), 1511u);
  EXPECT_EQ(SeriesTotal(s.sent), r->sent);
  EXPECT_EQ(SeriesTotal(s.completed), r->load.requests);
  EXPECT_EQ(SeriesTotal(s.late_10ms), r->send_lag.late_10ms);
}

TEST(WrkOutput, BadIntervalsNameTheField) {
  const std::string good_series = R"("scheduled":[500,500],"sent":[500,500],"completed":[500,500],"late_10ms":[0,0])";
  struct Case {
    std::string intervals, want;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "field `intervals` is a array, expected an object"},
           {R"({"width_us":1000000,)" + good_series + "}", "missing field `intervals.start_epoch_us`"},
           {R"({"start_epoch_us":1,"width_us":0,)" + good_series + "}", "`intervals.width_us` is 0, expected > 0"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,500],"late_10ms":[0,0]})",
            "missing field `intervals.completed`"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,500],"completed":[500,-1],)"
            R"("late_10ms":[0,0]})",
            "`intervals.completed[1]` is -1"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,500],"completed":"x",)"
            R"("late_10ms":[0,0]})",
            "`intervals.completed` is a string"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,500],"completed":[1000],)"
            R"("late_10ms":[0,0]})",
            "series of different lengths (scheduled 2, sent 2, completed 1, late_10ms 2)"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,499],"completed":[500,500],)"
            R"("late_10ms":[0,0]})",
            "`intervals.sent` sums to 999, but `sent` is 1000"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,500],"sent":[500,500],"completed":[500,500],)"
            R"("late_10ms":[0,1]})",
            "`intervals.late_10ms` sums to 1, but `send_lag_us.late_10ms` is 0"},
           {R"({"start_epoch_us":1,"width_us":1000000,"scheduled":[500,499],"sent":[500,500],"completed":[500,500],)"
            R"("late_10ms":[0,0]})",
            "`intervals.scheduled` sums to 999, but `scheduled` is 1000"},
       }) {
    auto r = ParseWrkPaceOutput(WithFields(R"("scheduled":1000,"intervals":)" + c.intervals), "bad.json", 500);
    ASSERT_FALSE(r.ok()) << c.intervals;
    EXPECT_THAT(r.error().message, HasSubstr(c.want)) << c.intervals;
    EXPECT_THAT(r.error().message, HasSubstr("bad.json")) << c.intervals;
  }
}

// A loadgen's result padded after the document (valid JSON, then NUL
// bytes): nlohmann would stop at the first NUL and accept it.
// Refused naming the file, as is any content after the document.
TEST(WrkOutput, NulPaddingOrContentAfterTheDocumentIsRefused) {
  const std::string good = Fixture("paced_get_2000rps.json");
  ASSERT_TRUE(ParseWrkPaceOutput(good, "lg1:/r/p.json", 2000).ok());
  auto nul = ParseWrkPaceOutput(good + std::string(100000, '\0'), "lg1:/r/p.json", 2000);
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.error().message, HasSubstr("lg1:/r/p.json"));
  EXPECT_THAT(nul.error().message, HasSubstr("a NUL byte at byte " + std::to_string(good.size())));
  auto nul_first = ParseWrkPaceOutput(std::string(1, '\0') + good, "lg1:/r/p.json", 2000);
  ASSERT_FALSE(nul_first.ok());
  EXPECT_THAT(nul_first.error().message, HasSubstr("a NUL byte at byte 0"));
  auto twice = ParseWrkPaceOutput(good + good, "lg1:/r/p.json", 2000);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error().message, HasSubstr("content after the JSON document"));
}

}  // namespace
}  // namespace fvbench::wrk_output_test
