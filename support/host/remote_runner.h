// The command runner SshHost keeps on each host (ssh_host.h): one long-lived
// process per SSH session, started once through the login shell, that then
// runs every command and reads every file it is asked to over ONE exec
// channel, so a command costs a round trip and a fork/exec on the host, not
// a login shell (sshd runs every exec request through the user's login
// shell, and bash reads ~/.bashrc then: conda, nvm, pyenv...).
//
// The runner is kRunnerProgram, a Perl 5 program using builtins and Fcntl
// only (Debian's and Ubuntu's perl-base, Amazon Linux's perl-interpreter
// with perl-libs, which it requires, suffice); RunnerStartScript() starts it (`exec perl -e <program>`: the
// program is constant, no value of a command is in it). SshHost sends that
// script over the channel's stdin after the fixed bootstrap, as every script
// (remote_script.h). Without perl the start fails and SshHost runs each
// command on an exec channel of its own.
//
// Protocol, both directions: frames "<decimal length>\n<payload>", the
// payload a list of fields each "<decimal length>\n<bytes>" (any bytes).
// Every request carries an id (chosen by the controller) that its reply
// repeats; the runner serves several at once, replying as each ends.
//   runner -> controller, once:  hello, kRunnerVersion, <runner pid>
//   run:   run, <id>, <timeout ms; 0 = none>, <cwd; "" = the runner's>,
//          <argc>, argv..., then name, value pairs of the environment to add
//      -> run, <id>, <status>, <exit code>, <signal>, <timed out 0|1>, <stdout>, <stderr>
//          status: ok | nocwd <errno text> | notfound <errno text> | error <text>
//   read:  read, <id>, <max bytes>, path...
//      -> read, <id>, then per path a status and the contents (empty unless ok):
//          ok                     at most <max bytes> + 1 bytes of the file
//          big <size>             the file states more than <max bytes>: not read
//          type link | type directory | type special
//                                 not a regular file: refused, never opened
//          swapped                the file opened is not the one lstat saw
//          err <errno text>
// A command runs as Host::Run's contract says (host.h): argv executed
// without a shell (execvp: PATH lookup), the environment values and the cwd
// set in the child (never in any argv), stdin /dev/null, its own process
// group; stdout and stderr captured whole, separately; on timeout SIGTERM to
// the group, SIGKILL 2 s later; once it exited, SIGTERM to what is left of
// its group (background leftovers). When the channel ends (its stdin
// closes: controller gone, connection lost) the runner kills every running
// command's group and exits. A read reads each regular file, in the
// runner's process (no process starts for it), at once, also while
// commands run, as Host::ReadFile's contract says (host.h): lstat (only a
// regular file), open with O_NOFOLLOW | O_NONBLOCK (no link followed, no
// FIFO waited on), the handle's fstat the same file (device and inode),
// then at most <max bytes> + 1 bytes: the controller counts them against
// the file's cap (file_caps.h). The controller also bounds the reply frame
// itself (ReadReplyBound): a runner that sends more is not read further.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"
#include "support/host/host.h"

namespace fvbench::runner {

inline constexpr char kRunnerVersion[] = "fvbench-runner 3";

// The Perl program (see above).
extern const char kRunnerProgram[];

// The POSIX sh script that starts the runner: says "no perl" on stderr and
// exits 127 without one, else execs it.
std::string RunnerStartScript();

// One frame of `fields`.
std::string EncodeFrame(const std::vector<std::string>& fields);

// Takes one whole frame off the front of `buf`: its fields; nullopt when
// `buf` does not hold a whole frame yet; Err when it is malformed.
Result<std::optional<std::vector<std::string>>> TakeFrame(std::string& buf);

// The fields of the run request for `cmd`, without its id (Err: an empty
// argv, a NUL byte in a word, a bad environment name).
Result<std::vector<std::string>> RunRequest(const Command& cmd);
// At most max_bytes + 1 bytes of each path come back (a cap's max_bytes: one
// byte more shows the file is over it).
std::vector<std::string> ReadRequest(const std::vector<std::string>& paths, uint64_t max_bytes);
// The most bytes the payload of a reply to that request can hold.
uint64_t ReadReplyBound(size_t paths, uint64_t max_bytes);

// A frame's payload length and its first two fields (a reply's kind and id),
// known before the rest of it has arrived; nullopt while `buf` holds too
// little; Err when malformed.
struct FrameHead {
  size_t payload_bytes = 0;
  std::string kind;
  std::string id;
};
Result<std::optional<FrameHead>> PeekFrameHead(std::string_view buf);

// `request` with `id` as its second field, as one frame.
std::string WithId(std::vector<std::string> request, const std::string& id);
// The id of a reply (its second field) taken off it; nullopt without one.
std::optional<std::string> TakeId(std::vector<std::string>& reply);

// A run reply (its id taken off) as an ExecResult; Err for a start failure
// (status nocwd, notfound, error: `what` names the command) or a malformed
// reply.
Result<ExecResult> ParseRunReply(const std::vector<std::string>& fields, const std::string& what);

// A read reply (its id taken off): per path its contents or why not.
struct ReadOutcome {
  enum Kind { kOk, kError, kSymlink, kDirectory, kSpecial, kOverStated, kSwapped };
  Kind kind = kError;
  std::string contents;       // kOk: at most max bytes + 1
  std::string error;          // kError: "No such file or directory"
  uint64_t stated_bytes = 0;  // kOverStated: the size the host states
};
Result<std::vector<ReadOutcome>> ParseReadReply(const std::vector<std::string>& fields, size_t paths);

}  // namespace fvbench::runner
