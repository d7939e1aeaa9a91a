// An SQLite history file as it is on disk, before SQLite reads it, and how a
// new one comes to exist.
//
//   InspectHistoryFile(path)   kMissing when nothing is there; kDatabase for a
//                              regular file (a symlink to one is followed) that
//                              starts with SQLite's header. Anything else is an
//                              error naming the path and what is there: "is a
//                              directory", "is a FIFO", "exists but is empty",
//                              "is not an SQLite database", "is cut short".
//                              Whether the database holds an fvbench history
//                              is the schema's question (schema.h).
//   CreateHistoryFile(path, init)
//                              builds a new history in a temporary file beside
//                              `path` (`init` creates its tables there), then
//                              links it to `path` only if nothing is there
//                              (link(2) fails on an existing name): a process
//                              that created it first wins, and nobody ever
//                              sees an empty or half-built history at `path`.
//   CheckWritableHistory(path) record's precondition: the file and its
//                              directory (SQLite writes `path`-wal beside it)
//                              are writable by this user.
// Messages start with the path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

// SQLite's file header: its first 16 bytes; a database is at least one 512-byte page.
inline constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
inline constexpr size_t kSqliteMinSize = 512;

// Pure: the first bytes of a regular file of `size` bytes (up to
// kSqliteMagic.size() of them) -> ok, or why it is no SQLite database.
Result<void> CheckSqliteHead(std::string_view head, uint64_t size, const std::string& path);

enum class HistoryFileState { kMissing, kDatabase };
Result<HistoryFileState> InspectHistoryFile(const std::string& path);

// true: this call created `path`; false: another process did first (then
// `path` is that process's history; `init` ran on a file that is gone).
Result<bool> CreateHistoryFile(const std::string& path,
                               const std::function<Result<void>(const std::string& temp_path)>& init);

Result<void> CheckWritableHistory(const std::string& path);

}  // namespace fvbench
