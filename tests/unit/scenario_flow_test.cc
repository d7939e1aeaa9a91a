// The scenario flows (support/run/scenario_runner.h) and their saving
// (RunAndSaveScenario, support/suite/scenario_flow.h) driven against the
// shared fake Host (fake_host.h), one host in both roles as in local mode so
// that its record is one total order of what the flow did:
//  - the phase order of a latency scenario: start the SUT, warmup, the
//    measured phase, its output fetched, the SUT stopped, the result saved;
//  - a failing phase (k6 exits non-zero, or its summary is not JSON): the
//    result file is still written, naming the failure, and a run measured
//    before the failure (REPEAT=2) is kept in it;
//  - FVBENCH_PROFILE=cpu: the profile phases after the measured one, before
//    the SUT stops, and the measured result left as it was; off, none;
//  - an earlier run's result file is set aside to previous/ before the run,
//    and left where it is by DRY_RUN;
//  - an interrupt (SIGTERM, support/host/interrupts.h) mid-phase, in a forked
//    child: the flow goes no further, the SUT is stopped, the process exits
//    128+15 and the saved result says "interrupted".
// k6 is answered by rules: the measured run's summary is a recorded k6
// summary (fixtures/k6/handle_summary_latency_ok.json, 10000 RPS target).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "support/host/interrupts.h"
#include "support/judge/verdict.h"
#include "support/report/results_io.h"
#include "support/run/scenario_plan.h"
#include "support/run/testbed.h"
#include "support/suite/scenario_flow.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::scenario_flow_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::UnorderedElementsAre;
using testing_fakes::FakeHost;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Fixtures() {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return dir && *dir ? dir : FVBENCH_SOURCE_DIR "/fixtures";
}

// The value of "-e NAME=value" in a k6 command, "" when absent.
std::string K6Env(const Command& c, const std::string& name) {
  for (const std::string& a : c.argv) {
    if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
  }
  return "";
}

constexpr const char* kPhase = "latency_raw_nginx";  // latency.raw_nginx's phase file stem

class ScenarioFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = fs::temp_directory_path() / ("fvbench-flow-" + std::to_string(::getpid()));
    fs::remove_all(bench_);
    summary_ = Slurp(Fixtures() + "/k6/handle_summary_latency_ok.json");
    ASSERT_FALSE(summary_.empty()) << "missing fixture k6/handle_summary_latency_ok.json";
    host_.fetch_to_disk = true;
    host_.On("ulimit -Sn", FakeHost::Exit(0, "65536\n1048576\n32768 60999\n8\n"));  // kLoadgenLimitsProbe
    host_.OnPrefix("curl ", FakeHost::Exit(0, "200"));                               // health checks
    host_.On("/warmup.js", FakeHost::Exit(0));
  }
  void TearDown() override { fs::remove_all(bench_); }

  Config MakeConfig(EnvMap extra = {}) {
    ConfigInputs in;
    in.env = {{"BENCH_DIR", bench_.string()},
              {"FVBENCH_EDGE_OPTIONAL", "1"},
              {"LOADGEN_ENGINE", "k6"},
              {"LATENCY_RPS", "10000"},
              {"LATENCY_DUR", "60"},
              {"WARMUP_DUR", "5"},
              {"HEALTH_TIMEOUT", "2"}};
    for (auto& [k, v] : extra) in.env[k] = v;
    in.source_dir = FVBENCH_SOURCE_DIR;
    in.cores = 2;
    in.file_exists = [](const std::string& p) { return fs::exists(p); };
    auto c = LoadConfig(in);
    EXPECT_TRUE(c.ok()) << c.error().message;
    Config config = c.ok() ? *c : Config{};
    config.validity.quiet_timeout_s = 0;  // no waiting for a quiet SUT
    config.progress.period_s = 0;         // no progress ticks
    return config;
  }

  // The measured k6 run answers `exit` after writing `summary` where it was
  // told to (SUMMARY_OUT); the n-th measured run (1-based) in `n`.
  void AnswerMeasured(std::function<std::pair<int, std::string>(int n)> answer) {
    host_.On("/constant_rate.js", [this, answer](const Command& c) -> Result<ExecResult> {
      auto [code, text] = answer(++measured_runs_);
      saved_during_phase_ = saved_during_phase_ || fs::exists(ResultPath());
      if (!text.empty()) host_.SetFile(K6Env(c, "SUMMARY_OUT"), text);
      return FakeHost::Exit(code, "", code == 0 ? "" : "level=error msg=\"GoError: fake k6 crash\"");
    });
  }

  SavedScenario Run(const Config& config, const std::string& id = "latency.raw_nginx",
                    std::vector<HostEnvironment> environments = {}) {
    ProvisionInfo sut, loadgen;
    sut.nginx_bin = "/usr/sbin/nginx";
    sut.cores = loadgen.cores = 2;
    loadgen.engine = "k6";
    auto tb = Testbed::OnHosts(config, host_, host_, sut, loadgen);
    EXPECT_TRUE(tb.ok()) << tb.error().message;
    if (!tb.ok()) return {};
    (*tb)->set_environments(std::move(environments));
    const ScenarioPlan* plan = FindScenario(id);
    EXPECT_NE(plan, nullptr);
    return RunAndSaveScenario(**tb, *plan, nullptr, nullptr, [](const std::string&) {});
  }

  std::string ResultPath() const { return (bench_ / "controller-results" / "latency.raw_nginx.json").string(); }

  ScenarioResult Saved() {
    auto r = LoadScenarioResult(ResultPath());
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : ScenarioResult{};
  }

  // Index of the first command run containing `needle` (not a write of a
  // shipped script of that name); -1 when none.
  int RunIndex(const std::string& needle) const {
    auto ev = host_.Events();
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev[i].rfind("run ", 0) == 0 && ev[i].find(needle) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }

  // Every event as one text, for failure messages.
  std::string AllEvents() const {
    std::string all;
    for (const std::string& e : host_.Events()) all += "  " + e + "\n";
    return all;
  }

  fs::path bench_;
  std::string summary_;
  FakeHost host_{"local"};
  int measured_runs_ = 0;
  bool saved_during_phase_ = false;
};

TEST_F(ScenarioFlow, LatencyPhasesRunInOrderAndTheResultIsSavedAfterTheSutStops) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  const Config config = MakeConfig();
  SavedScenario s = Run(config);
  ASSERT_TRUE(s.result.error.empty()) << s.result.error << "\nevents:\n" << AllEvents();
  EXPECT_TRUE(s.save_error.empty()) << s.save_error;
  EXPECT_EQ(s.path, ResultPath());

  const int nginx_test = RunIndex("error.log -t");
  const int start = host_.EventIndex("start baseline");
  const int health = RunIndex("curl ");
  const int warmup = RunIndex("/warmup.js");
  const int measured = RunIndex("/constant_rate.js");
  const int fetched = host_.EventIndex(std::string("fetch ") + (bench_ / "results").string() + "/" + kPhase + ".json");
  const int stop = host_.EventIndex("stop baseline");
  const std::string events = AllEvents();
  ASSERT_GE(nginx_test, 0) << events;
  EXPECT_LT(nginx_test, start) << events;
  EXPECT_LT(start, health) << events;
  EXPECT_LT(health, warmup) << events;
  EXPECT_LT(warmup, measured) << events;
  EXPECT_LT(measured, fetched) << events;
  EXPECT_LT(fetched, stop) << events;
  EXPECT_EQ(host_.Count("/warmup.js"), 1u) << events;
  EXPECT_EQ(host_.Count("/constant_rate.js"), 1u) << events;
  EXPECT_EQ(host_.EventIndex("start "), start) << "only the baseline nginx is started:\n" << events;
  // The phases' rates and durations as configured.
  auto w = host_.Find("/warmup.js");
  auto m = host_.Find("/constant_rate.js");
  ASSERT_TRUE(w && m);
  EXPECT_EQ(K6Env(*w, "RATE"), "10000");
  EXPECT_EQ(K6Env(*w, "DURATION"), "5");
  EXPECT_EQ(K6Env(*m, "RATE"), "10000");
  EXPECT_EQ(K6Env(*m, "DURATION"), "60");
  EXPECT_THAT(K6Env(*m, "TARGET_URL"), HasSubstr(":" + std::to_string(config.nginx_port) + "/"));

  // Saved after the flow (not while the phase ran), with what was measured.
  EXPECT_FALSE(saved_during_phase_);
  ScenarioResult saved = Saved();
  EXPECT_EQ(saved.id, "latency.raw_nginx");
  EXPECT_TRUE(saved.measured);
  EXPECT_TRUE(saved.error.empty()) << saved.error;
  EXPECT_EQ(saved.load.target_rps, 10000);
  EXPECT_GT(saved.load.requests, 0u);
  EXPECT_EQ(saved.load.latency_us.p99, s.result.load.latency_us.p99);
  EXPECT_EQ(saved.load.raw_path, (bench_ / "controller-results" / "raw" / kPhase).string() + ".json");
  EXPECT_TRUE(fs::exists(saved.load.raw_path)) << "the raw k6 summary is kept on the controller";
}

// FVBENCH_PROFILE=cpu: after the measured phase (and its result's figures),
// before the SUT stops: a warmup, the phase without the profiler, perf
// recording the baseline's worker from the start of the phase with it,
// perf script, the fetch into controller-results/profile/<id>/, the removal;
// the measured result stays the first phase's, "profile" holds the two.
TEST_F(ScenarioFlow, ProfilePhasesRunAfterTheMeasuredOneAndLeaveItAlone) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  host_.On("perf --version", FakeHost::Exit(0, "perf_rc=0\nuid=0\nparanoid=2\n"));
  host_.OnPrefix("sh -c 'cat /proc/[0-9]*/stat",
                 FakeHost::Exit(0, "1001 (nginx) S 1000 1000 1000 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n"));
  const std::string text = (bench_ / "run" / "baseline" / "baseline.perf.txt").string();
  host_.On("perf script", [this, text](const Command&) -> Result<ExecResult> {
    host_.SetFile(text, "nginx 1001 1.0: 10101010 cpu-clock:\n\tffff ngx_http_handler (/usr/sbin/nginx)\n\n");
    return FakeHost::Exit(0);
  });
  SavedScenario s = Run(MakeConfig({{"FVBENCH_PROFILE", "cpu"}, {"FVBENCH_PROFILE_DUR", "3"}}));
  ASSERT_TRUE(s.result.error.empty()) << s.result.error << "\nevents:\n" << AllEvents();
  const std::string events = AllEvents();
  EXPECT_EQ(measured_runs_, 3) << events;  // measured, without, with
  EXPECT_EQ(host_.Count("/warmup.js"), 2u) << events;
  const int measured = RunIndex("/constant_rate.js");
  const int check = RunIndex("perf --version");
  const int record = RunIndex("perf record");
  const int script = RunIndex("perf script");
  const int fetched = host_.EventIndex("fetch " + text);
  const int removed = RunIndex("rm -f -- " + (bench_ / "run" / "baseline" / "baseline.perf.data").string());
  const int stop = host_.EventIndex("stop baseline");
  ASSERT_GE(record, 0) << events;
  EXPECT_LT(measured, check) << events;
  EXPECT_LT(check, record) << events;
  EXPECT_LT(record, script) << events;
  EXPECT_LT(script, fetched) << events;
  EXPECT_LT(fetched, removed) << events;
  EXPECT_LT(removed, stop) << events;
  EXPECT_THAT(host_.Find("perf record")->argv, ::testing::Contains("1001"));
  EXPECT_THAT(host_.Find("perf record")->argv, ::testing::Contains("3"));  // sleep FVBENCH_PROFILE_DUR
  ScenarioResult saved = Saved();
  EXPECT_EQ(saved.load.raw_path, (bench_ / "controller-results" / "raw" / kPhase).string() + ".json");
  ASSERT_TRUE(saved.profile.has_value());
  EXPECT_TRUE(saved.profile->errors.empty()) << saved.profile->errors.front();
  EXPECT_EQ(saved.profile->rate_rps, 10000);
  EXPECT_EQ(saved.profile->cpu_service, "baseline");
  EXPECT_TRUE(saved.profile->without.measured);
  EXPECT_TRUE(saved.profile->with.measured);
  ASSERT_EQ(saved.profile->files.size(), 1u);
  EXPECT_EQ(saved.profile->files[0].path, "profile/latency.raw_nginx/baseline.perf.txt");
  EXPECT_TRUE(fs::exists(bench_ / "controller-results" / "profile" / "latency.raw_nginx" / "baseline.perf.txt"));
}

// Off (the default), no profile phase, no perf command, no "profile".
TEST_F(ScenarioFlow, ProfilesOffRunNothingMore) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  SavedScenario s = Run(MakeConfig());
  ASSERT_TRUE(s.result.error.empty()) << s.result.error;
  EXPECT_EQ(measured_runs_, 1);
  EXPECT_FALSE(host_.Ran("perf"));
  EXPECT_FALSE(Saved().profile.has_value());
  EXPECT_EQ(Slurp(ResultPath()).find("\"profile\""), std::string::npos);
}

// The preflight lint refuses a port range narrower than the loadgen host's
// connections (LATENCY_RPS 10000 on k6: maxVUs 500) before the SUT starts:
// no service, no warmup, no measured phase; the result is saved with the
// refusal as its error. A range just wide enough runs.
TEST_F(ScenarioFlow, APreflightRefusalStopsTheScenarioBeforeAnyLoad) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  const Config config = MakeConfig();
  HostEnvironment sut{"sut", "local", {}}, lg{"loadgen", "local", {}};
  lg.Set("ip_local_port_range", "60000\t60099");
  SavedScenario s = Run(config, "latency.raw_nginx", {sut, lg});
  const std::string events = AllEvents();
  EXPECT_THAT(s.result.error, HasSubstr("refused before load by the preflight lint"));
  EXPECT_THAT(s.result.error, HasSubstr("ip_local_port_range"));
  EXPECT_THAT(s.result.error, HasSubstr("100 local ports"));
  EXPECT_THAT(s.result.error, HasSubstr("500 connections"));
  EXPECT_FALSE(s.result.measured);
  EXPECT_EQ(host_.EventIndex("start "), -1) << events;
  EXPECT_EQ(host_.Count("/warmup.js"), 0u) << events;
  EXPECT_EQ(host_.Count("/constant_rate.js"), 0u) << events;
  EXPECT_THAT(Saved().error, HasSubstr("ip_local_port_range"));

  lg.Set("ip_local_port_range", "60000\t60499");
  s = Run(config, "latency.raw_nginx", {sut, lg});
  EXPECT_TRUE(s.result.error.empty()) << s.result.error;
  EXPECT_EQ(host_.Count("/constant_rate.js"), 1u) << AllEvents();
}

// What a measured phase costs in commands (each one round trip to its host;
// reads of /proc files and IsAlive start no process): before the load the
// hops' counters (one command for every hop) and the monitor's start-up
// facts; on the loadgen its directory and no stale output (one command) and
// the engine; after the load the hops' counters again and every error log's
// growth (one command). Progress ticks (off here) add one each.
TEST_F(ScenarioFlow, AMeasuredPhaseCostsSixCommands) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  host_.On("getconf CLK_TCK", FakeHost::Exit(0, "100\n4096\n@@fvbench-logs\n120\n@@fvbench-procs\n"));
  SavedScenario s = Run(MakeConfig());
  ASSERT_TRUE(s.result.error.empty()) << s.result.error;
  const std::vector<std::string> ev = host_.Events();
  const int from = RunIndex("/warmup.js");
  const int to = host_.EventIndex("stop baseline");
  ASSERT_GE(from, 0);
  ASSERT_GT(to, from);
  std::vector<std::string> commands;
  for (int i = from + 1; i < to; ++i) {
    if (ev[i].rfind("run ", 0) == 0) commands.push_back(ev[i].substr(4));
  }
  const std::string all = AllEvents();
  ASSERT_EQ(commands.size(), 6u) << all;
  // Before the load (at once): the hops' counters and the monitor's start-up facts.
  EXPECT_THAT(std::vector<std::string>(commands.begin(), commands.begin() + 2),
              UnorderedElementsAre(HasSubstr("fvbench_status"), HasSubstr("getconf CLK_TCK")));
  EXPECT_THAT(commands[2], HasSubstr("mkdir -p"));  // the loadgen's directory, no stale output
  EXPECT_THAT(commands[3], HasSubstr("k6 run"));
  // After it (at once): the hops' counters and every error log's growth.
  EXPECT_THAT(std::vector<std::string>(commands.begin() + 4, commands.end()),
              UnorderedElementsAre(HasSubstr("fvbench_status"), HasSubstr("tail -c")));
}

TEST_F(ScenarioFlow, EngineExitingNonZeroIsSavedAsTheScenarioErrorAndTheSutStops) {
  AnswerMeasured([](int) { return std::make_pair(107, std::string()); });
  SavedScenario s = Run(MakeConfig());
  EXPECT_TRUE(s.save_error.empty()) << s.save_error;
  ASSERT_TRUE(fs::exists(ResultPath())) << "no result file after a failed phase";
  ScenarioResult saved = Saved();
  EXPECT_FALSE(saved.measured);
  EXPECT_THAT(saved.error, HasSubstr(std::string("k6 phase '") + kPhase + "'"));
  EXPECT_THAT(saved.error, HasSubstr("exited with status 107"));
  EXPECT_THAT(saved.error, HasSubstr("fake k6 crash"));  // k6's stderr tail
  EXPECT_FALSE(saved.interrupted);
  EXPECT_GT(host_.EventIndex("stop baseline"), RunIndex("/constant_rate.js")) << AllEvents();
  EXPECT_EQ(host_.EventIndex("fetch "), -1) << "nothing to fetch after k6 failed:\n" << AllEvents();
}

TEST_F(ScenarioFlow, UnparseableEngineOutputIsSavedNamingTheFile) {
  AnswerMeasured([](int) { return std::make_pair(0, std::string("this is not a k6 summary\n")); });
  SavedScenario s = Run(MakeConfig());
  EXPECT_TRUE(s.save_error.empty()) << s.save_error;
  ScenarioResult saved = Saved();
  EXPECT_FALSE(saved.measured);
  const std::string raw = (bench_ / "controller-results" / "raw" / kPhase).string() + ".json";
  EXPECT_THAT(saved.error, HasSubstr(std::string("k6 phase '") + kPhase + "'"));
  EXPECT_THAT(saved.error, HasSubstr(raw));
  EXPECT_EQ(Slurp(raw), "this is not a k6 summary\n") << "the unparseable output is kept for reading";
  EXPECT_GE(host_.EventIndex("stop baseline"), 0) << AllEvents();
}

// REPEAT=2: the second run fails; the first run's numbers stay in the saved
// result beside the error naming the second.
TEST_F(ScenarioFlow, ARunMeasuredBeforeAFailingOneIsKept) {
  AnswerMeasured([this](int n) { return n == 1 ? std::make_pair(0, summary_) : std::make_pair(107, std::string()); });
  SavedScenario s = Run(MakeConfig({{"REPEAT", "2"}}));
  EXPECT_TRUE(s.save_error.empty()) << s.save_error;
  EXPECT_EQ(measured_runs_, 2);
  ScenarioResult saved = Saved();
  EXPECT_TRUE(saved.measured) << "run 1 was measured";
  EXPECT_GT(saved.load.requests, 0u);
  EXPECT_EQ(saved.load.raw_path, (bench_ / "controller-results" / "raw" / kPhase).string() + "_r1.json");
  EXPECT_THAT(saved.error, HasSubstr(std::string("k6 phase '") + kPhase + "_r2'"));
  EXPECT_THAT(saved.error, HasSubstr("exited with status 107"));
  EXPECT_GE(host_.EventIndex("stop baseline"), 0) << AllEvents();
}

// SIGTERM while k6 runs the measured phase, in a child process (the handler
// ends the process): the interrupt thread stops the SUT (SutServices'
// cleanup) and saves an interrupted result; the flow never reaches the
// fetch. The child's fake-host record is written by a cleanup registered
// before the scenario's, so it runs last (newest first).
TEST_F(ScenarioFlow, InterruptMidPhaseStopsTheSutAndSavesAnInterruptedResult) {
  const Config config = MakeConfig();
  const std::string events_path = (bench_ / "child-events.txt").string();
  std::fflush(nullptr);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    InstallInterruptCleanup();
    RegisterCleanup([this, events_path] {
      std::ofstream out(events_path);
      for (const std::string& e : host_.Events()) out << e << "\n";
    });
    host_.On("/constant_rate.js", [](const Command&) -> Result<ExecResult> {
      ::kill(::getpid(), SIGTERM);  // as Ctrl-C / ctest cancelling would, mid-phase
      while (InterruptSignal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ParkIfInterrupted();  // as LocalHost::Run does; the interrupt thread ends the process
      return FakeHost::Exit(0);
    });
    (void)Run(config);
    _exit(3);  // not reached when the interrupt ends the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << "3: the flow went on after the interrupt";

  std::vector<std::string> events;
  {
    std::ifstream in(events_path);
    for (std::string l; std::getline(in, l);) events.push_back(l);
  }
  ASSERT_FALSE(events.empty()) << "the child's record was not written";
  // The first event starting with `kind` and containing `needle`.
  auto index = [&](const std::string& kind, const std::string& needle) {
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].rfind(kind, 0) == 0 && events[i].find(needle) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  };
  std::string all;
  for (const std::string& e : events) all += "  " + e + "\n";
  const int warmup = index("run ", "/warmup.js");
  const int measured = index("run ", "/constant_rate.js");
  ASSERT_GE(warmup, 0) << all;
  ASSERT_GT(measured, warmup) << all;
  EXPECT_GT(index("stop ", "baseline"), measured) << "the SUT was not stopped:\n" << all;
  EXPECT_EQ(index("fetch ", ""), -1) << "the flow went on to fetch the output:\n" << all;

  ScenarioResult saved = Saved();
  EXPECT_EQ(saved.id, "latency.raw_nginx");
  EXPECT_TRUE(saved.interrupted) << saved.error;
  EXPECT_THAT(saved.error, HasSubstr("interrupted by signal 15"));
  EXPECT_FALSE(saved.measured);
  EXPECT_GT(saved.started_unix, 0);
}

// An earlier run's result moves to previous/ when the scenario runs again;
// a dry run, which runs nothing, leaves it where it is.
TEST_F(ScenarioFlow, AnEarlierResultIsSetAsideByARunAndLeftByADryRun) {
  AnswerMeasured([this](int) { return std::make_pair(0, summary_); });
  const fs::path previous = fs::path(ResultPath()).parent_path() / "previous" / "latency.raw_nginx.json";
  fs::create_directories(fs::path(ResultPath()).parent_path());
  std::ofstream(ResultPath()) << "{\"id\": \"latency.raw_nginx\", \"earlier\": true}";
  {
    auto dry = Testbed::Open(MakeConfig({{"DRY_RUN", "1"}}));
    ASSERT_TRUE(dry.ok()) << dry.error().message;
    RunAndSaveScenario(**dry, *FindScenario("latency.raw_nginx"), nullptr, nullptr, [](const std::string&) {});
  }
  EXPECT_THAT(Slurp(ResultPath()), HasSubstr("\"earlier\": true")) << "a dry run moved or rewrote the result";
  EXPECT_FALSE(fs::exists(previous));

  SavedScenario s = Run(MakeConfig());
  ASSERT_TRUE(s.result.error.empty()) << s.result.error << "\nevents:\n" << AllEvents();
  EXPECT_THAT(Slurp(previous.string()), HasSubstr("\"earlier\": true"));
  EXPECT_THAT(Slurp(ResultPath()), Not(HasSubstr("\"earlier\"")));
}

}  // namespace
}  // namespace fvbench::scenario_flow_test
