// libFuzzer target: ParseThresholdProfile (support/judge/thresholds.h); contract in
// fuzz_contract.h. A parsed profile is also evaluated against an empty result
// (every rule fails, nothing may crash) and each check described.
#include "support/judge/thresholds.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ParseThresholdProfile(fvbench::fuzz::AsText(data, size),
                                          fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ParseThresholdProfile");
  if (r.ok()) {
    for (const auto& s : r->scenarios) {
      fvbench::ScenarioResult res;
      res.id = s.scenario_id;
      for (const auto& c : fvbench::Evaluate(*r, res, nullptr)) (void)fvbench::DescribeCheck(c);
    }
  }
  return 0;
}
