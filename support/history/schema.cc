#include "support/history/schema.h"

#include <fmt/format.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace fvbench {
namespace {

std::vector<std::string> Steps(int version, bool postgres) {
  const char* id = postgres ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY";
  const char* real = postgres ? "DOUBLE PRECISION" : "REAL";
  const char* big = postgres ? "BIGINT" : "INTEGER";
  switch (version) {
    case 1:
      return {
          "CREATE TABLE fvbench_schema (version INTEGER NOT NULL)",
          "INSERT INTO fvbench_schema (version) VALUES (0)",
          fmt::format("CREATE TABLE runs (id {}, run_key TEXT NOT NULL UNIQUE, started_unix {} NOT NULL, "
                      "finished_unix {}, edge_commit TEXT NOT NULL, edge_ref TEXT NOT NULL, engine TEXT NOT NULL, "
                      "mode TEXT NOT NULL, sut_host TEXT NOT NULL, loadgen_host TEXT NOT NULL, profile TEXT NOT NULL, "
                      "usable INTEGER NOT NULL, note TEXT NOT NULL, recorded_unix {} NOT NULL, "
                      "results_json TEXT NOT NULL)",
                      id, real, real, real),
          fmt::format("CREATE TABLE metrics (run_id {} NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
                      "scenario TEXT NOT NULL, metric TEXT NOT NULL, value {} NOT NULL, usable INTEGER NOT NULL, "
                      "reason TEXT NOT NULL, PRIMARY KEY (run_id, scenario, metric))",
                      big, real),
      };
    case 2:
      return {"CREATE INDEX metrics_series ON metrics (scenario, metric)"};
  }
  return {};
}

// Which of the history's tables exist, in one statement (one snapshot: a
// writer creating them at the same moment shows all or none). PostgreSQL:
// in current_schema(), where the unqualified queries find them, from the
// catalog (information_schema would hide tables this role may not read).
Result<std::set<std::string>> HistoryTables(SqlConnection& db) {
  auto rows = db.IsPostgres()
                  ? db.Query("SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON "
                             "n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') "
                             "AND c.relname IN ('fvbench_schema', 'runs', 'metrics')")
                  : db.Query("SELECT name FROM sqlite_master WHERE type = 'table' "
                             "AND name IN ('fvbench_schema', 'runs', 'metrics')");
  if (!rows.ok()) return rows.error();
  std::set<std::string> found;
  for (const SqlRow& r : *rows) found.insert(r[0].value_or(""));
  return found;
}

Result<bool> HasSchemaTable(SqlConnection& db) {
  auto found = HistoryTables(db);
  if (!found.ok()) return found.error();
  return found->count("fvbench_schema") > 0;
}

// An SQLite file's tables, for the message that it is not a history.
std::string SqliteTables(SqlConnection& db) {
  auto rows = db.Query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 6");
  if (!rows.ok() || rows->empty()) return "no tables";
  std::vector<std::string> names;
  for (const SqlRow& r : *rows) names.push_back(r[0].value_or("?"));
  if (names.size() > 5) names.back() = "...";
  return fmt::format("tables {}", fmt::join(names, ", "));
}

Result<void> Rollback(SqlConnection& db, Error e) {
  (void)db.Query("ROLLBACK");
  return e;
}

// The version row of fvbench_schema.
Result<int> SchemaRow(SqlConnection& db) {
  auto rows = db.Query("SELECT version FROM fvbench_schema");
  if (!rows.ok()) return rows.error();
  if (rows->size() != 1 || !(*rows)[0][0]) {
    return Error{fmt::format("{}: fvbench_schema must hold one version row, has {}", db.Where(), rows->size())};
  }
  char* end = nullptr;
  const long v = std::strtol((*rows)[0][0]->c_str(), &end, 10);
  if (*end != '\0' || v < 0 || v > 1'000'000) {
    return Error{fmt::format("{}: fvbench_schema: version \"{}\" is not a version number", db.Where(),
                             *(*rows)[0][0])};
  }
  return static_cast<int>(v);
}

}  // namespace

Result<int> HistorySchemaVersion(SqlConnection& db) {
  auto has = HasSchemaTable(db);
  if (!has.ok()) return has.error();
  if (!*has) return 0;
  return SchemaRow(db);
}

Result<int> CheckedHistoryVersion(SqlConnection& db) {
  auto tables = HistoryTables(db);
  if (!tables.ok()) return tables.error();
  if (!tables->count("fvbench_schema")) {
    if (!db.IsPostgres()) {
      return Error{fmt::format("{}: is an SQLite database but not an fvbench history (no fvbench_schema table; {}); "
                               "give the history's path, or a path where no file exists to start a new one",
                               db.Where(), SqliteTables(db))};
    }
    if (!tables->empty()) {
      return Error{fmt::format("{}: has table(s) {} but no fvbench_schema: another program's tables, not an "
                               "fvbench history; use another database or schema",
                               db.Where(), fmt::join(*tables, ", "))};
    }
    return 0;
  }
  auto version = SchemaRow(db);
  if (!version.ok()) return version.error();
  if (*version > kHistorySchemaVersion) {
    return Error{fmt::format("{}: history schema version {} is newer than this fvbench knows ({}); use a newer "
                             "fvbench_history",
                             db.Where(), *version, kHistorySchemaVersion)};
  }
  if (*version < 1) {
    return Error{fmt::format("{}: fvbench_schema holds version {}: not a history fvbench wrote", db.Where(),
                             *version)};
  }
  return version;
}

Result<void> MigrateHistory(SqlConnection& db, int target) {
  if (auto b = db.BeginWrite(); !b.ok()) return b.error();
  if (db.IsPostgres()) {
    // Any constant: concurrent first appenders wait here instead of racing CREATE TABLE.
    if (auto l = db.Query("SELECT pg_advisory_xact_lock(1616161616)"); !l.ok()) return Rollback(db, l.error());
  }
  auto now = HistorySchemaVersion(db);
  if (!now.ok()) return Rollback(db, now.error());
  if (*now > kHistorySchemaVersion) {
    return Rollback(db, Error{fmt::format("{}: history schema version {} is newer than this fvbench knows ({}); "
                                          "use a newer fvbench_history",
                                          db.Where(), *now, kHistorySchemaVersion)});
  }
  for (int v = *now + 1; v <= target; ++v) {
    for (const std::string& sql : Steps(v, db.IsPostgres())) {
      if (auto r = db.Query(sql); !r.ok()) {
        return Rollback(db, Error{fmt::format("migration to schema version {}: {}", v, r.error().message)});
      }
    }
    if (auto r = db.Query("UPDATE fvbench_schema SET version = $1", {std::to_string(v)}); !r.ok()) {
      return Rollback(db, r.error());
    }
  }
  if (auto c = db.Query("COMMIT"); !c.ok()) return Rollback(db, c.error());
  return Ok();
}

}  // namespace fvbench
