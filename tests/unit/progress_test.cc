// progress: the stub_status parser on recorded pages (fixtures/stub_status/),
// the served-rate window, FVBENCH_PROGRESS_S and the tick line.
#include "support/run/progress.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/run/progress_ticker.h"
#include "support/host/shell_quote.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::progress_test {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/stub_status/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(StubStatusParse, FirstReadCountsItself) {
  auto s = ParseStubStatus(Fixture("first_read.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->active, 1u);
  EXPECT_EQ(s->accepts, 1u);
  EXPECT_EQ(s->handled, 1u);
  EXPECT_EQ(s->requests, 1u);
  EXPECT_EQ(s->writing, 1u);
}

TEST(StubStatusParse, AfterFiftyRequests) {
  // Recorded: the first read, 50 GETs on the served port, this read.
  auto s = ParseStubStatus(Fixture("after_50.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->requests, 52u);
  EXPECT_EQ(s->accepts, 52u);
  EXPECT_EQ(s->reading, 0u);
  EXPECT_EQ(s->waiting, 0u);
}

TEST(StubStatusParse, UnderLoad) {
  // Recorded 1.5 s into `wrk -t1 -c8 -d3s`: keepalive connections, requests >> accepts.
  auto s = ParseStubStatus(Fixture("under_load.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_GT(s->requests, s->accepts);
  EXPECT_GT(s->active, 1u);
}

TEST(StubStatusParse, ExtraCounterIgnoredAndCrlf) {
  auto s = ParseStubStatus(
      "Active connections: 3 \r\nserver accepts handled requests request_time\r\n 10 10 40 1234 \r\n"
      "Reading: 0 Writing: 1 Waiting: 2 \r\n");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->requests, 40u);
  EXPECT_EQ(s->waiting, 2u);
}

TEST(StubStatusParse, ErrorsNameWhatIsWrong) {
  auto html = ParseStubStatus("<html><head><title>404 Not Found</title></head></html>\n");
  ASSERT_FALSE(html);
  EXPECT_THAT(html.error().message, HasSubstr("no 'server accepts handled requests' line"));
  EXPECT_THAT(html.error().message, HasSubstr("404 Not Found"));

  auto bad = ParseStubStatus("Active connections: 1\nserver accepts handled requests\n 1 x 3\nReading: 0 Writing: 1 Waiting: 0\n");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("counter 'x'"));

  auto cut = ParseStubStatus("Active connections: 1\nserver accepts handled requests\n");
  ASSERT_FALSE(cut);
  EXPECT_THAT(cut.error().message, HasSubstr("no counter line"));

  auto rww = ParseStubStatus("Active connections: 1\nserver accepts handled requests\n 1 1 1\nReading: 0 Writing: 1\n");
  ASSERT_FALSE(rww);
  EXPECT_THAT(rww.error().message, HasSubstr("Reading: r Writing: w Waiting: w"));

  EXPECT_FALSE(ParseStubStatus(""));
}

// Reads once a second of a counter driven at `rps` from t = start to t = end
// (fractional), plus one per read, as stub_status counts.
ServedRate Simulate(double rps, double start, double end, int reads, bool load_ended = false) {
  ServedRate r;
  uint64_t own = 0;
  for (int i = 0; i < reads; ++i) {
    double t = i;
    double loaded = std::max(0.0, std::min(t, end) - start);
    ++own;
    r.Add(t, 100 + static_cast<uint64_t>(loaded * rps) + own);
  }
  if (load_ended) r.LoadEnded();
  return r;
}

TEST(ServedRateWindow, NoRateBeforeTwoReadsInsideTheLoad) {
  ServedRate r;
  EXPECT_FALSE(r.SoFarRps());
  r.Add(0, 100);
  r.Add(1, 101);  // only the read itself
  EXPECT_FALSE(r.SoFarRps());
  r.Add(2, 600);  // load began in (1, 2]
  EXPECT_FALSE(r.SoFarRps());
  r.Add(3, 1601);
  ASSERT_TRUE(r.SoFarRps());
  EXPECT_DOUBLE_EQ(*r.SoFarRps(), 1000);  // 1001 gained - 1 read
}

TEST(ServedRateWindow, StartupAndTailDoNotDiluteTheRate) {
  // 1000 RPS from 0.6 s to 10.4 s: the engine's start and end fall inside read intervals.
  ServedRate r = Simulate(1000, 0.6, 10.4, 13);
  ASSERT_TRUE(r.SoFarRps());
  EXPECT_NEAR(*r.SoFarRps(), 1000, 1);
  EXPECT_DOUBLE_EQ(r.WindowSeconds(), 9);  // reads 1..10: both partial intervals left out
  EXPECT_EQ(r.WindowRequests(), 9000u);
}

TEST(ServedRateWindow, WhileRunningTheLatestReadEndsTheWindow) {
  ServedRate r = Simulate(2000, 0.5, 100, 6);
  ASSERT_TRUE(r.SoFarRps());
  EXPECT_NEAR(*r.SoFarRps(), 2000, 1);
  EXPECT_DOUBLE_EQ(r.WindowSeconds(), 4);  // reads 1..5
}

TEST(ServedRateWindow, LoadEndedDropsAPartialLastInterval) {
  // The final read came 0.6 s into an interval whose load stopped at 9.4 s.
  ServedRate r;
  uint64_t c = 0;
  for (int i = 0; i <= 9; ++i) r.Add(i, c += (i == 0 ? 1 : 1001));  // 1000 RPS + the read
  r.Add(9.6, c += 401);                                           // 0.4 s of load, then quiet
  EXPECT_NEAR(*r.SoFarRps(), (8000.0 + 400) / 8.6, 0.01);  // reads 1..10: diluted by the partial interval
  r.LoadEnded();
  EXPECT_DOUBLE_EQ(*r.SoFarRps(), 1000);
  EXPECT_DOUBLE_EQ(r.WindowSeconds(), 8);
}

TEST(ServedRateWindow, CounterResetStartsAgain) {
  ServedRate r = Simulate(1000, 0, 100, 5);
  ASSERT_TRUE(r.SoFarRps());
  r.Add(5, 3);  // nginx restarted
  EXPECT_FALSE(r.SoFarRps());
  EXPECT_EQ(r.reads(), 1);
  r.Add(6, 504);
  r.Add(7, 1005);
  EXPECT_DOUBLE_EQ(*r.SoFarRps(), 500);
}

TEST(ServedRateWindow, ProbesAloneAreNoLoad) {
  ServedRate r;
  for (int i = 0; i < 10; ++i) r.Add(i, 7 + i);
  EXPECT_FALSE(r.SoFarRps());
  EXPECT_EQ(r.WindowRequests(), 0u);
}

TEST(ProgressEnv, PeriodAutoOffAndBad) {
  auto unset = ProgressParamsFromEnv({});
  ASSERT_TRUE(unset);
  EXPECT_DOUBLE_EQ(TickPeriod(*unset, 10), 5);
  EXPECT_DOUBLE_EQ(TickPeriod(*unset, 300), 30);
  auto off = ProgressParamsFromEnv({{"FVBENCH_PROGRESS_S", "0"}});
  ASSERT_TRUE(off);
  EXPECT_DOUBLE_EQ(TickPeriod(*off, 300), 0);
  auto two = ProgressParamsFromEnv({{"FVBENCH_PROGRESS_S", "2.5"}});
  ASSERT_TRUE(two);
  EXPECT_DOUBLE_EQ(TickPeriod(*two, 300), 2.5);
  for (const char* bad : {"5s", "-1", "nan", "3601"}) {
    auto r = ProgressParamsFromEnv({{"FVBENCH_PROGRESS_S", bad}});
    ASSERT_FALSE(r) << bad;
    EXPECT_THAT(r.error().message, HasSubstr(std::string("FVBENCH_PROGRESS_S='") + bad + "'"));
  }
}

TEST(ProgressLine, SearchStepWithBudget) {
  ProgressTick t;
  t.scenario = "throughput.simple";
  t.phase = "step 4 (bracket)";
  t.target_rps = 8000;
  t.elapsed_s = 5.3;
  t.total_s = 10;
  t.served_rps = 5419.6;
  t.search_load_s = 62.9;
  t.budget_s = 120;
  EXPECT_EQ(FormatProgressLine(t),
            "throughput.simple: step 4 (bracket) 8000 RPS: 5/10 s, SUT served 5420 RPS so far; load 62/120 s of "
            "budget");
  t.budget_s = 0;
  EXPECT_THAT(FormatProgressLine(t), HasSubstr("; load 62 s of the search"));
}

TEST(ProgressLine, RateStatesAndNoSearch) {
  ProgressTick t;
  t.scenario = "latency.raw_nginx";
  t.phase = "measuring";
  t.target_rps = 2000;
  t.elapsed_s = 30;
  t.total_s = 60;
  EXPECT_EQ(FormatProgressLine(t), "latency.raw_nginx: measuring 2000 RPS: 30/60 s, no load seen by the SUT yet");
  t.rate_failed = true;
  t.rate_na = "curl exit 7: Couldn't connect";
  EXPECT_EQ(FormatProgressLine(t), "latency.raw_nginx: measuring 2000 RPS: 30/60 s, rate n/a (curl exit 7: Couldn't connect)");
  t.rate_na.clear();
  EXPECT_EQ(FormatProgressLine(t), "latency.raw_nginx: measuring 2000 RPS: 30/60 s, rate n/a");
  std::string line = FormatProgressLine(t);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  EXPECT_EQ(line.find('\x1b'), std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

// A SUT whose stub_status counter gains 1000 requests (+ the read) per read,
// or whose curl fails.
// The SUT's status socket read through the shared fake host: each read
// serves 1001 more requests (the first one 1); `fail`: curl cannot connect.
struct Counter {
  bool fail = false;
  uint64_t requests = 0;
  testing_fakes::FakeHost host{"counter"};

  Counter() {
    host.On("curl", [this](const Command&) -> Result<ExecResult> {
      using testing_fakes::FakeHost;
      if (fail) return FakeHost::Exit(7, "", "curl: (7) Couldn't connect to server\n");
      requests += requests == 0 ? 1 : 1001;
      return FakeHost::Exit(0, fmt::format("Active connections: 2 \nserver accepts handled requests\n 5 5 {} \n"
                                           "Reading: 0 Writing: 1 Waiting: 1 \n",
                                           requests));
    });
  }
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    for (const Command& c : host.Calls()) out.push_back(ShellJoin(c.argv));
    return out;
  }
};

// Collects lines; Wait(n) blocks until n lines arrived (bounded, not a timing check).
struct Lines {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> v;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu);
      v.push_back(l);
      cv.notify_all();
    };
  }
  bool Wait(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return v.size() >= n; });
  }
};

TickerSetup TickerFor(const std::string& socket) {
  TickerSetup t;
  t.base.scenario = "throughput.simple";
  t.base.phase = "step 2 (bracket)";
  t.base.target_rps = 800;
  t.base.total_s = 3;
  t.base.search_load_s = 3;
  t.base.budget_s = 120;
  t.tick_s = 0.05;
  t.poll_s = 0.05;
  t.status_socket = socket;
  return t;
}

TEST(ProgressTicker, ReadsTheStatusSocketAndPrintsTicks) {
  Counter counter;
  Lines lines;
  ProgressTicker t(counter.host, TickerFor("/b/run/fv/logs/status.sock"), lines.sink());
  t.Start();
  ASSERT_TRUE(lines.Wait(4));
  auto served = t.Stop();
  ASSERT_TRUE(served);
  EXPECT_GT(*served, 0);
  const std::vector<std::string> calls = counter.calls();
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls[0],
            "curl -sS --max-time 2 --unix-socket /b/run/fv/logs/status.sock http://localhost/fvbench_status");
  EXPECT_THAT(lines.v.back(), HasSubstr("throughput.simple: step 2 (bracket) 800 RPS: "));
  EXPECT_THAT(lines.v.back(), HasSubstr("SUT served "));
  EXPECT_THAT(lines.v.back(), HasSubstr("/120 s of budget"));
}

TEST(ProgressTicker, FailingReadSaysWhyOnceAndStopsReading) {
  Counter counter;
  counter.fail = true;
  Lines lines;
  ProgressTicker t(counter.host, TickerFor("/b/run/fv/logs/status.sock"), lines.sink());
  t.Start();
  ASSERT_TRUE(lines.Wait(3));
  EXPECT_FALSE(t.Stop());
  std::lock_guard<std::mutex> lock(lines.mu);
  EXPECT_THAT(lines.v[0], HasSubstr("rate n/a (curl exit 7: curl: (7) Couldn't connect to server)"));
  EXPECT_THAT(lines.v[1], HasSubstr(", rate n/a; load"));
  EXPECT_EQ(counter.calls().size(), 1u) << "reads must stop after a failure";
}

TEST(ProgressTicker, NoSocketNoReadsAndOffDoesNothing) {
  testing_fakes::FakeHost host;
  Lines lines;
  TickerSetup s = TickerFor("");
  s.unavailable = "FVBENCH_PROGRESS_S=0";
  {
    ProgressTicker t(host, s, lines.sink());
    t.Start();
    ASSERT_TRUE(lines.Wait(1));
  }  // the destructor stops and joins
  EXPECT_THAT(lines.v[0], HasSubstr("rate n/a (FVBENCH_PROGRESS_S=0)"));
  EXPECT_TRUE(host.Calls().empty());

  s.tick_s = 0;
  s.status_socket = "/x.sock";
  ProgressTicker off(host, s, lines.sink());
  off.Start();
  EXPECT_FALSE(off.Stop());
  EXPECT_TRUE(host.Calls().empty());
}

}  // namespace
}  // namespace fvbench::progress_test
