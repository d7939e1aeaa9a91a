#include "support/host/dry_run_host.h"

#include <cstdio>

#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

// "cd DIR && K=v ... argv..." (prefixes only when set).
std::string CommandLine(const Command& cmd) {
  std::string line;
  if (!cmd.cwd.empty()) line += "cd " + ShellQuote(cmd.cwd) + " && ";
  for (const auto& [k, v] : cmd.env) line += k + "=" + ShellQuote(v) + " ";
  line += ShellJoin(cmd.argv);
  return line;
}

std::string Octal(int mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode) & 07777u);
  return buf;
}

}  // namespace

void DryRunPlan::add(std::string line) {
  std::lock_guard<std::mutex> lock(mu_);
  lines_.push_back(std::move(line));
}

std::vector<std::string> DryRunPlan::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::string DryRunPlan::text() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& l : lines_) out += l + "\n";
  return out;
}

int DryRunPlan::next_pid() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_pid_++;
}

DryRunHost::DryRunHost(std::string display_name, std::shared_ptr<DryRunPlan> plan)
    : name_(std::move(display_name)),
      plan_(plan ? std::move(plan) : std::make_shared<DryRunPlan>()) {}

void DryRunHost::Record(const std::string& op, const std::string& rest) {
  plan_->add("[" + name_ + "] " + op + ": " + rest);
}

Result<ExecResult> DryRunHost::Run(const Command& cmd) {
  if (cmd.argv.empty() || cmd.argv[0].empty())
    return Error{name_ + ": cannot run a command with an empty argv"};
  Record("run", CommandLine(cmd) + "  # timeout " + std::to_string(cmd.timeout.count()) + " ms");
  ExecResult r;
  r.exit_code = 0;
  return r;
}

Result<void> DryRunHost::WriteFile(const std::string& path, const std::string& content,
                                    int mode) {
  if (path.empty()) return Error{name_ + ": WriteFile: empty path"};
  Record("write", ShellQuote(path) + " (" + std::to_string(content.size()) + " bytes, mode " +
                      Octal(mode) + ")");
  return Ok();
}

Result<std::string> DryRunHost::ReadFile(const std::string& path, const FileCap&) {
  Record("read", ShellQuote(path) + " (dry run: nothing read)");
  return Error{name_ + ": cannot read " + path + ": dry run, nothing exists to read"};
}

Result<void> DryRunHost::Fetch(const std::string& remote_path, const std::string& local_path, const FileCap&) {
  Record("fetch", ShellQuote(remote_path) + " -> " + ShellQuote(local_path));
  return Ok();
}

Result<ServiceHandle> DryRunHost::StartService(const std::string& svc_name, const Command& cmd,
                                                const std::string& stdout_path,
                                                const std::string& stderr_path) {
  if (cmd.argv.empty() || cmd.argv[0].empty())
    return Error{name_ + ": cannot start service '" + svc_name + "' with an empty argv"};
  Record("start", svc_name + ": " + CommandLine(cmd) + " > " + ShellQuote(stdout_path) +
                      " 2> " + ShellQuote(stderr_path));
  ServiceHandle h;
  h.pid = plan_->next_pid();
  h.name = svc_name;
  h.stdout_path = stdout_path;
  h.stderr_path = stderr_path;
  std::lock_guard<std::mutex> lock(mu_);
  started_.insert(h.pid);
  running_.insert(h.pid);
  return h;
}

Result<void> DryRunHost::StopService(const ServiceHandle& svc, std::chrono::milliseconds) {
  const std::string what = "service '" + svc.name + "' (pid " + std::to_string(svc.pid) + ")";
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (svc.pid <= 1 || started_.count(svc.pid) == 0)
      return Error{name_ + ": refusing to stop " + what + ": not started by this host"};
    running_.erase(svc.pid);
  }
  Record("stop", svc.name + " pid " + std::to_string(svc.pid));
  return Ok();
}

bool DryRunHost::IsAlive(const ServiceHandle& svc) {
  std::lock_guard<std::mutex> lock(mu_);
  return running_.count(svc.pid) != 0;
}

Result<std::vector<ClockExchange>> DryRunHost::ExchangeClock(int rounds, std::chrono::milliseconds timeout) {
  Record("clock", std::to_string(rounds) + " readings of the wall clock over one command  # timeout " +
                      std::to_string(timeout.count()) + " ms");
  using std::chrono::system_clock;
  std::vector<ClockExchange> out;
  for (int i = 0; i < rounds; ++i) {
    const double now = std::chrono::duration<double, std::micro>(system_clock::now().time_since_epoch()).count();
    out.push_back({now, now, now});
  }
  return out;
}

}  // namespace fvbench
