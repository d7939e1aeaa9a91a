// The marker lines of OpenSSH known_hosts files, which libssh does not read:
//   @revoked <hosts> <keytype> <base64 key> [comment]
//   @cert-authority <hosts> <keytype> <base64 key> [comment]
// (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"). OpenSSH refuses a host whose key
// is @revoked, even when another line of the same file trusts it; a
// @cert-authority line trusts host certificates signed by that key, which
// fvbench's SSH layer (libssh) cannot check.
//
// <hosts> is matched as OpenSSH does (match_hostname, hostfile.c): a comma-
// separated list of patterns with * and ? wildcards, case-insensitive, a
// leading ! negating (a negated match excludes the host whatever else
// matches), "[host]:port" for a port other than 22, and hashed entries
// "|1|<base64 salt>|<base64 HMAC-SHA1(salt, name)>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fvbench {

struct KnownHostsMarker {
  std::string file;       // the known_hosts file, for messages
  size_t line = 0;        // 1-based
  std::string marker;     // "@revoked" or "@cert-authority"
  std::string key_type;   // e.g. "ssh-ed25519"
  std::string key_base64;
};

// The marker lines of `text` (the contents of known_hosts file `file`) whose
// host patterns match `host` at `port`. Unmarked lines and malformed lines
// are skipped (libssh reads those).
std::vector<KnownHostsMarker> MarkersFor(std::string_view text, const std::string& file, const std::string& host,
                                         int port);

// The first @revoked marker whose key is the server's key (type and base64
// equal), or nullptr.
const KnownHostsMarker* RevokedKey(const std::vector<KnownHostsMarker>& markers, const std::string& key_type,
                                   const std::string& key_base64);

}  // namespace fvbench
