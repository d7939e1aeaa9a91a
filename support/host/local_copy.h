// LocalCopy: the controller's copy of a file a host sends back (Host::Fetch).
// Created under a new name beside the destination, ".<name>.fetch.<random>",
// with O_CREAT | O_EXCL | O_NOFOLLOW (never through a link, never an
// existing file) and mode 0644 less the umask: whatever the remote file's
// mode, the copy has no setuid, setgid or sticky bit and no group or other
// write. Commit() renames it over the destination (rename(2) replaces a name,
// it never follows a link there); a LocalCopy destroyed uncommitted removes
// its temporary file, so a refused or failed fetch leaves nothing.
//
// Create() refuses a destination with a ".." component and an existing
// destination that is not a regular file (a symbolic link, a FIFO, a
// directory, a device): something put in the way is named, not replaced.
// Missing parent directories are created (BENCH_DIR's own folders are
// checked before any run writes into them: bench_dirs.h).
#pragma once

#include <cstdint>
#include <string>

#include "support/core/result.h"

namespace fvbench {

class LocalCopy {
 public:
  // `who` prefixes errors ("root@10.0.0.2: "), `what` names the source
  // ("fetch /x/y.json").
  static Result<LocalCopy> Create(const std::string& who, const std::string& what, const std::string& dest);
  LocalCopy(LocalCopy&& other) noexcept;
  LocalCopy& operator=(LocalCopy&&) = delete;
  LocalCopy(const LocalCopy&) = delete;
  ~LocalCopy();

  int fd() const { return fd_; }
  const std::string& temp_path() const { return tmp_; }
  // Writes `len` bytes at offset `off` (pwrite; the SFTP reader's pieces come
  // in offset order per request).
  Result<void> WriteAt(uint64_t off, const char* data, size_t len);
  // Checks the copy holds `expected` bytes, closes it and renames it over the
  // destination.
  Result<void> Commit(uint64_t expected);

 private:
  LocalCopy(std::string who, std::string what, std::string dest, std::string tmp, int fd)
      : who_(std::move(who)), what_(std::move(what)), dest_(std::move(dest)), tmp_(std::move(tmp)), fd_(fd) {}
  Error Fail(const std::string& why) const;
  std::string who_, what_, dest_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace fvbench
