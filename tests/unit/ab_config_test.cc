// A/B mode variables (config.h: FVBENCH_AB and the *_B variables).
#include <gtest/gtest.h>

#include "support/core/config.h"

namespace fvbench::ab_config_test {
namespace {

ConfigInputs Inputs(EnvMap env, std::function<bool(const std::string&)> exists = nullptr) {
  ConfigInputs in;
  in.env = std::move(env);
  in.source_dir = "/src";
  in.cores = 2;
  in.file_exists = exists ? std::move(exists) : [](const std::string&) { return true; };
  return in;
}

TEST(AbConfig, OffByDefault) {
  auto c = LoadConfig(Inputs({}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->ab);
  EXPECT_EQ(c->repeat, 1);
}

TEST(AbConfig, FlagDefaultsSideBToSideA) {
  auto c = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"FAIRVISOR_EDGE_SRC", "/edge"}, {"FAIRVISOR_EDGE_REF", "v1"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->ab);
  EXPECT_EQ(c->edge_src_b, "/edge");
  EXPECT_EQ(c->edge_ref_b, "v1");
  EXPECT_EQ(c->policy_dir_b, "/src/fixtures/policies");
  EXPECT_EQ(c->fv_dir_b, "/opt/fairvisor-b");
  EXPECT_TRUE(c->ab_same_edge());
  EXPECT_EQ(c->repeat, 5);  // pairs per phase
  EXPECT_DOUBLE_EQ(c->ab_rate_fraction, 0.8);
}

TEST(AbConfig, AnyBVariableEnablesIt) {
  for (const char* var : {"FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF_B", "FVBENCH_POLICY_DIR_B", "FV_DIR_B"}) {
    std::string value = std::string(var) == "FAIRVISOR_EDGE_REF_B" ? "main" : "/b";
    auto c = LoadConfig(Inputs({{var, value}}));
    ASSERT_TRUE(c.ok()) << var << ": " << c.error().message;
    EXPECT_TRUE(c->ab) << var;
  }
  auto c = LoadConfig(Inputs({{"FAIRVISOR_EDGE_REF_B", "feature"}, {"FAIRVISOR_EDGE_SRC", "/edge"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->ab_same_edge());
  EXPECT_EQ(c->edge_src_b, "/edge");
}

TEST(AbConfig, RepeatGivenIsKeptAndMustBeThreeOrMore) {
  auto seven = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"REPEAT", "7"}}));
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(seven->repeat, 7);
  auto two = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"REPEAT", "2"}}));
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("REPEAT='2'"), std::string::npos) << two.error().message;
  EXPECT_NE(two.error().message.find("at least 3"), std::string::npos);
  // Outside A/B mode REPEAT=2 stays valid.
  EXPECT_TRUE(LoadConfig(Inputs({{"REPEAT", "2"}})).ok());
}

struct Bad {
  EnvMap env;
  const char* expect;
};

TEST(AbConfig, BadValuesAreNamed) {
  const Bad cases[] = {
      {{{"FVBENCH_AB", "yes"}}, "FVBENCH_AB='yes'"},
      {{{"FVBENCH_AB", "0"}, {"FVBENCH_POLICY_DIR_B", "/p"}}, "FVBENCH_AB=0 but FVBENCH_POLICY_DIR_B='/p'"},
      {{{"FAIRVISOR_EDGE_SRC_B", "edge-b"}}, "FAIRVISOR_EDGE_SRC_B='edge-b': expected a git URL or an absolute path"},
      {{{"FVBENCH_POLICY_DIR_B", "policies"}}, "FVBENCH_POLICY_DIR_B='policies': must be an absolute path"},
      {{{"FV_DIR_B", "rel"}}, "FV_DIR_B='rel': must be an absolute path"},
      {{{"FV_DIR_B", "/opt/fairvisor/"}}, "FV_DIR_B='/opt/fairvisor/': the same directory as FV_DIR"},
      {{{"FV_DIR_B", "/"}}, "FV_DIR_B='/': refusing the root directory"},
      {{{"FVBENCH_AB", "1"}, {"AB_RATE_FRACTION", "1.5"}}, "AB_RATE_FRACTION='1.5': 1.5 is above 1"},
      {{{"FVBENCH_AB", "1"}, {"AB_RATE_FRACTION", "x"}}, "AB_RATE_FRACTION='x': not a number"},
  };
  for (const Bad& b : cases) {
    auto c = LoadConfig(Inputs(b.env));
    ASSERT_FALSE(c.ok()) << b.expect;
    EXPECT_NE(c.error().message.find(b.expect), std::string::npos) << c.error().message;
  }
}

TEST(AbConfig, GateMetricsDefaultToEveryMetric) {
  auto c = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"AB_GATE", "1"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->ab_gate);
  EXPECT_TRUE(c->ab_gate_metrics.empty());
}

TEST(AbConfig, GateMetricsAreTheNamesGivenInOrder) {
  auto one = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"AB_GATE", "1"}, {"AB_GATE_METRICS", "fv_cpu_us_per_request"}}));
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->ab_gate_metrics, std::vector<std::string>{"fv_cpu_us_per_request"});
  auto two = LoadConfig(
      Inputs({{"FVBENCH_AB", "1"}, {"AB_GATE", "1"}, {"AB_GATE_METRICS", "fv_cpu_us_per_request, p99_us"}}));
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->ab_gate_metrics, (std::vector<std::string>{"fv_cpu_us_per_request", "p99_us"}));
  auto all = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"AB_GATE", "1"},
                                {"AB_GATE_METRICS", "p50_us,p90_us,p99_us,p999_us,error_rate,achieved_rps,"
                                                    "fv_cpu_cores,fv_cpu_us_per_request"}}));
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->ab_gate_metrics.size(), 8u);
}

// Each bad value names the variable, the bad item and the allowed names.
TEST(AbConfig, BadGateMetricsAreNamed) {
  const std::string allowed =
      "(expected a comma-separated list of A/B metrics, each once: p50_us, p90_us, p99_us, p999_us, error_rate, "
      "achieved_rps, fv_cpu_cores, fv_cpu_us_per_request)";
  const Bad cases[] = {
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "fv_cpu"}},
       "AB_GATE_METRICS='fv_cpu': item 1 'fv_cpu' is not an A/B metric (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "p99"}},
       "AB_GATE_METRICS='p99': item 1 'p99' is not an A/B metric (the key of p99 is p99_us) (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "max_us"}}, "item 1 'max_us' is not an A/B metric (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "p99_us,,fv_cpu_cores"}},
       "AB_GATE_METRICS='p99_us,,fv_cpu_cores': item 2 is empty (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "p99_us,"}}, "AB_GATE_METRICS='p99_us,': item 2 is empty (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", " , p99_us"}}, "item 1 is empty (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", "p99_us,fv_cpu_cores,p99_us"}},
       "AB_GATE_METRICS='p99_us,fv_cpu_cores,p99_us': item 3 'p99_us' is given twice (expected"},
      {{{"AB_GATE", "1"}, {"AB_GATE_METRICS", ""}},
       "AB_GATE_METRICS='': set but empty; unset it (AB_GATE=1 then gates on every A/B metric), or name the "
       "metrics to gate on (expected"},
  };
  for (const Bad& b : cases) {
    EnvMap env = b.env;
    env["FVBENCH_AB"] = "1";
    auto c = LoadConfig(Inputs(env));
    ASSERT_FALSE(c.ok()) << b.expect;
    EXPECT_NE(c.error().message.find(b.expect), std::string::npos) << c.error().message;
    EXPECT_NE(c.error().message.find(allowed), std::string::npos) << c.error().message;
  }
}

TEST(AbConfig, GateMetricsWithoutTheGateAreRefused) {
  for (const char* gate : {"", "0"}) {
    EnvMap env = {{"FVBENCH_AB", "1"}, {"AB_GATE_METRICS", "fv_cpu_us_per_request"}};
    if (*gate) env["AB_GATE"] = gate;
    auto c = LoadConfig(Inputs(env));
    ASSERT_FALSE(c.ok()) << "AB_GATE=" << gate;
    EXPECT_NE(c.error().message.find("AB_GATE_METRICS='fv_cpu_us_per_request' is set but AB_GATE is not 1: it "
                                     "names the metrics AB_GATE=1 fails a scenario on; set AB_GATE=1, or unset "
                                     "AB_GATE_METRICS"),
              std::string::npos)
        << c.error().message;
  }
}

// AB_GATE=1 (with or without AB_GATE_METRICS) without A/B mode would gate
// nothing: refused before any host is touched, naming AB_GATE and what
// turns A/B mode on. AB_GATE=0 stays valid; with FVBENCH_AB=1 or a *_B
// variable the gate is on.
TEST(AbConfig, GateWithoutAbModeIsRefused) {
  for (const char* ab : {"", "0"}) {
    for (const char* metrics : {"", "fv_cpu_us_per_request"}) {
      EnvMap env = {{"AB_GATE", "1"}};
      if (*ab) env["FVBENCH_AB"] = ab;
      if (*metrics) env["AB_GATE_METRICS"] = metrics;
      auto c = LoadConfig(Inputs(env));
      ASSERT_FALSE(c.ok()) << "FVBENCH_AB=" << ab << " AB_GATE_METRICS=" << metrics;
      const std::string& m = c.error().message;
      EXPECT_EQ(m.rfind("AB_GATE=1", 0), 0u) << m;
      EXPECT_NE(m.find(std::string("is set but A/B mode is off (FVBENCH_AB is ") + (*ab ? "0" : "unset") +
                       " and no *_B variable is set)"),
                std::string::npos) << m;
      EXPECT_NE(m.find("set FVBENCH_AB=1 or a *_B variable (FAIRVISOR_EDGE_SRC_B, FAIRVISOR_EDGE_REF_B, "
                       "FVBENCH_POLICY_DIR_B, FV_DIR_B) for an A/B run, or unset AB_GATE"),
                std::string::npos) << m;
      EXPECT_EQ(m.find("with AB_GATE_METRICS='fv_cpu_us_per_request'") != std::string::npos, *metrics != 0) << m;
    }
  }
  auto off = LoadConfig(Inputs({{"AB_GATE", "0"}}));
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(off->ab_gate);
  auto by_b = LoadConfig(Inputs({{"AB_GATE", "1"}, {"FAIRVISOR_EDGE_REF_B", "feature"}}));
  ASSERT_TRUE(by_b.ok()) << by_b.error().message;
  EXPECT_TRUE(by_b->ab && by_b->ab_gate);
}

// A *_B variable that would change nothing is refused (before any host is
// touched: provision loads the Config first), naming it and what to set.
TEST(AbConfig, BVariableWithoutAnyAbRunIsRefused) {
  // No edge checkout and FVBENCH_EDGE_OPTIONAL=1: the edge scenarios skip,
  // raw nginx has no sides, so no A/B comparison would run.
  for (const char* var : {"FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF_B", "FVBENCH_POLICY_DIR_B", "FV_DIR_B"}) {
    for (const char* ab : {"", "1"}) {
      EnvMap env = {{"FVBENCH_EDGE_OPTIONAL", "1"}, {var, "/b"}};
      if (*ab) env["FVBENCH_AB"] = ab;
      auto c = LoadConfig(Inputs(env));
      ASSERT_FALSE(c.ok()) << var << " FVBENCH_AB=" << ab;
      const std::string& m = c.error().message;
      EXPECT_NE(m.find(std::string(var) + "='/b' is set, but no A/B comparison would run: FAIRVISOR_EDGE_SRC is "
                                          "not set and FVBENCH_EDGE_OPTIONAL=1 skips the fairvisor edge scenarios"),
                std::string::npos) << m;
      EXPECT_NE(m.find("set FAIRVISOR_EDGE_SRC to side A's edge checkout or git URL, or unset " + std::string(var)),
                std::string::npos) << m;
    }
  }
  // FVBENCH_AB=0 with a B variable was refused before; still is.
  auto off = LoadConfig(Inputs({{"FVBENCH_AB", "0"}, {"FAIRVISOR_EDGE_REF_B", "main"}}));
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().message.find("FVBENCH_AB=0 but FAIRVISOR_EDGE_REF_B='main' is set: unset it, or set "
                                     "FVBENCH_AB=1"),
            std::string::npos) << off.error().message;
  // With the edge there, the same variables run A/B (FVBENCH_AB unset or 1).
  auto with_edge = LoadConfig(Inputs({{"FVBENCH_EDGE_OPTIONAL", "1"}, {"FAIRVISOR_EDGE_SRC", "/edge"},
                                      {"FAIRVISOR_EDGE_REF_B", "feature"}}));
  ASSERT_TRUE(with_edge.ok()) << with_edge.error().message;
  EXPECT_TRUE(with_edge->ab);
  // FVBENCH_AB=1 alone stays valid without the edge (same-vs-same mode; the
  // A/B self-test preset skips its edge scenarios then).
  auto same = LoadConfig(Inputs({{"FVBENCH_EDGE_OPTIONAL", "1"}, {"FVBENCH_AB", "1"}}));
  ASSERT_TRUE(same.ok()) << same.error().message;
  EXPECT_TRUE(same->ab);
  EXPECT_TRUE(same->edge_skipped);
}

// FAIRVISOR_EDGE_REF_B=$PR_HEAD with PR_HEAD unset would quietly compare A
// with itself (or run no A/B at all).
TEST(AbConfig, SetButEmptyBVariableIsRefused) {
  for (const char* var : {"FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF_B", "FVBENCH_POLICY_DIR_B", "FV_DIR_B"}) {
    for (const char* ab : {"", "1"}) {
      EnvMap env = {{var, ""}};
      if (*ab) env["FVBENCH_AB"] = ab;
      auto c = LoadConfig(Inputs(env));
      ASSERT_FALSE(c.ok()) << var << " FVBENCH_AB=" << ab;
      EXPECT_NE(c.error().message.find(std::string(var) + "='': set but empty; unset it (side B then uses side A's "
                                                          "value), or give side B's value"),
                std::string::npos) << c.error().message;
    }
  }
}

TEST(AbConfig, FilesOfSideBMustExist) {
  auto missing_policy = LoadConfig(Inputs({{"FVBENCH_POLICY_DIR_B", "/pb"}},
                                          [](const std::string& p) { return p != "/pb/llm.json"; }));
  ASSERT_FALSE(missing_policy.ok());
  EXPECT_NE(missing_policy.error().message.find("FVBENCH_POLICY_DIR_B='/pb': missing policy file /pb/llm.json"),
            std::string::npos)
      << missing_policy.error().message;
  auto missing = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC_B", "/nope"}},
                                   [](const std::string& p) { return p.rfind("/nope", 0) != 0; }));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("FAIRVISOR_EDGE_SRC_B='/nope': no such file or directory on this machine"),
            std::string::npos)
      << missing.error().message;
  auto not_edge = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC_B", "/nope"}},
                                    [](const std::string& p) { return p.rfind("/nope/", 0) != 0; }));
  ASSERT_FALSE(not_edge.ok());
  EXPECT_NE(not_edge.error().message.find("FAIRVISOR_EDGE_SRC_B='/nope': not a fairvisor edge checkout"),
            std::string::npos)
      << not_edge.error().message;
}

}  // namespace
}  // namespace fvbench::ab_config_test
