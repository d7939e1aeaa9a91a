#include "support/judge/sut_timeline_series.h"

#include <algorithm>

namespace fvbench {
namespace {

bool Has(const detail::ProcSample& s, int pid) {
  return std::any_of(s.procs.begin(), s.procs.end(), [&](const detail::ProcStat& p) { return p.pid == pid; });
}

// Whether any of `pids` is in `a` (and, given, in `b` too).
bool HoldsAny(const std::vector<int>& pids, const detail::ProcSample& a, const detail::ProcSample* b = nullptr) {
  return std::any_of(pids.begin(), pids.end(), [&](int pid) { return Has(a, pid) && (b == nullptr || Has(*b, pid)); });
}

// A failed read holds no cpu line (the monitor's sut_ok / loadgen_ok).
const detail::ProcSample* Usable(const detail::ProcSample* s) { return s != nullptr && !s->cpus.empty() ? s : nullptr; }

// The services' pids held by `a` and not by `b`, both good SUT reads.
void AddExits(const SutTimelineParams& params, const SutTimelineSample& a, const SutTimelineSample& b,
              std::vector<SutProcessExit>& exits) {
  for (const SutTimelineService& svc : params.services) {
    for (int pid : svc.pids) {
      if (Has(*a.sut, pid) && !Has(*b.sut, pid)) {
        exits.push_back({svc.name, pid, a.epoch_us + params.clock_offset_us, b.epoch_us + params.clock_offset_us});
      }
    }
  }
}

}  // namespace

SutTimeline SutTimelineFromSamples(const std::vector<SutTimelineSample>& samples, const SutTimelineParams& params) {
  SutTimeline out;
  for (const SutTimelineService& s : params.services) out.services.push_back(s.name);
  for (size_t i = 1; i < samples.size(); ++i) {
    const SutTimelineSample& a = samples[i - 1];
    const SutTimelineSample& b = samples[i];
    SutTimelinePoint p;
    p.start_epoch_us = a.epoch_us + params.clock_offset_us;
    p.end_epoch_us = b.epoch_us + params.clock_offset_us;
    const detail::ProcSample* sa = Usable(a.sut);
    const detail::ProcSample* sb = Usable(b.sut);
    double ticks = 0;  // of one cpu over the window; 0: not known
    if (sa && sb) {
      p.sut_busy = detail::BusyFraction(sa->cpus, sb->cpus, params.sut_cpus);
      ticks = detail::ElapsedTicksPerCpu(sa->cpus, sb->cpus).value_or(0);
    }
    for (const SutTimelineService& svc : params.services) {
      std::optional<double> cpu, rss;
      if (ticks > 0 && HoldsAny(svc.pids, *sa, sb)) {
        cpu = detail::UsageBetween(svc.name, svc.pids, *sa, *sb, ticks, params.page_size).cpu_cores;
      }
      if (sb && HoldsAny(svc.pids, *sb)) rss = detail::RssMib(svc.pids, *sb, params.page_size);
      p.cpu_cores.push_back(cpu);
      p.rss_mib.push_back(rss);
    }
    const detail::ProcSample* la = Usable(a.loadgen);
    const detail::ProcSample* lb = Usable(b.loadgen);
    if (la && lb) p.loadgen_busy = detail::BusyFraction(la->cpus, lb->cpus, params.loadgen_cpus);
    out.points.push_back(std::move(p));
  }
  const SutTimelineSample* last_good = nullptr;
  for (const SutTimelineSample& s : samples) {
    if (Usable(s.sut) == nullptr) continue;
    if (last_good != nullptr) AddExits(params, *last_good, s, out.exits);
    last_good = &s;
  }
  return out;
}

}  // namespace fvbench
