#include "support/run/profile_phase.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "support/core/units_format.h"

namespace fvbench {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string RelativeTo(const std::string& base, const std::string& path) {
  fs::path rel = fs::path(path).lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") return path;
  return rel.generic_string();
}

LoadSpec PhaseSpec(const ProfileSetup& s, const std::string& suffix, double duration_s) {
  LoadSpec spec = s.base;
  spec.phase = s.phase_stem + "_profile_" + suffix;
  spec.rate_rps = s.rate_rps;
  spec.duration_s = duration_s;
  spec.count_ratelimit = false;  // not a measured result: no evidence counted
  return spec;
}

}  // namespace

double ProfileRate(const Config& c, bool throughput, const ScenarioResult& r) {
  if (!throughput) return c.latency_rps;
  const double confirmed = r.load.target_rps > 0 ? r.load.target_rps : r.throughput_rps;
  return confirmed > 0 ? c.profile.fraction * confirmed : 0;
}

ProfilePhaseFigures FiguresOf(const MeasuredPhase& phase, const std::string& service) {
  ProfilePhaseFigures f;
  f.measured = true;
  f.p99_us = phase.load.latency_us.p99;
  f.requests = phase.load.requests;
  for (const ServiceUsage& u : phase.sut_usage) {
    if (u.service == service && phase.load.achieved_rps > 0) {
      f.cpu_us_per_request = u.cpu_cores * 1e6 / phase.load.achieved_rps;
    }
  }
  return f;
}

ProfileResult RunProfilePhases(const ProfileSetup& setup, std::vector<std::unique_ptr<Profiler>> profilers,
                               const ProfileHooks& hooks) {
  ProfileResult out;
  out.profilers = setup.profilers;
  out.rate_rps = setup.rate_rps;
  out.duration_s = setup.duration_s;
  out.hz = setup.hz;
  out.cpu_service = setup.cpu_service;
  out.edge_dir = setup.edge_dir;
  auto say = [&](const std::string& line) { hooks.progress(fmt::format("{}: {}", setup.scenario_id, line)); };
  auto fail = [&](const std::string& what) {
    out.errors.push_back(what);
    say("profile: " + what);
  };
  if (!(setup.rate_rps > 0)) {
    fail("no rate to profile at (the scenario measured none); the profile phases did not run");
    return out;
  }
  std::vector<std::unique_ptr<Profiler>> ready;
  for (std::unique_ptr<Profiler>& p : profilers) {
    if (auto ok = p->Prepare(); !ok) {
      fail(fmt::format("{} profiler: {}", p->name(), ok.error().message));
    } else {
      ready.push_back(std::move(p));
    }
  }
  if (ready.empty()) {
    fail(profilers.empty() ? "no profiler of FVBENCH_PROFILE=" + setup.profilers + " is available; the profile phases did not run"
                           : "no profiler can run; the profile phases did not run");
    return out;
  }
  std::error_code ec;
  fs::remove_all(setup.local_dir, ec);  // the previous run's profiles of this scenario
  say(fmt::format("profile: {} RPS, {} s without and {} s with the profiler{} ({} Hz); not measured for the verdict",
                  detail::FormatNumber(setup.rate_rps), detail::FormatNumber(setup.duration_s),
                  detail::FormatNumber(setup.duration_s), ready.size() > 1 ? "s" : "", setup.hz));
  if (setup.warmup_s > 0) {
    if (auto w = hooks.warmup(PhaseSpec(setup, "warmup", setup.warmup_s)); !w) {
      fail("warmup: " + w.error().message);
    }
  }
  auto without = hooks.measure(PhaseSpec(setup, "without", setup.duration_s), "profile: without profiler", [] {});
  if (without) {
    out.without = FiguresOf(*without, setup.cpu_service);
  } else {
    fail("phase without profiler: " + without.error().message);
  }
  std::vector<Profiler*> started;
  auto start_all = [&] {
    for (std::unique_ptr<Profiler>& p : ready) {
      if (auto ok = p->Start(setup.duration_s); ok) {
        started.push_back(p.get());
      } else {
        fail(fmt::format("{} profiler: {}", p->name(), ok.error().message));
      }
    }
  };
  std::vector<std::string> names;
  for (const std::unique_ptr<Profiler>& p : ready) names.push_back(p->name());
  auto with = hooks.measure(PhaseSpec(setup, "with", setup.duration_s),
                            fmt::format("profile: with {}", fmt::join(names, "+")), start_all);
  if (with) {
    out.with = FiguresOf(*with, setup.cpu_service);
  } else {
    fail("phase with profiler: " + with.error().message);
  }
  for (Profiler* p : started) {
    ProfileFetch got = p->Finish(setup.local_dir);
    for (ProfileFile& f : got.files) {
      f.path = RelativeTo(setup.results_dir, f.path);
      say(fmt::format("profile: {} {} -> {}", f.level, f.service, f.path));
      out.files.push_back(std::move(f));
    }
    for (const std::string& e : got.errors) fail(fmt::format("{} profiler: {}", p->name(), e));
  }
  auto us = [](double v) { return std::isnan(v) ? std::string("?") : detail::FormatNumber(std::round(v * 10) / 10); };
  say(fmt::format("profile: p99 {} -> {} µs, {} CPU {} -> {} µs per request (without -> with the profiler)",
                  us(out.without.p99_us), us(out.with.p99_us), setup.cpu_service, us(out.without.cpu_us_per_request),
                  us(out.with.cpu_us_per_request)));
  return out;
}

}  // namespace fvbench
