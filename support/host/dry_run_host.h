// DryRunHost: a Host that touches nothing and records the plan (DRY_RUN=1).
//
// Every operation appends one human-readable line to a shared DryRunPlan, in
// call order, prefixed with the host's display name (e.g. "ubuntu@sut"):
//   [h] run: cd /dir && K=v taskset -c 0-3 nginx -p '/tmp/fv bench/run'  # timeout 300000 ms
//   [h] write: <path> (<n> bytes, mode 0644)
//   [h] read: <path> (dry run: nothing read)
//   [h] fetch: <remote> -> <local>
//   [h] start: <name>: [cd /dir && K=v ]<argv...> > <stdout> 2> <stderr>
//   [h] stop: <name> pid <pid>
// Words are ShellQuote'd (support/host/shell_quote.h), so the command part of a
// run/start line can be pasted into a shell. The "cd" and "K=v" prefixes
// appear only when cmd.cwd / cmd.env are set.
//
// Results: Run() succeeds with exit 0 and empty output; WriteFile and Fetch
// succeed; ReadFile returns an Error saying it is a dry run (callers must not
// base decisions on content that does not exist); StartService returns fake
// pids, increasing across every host sharing the plan (from 100001);
// StopService and IsAlive follow those fake pids like LocalHost does (a pid
// this host did not hand out, or <= 1, is refused with an Error).
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "support/host/host.h"

namespace fvbench {

// The ordered plan; shared by the dry-run hosts of one run. Thread-safe.
class DryRunPlan {
 public:
  void add(std::string line);
  std::vector<std::string> lines() const;
  // The lines joined, each ending in '\n'.
  std::string text() const;
  int next_pid();

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
  int next_pid_ = 100001;
};

class DryRunHost : public Host {
 public:
  DryRunHost(std::string display_name, std::shared_ptr<DryRunPlan> plan);

  std::string name() const override { return name_; }
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
  // Recorded ("clock: <rounds> readings over one command"); answers readings
  // of this machine's clock (offset 0).
  Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds timeout) override;

  const std::shared_ptr<DryRunPlan>& plan() const { return plan_; }

 private:
  void Record(const std::string& op, const std::string& rest);

  std::string name_;
  std::shared_ptr<DryRunPlan> plan_;
  std::mutex mu_;
  std::set<int> started_;  // fake pids handed out by this host
  std::set<int> running_;  // ... and not stopped yet
};

}  // namespace fvbench
