#include "support/history/history_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "support/core/path_text.h"

namespace fvbench {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// What lstat says of a name stat(2) could not follow.
std::string DanglingOrError(const std::string& path, int err) {
  struct stat l {};
  if (::lstat(path.c_str(), &l) == 0 && S_ISLNK(l.st_mode)) {
    return fmt::format("{}: is a symbolic link to a file that cannot be reached ({})", path, detail::ErrnoText(err));
  }
  return fmt::format("{}: cannot be examined: {}", path, detail::ErrnoText(err));
}

void RemoveWithCompanions(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
}

// A new empty file beside `path`, created exclusively (mode 0666 less the umask, as SQLite creates one).
Result<std::string> NewTemporaryFile(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string name = fmt::format("{}.new-{}-{}-{:08x}", path, static_cast<long>(::getpid()), counter++, random());
    int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST) {
      return Error{fmt::format("{}: cannot create the history: {} (creating the temporary file {} beside it)", path,
                               detail::ErrnoText(errno), name)};
    }
  }
  return Error{fmt::format("{}: cannot create the history: no free temporary name beside it", path)};
}

}  // namespace

Result<void> CheckSqliteHead(std::string_view head, uint64_t size, const std::string& path) {
  if (size == 0) {
    return Error{fmt::format("{}: exists but is empty (0 bytes), so it holds no history: a failed copy or cache "
                             "restore? A history is created only where no file exists: restore the history, or "
                             "remove the empty file to start a new one",
                             path)};
  }
  const size_t n = std::min(head.size(), kSqliteMagic.size());
  if (head.substr(0, n) != kSqliteMagic.substr(0, n)) {
    return Error{fmt::format("{}: is not an SQLite database (it does not start with SQLite's header "
                             "\"SQLite format 3\"), so not an fvbench history; give the history's path, or a path "
                             "where no file exists to start a new one",
                             path)};
  }
  if (size < kSqliteMinSize) {
    return Error{fmt::format("{}: is cut short: {} bytes, an SQLite database has at least {} (a failed copy?)", path,
                             size, kSqliteMinSize)};
  }
  return Ok();
}

Result<HistoryFileState> InspectHistoryFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat l {};
    if (err == ENOENT && ::lstat(path.c_str(), &l) != 0) return HistoryFileState::kMissing;
    return Error{DanglingOrError(path, err)};
  }
  if (!S_ISREG(st.st_mode)) {
    return Error{fmt::format("{}: is {}, not a history file; give the path of the SQLite file", path,
                             KindOf(st.st_mode))};
  }
  // O_NONBLOCK: a name swapped for a FIFO after the stat above does not hang the open.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot be read: {}", path, detail::ErrnoText(errno))};
  char head[16] = {};
  ssize_t n = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::pread(fd, head, sizeof head, 0);
  const int err = errno;
  ::close(fd);
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("{}: is {}, not a history file", path, KindOf(st.st_mode))};
  if (n < 0) return Error{fmt::format("{}: cannot be read: {}", path, detail::ErrnoText(err))};
  if (auto h = CheckSqliteHead(std::string_view(head, static_cast<size_t>(n)), static_cast<uint64_t>(st.st_size),
                               path);
      !h.ok()) {
    return h.error();
  }
  return HistoryFileState::kDatabase;
}

Result<bool> CreateHistoryFile(const std::string& path,
                               const std::function<Result<void>(const std::string& temp_path)>& init) {
  auto temp = NewTemporaryFile(path);
  if (!temp.ok()) return temp.error();
  if (auto i = init(*temp); !i.ok()) {
    RemoveWithCompanions(*temp);
    return i.error();
  }
  bool created = true;
  if (::link(temp->c_str(), path.c_str()) != 0) {
    const int err = errno;
    if (err != EEXIST) {
      RemoveWithCompanions(*temp);
      return Error{fmt::format("{}: cannot create the history: {} (linking the new history {} to that name)", path,
                               detail::ErrnoText(err), *temp)};
    }
    created = false;  // another process created it first: use that one
  }
  RemoveWithCompanions(*temp);
  return created;
}

Result<void> CheckWritableHistory(const std::string& path) {
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
    return Error{fmt::format("{}: not writable by this user (uid {}): {}; record writes the history (show, check, "
                             "export-csv and plot only read it)",
                             path, static_cast<long>(::geteuid()), detail::ErrnoText(errno))};
  }
  const std::string dir = DirectoryOf(path);
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return Error{fmt::format("{}: its directory {} is not writable by this user (uid {}): {}; record needs it for "
                             "SQLite's write-ahead log beside the history ({}-wal)",
                             path, dir, static_cast<long>(::geteuid()), detail::ErrnoText(errno), path)};
  }
  return Ok();
}

}  // namespace fvbench
