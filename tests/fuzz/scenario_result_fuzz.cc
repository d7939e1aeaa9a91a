// libFuzzer target: ScenarioResultFromJson (support/report/results_io.h); contract in
// fuzz_contract.h. A parsed result is written back and must parse again.
#include "support/report/results_io.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ScenarioResultFromJson(fvbench::fuzz::AsText(data, size),
                                           fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ScenarioResultFromJson");
  if (r.ok()) {
    auto again = fvbench::ScenarioResultFromJson(fvbench::ScenarioResultToJson(*r),
                                                 fvbench::fuzz::kSource);
    fvbench::fuzz::CheckContract(again, "ScenarioResultFromJson(round trip)");
  }
  return 0;
}
