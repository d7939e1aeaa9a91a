// libFuzzer target: ParseK6SummaryDetailed (support/engine/k6_summary.h), both shapes
// (handleSummary data and legacy --summary-export); contract in fuzz_contract.h.
#include "support/engine/k6_summary.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ParseK6SummaryDetailed(fvbench::fuzz::AsText(data, size),
                                           fvbench::fuzz::kSource, 500);
  fvbench::fuzz::CheckContract(r, "ParseK6SummaryDetailed");
  return 0;
}
