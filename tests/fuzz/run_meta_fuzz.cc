// libFuzzer target: RunMetaFromJson (support/core/run_meta.h); contract in
// fuzz_contract.h. A parsed meta is written back (RunMetaToJson) too.
#include "support/core/run_meta.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::RunMetaFromJson(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "RunMetaFromJson");
  if (r.ok()) (void)fvbench::RunMetaToJson(*r);
  return 0;
}
