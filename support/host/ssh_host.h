// SshHost: the Host contract (support/host/host.h) on a remote machine over SSH
// (libssh 0.10; a command runner or exec channels for commands, SFTP for files).
//
// Connect: TCP + SSH handshake bounded by the connect timeout (the target's
// ConnectTimeout, else SshConnectOptions::connect_timeout). The host key is
// checked as OpenSSH checks it (known_hosts.h) against every file of
// target.user_known_hosts_files and target.global_known_hosts_files, with
// HostKeyAlias, CheckHostIP and target.host_key_checking:
//   yes        unknown, changed or @revoked key refused; the Error shows the
//              key's SHA256 fingerprint, the names looked up and the files.
//   accept-new unknown key appended to the first user file ("[host]:port"
//              for a port other than 22, hashed with HashKnownHosts);
//              changed or @revoked key refused.
//   no         any key accepted; an unknown one is recorded (as ssh does).
// The host key algorithms offered are ordered as ssh orders them for the
// key types known_hosts holds for the host.
// Authentication (publickey only): ssh-agent keys (SSH_AUTH_SOCK; skipped
// when IdentitiesOnly), then each identity file that exists (unencrypted or
// agent-held; passphrases are never asked). Err lists what was tried.
// libssh's own ~/.ssh/config processing is switched off: the config has
// already been applied (and checked) by ResolveSshTarget.
//
// Commands: through the command runner (remote_runner.h): one process per
// session, started on the first command through the login shell (its only
// login shell), then a command costs a round trip and a fork/exec on the
// host; its argv, environment and cwd travel as frames over the runner's
// channel, never in an exec request or an argv. ReadFile goes through it too
// (one round trip, no process started), IsAlive with it. runner_note() says
// which path is taken. Without perl on the host (or with
// SshConnectOptions::command_runner false), or when the runner breaks and
// cannot start again, each command takes an exec channel of its own.
//
// Exec channels (the runner's own and each command's without it): every exec
// request is the fixed bootstrap of support/host/remote_script.h, which holds
// no value; the script itself (the runner's start script; a command's cd,
// exports, argv) travels over the channel's stdin, so the login shell's
// and its subshells' command lines (`ps`, /proc/<pid>/cmdline) hold none of
// it: a command's env values and cwd are on no command line of the host, and
// its argv only on its own (secrets go in env: host.h). (A login shell
// whose startup files read stdin would eat the script: the bootstrap then
// refuses to run a short one, exit 126.) The login shell must be a POSIX
// shell (sh, bash, dash, ksh, zsh).
//
// Run(cmd) on an exec channel: the script is
//   printf '\001fvbench-pgid %s\n' $$ >&2          (marker line, see below)
//   exec 3<&0; { cat >/dev/null; kill -TERM -- -$$; } <&3 >/dev/null 2>&1 &
//   exec 3<&-
//   cd <cwd> || marker nocwd; export K=V...; command -v <argv0> || marker notfound
//   exec <argv> </dev/null
// with every word quoted by ShellQuote (support/host/shell_quote.h), so arguments
// with spaces, quotes, $, ;, newlines, backslashes reach argv byte-exact;
// cmd.env reaches the command's environment only.
// OpenSSH (and Dropbear) start the session's shell in a new session, so
// `$$` is the id of the command's process group; the marker lines are taken
// off ExecResult::err (nocwd / notfound become Errors). The command's stdin is
// /dev/null; the channel's stdin stays open after the script and feeds the
// watchdog, which sends SIGTERM to the process group when the channel ends:
// a command the controller abandons (controller killed, Ctrl-C, connection
// lost) does not outlive it, and background leftovers of a finished command
// are ended when Run() closes the channel (long-lived processes belong in
// StartService). stdout and stderr are read until the channel's EOF (non-blocking polling, any volume on
// both streams); then the exit status is taken only from the exit-status
// message (or exit-signal: term_signal = the signal's number, exit_code -1).
// A channel that closes without either is an Error, never exit 0. On timeout
// (cmd.timeout > 0): a second channel sends SIGTERM to the process group,
// SIGKILL 2 s later if it is still there, the first channel is closed, and
// the result has timed_out = true, exit_code -1 and the output read so far.
// Err when the channel could not be opened or broke (names host and argv[0]).
// Opening the channel and the exec request are bounded by min(cmd.timeout,
// io_timeout) ("no answer from the ssh server within N ms"); the kill after a
// timeout by 15 s. A NUL byte in argv, an env value or cwd is an Err naming
// the word (a shell word or argv string cannot hold it: it would be cut short).
//
// Files over SFTP: WriteFile creates missing parent directories (mkdir -p),
// writes a temp file ".<name>.tmp.<random>" beside the target, sets `mode`,
// checks its size, renames it over the target (SFTP v3 rename refuses an
// existing target and libssh 0.10 cannot send posix-rename@openssh.com, so
// an existing target is replaced by `mv -f` (rename(2)), by the runner or an
// exec channel). Fetch over SFTP (ReadFile too, without the runner) lstats
// the remote file (only a regular file: a symbolic link, directory or
// special file is refused), opens it and checks the handle's fstat shows
// the same regular file, then reads in a loop until EOF; a short read is not
// EOF, a total that ends before the stat size is an Error (truncated), and
// more than the cap (file_caps.h) is refused, counted on the bytes received.
// ReadFile through the runner (and Fetch without SFTP) makes the same
// checks in the runner (lstat, O_NOFOLLOW | O_NONBLOCK, fstat: the same
// file), which sends at most the cap and one byte; the controller counts
// them, and reads no reply frame larger than that can be
// (runner::ReadReplyBound). Without SFTP or the runner, an exec channel's
// script refuses by type and stated size and `head -c` sends at most the cap
// and one byte. Every path refuses in the same words, naming the host, the
// path, the kind of file, its cap and the bytes. Fetch writes the local copy
// through LocalCopy (local_copy.h: a new file renamed into place, mode 0644
// less the umask, never the remote mode). Other errors name the host, the
// path and the SFTP status (or errno) text.
//
// Services: StartService runs, through the runner (`sh -c`, the environment
// and cwd set by the runner) or else over an exec channel (the script over
// stdin, as above),
//   mkdir -p <log dirs>; cd <cwd>; export K=V...
//   setsid -- <argv> </dev/null >><stdout> 2>><stderr> & echo $!
// so the service is its own session and process-group leader (pid == pgid),
// has no tie to the SSH session (survives its end) and the host records the
// pid. StopService (only pids this SshHost started, across Reconnect):
// SIGTERM to the group, up to `grace`, SIGKILL, then verify that no live
// (non-zombie) process of the group remains (/proc). IsAlive: its
// /proc/<pid>/stat read over SFTP shows a state other than zombie or dead
// (detail::ProcStatAlive; no process starts on the host), or, on a server
// without SFTP, `kill -0` on the pid and the same state check.
//
// Thread-safety: one SSH session per SshHost; every public method locks one
// mutex, so concurrent calls are safe and run one at a time, except Run()
// and ReadFile() through the runner: they let the mutex go while they wait
// for the runner's reply, so commands and reads of several threads run at
// once on the host (Disconnect and Reconnect wait for them).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "support/host/host.h"
#include "support/core/result.h"
#include "support/host/ssh_target.h"

namespace fvbench {

class SshRunner;

struct SshConnectOptions {
  // Used when the target has no ConnectTimeout.
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // Bound on any single blocking SSH/SFTP operation after connecting
  // (a stalled transfer, an unanswered channel request).
  std::chrono::milliseconds io_timeout{std::chrono::seconds(60)};
  // A link on which the peer acknowledges nothing for this long is declared
  // dead by the kernel (TCP keepalive + TCP_USER_TIMEOUT on the socket): a
  // running command then fails with "connection lost while the command ran:
  // ... Connection timed out" instead of waiting out its own timeout.
  // 0 = off. (A stopped sshd on a live host is not a dead link: the host's
  // kernel still acknowledges; io_timeout and the command timeout bound it.)
  std::chrono::milliseconds dead_link_timeout{std::chrono::seconds(15)};
  // Commands (and reads) through one runner process per session
  // (remote_runner.h); false: each command on an exec channel of its own.
  bool command_runner = true;
  // The script that starts the runner; empty: runner::RunnerStartScript()
  // (tests give one that fails, to see the fallback).
  std::string runner_start_script;
};

// Resolves `destination` with SSH_OPTS and the user's ssh config (I/O: reads
// `config_path`, default $HOME/.ssh/config when it exists, following Include).
// Err as ResolveSshTarget / ParseSshOpts / ParseSshConfig, or the file that
// could not be read.
Result<SshTarget> LoadSshTarget(const std::string& destination, const std::string& ssh_opts,
                                const std::string& config_path = "");

class SshHost : public Host {
 public:
  // Err names the target ("root@10.213.1.2: ...") and the step (connect,
  // host key, auth, sftp).
  static Result<std::unique_ptr<SshHost>> Connect(const SshTarget& target,
                                                  const SshConnectOptions& options = {});
  SshHost(const SshHost&) = delete;
  SshHost& operator=(const SshHost&) = delete;
  // Disconnects. Services keep running on the host.
  ~SshHost() override;

  std::string name() const override { return target_.given; }
  const SshTarget& target() const { return target_; }

  Result<ExecResult> Run(const Command& cmd) override;
  Result<void> WriteFile(const std::string& path, const std::string& content,
                          int mode = 0644) override;
  Result<std::string> ReadFile(const std::string& path, const FileCap& cap) override;
  Result<void> Fetch(const std::string& remote_path, const std::string& local_path,
                     const FileCap& cap) override;
  Result<ServiceHandle> StartService(const std::string& name, const Command& cmd,
                                      const std::string& stdout_path,
                                      const std::string& stderr_path) override;
  Result<void> StopService(const ServiceHandle& svc,
                            std::chrono::milliseconds grace = std::chrono::seconds(10)) override;
  bool IsAlive(const ServiceHandle& svc) override;
  // One exec channel running, through the login shell, a loop that answers
  // each line on its stdin with the host's clock (clock_gettime, which the
  // engines read: perl's Time::HiRes, else `date +%s%N`), after a ready line
  // (so the shell's start is in no exchange). Each exchange is timed by
  // this process's system clock right before writing and right after the
  // answer's line arrived. Err names the host (no answer within `timeout`,
  // an unreadable reading).
  Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds timeout) override;

  // Ends the SSH session (services keep running); later calls fail until
  // Reconnect(). Reconnect() opens a new session with the same target and
  // options and keeps the record of started services.
  void Disconnect();
  Result<void> Reconnect();
  bool connected() const;
  // How commands reach the host: through the runner, or each on an exec
  // channel of its own and why; "" before the first command.
  std::string runner_note() const;

  // Copies a local file to the host (SFTP, same checks as WriteFile,
  // streamed: no need to hold it in memory).
  Result<void> put(const std::string& local_path, const std::string& remote_path,
                   int mode = -1 /* -1: the local file's permission bits */);

 private:
  struct Session;  // libssh handles
  SshHost(SshTarget target, SshConnectOptions options);
  Result<void> ConnectLocked();
  Result<ExecResult> RunLocked(const Command& cmd);
  SshRunner* RunnerLocked();
  // With `lock` (the caller's on mu_), the lock goes while the command runs.
  Result<ExecResult> RunByRunnerLocked(const Command& cmd, SshRunner& r, std::unique_lock<std::mutex>* lock = nullptr);
  // max_reply_bytes, oversized: SshRunner::Call's.
  Result<std::vector<std::string>> CallRunnerLocked(SshRunner& r, const std::vector<std::string>& request,
                                                    std::chrono::milliseconds bound, std::unique_lock<std::mutex>* lock,
                                                    uint64_t max_reply_bytes = 0, uint64_t* oversized = nullptr);
  // A script that holds no value of a command (pids, paths; not an env value
  // or cwd): through the runner as `sh -c <script>`, else an exec channel.
  Result<ExecResult> RunShLocked(const std::string& script, std::chrono::milliseconds timeout);
  // On an exec channel of its own, never the runner: the exec request is the
  // bootstrap, the script goes over the channel's stdin (remote_script.h); after it,
  // keep_stdin_open: the channel's stdin stays open until the channel ends
  // (Run()'s watchdog reads it); otherwise EOF is sent at once.
  // stdin_source: when set, its chunks are the channel's stdin (until it
  // returns 0), then EOF; keep_stdin_open is then ignored.
  using ChunkSource = std::function<Result<size_t>(char*, size_t)>;
  Result<ExecResult> RunScriptLocked(const std::string& script, std::chrono::milliseconds timeout,
                                     bool keep_stdin_open = false, const ChunkSource* stdin_source = nullptr);
  // After a command's timeout: kills its remote process group, named by the
  // shell's marker in the command's stderr `err` (RunScriptLocked's step 3);
  // appends to `err` what is left.
  Result<void> KillTimedOutLocked(std::string& err);
  // File transfer for servers without the sftp subsystem (exec allowed):
  // `cat` over an exec channel, written to a temporary file and renamed.
  // Used only after sftp_init failed on this session.
  bool SftpMissingLocked();
  Result<void> WriteByExecLocked(const std::string& path, int mode, const ChunkSource& next);
  Result<std::string> ReadByExecLocked(const std::string& path, const FileCap& cap);
  // A read through the runner (the lock goes while it waits, when given):
  // its contents or its refusal; nullopt when there is no runner or it broke
  // (another path then reads).
  Result<std::optional<std::string>> ReadByRunnerLocked(const std::string& path, const FileCap& cap,
                                                        std::unique_lock<std::mutex>* lock);
  // ReadFile under mu_ (`lock`, when given, goes while the runner reads).
  Result<std::string> ReadFileLocked(const std::string& path, const FileCap& cap,
                                     std::unique_lock<std::mutex>* lock = nullptr);

  SshTarget target_;
  SshConnectOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<Session> s_;
  std::set<int> services_;  // every pid StartService returned
  std::string runner_note_;  // runner_note()
  int calls_in_flight_ = 0;             // runner calls waiting (with mu_ released or not)
  std::condition_variable calls_done_;  // signalled when none is
};

namespace detail {
// A /proc/<pid>/stat line of a live process: its state (the field after the
// last ')', since the comm may hold one) is not Z (zombie) or X (dead).
// IsAlive reads it over SFTP; false for a line without that field.
bool ProcStatAlive(std::string_view stat);
}  // namespace detail

}  // namespace fvbench
