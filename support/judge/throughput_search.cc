#include "support/judge/throughput_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "support/judge/repeats.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

enum class StepOutcome { kPass, kFail, kError, kNoBudget };

class Search {
 public:
  Search(const ThroughputSearchParams& p, const SearchStepFunction& run) : p_(p), run_(run) {
    runs_ = std::max(1, p_.confirm_runs);
    // REPEAT's extra confirmation runs come on top of the search's budget.
    budget_ = p_.budget_s + (runs_ - 1) * p_.confirm_dur_s;
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

  std::string BudgetReason(const char* role, double target, double dur, double keep) const {
    std::string s = fmt::format("budget: a {} step at {} RPS ({} s) would exceed THROUGHPUT_BUDGET_S={} s "
                                "(used {} s",
                                role, FormatNumber(target), FormatNumber(dur), FormatNumber(p_.budget_s),
                                FormatNumber(out_.load_s));
    if (keep > 0) s += fmt::format(", {} s kept for the confirmation", FormatNumber(keep));
    return s + ")";
  }

  // Runs one step at `target` (a failing bracket / bisect step up to
  // 1 + retries times). `keep`: seconds that must remain for later runs.
  StepOutcome Step(double target, double dur, const char* role, double keep, int retries) {
    for (int attempt = 0; attempt <= retries; ++attempt) {
      if (!Fits(dur, keep)) {
        if (out_.stop_reason.empty()) out_.stop_reason = BudgetReason(role, target, dur, keep);
        return StepOutcome::kNoBudget;
      }
      StepRequest req;
      req.target_rps = target;
      req.duration_s = dur;
      req.index = static_cast<int>(out_.steps.size());
      req.role = role;
      auto r = run_(req);
      out_.load_s += r.ok() ? std::max(dur, r->wall_s) : dur;  // the wall time of the load, when measured
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
      s.load = std::move(*r);
      StepVerdict v = JudgeStep(s.load, p_.rule);
      s.passed = v.passed;
      s.verdict = std::move(v.text);
      if (attempt > 0) s.verdict += fmt::format(" (attempt {} after a failed step)", attempt + 1);
      bool passed = s.passed;
      out_.steps.push_back(std::move(s));
      if (passed) return StepOutcome::kPass;
    }
    return StepOutcome::kFail;
  }

  double SearchKeep() const { return runs_ * p_.confirm_dur_s; }

  void NoteFail(double target) { fail_ = fail_ ? std::min(*fail_, target) : target; }
  void NotePass(double target) { pass_ = pass_ ? std::max(*pass_, target) : target; }

  void Bracket() {
    const double cap = std::max(1.0, std::floor(p_.cap_rps));
    double rate = p_.start_rps > 0 ? p_.start_rps : p_.cap_rps / 8;
    rate = std::clamp(std::floor(rate), 1.0, cap);
    while (true) {
      StepOutcome o = Step(rate, p_.step_dur_s, "bracket", SearchKeep(), p_.retries);
      if (o == StepOutcome::kError || o == StepOutcome::kNoBudget) return;
      if (o == StepOutcome::kFail) {
        NoteFail(rate);
        break;
      }
      NotePass(rate);
      if (rate >= cap) {
        at_cap_ = true;
        return;
      }
      rate = std::min(rate * 2, cap);
    }
    // The first step failed: bracket downwards.
    while (!pass_) {
      rate = std::floor(rate / 2);
      if (rate < std::max(1.0, p_.min_rps)) {
        out_.stop_reason = fmt::format("no step passed down to {} RPS", FormatNumber(*fail_));
        return;
      }
      StepOutcome o = Step(rate, p_.step_dur_s, "bracket", SearchKeep(), p_.retries);
      if (o == StepOutcome::kError || o == StepOutcome::kNoBudget) return;
      if (o == StepOutcome::kFail) NoteFail(rate);
      else NotePass(rate);
    }
  }

  void Bisect() {
    while (*fail_ - *pass_ > p_.resolution * *pass_) {
      double mid = std::round((*pass_ + *fail_) / 2);
      if (mid <= *pass_ || mid >= *fail_) break;  // whole RPS: nothing left between
      StepOutcome o = Step(mid, p_.step_dur_s, "bisect", SearchKeep(), p_.retries);
      if (o == StepOutcome::kError || o == StepOutcome::kNoBudget) return;
      if (o == StepOutcome::kPass) NotePass(mid);
      else NoteFail(mid);
    }
  }

  void Confirm() {
    double target = *pass_;
    while (true) {
      std::vector<int> round;
      int passes = 0;
      for (int i = 0; i < runs_; ++i) {
        // Later runs of a round need only their own time.
        StepOutcome o = Step(target, p_.confirm_dur_s, "confirm", (runs_ - 1 - i) * p_.confirm_dur_s, 0);
        if (o == StepOutcome::kNoBudget) {
          // Nothing of this round is kept unless the whole round fits;
          // Step() checked the round's time before its first run.
          return;
        }
        round.push_back(static_cast<int>(out_.steps.size()) - 1);
        if (o == StepOutcome::kError) return;
        if (o == StepOutcome::kPass) ++passes;
      }
      if (passes * 2 > runs_) {
        out_.confirmed = true;
        confirmed_target_ = target;
        out_.repeats = round;
        return;
      }
      NoteFail(target);
      if (at_cap_) at_cap_ = false;  // the cap did not hold over the longer run
      // Step down by the resolution, doubling the step after each failed
      // round (2 %, 4 %, 8 % ...) so that a budget is not spent creeping.
      double next = std::floor(target * (1 - std::min(0.5, p_.resolution * step_down_)));
      step_down_ *= 2;
      if (next >= target) next = target - 1;
      if (next < std::max(1.0, p_.min_rps)) {
        out_.stop_reason = fmt::format("no confirmation passed down to {} RPS", FormatNumber(target));
        return;
      }
      if (!Fits(runs_ * p_.confirm_dur_s, 0)) {
        out_.stop_reason = BudgetReason("confirm", next, p_.confirm_dur_s, 0) +
                           fmt::format("; the confirmation at {} RPS failed", FormatNumber(target));
        return;
      }
      target = next;
    }
  }

  SearchOutcome Finish() {
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

  const ThroughputSearchParams& p_;
  const SearchStepFunction& run_;
  int runs_ = 1;
  double budget_ = 0;
  SearchOutcome out_;
  std::optional<double> pass_, fail_;  // highest passing / lowest failing target decided so far
  bool at_cap_ = false;                // the cap passed (and, once confirmed, held)
  bool stopped_ = false;               // an engine error stopped the search
  double confirmed_target_ = 0;
  double step_down_ = 1;  // multiple of the resolution for the next step down
};

}  // namespace

SearchOutcome MaxThroughputSearch(const ThroughputSearchParams& params, const SearchStepFunction& run_step) {
  SearchOutcome out = Search(params, run_step).Run();
  out.rule = PassRuleOf(params.rule);
  return out;
}

ThroughputSearchParams ThroughputSearchParamsFrom(const Config& c) {
  ThroughputSearchParams p;
  p.rule.slo_p99_us = c.throughput_slo_p99_us;
  p.rule.search_max_rps = c.throughput_search_max;
  p.cap_rps = c.throughput_search_max;
  p.start_rps = c.throughput_start;
  p.resolution = c.throughput_resolution;
  p.step_dur_s = c.step_dur_s;
  p.confirm_dur_s = c.confirm_dur_s;
  p.budget_s = c.throughput_budget_s;
  p.confirm_runs = c.repeat;
  return p;
}

SearchOutcome SearchMaxThroughput(const Config& c, const SearchStepFunction& run_step) {
  if (c.throughput_search == ThroughputSearchKind::kBisect) {
    return MaxThroughputSearch(ThroughputSearchParamsFrom(c), run_step);
  }
  SearchParams sp;
  sp.search_max_rps = c.throughput_search_max;
  sp.slo_p99_us = c.throughput_slo_p99_us;
  return SeedStepSearch(sp, [&](double target, int index) {
    StepRequest r;
    r.target_rps = target;
    r.duration_s = c.step_dur_s;
    r.index = index;
    return run_step(r);
  });
}

}  // namespace fvbench
