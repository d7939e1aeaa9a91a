// libFuzzer target: ParseLimitsLog (support/judge/limits_log_parse.h); contract in
// fuzz_contract.h. A parsed log also keeps the shape the header promises:
// keys strictly sorted, each key's bins the window's count and summing to
// its admitted, and the counts adding up to `lines`.
#include <cstdio>
#include <cstdlib>

#include "support/judge/limits_log_parse.h"
#include "tests/fuzz/fuzz_contract.h"

namespace {

void Fail(const char* what) {
  std::fprintf(stderr, "ParseLimitsLog: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ParseLimitsLog(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ParseLimitsLog");
  if (!r) return 0;
  uint64_t counted = r->without_key + r->malformed;
  for (size_t i = 0; i < r->keys.size(); ++i) {
    const fvbench::KeyCounts& k = r->keys[i];
    if (i > 0 && !(r->keys[i - 1].key < k.key)) Fail("keys not strictly sorted");
    if (k.admitted_per_bin.size() != r->keys[0].admitted_per_bin.size()) Fail("keys with different bin counts");
    if (k.admitted_per_bin.empty()) Fail("a key without bins");
    uint64_t binned = 0;
    for (uint64_t n : k.admitted_per_bin) binned += n;
    if (binned != k.admitted) Fail("bins do not sum to admitted");
    counted += k.admitted + k.rejected + k.other;
  }
  if (counted != r->lines) Fail("counts do not add up to lines");
  if (r->last_unix < r->first_unix) Fail("last before first");
  return 0;
}
