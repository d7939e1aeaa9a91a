// The common start of several load generators (judge/loadgen_start.h): the
// lead from the launches measured, a process not ready at the start named
// as a harness fault, and the lead kept for the run.
#include "support/judge/loadgen_start.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::loadgen_start_test {
namespace {

using ::testing::HasSubstr;

// 1.5 x the slowest launch + 0.25 s, within [0.25, 60] s; none measured: 2 s.
// Seen: a lead capped at 2 s with launches of 5.3 s (a slow login shell)
// started every phase's processes 3.3 s late.
TEST(LoadgenLead, FollowsTheSlowestLaunch) {
  EXPECT_EQ(NextLoadgenLeadS(-1), kLoadgenStartLeadS);
  EXPECT_NEAR(NextLoadgenLeadS(0.01), 0.265, 1e-12);  // local: 10 ms launches
  EXPECT_NEAR(NextLoadgenLeadS(0.27), 0.655, 1e-12);  // SSH on busy namespace hosts
  EXPECT_NEAR(NextLoadgenLeadS(5.3), 8.2, 1e-12);     // a login shell that takes 5 s
  EXPECT_EQ(NextLoadgenLeadS(0), kLoadgenMinLeadS);
  EXPECT_EQ(NextLoadgenLeadS(100), kLoadgenMaxLeadS);
}

TEST(LoadgenLead, SlowestKnownLaunch) {
  EXPECT_EQ(SlowestLaunchS({{"a#1", "a", 0, 0.2}, {"b#1", "b", 0, 5.3}}), 5.3);
  EXPECT_EQ(SlowestLaunchS({{"a#1", "a", 0, 0.2}, {"b#1", "b", 0, -1}}), -1);  // one not known
}

// A process ready after the common start is named with its host, how late,
// the lead and its launch; on time: nothing.
TEST(LoadgenLead, LateStartsAreNamedAsTheHarnessFault) {
  std::vector<ProcessStart> starts = {{"a#1", "root@a", -1.7e6, 0.3, 0}, {"b#1", "root@b", 3.3e6, 5.3, 660}};
  EXPECT_EQ(LateStarts(starts, 2),
            "loadgen b#1 (host root@b) was not ready at the common start: ready 3.3 s after it (lead 2 s; its launch "
            "took 5.3 s; 660 slots due before it was up skipped, none sent late)");
  starts[1].late_us = -1;
  EXPECT_EQ(LateStarts(starts, 2), "");
}

// The run's last launch, kept for the next scenario process.
TEST(LoadgenLead, KeptAsJson) {
  LoadgenLeadRecord r;
  r.hosts = {"root@a", "root@b"};
  r.launch_s = 5.3;
  r.measured_in = "latency_raw_nginx_warmup";
  r.updated_unix = 1.7e9;
  const std::string text = LoadgenLeadToJson(r);
  EXPECT_THAT(text, HasSubstr("\"lead_s\": 8.2"));
  auto back = LoadgenLeadFromJson(text, "lead.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->hosts, r.hosts);
  EXPECT_EQ(back->launch_s, 5.3);
  EXPECT_EQ(back->measured_in, "latency_raw_nginx_warmup");
  for (const char* bad : {"", "{}", "[1]", R"({"schema":"fvbench.loadgen-lead/1","hosts":[1],"launch_s":1})",
                          R"({"schema":"fvbench.loadgen-lead/1","hosts":[],"launch_s":-1})"}) {
    auto b = LoadgenLeadFromJson(bad, "lead.json");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_THAT(b.error().message, HasSubstr("lead.json"));
  }
}

}  // namespace
}  // namespace fvbench::loadgen_start_test
