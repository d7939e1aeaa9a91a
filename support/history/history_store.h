// The results history: append a run, read the metric series back.
//
//   auto db = OpenHistory(location);        // opens and migrates (schema.h)
//   AppendRun(**db, record, now_unix);      // one transaction: the run + its metrics
//   LoadHistory(**db);                      // every run and metric, oldest first
//
// Appending is all-or-nothing (a failure rolls back; nothing recorded before
// is touched) and idempotent: a results.json already recorded (same run_key)
// is not added again. Concurrent appenders are safe on both databases
// (SQLite: one writer at a time, the others wait; PostgreSQL: independent
// transactions with BIGSERIAL ids).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/history/run_record.h"
#include "support/history/sql_connection.h"

namespace fvbench {

Result<std::unique_ptr<SqlConnection>> OpenHistory(const std::string& location);

struct Appended {
  int64_t run_id = 0;
  bool already_recorded = false;
};
Result<Appended> AppendRun(SqlConnection& db, const RunRecord& run, double now_unix);

// One recorded run as read back (without its results_json).
struct StoredRun {
  int64_t id = 0;
  double started_unix = 0;
  std::string edge_commit;
  std::string edge_ref;
  bool usable = true;
  std::string note;
  std::string run_key;  // RunRecord::run_key
};
struct StoredMetric {
  int64_t run_id = 0;
  std::string scenario;
  std::string metric;
  double value = 0;
  bool usable = true;
};
struct History {
  std::vector<StoredRun> runs;         // by started_unix, then id
  std::vector<StoredMetric> metrics;   // by scenario, metric, run order
};
Result<History> LoadHistory(SqlConnection& db);

}  // namespace fvbench
