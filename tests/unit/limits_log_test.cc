// limits_log: the reduction of edge's limits log run by the real LocalHost on
// fixture logs written here, under every awk installed of awk, mawk and gawk;
// the reset against a writer holding the log open with O_APPEND, as nginx
// does. Then end to end (LimitsLogE2E, ports 18550-18551): edge in
// reverse_proxy mode with fixtures/policies/limits.json and the limits log
// when FAIRVISOR_EDGE_SRC names an edge checkout (skipped otherwise). Also
// ReadTokenBucket (limits_phase.h) on the limits scenarios' policy files.
#include "support/run/limits_log.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/host/local_host.h"
#include "support/run/limits_phase.h"
#include "support/run/scenario_plan.h"
#include "support/sut/provision.h"
#include "support/sut/sut_services.h"
#include "fvbench/source_dir.h"

namespace fvbench::limits_log_test {
namespace {

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The output's first two lines as they are, then the others sorted (their order is free).
std::vector<std::string> Canonical(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (lines.size() > 2) std::sort(lines.begin() + 2, lines.end());
  return lines;
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-limits-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (dir_.empty()) return;
    if (HasFailure()) {
      std::cerr << "kept " << dir_ << " for inspection\n";
      return;
    }
    Command rm;
    rm.argv = {"rm", "-rf", "--", dir_};
    (void)host_.Run(rm);
  }
  LocalHost host_;
  std::string dir_;
};

// One awk per parameter; skipped when that awk is not installed.
class LimitsReduce : public TempDir, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    TempDir::SetUp();
    Command probe;
    probe.argv = {GetParam(), "BEGIN { exit 0 }"};
    auto r = host_.Run(probe);
    if (!r || !r->success()) GTEST_SKIP() << GetParam() << " is not installed";
  }
  Result<std::string> Reduce(const std::string& path, int bin_ms) {
    return detail::ReduceLimitsLogWith(host_, path, bin_ms, GetParam());
  }
};

// Well-formed lines of two keys and an escaped one, one without a key, every
// kind of malformed line, 2xx / 429 / 503, bins across seconds, two lines in
// one millisecond, a fourth decimal, no final newline. msec values of today's
// size (13 digits in milliseconds): a reduction through %.6g would lose them.
constexpr char kLog[] =
    "1764790000.100 200 k1\n"
    "1764790000.350 200 k1\n"
    "1764790000.350 200 k1\n"
    "1764790000.360 200 k1\n"
    "1764790000.400 429 k1\n"
    "1764790000.450 503 k2\n"
    "1764790000.600 204 k2\n"
    "1764790001.100 200 k1\n"
    "1764790001.1 200 k2\n"
    "1764790001.0999 429 k2\n"
    "1764790000.050 200 -\n"
    "not a line\n"
    "1764790001.000 200 k1 extra\n"
    "\n"
    "1764790001 200 k1\n"
    "1764790001.000 2000 k1\n"
    "1764790001.000 20x k1\n"
    ".5 200 k1\n"
    "1764790002.049 200 k\\x22q";

// first = .050; bins of 250 ms: .100 -> 0, .350 .350 .360 -> 1, .600 -> 2,
// 1.100 -> 4, 2.049 -> 7 (1999 ms).
const std::vector<std::string> kExpected = {
    "fvbench-limits 1 250",
    "lines 19 first 1764790000.050 last 1764790002.049 nokey 1 malformed 7",
    "b k1 0 1",
    "b k1 1 3",
    "b k1 4 1",
    "b k2 2 1",
    "b k2 4 1",
    "b k\\x22q 7 1",
    "k k1 5 1 0",
    "k k2 2 1 1",
    "k k\\x22q 1 0 0",
};

TEST_P(LimitsReduce, CountsPerKeyAndBinsAdmittedFromTheFirstLine) {
  WriteAll(dir_ + "/limits.log", kLog);
  auto r = Reduce(dir_ + "/limits.log", 250);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Canonical(*r), kExpected) << *r;
}

// A window of 1 s before the newest line (2.049): the lines older than
// 1.049 are left out of every count and counted in the 's' line; malformed
// lines, which have no time, stay counted.
TEST_P(LimitsReduce, WindowLeavesOutOlderLinesAndCountsThem) {
  WriteAll(dir_ + "/limits.log", kLog);
  auto r = detail::ReduceLimitsLogWith(host_, dir_ + "/limits.log", 250, GetParam(), 1000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<std::string> expected = {
      "fvbench-limits 1 250",
      "lines 11 first 1764790001.099 last 1764790002.049 nokey 0 malformed 7",
      "b k1 0 1",
      "b k2 0 1",
      "b k\\x22q 3 1",
      "k k1 1 0 0",
      "k k2 1 1 0",
      "k k\\x22q 1 0 0",
      "s 8",
  };
  EXPECT_EQ(Canonical(*r), expected) << *r;
  auto bad = detail::ReduceLimitsLogWith(host_, dir_ + "/limits.log", 250, GetParam(), -1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("window -1 ms is below 0"), std::string::npos) << bad.error().message;
}

TEST_P(LimitsReduce, BinOfOneMillisecondAndOfAnHour) {
  WriteAll(dir_ + "/limits.log", "1764790000.001 200 a\n1764790000.002 200 a\n1764793600.001 200 a\n");
  auto ms = Reduce(dir_ + "/limits.log", 1);
  ASSERT_TRUE(ms.ok()) << ms.error().message;
  EXPECT_EQ(Canonical(*ms), (std::vector<std::string>{"fvbench-limits 1 1",
                                                     "lines 3 first 1764790000.001 last 1764793600.001 nokey 0 malformed 0",
                                                     "b a 0 1", "b a 1 1", "b a 3600000 1", "k a 3 0 0"}))
      << *ms;
  auto hour = Reduce(dir_ + "/limits.log", kMaxLimitsBinMs);
  ASSERT_TRUE(hour.ok()) << hour.error().message;
  EXPECT_EQ(Canonical(*hour), (std::vector<std::string>{"fvbench-limits 1 3600000",
                                                       "lines 3 first 1764790000.001 last 1764793600.001 nokey 0 malformed 0",
                                                       "b a 0 2", "b a 1 1", "k a 3 0 0"}))
      << *hour;
}

// A path awk would read as an option, an assignment or standard input, were it on its command line.
TEST_P(LimitsReduce, PathWithEqualsBlankAndLeadingDashIsReadAsAFile) {
  const std::string line = "1764790000.100 429 k1\n";
  WriteAll(dir_ + "/-v x=1 .log", line);
  auto abs = Reduce(dir_ + "/-v x=1 .log", 100);
  ASSERT_TRUE(abs.ok()) << abs.error().message;
  EXPECT_TRUE(Has(*abs, "\nk k1 0 1 0\n")) << *abs;

  // Relative to the command's working directory (this process's): "-" is a file, not stdin.
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir(dir_.c_str()), 0);
  WriteAll("-", line);
  WriteAll("-f=x", line);
  auto dash = Reduce("-", 100);
  auto assign = Reduce("-f=x", 100);
  ASSERT_EQ(chdir(cwd), 0);
  ASSERT_TRUE(dash.ok()) << dash.error().message;
  EXPECT_TRUE(Has(*dash, "\nk k1 0 1 0\n")) << *dash;
  ASSERT_TRUE(assign.ok()) << assign.error().message;
  EXPECT_TRUE(Has(*assign, "\nk k1 0 1 0\n")) << *assign;
}

TEST_P(LimitsReduce, EmptyLogIsZeroLines) {
  WriteAll(dir_ + "/limits.log", "");
  auto r = Reduce(dir_ + "/limits.log", 100);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, "fvbench-limits 1 100\nlines 0 first 0.000 last 0.000 nokey 0 malformed 0\n");
}

TEST_P(LimitsReduce, MissingLogNamesHostPathAndAwksMessage) {
  const std::string path = dir_ + "/no-such.log";
  auto r = Reduce(path, 100);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "host local")) << r.error().message;
  EXPECT_TRUE(Has(r.error().message, path)) << r.error().message;
  EXPECT_TRUE(Has(r.error().message, "exited 2: cannot open the log (missing or unreadable)")) << r.error().message;
}

TEST_P(LimitsReduce, BinOutsideOneMillisecondToAnHourIsRefused) {
  WriteAll(dir_ + "/limits.log", "");
  for (int bin : {0, -5, kMaxLimitsBinMs + 1}) {
    auto r = Reduce(dir_ + "/limits.log", bin);
    ASSERT_FALSE(r.ok()) << bin;
    EXPECT_TRUE(Has(r.error().message, "bin " + std::to_string(bin) + " ms is outside 1..3600000"))
        << r.error().message;
    EXPECT_TRUE(Has(r.error().message, dir_ + "/limits.log")) << r.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(Awks, LimitsReduce, ::testing::Values("awk", "mawk", "gawk"),
                         [](const ::testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

using LimitsReset = TempDir;

// nginx's way: the log open with O_APPEND; after the reset the next line is the whole file.
TEST_F(LimitsReset, WriterWithAppendContinuesAtTheNewEnd) {
  const std::string path = dir_ + "/-limits =.log";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  ASSERT_GE(fd, 0);
  const std::string before = "1764790000.100 200 k1\n1764790000.200 200 k1\n";
  const std::string after = "1764790001.100 429 k2\n";
  ASSERT_EQ(write(fd, before.data(), before.size()), static_cast<ssize_t>(before.size()));
  auto r = ResetLimitsLog(host_, path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(ReadAll(path), "");
  ASSERT_EQ(write(fd, after.data(), after.size()), static_cast<ssize_t>(after.size()));
  close(fd);
  EXPECT_EQ(ReadAll(path), after);
  auto reduced = ReduceLimitsLog(host_, path, 100);
  ASSERT_TRUE(reduced.ok()) << reduced.error().message;
  EXPECT_EQ(Canonical(*reduced),
            (std::vector<std::string>{"fvbench-limits 1 100",
                                      "lines 1 first 1764790001.100 last 1764790001.100 nokey 0 malformed 0",
                                      "k k2 0 1 0"}));
}

TEST_F(LimitsReset, UnwritablePathNamesHostAndCommand) {
  const std::string path = dir_ + "/no-such-dir/limits.log";
  auto r = ResetLimitsLog(host_, path);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "host local: `truncate -s 0 -- " + path + "` exited 1")) << r.error().message;
}

// ---- end to end: edge's own log of a burst over its token bucket ------------

constexpr int kBackendPort = 18550;
constexpr int kFvPort = 18551;

std::string FixturesDir() {
  const char* f = std::getenv("FVBENCH_FIXTURES");
  return f && *f ? f : FVBENCH_SOURCE_DIR "/fixtures";
}

class LimitsLogE2E : public TempDir {
 protected:
  void SetUp() override {
    const char* edge = std::getenv("FAIRVISOR_EDGE_SRC");
    if (!edge || !*edge) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
    TempDir::SetUp();
    chmod(dir_.c_str(), 0755);  // nginx workers (nobody) read the policy below it
    cfg_.bench_dir = dir_ + "/bench";
    cfg_.fv_dir = dir_ + "/fv";
    cfg_.backend_port = kBackendPort;
    cfg_.fv_port = kFvPort;
    cfg_.health_timeout_s = 15;
    cfg_.edge_src = edge;
    auto info = ProvisionSut(host_, cfg_);
    ASSERT_TRUE(info.ok()) << info.error().message;
    info_ = *info;
  }

  // `n` GETs of / with X-Bench-Key: <key> on one connection; the statuses curl saw.
  std::map<int, int> Burst(const std::string& key, int n) {
    Command c;
    c.argv = {"curl", "-sS", "-H", "X-Bench-Key: " + key, "-w", "%{http_code}\\n"};
    for (int i = 0; i < n; ++i) {  // one -o per URL: curl pairs them in order
      c.argv.insert(c.argv.end(), {"-o", "/dev/null", "http://127.0.0.1:" + std::to_string(kFvPort) + "/"});
    }
    auto r = host_.Run(c);
    std::map<int, int> statuses;
    if (!r.ok()) return statuses;
    curl_out_ += r->out + r->err;
    std::istringstream in(r->out);
    for (int s; in >> s;) ++statuses[s];
    return statuses;
  }

  Config cfg_;
  ProvisionInfo info_;
  std::string curl_out_;  // what the bursts' curl printed, for failure messages
};

// limits.json: 10 tokens/s, burst 20 per X-Bench-Key. 30 requests per key in
// well under a second: about 20 admitted and the rest 429, edge's log and
// curl agreeing on every count; the health checks of the start are gone with
// the reset; one worker on this start whatever FV_WORKER_PROCESSES says.
TEST_F(LimitsLogE2E, BurstOverTheBucketIsLoggedPerKey) {
  const std::string policy = cfg_.bench_dir + "/policies/limits.json";
  ASSERT_TRUE(host_.WriteFile(policy, ReadAll(FixturesDir() + "/policies/limits.json")).ok());
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  auto b = sut.StartBackend();
  ASSERT_TRUE(b.ok()) << b.error().message;
  FairvisorOptions options;
  options.limits_log = true;
  options.worker_processes = 1;
  auto s = sut.StartFairvisor("reverse_proxy", policy, options);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(sut.fv_worker_processes(), "1");
  EXPECT_TRUE(Has(ReadAll(sut.run_dir("fv") + "/conf/nginx.conf"), "worker_processes 1;"));
  const std::string log = sut.limits_log_path();
  EXPECT_EQ(log, cfg_.bench_dir + "/run/fv/logs/limits.log");
  EXPECT_TRUE(Has(ReadAll(log), " 200 -\n")) << "the health checks of the start are not in " << log;

  ASSERT_TRUE(ResetLimitsLog(host_, log).ok());
  const auto t0 = std::chrono::steady_clock::now();
  std::map<int, int> k1 = Burst("k1", 30);
  std::map<int, int> k2 = Burst("k2", 30);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto reduced = ReduceLimitsLog(host_, log, 100);
  ASSERT_TRUE(reduced.ok()) << reduced.error().message;
  std::cout << "60 requests in " << elapsed_s << " s; reduced:\n" << *reduced;
  ASSERT_TRUE(sut.StopAll().ok());

  const std::vector<std::string> lines = Canonical(*reduced);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "fvbench-limits 1 100");
  EXPECT_TRUE(lines[1].rfind("lines 60 first ", 0) == 0) << lines[1];
  EXPECT_TRUE(Has(lines[1], " nokey 0 malformed 0")) << lines[1];
  // The refill over the burst: 10 tokens/s.
  const int most = 20 + static_cast<int>(10 * elapsed_s) + 1;
  for (const auto& [key, seen] : {std::pair{std::string("k1"), k1}, std::pair{std::string("k2"), k2}}) {
    const int admitted = seen.count(200) ? seen.at(200) : 0;
    const int rejected = seen.count(429) ? seen.at(429) : 0;
    EXPECT_EQ(admitted + rejected, 30) << key << ": curl saw other statuses:\n" << curl_out_;
    EXPECT_GE(admitted, 20) << key;
    EXPECT_LE(admitted, most) << key;
    EXPECT_GT(rejected, 0) << key;
    const std::string k = "k " + key + " " + std::to_string(admitted) + " " + std::to_string(rejected) + " 0";
    EXPECT_NE(std::find(lines.begin(), lines.end(), k), lines.end()) << "edge's log and curl disagree on " << k;
  }
}

// ReadTokenBucket (limits_phase.h) on the policy files as shipped: each
// limits scenario's bucket in requests, a note for the LLM rule only, and
// refusals naming the host and the file.
using ReadBucket = TempDir;

TEST_F(ReadBucket, EachLimitsScenarioReadsItsPolicysBucketInRequests) {
  for (const char* id : kLimitsScenarios) {
    const ScenarioPlan* plan = FindScenario(id);
    ASSERT_NE(plan, nullptr) << id;
    const std::string path = dir_ + "/" + plan->policy_file;
    WriteAll(path, ReadAll(FixturesDir() + "/policies/" + plan->policy_file));
    auto b = ReadTokenBucket(host_, path, plan->policy_id, plan->limit_algorithm);
    ASSERT_TRUE(b.ok()) << id << ": " << b.error().message;
    const bool sweep = std::string(id) == "limits.keys";  // limits_keys.json's small bucket
    EXPECT_EQ(b->limit.rate_per_s, sweep ? 0.01 : 10) << id;
    EXPECT_EQ(b->limit.burst, sweep ? 1 : 20) << id;
    EXPECT_EQ(b->note.empty(), plan->limit_algorithm == "token_bucket") << id << ": " << b->note;
  }
  const std::string llm = dir_ + "/llm.json";
  WriteAll(llm, ReadAll(FixturesDir() + "/policies/llm.json"));
  auto keyed = ReadTokenBucket(host_, llm, "bench-llm", "token_bucket_llm");
  ASSERT_FALSE(keyed.ok());
  EXPECT_TRUE(Has(keyed.error().message, llm + ": policy 'bench-llm': its token_bucket_llm rule \"org-tpm\" limits by "
                                         "[\"jwt:org_id\"]"))
      << keyed.error().message;
  auto other = ReadTokenBucket(host_, llm, "bench-llm", "cost_based");
  ASSERT_FALSE(other.ok());
  EXPECT_TRUE(Has(other.error().message, llm + ": no limits scenario judges the algorithm 'cost_based'"))
      << other.error().message;
}

}  // namespace
}  // namespace fvbench::limits_log_test
