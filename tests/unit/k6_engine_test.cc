// K6Engine end to end on LocalHost, with a fake `k6` first in PATH: a shell
// script that records its argv / environment / CPU affinity and writes a
// recorded summary fixture to the SUMMARY_OUT path it was given.
#include "support/engine/k6_engine.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/local_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::k6_engine_test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string Fixtures() {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return dir && *dir ? dir : FVBENCH_SOURCE_DIR "/fixtures";
}
const std::string kScripts = FVBENCH_SOURCE_DIR "/k6";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

constexpr const char* kFakeK6 = R"SH(#!/bin/sh
# Fake k6 for k6_engine_test: records how it was called, then acts per FAKE_K6_MODE.
rec="$FAKE_K6_RECORD"
: > "$rec/argv"
for a in "$@"; do printf '%s\n' "$a" >> "$rec/argv"; done
printf '%s %s\n' "$K6_NO_USAGE_REPORT" "$K6_NEW_MACHINE_READABLE_SUMMARY" > "$rec/env"
printf '%s' "${JWT-unset}" > "$rec/jwt"
grep Cpus_allowed_list: /proc/self/status > "$rec/cpus"
if [ "$1" = version ]; then
  echo "k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)"
  exit 0
fi
out=""; body=""; script=""
for a in "$@"; do
  case "$a" in
    SUMMARY_OUT=*) out="${a#SUMMARY_OUT=}" ;;
    BODY_FILE=*) body="${a#BODY_FILE=}" ;;
  esac
  script="$a"
done
[ -f "$script" ] || { echo "fake k6: no script $script" >&2; exit 66; }
[ -n "$body" ] && cp "$body" "$rec/body"
case "$FAKE_K6_MODE" in
  ok) cp "$FAKE_K6_FIXTURE" "$out"; echo "fvbench k6: requests=..." ;;
  thresholds)
    cp "$FAKE_K6_FIXTURE" "$out"
    echo "level=error msg=\"thresholds on metrics 'http_req_duration' have been crossed\"" >&2
    exit 99 ;;
  crash)
    echo 'level=error msg="GoError: fvbench k6 script: -e TARGET_URL=... is required"' >&2
    exit 107 ;;
  nosummary) echo "fake k6 wrote nothing" >&2 ;;
  garbage) printf '{"metrics":' > "$out" ;;
  setuid) cp "$FAKE_K6_FIXTURE" "$out"; chmod 4777 "$out" ;;
  nul) cp "$FAKE_K6_FIXTURE" "$out"; head -c 4096 /dev/zero >> "$out" ;;
  huge) cp "$FAKE_K6_FIXTURE" "$out"; truncate -s 1G "$out" ;;
esac
exit 0
)SH";

class K6EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-k6-engine-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ + "/bin");
    fs::create_directories(root_ + "/rec");
    {
      std::ofstream f(root_ + "/bin/k6");
      f << kFakeK6;
    }
    fs::permissions(root_ + "/bin/k6", fs::perms::owner_all);
    const char* path = std::getenv("PATH");
    old_path_ = path ? path : "";
    setenv("PATH", (root_ + "/bin:" + old_path_).c_str(), 1);
    setenv("FAKE_K6_RECORD", (root_ + "/rec").c_str(), 1);
    SetMode("ok", "handle_summary_latency_ok.json");
    remote_ = root_ + "/loadgen/results";
    controller_ = root_ + "/controller/raw";
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    unsetenv("FAKE_K6_MODE");
    unsetenv("FAKE_K6_FIXTURE");
    unsetenv("FAKE_K6_RECORD");
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void SetMode(const std::string& mode, const std::string& fixture) {
    setenv("FAKE_K6_MODE", mode.c_str(), 1);
    setenv("FAKE_K6_FIXTURE", (Fixtures() + "/k6/" + fixture).c_str(), 1);
  }
  std::vector<std::string> Argv() { return Lines(Slurp(root_ + "/rec/argv")); }

  static LoadSpec DecisionSpec() {
    LoadSpec s;
    s.phase = "latency_decision_service";
    s.url = "http://127.0.0.1:8080/v1/decision";
    s.kind = RequestKind::kDecision;
    s.jwt = "eyJhbGciOiJIUzI1NiJ9.e30.sig";
    s.rate_rps = 10000;
    s.duration_s = 60;
    s.count_ratelimit = true;
    return s;
  }

  LocalHost host_;
  std::string root_, old_path_, remote_, controller_;
};

// long-duration.sh: a duration or rate beyond what k6's int64 nanoseconds,
// its int64 rate and the int64 millisecond timeout hold is refused.
TEST_F(K6EngineTest, DurationsAndRatesBeyondTheTypesAreRefused) {
  for (auto edit : {+[](LoadSpec& s) { s.duration_s = 1e16; }, +[](LoadSpec& s) { s.duration_s = 1e300; },
                    +[](LoadSpec& s) { s.rate_rps = 1e300; }}) {
    LoadSpec s = DecisionSpec();
    edit(s);
    auto cmd = PlanK6Command(s, kScripts, "/r/x.json", "");
    ASSERT_FALSE(cmd.ok());
    EXPECT_NE(cmd.error().message.find("above the longest phase (1000000000 s) or the highest rate"),
              std::string::npos)
        << cmd.error().message;
  }
}

TEST_F(K6EngineTest, MeasuredRunPassesParametersAndParsesSummary) {
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_TRUE(r.ok()) << r.error().message;

  const std::string summary = remote_ + "/latency_decision_service.json";
  EXPECT_THAT(Argv(), ElementsAreArray(std::vector<std::string>{
                          "run", "--quiet", "--no-color", "--include-system-env-vars",
                          "-e", "TARGET_URL=http://127.0.0.1:8080/v1/decision",
                          "-e", "RATE=10000",
                          "-e", "DURATION=60",
                          "-e", "KIND=decision",
                          "-e", "PRE_VUS=100",
                          "-e", "MAX_VUS=500",
                          "-e", "KEYS=0",
                          "-e", "SUMMARY_OUT=" + summary,
                          "-e", "COUNT_RATELIMIT=1",
                          kScripts + "/constant_rate.js"}));
  EXPECT_EQ(Slurp(root_ + "/rec/env"), "true false\n");
  // The JWT reaches k6 in its environment only (k6 puts it into __ENV).
  EXPECT_EQ(Slurp(root_ + "/rec/jwt"), "eyJhbGciOiJIUzI1NiJ9.e30.sig");

  EXPECT_EQ(r->engine, "k6");
  EXPECT_EQ(r->requests, 600000u);
  EXPECT_DOUBLE_EQ(r->latency_us.p99, 1523.088);
  EXPECT_EQ(r->target_rps, 10000);
  EXPECT_EQ(r->connections, 500u);  // the pool: MAX_VUS
  ASSERT_TRUE(r->ratelimit_evidence.has_value());
  const std::string local = controller_ + "/latency_decision_service.json";
  EXPECT_EQ(r->raw_path, local);
  EXPECT_EQ(Slurp(local), Slurp(Fixtures() + "/k6/handle_summary_latency_ok.json"));

  const std::string cmdline = Slurp(controller_ + "/latency_decision_service.cmd.txt");
  EXPECT_THAT(cmdline, StartsWith("JWT='<redacted>' K6_NEW_MACHINE_READABLE_SUMMARY=false K6_NO_USAGE_REPORT=true "
                                  "k6 run --quiet --no-color --include-system-env-vars "
                                  "-e TARGET_URL=http://127.0.0.1:8080/v1/decision"));
  EXPECT_THAT(cmdline, Not(HasSubstr("e30.sig")));
  EXPECT_THAT(cmdline, HasSubstr(" " + kScripts + "/constant_rate.js\n"));
  EXPECT_THAT(Slurp(controller_ + "/latency_decision_service.k6.log"), HasSubstr("fvbench k6: requests="));
}

TEST_F(K6EngineTest, TasksetPrefixPinsTheEngine) {
  LoadSpec s = DecisionSpec();
  s.cpuset = "0";
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(s, remote_, controller_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The fake ran under taskset: its affinity is cpu 0 only.
  EXPECT_EQ(Slurp(root_ + "/rec/cpus"), "Cpus_allowed_list:\t0\n");
  EXPECT_EQ(Argv().front(), "run");
  EXPECT_THAT(Slurp(controller_ + "/latency_decision_service.cmd.txt"),
              HasSubstr("K6_NO_USAGE_REPORT=true taskset -c 0 k6 run --quiet"));
}

TEST_F(K6EngineTest, PostBodyIsWrittenAndPassedAsFile) {
  LoadSpec s;
  s.phase = "throughput_llm_s03";
  s.url = "http://127.0.0.1:8080/v1/chat/completions";
  s.kind = RequestKind::kPostJson;
  s.body = R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi 'there'"}]})";
  s.rate_rps = 1234.4;  // k6 takes an integer rate
  s.duration_s = 0.5;
  s.connections = 64;
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(s, remote_, controller_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Slurp(root_ + "/rec/body"), s.body);
  EXPECT_THAT(Argv(), ElementsAreArray(std::vector<std::string>{
                          "run", "--quiet", "--no-color", "--include-system-env-vars",
                          "-e", "TARGET_URL=http://127.0.0.1:8080/v1/chat/completions",
                          "-e", "RATE=1234",
                          "-e", "DURATION=0.5",
                          "-e", "KIND=post",
                          "-e", "BODY_FILE=" + remote_ + "/throughput_llm_s03.body.json",
                          "-e", "PRE_VUS=64",
                          "-e", "MAX_VUS=320",
                          "-e", "KEYS=0",
                          "-e", "SUMMARY_OUT=" + remote_ + "/throughput_llm_s03.json",
                          "-e", "COUNT_RATELIMIT=0",
                          kScripts + "/constant_rate.js"}));
  EXPECT_EQ(r->target_rps, 1234);
}

TEST_F(K6EngineTest, ExitNinetyNineStillParsesTheSummary) {
  SetMode("thresholds", "handle_summary_step_dropped.json");
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->dropped_iterations, 18756u);
  EXPECT_FALSE(r->kept_up);
}

TEST_F(K6EngineTest, OtherExitStatusIsAnErrorWithStderrTail) {
  SetMode("crash", "handle_summary_latency_ok.json");
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("k6 phase 'latency_decision_service' on local"));
  EXPECT_THAT(r.error().message, HasSubstr("exited with status 107"));
  EXPECT_THAT(r.error().message, HasSubstr("-e TARGET_URL=... is required"));
  EXPECT_THAT(r.error().message, Not(HasSubstr("e30.sig")));  // the JWT stays out of messages
  // The command line is kept for a failed run too.
  EXPECT_TRUE(fs::exists(controller_ + "/latency_decision_service.cmd.txt"));
}

TEST_F(K6EngineTest, MissingSummaryIsAnErrorEvenWithAStaleOne) {
  // A previous run's summary on the host must not be mistaken for this one's.
  fs::create_directories(remote_);
  fs::copy_file(Fixtures() + "/k6/handle_summary_latency_ok.json", remote_ + "/latency_decision_service.json");
  SetMode("nosummary", "handle_summary_latency_ok.json");
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("k6 phase 'latency_decision_service'"));
  EXPECT_THAT(r.error().message, HasSubstr(remote_ + "/latency_decision_service.json could not be fetched"));
  EXPECT_THAT(r.error().message, HasSubstr("fake k6 wrote nothing"));
}

TEST_F(K6EngineTest, BrokenSummaryIsAParseErrorNamingTheFile) {
  SetMode("garbage", "handle_summary_latency_ok.json");
  auto engine = MakeK6Engine(host_, kScripts);
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(controller_ + "/latency_decision_service.json (fetched from local:" +
                                           remote_ + "/latency_decision_service.json): not valid JSON"));
}

// What a loadgen does to its summary: left setuid
// and world-writable, it arrives 0644; NUL bytes after the document are
// refused naming the file and the host; 1 GiB is refused from its size.
TEST_F(K6EngineTest, WhatALoadgenDoesToItsSummaryIsRefusedOrMadeSafe) {
  auto engine = MakeK6Engine(host_, kScripts);
  const std::string local = controller_ + "/latency_decision_service.json";
  SetMode("setuid", "handle_summary_latency_ok.json");
  auto setuid = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_TRUE(setuid.ok()) << setuid.error().message;
  EXPECT_EQ(fs::status(local).permissions() & fs::perms::mask,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  SetMode("nul", "handle_summary_latency_ok.json");
  auto nul = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.error().message, HasSubstr("k6 phase 'latency_decision_service' on local: " + local +
                                             " (fetched from local:" + remote_ + "/latency_decision_service.json): a "
                                             "NUL byte at byte "));
  SetMode("huge", "handle_summary_latency_ok.json");
  auto huge = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.error().message, HasSubstr("(k6 summary JSON) is over its cap of 1048576 bytes: it holds "
                                              "1073741824 bytes"));
  EXPECT_FALSE(fs::exists(local));
}

TEST_F(K6EngineTest, VersionIsCachedIntoResults) {
  auto engine = MakeK6Engine(host_, kScripts);
  auto v = engine->Version();
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, "k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)");
  EXPECT_THAT(Argv(), ElementsAreArray(std::vector<std::string>{"version"}));
  auto r = engine->Run(DecisionSpec(), remote_, controller_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->engine_version, *v);
}

TEST_F(K6EngineTest, WarmupRunsWarmupScriptWithoutSummary) {
  LoadSpec s = DecisionSpec();
  s.jwt.clear();
  s.duration_s = 10;
  setenv("JWT", "inherited-token", 1);
  auto engine = MakeK6Engine(host_, kScripts);
  ASSERT_TRUE(engine->Warmup(s, remote_).ok());
  // No JWT: an empty one, so that a JWT in the caller's environment does not
  // reach the script.
  unsetenv("JWT");
  EXPECT_EQ(Slurp(root_ + "/rec/jwt"), "");
  EXPECT_THAT(Argv(), ElementsAreArray(std::vector<std::string>{
                          "run", "--quiet", "--no-color", "--include-system-env-vars",
                          "-e", "TARGET_URL=http://127.0.0.1:8080/v1/decision",
                          "-e", "RATE=10000",
                          "-e", "DURATION=10",
                          "-e", "KIND=decision",
                          "-e", "PRE_VUS=100",
                          "-e", "MAX_VUS=500",
                          "-e", "KEYS=0",
                          kScripts + "/warmup.js"}));

  SetMode("crash", "handle_summary_latency_ok.json");
  auto bad = engine->Warmup(s, remote_);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("warmup: k6 exited with status 107"));
}

TEST_F(K6EngineTest, ZeroWarmupRunsNothing) {
  LoadSpec s = DecisionSpec();
  s.duration_s = 0;
  auto engine = MakeK6Engine(host_, kScripts);
  ASSERT_TRUE(engine->Warmup(s, remote_).ok());
  EXPECT_FALSE(fs::exists(root_ + "/rec/argv"));
}

TEST_F(K6EngineTest, BadSpecIsRejectedBeforeRunning) {
  auto engine = MakeK6Engine(host_, kScripts);
  LoadSpec s = DecisionSpec();
  s.phase = "../escape";
  auto r = engine->Run(s, remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("phase name"));
  s = DecisionSpec();
  s.rate_rps = 0.2;
  r = engine->Run(s, remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("integer rate >= 1"));
  s = DecisionSpec();
  s.kind = RequestKind::kPostJson;
  r = engine->Run(s, remote_, controller_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("post request without a body"));
  EXPECT_FALSE(fs::exists(root_ + "/rec/argv"));
}

// KEYS reaches the script through -e, in the measured run and the warmup
// alike, always (0: none; k6 copies its environment into __ENV, so a KEYS
// there must not reach the script); a number outside [0, kMaxBenchKeys] is
// refused.
TEST(K6Plan, KeysArePassedAlwaysAndBounded) {
  LoadSpec s;
  s.phase = "limits_s00";
  s.url = "http://127.0.0.1:8080/";
  s.rate_rps = 700;
  s.duration_s = 2;
  for (const std::string summary : {"/r/limits_s00.json", ""}) {
    auto plain = PlanK6Command(s, "/opt/s", summary, "");
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_THAT(plain->argv, ::testing::Contains("KEYS=0")) << summary;
    LoadSpec keyed = s;
    keyed.keys = 7;
    auto cmd = PlanK6Command(keyed, "/opt/s", summary, "");
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    const auto& a = cmd->argv;
    auto it = std::find(a.begin(), a.end(), "KEYS=7");
    ASSERT_NE(it, a.end()) << summary;
    EXPECT_EQ(*(it - 1), "-e");
    EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const std::string& x) { return x.rfind("KEYS=", 0) == 0; }), 1);
    EXPECT_EQ(a.back(), summary.empty() ? "/opt/s/warmup.js" : "/opt/s/constant_rate.js");
  }
  for (int bad : {-3, kMaxBenchKeys + 1}) {
    LoadSpec b = s;
    b.keys = bad;
    auto r = PlanK6Command(b, "/opt/s", "/r/limits_s00.json", "");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message,
              fmt::format("k6 phase 'limits_s00': keys {}: the number of X-Bench-Key keys must be between 0 (none) "
                          "and 100000", bad));
  }
}

TEST(K6Vus, DerivedFromRate) {
  EXPECT_EQ(K6VusFor(1000, 0).pre, 50);
  EXPECT_EQ(K6VusFor(1000, 0).max, 250);
  EXPECT_EQ(K6VusFor(10000, 0).pre, 100);
  EXPECT_EQ(K6VusFor(10001, 0).pre, 101);
  EXPECT_EQ(K6VusFor(150000, 0).pre, 1500);
  EXPECT_EQ(K6VusFor(150000, 0).max, 7500);
  EXPECT_EQ(K6VusFor(150000, 64).pre, 64);
  EXPECT_EQ(K6VusFor(150000, 64).max, 320);
}

}  // namespace
}  // namespace fvbench::k6_engine_test
