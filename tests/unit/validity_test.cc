// validity: the checks of one measured phase (CheckPhase) on recorded engine
// outputs (fixtures/wrk/) and recorded /proc samples (fixtures/proc/), the
// variables, and the descriptions a failure message quotes.
#include "support/judge/validity.h"
#include "support/judge/proc_sample.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/report/results_io.h"
#include "support/judge/step_search.h"
#include "support/report/summary_table.h"
#include "support/engine/wrk_output.h"
#include "fvbench/source_dir.h"

namespace fvbench::validity_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Fixture(const std::string& rel) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/" + rel;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const ValidityCheck* Find(const std::vector<ValidityCheck>& v, const std::string& name) {
  for (const auto& c : v) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A healthy wrk phase: 500 RPS for 4 s, all answered, RateLimit on every response.
LoadResult Healthy() {
  LoadResult l;
  l.engine = "wrk";
  l.target_rps = 500;
  l.duration_s = 4.01;
  l.requests = 2000;
  l.achieved_rps = 2000 / 4.01;
  l.latency_us = {180, 320, 900, 1800, 2500};  // read back, a result with requests has latencies
  l.kept_up = true;
  l.max_send_lag_us = 900;
  l.ratelimit_evidence = 2000;
  return l;
}

PhaseObservation Calm() {
  PhaseObservation o;
  o.loadgen_host = "local";
  o.loadgen_busy = 0.35;
  o.loadgen_busy_peak = 0.5;
  o.loadgen_cpus = 2;
  o.samples = 9;
  o.elapsed_s = 4;
  o.quiet = QuietOutcome{true, 0.1, 0.4, 1.0, 2};
  o.logs.push_back(LogGrowth{"fv", "/x/fv/logs/error.log", 0, 0, {}, 0});
  return o;
}

PhaseContext Policy() {
  PhaseContext c;
  c.expect_evidence = true;
  c.planned_duration_s = 4;
  return c;
}

TEST(ValidityCheckPhase, HealthyPhasePassesEveryCheck) {
  auto v = CheckPhase(Healthy(), Calm(), Policy(), ValidityParams{});
  EXPECT_TRUE(ValidityPassed(v)) << FailedValidity(v);
  EXPECT_EQ(FailedValidity(v), "");
  for (const char* name : {"policy_evidence", "enough_requests", "engine_kept_up", "achieved_rate", "loadgen_cpu",
                           "sut_quiet", "error_log_rate", "sut_worker_restarts", "nginx_alerts"}) {
    EXPECT_NE(Find(v, name), nullptr) << name;
  }
  EXPECT_EQ(Find(v, "shared_cores"), nullptr);
}

TEST(ValidityCheckPhase, PolicyEvidenceDropping) {
  LoadResult l = Healthy();
  l.ratelimit_evidence = 1900;  // 95%: the policy stopped answering for part of the phase
  auto v = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  const ValidityCheck* c = Find(v, "policy_evidence");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 0.95);
  EXPECT_DOUBLE_EQ(c->limit, 0.99);
  EXPECT_THAT(FailedValidity(v), HasSubstr("policy_evidence: measured 95.00%, limit >= 99.00%"));
  // Not counted at all on a policy scenario: cannot be shown live, fails.
  l.ratelimit_evidence.reset();
  auto w = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  EXPECT_FALSE(Find(w, "policy_evidence")->passed);
  EXPECT_THAT(DescribeValidity(*Find(w, "policy_evidence")), HasSubstr("not measured"));
  // Baseline scenarios do not expect it.
  PhaseContext base = Policy();
  base.expect_evidence = false;
  EXPECT_EQ(Find(CheckPhase(l, Calm(), base, ValidityParams{}), "policy_evidence"), nullptr);
}

TEST(ValidityCheckPhase, EnoughRequestsUsesPlannedDuration) {
  LoadResult l = Healthy();
  l.requests = 2000;
  l.failed = 30;  // 1970 successful < floor(0.99 x 500 x 4) = 1980
  auto v = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  const ValidityCheck* c = Find(v, "enough_requests");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 1970);
  EXPECT_DOUBLE_EQ(c->limit, 1980);
  l.failed = 20;
  EXPECT_TRUE(Find(CheckPhase(l, Calm(), Policy(), ValidityParams{}), "enough_requests")->passed);
}

// A limits phase: the limiter's 429s are answers, not missing responses.
TEST(ValidityCheckPhase, EnoughRequestsCountsRejectionsWhenTheyAreExpected) {
  LoadResult l = Healthy();
  l.scheduled = 2000;
  l.succeeded = 500;
  l.non_2xx = 1490;
  l.failed_sut = 1500;
  l.failed = 1500;
  PhaseContext limits = Policy();
  EXPECT_FALSE(Find(CheckPhase(l, Calm(), limits, ValidityParams{}), "enough_requests")->passed);
  limits.rejections_expected = true;
  const std::vector<ValidityCheck> v = CheckPhase(l, Calm(), limits, ValidityParams{});
  const ValidityCheck* c = Find(v, "enough_requests");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->measured, 1990);  // >= floor(0.99 x 500 x 4) = 1980
  EXPECT_TRUE(c->passed) << c->detail;
  EXPECT_THAT(c->detail, HasSubstr("answered responses"));
  EXPECT_THAT(c->detail, HasSubstr("1490 non-2xx answers counted"));
  l.non_2xx = 1470;  // 1970 answered: 20 never answered at all
  EXPECT_FALSE(Find(CheckPhase(l, Calm(), limits, ValidityParams{}), "enough_requests")->passed);
}

// Per scheduled request, the detail adds up: successes, the SUT's failures,
// the engine's unsent slots and the requests in flight at the end.
TEST(ValidityCheckPhase, EnoughRequestsNamesTheRequestsInFlightAtTheEnd) {
  LoadResult l = Healthy();
  l.requests = 1990;
  l.scheduled = 1995;
  l.succeeded = 1990;
  l.failed_engine = 5;
  l.interrupted = 5;
  const auto checks = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  const ValidityCheck* c = Find(checks, "enough_requests");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(DescribeValidity(*c), HasSubstr("(1990 of 1995 scheduled: 0 failed at the SUT, 5 never sent by the "
                                              "engine; 5 in flight at the end, not counted)"));
  l.interrupted = 0;
  const auto none = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  c = Find(none, "enough_requests");
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(DescribeValidity(*c), HasSubstr("5 never sent by the engine) vs"));
}

// Recorded: wrk with 4 connections asked for 200000 RPS against a loopback
// nginx (fixtures/wrk/README.md): about 24k achieved, send lag 2.7 s.
TEST(ValidityCheckPhase, EngineThatCannotReachTheTargetIsCaught) {
  auto parsed = ParseWrkOutput(Fixture("wrk/overload_get_200000rps_4conn.json"), "overload", 200000);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  LoadResult l = *parsed;
  PhaseContext ctx;
  ctx.planned_duration_s = l.duration_s;
  auto v = CheckPhase(l, Calm(), ctx, ValidityParams{});
  EXPECT_FALSE(ValidityPassed(v));
  const ValidityCheck* kept = Find(v, "engine_kept_up");
  ASSERT_NE(kept, nullptr);
  EXPECT_FALSE(kept->passed);
  EXPECT_GT(kept->measured, 0.99);  // share of sends > 10 ms late
  EXPECT_THAT(kept->detail, HasSubstr("worst lag"));
  const ValidityCheck* ach = Find(v, "achieved_rate");
  ASSERT_NE(ach, nullptr);
  EXPECT_FALSE(ach->passed);
  EXPECT_LT(ach->measured, 0.97);
  EXPECT_THAT(FailedValidity(v), HasSubstr("engine_kept_up: measured"));
}

TEST(ValidityCheckPhase, KSixDroppedIterations) {
  LoadResult l = Healthy();
  l.engine = "k6";
  l.kept_up = false;
  l.dropped_iterations = 120;
  auto v = CheckPhase(l, Calm(), Policy(), ValidityParams{});
  const ValidityCheck* c = Find(v, "engine_kept_up");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 120);
  EXPECT_THAT(c->detail, HasSubstr("dropped_iterations"));
}

// Recorded: engine and nginx both under taskset -c 0 (fixtures/proc/pinned_*).
TEST(ValidityCheckPhase, LoadGeneratorPinnedOntoTheSutCoreIsFlagged) {
  detail::ProcSample b = detail::ParseProcSample(Fixture("proc/pinned_before.txt"));
  detail::ProcSample a = detail::ParseProcSample(Fixture("proc/pinned_after.txt"));
  PhaseObservation o = Calm();
  o.loadgen_cpuset = "0";
  o.loadgen_cpus = 1;
  o.loadgen_busy = detail::BusyFraction(b.cpus, a.cpus, {0});
  PhaseContext ctx = Policy();
  auto sharing = CoreSharing(true, "0", "0");
  ASSERT_TRUE(sharing.ok());
  ctx.sharing = *sharing;
  auto v = CheckPhase(Healthy(), o, ctx, ValidityParams{});
  const ValidityCheck* c = Find(v, "loadgen_cpu");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 1.0);
  EXPECT_THAT(DescribeValidity(*c), HasSubstr("loadgen_cpu: measured 100.00%, limit <= 80.00%"));
  const ValidityCheck* s = Find(v, "shared_cores");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->informational);
  EXPECT_THAT(s->detail, HasSubstr("share cpu(s) 0"));
  EXPECT_FALSE(ValidityPassed(v));
}

TEST(ValidityCheckPhase, SutNotQuietBeforeTheLoad) {
  PhaseObservation o = Calm();
  o.quiet = QuietOutcome{false, 0.93, 3.1, 30.2, 2, 1.0};
  auto v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  const ValidityCheck* c = Find(v, "sut_quiet");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 0.93);
  EXPECT_THAT(c->detail, HasSubstr("busy per core over 1 s before the load (2 cpus), still busy after waiting 30.2 s"));
}

TEST(ValidityCheckPhase, ErrorLogFloodAndAlerts) {
  PhaseObservation o = Calm();
  std::string log = Fixture("proc/error_alerts.log");
  LogGrowth g;
  g.service = "fv";
  g.lines = 200;
  g.lines_per_s = 50;
  auto alerts = detail::NginxAlertLines(log);
  g.alert_count = alerts.size();
  g.alerts = alerts;
  o.logs = {g};
  auto v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  EXPECT_FALSE(Find(v, "error_log_rate")->passed);
  EXPECT_DOUBLE_EQ(Find(v, "error_log_rate")->measured, 50);
  const ValidityCheck* a = Find(v, "nginx_alerts");
  EXPECT_FALSE(a->passed);
  EXPECT_DOUBLE_EQ(a->measured, 3);
  EXPECT_THAT(a->detail, HasSubstr("worker_connections are not enough"));
}

TEST(ValidityCheckPhase, AWorkerRestartedDuringThePhaseFailsItNamingTheService) {
  PhaseObservation o = Calm();
  LogGrowth g;
  g.service = "fv";
  g.worker_exits = 2;
  o.logs = {g};
  auto v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  const ValidityCheck* c = Find(v, "sut_worker_restarts");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_DOUBLE_EQ(c->measured, 2);
  EXPECT_THAT(c->detail, HasSubstr("fv 2"));
  EXPECT_TRUE(Find(CheckPhase(Healthy(), Calm(), Policy(), ValidityParams{}), "sut_worker_restarts")->passed);
}

// One host's kernel counters over a phase: every counter the checks read, at
// `listen` overflows (and as many drops), `syn` SYN retransmissions.
HostKernelCounters Kernel(const std::string& host, bool sut, bool loadgen, uint64_t listen = 0, uint64_t syn = 0) {
  HostKernelCounters k;
  k.host = host;
  k.sut = sut;
  k.loadgen = loadgen;
  k.delta.deltas = {{"TcpExt.ListenOverflows", listen}, {"TcpExt.ListenDrops", listen}, {"TcpExt.TCPSynRetrans", syn},
                    {"Tcp.RetransSegs", 0},            {"TcpExt.TCPTimeouts", 0},       {"Tcp.InSegs", 5000}};
  return k;
}

TEST(ValidityCheckPhase, ListenQueueOverflowsOnTheSutHostFailThePhaseNamingTheFix) {
  PhaseObservation o = Calm();
  o.kernel = {Kernel("sut-a", true, false, 17), Kernel("lg-b", false, true, 0, 17)};
  auto v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  EXPECT_FALSE(ValidityPassed(v));
  const ValidityCheck* c = Find(v, "kernel_listen_drops");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_FALSE(c->informational);
  EXPECT_DOUBLE_EQ(c->measured, 17);  // each overflow is counted in both counters: not 34
  EXPECT_THAT(c->detail, HasSubstr("host sut-a: ListenOverflows +17, ListenDrops +17"));
  EXPECT_THAT(c->detail, HasSubstr("net.core.somaxconn"));
  EXPECT_THAT(c->detail, HasSubstr("backlog"));
  const ValidityCheck* s = Find(v, "kernel_syn_retrans");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->passed);
  EXPECT_DOUBLE_EQ(s->measured, 17);
  EXPECT_THAT(s->detail, HasSubstr("host lg-b: TCPSynRetrans +17"));
  EXPECT_THAT(s->detail, HasSubstr("~1 s"));
  EXPECT_THAT(FailedValidity(v), HasSubstr("kernel_listen_drops: measured 17, limit <= 0"));
  // The load generator's own listen drops (it listens on nothing of the
  // phase) and the SUT's SYN retransmissions (its own connections) are not judged.
  o.kernel = {Kernel("sut-a", true, false, 0, 3), Kernel("lg-b", false, true, 4, 0)};
  EXPECT_TRUE(ValidityPassed(CheckPhase(Healthy(), o, Policy(), ValidityParams{})));
}

TEST(ValidityCheckPhase, ZeroKernelCountersPassAndTheInformationalEntryListsWhatWasRead) {
  PhaseObservation o = Calm();
  o.kernel = {Kernel("local", true, true)};
  auto v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  EXPECT_TRUE(ValidityPassed(v)) << FailedValidity(v);
  ASSERT_NE(Find(v, "kernel_listen_drops"), nullptr);
  EXPECT_TRUE(Find(v, "kernel_listen_drops")->passed);
  EXPECT_TRUE(Find(v, "kernel_syn_retrans")->passed);
  const ValidityCheck* i = Find(v, "kernel_counters");
  ASSERT_NE(i, nullptr);
  EXPECT_TRUE(i->informational);
  EXPECT_THAT(i->detail, HasSubstr("host local (SUT and load generator): 6 counters read, none watched moved"));
  EXPECT_THAT(i->detail, HasSubstr("Tcp.RetransSegs, TcpExt.TCPTimeouts"));  // what it looks at
  EXPECT_THAT(DescribeValidity(*i), HasSubstr("kernel_counters: host local (SUT and load generator)"));

  // Nonzero ones, per host; went back and vanished named.
  o.kernel = {Kernel("sut-a", true, false), Kernel("lg-b", false, true)};
  o.kernel[0].delta.deltas["Tcp.RetransSegs"] = 12;
  o.kernel[0].delta.deltas["TcpExt.PruneCalled"] = 2;
  o.kernel[1].delta.deltas["TcpExt.TCPTimeouts"] = 3;
  o.kernel[1].delta.went_back = {"TcpExt.TCPAbortOnMemory 9 -> 0"};
  o.kernel[1].delta.vanished = {"TcpExt.Gone"};
  v = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  EXPECT_TRUE(ValidityPassed(v)) << FailedValidity(v);  // informational only
  i = Find(v, "kernel_counters");
  ASSERT_NE(i, nullptr);
  EXPECT_THAT(i->detail,
              HasSubstr("host sut-a (SUT): 7 counters read, moved: Tcp.RetransSegs +12, TcpExt.PruneCalled +2"));
  EXPECT_THAT(i->detail, HasSubstr("host lg-b (load generator): 6 counters read, moved: TcpExt.TCPTimeouts +3; "
                                   "went back: TcpExt.TCPAbortOnMemory 9 -> 0; gone at the end: TcpExt.Gone"));
}

// A threshold profile's maximum for an informational counter gates it: the
// largest delta of any host against the limit, both sides of the bound.
TEST(ValidityCheckPhase, AProfilesKernelCounterMaximumGatesTheLargestHostDelta) {
  PhaseObservation o = Calm();
  o.kernel = {Kernel("sut-a", true, false), Kernel("lg-b", false, true)};
  o.kernel[0].delta.deltas["Tcp.RetransSegs"] = 40;
  o.kernel[1].delta.deltas["Tcp.RetransSegs"] = 100;
  PhaseContext ctx = Policy();
  ctx.kernel_limits = {{"Tcp.RetransSegs", "<=", 100}, {"TcpExt.TCPTimeouts", "<", 1}};
  auto v = CheckPhase(Healthy(), o, ctx, ValidityParams{});
  EXPECT_TRUE(ValidityPassed(v)) << FailedValidity(v);  // 100 <= 100, 0 < 1
  const ValidityCheck* r = Find(v, "kernel_Tcp.RetransSegs");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->informational);
  EXPECT_DOUBLE_EQ(r->measured, 100);
  EXPECT_THAT(r->detail, HasSubstr("host sut-a: Tcp.RetransSegs +40; host lg-b: Tcp.RetransSegs +100"));
  ASSERT_NE(Find(v, "kernel_TcpExt.TCPTimeouts"), nullptr);
  EXPECT_TRUE(Find(v, "kernel_TcpExt.TCPTimeouts")->passed);

  o.kernel[0].delta.deltas["Tcp.RetransSegs"] = 101;
  o.kernel[1].delta.deltas["TcpExt.TCPTimeouts"] = 1;
  v = CheckPhase(Healthy(), o, ctx, ValidityParams{});
  EXPECT_FALSE(ValidityPassed(v));
  EXPECT_THAT(FailedValidity(v), HasSubstr("kernel_Tcp.RetransSegs: measured 101, limit <= 100"));
  EXPECT_THAT(FailedValidity(v), HasSubstr("kernel_TcpExt.TCPTimeouts: measured 1, limit < 1"));

  // Not read on any host: a missing number never passes.
  ctx.kernel_limits = {{"TcpExt.PruneCalled", "<=", 5}};
  v = CheckPhase(Healthy(), o, ctx, ValidityParams{});
  ASSERT_NE(Find(v, "kernel_TcpExt.PruneCalled"), nullptr);
  EXPECT_FALSE(Find(v, "kernel_TcpExt.PruneCalled")->passed);
  EXPECT_THAT(Find(v, "kernel_TcpExt.PruneCalled")->detail, HasSubstr("host sut-a: TcpExt.PruneCalled not read"));
  // No counters read at all (the monitor could not): no limit checks either.
  EXPECT_EQ(Find(CheckPhase(Healthy(), Calm(), ctx, ValidityParams{}), "kernel_TcpExt.PruneCalled"), nullptr);
}

TEST(ValidityCheckPhase, KernelCountersNotReadAreNoChecks) {
  auto v = CheckPhase(Healthy(), Calm(), Policy(), ValidityParams{});
  EXPECT_EQ(Find(v, "kernel_listen_drops"), nullptr);
  EXPECT_EQ(Find(v, "kernel_syn_retrans"), nullptr);
  EXPECT_EQ(Find(v, "kernel_counters"), nullptr);
  // A SUT host whose counters lacked the one judged: shown as not read.
  PhaseObservation o = Calm();
  o.kernel = {Kernel("sut-a", true, false)};
  o.kernel[0].delta.deltas.erase("TcpExt.ListenDrops");
  const std::vector<ValidityCheck> checks = CheckPhase(Healthy(), o, Policy(), ValidityParams{});
  const ValidityCheck* c = Find(checks, "kernel_listen_drops");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->passed);
  EXPECT_THAT(c->detail, HasSubstr("ListenOverflows +0, ListenDrops not read"));
}

TEST(ValidityCheckPhase, UnpinnedLocalIsInformationalOnly) {
  PhaseContext ctx = Policy();
  ctx.sharing = *CoreSharing(true, "", "");
  auto v = CheckPhase(Healthy(), Calm(), ctx, ValidityParams{});
  const ValidityCheck* s = Find(v, "shared_cores");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(s->informational);
  EXPECT_THAT(s->detail, HasSubstr("without pinning"));
  EXPECT_TRUE(ValidityPassed(v));
  EXPECT_THAT(FailedValidity(v), IsEmpty());
}

TEST(ValidityCheckPhase, UnpinnedEngineBusyShareIsReportedNotGated) {
  // Unpinned on the SUT's host the "engine's cpus" are all cpus; 100 % busy
  // there is the SUT's work too, so it cannot fail the phase on its own.
  PhaseContext ctx = Policy();
  ctx.sharing = *CoreSharing(true, "", "");
  PhaseObservation busy = Calm();
  busy.loadgen_busy = 1.0;
  busy.loadgen_cpuset = "";
  auto v = CheckPhase(Healthy(), busy, ctx, ValidityParams{});
  const ValidityCheck* c = Find(v, "loadgen_cpu");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->passed);
  EXPECT_TRUE(c->informational);
  EXPECT_TRUE(ValidityPassed(v));
  // The note still says the number and the limit it would have had.
  EXPECT_THAT(DescribeValidity(*c), HasSubstr("loadgen_cpu: 100.00% busy share of the engine's cpus"));
  EXPECT_THAT(DescribeValidity(*c), HasSubstr("not gated (limit 80.00% when pinned)"));
  // Pinned onto the SUT's own cpu, the same reading is gated.
  ctx.sharing = *CoreSharing(true, "0", "0");
  busy.loadgen_cpuset = "0";
  v = CheckPhase(Healthy(), busy, ctx, ValidityParams{});
  EXPECT_FALSE(ValidityPassed(v));
}

TEST(ValidityCoreSharing, Cases) {
  EXPECT_EQ(*CoreSharing(false, "", ""), "");
  EXPECT_EQ(*CoreSharing(true, "0", "1"), "");
  EXPECT_THAT(*CoreSharing(true, "0-1", "1-2"), HasSubstr("share cpu(s) 1"));
  EXPECT_THAT(*CoreSharing(true, "0", ""), HasSubstr("only the SUT is pinned"));
  auto bad = CoreSharing(true, "x", "1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("ORESTY_CPUSET"));
}

TEST(ValidityVariables, DefaultsOverridesAndErrors) {
  auto d = ValidityParamsFromEnv({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->mode, ValidityMode::kFail);
  EXPECT_DOUBLE_EQ(d->max_loadgen_busy, 0.8);
  EXPECT_DOUBLE_EQ(d->quiet_timeout_s, 30);
  auto w = ValidityParamsFromEnv({{"VALIDITY", "warn"}, {"QUIET_LOAD_PER_CORE", "0.7"}, {"QUIET_TIMEOUT", "0"}});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->mode, ValidityMode::kWarn);
  EXPECT_DOUBLE_EQ(w->quiet_max_per_core, 0.7);
  EXPECT_DOUBLE_EQ(w->quiet_timeout_s, 0);
  auto bad = ValidityParamsFromEnv({{"VALIDITY", "off"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("VALIDITY='off'"));
  auto bad2 = ValidityParamsFromEnv({{"LOADGEN_MAX_BUSY", "80"}});
  ASSERT_FALSE(bad2.ok());
  EXPECT_THAT(bad2.error().message, HasSubstr("LOADGEN_MAX_BUSY='80'"));
}

// The report's validity section: INVALID with the failed check's numbers,
// the informational entry, the passing checks by name, the SUT usage.
TEST(ValiditySummaryTable, SectionShowsFailuresNotesAndUsage) {
  ScenarioResult r;
  r.id = "latency.decision_service";
  r.measured = true;
  r.load = Healthy();
  PhaseObservation o = Calm();
  o.loadgen_cpuset = "0";
  o.loadgen_busy = 1.0;
  PhaseContext ctx = Policy();
  ctx.sharing = *CoreSharing(true, "0", "0");
  r.validity = CheckPhase(r.load, o, ctx, ValidityParams{});
  r.sut_usage = {ServiceUsage{"fv", 2, 0.85, 45.1, 46.0}};
  ScenarioResult clean;
  clean.id = "latency.raw_nginx";
  clean.measured = true;
  clean.load = Healthy();
  clean.validity = CheckPhase(clean.load, Calm(), PhaseContext{}, ValidityParams{});
  std::string t = RenderSummaryTable({r, clean}, RunMeta{}, nullptr);
  EXPECT_THAT(t, HasSubstr("INVALID  latency.decision_service"));
  EXPECT_THAT(t, HasSubstr("FAIL  loadgen_cpu: measured 100.00%, limit <= 80.00%"));
  EXPECT_THAT(t, HasSubstr("note  shared_cores: local mode: cpusets overlap"));
  EXPECT_THAT(t, HasSubstr("SUT   fv: 2 processes, 0.85 cores, RSS 45.1 MiB (peak 46.0)"));
  EXPECT_THAT(t, HasSubstr("valid    latency.raw_nginx"));
  EXPECT_THAT(t, HasSubstr("ok    enough_requests, engine_kept_up, achieved_rate, loadgen_cpu, sut_quiet"));
  // No validity anywhere: no section (older results files).
  ScenarioResult old;
  old.id = "latency.raw_nginx";
  EXPECT_THAT(RenderSummaryTable({old}, RunMeta{}, nullptr), ::testing::Not(HasSubstr("Validity")));
}

// Round trip through the results JSON, and older files without the fields.
TEST(ValidityResultsJson, RoundTripAndAbsentFields) {
  ScenarioResult r;
  r.id = "throughput.simple";
  r.measured = true;
  r.load = Healthy();
  r.validity = CheckPhase(r.load, Calm(), Policy(), ValidityParams{});
  r.sut_usage = {ServiceUsage{"fv", 2, 1.5, 40, 41}};
  StepResult st;
  st.target_rps = 500;
  st.load = Healthy();
  st.validity = r.validity;
  r.steps.push_back(st);
  auto back = ScenarioResultFromJson(ScenarioResultToJson(r), "mem");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->validity.size(), r.validity.size());
  for (size_t i = 0; i < r.validity.size(); ++i) {
    EXPECT_EQ(back->validity[i].name, r.validity[i].name);
    EXPECT_EQ(back->validity[i].passed, r.validity[i].passed);
    EXPECT_EQ(back->validity[i].op, r.validity[i].op);
    EXPECT_EQ(back->validity[i].detail, r.validity[i].detail);
    EXPECT_DOUBLE_EQ(back->validity[i].limit, r.validity[i].limit);
  }
  ASSERT_EQ(back->sut_usage.size(), 1u);
  EXPECT_DOUBLE_EQ(back->sut_usage[0].cpu_cores, 1.5);
  ASSERT_EQ(back->steps.size(), 1u);
  EXPECT_EQ(back->steps[0].validity.size(), r.validity.size());
  EXPECT_EQ(back->steps[0].validity[0].name, r.validity[0].name);
  ScenarioResult plain;
  plain.id = "latency.raw_nginx";
  std::string text = ScenarioResultToJson(plain);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("validity")));
  auto again = ScenarioResultFromJson(text, "mem");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->validity.empty());
}

// A step whose phase failed a check fails in the search's judgement with
// VALIDITY=fail (the default), naming the failed checks as FailedValidity
// does; with VALIDITY=warn the checks are recorded only. An informational
// entry never fails the step.
TEST(ValidityStepVerdict, FailedCheckFailsTheStepOnlyWithValidityFail) {
  MeasuredPhase phase{Healthy(), {}, {}};
  SearchParams sp;
  EXPECT_TRUE(JudgeStep(phase, sp).passed);
  phase.validity.push_back({"loadgen_cpu", false, false, "<=", 0.97, 0.80, "cpus 1 of host local busy"});
  StepVerdict v = JudgeStep(phase, sp);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.text, "fail: invalid: " + FailedValidity(phase.validity));
  EXPECT_THAT(v.text, HasSubstr("invalid: loadgen_cpu: measured 97.00%, limit <= 80.00%"));
  sp.validity_mode = ValidityMode::kWarn;
  v = JudgeStep(phase, sp);
  EXPECT_TRUE(v.passed) << v.text;
  EXPECT_THAT(v.text, ::testing::Not(HasSubstr("invalid")));
  sp.validity_mode = ValidityMode::kFail;
  phase.validity[0].informational = true;
  EXPECT_TRUE(JudgeStep(phase, sp).passed);
}

}  // namespace
}  // namespace fvbench::validity_test
