// Package installs that wait for the package manager's lock, and the
// process that holds it. Pure: builds argv and scripts, parses their output.
//
// Another process often holds the lock when fvbench installs: on a fresh
// cloud VM unattended-upgrades and apt-daily (Debian, Ubuntu) or
// dnf-automatic and PackageKit (RHEL, Amazon Linux) run for minutes after
// boot. Every install and index refresh (os_packages.h) therefore runs inside
// LockWaitArgv, which retries while a try fails on the lock, for at most
// `wait_s` seconds in all (Config::package_lock_wait_s,
// FVBENCH_PACKAGE_LOCK_WAIT_S, default 300):
//   apt: each try gets `-o DPkg::Lock::Timeout=<seconds left>`, so apt-get
//        itself waits for the dpkg frontend lock (apt >= 1.9.11). apt-get
//        update does not wait for /var/lib/apt/lists/lock (apt 2.6 fails in
//        0.1 s), nor does anything wait for /var/cache/apt/archives/lock:
//        those failures are tried again every 2 s.
//   dnf: `--setopt=exit_on_lock=True` (os_packages.h): dnf fails at once
//        ("... already locked by <pid>") instead of waiting without bound,
//        its default; tried again every 2 s. rpm waits for its own
//        transaction lock (/var/lib/rpm/.rpm.lock) by itself, within the
//        command's time-out.
// A try failed on the lock when its stderr (the commands run with LC_ALL=C)
// holds apt's "Could not get lock", "Unable to acquire the dpkg frontend
// lock", "Unable to lock directory" or dnf's "already locked by". When the
// time is up the wrapper prints the last try's stderr and exits
// kLockWaitExpired; any other result is the command's own.
//
// Who holds it: kLockHoldersScript prints "held=<lock file> <pid> <comm>" for
// each holder: fcntl/flock locks in /proc/locks on the lock files (matched by
// inode; pids as the host's /proc shows them) and dnf's pid-file locks whose
// process is alive.
#pragma once

#include <string>
#include <vector>

#include "support/sut/os_release.h"

namespace fvbench {

// The wrapper's exit status when the lock was still held after `wait_s`
// (EX_TEMPFAIL).
inline constexpr int kLockWaitExpired = 75;

// `sh -c <wrapper> fvbench-lock-wait <wait_s> <apt|dnf> <argv...>`: argv run
// as above. argv's words are the wrapper's arguments, never part of its text.
std::vector<std::string> LockWaitArgv(PackageFamily family, std::vector<std::string> argv, int wait_s);

// True for an argv LockWaitArgv made.
bool IsLockWaitArgv(const std::vector<std::string>& argv);

// The command an argv of LockWaitArgv runs (argv itself for any other), for
// messages.
std::vector<std::string> LockWaitedCommand(const std::vector<std::string>& argv);

// sh script: the holders of the apt, dpkg, rpm and dnf locks (above).
extern const char kLockHoldersScript[];

struct LockHolder {
  std::string file;  // the lock file, e.g. /var/lib/dpkg/lock-frontend
  int pid = 0;
  std::string comm;  // /proc/<pid>/comm, e.g. "unattended-upgr"; empty when gone
};

// kLockHoldersScript's output -> one entry per process (its first lock file),
// in order. Other lines are ignored.
std::vector<LockHolder> ParseLockHolders(const std::string& text);

// "process 1234 (unattended-upgr) holding /var/lib/dpkg/lock-frontend", several
// joined with ", "; "" for none.
std::string DescribeLockHolders(const std::vector<LockHolder>& holders);

}  // namespace fvbench
