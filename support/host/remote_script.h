// How SshHost hands a script to the remote login shell without putting any
// of it on a command line. Pure, no I/O.
//
// An SSH exec request becomes the argv of `<login shell> -c <request>` on the
// host, which any local user can read in `ps` / /proc/<pid>/cmdline for as
// long as that shell (and every subshell forked from it) lives. So the exec
// request is always kRemoteBootstrap, which holds no value, and the script
// (cd, exports, the command: everything that may carry a secret) travels
// over the channel's stdin as FramedScript(script):
//   <number of lines>\n<script, ending in \n>
// The bootstrap reads exactly that many lines with the shell's own `read`
// (POSIX: `read` consumes no byte past the newline, so on a pipe it reads
// byte by byte), refuses a short script (exit 126, nothing run), and runs
// the rest with `eval` in the same shell process: `$$` stays the login
// shell's pid, and whatever follows the script on stdin (more data, or the
// EOF a watchdog waits for) is the script's own stdin.
//
// The script's variables live in the shell's memory only; exported values
// reach the environment of the programs it starts, which /proc shows to
// their owner (and root) alone.
#pragma once

#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

inline constexpr char kRemoteBootstrap[] =
    "IFS= read -r _fvb_n || exit 126; _fvb_s=; _fvb_i=0; "
    "while [ \"$_fvb_i\" -lt \"$_fvb_n\" ] && IFS= read -r _fvb_l; do "
    "_fvb_s=\"$_fvb_s$_fvb_l\n\"; _fvb_i=$((_fvb_i + 1)); done; "
    "[ \"$_fvb_i\" -eq \"$_fvb_n\" ] || exit 126; unset _fvb_i _fvb_l _fvb_n; eval \"$_fvb_s\"";

// The channel's first bytes for `script`: its line count, then the script
// with a final newline added when it has none. Err for a NUL byte (a shell
// variable cannot hold one; the script would be cut short).
Result<std::string> FramedScript(std::string_view script);

}  // namespace fvbench
