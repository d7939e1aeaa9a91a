// libFuzzer target: ParseSshConfig (support/host/ssh_target.h), then
// ResolveSshTarget against the parsed config for a few destinations; contract
// in fuzz_contract.h (parse errors name the file; resolution must not crash).
// Include is followed through a reader that serves the input itself under
// "<source>.included" (depth-limited by the parser).
#include "support/host/ssh_target.h"
#include "tests/fuzz/fuzz_contract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fvbench::fuzz::AsText(data, size));
  fvbench::SshIncludeReader include = [&text](const std::string& pattern) {
    (void)pattern;
    return fvbench::Result<std::vector<std::pair<std::string, std::string>>>(
        std::vector<std::pair<std::string, std::string>>{
            {std::string(fvbench::fuzz::kSource) + ".included", text}});
  };
  auto r = fvbench::ParseSshConfig(text, fvbench::fuzz::kSource, "/home/fuzz", include);
  fvbench::fuzz::CheckContract(r, "ParseSshConfig");
  if (r.ok()) {
    for (const char* dest : {"sut", "lg", "root@10.0.0.1:2222", "[::1]:22"}) {
      auto t = fvbench::ResolveSshTarget(dest, {}, *r, "/home/fuzz", "fuzz");
      if (t.ok()) (void)fvbench::DescribeSshTarget(*t);
    }
  }
  return 0;
}
