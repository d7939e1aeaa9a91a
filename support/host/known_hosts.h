// known_hosts files read as OpenSSH 9.2 reads them, and its host key decision
// (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"; hostfile.c and sshconnect.c
// check_host_key). No I/O: the caller reads the files and appends what
// DecideHostKey asks to record.
//
// Lines: "[@marker] <hosts> <keytype> <base64 key> [comment]"; blank lines and
// '#' comments skipped; a line whose key does not decode, or whose key type
// word does not name the key's own type, is skipped (as ssh skips it).
// <hosts> is matched as match_hostname does: comma-separated patterns with *
// and ?, case-insensitive, a leading ! excludes, "[host]:port" for a port
// other than 22, or a hashed name "|1|<base64 salt>|<base64 HMAC-SHA1>".
// Markers: @revoked (the key is refused for the hosts it names, whatever
// else trusts it), @cert-authority (the key signs host certificates).
//
// The decision (DecideHostKey), for the plain key the server showed:
//   - looked up as "[host]:port" (port 22: "host"), or as HostKeyAlias when set,
//     in every user file then every global file;
//   - a key no line names for "[host]:port", on a port other than 22 and
//     without HostKeyAlias, is looked up again as the bare host: a matching
//     line there trusts it (nothing recorded); a different key there does not
//     refuse it (it is then simply new);
//   - new: refused with StrictHostKeyChecking yes; recorded in the first user
//     file with accept-new and no (as "[host]:port", "host,address" with
//     CheckHostIP); refused when there is no user file;
//   - changed or @revoked: refused unless StrictHostKeyChecking no;
//   - CheckHostIP yes (host given by name, not loopback): the address is
//     looked up as well; a key recorded for the address that differs is
//     refused unless StrictHostKeyChecking no; an address not yet recorded is
//     recorded beside a trusted host.
// fvbench's SSH layer (libssh) negotiates plain host keys only, never host
// certificates: where a @cert-authority line names the host and its plain
// key is not trusted by a line of its own, the key is refused (OpenSSH might
// have accepted a certificate the server holds; fvbench cannot check one).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/host/ssh_target.h"

namespace fvbench {

// The contents of one known_hosts file.
struct KnownHostsText {
  std::string path;  // for messages and as the target of recorded lines
  std::string text;
};

enum class KnownHostsMarker { kNone, kCertAuthority, kRevoked };

// One parsed line whose hosts matched a looked-up name.
struct KnownHostsEntry {
  std::string path;
  size_t line = 0;  // 1-based
  KnownHostsMarker marker = KnownHostsMarker::kNone;
  std::string key_type;  // the key's own type, e.g. "ssh-ed25519"
  std::string key_blob;  // the decoded key (SSH wire format)
  std::string where() const { return path + ":" + std::to_string(line); }
};

// The host name ssh looks up: lower case, unless it is a numeric address.
std::string KnownHostsHostname(const std::string& host);

// OpenSSH's put_host_port: "host" for port 0 or 22, "[host]:port" otherwise.
std::string KnownHostsName(const std::string& host, int port);

// The lines of `file` whose hosts match `name` (a looked-up name, compared
// case-insensitively), in file order.
std::vector<KnownHostsEntry> KnownHostsEntriesFor(const KnownHostsText& file, const std::string& name);

// The key blob of a base64 text (as ssh_pki_export_pubkey_base64 and
// known_hosts write it); nullopt when it is not base64.
std::optional<std::string> KeyBlobFromBase64(std::string_view base64);

// A public key blob's type name (its first SSH string); empty when malformed.
std::string KeyBlobType(std::string_view blob);

// "SHA256:<unpadded base64>" of a key blob, as ssh-keygen -l prints it.
std::string KeyFingerprint(std::string_view blob);

// What one connection asks of the known_hosts files.
struct HostKeyQuery {
  std::string hostname;        // HostName as ssh uses it: lower case unless an address
  int port = 22;
  std::string host_key_alias;  // empty: none
  std::string address;         // the server's numeric address (getnameinfo); empty: unknown
  bool address_is_loopback = false;
  bool check_host_ip = false;
  bool hash_known_hosts = false;
  HostKeyChecking checking = HostKeyChecking::kYes;
  std::vector<KnownHostsText> user_files;    // UserKnownHostsFile, in order
  std::vector<KnownHostsText> global_files;  // GlobalKnownHostsFile, in order
  // Files that exist but could not be read: "path: why" (named in refusals).
  std::vector<std::string> unreadable;
};

struct HostKeyDecision {
  bool accepted = false;
  std::string refusal;  // why not (accepted == false); names file:line, the names looked up and what to do
  // Names to append, each on its own line with the key, to the first user
  // file (accept-new / no, and CheckHostIP's address). Lower case.
  std::vector<std::string> record;
  std::string trusted_by;  // "file:line" of the line that trusts the key, if any
};

// The decision for the plain key `key_blob` the server showed. `where`
// ("root@10.0.0.5:2222") and the key's description appear in refusals.
HostKeyDecision DecideHostKey(const HostKeyQuery& q, const std::string& key_blob, const std::string& where);

// The host key algorithms to offer, best first: OpenSSH's default plain-key
// list, reordered as order_hostkeyalgs does (left as is when the best one's
// key type is known for the host; else the known key types first).
std::string HostKeyAlgorithmsFor(const HostKeyQuery& q);

// One line for a known_hosts file: "<name> <type> <base64>\n"; the name
// hashed (|1|salt|HMAC-SHA1) when `salt` (20 bytes) is given.
std::string KnownHostsLine(const std::string& name, const std::string& key_blob,
                           const std::optional<std::string>& salt = std::nullopt);

}  // namespace fvbench
