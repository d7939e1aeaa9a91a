// LlmBucketOfPolicy (judge/llm_bucket.h): the limits_llm.json fixture read
// in requests, the cost C and its cap, the refusals (each naming the field),
// and that edge's bucket in tokens at cost C decides exactly as the bucket
// in requests it is judged by.
#include "support/judge/llm_bucket.h"
#include "fvbench/source_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>

namespace fvbench::llm_bucket_test {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  const std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Bundle(const std::string& rules) {
  return R"({"bundle_version": 1, "policies": [{"id": "p", "spec": {"rules": [)" + rules + "]}}]}";
}

// A token_bucket_llm rule keyed by X-Bench-Key; `extra` is added to its
// algorithm_config (a leading comma included), `bucket` is its
// _tpm_bucket_config.
std::string LlmRule(const std::string& extra = "",
                    const std::string& bucket = R"({"tokens_per_second": 100, "burst": 200})") {
  return R"({"name": "r", "limit_keys": ["header:X-Bench-Key"], "algorithm": "token_bucket_llm",
             "algorithm_config": {"tokens_per_minute": 6000, "default_max_completion": 10,
             "_tpm_bucket_config": )" +
         bucket + extra + "}}";
}

TEST(LlmBucket, TheLimitsLlmFixtureIsTheBenchLimitsBucketInRequests) {
  auto b = LlmBucketOfPolicy(Fixture("policies/limits_llm.json"), "bench-limits-llm", "X-Bench-Key");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->rule, "key-tpm");
  EXPECT_EQ(b->cost_tokens, 10);
  EXPECT_EQ(b->tokens_per_second, 100);
  EXPECT_EQ(b->burst_tokens, 200);
  EXPECT_EQ(b->per_request.rate_per_s, 10);
  EXPECT_EQ(b->per_request.burst, 20);
  EXPECT_EQ(DescribeLlmBucket(*b),
            "token_bucket_llm rule \"key-tpm\": every request costs 10 tokens (default_max_completion, capped at "
            "max_completion_tokens; edge reads no request body), charged once; its _tpm_bucket_config (100 tokens/s, "
            "burst 200) is judged as 10 requests/s, burst 20 per key");
}

TEST(LlmBucket, MaxCompletionTokensCapsTheCost) {
  auto capped = LlmBucketOfPolicy(Bundle(LlmRule(R"(, "max_completion_tokens": 4)")), "p");
  ASSERT_TRUE(capped.ok()) << capped.error().message;
  EXPECT_EQ(capped->cost_tokens, 4);
  EXPECT_EQ(capped->per_request.rate_per_s, 25);
  EXPECT_EQ(capped->per_request.burst, 50);
  auto above = LlmBucketOfPolicy(Bundle(LlmRule(R"(, "max_completion_tokens": 64)")), "p");
  ASSERT_TRUE(above.ok()) << above.error().message;
  EXPECT_EQ(above->cost_tokens, 10);
}

// Rate and burst need not be multiples of C: the bucket in requests is the
// bucket in tokens divided by C.
TEST(LlmBucket, NumbersThatAreNotMultiplesOfTheCostScaleExactly) {
  auto b = LlmBucketOfPolicy(Bundle(LlmRule("", R"({"tokens_per_second": 15, "burst": 25})")), "p");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_DOUBLE_EQ(b->per_request.rate_per_s, 1.5);
  EXPECT_DOUBLE_EQ(b->per_request.burst, 2.5);
}

// edge's token_bucket.check: starts full, refills continuously up to burst,
// admits when tokens >= cost and takes it; a rejection takes nothing.
struct Bucket {
  double rate, burst, cost;
  double tokens = -1;
  double last = 0;
  bool Take(double now) {
    if (tokens < 0) {
      tokens = burst;
      last = now;
    }
    tokens = std::min(burst, tokens + (now - last) * rate);
    last = now;
    if (tokens < cost) return false;
    tokens -= cost;
    return true;
  }
};

// Arrivals on a 1/64 s grid keep every figure exact in binary: the two
// buckets must agree on every request, admitting and rejecting some.
TEST(LlmBucket, TheTokenBucketAtCostCDecidesAsTheRequestBucketAtCostOne) {
  for (const auto& [rate, burst] : {std::pair{100, 200}, std::pair{15, 25}}) {
    auto b = LlmBucketOfPolicy(
        Bundle(LlmRule("", R"({"tokens_per_second": )" + std::to_string(rate) + R"(, "burst": )" +
                               std::to_string(burst) + "}")),
        "p");
    ASSERT_TRUE(b.ok()) << b.error().message;
    Bucket tokens{b->tokens_per_second, b->burst_tokens, b->cost_tokens};
    Bucket requests{b->per_request.rate_per_s, b->per_request.burst, 1};
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> gap(0, 12);
    int admitted = 0, rejected = 0, tick = 0;
    for (int i = 0; i < 20000; ++i) {
      tick += gap(rng);
      const double now = tick / 64.0;
      const bool t = tokens.Take(now);
      ASSERT_EQ(t, requests.Take(now)) << "request " << i << " at " << now << " s, bucket " << rate << "/" << burst;
      (t ? admitted : rejected) += 1;
    }
    EXPECT_GT(admitted, 0);
    EXPECT_GT(rejected, 0);
  }
}

TEST(LlmBucket, Refusals) {
  const struct {
    std::string json;
    const char* what;
  } cases[] = {
      {Bundle(R"({"name": "t", "algorithm": "token_bucket", "algorithm_config": {"tokens_per_second": 1, "burst": 1}})"),
       "policy 'p': no rule with \"algorithm\": \"token_bucket_llm\""},
      {Bundle(LlmRule() + ", " + LlmRule()), "policy 'p': 2 token_bucket_llm rules (\"r\", \"r\"), expected exactly one"},
      {Bundle(R"({"name": "r", "algorithm": "token_bucket_llm"})"),
       "policy 'p': token_bucket_llm rule \"r\": no algorithm_config object"},
      {Bundle(LlmRule(R"(, "token_source": {"estimator": "header_hint"})")),
       "token_bucket_llm rule \"r\": algorithm_config.token_source.estimator is \"header_hint\": only \"simple_word\""},
      {Bundle(LlmRule(R"(, "token_source": "simple_word")")),
       "algorithm_config.token_source is \"simple_word\", not an object"},
      {Bundle(LlmRule(R"(, "tokens_per_day": 100000)")),
       "token_bucket_llm rule \"r\": algorithm_config.tokens_per_day is 100000: a per-UTC-day token counter"},
      {Bundle(LlmRule(R"(, "max_prompt_tokens": 5)")), "algorithm_config.max_prompt_tokens is 5: rejects requests"},
      {Bundle(LlmRule(R"(, "max_tokens_per_request": 50)")),
       "algorithm_config.max_tokens_per_request is 50: rejects requests"},
      {Bundle(R"({"name": "r", "limit_keys": ["header:X-Bench-Key"], "algorithm": "token_bucket_llm",
                  "algorithm_config": {"tokens_per_minute": 6000, "default_max_completion": 10}})"),
       "token_bucket_llm rule \"r\": algorithm_config has no `_tpm_bucket_config` object"},
      {Bundle(R"({"name": "r", "limit_keys": ["header:X-Bench-Key"], "algorithm": "token_bucket_llm",
                  "algorithm_config": {"tokens_per_minute": 6000,
                  "_tpm_bucket_config": {"tokens_per_second": 100, "burst": 200}}})"),
       "token_bucket_llm rule \"r\": algorithm_config has no `default_max_completion`: edge would charge its own "
       "default (1000)"},
      {Bundle(R"({"name": "r", "algorithm": "token_bucket_llm", "algorithm_config": {"default_max_completion": 10,
                  "_tpm_bucket_config": {"tokens_per_second": 100, "burst": 200}}})"),
       "algorithm_config has no `tokens_per_minute` (edge refuses the rule)"},
      {Bundle(LlmRule(R"(, "burst_tokens": 600)")),
       "algorithm_config.burst_tokens 600 is below tokens_per_minute 6000 (edge refuses the rule)"},
      {Bundle(LlmRule(R"(, "max_completion_tokens": 0)")), "algorithm_config.max_completion_tokens is 0, not a positive"},
      {Bundle(LlmRule("", R"({"rps": 100, "burst": 200})")),
       "algorithm_config._tpm_bucket_config has no `tokens_per_second`"},
      {Bundle(LlmRule("", R"({"tokens_per_second": 100, "burst": -1})")),
       "algorithm_config._tpm_bucket_config.burst is -1, not a positive number"},
      {Bundle(LlmRule("", R"({"tokens_per_second": 100, "burst": 9})")),
       "_tpm_bucket_config.burst 9 is below a request's cost 10: no request could ever be admitted"},
  };
  for (const auto& c : cases) {
    auto r = LlmBucketOfPolicy(c.json, "p");
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_THAT(r.error().message, HasSubstr(c.what));
  }
  // default_max_completion 0 (edge refuses it too).
  std::string zero = LlmRule();
  zero.replace(zero.find("\"default_max_completion\": 10"), 28, "\"default_max_completion\": 0");
  auto r = LlmBucketOfPolicy(Bundle(zero), "p");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("algorithm_config.default_max_completion is 0, not a positive number"));
}

// The load's keys travel in X-Bench-Key: llm.json's rule (jwt:org_id), any
// other key or none is refused by name; without a key header it is read.
TEST(LlmBucket, TheRuleMustLimitByTheKeyHeader) {
  auto llm = LlmBucketOfPolicy(Fixture("policies/llm.json"), "bench-llm", "X-Bench-Key");
  ASSERT_FALSE(llm.ok());
  EXPECT_THAT(llm.error().message,
              HasSubstr("policy 'bench-llm': its token_bucket_llm rule \"org-tpm\" limits by [\"jwt:org_id\"], but the "
                        "load sends its keys in X-Bench-Key: the rule must limit by exactly [\"header:X-Bench-Key\"]"));
  auto unkeyed = LlmBucketOfPolicy(Fixture("policies/llm.json"), "bench-llm");
  ASSERT_TRUE(unkeyed.ok()) << unkeyed.error().message;
  EXPECT_EQ(unkeyed->cost_tokens, 16);
  std::string two = LlmRule();
  two.replace(two.find(R"(["header:X-Bench-Key"])"), 22, R"(["header:X-Bench-Key", "ip:address"])");
  auto r = LlmBucketOfPolicy(Bundle(two), "p", "X-Bench-Key");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("limits by [\"header:X-Bench-Key\",\"ip:address\"]"));
  EXPECT_TRUE(LlmBucketOfPolicy(Bundle(LlmRule()), "p", "x-bench-key").ok());
}

}  // namespace
}  // namespace fvbench::llm_bucket_test
