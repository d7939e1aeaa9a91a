// The vendors' repository signing keys, trusted only when their fingerprint
// is the published one. Pure: builds a shell script, runs nothing.
//
// Published fingerprints (primary key, 40 hex digits):
//   k6 (Grafana), https://dl.k6.io/key.gpg:
//     C5AD17C747E3415A3642D57D77C6C491D6AC1D69
//     Source: Grafana's install page, https://grafana.com/docs/k6/latest/get-started/installation/
//     ("gpg ... --recv-keys C5AD17C747E3415A3642D57D77C6C491D6AC1D69"); its
//     troubleshooting page names https://dl.k6.io/key.gpg as the same key.
//   OpenResty, https://openresty.org/package/pubkey.gpg (apt repositories,
//     Amazon Linux, EL 8 and older):
//     E52218E7087897DC6DEA6D6D97DB7443D5EDEB74
//     Source: https://openresty.org/en/linux-packages.html names the key
//     0xD5EDEB74 ("All the packages are signed by the GPG key 0xD5EDEB74";
//     found through a copy of the page, cnblogs.com/mengxp/p/15232924.html);
//     the full fingerprint ending in that ID is the one public manifests pin
//     for that URL (apt-key adv --recv-keys E52218E7...D5EDEB74).
//   OpenResty, https://openresty.org/package/pubkey2.gpg (the key that
//     openresty2.repo names, RHEL-compatible 9): no published fingerprint
//     found, so it is never trusted: provisioning OpenResty on EL 9 stops at
//     the key step naming the fingerprint it found (install OpenResty by
//     hand there, after checking the key yourself).
#pragma once

#include <string>

namespace fvbench {

struct VendorKey {
  std::string name;         // "OpenResty", "k6": shown in errors
  std::string url;          // where the key is downloaded from (curl; file:// in tests)
  std::string fingerprint;  // the published primary-key fingerprint, upper-case hex; "" = none published
  std::string source;       // where the fingerprint is published
};

VendorKey OpenRestyKey();     // pubkey.gpg
VendorKey OpenRestyEl9Key();  // pubkey2.gpg, no published fingerprint
VendorKey K6Key();

// How the verified key is written.
enum class KeyFormat { kBinary, kArmored };  // apt keyring (signed-by) | rpm --import file

// A `sh` script (run it as root for a root-owned `dest`) that downloads
// key.url into a temporary directory, reads its primary keys with
// `gpg --show-keys --with-colons` (a throwaway GNUPGHOME: no keyring of the
// host is touched), and unless the file holds exactly one primary key whose
// fingerprint is key.fingerprint exits 1 before writing anything, printing
//   "<step>: <name> key <url> has fingerprint <found>, expected <fingerprint> (<source>); not trusted"
// (<found> = "none" for a file without a key, space-separated when several;
// <fingerprint> = "none published" when empty). Otherwise it writes that one
// key, exported by its fingerprint, to `dest` (mode 0644).
std::string VerifiedKeyScript(const VendorKey& key, const std::string& step, const std::string& dest,
                              KeyFormat format);

}  // namespace fvbench
