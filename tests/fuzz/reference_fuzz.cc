// libFuzzer target: ParseReference (support/judge/reference.h); contract in
// fuzz_contract.h.
#include "support/judge/reference.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ParseReference(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ParseReference");
  if (r.ok()) (void)r->describe();
  return 0;
}
