// BENCH_DIR and the folders fvbench writes into, on every host: the rule an
// existing directory must pass, the chain of directories checked, and the
// reading of what `stat` printed for each. Pure: facts in, verdict out (the
// I/O is host/dir_check.h).
//
// Another user who can create names where fvbench writes can put a symbolic
// link where the next result goes, and a run as root then writes through it
// into any file. So, one directory at a time, parents first:
//   - BENCH_DIR and each folder below it that fvbench writes into (kBench):
//     a real directory (lstat: a symbolic link is refused, never followed),
//     owned by the user fvbench runs as on that host, and not writable by
//     group or others. The sticky bit does not make a group- or
//     other-writable one acceptable: it stops others from removing or
//     renaming our files, not from creating the names we are about to write.
//   - each directory above BENCH_DIR (kAbove; followed, so /var/run -> /run
//     is fine): owned by root or that user, and not writable by group or
//     others unless it has the sticky bit (/tmp): otherwise whoever may write
//     there can move BENCH_DIR aside and put their own in its place.
// A missing directory is created (kBench with its folder's mode, kAbove 0755)
// once every directory before it passed, and is then checked the same way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

enum class DirPlace { kAbove, kBench };

// A folder of BENCH_DIR ("" is BENCH_DIR itself) and the mode it is created with.
struct BenchFolder {
  std::string name;
  int mode = 0700;
};

struct DirToCheck {
  std::string path;
  DirPlace place = DirPlace::kBench;
  int create_mode = 0700;
};

// What `stat -c '%u %f %U'` printed for one directory ("-": it does not exist).
struct DirStat {
  bool exists = false;
  uint32_t uid = 0;
  uint32_t mode = 0;  // st_mode: file type and permission bits
  std::string owner;  // user name, or the uid when the host has no name for it
};

// Every directory above `bench_dir` from "/" down (kAbove), then BENCH_DIR
// and `folders` in their order (kBench; list a parent before its children).
// `bench_dir` is absolute and lexically normal (config_paths.cc CheckedDir).
std::vector<DirToCheck> DirChain(const std::string& bench_dir, const std::vector<BenchFolder>& folders);

// One line of `stat -c '%u %f %U'`: "0 41ed root", or "-" for a missing one.
Result<DirStat> ParseDirStatLine(std::string_view line);

// The rule above for an existing directory; the Error names the host, the
// path, its owner (name and uid) and its mode, and what to do.
Result<void> CheckDir(const DirToCheck& dir, const DirStat& st, uint32_t uid, const std::string& host);

}  // namespace fvbench
