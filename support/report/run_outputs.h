// Every output of a run belongs to that run. When a run
// starts (fvbench.provision, before anything that can fail; not in a dry run,
// which sets nothing aside), what an earlier
// run left where CI or a reader looks is set aside, so a failed provision
// never leaves an earlier passing result there:
//   - gtest's per-scenario JUnit XML (build/gtest-xml/*.xml; the fixture gets
//     the directory as FVBENCH_GTEST_XML_DIR) moves to <dir>/stale/, out of
//     the `gtest-xml/*.xml` a CI test-report view reads;
//   - the report outputs (BENCH_DIR/report: summary.txt, results.json,
//     report.md, report.html, *.svg, *.folded) move to BENCH_DIR/report/previous/ (replacing older
//     copies there): nothing measured is lost; fvbench.report writes this
//     run's;
//   - controller-results/run_meta.json is copied to
//     controller-results/previous/run_meta.json, then rewritten with this
//     run's start time and `provision_incomplete`, so a scenario result file
//     left by an earlier run is marked "from an earlier ctest run" by the
//     report (ratios.h FromEarlierRun), and a report step after a failed
//     provision writes no report (report_step.h) instead of one that passes on
//     earlier results. The provision step overwrites it with the full meta
//     once the hosts are known. (Each scenario moves its own earlier result
//     and raw engine files aside when it starts: MoveScenarioOutputs.)
#pragma once

#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

struct SetAside {
  std::vector<std::string> moved;          // gtest XML files, now under <xml dir>/stale/
  std::vector<std::string> report_moved;   // report outputs, now under BENCH_DIR/report/previous/
};

// Moves <xml_dir>/*.xml to <xml_dir>/stale/ (replacing older stale copies);
// "" or a missing directory: nothing to do.
Result<std::vector<std::string>> SetAsideGtestXml(const std::string& xml_dir);

// Moves the report outputs of an earlier run from `report_dir` to
// `report_dir`/previous/ (replacing older copies there); names them.
Result<std::vector<std::string>> MoveReportOutputs(const std::string& report_dir);

// Both, then keeps the earlier BENCH_DIR/controller-results/run_meta.json as
// previous/run_meta.json and writes one holding only started_unix =
// `now_unix` and provision_incomplete (the provision step overwrites it with
// the full meta once the hosts are known).
Result<SetAside> SetAsideEarlierOutputs(const std::string& xml_dir, const std::string& bench_dir, double now_unix);

// When a scenario starts: its outputs from an earlier run are set aside, so
// that raw/ holds only this run's phases of it (a 3-step search beside the
// 9 steps of the one before reads as one search). Its result
// (controller-results/<id>.json under `bench_dir`, bench_layout.h) moves to
// controller-results/previous/, its raw engine files (raw/<stem>.<ext> and
// raw/<stem>_<phase>.<ext>, stem = the id with '.' -> '_', the stem of its
// phase names) to raw/previous/, replacing older copies there; names what
// moved ("throughput.simple.json", "raw/throughput_simple_s00_probe.json", ...).
Result<std::vector<std::string>> MoveScenarioOutputs(const std::string& bench_dir, const std::string& scenario_id);

}  // namespace fvbench
