#include "support/core/command_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace fvbench {
namespace {

constexpr const char* kGitSchemes[] = {"https", "http", "ssh", "git", "git+ssh", "ssh+git"};
constexpr const char kUrlForms[] =
    "a git URL or an absolute path (a URL: https://, http://, ssh://, git://, file:///path or user@host:path)";

bool HasBlankOrControl(const std::string& v) {
  return std::any_of(v.begin(), v.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c <= ' ' || c == 0x7f;
  });
}

bool IsNameChar(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_';
}

// A host name or IPv4 address: name characters only, not starting with '-' or '.'.
bool HostNameOk(const std::string& h) {
  return !h.empty() && h[0] != '-' && h[0] != '.' && std::all_of(h.begin(), h.end(), IsNameChar);
}

// The inside of [...]: hex digits, ':' and '.' (an IPv4 tail).
bool Ipv6Ok(const std::string& h) {
  return !h.empty() && std::all_of(h.begin(), h.end(), [](char ch) {
    return std::isxdigit(static_cast<unsigned char>(ch)) || ch == ':' || ch == '.';
  });
}

bool UserOk(const std::string& u) { return !u.empty() && u[0] != '-' && std::all_of(u.begin(), u.end(), IsNameChar); }

bool PortOk(const std::string& p) {
  return !p.empty() && p.size() <= 5 && std::all_of(p.begin(), p.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch));
  });
}

// "[v6]" or "name", then an optional ":port": "" when fine, else why not.
std::string HostPortProblem(const std::string& hp) {
  std::string host = hp;
  std::string port;
  bool have_port = false;
  if (!hp.empty() && hp[0] == '[') {
    const size_t close = hp.find(']');
    if (close == std::string::npos) return "'[' without ']' in the host";
    if (!Ipv6Ok(hp.substr(1, close - 1))) return "the [IPv6 address] holds other than hex digits, ':' and '.'";
    if (close + 1 < hp.size()) {
      if (hp[close + 1] != ':') return "text after ']' that is not :port";
      port = hp.substr(close + 2);
      have_port = true;
    }
    host.clear();
  } else if (const size_t colon = hp.find(':'); colon != std::string::npos) {
    host = hp.substr(0, colon);
    port = hp.substr(colon + 1);
    have_port = true;
  }
  if (hp.empty() || hp[0] != '[') {
    if (!HostNameOk(host)) {
      return fmt::format("the host '{}' is empty, starts with '-' or '.', or holds other than letters, digits, "
                         "'.', '-' and '_'", host);
    }
  }
  if (have_port && !PortOk(port)) return fmt::format("the port '{}' is not a number", port);
  return "";
}

enum class Shape { kUrl, kBadUrl, kPath, kOther };

struct Classified {
  Shape shape = Shape::kOther;
  std::string why;  // kBadUrl: what is wrong
};

// scheme://... : a known git scheme and a sound authority.
Classified ClassifySchemeUrl(const std::string& v, size_t sep) {
  const std::string scheme = v.substr(0, sep);
  std::string rest = v.substr(sep + 3);
  if (scheme == "file") {
    if (rest.rfind("localhost/", 0) == 0) rest = rest.substr(9);
    if (rest.empty() || rest[0] != '/') return {Shape::kBadUrl, "a file URL names an absolute path: file:///path"};
    return {Shape::kUrl, ""};
  }
  if (std::find(std::begin(kGitSchemes), std::end(kGitSchemes), scheme) == std::end(kGitSchemes)) {
    return {Shape::kBadUrl, fmt::format("'{}' before :// is not a git URL scheme (https, http, ssh, git, file)",
                                        scheme)};
  }
  std::string authority = rest.substr(0, rest.find('/'));
  if (const size_t at = authority.rfind('@'); at != std::string::npos) {
    const std::string user = authority.substr(0, at);
    // https://user:token@host: the part before ':' is the user name.
    if (!UserOk(user.substr(0, scheme.rfind("http", 0) == 0 ? user.find(':') : std::string::npos))) {
      return {Shape::kBadUrl, "the user before '@' is empty, starts with '-' or holds other than letters, digits, "
                              "'.', '-' and '_'"};
    }
    authority = authority.substr(at + 1);
  }
  if (std::string why = HostPortProblem(authority); !why.empty()) return {Shape::kBadUrl, why};
  return {Shape::kUrl, ""};
}

// user@host:path, as git reads it: no '/' before the ':' that ends the host.
Classified ClassifyScpLike(const std::string& v) {
  const size_t at = v.find('@');
  if (at == std::string::npos) return {};
  size_t colon;
  if (at + 1 < v.size() && v[at + 1] == '[') {
    const size_t close = v.find(']', at);
    if (close == std::string::npos || close + 1 >= v.size() || v[close + 1] != ':') return {};
    colon = close + 1;
  } else {
    colon = v.find(':', at);
  }
  if (colon == std::string::npos || v.find('/') < colon) return {};
  const std::string user = v.substr(0, at);
  const std::string host = v.substr(at + 1, colon - at - 1);
  const std::string path = v.substr(colon + 1);
  if (!UserOk(user)) {
    return {Shape::kBadUrl, "the user before '@' is empty, starts with '-' or holds other than letters, digits, '.', "
                            "'-' and '_'"};
  }
  if (std::string why = HostPortProblem(host); !why.empty()) return {Shape::kBadUrl, why};
  if (path.empty() || path[0] == '-') return {Shape::kBadUrl, "the path after ':' is empty or starts with '-'"};
  return {Shape::kUrl, ""};
}

Classified Classify(const std::string& v) {
  if (!v.empty() && v[0] == '/') return {Shape::kPath, ""};
  if (const size_t sep = v.find("://"); sep != std::string::npos) return ClassifySchemeUrl(v, sep);
  return ClassifyScpLike(v);
}

}  // namespace

Result<EdgeSourceKind> CheckEdgeSource(const char* var, const std::string& value) {
  if (value.empty()) return Error{fmt::format("{}='': expected {}", var, kUrlForms)};
  if (value[0] == '-') {
    return Error{fmt::format("{}='{}': starts with '-', so git would read it as an option; expected {}", var, value,
                             kUrlForms)};
  }
  if (HasBlankOrControl(value)) {
    return Error{fmt::format("{}='{}': holds whitespace or control characters; expected {}", var, value, kUrlForms)};
  }
  const Classified c = Classify(value);
  switch (c.shape) {
    case Shape::kUrl: return EdgeSourceKind::kUrl;
    case Shape::kPath: return EdgeSourceKind::kPath;
    case Shape::kBadUrl: return Error{fmt::format("{}='{}': not a git URL: {}", var, value, c.why)};
    case Shape::kOther: break;
  }
  return Error{fmt::format("{}='{}': expected {}", var, value, kUrlForms)};
}

bool IsGitUrl(const std::string& value) {
  auto k = CheckEdgeSource("", value);
  return k.ok() && *k == EdgeSourceKind::kUrl;
}

Result<void> CheckGitRef(const char* var, const std::string& value) {
  if (value.empty()) return Ok();
  auto bad = [&](const std::string& why) -> Result<void> {
    return Error{fmt::format("{}='{}': {}; expected a branch, tag or commit (git check-ref-format)", var, value, why)};
  };
  if (value[0] == '-') return bad("starts with '-', so git would read it as an option");
  if (HasBlankOrControl(value)) return bad("holds whitespace or control characters");
  if (value.find_first_of("~^:?*[\\") != std::string::npos) return bad("holds one of ~ ^ : ? * [ \\");
  if (value.find("..") != std::string::npos || value.find("@{") != std::string::npos ||
      value.find("//") != std::string::npos) {
    return bad("holds '..', '@{' or '//'");
  }
  if (value == "@" || value[0] == '/' || value[0] == '.' || value.back() == '/' || value.back() == '.' ||
      (value.size() >= 5 && value.compare(value.size() - 5, 5, ".lock") == 0)) {
    return bad("is '@', starts with '/' or '.', or ends with '/', '.' or '.lock'");
  }
  return Ok();
}

Result<void> CheckHostAddress(const char* var, const std::string& value) {
  const bool chars_ok = std::all_of(value.begin(), value.end(), [](char ch) {
    return IsNameChar(ch) || ch == ':' || ch == '[' || ch == ']';
  });
  if (value.empty() || value[0] == '-' || value[0] == '.' || !chars_ok) {
    return Error{fmt::format("{}='{}': expected a host name or an IP address (letters, digits, '.', '-', '_', ':', "
                             "'[' and ']'; not starting with '-' or '.')",
                             var, value)};
  }
  return Ok();
}

Result<void> CheckDownloadUrl(const char* var, const std::string& value) {
  const bool scheme_ok = value.rfind("https://", 0) == 0 || value.rfind("http://", 0) == 0 ||
                         value.rfind("file:///", 0) == 0;
  if (!scheme_ok || HasBlankOrControl(value) || value.find_first_of("'\"`\\") != std::string::npos) {
    return Error{fmt::format("{}='{}': expected an https://, http:// or file:/// URL without whitespace, quotes or "
                             "backslashes",
                             var, value)};
  }
  return Ok();
}

Result<void> CheckSshDestination(const char* var, const std::string& value) {
  const size_t at = value.rfind('@');
  const std::string host = at == std::string::npos ? value : value.substr(at + 1);
  if ((!value.empty() && value[0] == '-') || (!host.empty() && host[0] == '-')) {
    return Error{fmt::format("{}='{}': an ssh destination must not start with '-' (its user or host would read as an "
                             "option); expected [user@]host[:port]",
                             var, value)};
  }
  return Ok();
}

}  // namespace fvbench
