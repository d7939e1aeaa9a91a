// The results history's schema, versioned, with its migrations. One schema on
// both databases (types spelled per database only where they must differ).
//
// Version 1: fvbench_schema(version); runs (one row per recorded results.json:
//   run_key UNIQUE = SHA-256 of the text, times, edge commit / ref, engine,
//   mode, hosts, profile, usable + note, recorded_unix, results_json);
//   metrics (run_id, scenario, metric, value, usable, reason), key
//   (run_id, scenario, metric).
// Version 2: index metrics(scenario, metric) for reading one series.
//
// Readers read every version from 1 on as it is (their queries use version-1
// columns only); migrating is for writers.
// Migrate brings a database at any older version (or empty) to the newest in
// one transaction; on PostgreSQL an advisory lock serialises concurrent
// migrators. A database newer than this fvbench is refused, untouched.
#pragma once

#include "support/history/sql_connection.h"

namespace fvbench {

inline constexpr int kHistorySchemaVersion = 2;

// The version the database is at now (0 = empty).
Result<int> HistorySchemaVersion(SqlConnection& db);
// The same, checked before anything reads or writes the history: 0 for a
// PostgreSQL database without one yet (no fvbench_schema table, and none
// named runs or metrics); an SQLite file without fvbench_schema is not a
// history (an error naming its tables: a new SQLite history is created
// whole, history_file.h); a version newer than kHistorySchemaVersion is an
// error. Reads only.
Result<int> CheckedHistoryVersion(SqlConnection& db);
// Migrates to `target` (tests pass an older one to build an old database).
Result<void> MigrateHistory(SqlConnection& db, int target = kHistorySchemaVersion);

}  // namespace fvbench
