// One scenario test's flow without its test framework (the GoogleTest glue is
// fixtures/fvbench_environment.h; the flow is tested on fake hosts in
// tests/unit/scenario_flow_test.cc). Results are written to
// BENCH_DIR/controller-results/<id>.json (core/bench_layout.h).
#pragma once

#include <string>

#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/judge/reference.h"
#include "support/judge/thresholds.h"
#include "support/run/scenario_runner.h"
#include "support/run/scenario_plan.h"
#include "support/run/testbed.h"

namespace fvbench {

struct SavedScenario {
  ScenarioResult result;
  std::string path;        // where the result file is (or, DRY_RUN, would be)
  std::string save_error;  // empty when saved or, DRY_RUN, not meant to be
};

// Except in DRY_RUN, first moves this scenario's result file and raw engine
// outputs from an earlier run to previous/ (run_outputs.h
// MoveScenarioOutputs; a failure to move is said through `progress`, not
// fatal: the result file is rewritten anyway). Then runs the scenario
// (RunScenario) with an interrupt cleanup registered that saves an
// "interrupted by signal N" result (ScenarioResult::interrupted) in its
// place; then, except in DRY_RUN, adds the run's checks (verdict.h
// AddRunChecks, AB_GATE and AB_GATE_METRICS from the testbed's config) and
// saves the result file.
SavedScenario RunAndSaveScenario(Testbed& tb, const ScenarioPlan& plan, const ThresholdProfile* profile,
                                 const Reference* reference, const ProgressFn& progress);

// Saves a result that says "not run: <why>" for a scenario whose testbed
// could not be set up, where the report finds it, when the configuration
// loads and BENCH_DIR is usable (PrepareControllerDirs: this user's,
// private). Nothing is saved otherwise: the test's failure says why.
void SaveNotRunResult(const std::string& scenario_id, const std::string& why);

}  // namespace fvbench
