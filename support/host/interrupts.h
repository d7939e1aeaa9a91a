// Interrupts: what a long-running suite binary does on SIGINT, SIGTERM or
// SIGHUP (Ctrl-C, `ctest` cancelled, CI job cancelled) in the middle of a
// load phase: stop every process it started, then exit non-zero.
//
// InstallInterruptCleanup() must be called first in main(), before any other
// thread exists: it blocks the three signals in the calling thread (so every
// later thread inherits the mask) and starts one thread that waits for them
// with sigwait(). On a signal that thread
//   1. sends SIGTERM, then after 2 s SIGKILL, to the process group of every
//      child command still running (LocalHost::Run tracks them: the load
//      engine is one), and
//   2. runs the registered cleanups, newest first (SutServices registers its
//      StopAll; the scenario test registers saving what it has), then
//   3. exits with 128 + the signal number, as a shell would.
// Children get an empty signal mask (LocalHost spawns them so), so the mask
// never leaks into nginx or the engine.
#pragma once

#include <sys/types.h>

#include <functional>

namespace fvbench {

void InstallInterruptCleanup();

// Returns an id for UnregisterCleanup. Cleanups run on the interrupt thread;
// keep them bounded in time.
int RegisterCleanup(std::function<void()> fn);
void UnregisterCleanup(int id);

// Process groups of child commands that are running now.
void TrackChildGroup(pid_t pgid);
void UntrackChildGroup(pid_t pgid);

// The signal being handled, 0 when none (for messages in cleanups).
int InterruptSignal();

// Blocks the calling thread forever while an interrupt is being handled (the
// interrupt thread ends the process); returns at once otherwise.
void ParkIfInterrupted();

}  // namespace fvbench
