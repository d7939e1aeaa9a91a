#include "support/core/json_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fvbench::detail {

using nlohmann::json;

namespace {

[[noreturn]] void Fail(const std::string& path, std::string_view what) {
  throw JsonFieldError{fmt::format("{}: {}", path.empty() ? "(top level)" : path, what)};
}

const json* Find(const json& obj, std::string_view key, const std::string& path) {
  if (!obj.is_object()) Fail(path, fmt::format("expected an object, got {}", obj.type_name()));
  auto it = obj.find(std::string(key));
  return it == obj.end() ? nullptr : &*it;
}

const json& Need(const json& obj, std::string_view key, const std::string& path) {
  const json* v = Find(obj, key, path);
  if (v == nullptr) Fail(JoinPath(path, key), "missing");
  return *v;
}

double AsNumber(const json& v, const std::string& path) {
  if (!v.is_number()) Fail(path, fmt::format("expected a number, got {}", v.type_name()));
  double d = v.get<double>();
  if (!std::isfinite(d)) Fail(path, "expected a finite number");
  return d;
}

uint64_t AsUint(const json& v, const std::string& path) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    Fail(path, fmt::format("expected a non-negative integer, got {}", v.dump()));
  }
  return v.get<uint64_t>();
}

}  // namespace

std::string JoinPath(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return fmt::format("{}.{}", path, key);
}

double GetNumber(const json& obj, std::string_view key, const std::string& path) {
  return AsNumber(Need(obj, key, path), JoinPath(path, key));
}

std::string GetString(const json& obj, std::string_view key, const std::string& path) {
  const json& v = Need(obj, key, path);
  if (!v.is_string()) Fail(JoinPath(path, key), fmt::format("expected a string, got {}", v.type_name()));
  return v.get<std::string>();
}

bool GetBool(const json& obj, std::string_view key, const std::string& path) {
  const json& v = Need(obj, key, path);
  if (!v.is_boolean()) Fail(JoinPath(path, key), fmt::format("expected true or false, got {}", v.type_name()));
  return v.get<bool>();
}

uint64_t GetUint(const json& obj, std::string_view key, const std::string& path) {
  return AsUint(Need(obj, key, path), JoinPath(path, key));
}

const json& GetObject(const json& obj, std::string_view key, const std::string& path) {
  const json& v = Need(obj, key, path);
  if (!v.is_object()) Fail(JoinPath(path, key), fmt::format("expected an object, got {}", v.type_name()));
  return v;
}

const json& GetArray(const json& obj, std::string_view key, const std::string& path) {
  const json& v = Need(obj, key, path);
  if (!v.is_array()) Fail(JoinPath(path, key), fmt::format("expected an array, got {}", v.type_name()));
  return v;
}

double OptNumber(const json& obj, std::string_view key, const std::string& path, double fallback) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return fallback;
  return AsNumber(*v, JoinPath(path, key));
}

std::optional<double> OptNumberOrNull(const json& obj, std::string_view key, const std::string& path) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return AsNumber(*v, JoinPath(path, key));
}

double GetNumberOrNaN(const json& obj, std::string_view key, const std::string& path) {
  if (!obj.is_object() || !obj.contains(std::string(key))) {
    throw JsonFieldError{fmt::format("{}: missing", JoinPath(path, key))};
  }
  auto v = OptNumberOrNull(obj, key, path);
  return v ? *v : std::numeric_limits<double>::quiet_NaN();
}

std::string OptString(const json& obj, std::string_view key, const std::string& path, std::string fallback) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_string()) Fail(JoinPath(path, key), fmt::format("expected a string, got {}", v->type_name()));
  return v->get<std::string>();
}

bool OptBool(const json& obj, std::string_view key, const std::string& path, bool fallback) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_boolean()) Fail(JoinPath(path, key), fmt::format("expected true or false, got {}", v->type_name()));
  return v->get<bool>();
}

uint64_t OptUint(const json& obj, std::string_view key, const std::string& path, uint64_t fallback) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return fallback;
  return AsUint(*v, JoinPath(path, key));
}

std::optional<uint64_t> OptUintOrNull(const json& obj, std::string_view key, const std::string& path) {
  const json* v = Find(obj, key, path);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return AsUint(*v, JoinPath(path, key));
}

void RequireObject(const json& v, const std::string& path) {
  if (!v.is_object()) Fail(path, fmt::format("expected an object, got {}", v.type_name()));
}

void CheckSchemaVersion(const json& doc, int expected, bool required) {
  RequireObject(doc, "");
  auto it = doc.find("schema_version");
  if (it == doc.end()) {
    if (required) Fail("schema_version", fmt::format("missing (expected {})", expected));
    return;
  }
  if (!it->is_number_integer() || it->get<int64_t>() != expected) {
    Fail("schema_version", fmt::format("unsupported value {} (this fvbench reads {})", it->dump(), expected));
  }
}

namespace {

// nlohmann's out_of_range.406 ("number overflow parsing '1e999'") carries no
// position, unlike its parse errors: the line and column of the first such
// literal in the text, or "" when it cannot be found.
std::string OverflowPosition(std::string_view text, const nlohmann::json::exception& e) {
  if (e.id != 406) return "";
  const std::string what = e.what();
  const size_t open = what.find("parsing '");
  const size_t close = open == std::string::npos ? open : what.find('\'', open + 9);
  if (close == std::string::npos || close == open + 9) return "";
  const size_t at = text.find(std::string_view(what).substr(open + 9, close - open - 9));
  if (at == std::string_view::npos) return "";
  const std::string_view before = text.substr(0, at);
  const size_t line_start = before.rfind('\n');
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return fmt::format(" (at line {}, column {})", line, column);
}

}  // namespace

Result<void> RefuseNulBytes(std::string_view text, const std::string& source_name) {
  const size_t at = text.find('\0');
  if (at == std::string_view::npos) return Ok();
  const std::string_view before = text.substr(0, at);
  const size_t line_start = before.rfind('\n');
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return Error{fmt::format("{}: a NUL byte at byte {} of {} (line {}, column {}): not JSON; the file must hold the "
                           "JSON document alone",
                           source_name, at, text.size(), line, column)};
}

std::string AfterDocumentHint(std::string_view parse_error_text) {
  return parse_error_text.find("; expected end of input") != std::string_view::npos
             ? " (content after the JSON document: the file must hold the document alone)"
             : "";
}

Result<json> ParseJsonText(std::string_view text, const std::string& source_name) {
  if (auto nul = RefuseNulBytes(text, source_name); !nul) return nul.error();
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: not valid JSON: {}{}{}", source_name, e.what(), AfterDocumentHint(e.what()),
                             OverflowPosition(text, e))};
  }
}

Result<nlohmann::ordered_json> ParseOrderedJsonText(std::string_view text, const std::string& source_name) {
  if (auto nul = RefuseNulBytes(text, source_name); !nul) return nul.error();
  using Event = nlohmann::ordered_json::parse_event_t;
  std::vector<std::vector<std::string>> keys;  // per open object (or array: empty), the keys so far
  std::vector<std::string> path;               // the key under which each open container sits
  std::string last_key, duplicate;
  auto watch = [&](int, Event event, nlohmann::ordered_json& value) {
    if (event == Event::object_start || event == Event::array_start) {
      path.push_back(last_key);
      keys.emplace_back();
    } else if (event == Event::object_end || event == Event::array_end) {
      if (!keys.empty()) keys.pop_back();
      if (!path.empty()) path.pop_back();
    } else if (event == Event::key) {
      last_key = value.get<std::string>();
      auto& seen = keys.back();
      if (duplicate.empty() && std::find(seen.begin(), seen.end(), last_key) != seen.end()) {
        std::string at;
        for (size_t i = 1; i < path.size(); ++i) at += (at.empty() ? "" : ".") + path[i];
        duplicate = fmt::format("{}: {}the key '{}' appears twice (a JSON parser keeps only the last)", source_name,
                                at.empty() ? "" : at + ": ", last_key);
      }
      seen.push_back(last_key);
    }
    return true;
  };
  try {
    auto doc = nlohmann::ordered_json::parse(text.begin(), text.end(), watch);
    if (!duplicate.empty()) return Error{duplicate};
    return doc;
  } catch (const nlohmann::ordered_json::exception& e) {
    return Error{fmt::format("{}: not valid JSON: {}{}{}", source_name, e.what(), AfterDocumentHint(e.what()),
                             OverflowPosition(text, e))};
  }
}

namespace {

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

Result<std::string> ReadTextFile(const std::string& path, uint64_t max_bytes) {
  // Opened without blocking (a FIFO with no writer would wait forever) and
  // judged by what was opened, not by a name looked up before.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("{}: cannot open for reading: {}", path, std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{fmt::format("{}: cannot read: {}", path, std::strerror(err))};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return Error{fmt::format("{}: is a directory, not a file", path)};
    return Error{fmt::format("{}: is {}, not a regular file", path, FileKind(st.st_mode))};
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return Error{fmt::format("{}: read failed: {}", path, std::strerror(err))};
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return Error{fmt::format("{}: larger than {} bytes, more than any file fvbench reads here", path, max_bytes)};
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

namespace {

// A new file beside `path`: a name no one else chose, created exclusively
// and never through a link (O_CREAT | O_EXCL | O_NOFOLLOW), mode 0644 less
// the umask. Returns its fd and name, or -1 with errno.
int CreateTempBeside(const std::string& path, std::string* tmp) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  for (int attempt = 0; attempt < 8; ++attempt) {
    *tmp = fmt::format("{}.tmp.{}.{:016x}", path, static_cast<long>(::getpid()),
                       static_cast<unsigned long long>(rng()));
    int fd;
    do {
      fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

Result<void> WriteTextFile(const std::string& path, std::string_view text) {
  if (path.empty()) return Error{"cannot write a file with an empty name"};
  std::string tmp;
  const int fd = CreateTempBeside(path, &tmp);
  if (fd < 0) {
    return Error{fmt::format("{}: cannot write: {} (creating the temporary file {} beside it)", path,
                             std::strerror(errno), tmp)};
  }
  const char* data = text.data();
  size_t left = text.size();
  int err = 0;
  while (left > 0) {
    const ssize_t w = ::write(fd, data, left);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      err = errno;
      break;
    }
    data += w;
    left -= static_cast<size_t>(w);
  }
  if (::close(fd) != 0 && err == 0) err = errno;  // a full disk may show only here (NFS)
  if (err != 0) {
    ::unlink(tmp.c_str());
    return Error{fmt::format("{}: write failed: {} (writing the temporary file {}, removed)", path,
                             std::strerror(err), tmp)};
  }
  // rename(2) replaces whatever name is at `path`; it never writes through a link there.
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return Error{fmt::format("{}: cannot rename {} into place: {}", path, tmp, std::strerror(e))};
  }
  return Ok();
}

}  // namespace fvbench::detail
