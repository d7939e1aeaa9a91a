#include "support/judge/throughput_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "support/core/outcomes.h"
#include "support/core/units_format.h"
#include "support/judge/repeats.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

enum class StepOutcome { kPass, kFail, kError, kNoBudget, kEngineLimited };

class Search {
 public:
  Search(const ThroughputSearchParams& p, const SearchStepFunction& run) : p_(p), run_(run) {
    runs_ = std::max(1, p_.confirm_runs);
    budget_ = SearchLoadBudget(p_);
  }

  SearchOutcome Run() {
    Bracket();
    if (stopped_) return Finish();
    if (pass_ && fail_) Bisect();
    if (stopped_ || !pass_) return Finish();
    Confirm();
    return Finish();
  }

 private:
  // Load still allowed after `keep` seconds are set aside.
  bool Fits(double dur, double keep) const { return out_.load_s + dur + keep <= budget_ + 1e-9; }

  // `retry`: the step itself ran and failed marginally; its retry did not fit.
  std::string BudgetReason(const char* role, double target, double dur, double keep, bool retry = false) const {
    std::string s = fmt::format("budget: {} {} step at {} RPS ({} s) would exceed THROUGHPUT_BUDGET_S={} s "
                                "(used {} s",
                                retry ? "the retry of a" : "a", role, FormatNumber(target), FormatNumber(dur),
                                FormatNumber(p_.budget_s), FormatNumber(out_.load_s));
    if (keep > 0) s += fmt::format(", {} s kept for the confirmation", FormatNumber(keep));
    return s + ")";
  }

  // One run at `target`; records it. kError when run_step failed.
  StepOutcome RunOnce(double target, double dur, const char* role, int attempt) {
    StepRequest req;
    req.target_rps = target;
    req.duration_s = dur;
    req.index = static_cast<int>(out_.steps.size());
    req.role = role;
    auto r = run_(req);
    out_.load_s += r.ok() ? std::max(dur, r->load.wall_s) : dur;  // the wall time of the load, when measured
    StepResult s;
    s.target_rps = target;
    s.role = role;
    if (!r.ok()) {
      s.passed = false;
      s.verdict = fmt::format("fail: engine error: {}", r.error().message);
      s.load.target_rps = target;
      out_.error = r.error().message;
      out_.stop_reason = fmt::format("engine error at {} RPS", FormatNumber(target));
      out_.steps.push_back(std::move(s));
      stopped_ = true;
      return StepOutcome::kError;
    }
    StepVerdict v = JudgeStep(*r, p_.rule);
    s.passed = v.passed;
    s.verdict = std::move(v.text);
    s.load = std::move(r->load);
    s.validity = std::move(r->validity);
    s.sut_usage = std::move(r->sut_usage);
    s.sut_timeline = std::move(r->sut_timeline);
    if (attempt > 0) s.verdict += fmt::format(" (attempt {} after a marginal failure)", attempt + 1);
    StepOutcome o = s.passed ? StepOutcome::kPass : StepOutcome::kFail;
    if (!s.passed) {
      if (auto why = EngineLimitedReason(s.load, p_.rule)) {
        s.verdict += "; engine-limited: " + *why;
        s.engine_limited = true;
        o = StepOutcome::kEngineLimited;
      } else {
        UpdateKnee(s.load);
      }
    }
    out_.steps.push_back(std::move(s));
    return o;
  }

  // Runs one step at `target` (a marginally failing bracket / bisect step up
  // to 1 + retries times). `keep`: seconds that must remain for later runs.
  StepOutcome Step(double target, double dur, const char* role, double keep, int retries) {
    for (int attempt = 0; attempt <= retries; ++attempt) {
      if (!Fits(dur, keep)) {
        if (out_.stop_reason.empty()) out_.stop_reason = BudgetReason(role, target, dur, keep, attempt > 0);
        return StepOutcome::kNoBudget;
      }
      StepOutcome o = RunOnce(target, dur, role, attempt);
      if (o == StepOutcome::kEngineLimited) return EngineLimited(target, dur, role, keep);
      if (o != StepOutcome::kFail) return o;
      if (!MarginalFailure(out_.steps.back().load, p_.rule)) return o;
    }
    return StepOutcome::kFail;
  }

  // The engine, not the SUT, was the limit at `target`: stop searching. With
  // no pass yet, one step at 90 % of what the engine managed gives a clean one.
  StepOutcome EngineLimited(double target, double dur, const char* role, double keep) {
    out_.engine_limited = true;
    stopped_ = true;
    const double managed = out_.steps.back().load.achieved_rps;
    out_.stop_reason = fmt::format("engine-limited at {} RPS: the load generator, not the SUT, was the limit "
                                   "(it sent {} RPS); add load generators or cores",
                                   FormatNumber(target), FormatNumber(std::round(managed)));
    const double next = std::floor(0.9 * managed);
    if (!pass_ && next >= std::max(1.0, p_.min_rps) && next < target && Fits(dur, keep)) {
      if (RunOnce(next, dur, role, 0) == StepOutcome::kPass) NotePass(next);
    }
    return StepOutcome::kEngineLimited;
  }

  // A step that fell short of its target shows what the SUT could serve.
  void UpdateKnee(const LoadResult& l) {
    if (l.target_rps <= 0 || l.achieved_rps >= p_.rule.min_achieved_fraction * l.target_rps) return;
    double served = l.achieved_rps;
    if (l.sut_served_rps && *l.sut_served_rps > 0) served = std::min(served, *l.sut_served_rps);
    if (served >= 1) knee_ = served;
  }

  double SearchKeep() const { return runs_ * p_.confirm_dur_s; }

  void NoteFail(double target) { fail_ = fail_ ? std::min(*fail_, target) : target; }
  void NotePass(double target) { pass_ = pass_ ? std::max(*pass_, target) : target; }
  bool Done(StepOutcome o) const {
    return o == StepOutcome::kError || o == StepOutcome::kNoBudget || o == StepOutcome::kEngineLimited;
  }

  // Probes (or, without probes, bracket steps) until a pass and a fail are
  // known, or the cap passes.
  void Bracket() {
    const bool probing = p_.probe_dur_s > 0;
    const double dur = probing ? p_.probe_dur_s : p_.step_dur_s;
    const char* role = probing ? "probe" : "bracket";
    const double cap = std::max(1.0, std::floor(p_.cap_rps));
    double rate = p_.start_rps > 0 ? p_.start_rps : p_.cap_rps / 8;
    rate = std::clamp(std::floor(rate), 1.0, cap);
    while (true) {
      StepOutcome o = Step(rate, dur, role, SearchKeep(), p_.retries);
      if (Done(o)) return;
      if (o == StepOutcome::kPass) {
        NotePass(rate);
        if (rate >= cap) {
          at_cap_ = true;
          return;
        }
      } else {
        NoteFail(rate);
      }
      if (pass_ && fail_) return;
      if (pass_) {
        rate = std::min(rate * 2, cap);
        continue;
      }
      // Nothing passed yet: below the knee estimate, else half the rate.
      double next = knee_ ? std::floor(*knee_ * 0.9) : std::floor(rate / 2);
      if (next >= rate) next = std::floor(rate / 2);
      if (next < std::max(1.0, p_.min_rps)) {
        out_.stop_reason = fmt::format("no step passed down to {} RPS", FormatNumber(*fail_));
        return;
      }
      rate = next;
    }
  }

  // The next bisect target strictly inside (pass, fail), or 0 when none:
  // just under a knee estimate not tried yet; from a pass at or above the
  // estimate, one resolution up (doubling while such steps pass); else the
  // midpoint.
  double NextTarget() {
    double t = 0;
    climbing_ = false;
    if (knee_ && *knee_ > *pass_ && *knee_ <= *fail_ && !knee_tried_) {
      t = std::floor(*knee_ * (1 - p_.resolution / 2));
      knee_tried_ = true;
    } else if (knee_ && *pass_ >= *knee_ * (1 - p_.resolution)) {
      t = std::floor(*pass_ * (1 + p_.resolution * climb_));
      climbing_ = true;
    }
    if (t <= *pass_ || t >= *fail_) t = std::round((*pass_ + *fail_) / 2);
    if (t <= *pass_ || t >= *fail_) return 0;  // whole RPS: nothing left between
    return t;
  }

  void Bisect() {
    while (*fail_ - *pass_ > p_.resolution * *pass_) {
      const double mid = NextTarget();
      if (mid == 0) break;
      const double knee_before = knee_.value_or(0);
      StepOutcome o = Step(mid, p_.step_dur_s, "bisect", SearchKeep(), p_.retries);
      if (Done(o)) return;
      if (o == StepOutcome::kPass) {
        NotePass(mid);
        climb_ = climbing_ ? climb_ * 2 : 1;
      } else {
        NoteFail(mid);
        climb_ = 1;
      }
      if (knee_.value_or(0) != knee_before) knee_tried_ = false;  // a new estimate may guide again
    }
  }

  enum class Round { kHeld, kFailed, kStopped };

  // One confirmation round at `target`: runs_ runs, held when most of them
  // pass. `runs` gets the indexes of its runs in out_.steps. kStopped: the
  // round did not fit the budget, or an engine error or limit stopped it.
  Round ConfirmRound(double target, std::vector<int>& runs) {
    runs.clear();
    int passes = 0;
    for (int i = 0; i < runs_; ++i) {
      // Later runs of a round need only their own time.
      StepOutcome o = Step(target, p_.confirm_dur_s, "confirm", (runs_ - 1 - i) * p_.confirm_dur_s, 0);
      // Nothing of a round is kept unless the whole round fits; Step()
      // checked the round's time before its first run.
      if (o == StepOutcome::kNoBudget) return Round::kStopped;
      if (o != StepOutcome::kEngineLimited) runs.push_back(static_cast<int>(out_.steps.size()) - 1);
      if (Done(o)) return Round::kStopped;
      if (o == StepOutcome::kPass) ++passes;
    }
    return passes * 2 > runs_ ? Round::kHeld : Round::kFailed;
  }

  void Held(double target, std::vector<int> runs) {
    out_.confirmed = true;
    confirmed_target_ = target;
    out_.repeats = std::move(runs);
  }

  void Confirm() {
    double target = *pass_;
    std::vector<int> runs;
    while (true) {
      const Round r = ConfirmRound(target, runs);
      if (r == Round::kStopped) return;
      if (r == Round::kHeld) break;
      NoteFail(target);
      if (at_cap_) at_cap_ = false;  // the cap did not hold over the longer run
      if (!StepDown(target)) return;
    }
    Held(target, std::move(runs));
    Refine();
  }

  // After a round held below a failed one (a step down wider than the
  // resolution): while the gap to the lowest failing target is wider than
  // the resolution and a round fits the budget, confirm its midpoint. A held
  // round there is the result; a failed one the new lowest failing target.
  // Either halves the gap: one round takes a gap of up to twice the
  // resolution (a failed round and a held one a step of 4 % below it) to
  // within it. Measured (`ctest --preset local -R throughput`, unpinned,
  // complex): confirmations failed at 8020 and 7863 RPS and held at 7561
  // RPS, 4.0 %, with 20 s of the 120 s budget unspent.
  void Refine() {
    while (fail_ && *fail_ - confirmed_target_ > p_.resolution * confirmed_target_) {
      const double mid = std::round((confirmed_target_ + *fail_) / 2);
      if (mid <= confirmed_target_ || mid >= *fail_) return;  // whole RPS: nothing left between
      // An earlier reason (the bisect cut short by the budget) stays first.
      const std::string before = out_.stop_reason.empty() ? "" : out_.stop_reason + "; ";
      if (!Fits(runs_ * p_.confirm_dur_s, 0)) {
        out_.stop_reason = before + BudgetReason("confirm", mid, p_.confirm_dur_s, 0) +
                           fmt::format("; {} RPS held, {} RPS failed", FormatNumber(confirmed_target_),
                                       FormatNumber(*fail_));
        return;
      }
      std::vector<int> runs;
      const Round r = ConfirmRound(mid, runs);
      if (r == Round::kStopped) {
        // A rate the engine could not offer says nothing against the round
        // that held below it: that result stands, the reason is kept.
        if (out_.engine_limited) {
          out_.engine_limited = false;
          out_.stop_reason = fmt::format("{}the refining confirmation at {} RPS: {}; {} RPS held", before,
                                         FormatNumber(mid), out_.stop_reason, FormatNumber(confirmed_target_));
        }
        return;
      }
      if (r == Round::kHeld) {
        Held(mid, std::move(runs));
      } else {
        NoteFail(mid);
      }
    }
  }

  // After a failed confirmation round at `target`: the next target down by
  // the resolution, doubling the step after each failed round (2 %, 4 %,
  // 8 % ...) so that a budget is not spent creeping. The step is taken from
  // the next target (target / (1 + step), rounded up), so that a round that
  // passes one step down ends at the resolution against the failed one:
  // target x (1 - 2 %) left 2.04 %. False: stop.
  bool StepDown(double& target) {
    double next = std::ceil(target / (1 + std::min(1.0, p_.resolution * step_down_)) - 1e-9);
    step_down_ *= 2;
    if (next >= target) next = target - 1;
    if (next < std::max(1.0, p_.min_rps)) {
      out_.stop_reason = fmt::format("no confirmation passed down to {} RPS", FormatNumber(target));
      return false;
    }
    if (!Fits(runs_ * p_.confirm_dur_s, 0)) {
      out_.stop_reason = BudgetReason("confirm", next, p_.confirm_dur_s, 0) +
                         fmt::format("; the confirmation at {} RPS failed", FormatNumber(target));
      return false;
    }
    target = next;
    return true;
  }

  SearchOutcome Finish() {
    if (out_.engine_limited) return FinishEngineLimited();
    if (out_.confirmed) {
      std::vector<double> achieved;
      for (int i : out_.repeats) achieved.push_back(out_.steps[i].load.achieved_rps);
      out_.reported_rps = Median(achieved);
      // The run closest to the median represents the result.
      int best = out_.repeats.front();
      for (int i : out_.repeats) {
        if (std::abs(out_.steps[i].load.achieved_rps - out_.reported_rps) <
            std::abs(out_.steps[best].load.achieved_rps - out_.reported_rps)) {
          best = i;
        }
      }
      out_.reported_step = best;
      out_.ceiling_reached = at_cap_;
      if (fail_ && *fail_ > confirmed_target_) out_.resolution = (*fail_ - confirmed_target_) / confirmed_target_;
      return std::move(out_);
    }
    // Unconfirmed: the highest passing step below the lowest failing target.
    for (int i = 0; i < static_cast<int>(out_.steps.size()); ++i) {
      const StepResult& s = out_.steps[i];
      if (!s.passed || (fail_ && s.target_rps >= *fail_)) continue;
      if (out_.reported_step < 0 || s.target_rps > out_.steps[out_.reported_step].target_rps ||
          (s.target_rps == out_.steps[out_.reported_step].target_rps &&
           s.load.achieved_rps > out_.reported_rps)) {
        out_.reported_step = i;
        out_.reported_rps = s.load.achieved_rps;
      }
    }
    if (out_.reported_step >= 0) {
      double t = out_.steps[out_.reported_step].target_rps;
      // An unconfirmed pass at the cap is still only a lower bound.
      out_.ceiling_reached = at_cap_ && t >= std::floor(p_.cap_rps);
      if (fail_ && *fail_ > t) out_.resolution = (*fail_ - t) / t;
    }
    return std::move(out_);
  }

  // A lower bound: the best passing step's measured rate; with none, the
  // engine-limited step's (the SUT served it within its error and p99
  // limits, but the phase itself failed: the engine fell behind).
  SearchOutcome FinishEngineLimited() {
    for (int pass_only = 1; pass_only >= 0 && out_.reported_step < 0; --pass_only) {
      for (int i = 0; i < static_cast<int>(out_.steps.size()); ++i) {
        const StepResult& s = out_.steps[i];
        if (pass_only ? !s.passed : !s.engine_limited) continue;
        if (out_.reported_step < 0 || s.load.achieved_rps > out_.reported_rps) {
          out_.reported_step = i;
          out_.reported_rps = s.load.achieved_rps;
        }
      }
    }
    return std::move(out_);
  }

  const ThroughputSearchParams& p_;
  const SearchStepFunction& run_;
  int runs_ = 1;
  double budget_ = 0;
  SearchOutcome out_;
  std::optional<double> pass_, fail_;  // highest passing / lowest failing target decided so far
  std::optional<double> knee_;         // the SUT's served rate in the last step that fell short of its target
  bool knee_tried_ = false;            // the current estimate has placed a bisect step
  bool climbing_ = false;              // the current bisect step climbs from a pass at the estimate
  double climb_ = 1;                   // resolutions per climbing step (doubles while they pass)
  bool at_cap_ = false;                // the cap passed (and, once confirmed, held)
  bool stopped_ = false;               // an engine error or an engine limit stopped the search
  double confirmed_target_ = 0;
  double step_down_ = 1;  // multiple of the resolution for the next step down
};

}  // namespace

SearchOutcome MaxThroughputSearch(const ThroughputSearchParams& params, const SearchStepFunction& run_step) {
  SearchOutcome out = Search(params, run_step).Run();
  out.rule = PassRuleOf(params.rule);
  return out;
}

std::string NoResultReason(const SearchOutcome& so) {
  if (so.steps.empty()) return "the throughput search ran no step: " + so.stop_reason;
  int passed = 0;
  const StepResult* highest = nullptr;
  for (const StepResult& s : so.steps) {
    if (!s.passed) continue;
    ++passed;
    if (!highest || s.target_rps > highest->target_rps) highest = &s;
  }
  std::string why;
  if (!highest) {
    const StepResult* lowest = &so.steps.front();
    for (const StepResult& s : so.steps) {
      if (s.target_rps < lowest->target_rps) lowest = &s;
    }
    why = lowest == &so.steps.front()
              ? fmt::format("no step passed (first step {} RPS: {})", FormatNumber(so.steps.front().target_rps),
                            so.steps.front().verdict)
              : fmt::format("no step passed in {} steps (first {} RPS: {}; lowest {} RPS: {})", so.steps.size(),
                            FormatNumber(so.steps.front().target_rps), so.steps.front().verdict,
                            FormatNumber(lowest->target_rps), lowest->verdict);
  } else {
    const StepResult* lowest_fail = nullptr;
    for (const StepResult& s : so.steps) {
      if (!s.passed && s.target_rps <= highest->target_rps &&
          (!lowest_fail || s.target_rps < lowest_fail->target_rps)) {
        lowest_fail = &s;
      }
    }
    why = fmt::format("no rate held: {} step{} passed (highest {} RPS{})", passed, passed == 1 ? "" : "s",
                      FormatNumber(highest->target_rps), highest->role.empty() ? "" : ", " + highest->role);
    if (lowest_fail) {
      why += fmt::format(", but a later run at or below it failed (lowest failing {} RPS{}: {})",
                         FormatNumber(lowest_fail->target_rps),
                         lowest_fail->role.empty() ? "" : ", " + lowest_fail->role, lowest_fail->verdict);
    }
  }
  if (!so.stop_reason.empty()) why += "; " + so.stop_reason;
  return why;
}

double SearchLoadBudget(const ThroughputSearchParams& p) {
  // REPEAT's extra confirmation runs come on top of the search's budget.
  return p.budget_s + (std::max(1, p.confirm_runs) - 1) * p.confirm_dur_s;
}

ThroughputSearchParams ThroughputSearchParamsFrom(const Config& c, const SearchPlan& plan) {
  ThroughputSearchParams p;
  p.rule.slo_p99_us = c.throughput_slo_p99_us;
  p.rule.search_max_rps = c.throughput_search_max;
  p.cap_rps = c.throughput_search_max;
  p.start_rps = c.throughput_start;
  p.resolution = c.throughput_resolution;
  p.probe_dur_s = plan.lengths.probe_s;
  p.step_dur_s = plan.lengths.step_s;
  p.confirm_dur_s = plan.lengths.confirm_s;
  p.budget_s = plan.budget_s;
  p.confirm_runs = plan.confirm_runs;
  p.rule.validity_mode = c.validity.mode;
  return p;
}

SearchOutcome SearchMaxThroughput(const Config& c, const SearchPlan& plan, const SearchStepFunction& run_step) {
  if (c.throughput_search == ThroughputSearchKind::kBisect) {
    return MaxThroughputSearch(ThroughputSearchParamsFrom(c, plan), run_step);
  }
  const double step_s = plan.lengths.step_s;
  SearchParams sp;
  sp.search_max_rps = c.throughput_search_max;
  sp.slo_p99_us = c.throughput_slo_p99_us;
  sp.validity_mode = c.validity.mode;
  return SeedStepSearch(sp, [&](double target, int index) {
    StepRequest r;
    r.target_rps = target;
    r.duration_s = step_s;
    r.index = index;
    return run_step(r);
  });
}

}  // namespace fvbench
