// What a value from the environment may look like when fvbench passes it to
// a command (git, curl, nginx configs, URLs): LoadConfig (config.h) checks
// every such value with these before any host is touched, and provisioning
// decides URL-or-path with IsGitUrl. Pure.
//
// The rule behind all of them: a value never reaches a tool as an option.
// Commands get `--` before positionals where the tool has it, and on top of
// that no value accepted here starts with '-', holds whitespace or control
// characters, or is "a URL" merely because it contains "://".
//
// Each Err names the variable and the value, e.g.
//   "FAIRVISOR_EDGE_SRC='--upload-pack=touch /x;#://': starts with '-', so git would read it as an option; ..."
#pragma once

#include <string>

#include "support/core/result.h"

namespace fvbench {

enum class EdgeSourceKind { kUrl, kPath };

// FAIRVISOR_EDGE_SRC (and its twin _B): a git URL or an absolute path.
//   URL:  <scheme>://<authority>/<path> with scheme https, http, ssh, git,
//         git+ssh or ssh+git and a host name or [IPv6 address] (optionally
//         user@ and :port) that does not start with '-'; or file:///<path>
//         (file://localhost/<path>); or scp-like user@host:path (user, host
//         and path not starting with '-'; no '/' before the ':', as git reads
//         it). No other "transport" (ext::, fd::, <helper>::) is a URL.
//   path: starts with '/'. git reads an absolute path as a local path
//         whatever ':' it holds (git takes host:path only when the ':' comes
//         before the first '/', and <transport>:: only from a name starting
//         with a letter), so ':' is allowed.
// Anything else, and anything holding whitespace or control characters, is
// an Err naming `var`.
Result<EdgeSourceKind> CheckEdgeSource(const char* var, const std::string& value);

// True for a value CheckEdgeSource accepts as a URL.
bool IsGitUrl(const std::string& value);

// FAIRVISOR_EDGE_REF (and _B): a branch, tag or commit as
// git-check-ref-format(1) allows one, and never option-shaped: not starting
// with '-', '/' or '.', no whitespace, control characters or any of ~ ^ : ? * [ \,
// no "..", "@{" or "//", not "@", not ending with '/', '.' or ".lock".
// Empty is accepted (the clone's default branch).
Result<void> CheckGitRef(const char* var, const std::string& value);

// FAIRVISOR_TARGET_HOST, FV_LISTEN_ADDR: a host name or an IP address
// (IPv6 with or without brackets) as it goes into URLs and nginx's listen:
// letters, digits and . - _ : [ ] only, not starting with '-' or '.'.
Result<void> CheckHostAddress(const char* var, const std::string& value);

// K6_RELEASE_URL: an https://, http:// or file:/// URL (the base curl
// downloads from): no whitespace, control characters or quotes.
Result<void> CheckDownloadUrl(const char* var, const std::string& value);

// An ssh destination [user@]host[:port] of FAIRVISOR_REMOTE / LOADGEN_REMOTE:
// neither it nor its host (after the last '@') starts with '-'. The rest of
// its syntax is the ssh layer's (host/ssh_target.h ParseDestination).
Result<void> CheckSshDestination(const char* var, const std::string& value);

}  // namespace fvbench
