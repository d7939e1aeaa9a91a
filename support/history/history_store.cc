#include "support/history/history_store.h"

#include <fmt/format.h>

#include "support/core/connection_string.h"
#include "support/core/run_meta.h"
#include "support/history/history_file.h"
#include "support/history/schema.h"

namespace fvbench {
namespace {

std::string Num(double v) { return fmt::format("{:.17g}", v); }

Error RolledBack(SqlConnection& db, const Error& e, const RunRecord& run) {
  (void)db.Query("ROLLBACK");
  return Error{fmt::format("{}\n(run started {} not recorded; nothing recorded before was changed)", e.message,
                           Num(run.started_unix))};
}

double ToDouble(const SqlValue& v) { return v ? std::stod(*v) : 0; }
int64_t ToInt(const SqlValue& v) { return v ? std::stoll(*v) : 0; }

// A plain path, not a URL nor a libpq key=value string, which may hold a
// password (OpenHistoryDatabase names what is wrong with the rest).
bool IsSqlitePath(const std::string& location) {
  return !location.empty() && !IsPostgresUrl(location) && location.find("://") == std::string::npos &&
         ParseConnectionString(location).kind != ConnectionStringParts::Kind::kPostgresKeyValue;
}

// A new SQLite history, whole: write-ahead log on, tables at the newest version.
Result<void> InitSqliteHistory(const std::string& temp_path) {
  auto db = OpenSqlite(temp_path, SqlAccess::kWrite);
  if (!db.ok()) return db.error();
  if (auto r = (*db)->Query("PRAGMA journal_mode=WAL"); !r.ok()) return r.error();
  return MigrateHistory(**db);
}

Error NothingRecorded(const std::string& location, bool* nothing_recorded, const char* why) {
  if (nothing_recorded) *nothing_recorded = true;
  return Error{fmt::format("{}: no history there: {}; `fvbench_history record` creates it", LocationForMessages(location),
                           why)};
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenHistoryForWriting(const std::string& location) {
  if (IsSqlitePath(location)) {
    auto state = InspectHistoryFile(location);
    if (!state.ok()) return state.error();
    if (*state == HistoryFileState::kMissing) {
      auto created = CreateHistoryFile(location, InitSqliteHistory);
      if (!created.ok()) return created.error();
      // Created here or by another writer at the same moment: either way a history now.
      if (!*created) {
        if (auto again = InspectHistoryFile(location); !again.ok()) return again.error();
      }
    }
    if (auto w = CheckWritableHistory(location); !w.ok()) return w.error();
  }
  auto db = OpenHistoryDatabase(location, SqlAccess::kWrite);
  if (!db.ok()) return db.error();
  if (auto v = CheckedHistoryVersion(**db); !v.ok()) return v.error();
  if (auto m = MigrateHistory(**db); !m.ok()) return m.error();
  return db;
}

Result<std::unique_ptr<SqlConnection>> OpenHistoryForReading(const std::string& location, bool* nothing_recorded) {
  if (nothing_recorded) *nothing_recorded = false;
  if (IsSqlitePath(location)) {
    auto state = InspectHistoryFile(location);
    if (!state.ok()) return state.error();
    if (*state == HistoryFileState::kMissing) return NothingRecorded(location, nothing_recorded, "no such file");
  }
  auto db = OpenHistoryDatabase(location, SqlAccess::kRead);
  if (!db.ok()) return db.error();
  auto version = CheckedHistoryVersion(**db);
  if (!version.ok()) return version.error();
  if (*version == 0) return NothingRecorded(location, nothing_recorded, "the database has no fvbench_schema table");
  return db;
}

Result<Appended> AppendRun(SqlConnection& db, const RunRecord& run, double now_unix) {
  if (auto b = db.BeginWrite(); !b.ok()) return b.error();
  // One run, one record: the same start time, edge commit and SUT host with
  // another text is this run edited or re-rendered after it was recorded.
  auto same_run = db.Query("SELECT id FROM runs WHERE started_unix = $1 AND edge_commit = $2 AND sut_host = $3 "
                           "AND run_key <> $4",
                           {Num(run.started_unix), run.edge_commit, run.sut_host, run.run_key});
  if (!same_run.ok()) return RolledBack(db, same_run.error(), run);
  if (!same_run->empty()) {
    return RolledBack(db,
                      Error{fmt::format("the run started {} (edge commit {}, SUT host {}) is already recorded as run {} "
                                        "from a different results.json: edited, or rendered again after it was "
                                        "recorded; a run is recorded once",
                                        FormatUtc(run.started_unix), run.edge_commit.empty() ? "unknown" : run.edge_commit,
                                        run.sut_host.empty() ? "unknown" : run.sut_host, (*same_run)[0][0].value_or("?"))},
                      run);
  }
  auto inserted = db.Query(
      "INSERT INTO runs (run_key, started_unix, finished_unix, edge_commit, edge_ref, engine, mode, sut_host, "
      "loadgen_host, profile, usable, note, recorded_unix, results_json) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) "
      "ON CONFLICT (run_key) DO NOTHING RETURNING id",
      {run.run_key, Num(run.started_unix), Num(run.finished_unix), run.edge_commit, run.edge_ref, run.engine,
       run.mode, run.sut_host, run.loadgen_host, run.profile, run.usable ? "1" : "0", run.note, Num(now_unix),
       run.results_json});
  if (!inserted.ok()) return RolledBack(db, inserted.error(), run);
  Appended out;
  if (inserted->empty()) {
    auto existing = db.Query("SELECT id FROM runs WHERE run_key = $1", {run.run_key});
    if (!existing.ok() || existing->empty()) {
      return RolledBack(db, existing.ok() ? Error{db.Where() + ": run_key conflict without a row"} : existing.error(), run);
    }
    (void)db.Query("ROLLBACK");
    return Appended{ToInt((*existing)[0][0]), true};
  }
  out.run_id = ToInt((*inserted)[0][0]);
  for (const MetricRow& m : run.metrics) {
    auto r = db.Query("INSERT INTO metrics (run_id, scenario, metric, value, usable, reason) "
                      "VALUES ($1, $2, $3, $4, $5, $6)",
                      {std::to_string(out.run_id), m.scenario, m.metric, Num(m.value), m.usable ? "1" : "0", m.reason});
    if (!r.ok()) return RolledBack(db, r.error(), run);
  }
  if (auto c = db.Query("COMMIT"); !c.ok()) return RolledBack(db, c.error(), run);
  return out;
}

Result<History> LoadHistory(SqlConnection& db) {
  History h;
  auto runs = db.Query("SELECT id, started_unix, edge_commit, edge_ref, usable, note, run_key FROM runs "
                       "ORDER BY started_unix, id");
  if (!runs.ok()) return runs.error();
  for (const SqlRow& r : *runs) {
    h.runs.push_back({ToInt(r[0]), ToDouble(r[1]), r[2].value_or(""), r[3].value_or(""), ToInt(r[4]) != 0,
                      r[5].value_or(""), r[6].value_or("")});
  }
  auto metrics = db.Query("SELECT m.run_id, m.scenario, m.metric, m.value, m.usable FROM metrics m "
                          "JOIN runs r ON r.id = m.run_id ORDER BY m.scenario, m.metric, r.started_unix, r.id");
  if (!metrics.ok()) return metrics.error();
  for (const SqlRow& r : *metrics) {
    h.metrics.push_back({ToInt(r[0]), r[1].value_or(""), r[2].value_or(""), ToDouble(r[3]), ToInt(r[4]) != 0});
    // Scenario ids name the files export-csv and plot write.
    if (!IsScenarioId(h.metrics.back().scenario)) {
      return Error{fmt::format("{}: run {}: the stored scenario id \"{}\" is not a scenario id (letters, digits, "
                               "_ - .); this history was not written by fvbench_history record",
                               db.Where(), h.metrics.back().run_id, h.metrics.back().scenario)};
    }
  }
  return h;
}

}  // namespace fvbench
