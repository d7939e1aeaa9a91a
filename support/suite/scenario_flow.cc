#include "support/suite/scenario_flow.h"

#include <fmt/format.h>

#include <ctime>

#include "support/core/bench_layout.h"
#include "support/host/interrupts.h"
#include "support/judge/verdict.h"
#include "support/report/results_io.h"
#include "support/report/run_outputs.h"

namespace fvbench {

SavedScenario RunAndSaveScenario(Testbed& tb, const ScenarioPlan& plan, const ThresholdProfile* profile,
                                 const Reference* reference, const ProgressFn& progress) {
  const std::string scenario_id = plan.id;
  if (!tb.config().dry_run) {
    if (auto moved = MoveScenarioOutputs(tb.config().bench_dir, scenario_id); !moved) {
      progress(scenario_id + ": " + moved.error().message);
    }
  }
  // Interrupted mid-run: the result file says so (raw outputs already pulled stay in raw/).
  const std::string interrupted_path = layout::ScenarioResultPath(tb.config().bench_dir, scenario_id);
  int cleanup = RegisterCleanup([interrupted_path, scenario_id, started = std::time(nullptr)] {
    ScenarioResult r;
    r.id = scenario_id;
    r.started_unix = static_cast<double>(started);
    r.interrupted = true;
    r.error = fmt::format("interrupted by signal {} during the run; raw outputs pulled so far are in raw/",
                          InterruptSignal());
    (void)SaveScenarioResult(interrupted_path, r);
  });
  SavedScenario out;
  out.result = RunScenario(tb, plan, progress,
                           profile != nullptr ? profile->kernel_limits : std::vector<KernelCounterLimit>{});
  UnregisterCleanup(cleanup);
  out.path = layout::ScenarioResultPath(tb.config().bench_dir, out.result.id);
  if (tb.config().dry_run) return out;
  AddRunChecks(out.result, profile, reference, tb.config().ab_gate, tb.config().ab_gate_metrics);
  if (auto saved = SaveScenarioResult(out.path, out.result); !saved) out.save_error = saved.error().message;
  return out;
}

void SaveNotRunResult(const std::string& scenario_id, const std::string& why) {
  auto config = ConfigFromEnvironment();
  if (!config || !PrepareControllerDirs(*config)) return;
  ScenarioResult r;
  r.id = scenario_id;
  r.error = "not run: " + why;
  (void)SaveScenarioResult(layout::ScenarioResultPath(config->bench_dir, scenario_id), r);
}

}  // namespace fvbench
