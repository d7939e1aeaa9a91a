#include "support/host/interrupts.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace fvbench {
namespace {

std::mutex g_mu;
std::map<int, std::function<void()>> g_cleanups;
std::set<pid_t> g_groups;
int g_next_id = 1;
std::atomic<int> g_signal{0};
std::atomic<std::thread::id> g_handler{};

void OnSignal(int sig) {
  g_handler = std::this_thread::get_id();
  g_signal = sig;
  std::fprintf(stderr, "\nfvbench: interrupted by %s: stopping what the suite started\n", strsignal(sig));
  std::set<pid_t> groups;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    groups = g_groups;
  }
  for (pid_t g : groups) ::kill(-g, SIGTERM);
  for (int i = 0; i < 20 && !groups.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (auto it = groups.begin(); it != groups.end();) {
      it = (::kill(-*it, 0) != 0) ? groups.erase(it) : std::next(it);
    }
  }
  for (pid_t g : groups) ::kill(-g, SIGKILL);
  std::vector<std::function<void()>> fns;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto it = g_cleanups.rbegin(); it != g_cleanups.rend(); ++it) fns.push_back(it->second);
  }
  for (auto& fn : fns) fn();
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(128 + sig);
}

}  // namespace

void InstallInterruptCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
      int sig = 0;
      while (sigwait(&set, &sig) != 0) {
      }
      OnSignal(sig);
    }).detach();
  });
}

int RegisterCleanup(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(g_mu);
  int id = g_next_id++;
  g_cleanups[id] = std::move(fn);
  return id;
}

void UnregisterCleanup(int id) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_cleanups.erase(id);
}

void TrackChildGroup(pid_t pgid) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_groups.insert(pgid);
}

void UntrackChildGroup(pid_t pgid) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_groups.erase(pgid);
}

int InterruptSignal() { return g_signal.load(); }

void ParkIfInterrupted() {
  if (g_handler.load() == std::this_thread::get_id()) return;  // cleanups may run commands
  while (g_signal.load() != 0) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace fvbench
