// libFuzzer target: ParseWrkPaceOutput / ParseWrkOutput (support/engine/wrk_output.h);
// contract in fuzz_contract.h. The target rate the parser must match is read
// from the input's own "target_rate" when it is a number (so mutated inputs
// get past the rate check and into the rest of the parser), else 2000.
#include <nlohmann/json.hpp>

#include "support/engine/wrk_output.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fvbench::fuzz::AsText(data, size);
  double target = 2000;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    auto it = j.find("target_rate");
    if (it != j.end() && it->is_number()) target = it->get<double>();
  }
  auto r = fvbench::ParseWrkPaceOutput(text, fvbench::fuzz::kSource, target);
  fvbench::fuzz::CheckContract(r, "ParseWrkPaceOutput");
  auto l = fvbench::ParseWrkOutput(text, fvbench::fuzz::kSource, target, 1000);
  fvbench::fuzz::CheckContract(l, "ParseWrkOutput");
  return 0;
}
