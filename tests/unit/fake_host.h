// One fake Host for the unit tests (support/host/host.h), instead of a
// hand-written one per test file. It runs nothing:
//  - Run() answers by rules: the first rule whose needle is in the command
//    line (ShellJoin of argv; OnPrefix: at its start) answers, in the order
//    the rules were added; an unmatched command gets `unmatched` (exit 0, no
//    output, by default);
//  - WriteFile() keeps the file (and its mode: Modes()) in memory, ReadFile() and Fetch() read it
//    back (a missing file is an Error naming host and path; one over the cap
//    given is refused as the real hosts refuse it, Caps() lists the kinds); OnRead(path, fn)
//    makes ReadFile(path) answer what fn returns, call after call (a /proc
//    file that changes between reads); Fetch() copies
//    into `files` under the local path (and, with `fetch_to_disk`, also to
//    that path on this machine's disk, where the engines parse it);
//  - StartService() hands out pids 1000, 1001, ...; a service is alive until
//    StopService() (or Kill()); `fail_start` makes starts fail;
//  - ExchangeClock() answers readings of this machine's clock shifted by
//    `clock_offset_us`, each exchange taking `clock_delay_us` (the reading at
//    its midpoint); `fail_clock` makes it fail;
//  - every call is recorded, in order, in `events` ("run <command line>",
//    "write <path>", "read <path>", "fetch <path>", "start <name>",
//    "stop <name>", "clock <rounds>") and the commands in `calls`.
// Thread-safe (the phase monitor samples from its own thread); read the
// records after the code under test has returned, or through the accessors.
#pragma once

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/host/host.h"
#include "support/host/shell_quote.h"

namespace fvbench::testing_fakes {

class FakeHost : public Host {
 public:
  using Responder = std::function<Result<ExecResult>(const Command&)>;

  explicit FakeHost(std::string name = "test-host") : name_(std::move(name)) { unmatched.exit_code = 0; }

  // Commands containing `needle` answer `r` / what `fn` returns.
  void On(const std::string& needle, ExecResult r) {
    Add(needle, false, [r](const Command&) -> Result<ExecResult> { return r; });
  }
  void On(const std::string& needle, Responder fn) { Add(needle, false, std::move(fn)); }
  // Commands whose line starts with `prefix`.
  void OnPrefix(const std::string& prefix, ExecResult r) {
    Add(prefix, true, [r](const Command&) -> Result<ExecResult> { return r; });
  }
  void OnPrefix(const std::string& prefix, Responder fn) { Add(prefix, true, std::move(fn)); }
  // ReadFile(path) answers fn() on every call, before any stored file.
  using FileResponder = std::function<Result<std::string>()>;
  void OnRead(const std::string& path, FileResponder fn) {
    std::lock_guard<std::mutex> lock(mu_);
    file_rules_[path] = std::move(fn);
  }
  // Commands containing `needle` cannot be started: Run() returns an Error.
  void FailToStart(const std::string& needle, const std::string& message) {
    Add(needle, false, [message](const Command&) -> Result<ExecResult> { return Error{message}; });
  }
  static ExecResult Exit(int code, std::string out = "", std::string err = "") {
    ExecResult r;
    r.exit_code = code;
    r.out = std::move(out);
    r.err = std::move(err);
    return r;
  }

  // The answer to a command no rule matches.
  ExecResult unmatched;
  bool fail_start = false;   // StartService() returns an Error
  bool fail_writes = false;  // WriteFile() returns an Error
  bool fetch_to_disk = false;  // Fetch() also writes the local copy to disk
  double clock_offset_us = 0;  // ExchangeClock(): this host's clock - this machine's
  double clock_delay_us = 0;   // ExchangeClock(): each exchange's round trip
  bool fail_clock = false;     // ExchangeClock() returns an Error

  // Records.
  std::vector<Command> Calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  std::vector<std::string> Events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  // The cap kind (file_caps.h) of each ReadFile / Fetch, in call order.
  std::vector<std::string> Caps() const {
    std::lock_guard<std::mutex> lock(mu_);
    return caps_;
  }
  std::string Joined(size_t i) const { return ShellJoin(Calls().at(i).argv); }
  size_t Count(const std::string& needle) const {
    size_t n = 0;
    for (const Command& c : Calls()) n += ShellJoin(c.argv).find(needle) != std::string::npos;
    return n;
  }
  bool Ran(const std::string& needle) const { return Count(needle) > 0; }
  // The first command containing `needle` (a copy), or none.
  std::optional<Command> Find(const std::string& needle) const {
    for (const Command& c : Calls()) {
      if (ShellJoin(c.argv).find(needle) != std::string::npos) return c;
    }
    return std::nullopt;
  }
  // Index in Events() of the first event containing `needle`; -1 when none.
  int EventIndex(const std::string& needle) const {
    auto ev = Events();
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev[i].find(needle) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  }
  std::map<std::string, std::string> Files() const {
    std::lock_guard<std::mutex> lock(mu_);
    return files_;
  }
  // The mode each written file was given (WriteFile's `mode`).
  std::map<std::string, int> Modes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return modes_;
  }
  void SetFile(const std::string& path, const std::string& content) {
    std::lock_guard<std::mutex> lock(mu_);
    files_[path] = content;
  }
  void Kill(int pid) {
    std::lock_guard<std::mutex> lock(mu_);
    alive_.erase(pid);
  }

  // Host.
  std::string name() const override { return name_; }
  Result<ExecResult> Run(const Command& cmd) override {
    const std::string line = ShellJoin(cmd.argv);
    Responder fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.push_back(cmd);
      events_.push_back("run " + line);
      for (const Rule& r : rules_) {
        if (r.prefix ? line.rfind(r.needle, 0) == 0 : line.find(r.needle) != std::string::npos) {
          fn = r.fn;
          break;
        }
      }
    }
    if (fn) return fn(cmd);  // outside the lock: a responder may call back
    return unmatched;
  }
  Result<void> WriteFile(const std::string& path, const std::string& content, int mode) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back("write " + path);
    if (fail_writes) return Error{name_ + ": cannot write " + path + ": fake write failure"};
    files_[path] = content;
    modes_[path] = mode;
    return Ok();
  }
  Result<std::string> ReadFile(const std::string& path, const FileCap& cap) override {
    FileResponder fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      events_.push_back("read " + path);
      caps_.push_back(cap.kind);
      if (auto rule = file_rules_.find(path); rule != file_rules_.end()) fn = rule->second;
    }
    if (fn) return fn();  // outside the lock, as Run()'s responders
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) return Error{name_ + ": cannot read " + path + ": no such file"};
    if (it->second.size() > cap.max_bytes) return OverCap(path, cap, it->second.size());
    return it->second;
  }
  Result<void> Fetch(const std::string& remote_path, const std::string& local_path, const FileCap& cap) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back("fetch " + remote_path);
    caps_.push_back(cap.kind);
    auto it = files_.find(remote_path);
    if (it == files_.end()) return Error{name_ + ": cannot fetch " + remote_path + ": no such file"};
    if (it->second.size() > cap.max_bytes) return OverCap(remote_path, cap, it->second.size());
    files_[local_path] = it->second;
    if (fetch_to_disk) {
      std::ofstream out(local_path, std::ios::binary | std::ios::trunc);
      out << it->second;
      if (!out.flush()) return Error{name_ + ": cannot write the fetched copy " + local_path};
    }
    return Ok();
  }
  Result<ServiceHandle> StartService(const std::string& name, const Command& cmd, const std::string& stdout_path,
                                      const std::string& stderr_path) override {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(cmd);
    events_.push_back("start " + name);
    if (fail_start) return Error{name_ + ": cannot start " + name + ": fake start failure"};
    ServiceHandle h{next_pid_++, name, stdout_path, stderr_path};
    alive_.insert(h.pid);
    return h;
  }
  Result<void> StopService(const ServiceHandle& svc, std::chrono::milliseconds /*grace*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back("stop " + svc.name);
    alive_.erase(svc.pid);
    return Ok();
  }
  bool IsAlive(const ServiceHandle& svc) override {
    std::lock_guard<std::mutex> lock(mu_);
    return alive_.count(svc.pid) > 0;
  }
  Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds /*timeout*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back("clock " + std::to_string(rounds));
    if (fail_clock) return Error{name_ + ": clock readings: fake failure"};
    const double now =
        std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::vector<ClockExchange> out;
    for (int i = 0; i < rounds; ++i) {
      const double sent = now + i * clock_delay_us;
      out.push_back({sent, sent + clock_delay_us / 2 + clock_offset_us, sent + clock_delay_us});
    }
    return out;
  }

 private:
  struct Rule {
    std::string needle;
    bool prefix = false;
    Responder fn;
  };
  Error OverCap(const std::string& path, const FileCap& cap, size_t bytes) const {
    return Error{name_ + ": " + path + " (" + cap.kind + ") is over its cap of " + std::to_string(cap.max_bytes) +
                 " bytes: received " + std::to_string(bytes) + " bytes; refused, not kept"};
  }
  void Add(const std::string& needle, bool prefix, Responder fn) {
    std::lock_guard<std::mutex> lock(mu_);
    rules_.push_back({needle, prefix, std::move(fn)});
  }

  std::string name_;
  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::vector<Command> calls_;
  std::vector<std::string> events_;
  std::vector<std::string> caps_;
  std::map<std::string, std::string> files_;
  std::map<std::string, int> modes_;
  std::map<std::string, FileResponder> file_rules_;
  std::set<int> alive_;
  int next_pid_ = 1000;
};

}  // namespace fvbench::testing_fakes
