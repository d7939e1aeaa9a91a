// libFuzzer target: RunResultsFromJson (support/report/results_io.h); contract in
// fuzz_contract.h. A parsed run is written back (RunResultsToJson) too.
#include "support/report/results_io.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::RunResultsFromJson(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "RunResultsFromJson");
  if (r.ok()) (void)fvbench::RunResultsToJson(r->scenarios, r->meta);
  return 0;
}
