// libFuzzer target: ParseFolded (support/core/folded_stacks.h); contract in
// fuzz_contract.h. Parsed stacks also write back and read back the same
// (WriteFolded then ParseFolded), every count > 0, the total their sum.
#include <cstdio>
#include <cstdlib>

#include "support/core/folded_stacks.h"
#include "tests/fuzz/fuzz_contract.h"

namespace {

void Fail(const char* what) {
  std::fprintf(stderr, "ParseFolded: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::ParseFolded(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ParseFolded");
  if (!r) return 0;
  uint64_t sum = 0;
  for (const auto& [stack, n] : r->counts) {
    if (n == 0) Fail("a stack with count 0");
    if (stack.empty()) Fail("an empty stack");
    sum += n;  // ParseFolded refuses a total over 64 bits
  }
  if (sum != r->total()) Fail("total() is not the sum of the counts");
  const std::string text = fvbench::WriteFolded(*r);
  auto back = fvbench::ParseFolded(text, "written");
  if (!back) Fail("written stacks do not parse");
  if (back->counts != r->counts) Fail("written stacks read back different");
  if (fvbench::WriteFolded(*back) != text) Fail("writing is not deterministic");
  return 0;
}
