// libFuzzer target: ParseDestination and ParseSshOpts (support/host/ssh_target.h),
// then ResolveSshTarget. Input: the first line is the destination, the rest
// is SSH_OPTS. Contract (fuzz_contract.h, adapted: these values come from
// variables, not files): an error names its source -- the destination text
// ("ssh destination '<text>'") or "SSH_OPTS" -- and nothing crashes.
#include <cstdio>

#include "support/host/ssh_target.h"
#include "tests/fuzz/fuzz_contract.h"

namespace {
template <class T>
void Names(const fvbench::Result<T>& r, const std::string& what, const char* parser) {
  if (!r.ok() && r.error().message.find(what) == std::string::npos) {
    std::fprintf(stderr, "%s: error does not name %s: %s\n", parser, what.c_str(), r.error().message.c_str());
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(fvbench::fuzz::AsText(data, size));
  const size_t nl = text.find('\n');
  const std::string dest = text.substr(0, nl);
  const std::string opts = nl == std::string::npos ? "" : text.substr(nl + 1);
  auto d = fvbench::ParseDestination(dest);
  Names(d, "ssh destination '" + dest + "'", "ParseDestination");
  auto o = fvbench::ParseSshOpts(opts);
  Names(o, "SSH_OPTS", "ParseSshOpts");
  if (o.ok()) {
    auto t = fvbench::ResolveSshTarget(dest, *o, fvbench::SshConfig{}, "/home/fuzz", "fuzz");
    if (t.ok()) (void)fvbench::DescribeSshTarget(*t);
  }
  return 0;
}
