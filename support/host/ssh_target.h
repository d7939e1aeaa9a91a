// SshTarget: where and how the suite connects to one remote host, resolved the
// way OpenSSH resolves it from a destination, SSH_OPTS and ~/.ssh/config.
// Pure: no I/O (the ~/.ssh/config loader that reads files is in ssh_host.h).
//
// Destination: "[user@]host[:port]"; host may be "[v6addr]" (then ":port"
// follows the bracket). A bare IPv6 address without brackets is taken whole.
//
// SSH_OPTS (the seed's variable, word-split on whitespace like the seed's
// unquoted `ssh ${SSH_OPTS}`; quotes are not interpreted): understood are
//   -o Key=Value   -oKey=Value   -o Key=Value   -o Key Value (two words)
//   -i file  -ifile   -p port  -pport   -l user  -luser
// Anything else (-J, -F, -4, -q, a stray word) is an Error naming the word.
// A -o key is classified like a config directive (below).
//
// ~/.ssh/config subset (ssh_config(5)): keywords case-insensitive, "Key Value"
// or "Key=Value", values may be double-quoted, '#' comments. Host blocks with
// patterns (*, ?, !negation, several per line) matched against the host as
// given (the alias, before HostName). Include (paths relative to ~/.ssh, globs)
// is expanded by the loader. Honoured: HostName (%h = the alias, %% = %),
// User, Port, IdentityFile (~ and %d = home, %u = local user, %h, %r = remote
// user), IdentitiesOnly, StrictHostKeyChecking (yes | accept-new | no | off |
// ask; ask behaves as yes: the suite never prompts), UserKnownHostsFile and
// GlobalKnownHostsFile (every file; "none" alone = no file; ${VAR} refused),
// HostKeyAlias, CheckHostIP, HashKnownHosts (known_hosts.h reads the files as
// OpenSSH does), ConnectTimeout (seconds), BatchMode (yes is what the suite
// does anyway; no is harmless).
// Refused loudly (Error "file:line: ProxyJump ...: not supported"), whenever
// they apply to the target: directives that change where or how the suite
// would connect and that it cannot honour: ProxyJump, ProxyCommand,
// RemoteCommand, BindAddress, BindInterface, CertificateFile,
// IdentityAgent, KnownHostsCommand, CanonicalizeHostname (other than no),
// AddressFamily (other than any), PubkeyAuthentication no, Tunnel (other than
// no), RevokedHostKeys, and any keyword ssh itself does not know (unless
// matched by IgnoreUnknown). "none" / "no" values that switch such a feature
// off are fine. Harmless directives (ServerAliveInterval, Compression,
// ForwardAgent, SendEnv, Ciphers, LogLevel, ControlMaster, ...) are ignored
// and listed in SshTarget::ignored. Match blocks cannot be evaluated: one holding
// only ignorable directives is ignored (listed); any other is refused.
//
// Precedence as ssh: the first value obtained wins — SSH_OPTS (-l/-p/-i/-o)
// first, then user@/:port of the destination, then the config file in order.
// IdentityFile accumulates (SSH_OPTS first). Unset values: user = the local
// user (resolved by the caller), port 22, StrictHostKeyChecking yes,
// UserKnownHostsFile ~/.ssh/known_hosts ~/.ssh/known_hosts2,
// GlobalKnownHostsFile /etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2,
// CheckHostIP no, HashKnownHosts no, identities ~/.ssh/id_{ed25519,ecdsa,rsa}
// (only if none was given), ConnectTimeout 0 = the caller's default.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

enum class HostKeyChecking { kYes, kAcceptNew, kNo };

// "yes" / "accept-new" / "no".
const char* HostKeyCheckingName(HostKeyChecking c);

struct SshDestination {
  std::string user;  // empty when not given
  std::string host;  // never empty; IPv6 without brackets
  int port = 0;      // 0 when not given
};

// Err names the destination and what is wrong (empty host, bad port, '@' twice).
Result<SshDestination> ParseDestination(const std::string& destination);

// One setting from a command line or a config file, keyword lower-cased.
struct SshSetting {
  std::string key;     // "hostname", "user", "port", "identityfile", ...
  std::string value;   // unquoted
  std::string origin;  // "SSH_OPTS" or "file:line", for messages
};

// SSH_OPTS as ssh would read it. Err names the word that is not understood.
Result<std::vector<SshSetting>> ParseSshOpts(const std::string& ssh_opts);

// A parsed ssh_config. Blocks in file order; settings before the first Host
// line belong to an implicit "Host *" block.
struct SshConfigBlock {
  enum class Kind { kHost, kMatch };
  Kind kind = Kind::kHost;
  std::vector<std::string> patterns;  // Host patterns (kHost) or the Match criteria words
  std::string origin;                 // "file:line" of the Host/Match line
  std::vector<SshSetting> settings;
};
struct SshConfig {
  std::vector<SshConfigBlock> blocks;
};

// Reads the file(s) an Include pattern names: (path, text) pairs, in glob
// order; an empty list when nothing matches (as ssh). The pattern has already
// had ~ expanded and is absolute.
using SshIncludeReader =
    std::function<Result<std::vector<std::pair<std::string, std::string>>>(const std::string&)>;

// Parses ssh_config text. `file` names the file in messages; `home` expands
// ~ in Include. Include is followed through `include` (depth <= 16); a null
// reader makes Include an Error. Err: "file:line: what".
Result<SshConfig> ParseSshConfig(const std::string& text, const std::string& file,
                                 const std::string& home, const SshIncludeReader& include = {});

// True when `host` matches the ssh pattern list (patterns with * and ?, a
// pattern starting with ! negates: any negated match -> false).
bool SshHostMatches(const std::vector<std::string>& patterns, const std::string& host);

struct SshTarget {
  std::string given;                 // the destination as the user wrote it; Host::name()
  std::string user;                  // empty = the caller's local user
  std::string host;                  // to connect to (HostName applied)
  int port = 22;
  std::vector<std::string> identity_files;  // ~ expanded; explicit ones first
  bool identities_only = false;      // IdentitiesOnly yes: no ssh-agent keys
  HostKeyChecking host_key_checking = HostKeyChecking::kYes;
  // UserKnownHostsFile (~ and % tokens expanded) and GlobalKnownHostsFile (~
  // expanded), every file, in order; empty for "none".
  std::vector<std::string> user_known_hosts_files;
  std::vector<std::string> global_known_hosts_files;
  std::string host_key_alias;        // HostKeyAlias, lower case; empty = none
  bool check_host_ip = false;        // CheckHostIP
  bool hash_known_hosts = false;     // HashKnownHosts: names recorded hashed
  int connect_timeout_s = 0;         // 0 = caller's default
  // Directives seen and deliberately ignored: "file:line: ServerAliveInterval".
  std::vector<std::string> ignored;
};

// Resolves a destination with SSH_OPTS settings and a config (may be empty).
// `home` expands ~ and %d; `local_user` expands %u. Err names the
// destination and the origin (SSH_OPTS or file:line) of a refused directive
// or a bad value (Port abc, StrictHostKeyChecking maybe).
Result<SshTarget> ResolveSshTarget(const std::string& destination,
                                   const std::vector<SshSetting>& ssh_opts,
                                   const SshConfig& config, const std::string& home,
                                   const std::string& local_user);

// Convenience for messages: "user@host:port".
std::string DescribeSshTarget(const SshTarget& t);

// OpenSSH's match_pattern (match.c), as Host lines and known_hosts names use
// it: `*` any run of characters, `?` one, ASCII case-insensitive (host names);
// no negation (callers strip a leading `!`).
bool SshPatternMatch(std::string_view pattern, std::string_view text);

}  // namespace fvbench
