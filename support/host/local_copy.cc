#include "support/host/local_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>

#include "support/core/path_text.h"

namespace fvbench {

using detail::ErrnoText;

namespace {

std::string RandomName() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

bool HasDotDot(const std::string& path) {
  for (const auto& part : std::filesystem::path(path)) {
    if (part == "..") return true;
  }
  return false;
}

const char* TypeName(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

}  // namespace

Result<LocalCopy> LocalCopy::Create(const std::string& who, const std::string& what, const std::string& dest) {
  auto refuse = [&](const std::string& why) { return Error{who + what + ": local copy " + dest + ": " + why}; };
  if (dest.empty() || dest.back() == '/') return refuse("not a file path");
  if (HasDotDot(dest)) return refuse("a path with a '..' component is refused");
  struct stat st;
  if (::lstat(dest.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return refuse(std::string(TypeName(st.st_mode)) + " is in the way: refused, not replaced or followed");
  }
  const std::filesystem::path p(dest);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  if (ec) return refuse("cannot create " + p.parent_path().string() + ": " + ec.message());
  const std::string dir = p.has_parent_path() ? p.parent_path().string() + "/" : std::string();
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string tmp = dir + "." + p.filename().string() + ".fetch." + RandomName();
    int fd;
    do {
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) return LocalCopy(who, what, dest, std::move(tmp), fd);
    if (errno != EEXIST) return refuse("cannot create " + tmp + ": " + ErrnoText(errno));
  }
  return refuse("cannot create a new temporary file beside it (8 names taken)");
}

LocalCopy::LocalCopy(LocalCopy&& o) noexcept
    : who_(std::move(o.who_)),
      what_(std::move(o.what_)),
      dest_(std::move(o.dest_)),
      tmp_(std::move(o.tmp_)),
      fd_(o.fd_),
      committed_(o.committed_) {
  o.fd_ = -1;
  o.committed_ = true;  // the moved-from object removes nothing
}

LocalCopy::~LocalCopy() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

Error LocalCopy::Fail(const std::string& why) const {
  return Error{who_ + what_ + ": local copy " + dest_ + ": " + why};
}

Result<void> LocalCopy::WriteAt(uint64_t off, const char* data, size_t len) {
  while (len > 0) {
    ssize_t w = ::pwrite(fd_, data, len, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Fail("write: " + ErrnoText(errno));
    data += w;
    len -= static_cast<size_t>(w);
    off += static_cast<uint64_t>(w);
  }
  return Ok();
}

Result<void> LocalCopy::Commit(uint64_t expected) {
  struct stat st;
  if (::fstat(fd_, &st) != 0) return Fail("fstat: " + ErrnoText(errno));
  if (static_cast<uint64_t>(st.st_size) != expected) {
    return Fail("holds " + std::to_string(st.st_size) + " bytes, " + std::to_string(expected) + " were received");
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Fail("close: " + ErrnoText(errno));
  if (::rename(tmp_.c_str(), dest_.c_str()) != 0) return Fail("rename: " + ErrnoText(errno));
  committed_ = true;
  return Ok();
}

}  // namespace fvbench
