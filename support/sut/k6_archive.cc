#include "support/sut/k6_archive.h"

#include <fmt/format.h>

#include "support/host/shell_quote.h"

namespace fvbench {

std::string K6ArchiveName(const K6Archive& a) { return fmt::format("k6-{}-linux-{}.tar.gz", a.version, a.arch); }

std::string K6ChecksumsName(const K6Archive& a) { return fmt::format("k6-{}-checksums.txt", a.version); }

std::string K6ArchiveInstallScript(const K6Archive& a, bool root) {
  const std::string name = K6ArchiveName(a);
  const std::string dir = fmt::format("k6-{}-linux-{}", a.version, a.arch);
  const std::string url = a.base_url + "/" + a.version + "/" + name;
  const std::string sums = a.base_url + "/" + a.version + "/" + K6ChecksumsName(a);
  // The checksum line is matched on the whole name (awk, not a regex), with
  // sha256sum's binary-mode '*' allowed, and rewritten for `sha256sum -c`.
  return fmt::format(
      "set -eu; name={name}; url={url}; sums={sums}\n"
      "tmp=$(mktemp -d); trap 'rm -rf \"$tmp\"' EXIT\n"
      "curl -fsSL --connect-timeout 10 --max-time 180 -o \"$tmp/$name\" -- \"$url\"\n"
      "curl -fsSL --connect-timeout 10 --max-time 60 -o \"$tmp/checksums.txt\" -- \"$sums\"\n"
      "awk -v n=\"$name\" '{{ f = $2; sub(/^\\*/, \"\", f) }} f == n {{ print $1 \"  \" n; exit }}' "
      "\"$tmp/checksums.txt\" > \"$tmp/want\"\n"
      "if [ ! -s \"$tmp/want\" ]; then echo \"k6 install: $sums has no line for $name; nothing was extracted or run\" >&2; "
      "exit 3; fi\n"
      "if ! (cd \"$tmp\" && sha256sum -c --status want); then "
      "echo \"k6 install: SHA-256 of $url does not match $sums; nothing was extracted or run\" >&2; exit 3; fi\n"
      "tar -xzf \"$tmp/$name\" -C \"$tmp\" {member}\n"
      "{sudo}install -m 0755 -- \"$tmp\"/{member} {dest}/k6\n",
      fmt::arg("name", ShellQuote(name)), fmt::arg("url", ShellQuote(url)), fmt::arg("sums", ShellQuote(sums)),
      fmt::arg("member", ShellQuote(dir + "/k6")), fmt::arg("sudo", root ? "" : "sudo -n "),
      fmt::arg("dest", ShellQuote(a.dest_dir)));
}

}  // namespace fvbench
