#include <sqlite3.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "support/history/sql_connection.h"

namespace fvbench {
namespace {

// What identifies one state of a file: read before an immutable read and
// compared after each statement (a writer's checkpoint changes it).
struct FileStamp {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                   st.st_ctim.tv_sec * 1'000'000'000LL + st.st_ctim.tv_nsec};
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// "file:" URI of `path` for SQLITE_OPEN_URI, every byte outside [A-Za-z0-9-._~/] percent-encoded.
std::string FileUri(const std::string& path, const char* query) {
  std::string uri = path.rfind('/', 0) == 0 ? "file://" : "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri + "?" + query;
}

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path, std::string real, std::optional<FileStamp> immutable)
      : db_(db), path_(std::move(path)), real_(std::move(real)), immutable_(immutable) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  Result<std::vector<SqlRow>> Query(const std::string& sql, const std::vector<SqlValue>& params) override {
    auto rows = Run(sql, params);
    if (immutable_ && StampOf(real_) != immutable_) {
      return Error{fmt::format("{}: changed while it was being read (a writer recorded a run into it meanwhile): "
                               "read it again",
                               path_)};
    }
    return rows;
  }
  Result<void> BeginWrite() override {
    auto r = Query("BEGIN IMMEDIATE", {});
    if (!r.ok()) return r.error();
    return Ok();
  }
  bool IsPostgres() const override { return false; }
  const std::string& Where() const override { return path_; }

 private:
  Result<std::vector<SqlRow>> Run(const std::string& sql, const std::vector<SqlValue>& params) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return Failed("prepare", sql);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, sqlite3_finalize);
    for (size_t i = 0; i < params.size(); ++i) {
      int rc = params[i] ? sqlite3_bind_text(st, static_cast<int>(i + 1), params[i]->c_str(),
                                             static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                         : sqlite3_bind_null(st, static_cast<int>(i + 1));
      if (rc != SQLITE_OK) return Failed("bind", sql);
    }
    std::vector<SqlRow> rows;
    for (;;) {
      int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return Failed("step", sql);
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        row.push_back(t ? SqlValue(reinterpret_cast<const char*>(t)) : std::nullopt);
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }
  Error Failed(const char* step, const std::string& sql) const {
    std::string first_line = sql.substr(0, sql.find('\n'));
    return Error{fmt::format("{}: SQLite {} failed: {} (in: {})", path_, step, sqlite3_errmsg(db_), first_line)};
  }

  sqlite3* db_;
  std::string path_;
  std::string real_;
  std::optional<FileStamp> immutable_;
};

// `name`: what SQLite opens (a path or a file: URI); `path`: the location for
// messages; `real`: the file whose stamp an immutable read checks.
Result<std::unique_ptr<SqlConnection>> Open(const std::string& name, const std::string& path, const std::string& real,
                                            int flags, std::optional<FileStamp> immutable, const char* hint) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Error{fmt::format("{}: cannot open the SQLite history: {}{}", path, msg, hint)};
  }
  // SQLITE_OPEN_READWRITE falls back to read-only on a write-protected file.
  if ((flags & SQLITE_OPEN_READWRITE) && sqlite3_db_readonly(db, "main") == 1) {
    sqlite3_close_v2(db);
    return Error{fmt::format("{}: SQLite could open it only read-only (the file or its file system is not "
                             "writable); record writes the history",
                             path)};
  }
  sqlite3_busy_timeout(db, 10000);  // concurrent writers wait up to 10 s for the lock
  return std::unique_ptr<SqlConnection>(std::make_unique<SqliteConnection>(db, path, real, immutable));
}

Result<std::unique_ptr<SqlConnection>> OpenForWriting(const std::string& path) {
  auto conn = Open(path, path, path, SQLITE_OPEN_READWRITE, std::nullopt, " (does it exist, and is it writable?)");
  if (!conn.ok()) return conn.error();
  for (const char* pragma : {"PRAGMA foreign_keys=ON", "PRAGMA synchronous=NORMAL"}) {
    if (auto r = (*conn)->Query(pragma, {}); !r.ok()) return r.error();
  }
  return conn;
}

// Read-only, and nothing written: not the file, not a -wal or -shm beside it
// (a reader's -shm, owned by the reader, would lock its owner out of
// writing). While a writer is at work (its -wal, or a rollback -journal, is
// there), SQLite reads with its own locks, opening the existing -shm
// read-only; otherwise the file holds every committed run and is read as
// immutable, checked unchanged after each statement. SQLite keeps the -wal
// beside the file a symlink points to: so does this look.
Result<std::unique_ptr<SqlConnection>> OpenForReading(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  const std::string real = resolved ? resolved : path;
  std::free(resolved);
  for (int attempt = 0;; ++attempt) {
    const bool wal = Exists(real + "-wal"), shm = Exists(real + "-shm"), journal = Exists(real + "-journal");
    if (wal && !shm) {
      return Error{fmt::format("{0}: {1}-wal exists without {1}-shm: a writer stopped before it finished; readers "
                               "create no files beside the history: record a run (or open it with sqlite3) as its "
                               "owner once to recover it",
                               path, real)};
    }
    std::optional<FileStamp> stamp;
    if (!wal && !journal) {
      stamp = StampOf(real);
      if (!stamp) return Error{fmt::format("{}: cannot be examined", path)};
    }
    auto conn = Open(FileUri(real, stamp ? "immutable=1" : "mode=ro&readonly_shm=1"), path, real,
                     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, stamp, "");
    if (!conn.ok()) return conn.error();
    auto probe = (*conn)->Query("SELECT count(*) FROM sqlite_master", {});
    // The writer finished between the look above and the open: look again.
    if (!probe.ok() && attempt < 3 && (stamp ? StampOf(real) != stamp : !Exists(real + "-wal"))) continue;
    if (!probe.ok()) return probe.error();
    if (auto r = (*conn)->Query("PRAGMA query_only=ON", {}); !r.ok()) return r.error();
    return conn;
  }
}

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path, SqlAccess access) {
  return access == SqlAccess::kWrite ? OpenForWriting(path) : OpenForReading(path);
}

}  // namespace fvbench
