// profile_phase.h: the order of the profile phases (warmup, without,
// with: each profiler started at the load's start, finished after it), the
// figures of each phase, the rate, and failures recorded, never thrown.
#include "support/run/profile_phase.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

namespace fvbench::profile_phase_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Log {
  std::vector<std::string> events;
};

class FakeProfiler : public Profiler {
 public:
  FakeProfiler(Log& log, std::string name, bool prepare_ok = true) : log_(log), name_(std::move(name)), ok_(prepare_ok) {}
  std::string name() const override { return name_; }
  Result<void> Prepare() override {
    log_.events.push_back("prepare " + name_);
    if (!ok_) return Error{"perf on host h: kernel.perf_event_paranoid is 3; run `sudo sysctl -w ...`"};
    return Ok();
  }
  Result<void> Start(double seconds) override {
    log_.events.push_back(fmt::format("start {} {}", name_, seconds));
    return Ok();
  }
  ProfileFetch Finish(const std::string& local_dir) override {
    log_.events.push_back("finish " + name_);
    ProfileFetch f;
    f.files.push_back({"fv", name_, local_dir + "/fv.perf.txt"});
    return f;
  }

 private:
  Log& log_;
  std::string name_;
  bool ok_;
};

MeasuredPhase Phase(double p99, double fv_cores, double achieved) {
  MeasuredPhase m;
  m.load.latency_us.p99 = p99;
  m.load.achieved_rps = achieved;
  m.load.requests = static_cast<uint64_t>(achieved * 10);
  m.sut_usage = {{"backend", 1, 0.5, 0, 0}, {"fv", 2, fv_cores, 0, 0}};
  return m;
}

ProfileSetup ASetup() {
  ProfileSetup s;
  s.scenario_id = "latency.decision_service";
  s.phase_stem = "latency_decision_service";
  s.rate_rps = 1000;
  s.duration_s = 5;
  s.warmup_s = 2;
  s.hz = 99;
  s.profilers = "cpu";
  s.cpu_service = "fv";
  s.results_dir = "/tmp/fvb-profile-phase-test/controller-results";
  s.local_dir = s.results_dir + "/profile/latency.decision_service";
  return s;
}

ProfileHooks Hooks(Log& log, std::vector<std::string>& lines) {
  ProfileHooks h;
  h.progress = [&](const std::string& l) { lines.push_back(l); };
  h.warmup = [&](const LoadSpec& s) -> Result<void> {
    log.events.push_back(fmt::format("warmup {} {} {}", s.phase, s.rate_rps, s.duration_s));
    return Ok();
  };
  h.measure = [&](const LoadSpec& s, const std::string& label,
                  const std::function<void()>& at_start) -> Result<MeasuredPhase> {
    log.events.push_back(fmt::format("measure {} {} {} ({})", s.phase, s.rate_rps, s.duration_s, label));
    at_start();
    log.events.push_back("load " + s.phase);
    const bool with = s.phase.size() > 5 && s.phase.compare(s.phase.size() - 5, 5, "_with") == 0;
    return Phase(with ? 450 : 400, with ? 0.11 : 0.1, 1000);
  };
  return h;
}

TEST(ProfilePhase, WarmupWithoutThenWithTheProfilerStartedAtTheLoad) {
  Log log;
  std::vector<std::string> lines;
  std::vector<std::unique_ptr<Profiler>> p;
  p.push_back(std::make_unique<FakeProfiler>(log, "cpu"));
  ProfileResult r = RunProfilePhases(ASetup(), std::move(p), Hooks(log, lines));
  EXPECT_THAT(log.events,
              ElementsAre("prepare cpu", "warmup latency_decision_service_profile_warmup 1000 2",
                          "measure latency_decision_service_profile_without 1000 5 (profile: without profiler)",
                          "load latency_decision_service_profile_without",
                          "measure latency_decision_service_profile_with 1000 5 (profile: with cpu)", "start cpu 5",
                          "load latency_decision_service_profile_with", "finish cpu"));
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.rate_rps, 1000);
  EXPECT_EQ(r.hz, 99);
  EXPECT_EQ(r.without.p99_us, 400);
  EXPECT_EQ(r.with.p99_us, 450);
  EXPECT_DOUBLE_EQ(r.without.cpu_us_per_request, 100);  // 0.1 cores / 1000 RPS
  EXPECT_DOUBLE_EQ(r.with.cpu_us_per_request, 110);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, "profile/latency.decision_service/fv.perf.txt");  // relative to the results dir
  EXPECT_THAT(lines.back(), HasSubstr("p99 400 -> 450 µs, fv CPU 100 -> 110 µs per request"));
}

TEST(ProfilePhase, AProfilerThatCannotRunIsNamedAndNoPhaseRuns) {
  Log log;
  std::vector<std::string> lines;
  std::vector<std::unique_ptr<Profiler>> p;
  p.push_back(std::make_unique<FakeProfiler>(log, "cpu", false));
  ProfileResult r = RunProfilePhases(ASetup(), std::move(p), Hooks(log, lines));
  EXPECT_THAT(log.events, ElementsAre("prepare cpu"));
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_THAT(r.errors[0], HasSubstr("cpu profiler: perf on host h: kernel.perf_event_paranoid is 3"));
  EXPECT_THAT(r.errors[1], HasSubstr("no profiler can run"));
  EXPECT_FALSE(r.without.measured);
  EXPECT_FALSE(r.with.measured);
  EXPECT_THAT(lines.front(), HasSubstr("latency.decision_service: profile: cpu profiler: perf on host h"));
}

TEST(ProfilePhase, NoProfilerOrNoRateRunsNothingAndSaysWhy) {
  Log log;
  std::vector<std::string> lines;
  ProfileResult none = RunProfilePhases(ASetup(), {}, Hooks(log, lines));
  ASSERT_EQ(none.errors.size(), 1u);
  EXPECT_THAT(none.errors[0], HasSubstr("no profiler of FVBENCH_PROFILE=cpu is available"));
  ProfileSetup s = ASetup();
  s.rate_rps = 0;
  std::vector<std::unique_ptr<Profiler>> p;
  p.push_back(std::make_unique<FakeProfiler>(log, "cpu"));
  ProfileResult no_rate = RunProfilePhases(s, std::move(p), Hooks(log, lines));
  EXPECT_THAT(no_rate.errors.at(0), HasSubstr("no rate to profile at"));
  EXPECT_TRUE(log.events.empty());
}

TEST(ProfilePhase, AFailedPhaseIsRecordedAndTheOtherStillRuns) {
  Log log;
  std::vector<std::string> lines;
  ProfileHooks h = Hooks(log, lines);
  auto measure = h.measure;
  h.measure = [&, measure](const LoadSpec& s, const std::string& label,
                           const std::function<void()>& at_start) -> Result<MeasuredPhase> {
    if (s.phase.find("_without") != std::string::npos) return Error{"fv (pid 12) died during the load"};
    return measure(s, label, at_start);
  };
  std::vector<std::unique_ptr<Profiler>> p;
  p.push_back(std::make_unique<FakeProfiler>(log, "cpu"));
  ProfileResult r = RunProfilePhases(ASetup(), std::move(p), h);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("phase without profiler: fv (pid 12) died"));
  EXPECT_FALSE(r.without.measured);
  EXPECT_TRUE(r.with.measured);
  EXPECT_EQ(r.files.size(), 1u);
}

TEST(ProfileRate, LatencyAtLatencyRpsThroughputAtTheFractionOfTheConfirmedRate) {
  Config c;
  c.latency_rps = 5000;
  c.profile.fraction = 0.8;
  ScenarioResult r;
  r.load.target_rps = 20000;
  r.throughput_rps = 19800;
  EXPECT_EQ(ProfileRate(c, false, r), 5000);
  EXPECT_EQ(ProfileRate(c, true, r), 16000);
  r.load.target_rps = 0;
  EXPECT_EQ(ProfileRate(c, true, r), 0.8 * 19800);
  r.throughput_rps = 0;
  EXPECT_EQ(ProfileRate(c, true, r), 0);
}

TEST(FiguresOf, CpuPerRequestIsNaNWithoutTheServiceOrARate) {
  ProfilePhaseFigures f = FiguresOf(Phase(400, 0.2, 2000), "fv");
  EXPECT_DOUBLE_EQ(f.cpu_us_per_request, 100);
  EXPECT_TRUE(std::isnan(FiguresOf(Phase(400, 0.2, 2000), "baseline").cpu_us_per_request));
  EXPECT_TRUE(std::isnan(FiguresOf(Phase(400, 0.2, 0), "fv").cpu_us_per_request));
}

}  // namespace
}  // namespace fvbench::profile_phase_test
