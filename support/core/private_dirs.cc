#include "support/core/private_dirs.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <charconv>

namespace fvbench {

std::vector<DirToCheck> DirChain(const std::string& bench_dir, const std::vector<BenchFolder>& folders) {
  std::vector<DirToCheck> chain;
  for (size_t slash = 0; (slash = bench_dir.find('/', slash)) != std::string::npos; ++slash) {
    chain.push_back({slash == 0 ? "/" : bench_dir.substr(0, slash), DirPlace::kAbove, 0755});
  }
  for (const BenchFolder& f : folders) {
    chain.push_back({f.name.empty() ? bench_dir : bench_dir + "/" + f.name, DirPlace::kBench, f.mode});
  }
  return chain;
}

Result<DirStat> ParseDirStatLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  DirStat st;
  if (line == "-") return st;
  const size_t a = line.find(' ');
  const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos) return Error{fmt::format("stat printed '{}', expected '<uid> <hex mode> <user>'", line)};
  const std::string_view uid = line.substr(0, a), mode = line.substr(a + 1, b - a - 1);
  auto u = std::from_chars(uid.data(), uid.data() + uid.size(), st.uid);
  auto m = std::from_chars(mode.data(), mode.data() + mode.size(), st.mode, 16);
  if (u.ec != std::errc{} || u.ptr != uid.data() + uid.size() || m.ec != std::errc{} ||
      m.ptr != mode.data() + mode.size()) {
    return Error{fmt::format("stat printed '{}', expected '<uid> <hex mode> <user>'", line)};
  }
  st.exists = true;
  st.owner = std::string(line.substr(b + 1));
  return st;
}

namespace {

std::string Who(const DirStat& st) {
  const std::string uid = std::to_string(st.uid);
  return st.owner.empty() || st.owner == uid || st.owner == "UNKNOWN" ? "uid " + uid
                                                                       : st.owner + " (uid " + uid + ")";
}

std::string Writers(uint32_t mode) {
  const bool g = (mode & S_IWGRP) != 0, o = (mode & S_IWOTH) != 0;
  return g && o ? "group and others" : g ? "its group" : "others";
}

const char* TypeName(uint32_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISREG(mode)) return "a regular file";
  return "not a directory";
}

}  // namespace

Result<void> CheckDir(const DirToCheck& dir, const DirStat& st, uint32_t uid, const std::string& host) {
  const std::string facts = fmt::format("owner {}, mode {:04o}", Who(st), st.mode & 07777);
  if (dir.place == DirPlace::kBench) {
    if (!S_ISDIR(st.mode)) {
      return Error{fmt::format("{}: {} is {} ({}): refused, not followed; BENCH_DIR and the folders fvbench writes "
                               "into must be directories of the user it runs as (uid {})",
                               host, dir.path, TypeName(st.mode), facts, uid)};
    }
    if (st.uid != uid) {
      return Error{fmt::format("{}: {} is owned by another user ({}), not by the user fvbench runs as (uid {}): "
                               "refused (its owner can put a link where fvbench writes a result); remove it, or "
                               "set BENCH_DIR to a directory of yours",
                               host, dir.path, facts, uid)};
    }
    if ((st.mode & (S_IWGRP | S_IWOTH)) != 0) {
      return Error{fmt::format("{}: {} is writable by {} ({}): refused (whoever may write there can put a link "
                               "where fvbench writes a result; a sticky bit does not stop that); chmod go-w it, or "
                               "set BENCH_DIR elsewhere",
                               host, dir.path, Writers(st.mode), facts)};
    }
    return Ok();
  }
  if (!S_ISDIR(st.mode)) {
    return Error{fmt::format("{}: {}, above BENCH_DIR, is {} ({})", host, dir.path, TypeName(st.mode), facts)};
  }
  if (st.uid != 0 && st.uid != uid) {
    return Error{fmt::format("{}: {}, above BENCH_DIR, is owned by another user ({}; fvbench runs as uid {}): "
                             "refused (its owner can move BENCH_DIR aside and put another in its place); set "
                             "BENCH_DIR under directories owned by you or root",
                             host, dir.path, facts, uid)};
  }
  if ((st.mode & (S_IWGRP | S_IWOTH)) != 0 && (st.mode & S_ISVTX) == 0) {
    return Error{fmt::format("{}: {}, above BENCH_DIR, is writable by {} without the sticky bit ({}): refused "
                             "(whoever may write there can move BENCH_DIR aside and put another in its place); set "
                             "BENCH_DIR elsewhere",
                             host, dir.path, Writers(st.mode), facts)};
  }
  return Ok();
}

}  // namespace fvbench
