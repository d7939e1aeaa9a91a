// Installing k6 from its release archive, checked against the SHA-256
// checksum file k6 publishes with every release, before anything from the
// archive is extracted or run.
//
// Release assets (https://github.com/grafana/k6/releases/tag/v0.54.0):
//   <base>/<ver>/k6-<ver>-linux-<arch>.tar.gz    one directory k6-<ver>-linux-<arch>/ holding `k6`
//   <base>/<ver>/k6-<ver>-checksums.txt          sha256sum lines "<64 hex>  <asset name>"
// with base = https://github.com/grafana/k6/releases/download (K6_RELEASE_URL
// replaces it: a mirror, or file:///dir for an offline copy) and arch amd64
// or arm64.
#pragma once

#include <string>

namespace fvbench {

inline constexpr const char kK6ReleaseBase[] = "https://github.com/grafana/k6/releases/download";

struct K6Archive {
  std::string version;                      // "v0.54.0" (the tag, with its v)
  std::string arch;                         // "amd64" | "arm64" (detail::K6Arch)
  std::string base_url = kK6ReleaseBase;    // no trailing slash
  std::string dest_dir = "/usr/local/bin";  // where `k6` is installed (mode 0755)
};

// A POSIX sh script (run as `sh -c <script>` on the loadgen host, as the SSH
// user; only the final copy into dest_dir uses `sudo -n` when !root):
//   1. curl the archive and the checksum file into a fresh mktemp -d directory;
//   2. take the checksum file's line for the archive's name and `sha256sum -c` it;
//   3. only then extract k6 from the archive and `install -m 0755` it to dest_dir.
// Exit 0 on success. A missing line or a different checksum exits 3 with
// "k6 install: ..." on stderr, before step 3: nothing is extracted, installed
// or run. A download failure exits with curl's status. The temporary
// directory is removed in every case.
std::string K6ArchiveInstallScript(const K6Archive& archive, bool root);

// "k6-v0.54.0-linux-amd64.tar.gz", "k6-v0.54.0-checksums.txt".
std::string K6ArchiveName(const K6Archive& archive);
std::string K6ChecksumsName(const K6Archive& archive);

}  // namespace fvbench
