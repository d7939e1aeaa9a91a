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
