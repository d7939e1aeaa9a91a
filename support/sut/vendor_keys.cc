#include "support/sut/vendor_keys.h"

#include <fmt/format.h>

#include "support/host/shell_quote.h"

namespace fvbench {

VendorKey OpenRestyKey() {
  return {"OpenResty", "https://openresty.org/package/pubkey.gpg", "E52218E7087897DC6DEA6D6D97DB7443D5EDEB74",
          "key 0xD5EDEB74, https://openresty.org/en/linux-packages.html"};
}

VendorKey OpenRestyEl9Key() {
  return {"OpenResty", "https://openresty.org/package/pubkey2.gpg", "",
          "no fingerprint of this key is published on https://openresty.org/en/linux-packages.html"};
}

VendorKey K6Key() {
  return {"k6", "https://dl.k6.io/key.gpg", "C5AD17C747E3415A3642D57D77C6C491D6AC1D69",
          "https://grafana.com/docs/k6/latest/get-started/installation/"};
}

std::string VerifiedKeyScript(const VendorKey& key, const std::string& step, const std::string& dest,
                              KeyFormat format) {
  const std::string expected = key.fingerprint.empty() ? "none published" : key.fingerprint;
  const std::string refuse = fmt::format("{}: {} key {} has fingerprint $found, expected {} ({}); not trusted", step,
                                         key.name, key.url, expected, key.source);
  // The fingerprint of each primary key: the first fpr record after a pub record.
  return fmt::format(
      "set -e\n"
      "t=$(mktemp -d)\n"
      "trap 'rm -rf \"$t\"' EXIT\n"
      "curl -fsSL --max-time 60 -o \"$t/key\" {url}\n"
      "export GNUPGHOME=\"$t/gnupg\"\n"
      "mkdir -m 700 \"$GNUPGHOME\"\n"
      "found=$(gpg --batch --with-colons --show-keys \"$t/key\" 2>/dev/null |"
      " awk -F: '$1==\"pub\"{{p=1;next}} p&&$1==\"fpr\"{{printf \"%s%s\",s,$10;s=\" \";p=0}}')\n"
      "found=${{found:-none}}\n"
      "if [ -z {fpr} ] || [ \"$found\" != {fpr} ]; then echo \"{refuse}\" >&2; exit 1; fi\n"
      "gpg --batch --quiet --import \"$t/key\"\n"
      "gpg --batch {armor}--export {fpr} > \"$t/verified\"\n"
      "[ -s \"$t/verified\" ]\n"
      "install -m 0644 \"$t/verified\" {dest}\n",
      fmt::arg("url", ShellQuote(key.url)), fmt::arg("fpr", ShellQuote(key.fingerprint)),
      fmt::arg("refuse", refuse), fmt::arg("armor", format == KeyFormat::kArmored ? "--armor " : ""),
      fmt::arg("dest", ShellQuote(dest)));
}

}  // namespace fvbench
