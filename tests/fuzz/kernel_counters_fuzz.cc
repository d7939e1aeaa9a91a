// libFuzzer target: ParseKernelCounters, ParseNetDev and ParseConntrackStat
// (support/judge/kernel_counters.h); contract in fuzz_contract.h. A parsed reading is also compared with itself
// (KernelCounterDelta): every delta 0, nothing went back or vanished.
#include <cstdio>
#include <cstdlib>

#include "support/judge/kernel_counters.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto text = fvbench::fuzz::AsText(data, size);
  fvbench::fuzz::CheckContract(fvbench::ParseNetDev(text, fvbench::fuzz::kSource), "ParseNetDev");
  fvbench::fuzz::CheckContract(fvbench::ParseConntrackStat(text, fvbench::fuzz::kSource), "ParseConntrackStat");
  auto r = fvbench::ParseKernelCounters(text, fvbench::fuzz::kSource);
  fvbench::fuzz::CheckContract(r, "ParseKernelCounters");
  if (!r) return 0;
  const fvbench::CounterDelta d = fvbench::KernelCounterDelta(*r, *r);
  bool zero = d.went_back.empty() && d.vanished.empty();
  for (const auto& [name, v] : d.deltas) zero = zero && v == 0;
  if (!zero) {
    std::fprintf(stderr, "KernelCounterDelta of a reading with itself is not all zero\n");
    std::abort();
  }
  return 0;
}
