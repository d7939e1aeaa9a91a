// The results history: append a run, read the metric series back.
//
//   auto db = OpenHistoryForWriting(location);   // record: creates or migrates (schema.h)
//   AppendRun(**db, record, now_unix);           // one transaction: the run + its metrics
//   auto rd = OpenHistoryForReading(location);   // everything else: writes nothing
//   LoadHistory(**rd);                           // every run and metric, oldest first
//
// What is at `location` must be an fvbench history: an existing file that is
// empty, not SQLite, or an SQLite database without the history's tables, a
// directory or a FIFO is refused, naming the path and what is there
// (history_file.h, schema.h). Only the writer creates a history, and only
// where no file exists (exclusively: of two first writers, one creates it and
// both record into it). Readers open read-only and write nothing, before or
// after the version check: no file, no journal-mode change, no migration
// (sql_connection.h); they read older schema versions as they are.
//
// Appending is all-or-nothing (a failure rolls back; nothing recorded before
// is touched) and idempotent: a results.json already recorded (same run_key)
// is not added again. Concurrent appenders are safe on both databases
// (SQLite: one writer at a time, the others wait; PostgreSQL: independent
// transactions with BIGSERIAL ids).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/history/run_record.h"
#include "support/history/sql_connection.h"

namespace fvbench {

Result<std::unique_ptr<SqlConnection>> OpenHistoryForWriting(const std::string& location);
// A location where nothing is recorded yet (no file; a PostgreSQL database
// without the history's tables) is an error saying so that also sets
// *nothing_recorded when given (the report step reads that as an empty history).
Result<std::unique_ptr<SqlConnection>> OpenHistoryForReading(const std::string& location,
                                                             bool* nothing_recorded = nullptr);

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
  // Run id -> its recorded environment (core/host_environment.h): only the
  // runs LoadRunEnvironments read (environment_history.h) or WithRun added.
  std::map<int64_t, std::vector<HostEnvironment>> environments;
};
Result<History> LoadHistory(SqlConnection& db);

}  // namespace fvbench
