// libFuzzer target: LoadConfig over an environment map (config_contract.h).
#include "tests/fuzz/config_contract.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fvbench::fuzz::CheckConfigContract(std::string(fvbench::fuzz::AsText(data, size)));
  return 0;
}
