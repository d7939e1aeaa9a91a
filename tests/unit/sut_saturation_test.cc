// SutCpuShare: how busy the SUT's CPUs were, from a phase's observation.
#include "support/judge/sut_saturation.h"

#include <gtest/gtest.h>

namespace fvbench::sut_saturation_test {
namespace {

PhaseObservation Observed(int cpus, double fv_cores, double backend_cores) {
  PhaseObservation obs;
  QuietOutcome q;
  q.cpus = cpus;
  obs.quiet = q;
  ServiceUsage fv;
  fv.service = "fv";
  fv.cpu_cores = fv_cores;
  ServiceUsage backend;
  backend.service = "backend";
  backend.cpu_cores = backend_cores;
  obs.sut_usage = {fv, backend};
  return obs;
}

TEST(SutCpuShare, ServicesCoresOverTheCpusetsCpus) {
  auto s = SutCpuShare(Observed(4, 1.5, 0.5), false);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(*s, 0.5);
}

TEST(SutCpuShare, SharedCpusBusyWithTheEngineAreNoRoom) {
  PhaseObservation obs = Observed(2, 0.6, 0.2);
  obs.loadgen_busy = 0.97;  // the whole (shared) cpuset busy: engine + SUT
  EXPECT_DOUBLE_EQ(*SutCpuShare(obs, true), 0.97);
  EXPECT_DOUBLE_EQ(*SutCpuShare(obs, false), 0.4);  // separate CPUs: the engine's are not the SUT's
}

// Measured (throughput.complex, ORESTY_CPUSET=0 K6_CPUSET=1): edge 0.64 and
// its backend 0.15 cores of the one SUT CPU, 79 %, while the SUT queued
// (p99 67 ms against 3.8 ms one step lower). The kernel's network work on
// that CPU is not in the processes' times; /proc/stat's busy share is.
TEST(SutCpuShare, TheCpusBusyShareCountsWhatTheProcessesLeaveOut) {
  PhaseObservation obs = Observed(1, 0.64, 0.15);
  EXPECT_DOUBLE_EQ(*SutCpuShare(obs, false), 0.79);
  obs.sut_busy = 0.97;
  EXPECT_DOUBLE_EQ(*SutCpuShare(obs, false), 0.97);
  obs.sut_busy = 0.5;  // the processes' figure stays the floor
  EXPECT_DOUBLE_EQ(*SutCpuShare(obs, false), 0.79);
}

TEST(SharedCpusSaturatedFrom, LessThanOneCpuIdle) {
  EXPECT_DOUBLE_EQ(SharedCpusSaturatedFrom(0), 0);
  EXPECT_DOUBLE_EQ(SharedCpusSaturatedFrom(1), 0);
  EXPECT_DOUBLE_EQ(SharedCpusSaturatedFrom(2), 0.5);
  EXPECT_DOUBLE_EQ(SharedCpusSaturatedFrom(8), 0.875);
}

TEST(SutCpuShare, UnknownWithoutCpusOrUsage) {
  PhaseObservation obs = Observed(2, 1, 0);
  obs.quiet.reset();
  EXPECT_FALSE(SutCpuShare(obs, false).has_value());
  obs = Observed(0, 1, 0);
  EXPECT_FALSE(SutCpuShare(obs, false).has_value());
  obs = Observed(2, 1, 0);
  obs.sut_usage.clear();
  EXPECT_FALSE(SutCpuShare(obs, false).has_value());
}

}  // namespace
}  // namespace fvbench::sut_saturation_test
