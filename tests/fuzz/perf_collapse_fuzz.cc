// libFuzzer target: CollapsePerfScript (support/judge/perf_collapse.h);
// contract in fuzz_contract.h. Collapsed stacks also keep the shape the
// header promises: written as folded text they read back the same
// (ParseFolded: no empty frame, no ';' inside one, counts > 0).
#include <cstdio>
#include <cstdlib>

#include "support/core/folded_stacks.h"
#include "support/judge/perf_collapse.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = fvbench::CollapsePerfScript(fvbench::fuzz::AsText(data, size), fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "CollapsePerfScript");
  if (!r) return 0;
  auto back = fvbench::ParseFolded(fvbench::WriteFolded(*r), "written");
  if (!back || back->counts != r->counts) {
    std::fprintf(stderr, "CollapsePerfScript: its stacks do not read back as folded text: %s\n",
                 back ? "different stacks" : back.error().message.c_str());
    std::abort();
  }
  return 0;
}
