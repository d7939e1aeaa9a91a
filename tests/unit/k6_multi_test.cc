// Several k6 instances sharing one phase (engine/k6_engine.h
// "Synchronised start", engine/multi_loadgen.h): the exact command lines of
// two instances (segments of one sequence, paused start, distinct REST API
// addresses, raw samples), then the same two end to end through
// MakeMultiLoadgenEngine on LocalHost with a stand-in `k6` first in PATH.
// k6 cannot be installed here: the stand-in (kStandInK6) refuses, with exit
// 2 and a message on stderr, any `k6 run` whose argv is not exactly the one
// the test expects for its address, stays paused until a `k6 resume` for
// that address, answers `k6 status` only while a run is there, and writes a
// summary (a fixture) and samples in k6's CSV layout (the header of
// fixtures/k6/raw/out_csv.csv). Also: the built fvbench_k6_reduce on k6's
// CSV and JSON shapes.
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/core/interval_latency.h"
#include "support/core/latency_histogram_json.h"
#include "support/engine/k6_engine.h"
#include "support/engine/k6_samples.h"
#include "support/engine/multi_loadgen.h"
#include "support/host/local_host.h"
#include "support/host/shell_quote.h"
#include "support/judge/loadgen_merge.h"
#include "fvbench/source_dir.h"

namespace fvbench::k6_multi_test {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Fixtures() {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return dir && *dir ? dir : FVBENCH_SOURCE_DIR "/fixtures";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

constexpr double kStart = 1733030000000000;  // the common start (µs since the epoch)

LoadSpec PhaseSpec() {
  LoadSpec s;
  s.phase = "latency_raw_nginx";
  s.url = "http://127.0.0.1:8082/";
  s.rate_rps = 1000;
  s.duration_s = 2;
  return s;
}

// The k6 run argv of instance i (0-based) of two; what the stand-in checks.
std::vector<std::string> ExpectedRunArgv(size_t i, const std::string& scripts, const std::string& remote,
                                         const std::string& phase) {
  const std::string p = phase + "_lg" + std::to_string(i + 1);
  return {"run", "--quiet", "--no-color", "--include-system-env-vars",
          "--paused", "--address", i == 0 ? "127.0.0.1:6565" : "127.0.0.1:6566",
          "--execution-segment", i == 0 ? "0:1/2" : "1/2:1",
          "--execution-segment-sequence", "0,1/2,1",
          "--out", "csv=" + remote + "/" + p + ".samples.csv",
          "-e", "TARGET_URL=http://127.0.0.1:8082/",
          "-e", "RATE=1000",  // the whole test's rate: k6 runs the segment's half
          "-e", "DURATION=2",
          "-e", "KIND=get",
          "-e", "PRE_VUS=50",
          "-e", "MAX_VUS=250",
          "-e", "KEYS=0",
          "-e", "SUMMARY_OUT=" + remote + "/" + p + ".json",
          "-e", "COUNT_RATELIMIT=0",
          scripts + "/constant_rate.js"};
}

// Pure: the two instances' commands, as one bash command each on the loadgen host.
TEST(K6Segments, TwoInstancesCommandLines) {
  const std::string remote = "/r";
  std::vector<Command> cmds;
  for (size_t i = 0; i < 2; ++i) {
    const LoadSpec s = ProcessSpec(PhaseSpec(), i, 2, "", kStart, 2.0);
    EXPECT_EQ(s.rate_rps, 500);
    const std::string p = remote + "/" + s.phase;
    auto cmd = PlanK6Command(s, "/opt/s", p + ".json", p + ".body.json", p + ".samples.csv", p + ".histogram.json");
    ASSERT_TRUE(cmd.ok()) << cmd.error().message;
    cmds.push_back(*cmd);
  }
  for (const Command& c : cmds) {
    ASSERT_EQ(c.argv.size(), 3u);
    EXPECT_EQ(c.argv[0], "bash");
    EXPECT_EQ(c.argv[1], "-c");
    EXPECT_EQ(c.env, (std::map<std::string, std::string>{{"JWT", ""},
                                                          {"K6_CSV_TIME_FORMAT", "unix_micro"},
                                                          {"K6_NEW_MACHINE_READABLE_SUMMARY", "false"},
                                                          {"K6_NO_USAGE_REPORT", "true"}}));
    // duration + graceful stop + k6 start-up + the lead
    EXPECT_EQ(c.timeout, std::chrono::milliseconds((2 + 2 + 30 + 2) * 1000));
  }
  // Instance 1 of 2, whole.
  EXPECT_EQ(cmds[0].argv[2],
            "if k6 status --address 127.0.0.1:6565 >/dev/null 2>&1; then echo 'fvbench-k6: a k6 already answers at "
            "127.0.0.1:6565 (a stale run?)' >&2; exit 3; fi\n"
            "k6 run --quiet --no-color --include-system-env-vars --paused --address 127.0.0.1:6565 "
            "--execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1 --out csv=/r/latency_raw_nginx_lg1.samples.csv "
            "-e TARGET_URL=http://127.0.0.1:8082/ -e RATE=1000 -e DURATION=2 -e KIND=get -e PRE_VUS=50 "
            "-e MAX_VUS=250 -e KEYS=0 -e SUMMARY_OUT=/r/latency_raw_nginx_lg1.json -e COUNT_RATELIMIT=0 "
            "/opt/s/constant_rate.js &\n"
            "pid=$!\n"
            "tries=0\n"
            "until k6 status --address 127.0.0.1:6565 >/dev/null 2>&1; do\n"
            "  tries=$((tries + 1))\n"
            "  if ! kill -0 $pid 2>/dev/null; then\n"
            "    wait $pid; rc=$?\n"
            "    echo \"fvbench-k6: k6 exited (status $rc) before its REST API at 127.0.0.1:6565 answered\" >&2\n"
            "    exit $(( rc ? rc : 3 ))\n"
            "  fi\n"
            "  if [ $tries -ge 300 ]; then\n"
            "    echo 'fvbench-k6: the REST API at 127.0.0.1:6565 did not answer in 300 tries' >&2\n"
            "    kill $pid 2>/dev/null; wait $pid; exit 3\n"
            "  fi\n"
            "  sleep 0.1\n"
            "done\n"
            "echo \"fvbench-ready $(( $(date +%s%N) / 1000 ))\" >&2\n"
            "wait_us=$(( 1733030000000000 - $(( $(date +%s%N) / 1000 )) ))\n"
            "if [ $wait_us -gt 0 ]; then sleep $((wait_us / 1000000)).$(printf %06d $((wait_us % 1000000))); fi\n"
            "sent_us=$(( $(date +%s%N) / 1000 ))\n"
            "if ! k6 resume --address 127.0.0.1:6565 >/dev/null; then\n"
            "  echo 'fvbench-k6: k6 resume --address 127.0.0.1:6565 failed' >&2; kill $pid 2>/dev/null; wait $pid; "
            "exit 3\n"
            "fi\n"
            "echo \"fvbench-resumed $sent_us $(( $(date +%s%N) / 1000 ))\" >&2\n"
            "wait $pid\n"
            "rc=$?\n"
            "if [ -x /opt/s/fvbench_k6_reduce ]; then /opt/s/fvbench_k6_reduce --origin-us 1733030000000000 "
            "--width-us 1000000 -o /r/latency_raw_nginx_lg1.histogram.json -- csv "
            "/r/latency_raw_nginx_lg1.samples.csv; fi\n"
            "exit $rc\n");
  // Instance 2 of 2: the other half, its own address and files; the same start.
  const std::vector<std::string> second = Lines(cmds[1].argv[2]);
  ASSERT_GE(second.size(), 2u);
  EXPECT_EQ(second[1],
            "k6 run --quiet --no-color --include-system-env-vars --paused --address 127.0.0.1:6566 "
            "--execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1 --out csv=/r/latency_raw_nginx_lg2.samples.csv "
            "-e TARGET_URL=http://127.0.0.1:8082/ -e RATE=1000 -e DURATION=2 -e KIND=get -e PRE_VUS=50 "
            "-e MAX_VUS=250 -e KEYS=0 -e SUMMARY_OUT=/r/latency_raw_nginx_lg2.json -e COUNT_RATELIMIT=0 "
            "/opt/s/constant_rate.js &");
  EXPECT_THAT(cmds[1].argv[2], HasSubstr("until k6 status --address 127.0.0.1:6566 >/dev/null 2>&1; do\n"));
  EXPECT_THAT(cmds[1].argv[2], HasSubstr("wait_us=$(( 1733030000000000 - "));
  EXPECT_THAT(cmds[1].argv[2], HasSubstr("if ! k6 resume --address 127.0.0.1:6566 >/dev/null; then\n"));
  // What the stand-in below checks is the same argv.
  std::vector<std::string> words{"k6"};
  for (const auto& a : ExpectedRunArgv(1, "/opt/s", "/r", "latency_raw_nginx")) words.push_back(a);
  EXPECT_EQ(second[1], ShellJoin(words) + " &");
}

// Pinned: every k6 call of the wrapper runs on the instance's CPUs; the JWT
// stays out of the wrapper's argv and the recorded command line.
TEST(K6Segments, PinnedAndRedacted) {
  LoadSpec s = ProcessSpec(PhaseSpec(), 1, 2, "2-3", kStart, 2.0);
  s.jwt = "eyJhbGciOiJIUzI1NiJ9.e30.sig";
  auto cmd = PlanK6Command(s, "/opt/s", "/r/x.json", "", "/r/x.samples.csv", "/r/x.histogram.json");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_THAT(cmd->argv[2], HasSubstr("\ntaskset -c 2-3 k6 run --quiet --no-color --include-system-env-vars --paused"));
  EXPECT_THAT(cmd->argv[2], HasSubstr("until taskset -c 2-3 k6 status --address 127.0.0.1:6566"));
  EXPECT_THAT(cmd->argv[2], HasSubstr("if ! taskset -c 2-3 k6 resume --address 127.0.0.1:6566"));
  // The token is in the wrapper's environment (k6 inherits it), not in its script.
  EXPECT_EQ(cmd->env.at("JWT"), s.jwt);
  for (const std::string& a : cmd->argv) EXPECT_EQ(a.find("e30.sig"), std::string::npos) << a;
  const std::string line = K6CommandLine(*cmd);
  EXPECT_THAT(line, HasSubstr("JWT='<redacted>'"));
  EXPECT_EQ(line.find("e30.sig"), std::string::npos) << line;
}

TEST(K6Segments, SegmentsParsedAndRefused) {
  EXPECT_EQ(ParseK6Segment("0:1/2")->index, 0u);
  EXPECT_EQ(ParseK6Segment("1/2:1")->index, 1u);
  EXPECT_EQ(ParseK6Segment("2/3:1")->index, 2u);
  EXPECT_DOUBLE_EQ(ParseK6Segment("1/3:2/3")->to, 2.0 / 3);
  for (const char* bad : {"", "1/2", "1:0", "1/2:1/2", "0:3/2", "a:1", "0:1/0", "0.5:1"}) {
    EXPECT_FALSE(ParseK6Segment(bad).ok()) << bad;
  }
  LoadSpec s = ProcessSpec(PhaseSpec(), 0, 2, "", kStart, 2.0);
  s.k6_sequence.clear();
  auto cmd = PlanK6Command(s, "/opt/s", "/r/x.json", "", "/r/x.csv", "/r/x.h.json");
  ASSERT_FALSE(cmd.ok());
  EXPECT_THAT(cmd.error().message, HasSubstr("an execution segment without its sequence"));
  s = ProcessSpec(PhaseSpec(), 0, 2, "", kStart, 2.0);
  EXPECT_FALSE(PlanK6Command(s, "/opt/s", "/r/x.json", "").ok());  // synchronised, no samples file
}

constexpr const char* kStandInK6 = R"SH(#!/bin/bash
# Stand-in k6 for k6_multi_test. State per REST API address in $FAKE_K6_STATE:
#   <addr>.expect   the exact `k6 run` argv the test expects (one per line)
#   <addr>.paused / <addr>.running   a run is there, paused / resumed
#   <addr>.resumed_ns   when `k6 resume` arrived (date +%s%N)
st="$FAKE_K6_STATE"
fail() { echo "stand-in k6: $*" >&2; exit 2; }
case "$1" in
  version) echo "k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)"; exit 0 ;;
  status|resume)
    [ $# -eq 3 ] && [ "$2" = --address ] || fail "expected '$1 --address <host:port>', got: $*"
    addr="$3"
    if [ ! -e "$st/$addr.paused" ] && [ ! -e "$st/$addr.running" ]; then
      echo "stand-in k6: nothing listens at $addr" >&2; exit 1   # as k6 on a refused connection
    fi
    if [ "$1" = resume ]; then
      [ -e "$st/$addr.paused" ] || fail "resume: the run at $addr is not paused"
      date +%s%N > "$st/$addr.resumed_ns"
      mv "$st/$addr.paused" "$st/$addr.running"
    fi
    exit 0 ;;
  run) ;;
  *) fail "unexpected command: $*" ;;
esac
addr=""; seg=""; csv=""; summary=""; prev=""
for a in "$@"; do
  case "$prev" in
    --address) addr="$a" ;;
    --execution-segment) seg="$a" ;;
    --out) csv="${a#csv=}" ;;
  esac
  case "$a" in SUMMARY_OUT=*) summary="${a#SUMMARY_OUT=}" ;; esac
  prev="$a"
done
[ -n "$addr" ] || fail "run without --address"
printf '%s\n' "$@" > "$st/$addr.argv"
[ -f "$st/$addr.expect" ] || fail "run at $addr: no expected argv"
diff -u "$st/$addr.expect" "$st/$addr.argv" >&2 || fail "run at $addr: argv differs from the expected one (above)"
touch "$st/$addr.paused"
for i in $(seq 1 1000); do [ -e "$st/$addr.running" ] && break; sleep 0.01; done
[ -e "$st/$addr.running" ] || { rm -f "$st/$addr.paused"; fail "run at $addr: never resumed"; }
# Samples in k6's CSV layout: instance 0:1/2 answers every request in 1 ms,
# instance 1/2:1 in 2, 3, ..., 101 ms; other metrics' rows in between.
head -n 1 "$FAKE_K6_CSV_HEADER_FROM" > "$csv"
[ "$K6_CSV_TIME_FORMAT" = unix_micro ] || fail "run at $addr: K6_CSV_TIME_FORMAT is '$K6_CSV_TIME_FORMAT', not unix_micro"
ts=$(( $(date +%s%N) / 1000 ))   # as k6 writes unix_micro
tags=",,,,true,,GET,http://127.0.0.1:8082/,HTTP/1.1,measured,,200,,,http://127.0.0.1:8082/,,"
for i in $(seq 1 100); do
  if [ "$seg" = "0:1/2" ]; then v=1.000000; else v=$((i + 1)).000000; fi
  printf 'http_reqs,%s,1.000000%s\nhttp_req_duration,%s,%s%s\nhttp_req_waiting,%s,0.500000%s\n' \
    "$ts" "$tags" "$ts" "$v" "$tags" "$ts" "$tags" >> "$csv"
done
cp "$FAKE_K6_SUMMARY" "$summary"
rm -f "$st/$addr.running"
exit 0
)SH";

class K6MultiLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-k6-multi-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    for (const char* d : {"bin", "state", "scripts1", "scripts2"}) fs::create_directories(root_ + "/" + d);
    Write(root_ + "/bin/k6", kStandInK6);
    fs::permissions(root_ + "/bin/k6", fs::perms::owner_all);
    // Instance 1's loadgen host has the reduction tool, instance 2's not.
    for (const char* d : {"scripts1", "scripts2"}) {
      for (const char* f : {"common.js", "constant_rate.js", "warmup.js"}) {
        fs::copy_file(FVBENCH_SOURCE_DIR "/k6/" + std::string(f), root_ + "/" + d + "/" + f);
      }
    }
    fs::copy_file(FVBENCH_K6_REDUCE_BIN, root_ + "/scripts1/fvbench_k6_reduce");
    const char* path = std::getenv("PATH");
    old_path_ = path ? path : "";
    setenv("PATH", (root_ + "/bin:" + old_path_).c_str(), 1);
    setenv("FAKE_K6_STATE", (root_ + "/state").c_str(), 1);
    setenv("FAKE_K6_CSV_HEADER_FROM", (Fixtures() + "/k6/raw/out_csv.csv").c_str(), 1);
    setenv("FAKE_K6_SUMMARY", (Fixtures() + "/k6/handle_summary_latency_ok.json").c_str(), 1);
    remote_ = root_ + "/loadgen";
    ctl_ = root_ + "/ctl";
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    for (const char* v : {"FAKE_K6_STATE", "FAKE_K6_CSV_HEADER_FROM", "FAKE_K6_SUMMARY"}) unsetenv(v);
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void Expect(size_t i, std::vector<std::string> argv) {
    std::string text;
    for (const auto& a : argv) text += a + "\n";
    Write(root_ + "/state/127.0.0.1:" + std::to_string(6565 + i) + ".expect", text);
  }
  std::unique_ptr<LoadEngine> TwoInstances() {
    std::vector<LoadgenProcess> processes;
    processes.push_back({"local#1", MakeK6Engine(host1_, root_ + "/scripts1"), ""});
    processes.push_back({"local#2", MakeK6Engine(host2_, root_ + "/scripts2"), ""});
    // A long first lead: the stand-in is bash, and under `ctest -j2` next to
    // other load its REST "API" answered more than 3 s after the launch once.
    MultiLoadgenOptions options;
    options.lead_s = 6;
    return MakeMultiLoadgenEngine(std::move(processes), options);
  }

  LocalHost host1_, host2_;
  std::string root_, old_path_, remote_, ctl_;
};

// Two instances, each half of one sequence, started paused and resumed at
// the common start; the merge takes the union's percentiles.
TEST_F(K6MultiLocal, TwoInstancesShareAPhaseFromOneStart) {
  const std::string phase = "e2e_k6_multi";
  for (size_t i = 0; i < 2; ++i) Expect(i, ExpectedRunArgv(i, root_ + "/scripts" + std::to_string(i + 1), remote_, phase));
  LoadSpec s = PhaseSpec();
  s.phase = phase;
  auto engine = TwoInstances();
  auto r = engine->Run(s, remote_, ctl_);
  ASSERT_TRUE(r.ok()) << r.error().message;

  // Each instance's k6 run was checked by the stand-in (it refuses another argv).
  for (size_t i = 0; i < 2; ++i) {
    const std::string a = root_ + "/state/127.0.0.1:" + std::to_string(6565 + i);
    EXPECT_EQ(Slurp(a + ".argv"), Slurp(a + ".expect"));
  }
  EXPECT_EQ(r->engine, "k6");
  EXPECT_EQ(r->target_rps, 1000);
  ASSERT_EQ(r->loadgens.size(), 2u);
  EXPECT_EQ(r->loadgens[0].name, "local#1");
  EXPECT_EQ(r->loadgens[0].segment, "0:1/2");
  EXPECT_EQ(r->loadgens[1].segment, "1/2:1");
  EXPECT_EQ(r->loadgens[1].target_rps, 500);
  EXPECT_EQ(r->loadgens[1].offset_us, 0);  // k6 interleaves the segments itself

  // The union's percentiles: 100 x 1 ms and 2..101 ms (p50 of the union is
  // 1 ms; the mean of the two instances' p50 would be 26 ms).
  LatencyHistogram both;
  for (int i = 1; i <= 100; ++i) both.RecordUs(1000);
  for (int i = 2; i <= 101; ++i) both.RecordUs(i * 1000.0);
  const LatencyUs want = both.ToLatencyUs();
  EXPECT_EQ(r->latency_us.p50, want.p50);
  EXPECT_EQ(r->latency_us.p90, want.p90);
  EXPECT_EQ(r->latency_us.p99, want.p99);
  EXPECT_EQ(r->latency_us.max, want.max);
  EXPECT_NEAR(r->latency_us.p50, 1000, 1);
  EXPECT_NEAR(r->latency_us.p99, 99000, 99000.0 / 2048);

  // Resumed at the common start, both within the skew limit.
  const auto summary = nlohmann::json::parse(Slurp(ctl_ + "/" + phase + ".json"));
  EXPECT_EQ(summary.at("schema"), "fvbench.loadgens/1");
  const double start = summary.at("start_epoch_us").get<double>();
  for (size_t i = 0; i < 2; ++i) {
    const double resumed_us =
        std::stod(Slurp(root_ + "/state/127.0.0.1:" + std::to_string(6565 + i) + ".resumed_ns")) / 1000;
    // No upper bound here: how late both resume depends on this machine's
    // load (a unit test times nothing); their skew is checked below.
    EXPECT_GE(resumed_us, start) << "instance " << i + 1 << " resumed before the common start";
    EXPECT_EQ(summary.at("instances")[i].at("segment"), i == 0 ? "0:1/2" : "1/2:1");
  }
  // Both resumed at the same deadline; how close depends on this machine's
  // load (bash stand-ins; a unit test times nothing): a loose bound only.
  EXPECT_LT(r->loadgen_start_skew_us, 500000);
  // The window all ran: 2 s each, less how much later the second resumed
  // (bounded like the skew above).
  EXPECT_GT(r->duration_s, 2.0 - 0.5);
  ASSERT_GE(r->loadgen_checks.size(), 2u);
  const ValidityCheck& skew = r->loadgen_checks[r->loadgen_checks.size() - 2];
  EXPECT_EQ(skew.name, "start_skew");
  EXPECT_EQ(skew.limit, kMaxLoadgenStartSkewUs);
  EXPECT_EQ(r->loadgen_checks.back().name, "loadgen_start");  // informational: lead, launches
  EXPECT_TRUE(r->loadgen_checks.back().informational);

  // Reduced where the tool was: on instance 1's loadgen host, else here.
  const auto one = nlohmann::json::parse(Slurp(ctl_ + "/" + phase + "_lg1.instance.json"));
  const auto two = nlohmann::json::parse(Slurp(ctl_ + "/" + phase + "_lg2.instance.json"));
  EXPECT_EQ(one.at("reduced_on"), "loadgen host");
  EXPECT_EQ(two.at("reduced_on"), "controller");
  EXPECT_TRUE(fs::exists(ctl_ + "/" + phase + "_lg1.histogram.json"));
  EXPECT_TRUE(fs::exists(ctl_ + "/" + phase + "_lg2.samples.csv"));
  EXPECT_THAT(Slurp(ctl_ + "/" + phase + "_lg2.cmd.txt"), HasSubstr("--execution-segment 1/2:1"));

  // Per interval (1 s from the common start), reduced on the loadgen host for
  // one instance and here for the other, merged on the controller's clock:
  // all 200 samples, and the intervals' histograms sum to the phase's.
  const IntervalSeries& iv = r->intervals;
  ASSERT_TRUE(iv.has_latency()) << one.at("histogram").value("intervals_absent", "") << " / "
                                << two.at("histogram").value("intervals_absent", "");
  EXPECT_FALSE(iv.sends_counted);
  EXPECT_EQ(iv.width_us, 1e6);
  EXPECT_NEAR(iv.start_epoch_us, start, 1);
  EXPECT_EQ(SeriesTotal(iv.completed), 200u);
  LatencyHistogram sum;
  for (const IntervalLatency& l : iv.latency) ASSERT_TRUE(sum.Merge(IntervalHistogram(l)).ok());
  EXPECT_EQ(HistogramToJson(sum).dump(), HistogramToJson(both).dump());
  for (int i : {1, 2}) {
    const std::string path = ctl_ + "/" + phase + "_lg" + std::to_string(i) + ".instance.json";
    auto kept = ParseK6InstanceJson(Slurp(path), path);
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    EXPECT_TRUE(kept->intervals.has_latency()) << path;
    EXPECT_EQ(SeriesTotal(kept->intervals.completed), 100u) << path;
    EXPECT_EQ(kept->intervals_absent, "") << path;
  }
}

// The stand-in does check: one argument off (the other half's segment) and
// the run fails with its message, naming the instance.
TEST_F(K6MultiLocal, StandInRefusesAnUnexpectedArgument) {
  const std::string phase = "e2e_k6_wrong";
  Expect(0, ExpectedRunArgv(0, root_ + "/scripts1", remote_, phase));
  auto wrong = ExpectedRunArgv(1, root_ + "/scripts2", remote_, phase);
  wrong[7] = "0:1/2";  // --execution-segment's value
  Expect(1, wrong);
  LoadSpec s = PhaseSpec();
  s.phase = phase;
  auto r = TwoInstances()->Run(s, remote_, ctl_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("loadgen local#2"));
  EXPECT_THAT(r.error().message, HasSubstr("exited with status 2"));
  EXPECT_THAT(r.error().message, HasSubstr("stand-in k6: run at 127.0.0.1:6566: argv differs"));
  EXPECT_THAT(r.error().message, HasSubstr("k6 exited (status 2) before its REST API at 127.0.0.1:6566 answered"));
  EXPECT_THAT(r.error().message, Not(HasSubstr("loadgen local#1")));
}

// fvbench_k6_reduce, the binary a loadgen host runs, on the files of k6's
// shapes (fixtures/k6/raw): the same histogram as the reducer in-process,
// and a bad file is exit 2 naming the file and line.
TEST(K6ReduceTool, CsvAndJsonOfK6sShape) {
  LocalHost host;
  for (const auto& [format, file, form] : {std::tuple{"csv", "out_csv.csv", K6SampleReducer::Format::kCsv},
                                          std::tuple{"json", "out_json.json", K6SampleReducer::Format::kJson}}) {
    const std::string path = Fixtures() + "/k6/raw/" + file;
    Command c;
    c.argv = {FVBENCH_K6_REDUCE_BIN, format, path};
    auto r = host.Run(c);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->exit_code, 0) << r->err;
    auto tool = ParseHistogramJson(r->out, file);
    ASSERT_TRUE(tool.ok()) << tool.error().message;
    auto here = ReduceK6Samples(Slurp(path), form, file);
    ASSERT_TRUE(here.ok()) << here.error().message;
    EXPECT_EQ(HistogramToJson(*tool).dump(), HistogramToJson(*here).dump()) << file;
    EXPECT_EQ(tool->recorded(), 3u) << file;
    EXPECT_EQ(tool->timeouts(), 1u) << file;  // error_code 1050
  }
  // With a grid: the same intervals as in-process (the fixtures' whole-second
  // timestamps on a whole-second origin); a grid not in whole µs is a usage error.
  for (const auto& [format, file, form] : {std::tuple{"csv", "out_csv.csv", K6SampleReducer::Format::kCsv},
                                          std::tuple{"json", "out_json.json", K6SampleReducer::Format::kJson}}) {
    const std::string path = Fixtures() + "/k6/raw/" + file;
    Command c;
    c.argv = {FVBENCH_K6_REDUCE_BIN, "--origin-us", "1733030000000000", "--width-us", "1000000", "--", format, path};
    auto r = host.Run(c);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->exit_code, 0) << r->err;
    auto tool = ParseK6ReductionJson(r->out, file);
    ASSERT_TRUE(tool.ok()) << tool.error().message;
    auto here = ReduceK6SamplesPerInterval(Slurp(path), form, file, {1733030000000000, 1000000});
    ASSERT_TRUE(here.ok()) << here.error().message;
    EXPECT_EQ(K6ReductionToJson(*tool).dump(), K6ReductionToJson(*here).dump()) << file;
  }
  {
    Command c;
    c.argv = {FVBENCH_K6_REDUCE_BIN, "--origin-us", "17e14", "--width-us", "1000000", "csv", "-"};
    auto r = host.Run(c);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 2);
    EXPECT_THAT(r->err, HasSubstr("expected whole numbers of microseconds"));
    c.argv = {FVBENCH_K6_REDUCE_BIN, "--origin-us", "1733030000000000", "csv", "-"};
    r = host.Run(c);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 2);
    EXPECT_THAT(r->err, HasSubstr("go together"));
  }
  char tmpl[] = "/tmp/fvbench-k6-reduce-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string bad = std::string(tmpl) + "/bad.csv";
  Write(bad, Slurp(Fixtures() + "/k6/raw/out_csv.csv") + "http_req_duration,1733030000,not-a-number,,,,true\n");
  Command c;
  c.argv = {FVBENCH_K6_REDUCE_BIN, "csv", bad};
  auto r = host.Run(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_THAT(r->err, HasSubstr(bad));

  // -o OUT: a new file renamed over OUT; a link someone put at OUT is
  // replaced, its target untouched; a failed reduction leaves no OUT.
  const std::string victim = std::string(tmpl) + "/victim", out = std::string(tmpl) + "/h.json";
  Write(victim, "precious\n");
  ASSERT_EQ(::symlink(victim.c_str(), out.c_str()), 0);
  c.argv = {FVBENCH_K6_REDUCE_BIN, "csv", Fixtures() + "/k6/raw/out_csv.csv", "-o", out};
  auto o = host.Run(c);
  ASSERT_TRUE(o.ok());
  ASSERT_EQ(o->exit_code, 0) << o->err;
  EXPECT_EQ(o->out, "");
  EXPECT_EQ(Slurp(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(out)));
  ASSERT_TRUE(ParseHistogramJson(Slurp(out), out).ok());
  const std::string none = std::string(tmpl) + "/none.json";
  c.argv = {FVBENCH_K6_REDUCE_BIN, "csv", bad, "-o", none};
  auto failed = host.Run(c);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->exit_code, 2);
  EXPECT_FALSE(fs::exists(none));
  fs::remove_all(tmpl);
}

}  // namespace
}  // namespace fvbench::k6_multi_test
