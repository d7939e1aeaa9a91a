#include "support/history/schema.h"

#include <fmt/format.h>

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

Result<bool> HasSchemaTable(SqlConnection& db) {
  auto rows = db.IsPostgres()
                  ? db.Query("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                             "AND table_name = 'fvbench_schema'")
                  : db.Query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fvbench_schema'");
  if (!rows.ok()) return rows.error();
  return !rows->empty();
}

Result<void> Rollback(SqlConnection& db, Error e) {
  (void)db.Query("ROLLBACK");
  return e;
}

}  // namespace

Result<int> HistorySchemaVersion(SqlConnection& db) {
  auto has = HasSchemaTable(db);
  if (!has.ok()) return has.error();
  if (!*has) return 0;
  auto rows = db.Query("SELECT version FROM fvbench_schema");
  if (!rows.ok()) return rows.error();
  if (rows->size() != 1 || !(*rows)[0][0]) {
    return Error{fmt::format("{}: fvbench_schema must hold one version row, has {}", db.Where(), rows->size())};
  }
  return std::stoi(*(*rows)[0][0]);
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
