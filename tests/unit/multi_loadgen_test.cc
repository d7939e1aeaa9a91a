// Several load generators on one clock (engine/multi_loadgen.h), with
// stand-in engines whose hosts' clocks and launch times are set by the test:
// each host is given the common start in its own clock and its measured
// start is mapped back; a host too far off is refused before any load; a
// process not ready at the start is a harness fault, run again once with the
// lead its launch calls for, never judged as an engine behind; the lead is
// measured by the warmup and kept for the run; a split too small is refused.
// The same on real hosts: tests/faults_remote/loadgen_clocks_test.cc.
#include "support/engine/multi_loadgen.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/latency_histogram_json.h"
#include "support/engine/wrk_output.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::multi_loadgen_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_fakes::FakeHost;
namespace fs = std::filesystem;

constexpr double kNow = 1.7e15;  // the controller's clock at every launch (µs)

// A wrk stand-in on a host whose clock is `offset_us` off the controller's
// and whose command is ready `launch_us` after the controller's launch
// (kNow): it writes what pace.lua would for its synchronised window.
class FakeWrk : public LoadEngine {
 public:
  FakeWrk(double offset_us, std::function<double(int attempt)> launch_us)
      : offset_us_(offset_us), launch_us_(std::move(launch_us)) {}
  std::string name() const override { return "wrk"; }
  Result<std::string> Version() override { return std::string("wrk 4.1.0 (stand-in)"); }
  Result<void> Warmup(const LoadSpec& spec, const std::string&) override {
    ++warmups;
    // Its command: the launch, then wrk's whole seconds.
    std::this_thread::sleep_for(std::chrono::duration<double>(launch_us_(0) / 1e6 + std::ceil(spec.duration_s)));
    return Ok();
  }
  Result<LoadResult> Run(const LoadSpec& s, const std::string&, const std::string& controller_dir) override {
    const int attempt = ++runs;
    specs.push_back(s);
    const double ready = kNow + launch_us_(attempt) + offset_us_;  // its host's clock
    const double slot0 = s.start_epoch_us + s.offset_us;
    const double late = std::max(0.0, ready - s.start_epoch_us);
    const auto n = static_cast<uint64_t>(s.rate_rps * s.duration_s);
    LatencyHistogram h;
    h.RecordUs(1000, n);
    nlohmann::json doc = nlohmann::json::parse(Slurp(std::string(FVBENCH_SOURCE_DIR) +
                                                     "/fixtures/wrk/paced_get_2000rps.json"));
    doc["target_rate"] = s.rate_rps;
    doc["requests"] = n;
    doc["sent"] = n;
    doc["scheduled"] = n;
    doc["window"] = {{"synchronised", true},
                     {"wrk_start_epoch_us", ready},
                     {"start_epoch_us", slot0},
                     {"end_epoch_us", slot0 + s.duration_s * 1e6},
                     {"first_send_lag_us", late + 300},
                     {"missed_slots", static_cast<uint64_t>(late / 1e6 * s.rate_rps)}};
    doc["histogram"] = HistogramToJson(h);
    fs::create_directories(controller_dir);
    const std::string path = controller_dir + "/" + s.phase + ".json";
    if (auto w = detail::WriteTextFile(path, doc.dump()); !w) return w.error();
    auto r = ParseWrkOutput(doc.dump(), path, s.rate_rps, kDefaultMaxLateShare);
    if (!r) return r.error();
    r->raw_path = path;
    r->wall_s = s.start_wait_s + s.duration_s;
    return r;
  }
  static std::string Slurp(const std::string& p) {
    std::ifstream f(p);
    std::stringstream b;
    b << f.rdbuf();
    return b.str();
  }
  std::atomic<int> runs{0};
  std::atomic<int> warmups{0};
  std::vector<LoadSpec> specs;

 private:
  double offset_us_;
  std::function<double(int)> launch_us_;
};

class MultiLoadgenClocks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fvbench-multi-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    a_.clock_offset_us = 0;
    a_.clock_delay_us = 200;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Processes a#1 on host a (clock as the controller's) and b#1 on host b
  // (b_.clock_offset_us, as b's stand-in's); their launches as given.
  std::unique_ptr<LoadEngine> Engine(double b_offset_us, std::function<double(int)> a_launch,
                                     std::function<double(int)> b_launch, FakeWrk** fa = nullptr,
                                     FakeWrk** fb = nullptr, double lead_s = kLoadgenStartLeadS) {
    b_.clock_offset_us = b_offset_us;
    b_.clock_delay_us = 300;
    auto ea = std::make_unique<FakeWrk>(0, std::move(a_launch));
    auto eb = std::make_unique<FakeWrk>(b_offset_us, std::move(b_launch));
    if (fa) *fa = ea.get();
    if (fb) *fb = eb.get();
    std::vector<LoadgenProcess> p;
    p.push_back({"a#1", std::move(ea), "", 0});
    p.push_back({"b#1", std::move(eb), "", 1});
    MultiLoadgenOptions o;
    o.lead_s = lead_s;
    o.now_epoch_us = [] { return kNow; };
    o.clock_hosts = {&a_, &b_};
    o.lead_file = (dir_ / "loadgen_lead.json").string();
    return MakeMultiLoadgenEngine(std::move(p), std::move(o));
  }
  static std::function<double(int)> Launch(double us) {
    return [us](int) { return us; };
  }
  LoadSpec Spec(double rate = 300, double dur = 3) const {
    LoadSpec s;
    s.phase = "latency_raw_nginx";
    s.url = "http://10.0.0.1:8082/";
    s.rate_rps = rate;
    s.duration_s = dur;
    return s;
  }
  std::string Ctl() const { return (dir_ / "ctl").string(); }
  nlohmann::json Summary() const {
    return nlohmann::json::parse(FakeWrk::Slurp(Ctl() + "/latency_raw_nginx.json"));
  }
  const ValidityCheck* Check(const LoadResult& r, const std::string& name) const {
    for (const auto& c : r.loadgen_checks) {
      if (c.name == name) return &c;
    }
    return nullptr;
  }

  fs::path dir_;
  FakeHost a_{"root@a"}, b_{"root@b"};
};

// Seen: host b's clock 1.5 s ahead, each host timed itself, the shards
// overlapped for half the window and the start skew read 279 µs. Now b is
// given the start in its own clock (start + its offset), and its measured
// start, mapped back, is the common start: the skew is what remains.
TEST_F(MultiLoadgenClocks, EachHostGetsTheStartInItsOwnClock) {
  FakeWrk *fa, *fb;
  auto e = Engine(0.9e6, Launch(0.1e6), Launch(0.2e6), &fa, &fb);
  auto r = e->Run(Spec(), "/r", Ctl());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(fa->specs.size(), 1u);
  const double start = fa->specs[0].start_epoch_us;
  EXPECT_EQ(fb->specs[0].start_epoch_us, start + 0.9e6);  // b's clock: 0.9 s ahead
  EXPECT_EQ(start, kNow + kLoadgenStartLeadS * 1e6);       // no launch measured yet
  EXPECT_LT(r->loadgen_start_skew_us, 10);  // both sent their first slot 300 µs after it, on one clock
  ASSERT_EQ(r->loadgens.size(), 2u);
  EXPECT_EQ(r->loadgens[1].clock_offset_us, 0.9e6);
  EXPECT_NEAR(r->loadgens[1].launch_s, 0.2, 1e-9);
  EXPECT_NEAR(r->loadgens[1].start_epoch_us, start + 300, 1);  // its first send, on the controller's clock
  const nlohmann::json doc = Summary();
  ASSERT_EQ(doc.at("clock_offsets").size(), 2u);
  EXPECT_EQ(doc.at("clock_offsets")[1].at("host"), "root@b");
  EXPECT_EQ(doc.at("clock_offsets")[1].at("offset_us"), 0.9e6);
  EXPECT_EQ(doc.at("clock_offsets")[1].at("uncertainty_us"), 150);
  EXPECT_EQ(doc.at("instances")[1].at("host"), "root@b");
  EXPECT_EQ(doc.at("instances")[1].at("launch_ms"), 200);
  const ValidityCheck* note = Check(*r, "loadgen_start");
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(note->informational);
  EXPECT_THAT(note->detail, HasSubstr("root@b +900.0 ms (+- 150 µs)"));
  EXPECT_THAT(note->detail, HasSubstr("launches a#1 100 ms, b#1 200 ms; next lead 0.55 s"));
  // Read once per host (8 exchanges), again only when a minute old.
  ASSERT_TRUE(e->Run(Spec(), "/r", Ctl()).ok());
  size_t readings = 0;
  for (const auto& ev : b_.Events()) readings += ev == "clock 8";
  EXPECT_EQ(readings, 1u);
}

// Beyond the bound: refused before any load, naming the host and its offset.
TEST_F(MultiLoadgenClocks, ClockTooFarOffIsRefusedBeforeLoad) {
  FakeWrk *fa, *fb;
  auto e = Engine(1.5e6, Launch(0.1e6), Launch(0.1e6), &fa, &fb);
  auto r = e->Run(Spec(), "/r", Ctl());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("phase latency_raw_nginx with 2 load generators: refused before load: "
                                           "loadgen host root@b: its clock is 1.500 s ahead of the controller's"));
  EXPECT_EQ(fa->runs + fb->runs, 0);
  b_.fail_clock = true;
  auto unread = Engine(0, Launch(0.1e6), Launch(0.1e6))->Run(Spec(), "/r", Ctl());
  ASSERT_FALSE(unread.ok());
  EXPECT_THAT(unread.error().message, HasSubstr("measuring the clock offset of loadgen host root@b"));
}

// Seen: processes ready 5.3 s after their launch, a common start 2 s after
// it, and the phase failed as "engine_kept_up ... worst lag 4000 ms". Now
// the late process is a harness fault, named, and the phase runs again at
// once with the lead its launch calls for; the result says so and is whole.
TEST_F(MultiLoadgenClocks, NotReadyAtTheStartIsAHarnessFaultRunAgain) {
  FakeWrk *fa, *fb;
  auto e = Engine(0, Launch(0.3e6), Launch(5.3e6), &fa, &fb);
  auto r = e->Run(Spec(), "/r", Ctl());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(fb->runs, 2);
  EXPECT_EQ(fa->specs[0].start_wait_s, 2);
  EXPECT_NEAR(fa->specs[1].start_wait_s, 8.2, 1e-9);  // 1.5 x 5.3 s + 0.25 s
  EXPECT_TRUE(r->kept_up);
  const ValidityCheck* note = Check(*r, "loadgen_start");
  ASSERT_NE(note, nullptr);
  EXPECT_THAT(note->detail, HasSubstr("harness fault: attempt 1 (lead 2 s): loadgen b#1 (host root@b) was not ready "
                                      "at the common start: ready 3.3 s after it (lead 2 s; its launch took 5.3 s; "
                                      "495 slots due before it was up skipped, none sent late); retried with lead "
                                      "8.2 s, all ready"));
  // The first attempt's summary is kept beside the phase's.
  const auto first = nlohmann::json::parse(FakeWrk::Slurp(Ctl() + "/latency_raw_nginx.attempt1.json"));
  EXPECT_THAT(first.at("late").get<std::string>(), HasSubstr("loadgen b#1 (host root@b) was not ready"));
  EXPECT_EQ(Summary().at("retried").get<std::string>().rfind("attempt 1 (lead 2 s)", 0), 0u);
  // The next phase starts from that launch: no retry.
  ASSERT_TRUE(e->Run(Spec(), "/r", Ctl()).ok());
  EXPECT_EQ(fb->runs, 3);
}

// Late again with the longer lead: an Error that names the harness fault,
// never a result judged as an engine that fell behind.
TEST_F(MultiLoadgenClocks, LateInBothAttemptsIsAnErrorNamingTheHarness) {
  // b is ready 1 s after the start in both attempts (leads 2 s and 4.75 s).
  auto e = Engine(0, Launch(0.1e6), [](int attempt) { return attempt == 1 ? 3e6 : 5.75e6; });
  auto r = e->Run(Spec(), "/r", Ctl());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("a harness fault, not the engine: processes were not ready at the common "
                                           "start in both attempts: attempt 1 (lead 2 s): loadgen b#1 (host root@b) "
                                           "was not ready at the common start: ready 1 s after it"));
  EXPECT_THAT(r.error().message, HasSubstr("attempt 2 (lead 4.75 s): loadgen b#1"));
  EXPECT_THAT(r.error().message, Not(HasSubstr("kept_up")));
}

// The warmup measures the launch (its command's wall time less wrk's whole
// seconds: an upper bound), so the first measured phase meets the start; the
// launch is kept for the next scenario process on the same hosts.
TEST_F(MultiLoadgenClocks, WarmupMeasuresTheLeadKeptForTheRun) {
  FakeWrk *fa, *fb;
  auto e = Engine(0, Launch(0.05e6), Launch(0.4e6), &fa, &fb);
  LoadSpec w = Spec(300, 1);
  w.phase = "latency_raw_nginx_warmup";
  ASSERT_TRUE(e->Warmup(w, "/r").ok());
  ASSERT_TRUE(e->Run(Spec(), "/r", Ctl()).ok());
  EXPECT_EQ(fb->runs, 1);  // met the start at once
  const double lead = fa->specs[0].start_wait_s;
  EXPECT_GE(lead, 1.5 * 0.4 + 0.25);
  EXPECT_LT(lead, 1.5 * 0.6 + 0.25);  // the sleep's overshoot on a busy machine
  const auto kept = nlohmann::json::parse(FakeWrk::Slurp((dir_ / "loadgen_lead.json").string()));
  EXPECT_EQ(kept.at("hosts"), nlohmann::json({"root@a", "root@b"}));
  EXPECT_NEAR(kept.at("launch_s").get<double>(), 0.4, 1e-9);  // the phase's exact one replaced the warmup's
  EXPECT_EQ(kept.at("measured_in"), "latency_raw_nginx");
  // A new scenario process on the same hosts starts from it.
  FakeWrk *na, *nb;
  auto next = Engine(0, Launch(0.05e6), Launch(0.4e6), &na, &nb);
  ASSERT_TRUE(next->Run(Spec(), "/r", Ctl()).ok());
  EXPECT_NEAR(na->specs[0].start_wait_s, 0.85, 1e-9);
  EXPECT_EQ(nb->runs, 1);
}

// A split that gives each process too few requests to be judged is refused
// before any load, naming the numbers (seen: 7 processes at 5 RPS, each
// asked for 0.714 RPS, failed every phase on an internal rounding check).
TEST_F(MultiLoadgenClocks, ShareTooSmallIsRefusedBeforeLoad) {
  FakeWrk *fa, *fb;
  auto e = Engine(0, Launch(0.1e6), Launch(0.1e6), &fa, &fb);
  auto r = e->Run(Spec(50, 2), "/r", Ctl());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("phase latency_raw_nginx with 2 load generators: refused before load: 50 "
                                           "RPS for 2 s split over 2 engine processes gives each 50 requests"));
  EXPECT_EQ(fa->runs + fb->runs, 0);
}

}  // namespace
}  // namespace fvbench::multi_loadgen_test
